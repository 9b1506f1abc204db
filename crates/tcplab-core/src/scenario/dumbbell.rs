//! The `[dumbbell]` helper: `pairs` sender/receiver pairs `s{i}`, `d{i}` joined by access
//! links to routers `r1`, `r2` and one bottleneck link between them, expanded into nodes
//! and links.
use super::limits::{err, int_in, prob, rate_pos, time_nonneg, MAX_PAIRS};
use super::queue::{queue_field, QueueSpec};
use super::{LinkSpec, NodeSpec, SpecError};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDumbbell {
    pairs: Value,
    bottleneck: RawDumbbellLink,
    access: RawDumbbellLink,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDumbbellLink {
    rate: Value,
    delay: Value,
    #[serde(default)]
    queue: Option<Value>,
    #[serde(default)]
    loss: Option<Value>,
}

pub(super) fn expand_dumbbell(
    d: &RawDumbbell,
    nodes: &mut Vec<NodeSpec>,
    links: &mut Vec<LinkSpec>,
) -> Result<(), SpecError> {
    let n = int_in("dumbbell.pairs", &d.pairs, 1, MAX_PAIRS)? as usize;
    let b = &d.bottleneck;
    let b_rate = rate_pos("dumbbell.bottleneck.rate", &b.rate)?;
    let b_delay = time_nonneg("dumbbell.bottleneck.delay", &b.delay)?;
    let b_queue = match &b.queue {
        Some(v) => queue_field("dumbbell.bottleneck.queue", v, 100, b_rate, b_delay)?,
        None => QueueSpec::DropTail(100),
    };
    let b_loss = match &b.loss {
        Some(v) => prob("dumbbell.bottleneck.loss", v)?,
        None => 0.0,
    };
    let a = &d.access;
    let a_rate = rate_pos("dumbbell.access.rate", &a.rate)?;
    let a_delays = access_delays(&a.delay, n)?;
    // RED's automatic parameters use the delay of the first access link
    let a_queue = match &a.queue {
        Some(v) => queue_field("dumbbell.access.queue", v, 1000, a_rate, a_delays[0])?,
        None => QueueSpec::DropTail(1000),
    };
    let a_loss = match &a.loss {
        Some(v) => prob("dumbbell.access.loss", v)?,
        None => 0.0,
    };
    nodes.push(node("r1".into(), "router"));
    nodes.push(node("r2".into(), "router"));
    let link = |x: String, y: String, rate, delay, q: &QueueSpec, loss| LinkSpec {
        a: x,
        b: y,
        rate,
        delay,
        queue_ab: q.clone(),
        queue_ba: q.clone(),
        loss_ab: loss,
        loss_ba: loss,
        cost_ab: 1.0,
        cost_ba: 1.0,
        reorder_ab: None,
        reorder_ba: None,
    };
    links.push(link("r1".into(), "r2".into(), b_rate, b_delay, &b_queue, b_loss));
    for (i, delay) in a_delays.iter().enumerate() {
        nodes.push(node(format!("s{i}"), "host"));
        nodes.push(node(format!("d{i}"), "host"));
        links.push(link(format!("s{i}"), "r1".into(), a_rate, *delay, &a_queue, a_loss));
        links.push(link("r2".into(), format!("d{i}"), a_rate, *delay, &a_queue, a_loss));
    }
    Ok(())
}

/// One delay for every access link, or a list with one per pair.
fn access_delays(delay: &Value, n: usize) -> Result<Vec<f64>, SpecError> {
    match delay {
        Value::Array(xs) => {
            if xs.len() != n {
                return err(
                    "dumbbell.access.delay",
                    format!(
                        "a list of {} delays was given; it must have one per pair ({n})",
                        xs.len()
                    ),
                );
            }
            xs.iter()
                .enumerate()
                .map(|(i, x)| time_nonneg(&format!("dumbbell.access.delay[{i}]"), x))
                .collect::<Result<_, _>>()
        }
        v => Ok(vec![time_nonneg("dumbbell.access.delay", v)?; n]),
    }
}

/// A node without an address (a default is assigned later) and without tcbi.
fn node(name: String, kind: &'static str) -> NodeSpec {
    NodeSpec {
        name,
        kind: kind.into(),
        address: String::new(),
        tcbi: None,
    }
}
