//! A flow's handoffs (thesis ch. 2): the notifications its mobile host's link layer gives
//! its TCP receiver, and the error of the host's bandwidth estimate. The records are what
//! a mobility generator emits beside its link changes: one per handoff, with the time the
//! handoff completes, the new link's bandwidth and, for Freeze-TCP's prediction, the time
//! the old link went down.
use super::limits::{err, num, rate_pos, time_nonneg};
use super::SpecError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One handoff of a flow's mobile host.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct HandoffEvent {
    /// When the handoff completes (the host is told; seconds).
    pub at: f64,
    /// The new link's bandwidth (bit/s).
    pub bandwidth: f64,
    /// When the old link went down (seconds, before `at`): what Freeze-TCP predicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disconnect: Option<f64>,
}

/// A flow's handoffs and the models around them.
#[derive(Debug, Clone, PartialEq)]
pub struct HandoffSpec {
    pub events: Vec<HandoffEvent>,
    /// The host's estimate is bandwidth × (1 + e), e uniform in ±this (0 = exact).
    pub bandwidth_error: f64,
    /// Freeze-TCP: seconds added to the ideal zero-window time (one RTT before the
    /// disconnection); positive = a late prediction, negative = an early one.
    pub freeze_offset: f64,
}

/// Largest |freeze_offset| (seconds).
pub const MAX_FREEZE_OFFSET: f64 = 3600.0;

/// The flow at `p`'s `handoffs`, `bandwidth_error` and `freeze_offset`; `cc` is its
/// algorithm (Freeze-TCP needs every disconnection time).
pub(super) fn handoff_spec(
    p: &str,
    handoffs: Option<&Value>,
    bandwidth_error: Option<&Value>,
    freeze_offset: Option<&Value>,
    cc: &str,
    transport: &str,
) -> Result<Option<HandoffSpec>, SpecError> {
    let Some(list) = handoffs else {
        for (k, v) in [("bandwidth_error", bandwidth_error), ("freeze_offset", freeze_offset)] {
            if v.is_some() {
                return err(&format!("{p}.{k}"), "is only allowed with handoffs");
            }
        }
        return Ok(None);
    };
    if transport != "tcp" {
        return err(
            &format!("{p}.handoffs"),
            format!("are for TCP flows only, not transport = {transport:?}"),
        );
    }
    let Value::Array(list) = list else {
        return err(
            &format!("{p}.handoffs"),
            format!("expected a list of {{ at, bandwidth, disconnect }} tables, got {list}"),
        );
    };
    let mut events: Vec<HandoffEvent> = Vec::with_capacity(list.len());
    for (k, h) in list.iter().enumerate() {
        let q = format!("{p}.handoffs[{k}]");
        let Value::Object(m) = h else {
            return err(&q, format!("expected a table {{ at, bandwidth, disconnect }}, got {h}"));
        };
        if let Some(key) = m
            .keys()
            .find(|key| !["at", "bandwidth", "disconnect"].contains(&key.as_str()))
        {
            return err(
                &format!("{q}.{key}"),
                "unknown field; allowed: at, bandwidth, disconnect",
            );
        }
        let at = match m.get("at") {
            Some(v) => time_nonneg(&format!("{q}.at"), v)?,
            None => return err(&format!("{q}.at"), "is required (when the handoff completes, seconds)"),
        };
        let bandwidth = match m.get("bandwidth") {
            Some(v) => rate_pos(&format!("{q}.bandwidth"), v)?,
            None => return err(&format!("{q}.bandwidth"), "is required (the new link's bandwidth)"),
        };
        if bandwidth > f64::from(u32::MAX) * 1000.0 {
            return err(
                &format!("{q}.bandwidth"),
                format!(
                    "{bandwidth} bit/s is not allowed; the Bandwidth option carries at most {} Kbps",
                    u32::MAX
                ),
            );
        }
        let disconnect = match m.get("disconnect") {
            Some(v) => Some(time_nonneg(&format!("{q}.disconnect"), v)?),
            None if cc == "freeze_tcp" => {
                return err(
                    &format!("{q}.disconnect"),
                    "is required for freeze_tcp (its zero window is sent one RTT before the disconnection)",
                )
            }
            None => None,
        };
        if let Some(d) = disconnect {
            if d >= at {
                return err(
                    &format!("{q}.disconnect"),
                    format!("{d} s is not allowed; must be before at = {at} s"),
                );
            }
        }
        if let Some(prev) = events.last() {
            let after = disconnect.unwrap_or(at);
            if after <= prev.at {
                return err(
                    &format!("{q}.{}", if disconnect.is_some() { "disconnect" } else { "at" }),
                    format!(
                        "{after} s is not allowed; must be after the previous handoff's at = {} s",
                        prev.at
                    ),
                );
            }
        }
        events.push(HandoffEvent {
            at,
            bandwidth,
            disconnect,
        });
    }
    let bandwidth_error = match bandwidth_error {
        Some(v) => {
            let e = num(&format!("{p}.bandwidth_error"), v)?;
            if !(0.0..1.0).contains(&e) {
                return err(
                    &format!("{p}.bandwidth_error"),
                    format!("{e} is not allowed; must be in [0, 1) (a fraction of the bandwidth)"),
                );
            }
            e
        }
        None => 0.0,
    };
    let freeze_offset = match freeze_offset {
        Some(v) => {
            let o = num(&format!("{p}.freeze_offset"), v)?;
            if o.abs() > MAX_FREEZE_OFFSET {
                return err(
                    &format!("{p}.freeze_offset"),
                    format!("{o} is not allowed; must be in [-{MAX_FREEZE_OFFSET}, {MAX_FREEZE_OFFSET}] seconds"),
                );
            }
            o
        }
        None => 0.0,
    };
    Ok(Some(HandoffSpec {
        events,
        bandwidth_error,
        freeze_offset,
    }))
}
