//! The UDP side of a flow: `transport = "udp"` (packet size and a constant bit rate that
//! follows a step schedule, given as steps or as on/off periods) and `transport = "voip"`
//! (a call: fixed-size packets at a fixed interval, by default in both directions).
use super::limits::{boolean, err, int_in, rate_nonneg, rate_pos, time_nonneg, time_pos, MAX_PACKET, MIN_RATE};
use super::SpecError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRateStep {
    at: Value,
    rate: Value,
}

/// `on_off = { on = "200s", off = "200s", start_on = true }`: the flow sends at its `rate`
/// for `on`, pauses for `off`, and so on until it stops (or the simulation ends).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOnOff {
    on: Value,
    off: Value,
    #[serde(default)]
    start_on: Option<Value>,
}

/// At most this many rate steps generated from `on_off` (two per period).
pub const MAX_ON_OFF_STEPS: usize = 1_000_000;

/// A constant-bit-rate UDP source whose rate follows a step schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct UdpSpec {
    pub packet: u32,
    pub schedule: Vec<RateStep>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RateStep {
    pub at: f64,
    pub rate: f64,
}

/// The UDP source of the flow at `p`, from its `packet`, and its `rate` (constant, or
/// switched by `on_off`) or `rate_schedule`; `horizon`: how long the flow can run (from its
/// start to its stop or the end of the simulation), up to which `on_off` is expanded.
pub(super) fn udp_source(
    p: &str,
    packet: Option<&Value>,
    rate: Option<&Value>,
    rate_schedule: Option<&[RawRateStep]>,
    on_off: Option<&RawOnOff>,
    horizon: f64,
) -> Result<UdpSpec, SpecError> {
    let packet = match packet {
        Some(v) => int_in(&format!("{p}.packet"), v, 1, MAX_PACKET)? as u32,
        None => 1000,
    };
    let mut schedule = Vec::new();
    match (rate, rate_schedule) {
        (Some(_), Some(_)) => {
            return err(
                &format!("{p}.rate_schedule"),
                "give either rate or rate_schedule, not both",
            )
        }
        (None, None) => return err(&format!("{p}.rate"), "a udp flow needs a rate (or a rate_schedule)"),
        (None, Some(_)) if on_off.is_some() => {
            return err(
                &format!("{p}.on_off"),
                "on_off switches a constant rate: give rate, not rate_schedule",
            )
        }
        (Some(r), None) => match on_off {
            None => schedule.push(RateStep {
                at: 0.0,
                rate: rate_nonneg(&format!("{p}.rate"), r)?,
            }),
            Some(o) => schedule = on_off_steps(p, rate_pos(&format!("{p}.rate"), r)?, o, horizon)?,
        },
        (None, Some(steps)) => {
            if steps.is_empty() {
                return err(&format!("{p}.rate_schedule"), "must not be empty");
            }
            for (k, st) in steps.iter().enumerate() {
                let at = time_nonneg(&format!("{p}.rate_schedule[{k}].at"), &st.at)?;
                let rate = rate_nonneg(&format!("{p}.rate_schedule[{k}].rate"), &st.rate)?;
                if let Some(prev) = schedule.last() {
                    let prev: &RateStep = prev;
                    if at <= prev.at {
                        return err(
                            &format!("{p}.rate_schedule[{k}].at"),
                            format!("{at} s is not after the previous step ({} s)", prev.at),
                        );
                    }
                }
                schedule.push(RateStep { at, rate });
            }
        }
    }
    Ok(UdpSpec { packet, schedule })
}

/// The rate steps of `on_off` at `rate`, from the flow's start (time 0) until `horizon`
/// seconds later: `rate` during each on period, 0 during each off period.
fn on_off_steps(p: &str, rate: f64, o: &RawOnOff, horizon: f64) -> Result<Vec<RateStep>, SpecError> {
    let on = time_pos(&format!("{p}.on_off.on"), &o.on)?;
    let off = time_pos(&format!("{p}.on_off.off"), &o.off)?;
    let first_on = match &o.start_on {
        Some(v) => boolean(&format!("{p}.on_off.start_on"), v)?,
        None => true,
    };
    let periods = horizon / (on + off);
    if 2.0 * periods > MAX_ON_OFF_STEPS as f64 {
        return err(
            &format!("{p}.on_off"),
            format!(
                "on = {on} s and off = {off} s make about {:.0} rate steps over the flow's {horizon} s; \
                 at most {MAX_ON_OFF_STEPS} allowed (use longer periods)",
                2.0 * periods
            ),
        );
    }
    let mut steps = Vec::new();
    let (mut at, mut k) = (0.0, 0u64);
    while at < horizon {
        let sending = first_on == (k % 2 == 0);
        steps.push(RateStep {
            at,
            rate: if sending { rate } else { 0.0 },
        });
        k += 1;
        // Step k starts after k periods, ceil(k/2) of the first kind: counted, not summed,
        // so that long runs do not drift.
        let (ons, offs) = if first_on {
            (k.div_ceil(2), k / 2)
        } else {
            (k / 2, k.div_ceil(2))
        };
        at = ons as f64 * on + offs as f64 * off;
    }
    Ok(steps)
}

/// A VoIP call's packet size (bytes on the wire) and interval (seconds), and whether it is
/// one direction only.
#[derive(Debug, Clone, PartialEq)]
pub struct VoipSpec {
    pub packet: u32,
    pub interval: f64,
    /// "both" (the call: two flows, src to dst and back), "forward" or "reverse" (one
    /// direction, from src to dst; how the normalised spec writes each half of a call).
    pub direction: String,
}

/// The VoIP source of the flow at `p`: `packet` (default 200 bytes) every `interval`
/// (default 20 ms), `direction` (default "both").
pub(super) fn voip_source(
    p: &str,
    packet: Option<&Value>,
    interval: Option<&Value>,
    direction: Option<&str>,
) -> Result<VoipSpec, SpecError> {
    let packet = match packet {
        Some(v) => int_in(&format!("{p}.packet"), v, 1, MAX_PACKET)? as u32,
        None => 200,
    };
    let interval = match interval {
        Some(v) => time_pos(&format!("{p}.interval"), v)?,
        None => 0.020,
    };
    if voip_rate(packet, interval) < MIN_RATE {
        return err(
            &format!("{p}.interval"),
            format!("{interval} s makes {packet}-byte packets slower than {MIN_RATE} bit/s; use a shorter interval"),
        );
    }
    let direction = direction.unwrap_or("both");
    if !["both", "forward", "reverse"].contains(&direction) {
        return err(
            &format!("{p}.direction"),
            format!("{direction:?} is not allowed; allowed: both, forward, reverse"),
        );
    }
    Ok(VoipSpec {
        packet,
        interval,
        direction: direction.into(),
    })
}

/// The bit rate of `packet` bytes every `interval` seconds.
pub fn voip_rate(packet: u32, interval: f64) -> f64 {
    packet as f64 * 8.0 / interval
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn on_off(on: f64, off: f64, start_on: Option<bool>) -> RawOnOff {
        RawOnOff {
            on: json!(on),
            off: json!(off),
            start_on: start_on.map(Value::from),
        }
    }

    fn steps(s: &[RateStep]) -> Vec<(f64, f64)> {
        s.iter().map(|s| (s.at, s.rate)).collect()
    }

    #[test]
    fn on_off_alternates_rate_and_pause_until_the_horizon() {
        let r = json!(240e6);
        let u = udp_source("f", None, Some(&r), None, Some(&on_off(200.0, 200.0, None)), 900.0).unwrap();
        assert_eq!(
            steps(&u.schedule),
            [(0.0, 240e6), (200.0, 0.0), (400.0, 240e6), (600.0, 0.0), (800.0, 240e6)]
        );
        let u = udp_source("f", None, Some(&r), None, Some(&on_off(1.0, 3.0, Some(false))), 8.0).unwrap();
        assert_eq!(steps(&u.schedule), [(0.0, 0.0), (3.0, 240e6), (4.0, 0.0), (7.0, 240e6)]);
    }

    #[test]
    fn on_off_errors_name_the_field() {
        let r = json!(1e6);
        let e = |o: &RawOnOff, h: f64| udp_source("flows[1]", None, Some(&r), None, Some(o), h).unwrap_err().0;
        assert!(e(&on_off(0.0, 1.0, None), 10.0).starts_with("flows[1].on_off.on: "));
        assert!(e(&on_off(1.0, -1.0, None), 10.0).starts_with("flows[1].on_off.off: "));
        let bad = RawOnOff {
            on: json!(1),
            off: json!(1),
            start_on: Some(json!("yes")),
        };
        assert!(e(&bad, 10.0).starts_with("flows[1].on_off.start_on: "));
        assert!(e(&on_off(1e-3, 1e-3, None), 1e4).contains("at most 1000000"));
        let steps = [RawRateStep {
            at: json!(0),
            rate: json!(1),
        }];
        let e = udp_source(
            "flows[1]",
            None,
            None,
            Some(&steps),
            Some(&on_off(1.0, 1.0, None)),
            10.0,
        );
        assert!(e.unwrap_err().0.starts_with("flows[1].on_off: "));
    }

    #[test]
    fn voip_defaults_are_g711_packets_every_20_ms_both_ways() {
        let v = voip_source("f", None, None, None).unwrap();
        assert_eq!((v.packet, v.interval, v.direction.as_str()), (200, 0.020, "both"));
        assert_eq!(voip_rate(v.packet, v.interval), 80_000.0);
        // The source's gap between packets is the interval to the nanosecond.
        assert_eq!(crate::sim::tx_time(200, voip_rate(200, 0.020)), 20_000_000);
        assert_eq!(crate::sim::tx_time(160, voip_rate(160, 0.030)), 30_000_000);
        let e = voip_source("flows[0]", None, None, Some("sideways")).unwrap_err().0;
        assert_eq!(
            e,
            "flows[0].direction: \"sideways\" is not allowed; allowed: both, forward, reverse"
        );
        let e = voip_source("flows[0]", Some(&json!(0)), None, None).unwrap_err().0;
        assert!(e.starts_with("flows[0].packet: "), "{e}");
        let e = voip_source("flows[0]", None, Some(&json!("0s")), None).unwrap_err().0;
        assert!(e.starts_with("flows[0].interval: "), "{e}");
    }
}
