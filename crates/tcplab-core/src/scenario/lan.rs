//! `[[lans]]`: shared-medium LANs, their members and medium access.
use super::limits::{err, name, prob, queue, rate_pos, time_nonneg};
use super::SpecError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLan {
    name: String,
    members: Vec<String>,
    rate: Value,
    #[serde(default)]
    delay: Option<Value>,
    #[serde(default)]
    queue: Option<Value>,
    #[serde(default)]
    loss: Option<Value>,
    #[serde(default)]
    mac: Option<Value>,
}

/// A shared-medium LAN: every member has its own DropTail interface queue of `queue`
/// packets toward one channel of `rate` shared by all members (one frame at a time);
/// a frame reaches its next-hop member `delay` after its transmission ends; every frame
/// is lost with probability `loss`. `mac`: "fifo" (default; collision-free, frames served in
/// the order they reached the head of their queue) or "csma_cd" (IEEE 802.3 CSMA/CD); the
/// default is left out of the normalised spec, so that specs without it keep their form.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LanSpec {
    pub name: String,
    pub members: Vec<String>,
    pub rate: f64,
    pub delay: f64,
    pub queue: u32,
    pub loss: f64,
    #[serde(default = "fifo_mac", skip_serializing_if = "is_fifo_mac")]
    pub mac: String,
}

fn fifo_mac() -> String {
    "fifo".into()
}

fn is_fifo_mac(m: &str) -> bool {
    m == "fifo"
}

/// Every LAN, checked one after another, then their names for uniqueness.
pub(super) fn normalise_lans(raw: &[RawLan], index: &HashMap<String, usize>) -> Result<Vec<LanSpec>, SpecError> {
    let lans = raw
        .iter()
        .enumerate()
        .map(|(i, l)| normalise_lan(i, l, index))
        .collect::<Result<Vec<_>, _>>()?;
    let mut lan_names = HashSet::with_capacity(lans.len());
    for (i, l) in lans.iter().enumerate() {
        if !lan_names.insert(l.name.as_str()) {
            return err(
                &format!("lans[{i}].name"),
                format!("LAN name {:?} is used twice", l.name),
            );
        }
    }
    Ok(lans)
}

fn normalise_lan(i: usize, l: &RawLan, index: &HashMap<String, usize>) -> Result<LanSpec, SpecError> {
    let p = format!("lans[{i}]");
    name(&format!("{p}.name"), &l.name)?;
    if l.members.len() < 2 {
        return err(&format!("{p}.members"), "a LAN needs at least 2 members");
    }
    let mut listed = HashSet::with_capacity(l.members.len());
    for (k, m) in l.members.iter().enumerate() {
        if !index.contains_key(m) {
            return err(
                &format!("{p}.members[{k}]"),
                format!("unknown node {m:?}; declare it in [[nodes]]"),
            );
        }
        if !listed.insert(m.as_str()) {
            return err(&format!("{p}.members[{k}]"), format!("node {m:?} is listed twice"));
        }
    }
    let rate = rate_pos(&format!("{p}.rate"), &l.rate)?;
    let delay = match &l.delay {
        Some(v) => time_nonneg(&format!("{p}.delay"), v)?,
        None => 0.0,
    };
    let queue = match &l.queue {
        Some(v) => queue(&format!("{p}.queue"), v)?,
        None => 100,
    };
    let loss = match &l.loss {
        Some(v) => prob(&format!("{p}.loss"), v)?,
        None => 0.0,
    };
    let mac = match &l.mac {
        None => fifo_mac(),
        Some(v) => match v.as_str() {
            Some(m @ ("fifo" | "csma_cd")) => m.into(),
            _ => {
                return err(
                    &format!("{p}.mac"),
                    format!("expected \"fifo\" or \"csma_cd\", got {v}"),
                )
            }
        },
    };
    Ok(LanSpec {
        name: l.name.clone(),
        members: l.members.clone(),
        rate,
        delay,
        queue,
        loss,
        mac,
    })
}
