//! `[[generators]]`: sources that create TCP flows while the simulation runs (Poisson
//! arrivals, closed loops, sessions), each entry expanded into `count` generators.
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
    src: String,
    dst: String,
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
    size: Value,
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
}

/// A source of TCP flows created at run time between one pair of hosts.
///
/// - `poisson`: flows arrive as a Poisson process of `rate` flows/s (open loop);
/// - `closed`: one flow at a time; the next starts `think` after the previous completes
///   (think = 0: a background sender that restarts at once);
/// - `sessions`: sessions of `pages` flows, one after another with `reading` time between
///   them; `session_gap` between the end of a session and the start of the next.
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
    pub size: Dist,
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
}

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
    if !["poisson", "closed", "sessions"].contains(&g.kind.as_str()) {
        return err(
            &format!("{p}.kind"),
            format!("{:?} is not allowed; allowed: poisson, closed, sessions", g.kind),
        );
    }
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
    let size = distribution(&format!("{p}.size"), &g.size, None)?;
    let size_unit = g.size_unit.clone().unwrap_or_else(|| "segments".into());
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
    let max_flows = g
        .max_flows
        .as_ref()
        .map(|v| int_in(&format!("{p}.max_flows"), v, 1, u64::MAX))
        .transpose()?;
    for k in 0..count {
        let (src, dst) = (substitute(&g.src, k), substitute(&g.dst, k));
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
        });
    }
    Ok(())
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
        "poisson" => {
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
