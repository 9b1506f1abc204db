//! Nodes and point-to-point links (queues, loss, routing costs), the index of node names,
//! which nodes can reach each other, and the bound on the time a full queue takes to drain.
use super::addresses::parse_ipv4;
use super::components::Components;
use super::limits::{err, name, num, prob, rate_pos, time_nonneg, MAX_TIME};
use super::queue::{queue_field, QueueSpec};
use super::reorder::{reorder_field, ReorderSpec};
use super::sharing::{tcbi_options, TcbiSpec};
use super::{LanSpec, Spec, SpecError, TcpSpec};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNode {
    name: String,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    address: Option<Value>,
    #[serde(default)]
    tcbi: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLink {
    a: String,
    b: String,
    rate: Value,
    delay: Value,
    #[serde(default)]
    queue: Option<Value>,
    #[serde(default)]
    queue_ab: Option<Value>,
    #[serde(default)]
    queue_ba: Option<Value>,
    #[serde(default)]
    loss: Option<Value>,
    #[serde(default)]
    loss_ab: Option<Value>,
    #[serde(default)]
    loss_ba: Option<Value>,
    #[serde(default)]
    cost: Option<Value>,
    #[serde(default)]
    cost_ab: Option<Value>,
    #[serde(default)]
    cost_ba: Option<Value>,
    #[serde(default)]
    reorder: Option<Value>,
    #[serde(default)]
    reorder_ab: Option<Value>,
    #[serde(default)]
    reorder_ba: Option<Value>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct NodeSpec {
    pub name: String,
    /// "host" or "router" (not a string of its own per node).
    pub kind: Cow<'static, str>,
    /// IPv4 address (dotted quad); a default is assigned when the spec gives none.
    #[serde(default)]
    pub address: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcbi: Option<Box<TcbiSpec>>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    pub rate: f64,
    pub delay: f64,
    /// Each direction's queue: a number of packets (DropTail) or a discipline's table.
    pub queue_ab: QueueSpec,
    pub queue_ba: QueueSpec,
    pub loss_ab: f64,
    pub loss_ba: f64,
    /// Routing cost of each direction (routes are least-cost paths; 1 = fewest hops).
    pub cost_ab: f64,
    pub cost_ba: f64,
    /// Each direction's reordering model (`reorder`, `reorder_ab`, `reorder_ba`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reorder_ab: Option<ReorderSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reorder_ba: Option<ReorderSpec>,
}

pub(super) fn normalise_nodes(raw: &[RawNode]) -> Result<Vec<NodeSpec>, SpecError> {
    raw.iter().enumerate().map(|(i, n)| normalise_node(i, n)).collect()
}

fn normalise_node(i: usize, n: &RawNode) -> Result<NodeSpec, SpecError> {
    let p = format!("nodes[{i}]");
    name(&format!("{p}.name"), &n.name)?;
    let kind: Cow<'static, str> = match n.kind.as_deref() {
        None | Some("host") => "host".into(),
        Some("router") => "router".into(),
        Some(kind) => {
            return err(
                &format!("{p}.kind"),
                format!("{kind:?} is not allowed; allowed: host, router"),
            )
        }
    };
    let tcbi = match &n.tcbi {
        Some(v) => Some(Box::new(tcbi_options(&format!("{p}.tcbi"), v)?)),
        None => None,
    };
    if tcbi.is_some() && kind != "host" {
        return err(&format!("{p}.tcbi"), "only hosts can carry tcbi");
    }
    let address = match &n.address {
        Some(Value::String(a)) if a.is_empty() => String::new(),
        Some(Value::String(a)) => match parse_ipv4(a) {
            Some(_) => a.clone(),
            None => {
                return err(
                    &format!("{p}.address"),
                    format!("{a:?} is not an IPv4 address like \"10.0.2.1\""),
                )
            }
        },
        Some(v) => {
            return err(
                &format!("{p}.address"),
                format!("expected an IPv4 address string, got {v}"),
            )
        }
        None => String::new(),
    };
    Ok(NodeSpec {
        name: n.name.clone(),
        kind,
        address,
        tcbi,
    })
}

/// The position of every node by name. `declared`: how many nodes the spec lists (the
/// dumbbell's follow them).
pub(super) fn node_index(nodes: &[NodeSpec], declared: usize) -> Result<HashMap<String, usize>, SpecError> {
    let mut index: HashMap<String, usize> = HashMap::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        if index.insert(n.name.clone(), i).is_some() {
            // declared nodes come first: a clash with a dumbbell node is the dumbbell's
            let src = if i < declared {
                format!("nodes[{i}].name")
            } else {
                "dumbbell".to_string()
            };
            return err(&src, format!("node name {:?} is used twice", n.name));
        }
    }
    Ok(index)
}

fn route_cost(path: &str, v: &Value) -> Result<f64, SpecError> {
    let c = num(path, v)?;
    if !(c > 0.0) {
        return err(path, format!("{c} is not allowed; a routing cost must be > 0"));
    }
    Ok(c)
}

pub(super) fn normalise_link(i: usize, l: &RawLink, index: &HashMap<String, usize>) -> Result<LinkSpec, SpecError> {
    let p = format!("links[{i}]");
    for (end, name) in [("a", &l.a), ("b", &l.b)] {
        if !index.contains_key(name) {
            return err(
                &format!("{p}.{end}"),
                format!("unknown node {name:?}; declare it in [[nodes]]"),
            );
        }
    }
    if l.a == l.b {
        return err(
            &format!("{p}.b"),
            format!("a link from {:?} to itself is not allowed", l.a),
        );
    }
    let rate = rate_pos(&format!("{p}.rate"), &l.rate)?;
    let delay = time_nonneg(&format!("{p}.delay"), &l.delay)?;
    let q = match &l.queue {
        Some(v) => queue_field(&format!("{p}.queue"), v, 100, rate, delay)?,
        None => QueueSpec::DropTail(100),
    };
    let queue_ab = match &l.queue_ab {
        Some(v) => queue_field(&format!("{p}.queue_ab"), v, 100, rate, delay)?,
        None => q.clone(),
    };
    let queue_ba = match &l.queue_ba {
        Some(v) => queue_field(&format!("{p}.queue_ba"), v, 100, rate, delay)?,
        None => q,
    };
    let loss = match &l.loss {
        Some(v) => prob(&format!("{p}.loss"), v)?,
        None => 0.0,
    };
    let loss_ab = match &l.loss_ab {
        Some(v) => prob(&format!("{p}.loss_ab"), v)?,
        None => loss,
    };
    let loss_ba = match &l.loss_ba {
        Some(v) => prob(&format!("{p}.loss_ba"), v)?,
        None => loss,
    };
    let cost = match &l.cost {
        Some(v) => route_cost(&format!("{p}.cost"), v)?,
        None => 1.0,
    };
    let cost_ab = match &l.cost_ab {
        Some(v) => route_cost(&format!("{p}.cost_ab"), v)?,
        None => cost,
    };
    let cost_ba = match &l.cost_ba {
        Some(v) => route_cost(&format!("{p}.cost_ba"), v)?,
        None => cost,
    };
    let reorder = match &l.reorder {
        Some(v) => Some(reorder_field(&format!("{p}.reorder"), v)?),
        None => None,
    };
    let reorder_ab = match &l.reorder_ab {
        Some(v) => Some(reorder_field(&format!("{p}.reorder_ab"), v)?),
        None => reorder,
    };
    let reorder_ba = match &l.reorder_ba {
        Some(v) => Some(reorder_field(&format!("{p}.reorder_ba"), v)?),
        None => reorder,
    };
    Ok(LinkSpec {
        reorder_ab,
        reorder_ba,
        a: l.a.clone(),
        b: l.b.clone(),
        rate,
        delay,
        queue_ab,
        queue_ba,
        loss_ab,
        loss_ba,
        cost_ab,
        cost_ba,
    })
}

/// Which nodes the links and LANs connect.
pub(super) fn connectivity(
    nodes: usize,
    index: &HashMap<String, usize>,
    links: &[LinkSpec],
    lans: &[LanSpec],
) -> Components {
    let mut components = Components::new(nodes);
    for l in links {
        components.join(index[&l.a], index[&l.b]);
    }
    for l in lans {
        let first = index[&l.members[0]];
        for m in &l.members[1..] {
            components.join(first, index[m]);
        }
    }
    components
}

/// The largest packet any flow sends (bytes on the wire), 0 without flows.
pub(super) fn largest_packet(spec: &Spec) -> u64 {
    let tcp = |t: &TcpSpec| (t.mss as u64 + t.header as u64).max(t.ack_size as u64);
    let flows = spec.flows.iter().map(|f| match f.packet {
        Some(p) if matches!(f.transport.as_str(), "udp" | "voip") => p as u64,
        _ => tcp(&f.tcp),
    });
    flows
        .chain(spec.generators.iter().map(|g| tcp(&g.tcp)))
        .max()
        .unwrap_or(0)
}

/// A full queue must drain within the clock's range, or the departure times of the
/// packets behind it could not be represented.
pub(super) fn check_queue_drain(spec: &Spec, dumbbell_links: usize) -> Result<(), SpecError> {
    let bits = largest_packet(spec) as f64 * 8.0;
    let check = |path: String, packets: f64, rate: f64| -> Result<(), SpecError> {
        let t = packets * bits / rate;
        if t <= MAX_TIME {
            return Ok(());
        }
        err(
            &path,
            format!(
                "a full queue of {packets} packets of up to {} bytes takes {t:.3e} s to send at {rate} bit/s; \
                 at most {MAX_TIME:e} s (the simulated clock's range): lower the queue or raise the rate",
                bits / 8.0
            ),
        )
    };
    for (k, l) in spec.links.iter().enumerate() {
        for (q, dir) in [(l.queue_ab.limit(), "queue_ab"), (l.queue_ba.limit(), "queue_ba")] {
            let path = match k {
                0 if dumbbell_links > 0 => "dumbbell.bottleneck.queue".to_string(),
                k if k < dumbbell_links => "dumbbell.access.queue".to_string(),
                k => format!("links[{}].{dir}", k - dumbbell_links),
            };
            check(path, q as f64, l.rate)?;
        }
    }
    for (k, l) in spec.lans.iter().enumerate() {
        // all members' queues share the one channel
        check(
            format!("lans[{k}].queue"),
            l.queue as f64 * l.members.len() as f64,
            l.rate,
        )?;
    }
    Ok(())
}
