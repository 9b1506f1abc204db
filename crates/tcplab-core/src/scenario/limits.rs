//! The range of every value a spec may hold, and the field readers that enforce it.
//!
//! Simulated time is a u64 count of nanoseconds (about 584 years). Every time field is at
//! most [`MAX_TIME`] so that the sum of two times (an event time plus a delay, a flow's
//! start plus a rate step) still fits; a positive time below one nanosecond cannot be
//! represented (it would silently become 0). Every non-zero rate is at least [`MIN_RATE`]
//! so that the transmission time of the largest packet stays far below `MAX_TIME`.
use super::units::{parse_rate, parse_time};
use super::SpecError;
use serde_json::Value;

/// Largest time a field may hold, in seconds (about 31.7 years).
pub const MAX_TIME: f64 = 1e9;
/// The clock's resolution: a positive time below it is refused.
pub const MIN_POSITIVE_TIME: f64 = 1e-9;
/// Smallest non-zero rate, bit/s.
pub const MIN_RATE: f64 = 1.0;
/// Largest rate, bit/s (10 Tb/s).
pub const MAX_RATE: f64 = 1e13;
/// Expanded flows (`count` summed over `[[flows]]`).
pub const MAX_FLOWS: u64 = 10_000_000;
/// Expanded generators (`count` summed over `[[generators]]`).
pub const MAX_GENERATORS: u64 = 1_000_000;
/// Flows all generators together are expected to create (flow ids are 32-bit).
pub const MAX_GENERATED_FLOWS: f64 = 1e9;
/// Poisson generators: flows per second.
pub const MIN_FLOW_RATE: f64 = 1.0 / MAX_TIME;
pub const MAX_FLOW_RATE: f64 = 1e9;
/// Dumbbell pairs.
pub const MAX_PAIRS: u64 = 1_000_000;
/// Segments sent at once when a connection starts.
pub const MAX_INIT_CWND: f64 = 1e6;
/// Receiver window and initial ssthresh, segments (the defaults, 1e9, mean "unlimited").
pub const MAX_WINDOW: f64 = 1e9;
/// Packets in one DropTail queue.
pub const MAX_QUEUE: u64 = 1_000_000_000;
/// Bytes of a segment, header, ACK or datagram (a 16-bit IP length).
pub const MAX_PACKET: u64 = 65_535;
/// Segments of one flow (so that its bytes, and bits, fit in 64 bits).
pub const MAX_FLOW_SIZE: u64 = 1_000_000_000_000;
/// delack_count and dupthresh.
pub const MAX_ACK_COUNT: u64 = 1000;
/// Bytes of a name (node, link end, flow, generator, LAN).
pub const MAX_NAME_BYTES: usize = 255;
/// Rows of the sampled time series (flows and links together).
pub const MAX_SAMPLE_ROWS: f64 = 1e10;

pub(crate) fn err<T>(path: &str, msg: impl AsRef<str>) -> Result<T, SpecError> {
    Err(SpecError(format!("{path}: {}", msg.as_ref())))
}

pub fn num(path: &str, v: &Value) -> Result<f64, SpecError> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => err(path, format!("expected a number, got {v}")),
    }
}

/// A number in `[min, max]`; `what` names the unit in the message.
pub fn num_in(path: &str, v: &Value, min: f64, max: f64, unit: &str) -> Result<f64, SpecError> {
    let x = num(path, v)?;
    if !(min..=max).contains(&x) {
        return err(path, format!("{x} is not allowed; must be in [{min}, {max:e}] {unit}"));
    }
    Ok(x)
}

/// Floats above 2^53 are not exactly the integer that was written.
const MAX_EXACT_FLOAT_INT: f64 = 9_007_199_254_740_992.0;

/// An integer in `min..=max`, given as an integer or an exactly integral number.
pub fn int_in(path: &str, v: &Value, min: u64, max: u64) -> Result<u64, SpecError> {
    let out_of_range = || {
        err(
            path,
            format!("{v} is not allowed; must be an integer from {min} to {max}"),
        )
    };
    let x = match v {
        Value::Number(n) if n.is_u64() => n.as_u64().unwrap_or(0),
        Value::Number(n) if n.is_i64() => return out_of_range(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && (0.0..=MAX_EXACT_FLOAT_INT).contains(&f) => f as u64,
            Some(f) if f.is_finite() && f.fract() == 0.0 => return out_of_range(),
            _ => return err(path, format!("expected an integer from {min} to {max}, got {v}")),
        },
        _ => return err(path, format!("expected an integer from {min} to {max}, got {v}")),
    };
    if x < min || x > max {
        return out_of_range();
    }
    Ok(x)
}

fn rate(path: &str, v: &Value) -> Result<f64, SpecError> {
    let r = parse_rate(v).map_err(|m| SpecError(format!("{path}: {m}")))?;
    if !r.is_finite() {
        return err(
            path,
            format!("rate {v} is not allowed; must be a finite number of bit/s"),
        );
    }
    Ok(r)
}

/// A link, LAN or UDP rate: in [MIN_RATE, MAX_RATE] bit/s.
pub fn rate_pos(path: &str, v: &Value) -> Result<f64, SpecError> {
    let r = rate(path, v)?;
    if !(MIN_RATE..=MAX_RATE).contains(&r) {
        return err(
            path,
            format!("rate {v} is not allowed; must be from {MIN_RATE} bit/s to {MAX_RATE:e} bit/s"),
        );
    }
    Ok(r)
}

/// A UDP rate step: 0 (a pause) or in [MIN_RATE, MAX_RATE] bit/s.
pub fn rate_nonneg(path: &str, v: &Value) -> Result<f64, SpecError> {
    let r = rate(path, v)?;
    if r != 0.0 && !(MIN_RATE..=MAX_RATE).contains(&r) {
        return err(
            path,
            format!("rate {v} is not allowed; must be 0 (a pause) or from {MIN_RATE} bit/s to {MAX_RATE:e} bit/s"),
        );
    }
    Ok(r)
}

/// A time: 0, or from 1 ns to MAX_TIME seconds.
pub fn time_nonneg(path: &str, v: &Value) -> Result<f64, SpecError> {
    let t = parse_time(v).map_err(|m| SpecError(format!("{path}: {m}")))?;
    if !(t.is_finite() && t >= 0.0) {
        return err(path, format!("time {v} is not allowed; must be >= 0 s"));
    }
    if t > MAX_TIME {
        return err(
            path,
            format!("time {v} is not allowed; must be at most {MAX_TIME:e} s (the simulated clock's range)"),
        );
    }
    if t > 0.0 && t < MIN_POSITIVE_TIME {
        return err(
            path,
            format!("time {v} is not allowed; must be 0 or at least 1 ns (the simulated clock's resolution)"),
        );
    }
    Ok(t)
}

/// A time from 1 ns to MAX_TIME seconds.
pub fn time_pos(path: &str, v: &Value) -> Result<f64, SpecError> {
    let t = time_nonneg(path, v)?;
    if t <= 0.0 {
        return err(path, format!("time {v} is not allowed; must be > 0 s"));
    }
    Ok(t)
}

/// A name: 1 to MAX_NAME_BYTES bytes, no control characters.
pub fn name(path: &str, s: &str) -> Result<(), SpecError> {
    const ALLOWED: &str = "names are 1 to 255 bytes of printable characters (no control characters)";
    if s.is_empty() {
        return err(path, format!("must not be empty; {ALLOWED}"));
    }
    if s.len() > MAX_NAME_BYTES {
        let head: String = s.chars().take(20).collect();
        return err(path, format!("{head:?}... is {} bytes long; {ALLOWED}", s.len()));
    }
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return err(path, format!("{s:?} contains the control character {c:?}; {ALLOWED}"));
    }
    Ok(())
}

/// A loss probability in [0, 1).
pub(crate) fn prob(path: &str, v: &Value) -> Result<f64, SpecError> {
    let p = num(path, v)?;
    if !(0.0..1.0).contains(&p) {
        return err(path, format!("probability {p} is not allowed; must be in [0, 1)"));
    }
    Ok(p)
}

/// A DropTail queue's capacity, packets.
pub(crate) fn queue(path: &str, v: &Value) -> Result<u32, SpecError> {
    Ok(int_in(path, v, 1, MAX_QUEUE)? as u32)
}

pub(crate) fn boolean(path: &str, v: &Value) -> Result<bool, SpecError> {
    v.as_bool()
        .ok_or_else(|| SpecError(format!("{path}: expected true or false, got {v}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_must_be_exact_and_in_range() {
        assert_eq!(int_in("x", &json!(3), 1, 10), Ok(3));
        assert_eq!(int_in("x", &json!(3.0), 1, 10), Ok(3));
        for bad in [
            json!(2.5),
            json!(1e19),
            json!(-1),
            json!(-1.0),
            json!(11),
            json!("3"),
            json!(0),
        ] {
            let e = int_in("x", &bad, 1, 10).unwrap_err().0;
            assert!(e.starts_with("x: ") && e.contains("from 1 to 10"), "{bad}: {e}");
        }
        assert!(
            int_in("x", &json!(1e19), 0, u64::MAX).is_err(),
            "a float above 2^53 is not exact"
        );
    }

    #[test]
    fn times_must_be_representable() {
        assert_eq!(time_nonneg("t", &json!(0)), Ok(0.0));
        assert_eq!(time_nonneg("t", &json!("1ns")), Ok(1e-9));
        assert_eq!(time_nonneg("t", &json!(1e9)), Ok(1e9));
        for bad in [json!(2e10), json!(1e-300), json!("0.5ns"), json!(-1)] {
            assert!(time_nonneg("t", &bad).unwrap_err().0.starts_with("t: time"), "{bad}");
        }
        assert!(time_pos("t", &json!(0)).is_err());
    }

    #[test]
    fn rates_must_be_representable() {
        assert!(rate_pos("r", &json!(1e-300)).unwrap_err().0.contains("from 1 bit/s"));
        assert!(rate_pos("r", &json!(1e14)).is_err());
        assert_eq!(rate_pos("r", &json!("10Tbps")), Ok(1e13));
        assert_eq!(rate_nonneg("r", &json!(0)), Ok(0.0));
        assert!(rate_nonneg("r", &json!(1e-300)).unwrap_err().0.contains("0 (a pause)"));
    }

    #[test]
    fn names_are_bounded_and_printable() {
        assert!(name("n", "s0").is_ok());
        assert!(name("n", "ünïcødé ok/..").is_ok());
        assert!(name("n", "").is_err());
        assert!(name("n", "a\u{0}b").unwrap_err().0.contains("control character"));
        assert!(name("n", "a\nb").is_err());
        assert!(name("n", &"x".repeat(256)).unwrap_err().0.contains("256 bytes"));
        assert!(name("n", &"x".repeat(255)).is_ok());
    }
}
