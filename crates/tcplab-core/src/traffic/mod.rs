//! Applications: where traffic comes from.
//!
//! - `cbr.rs`: constant-bit-rate UDP sources whose rate follows a step schedule (flows
//!   with `transport = "udp"`);
//! - `generator.rs`: flow generators (Poisson arrivals, closed loop, WWW sessions), which
//!   open sized TCP transfers over time.
//!
//! The transfers of the spec's `[[flows]]` are opened when the world is built
//! (`engine/build.rs`).
mod cbr;
mod generator;

pub use cbr::{Cbr, CbrSource};
pub use generator::{FlowDone, Generator, GeneratorTotals, Generators};

use crate::scenario::GeneratorSpec;
use crate::sim::{Rng, Time};

/// The applications' own events.
#[derive(Debug, Clone, Copy)]
pub enum TrafficEv {
    /// A UDP source sends its next packet (flow, generation).
    CbrSend(u32, u32),
    /// A UDP source moves to the `.1`-th step of its rate schedule.
    CbrRate(u32, u32),
    /// A UDP source stops for good.
    CbrStop(u32),
    /// A flow generator wakes up (to open its next flow).
    GenTick(u32),
}

/// All applications.
pub struct Traffic {
    pub cbr: Cbr,
    pub generators: Generators,
}

/// What a generator does when it wakes up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Wake up again at this time.
    WakeAt(Time),
    /// Open a transfer of this many segments now.
    Open(u64),
}

/// The steps of one wake-up, in order.
#[derive(Debug, Default)]
pub struct Plan {
    pub steps: Vec<Step>,
}

impl Plan {
    pub fn wake_at(&mut self, t: Time) {
        self.steps.push(Step::WakeAt(t));
    }

    pub fn open(&mut self, segments: u64) {
        self.steps.push(Step::Open(segments));
    }

    /// Open a transfer whose size is drawn from the generator's `size` distribution (in its
    /// `size_unit`, rounded up to whole segments, at least one).
    pub fn open_drawn(&mut self, g: &GeneratorSpec, rng: &mut Rng) {
        let drawn = g.size.sample(rng);
        let segments = if g.size_unit == "bytes" {
            drawn / g.tcp.mss as f64
        } else {
            drawn
        };
        self.open(segments.ceil().max(1.0) as u64);
    }
}
