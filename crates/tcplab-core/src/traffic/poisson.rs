//! Open-loop arrivals: flows open as a Poisson process of `rate` per second, whatever
//! becomes of the earlier ones.
use super::{Model, Plan};
use crate::scenario::GeneratorSpec;
use crate::sim::{secs, Rng, Time};

pub struct Poisson;

impl Poisson {
    pub fn create(_: &GeneratorSpec) -> Box<dyn Model> {
        Box::new(Poisson)
    }
}

fn gap(g: &GeneratorSpec, rng: &mut Rng) -> f64 {
    rng.exponential(1.0 / g.rate.unwrap_or(1.0))
}

impl Model for Poisson {
    fn first(&mut self, g: &GeneratorSpec, rng: &mut Rng) -> f64 {
        g.start + gap(g, rng)
    }

    fn on_wake(&mut self, now: Time, g: &GeneratorSpec, rng: &mut Rng, plan: &mut Plan) {
        let next = now.saturating_add(secs(gap(g, rng)).max(1));
        plan.wake_at(next);
        plan.open_drawn(g, rng);
    }
}
