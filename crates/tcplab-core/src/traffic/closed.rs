//! Closed loop: one flow at a time; the next opens a think time after the previous one
//! completed.
use super::{Model, Plan};
use crate::scenario::GeneratorSpec;
use crate::sim::{secs, Rng, Time};

pub struct Closed;

impl Closed {
    pub fn create(_: &GeneratorSpec) -> Box<dyn Model> {
        Box::new(Closed)
    }
}

impl Model for Closed {
    fn on_wake(&mut self, _now: Time, g: &GeneratorSpec, rng: &mut Rng, plan: &mut Plan) {
        plan.open_drawn(g, rng);
    }

    fn on_flow_done(&mut self, now: Time, g: &GeneratorSpec, rng: &mut Rng) -> Option<Time> {
        let think = g.think.as_ref().map_or(0.0, |d| d.sample(rng));
        Some(now.saturating_add(secs(think.max(0.0))))
    }
}
