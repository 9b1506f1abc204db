//! Event kernel: integer-nanosecond time, the event queue, random streams, the event type
//! (one variant per component) and the loop.
mod dist;
mod event;
mod fifo;
mod kernel;
mod queue;
mod rng;

pub use dist::{normal, Dist};
pub use event::{Ev, Queue};
pub use fifo::Fifo;
pub use kernel::{Dispatch, Kernel, Reporter};
pub use queue::{EventQueue, Key};
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
    round_u64(s * NS_PER_SEC)
}

/// `x.round() as u64`: the same value for every input (negatives and NaN give 0, values
/// beyond `u64::MAX` give `u64::MAX`), without the libm call `f64::round` compiles to on the
/// baseline x86-64 target (no SSE4.1). It sits on the path of every packet.
#[inline]
pub fn round_u64(x: f64) -> u64 {
    let whole = x as u64;
    // Exact: below 2^53 the fraction is representable, above it every f64 is whole.
    if x - whole as f64 >= 0.5 {
        whole.saturating_add(1)
    } else {
        whole
    }
}

/// `x.floor()`, without the libm call for the non-negative values windows take; the same
/// value for every input.
#[inline]
pub fn floor(x: f64) -> f64 {
    // Zero goes to libm too, which keeps the sign of -0.0.
    if x > 0.0 && x < 9.0e15 {
        (x as u64) as f64
    } else {
        x.floor()
    }
}

/// Nanoseconds to transmit `bytes` at `rate` bit/s, to the nearest nanosecond.
#[inline]
pub fn tx_time(bytes: u32, rate: f64) -> Time {
    round_u64((bytes as f64 * 8.0) * 1e9 / rate)
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

    #[test]
    fn round_and_floor_agree_with_libm_everywhere() {
        let mut r = Rng::from_seed(11);
        let specials = [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -0.49,
            0.49999999999999994,
            4503599627370495.5,
            9007199254740993.0,
            1.8446744073709552e19,
            1e300,
            -1e300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            8.999999999999999e15,
            9.0e15,
        ];
        let random = (0..200_000).map(|i| {
            let bits = f64::from_bits(r.next_u64());
            // Every bit pattern, and values of packet-time and window magnitudes.
            if i % 2 == 0 {
                bits
            } else {
                r.uniform() * 10f64.powi((i % 40) as i32 - 10)
            }
        });
        for x in specials.into_iter().chain(random) {
            assert_eq!(round_u64(x), x.round() as u64, "round {x:e}");
            let (a, b) = (floor(x), x.floor());
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "floor {x:e}: {a} {b}"
            );
        }
    }
}
