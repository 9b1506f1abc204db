//! Parsing of rates and times given as numbers (SI base units) or strings with a unit.
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

/// A rate in bit/s from a number or a string such as "10Mbps", "1.5Mb/s", "64kbps".
pub fn parse_rate(v: &Value) -> Result<f64, String> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| "not a number".to_string()),
        Value::String(s) => {
            let (n, unit) = split_number(s).ok_or_else(|| {
                format!("cannot read rate {s:?}: expected a number of bit/s or a string like \"10Mbps\"")
            })?;
            let mult = match unit.to_ascii_lowercase().replace("/s", "ps").as_str() {
                "" | "bps" | "bitps" => 1.0,
                "kbps" | "kbitps" => 1e3,
                "mbps" | "mbitps" => 1e6,
                "gbps" | "gbitps" => 1e9,
                _ => {
                    return Err(format!(
                        "unknown rate unit {unit:?} in {s:?}; allowed: bps, kbps, Mbps, Gbps (or Mb/s)"
                    ))
                }
            };
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rates() {
        assert_eq!(parse_rate(&json!("10Mbps")).unwrap(), 10e6);
        assert_eq!(parse_rate(&json!("1.5Mb/s")).unwrap(), 1.5e6);
        assert_eq!(parse_rate(&json!("64kbps")).unwrap(), 64e3);
        assert_eq!(parse_rate(&json!(2e6)).unwrap(), 2e6);
        assert!(parse_rate(&json!("10furlongs"))
            .unwrap_err()
            .contains("unknown rate unit"));
    }

    #[test]
    fn times() {
        assert_eq!(parse_time(&json!("35ms")).unwrap(), 0.035);
        assert_eq!(parse_time(&json!("2s")).unwrap(), 2.0);
        assert_eq!(parse_time(&json!(0.5)).unwrap(), 0.5);
        assert!((parse_time(&json!("100us")).unwrap() - 1e-4).abs() < 1e-15);
        assert!(parse_time(&json!(true)).is_err());
    }
}
