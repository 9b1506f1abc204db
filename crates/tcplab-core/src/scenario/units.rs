//! Parsing of rates, times and sizes given as numbers (SI base units) or strings with a unit.
//!
//! Units are case-aware: in a rate, lower-case `b` is bits and upper-case `B` is bytes
//! ("10Mbps" = 10^7 bit/s, "10MB/s" = 8·10^7 bit/s). A spelling that could be read two ways
//! ("10mbps": milli or mega? "10MBPS") is rejected with the list of allowed units, never
//! guessed.
use serde_json::Value;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' || *c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e" followed by a unit letter would be ambiguous; accept only a parseable prefix.
    let (num, unit) = s.split_at(end);
    num.parse::<f64>().ok().map(|n| (n, unit.trim()))
}

/// Decimal prefixes: k (K is accepted too, as in "Kbps"), M, G, T. Lower-case m would be
/// milli, so it is not accepted.
fn decimal_prefix(p: &str) -> Option<f64> {
    match p {
        "" => Some(1.0),
        "k" | "K" => Some(1e3),
        "M" => Some(1e6),
        "G" => Some(1e9),
        "T" => Some(1e12),
        _ => None,
    }
}

pub const RATE_UNITS: &str = "bps, kbps, Mbps, Gbps, Tbps or b/s, kb/s, Mb/s, Gb/s, Tb/s (bits); \
                              Bps, kBps, MBps, GBps, TBps or B/s, kB/s, MB/s, GB/s, TB/s (bytes)";

/// The multiplier to bit/s of a rate unit such as "Mbps", "Mb/s", "Mbit/s", "MB/s".
fn rate_unit(unit: &str) -> Option<f64> {
    if unit.is_empty() {
        return Some(1.0);
    }
    for (suffix, bits) in [
        ("bit/s", 1.0),
        ("bitps", 1.0),
        ("bps", 1.0),
        ("b/s", 1.0),
        ("Bps", 8.0),
        ("B/s", 8.0),
    ] {
        if let Some(prefix) = unit.strip_suffix(suffix) {
            return decimal_prefix(prefix).map(|m| m * bits);
        }
    }
    None
}

/// A rate in bit/s from a number or a string such as "10Mbps", "1.5Mb/s", "64kbps", "1MB/s".
pub fn parse_rate(v: &Value) -> Result<f64, String> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| "not a number".to_string()),
        Value::String(s) => {
            let (n, unit) = split_number(s).ok_or_else(|| {
                format!("cannot read rate {s:?}: expected a number of bit/s or a string like \"10Mbps\"")
            })?;
            let mult =
                rate_unit(unit).ok_or_else(|| format!("unknown rate unit {unit:?} in {s:?}; allowed: {RATE_UNITS}"))?;
            Ok(n * mult)
        }
        _ => Err(format!(
            "expected a rate (number of bit/s or string like \"10Mbps\"), got {v}"
        )),
    }
}

/// A time in seconds from a number or a string such as "35ms", "2s", "100us".
pub fn parse_time(v: &Value) -> Result<f64, String> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| "not a number".to_string()),
        Value::String(s) => {
            let (n, unit) = split_number(s)
                .ok_or_else(|| format!("cannot read time {s:?}: expected seconds or a string like \"35ms\""))?;
            let mult = match unit {
                "" | "s" | "sec" => 1.0,
                "ms" => 1e-3,
                "us" | "µs" => 1e-6,
                "ns" => 1e-9,
                "min" => 60.0,
                _ => {
                    return Err(format!(
                        "unknown time unit {unit:?} in {s:?}; allowed: s, ms, us, ns, min"
                    ))
                }
            };
            Ok(n * mult)
        }
        _ => Err(format!("expected a time (seconds or a string like \"35ms\"), got {v}")),
    }
}

pub const SIZE_UNITS: &str = "B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)";

/// A size in bytes from a number or a string such as "16GB", "512MiB", "100kB".
pub fn parse_size(v: &Value) -> Result<f64, String> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| "not a number".to_string()),
        Value::String(s) => {
            let (n, unit) = split_number(s)
                .ok_or_else(|| format!("cannot read size {s:?}: expected bytes or a string like \"16GB\""))?;
            let mult = match unit {
                "" | "B" => 1.0,
                "kB" => 1e3,
                "MB" => 1e6,
                "GB" => 1e9,
                "TB" => 1e12,
                "KiB" => 1024.0,
                "MiB" => 1024.0 * 1024.0,
                "GiB" => 1024.0 * 1024.0 * 1024.0,
                "TiB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
                _ => return Err(format!("unknown size unit {unit:?} in {s:?}; allowed: {SIZE_UNITS}")),
            };
            Ok(n * mult)
        }
        _ => Err(format!("expected a size (bytes or a string like \"16GB\"), got {v}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rates() {
        assert_eq!(parse_rate(&json!("10Mbps")).unwrap(), 10e6);
        assert_eq!(parse_rate(&json!("1.5Mb/s")).unwrap(), 1.5e6);
        assert_eq!(parse_rate(&json!("64kbps")).unwrap(), 64e3);
        assert_eq!(parse_rate(&json!("45 Mb/s")).unwrap(), 45e6);
        assert_eq!(parse_rate(&json!("500bps")).unwrap(), 500.0);
        assert_eq!(parse_rate(&json!("1Gbps")).unwrap(), 1e9);
        assert_eq!(parse_rate(&json!("2Mbit/s")).unwrap(), 2e6);
        assert_eq!(parse_rate(&json!(2e6)).unwrap(), 2e6);
        assert!(parse_rate(&json!("10furlongs"))
            .unwrap_err()
            .contains("unknown rate unit"));
    }

    #[test]
    fn upper_case_b_is_bytes_and_ambiguous_units_are_rejected() {
        assert_eq!(parse_rate(&json!("10MB/s")).unwrap(), 80e6);
        assert_eq!(parse_rate(&json!("10MBps")).unwrap(), 80e6);
        assert_eq!(parse_rate(&json!("1kB/s")).unwrap(), 8e3);
        assert_eq!(parse_rate(&json!("3B/s")).unwrap(), 24.0);
        for bad in ["10MBPS", "10mbps", "10mb/s", "10Mbs", "10MBit/s", "10gbps"] {
            let e = parse_rate(&json!(bad)).unwrap_err();
            assert!(
                e.contains("unknown rate unit") && e.contains("MB/s, GB/s, TB/s (bytes)"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn times() {
        assert_eq!(parse_time(&json!("35ms")).unwrap(), 0.035);
        assert_eq!(parse_time(&json!("2s")).unwrap(), 2.0);
        assert_eq!(parse_time(&json!(0.5)).unwrap(), 0.5);
        assert!((parse_time(&json!("100us")).unwrap() - 1e-4).abs() < 1e-15);
        assert!(parse_time(&json!(true)).is_err());
    }

    #[test]
    fn sizes_are_bytes() {
        assert_eq!(parse_size(&json!("16GB")).unwrap(), 16e9);
        assert_eq!(parse_size(&json!("16GiB")).unwrap(), 16.0 * (1u64 << 30) as f64);
        assert_eq!(parse_size(&json!(1000)).unwrap(), 1000.0);
        assert!(parse_size(&json!("16Gb")).unwrap_err().contains("allowed: B, kB"));
        assert!(parse_size(&json!("16gb")).is_err());
    }
}
