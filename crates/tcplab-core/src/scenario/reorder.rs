//! A link's reordering model (`reorder`, `reorder_ab`, `reorder_ba`): a table
//! `{prob = p, delay = t}`, each admitted packet held back by `t` with probability `p`
//! (`net/reorder.rs`), on any queue (codel and fq_codel included) and on links with
//! `[[link_changes]]` (docs/kentridge.md, "Link reordering", says where each draws).
use super::limits::{err, num, time_pos};
use super::SpecError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct ReorderSpec {
    /// Probability that a packet is held back, in (0, 1).
    pub prob: f64,
    /// How long it is held back (s).
    pub delay: f64,
}

pub(super) fn reorder_field(p: &str, v: &Value) -> Result<ReorderSpec, SpecError> {
    let Some(m) = v.as_object() else {
        return err(p, format!("expected a table {{prob = ..., delay = ...}}, got {v}"));
    };
    for k in m.keys() {
        if k != "prob" && k != "delay" {
            return err(&format!("{p}.{k}"), "unknown field; allowed: prob, delay");
        }
    }
    let prob = match m.get("prob") {
        Some(v) => num(&format!("{p}.prob"), v)?,
        None => {
            return err(
                &format!("{p}.prob"),
                "missing; the probability that a packet is held back, in (0, 1)",
            )
        }
    };
    if !(prob > 0.0 && prob < 1.0) {
        return err(
            &format!("{p}.prob"),
            format!("{prob} is not allowed; must be in (0, 1)"),
        );
    }
    let delay = match m.get("delay") {
        Some(v) => time_pos(&format!("{p}.delay"), v)?,
        None => {
            return err(
                &format!("{p}.delay"),
                "missing; how long a held-back packet is delayed (> 0 s)",
            )
        }
    };
    Ok(ReorderSpec { prob, delay })
}
