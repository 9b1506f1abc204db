//! The UDP side of a flow (`transport = "udp"`): packet size and a constant bit rate that
//! follows a step schedule.
use super::limits::{err, int_in, rate_nonneg, time_nonneg, MAX_PACKET};
use super::SpecError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRateStep {
    at: Value,
    rate: Value,
}

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

/// The UDP source of the flow at `p`, from its `packet`, and its `rate` or `rate_schedule`.
pub(super) fn udp_source(
    p: &str,
    packet: Option<&Value>,
    rate: Option<&Value>,
    rate_schedule: Option<&[RawRateStep]>,
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
        (Some(r), None) => schedule.push(RateStep {
            at: 0.0,
            rate: rate_nonneg(&format!("{p}.rate"), r)?,
        }),
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
