//! `[[generators]]`: sources that create TCP flows while the simulation runs (Poisson
//! arrivals, closed loops, sessions, PackMime-HTTP web traffic), each entry expanded into
//! `count` generators.
use super::components::Components;
use super::distribution::distribution;
use super::instances::{endpoints, entry_count, instance_name, substitute};
use super::limits::{
    err, int_in, name, num_in, time_nonneg, MAX_FLOW_RATE, MAX_GENERATED_FLOWS, MAX_GENERATORS, MAX_TIME, MIN_FLOW_RATE,
};
use super::tcp_options::{congestion_control, tcp_options, TcpSpec};
use super::{memory, SimSpec, SpecError};
use crate::sim::Dist;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGenerator {
    #[serde(default)]
    name: Option<String>,
    kind: String,
    #[serde(default)]
    src: Option<String>,
    #[serde(default)]
    dst: Option<String>,
    #[serde(default)]
    clients: Option<Vec<String>>,
    #[serde(default)]
    servers: Option<Vec<String>>,
    #[serde(default)]
    persistent: Option<Value>,
    #[serde(default)]
    lrd: Option<bool>,
    #[serde(default)]
    log_requests: Option<bool>,
    #[serde(default)]
    pub(super) count: Option<Value>,
    #[serde(default)]
    cc: Option<String>,
    #[serde(default)]
    cc_params: Option<Map<String, Value>>,
    #[serde(default)]
    tcp: Option<Map<String, Value>>,
    #[serde(default)]
    start: Option<Value>,
    #[serde(default)]
    stop: Option<Value>,
    #[serde(default)]
    size: Option<Value>,
    #[serde(default)]
    size_unit: Option<String>,
    #[serde(default)]
    rate: Option<Value>,
    #[serde(default)]
    think: Option<Value>,
    #[serde(default)]
    session_gap: Option<Value>,
    #[serde(default)]
    pages: Option<Value>,
    #[serde(default)]
    reading: Option<Value>,
    #[serde(default)]
    max_flows: Option<Value>,
    #[serde(default)]
    record: Option<String>,
    #[serde(default)]
    kentridge: Option<Map<String, Value>>,
}

/// A source of TCP flows created at run time between one pair of hosts.
///
/// - `poisson`: flows arrive as a Poisson process of `rate` flows/s (open loop);
/// - `closed`: one flow at a time; the next starts `think` after the previous completes
///   (think = 0: a background sender that restarts at once);
/// - `sessions`: sessions of `pages` flows, one after another with `reading` time between
///   them; `session_gap` between the end of a session and the start of the next.
///
/// - `packmime`: PackMime-HTTP web connections (`traffic/packmime.rs`) at `rate` new
///   connections/s between the hosts of `clients` and `servers` (`web`); `src` and `dst`
///   are then the first server and the first client, and `size` is absent.
///
/// Flow sizes are drawn from `size` in `size_unit` (segments, or bytes rounded up to whole
/// segments), at least one segment.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct GeneratorSpec {
    pub name: String,
    pub kind: String,
    pub src: String,
    pub dst: String,
    pub cc: String,
    pub cc_params: BTreeMap<String, f64>,
    pub tcp: TcpSpec,
    pub start: f64,
    pub stop: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Dist>,
    pub size_unit: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<Dist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_gap: Option<Dist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<Dist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<Dist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_flows: Option<u64>,
    /// `flows`: one row per created flow in the flows table; `summary`: only the
    /// generator's totals (generators table), and a completed flow's state is freed, so
    /// that a long run with millions of background flows keeps little in memory.
    #[serde(default = "default_record")]
    pub record: String,
    /// `packmime` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web: Option<WebSpec>,
    /// TCP KentRidge on every flow the generator creates (as a flow's `kentridge`);
    /// `record = "flows"` only: a summary generator keeps no per-flow records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kentridge: Option<crate::kentridge::KentRidgeSpec>,
}

/// The fields of a `packmime` generator.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct WebSpec {
    /// Each connection picks one client and one server uniformly.
    pub clients: Vec<String>,
    pub servers: Vec<String>,
    /// P(a connection is persistent): 0.09 in the model, 0 for HTTP/1.0 only.
    pub persistent: f64,
    /// Long-range-dependent arrivals and request sizes (the model's FARIMA driver), or
    /// i.i.d. draws of the same marginals.
    pub lrd: bool,
    /// Keep one record per request (the events table's `web_*` rows).
    pub log_requests: bool,
}

/// Hosts per cloud, and (client, server) pairs of one generator: every pair has its two
/// routes.
pub const MAX_CLOUD_HOSTS: usize = 10_000;
pub const MAX_CLOUD_PAIRS: usize = 100_000;

fn default_record() -> String {
    "flows".into()
}

/// When a generator starts its flows: the fields of its kind, and only those.
struct Arrivals {
    rate: Option<f64>,
    think: Option<Dist>,
    session_gap: Option<Dist>,
    pages: Option<Dist>,
    reading: Option<Dist>,
}

/// Every generator, with a bound on the flows they are expected to create together.
pub(super) fn expand_generators(
    raw: &[RawGenerator],
    sim: &SimSpec,
    index: &HashMap<String, usize>,
    components: &mut Components,
) -> Result<Vec<GeneratorSpec>, SpecError> {
    let mut generators = Vec::new();
    let mut expected_flows = 0.0;
    for (i, g) in raw.iter().enumerate() {
        let before = generators.len();
        expand_generator(i, g, sim, index, components, &mut generators)?;
        expected_flows += generators[before..]
            .iter()
            .map(|g| memory::poisson_flows(g, sim.duration))
            .sum::<f64>();
        if expected_flows > MAX_GENERATED_FLOWS {
            return err(
                &format!("generators[{i}].rate"),
                format!(
                    "the generators would create about {expected_flows:.3e} flows (rate x active time); \
                     at most {MAX_GENERATED_FLOWS:e} in one scenario: lower the rate, stop earlier or set max_flows"
                ),
            );
        }
    }
    Ok(generators)
}

/// Every generator name once, and none that a flow has (`flow_names`).
pub(super) fn check_generator_names(
    generators: &[GeneratorSpec],
    flow_names: &HashMap<&str, usize>,
) -> Result<(), SpecError> {
    let mut generator_names = HashSet::with_capacity(generators.len());
    for g in generators {
        if flow_names.contains_key(g.name.as_str()) || !generator_names.insert(g.name.as_str()) {
            return err(
                "generators",
                format!("name {:?} is used twice (flows and generators share names)", g.name),
            );
        }
    }
    Ok(())
}

fn expand_generator(
    i: usize,
    g: &RawGenerator,
    sim: &SimSpec,
    index: &HashMap<String, usize>,
    components: &mut Components,
    out: &mut Vec<GeneratorSpec>,
) -> Result<(), SpecError> {
    let p = format!("generators[{i}]");
    let count = entry_count(&p, g.count.as_ref(), MAX_GENERATORS)?;
    if !["poisson", "closed", "sessions", "packmime"].contains(&g.kind.as_str()) {
        return err(
            &format!("{p}.kind"),
            format!(
                "{:?} is not allowed; allowed: poisson, closed, sessions, packmime",
                g.kind
            ),
        );
    }
    let web = g.kind == "packmime";
    let (cc_name, cc_params) = congestion_control(&p, g.cc.as_ref(), g.cc_params.as_ref())?;
    let tcp = tcp_options(&format!("{p}.tcp"), g.tcp.as_ref())?;
    let start = match &g.start {
        Some(v) => time_nonneg(&format!("{p}.start"), v)?,
        None => 0.0,
    };
    if start >= sim.duration {
        return err(
            &format!("{p}.start"),
            format!("{start} s is not before the end of the simulation"),
        );
    }
    let stop = match &g.stop {
        Some(v) => Some(time_nonneg(&format!("{p}.stop"), v)?),
        None => None,
    };
    let size = match (&g.size, web) {
        (Some(_), true) => {
            return err(
                &format!("{p}.size"),
                "not used by kind = \"packmime\" (the model draws the sizes)",
            )
        }
        (None, true) => None,
        (Some(v), false) => Some(distribution(&format!("{p}.size"), v, None)?),
        (None, false) => return err(&format!("{p}.size"), format!("required for kind = {:?}", g.kind)),
    };
    if web && g.size_unit.is_some() {
        return err(
            &format!("{p}.size_unit"),
            "not used by kind = \"packmime\" (sizes are in bytes)",
        );
    }
    let size_unit = g
        .size_unit
        .clone()
        .unwrap_or_else(|| if web { "bytes" } else { "segments" }.into());
    if size_unit != "segments" && size_unit != "bytes" {
        return err(
            &format!("{p}.size_unit"),
            format!("{size_unit:?} is not allowed; allowed: segments, bytes"),
        );
    }
    let arrivals = arrivals(&p, g)?;
    let record = g.record.clone().unwrap_or_else(default_record);
    if record != "flows" && record != "summary" {
        return err(
            &format!("{p}.record"),
            format!("{record:?} is not allowed; allowed: flows, summary"),
        );
    }
    if web && g.max_flows.is_some() {
        return err(&format!("{p}.max_flows"), "not used by kind = \"packmime\" (use stop)");
    }
    let max_flows = g
        .max_flows
        .as_ref()
        .map(|v| int_in(&format!("{p}.max_flows"), v, 1, u64::MAX))
        .transpose()?;
    let kentridge = super::kentridge::kentridge_spec(&format!("{p}.kentridge"), g.kentridge.as_ref())?;
    if kentridge.is_some() && record != "flows" {
        return err(
            &format!("{p}.kentridge"),
            "needs record = \"flows\" (a summary generator keeps no per-flow records for its decisions)",
        );
    }
    let web_fields = web_fields(&p, g)?;
    for k in 0..count {
        let (src, dst, web) = match &web_fields {
            Some(w) => {
                let w = clouds(&p, w, k, index, components)?;
                (w.servers[0].clone(), w.clients[0].clone(), Some(w))
            }
            None => {
                let field = |f: &Option<String>, n: &str| {
                    f.as_deref()
                        .map(|s| substitute(s, k))
                        .ok_or_else(|| super::SpecError(format!("{p}.{n}: required for kind = {:?}", g.kind)))
                };
                (field(&g.src, "src")?, field(&g.dst, "dst")?, None)
            }
        };
        let (a, b) = endpoints(&p, &src, &dst, index)?;
        if a == b || !components.connected(a, b) {
            return err(&format!("{p}.dst"), format!("no route from {src:?} to {dst:?}"));
        }
        let name = instance_name(g.name.as_ref(), count, k, "gen", out.len());
        self::name(&format!("{p}.name"), &name)?;
        out.push(GeneratorSpec {
            name,
            kind: g.kind.clone(),
            src,
            dst,
            cc: cc_name.clone(),
            cc_params: cc_params.clone(),
            tcp: tcp.clone(),
            start,
            stop,
            size: size.clone(),
            size_unit: size_unit.clone(),
            rate: arrivals.rate,
            think: arrivals.think.clone(),
            session_gap: arrivals.session_gap.clone(),
            pages: arrivals.pages.clone(),
            reading: arrivals.reading.clone(),
            max_flows,
            record: record.clone(),
            web,
            kentridge: kentridge.clone(),
        });
    }
    Ok(())
}

/// The web fields of a packmime generator (clouds not yet expanded), or None for the other
/// kinds (which may not have them).
fn web_fields(p: &str, g: &RawGenerator) -> Result<Option<WebSpec>, SpecError> {
    if g.kind != "packmime" {
        let given = [
            ("clients", g.clients.is_some()),
            ("servers", g.servers.is_some()),
            ("persistent", g.persistent.is_some()),
            ("lrd", g.lrd.is_some()),
            ("log_requests", g.log_requests.is_some()),
        ];
        if let Some((field, _)) = given.iter().find(|(_, present)| *present) {
            return err(&format!("{p}.{field}"), format!("not used by kind = {:?}", g.kind));
        }
        return Ok(None);
    }
    for (field, present) in [("src", g.src.is_some()), ("dst", g.dst.is_some())] {
        if present {
            return err(
                &format!("{p}.{field}"),
                "not used by kind = \"packmime\" (give the hosts as clients and servers)",
            );
        }
    }
    let hosts = |field: &str, v: &Option<Vec<String>>| -> Result<Vec<String>, SpecError> {
        match v {
            None => err(
                &format!("{p}.{field}"),
                "required for kind = \"packmime\" (a list of host names)",
            ),
            Some(l) if l.is_empty() || l.len() > MAX_CLOUD_HOSTS => err(
                &format!("{p}.{field}"),
                format!("{} hosts is not allowed; allowed: 1 to {MAX_CLOUD_HOSTS}", l.len()),
            ),
            Some(l) => Ok(l.clone()),
        }
    };
    let (clients, servers) = (hosts("clients", &g.clients)?, hosts("servers", &g.servers)?);
    if clients.len() * servers.len() > MAX_CLOUD_PAIRS {
        return err(
            &format!("{p}.servers"),
            format!(
                "{} clients x {} servers = {} pairs is not allowed; at most {MAX_CLOUD_PAIRS} (each pair has its routes)",
                clients.len(),
                servers.len(),
                clients.len() * servers.len()
            ),
        );
    }
    let persistent = match &g.persistent {
        Some(v) => num_in(&format!("{p}.persistent"), v, 0.0, 1.0, "probability")?,
        None => 0.09,
    };
    Ok(Some(WebSpec {
        clients,
        servers,
        persistent,
        lrd: g.lrd.unwrap_or(true),
        log_requests: g.log_requests.unwrap_or(false),
    }))
}

/// Instance `k`'s clouds: `{i}` substituted, every host known, every pair connected and no
/// host in both clouds.
fn clouds(
    p: &str,
    w: &WebSpec,
    k: usize,
    index: &HashMap<String, usize>,
    components: &mut Components,
) -> Result<WebSpec, SpecError> {
    let expand = |field: &str, l: &[String]| -> Result<Vec<(String, usize)>, SpecError> {
        l.iter()
            .enumerate()
            .map(|(j, h)| {
                let h = substitute(h, k);
                match index.get(&h) {
                    Some(&n) => Ok((h, n)),
                    None => err(&format!("{p}.{field}[{j}]"), format!("unknown node {h:?}")),
                }
            })
            .collect()
    };
    let clients = expand("clients", &w.clients)?;
    let servers = expand("servers", &w.servers)?;
    for (j, (c, a)) in clients.iter().enumerate() {
        for (s, b) in &servers {
            if a == b {
                return err(&format!("{p}.clients[{j}]"), format!("{c:?} is also a server"));
            }
            if !components.connected(*a, *b) {
                return err(
                    &format!("{p}.clients[{j}]"),
                    format!("no route from {c:?} to server {s:?}"),
                );
            }
        }
    }
    Ok(WebSpec {
        clients: clients.into_iter().map(|(h, _)| h).collect(),
        servers: servers.into_iter().map(|(h, _)| h).collect(),
        ..w.clone()
    })
}

/// The arrival fields of the generator at `p`: each one its kind requires, none it does not use.
fn arrivals(p: &str, g: &RawGenerator) -> Result<Arrivals, SpecError> {
    let opt = |name: &str, v: &Option<Value>, max: Option<f64>| -> Result<Option<Dist>, SpecError> {
        v.as_ref()
            .map(|v| distribution(&format!("{p}.{name}"), v, max))
            .transpose()
    };
    let think = opt("think", &g.think, Some(MAX_TIME))?;
    let session_gap = opt("session_gap", &g.session_gap, Some(MAX_TIME))?;
    let pages = opt("pages", &g.pages, None)?;
    let reading = opt("reading", &g.reading, Some(MAX_TIME))?;
    let rate = match &g.rate {
        Some(v) => Some(num_in(
            &format!("{p}.rate"),
            v,
            MIN_FLOW_RATE,
            MAX_FLOW_RATE,
            "flows/s",
        )?),
        None => None,
    };
    let need = |ok: bool, field: &str| -> Result<(), SpecError> {
        if ok {
            Ok(())
        } else {
            err(&format!("{p}.{field}"), format!("required for kind = {:?}", g.kind))
        }
    };
    let unused = |present: bool, field: &str| -> Result<(), SpecError> {
        if present {
            err(&format!("{p}.{field}"), format!("not used by kind = {:?}", g.kind))
        } else {
            Ok(())
        }
    };
    match g.kind.as_str() {
        "poisson" | "packmime" => {
            need(rate.is_some(), "rate")?;
            unused(think.is_some(), "think")?;
            unused(session_gap.is_some() || pages.is_some() || reading.is_some(), "pages")?;
        }
        "closed" => {
            unused(rate.is_some(), "rate")?;
            unused(session_gap.is_some() || pages.is_some() || reading.is_some(), "pages")?;
        }
        _ => {
            unused(rate.is_some(), "rate")?;
            unused(think.is_some(), "think")?;
            need(session_gap.is_some(), "session_gap")?;
            need(pages.is_some(), "pages")?;
            need(reading.is_some(), "reading")?;
        }
    }
    Ok(Arrivals {
        rate,
        think,
        session_gap,
        pages,
        reading,
    })
}
