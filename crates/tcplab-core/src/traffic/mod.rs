//! Applications: where traffic comes from.
//!
//! - `cbr.rs`: constant-bit-rate UDP sources whose rate follows a step schedule (flows
//!   with `transport = "udp"` or `"voip"`); `delay.rs`: the one-way delay, jitter and loss
//!   statistics their receivers keep when measured;
//! - `generator.rs`: flow generators, which open sized TCP transfers over time; *when* and
//!   *how large* is a traffic [`Model`], one file each (`poisson.rs`, `closed.rs`,
//!   `sessions.rs`, `packmime.rs`), found by the generator's `kind` in [`MODELS`].
//!   PackMime-HTTP (`packmime.rs`, tables in `packmime_tables.rs`) is a model of
//!   connections: each of its transfers is tagged with its connection, it hears when a
//!   transfer has fully arrived, and it sets its own timers.
//!
//! Adding a traffic model: one new file implementing [`Model`], and one line in [`MODELS`]
//! (plus the spec's fields and validation in `scenario/`). The transfers of the spec's
//! `[[flows]]` are opened when the world is built (`engine/build.rs`).
mod cbr;
mod closed;
mod delay;
mod generator;
pub mod packmime;
mod packmime_tables;
mod poisson;
mod sessions;

pub use cbr::{Cbr, CbrSource, DelayTrace};
pub use delay::DelayStats;
pub use generator::{FlowDone, Generator, GeneratorTotals, Generators};
pub use packmime::{RequestRecord, WebStats};

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
    /// A timer a generator's model set for one of its tags (generator, tag).
    GenTimer(u32, u32),
}

/// All applications.
pub struct Traffic {
    pub cbr: Cbr,
    pub generators: Generators,
}

/// A traffic model: decides when a generator opens flows and how large they are. The
/// generator (`generator.rs`) does the rest: it checks `stop` and `max_flows`, names and
/// opens the flows, schedules the wake-ups and adds up what its completed flows did.
/// Models draw only from the generator's own random stream.
pub trait Model: Send {
    /// The first wake-up (absolute time in seconds).
    fn first(&mut self, g: &GeneratorSpec, _rng: &mut Rng) -> f64 {
        g.start
    }

    /// The generator wakes up at `now`: open flows and/or ask for the next wake-up through
    /// `plan` (the steps are carried out in order).
    fn on_wake(&mut self, now: Time, g: &GeneratorSpec, rng: &mut Rng, plan: &mut Plan);

    /// One of the generator's flows completed at `now`: the next wake-up, if this model
    /// waits for completions (closed loop). A flow a completion should open right away is
    /// opened by a wake-up at `now`.
    fn on_flow_done(&mut self, _now: Time, _g: &GeneratorSpec, _rng: &mut Rng) -> Option<Time> {
        None
    }

    /// The timer the model set for `tag` (by returning its time from `on_received`) fired.
    fn on_timer(&mut self, _now: Time, _g: &GeneratorSpec, _rng: &mut Rng, _tag: u32, _plan: &mut Plan) {}

    /// The whole of a transfer opened with `tag` (`Step::Send`) reached its receiver at
    /// `now`: the time of the timer to set for `tag`, if any.
    fn on_received(&mut self, _now: Time, _g: &GeneratorSpec, _rng: &mut Rng, _tag: u32) -> Option<Time> {
        None
    }

    /// Request-level totals of a web model.
    fn web_stats(&self) -> Option<&WebStats> {
        None
    }

    /// The per-request records a web model kept, moved out.
    fn take_request_log(&mut self) -> Vec<RequestRecord> {
        Vec::new()
    }
}

/// What a model asks for when it wakes up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Wake up again at this time.
    WakeAt(Time),
    /// Open a transfer of this many segments now.
    Open(u64),
    /// Open a transfer of exactly this many bytes now, on the generator's route of this
    /// index, tagged (its arrival is reported to the model with the tag). Only a transfer
    /// that `opens` its connection makes the handshake (when the generator's `tcp` has one).
    Send {
        bytes: u64,
        route: u32,
        tag: u32,
        opens: bool,
    },
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

    pub fn send(&mut self, bytes: u64, route: u32, tag: u32, opens: bool) {
        self.steps.push(Step::Send {
            bytes,
            route,
            tag,
            opens,
        });
    }

    /// Open a transfer whose size is drawn from the generator's `size` distribution (in its
    /// `size_unit`, rounded up to whole segments, at least one).
    pub fn open_drawn(&mut self, g: &GeneratorSpec, rng: &mut Rng) {
        let drawn = g.size.as_ref().map_or(1.0, |d| d.sample(rng));
        let segments = if g.size_unit == "bytes" {
            drawn / g.tcp.mss as f64
        } else {
            drawn
        };
        self.open(segments.ceil().max(1.0) as u64);
    }
}

pub type ModelConstructor = fn(&GeneratorSpec) -> Box<dyn Model>;

/// Generator kinds → their traffic models.
pub const MODELS: &[(&str, ModelConstructor)] = &[
    ("poisson", poisson::Poisson::create),
    ("closed", closed::Closed::create),
    ("sessions", sessions::Sessions::create),
    ("packmime", packmime::PackMime::create),
];

/// The traffic model of a generator kind.
pub fn model(g: &GeneratorSpec) -> Option<Box<dyn Model>> {
    MODELS.iter().find(|(k, _)| *k == g.kind).map(|(_, create)| create(g))
}

/// The generator kinds with a model.
pub fn kinds() -> Vec<&'static str> {
    MODELS.iter().map(|(k, _)| *k).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_generator_kind_the_spec_allows_has_a_model_and_no_other() {
        let spec = |kind: &str| {
            let mut v = serde_json::json!({"sim": {"duration": 1},
                "nodes": [{"name": "a"}, {"name": "b"}],
                "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms"}],
                "generators": [{"kind": kind, "src": "a", "dst": "b",
                                "size": {"dist": "constant", "value": 10}}]});
            let one = serde_json::json!({"dist": "constant", "value": 1});
            match kind {
                "poisson" => v["generators"][0]["rate"] = 1.into(),
                "sessions" => {
                    for field in ["session_gap", "pages", "reading"] {
                        v["generators"][0][field] = one.clone();
                    }
                }
                "packmime" => {
                    let g = v["generators"][0].as_object_mut().unwrap();
                    for field in ["src", "dst", "size"] {
                        g.remove(field);
                    }
                    g.insert("rate".into(), 1.into());
                    g.insert("clients".into(), serde_json::json!(["a"]));
                    g.insert("servers".into(), serde_json::json!(["b"]));
                }
                _ => {}
            }
            v.to_string()
        };
        let e = crate::scenario::parse(&spec("no-such-kind")).unwrap_err().0;
        let allowed: Vec<&str> = e.rsplit("allowed: ").next().unwrap().split(", ").collect();
        assert_eq!(allowed, kinds(), "{e}");
        for kind in kinds() {
            let s = crate::scenario::parse(&spec(kind)).unwrap();
            assert!(model(&s.generators[0]).is_some(), "{kind}");
        }
    }
}
