//! Event kernel: integer-nanosecond time, the event queue, and random streams.
mod dist;
mod queue;
mod rng;

pub use dist::Dist;
pub use queue::EventQueue;
pub use rng::Rng;

/// Simulation time in nanoseconds.
pub type Time = u64;

pub const NS_PER_SEC: f64 = 1e9;

/// Seconds (f64) to nanoseconds, rounded to the nearest nanosecond.
pub fn secs(s: f64) -> Time {
    (s * NS_PER_SEC).round() as Time
}

/// Nanoseconds to seconds.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / NS_PER_SEC
}
