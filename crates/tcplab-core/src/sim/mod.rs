//! Event kernel: integer-nanosecond time, the event queue, random streams, the event type
//! (one variant per component) and the loop.
mod dist;
mod event;
mod kernel;
mod queue;
mod rng;

pub use dist::Dist;
pub use event::{Ev, Queue};
pub use kernel::{Dispatch, Kernel, Reporter};
pub use queue::EventQueue;
pub use rng::Rng;

/// Simulation time in nanoseconds.
pub type Time = u64;

/// A time no event ever reaches: the run's end is always earlier. Times are added with
/// `saturating_add`, so an event whose time is not representable is scheduled here and
/// simply never fires (instead of wrapping round to an early time).
pub const NEVER: Time = Time::MAX;

pub const NS_PER_SEC: f64 = 1e9;

/// Seconds (f64) to nanoseconds, rounded to the nearest nanosecond. Negative values give
/// 0; NaN, infinity and anything beyond `NEVER` give `NEVER`.
pub fn secs(s: f64) -> Time {
    if s.is_nan() {
        return NEVER;
    }
    // `as` saturates: values beyond u64::MAX (= NEVER) become NEVER, negative ones 0.
    (s * NS_PER_SEC).round() as Time
}

/// Nanoseconds to seconds.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / NS_PER_SEC
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secs_saturates_instead_of_wrapping() {
        assert_eq!(secs(1.5), 1_500_000_000);
        assert_eq!(secs(-1.0), 0);
        assert_eq!(secs(2e10), NEVER, "2e10 s is beyond u64 nanoseconds");
        assert_eq!(secs(f64::INFINITY), NEVER);
        assert_eq!(secs(f64::NAN), NEVER);
        assert_eq!(secs(1e9).saturating_add(secs(2e10)), NEVER);
    }
}
