//! WWW sessions: a session is a number of pages (`pages`), fetched one at a time, each a
//! reading time (`reading`) after the previous one completed; the next session starts a
//! `session_gap` after the last page of the previous one.
use super::{Model, Plan};
use crate::scenario::GeneratorSpec;
use crate::sim::{secs, Rng, Time};

pub struct Sessions {
    /// Pages of the current session still to fetch after the current one.
    pages_left: u64,
}

impl Sessions {
    pub fn create(_: &GeneratorSpec) -> Box<dyn Model> {
        Box::new(Sessions { pages_left: 0 })
    }
}

impl Model for Sessions {
    fn on_wake(&mut self, _now: Time, g: &GeneratorSpec, rng: &mut Rng, plan: &mut Plan) {
        if self.pages_left == 0 {
            let pages = g.pages.as_ref().map_or(1.0, |d| d.sample(rng));
            self.pages_left = pages.round().max(1.0) as u64;
        }
        self.pages_left = self.pages_left.saturating_sub(1);
        plan.open_drawn(g, rng);
    }

    fn on_flow_done(&mut self, now: Time, g: &GeneratorSpec, rng: &mut Rng) -> Option<Time> {
        let gap = if self.pages_left > 0 {
            &g.reading
        } else {
            &g.session_gap
        };
        let wait = gap.as_ref().map_or(0.0, |d| d.sample(rng));
        Some(now.saturating_add(secs(wait.max(0.0))))
    }
}
