//! The scenario spec: the raw form read from TOML/JSON, validation, and the normalised
//! form (every default filled in, helpers expanded) that the simulator builds from.
mod components;
pub mod limits;
pub mod memory;
mod shape;
pub mod units;

use crate::cc;
use crate::sim::Dist;
use components::Components;
use limits::*;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A scenario error: `path: message`.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecError(pub String);

// ---------------------------------------------------------------- raw (input) form

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    sim: RawSim,
    #[serde(default)]
    nodes: Vec<RawNode>,
    #[serde(default)]
    links: Vec<RawLink>,
    #[serde(default)]
    dumbbell: Option<RawDumbbell>,
    #[serde(default)]
    flows: Vec<RawFlow>,
    #[serde(default)]
    pcap: Vec<PcapSpec>,
    #[serde(default)]
    generators: Vec<RawGenerator>,
    #[serde(default)]
    lans: Vec<RawLan>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLan {
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGenerator {
    #[serde(default)]
    name: Option<String>,
    kind: String,
    src: String,
    dst: String,
    #[serde(default)]
    count: Option<Value>,
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSim {
    duration: Value,
    #[serde(default)]
    sample_interval: Option<Value>,
    #[serde(default)]
    seed: Option<Value>,
    #[serde(default)]
    memory_limit: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNode {
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
struct RawLink {
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDumbbell {
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlow {
    #[serde(default)]
    name: Option<String>,
    src: String,
    dst: String,
    #[serde(default)]
    count: Option<Value>,
    #[serde(default)]
    cc: Option<String>,
    #[serde(default)]
    cc_params: Option<Map<String, Value>>,
    #[serde(default)]
    start: Option<Value>,
    #[serde(default)]
    stop: Option<Value>,
    #[serde(default)]
    size: Option<Value>,
    #[serde(default)]
    switch: Vec<RawSwitch>,
    #[serde(default)]
    tcp: Option<Map<String, Value>>,
    #[serde(default)]
    transport: Option<String>,
    #[serde(default)]
    rate: Option<Value>,
    #[serde(default)]
    rate_schedule: Option<Vec<RawRateStep>>,
    #[serde(default)]
    packet: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRateStep {
    at: Value,
    rate: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSwitch {
    at: Value,
    cc: String,
}

// ---------------------------------------------------------------- normalised form

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Spec {
    pub sim: SimSpec,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    /// Link directions to capture into pcap files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcap: Vec<PcapSpec>,
    /// Sources that create TCP flows while the simulation runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators: Vec<GeneratorSpec>,
    /// Shared-medium LANs (Ethernet-type): one channel shared by all members.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lans: Vec<LanSpec>,
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

/// TCP control block interdependence of one host (Savorić, Karl, Wolisz; RFC 2140).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TcbiSpec {
    /// "none" (sets are tracked, nothing is shared), "mv" (mean value), "fs" (fair share).
    pub controller: String,
    /// Connections whose destination addresses agree in the first `prefix` bits form a set.
    pub prefix: u8,
    /// Temporal sharing (our design): reuse the values of closed connections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temporal: Option<TemporalSpec>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TemporalSpec {
    /// Seconds after which a cached entry is ignored.
    pub lifetime: f64,
    /// "linear" (values decay linearly toward the standard ones over the lifetime) or "none".
    pub ageing: String,
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

/// Capture the packets that cross the link from `a` to `b` (as the far end receives them).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    pub a: String,
    pub b: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SimSpec {
    pub duration: f64,
    pub sample_interval: f64,
    pub seed: u64,
    /// Bytes a run may be estimated to need (see `memory`); absent: the machine's physical
    /// memory ([`default_memory_limit`]). Left out of the normalised form when absent, so
    /// that the normalised form of a spec that does not set it is unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<u64>,
}

/// The limit when the spec sets none: the machine's physical memory (Linux:
/// `/proc/meminfo`), or 16 GiB where it cannot be read. The estimate guards against runs
/// that cannot fit on this machine, so the machine sets the default.
pub fn default_memory_limit() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| physical_memory().unwrap_or(FALLBACK_MEMORY_LIMIT))
}

/// 16 GiB.
pub const FALLBACK_MEMORY_LIMIT: u64 = 16 << 30;

fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024).filter(|&b| b > 0)
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct NodeSpec {
    pub name: String,
    pub kind: String,
    /// IPv4 address (dotted quad); a default is assigned when the spec gives none.
    #[serde(default)]
    pub address: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcbi: Option<TcbiSpec>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LinkSpec {
    pub a: String,
    pub b: String,
    pub rate: f64,
    pub delay: f64,
    pub queue_ab: u32,
    pub queue_ba: u32,
    pub loss_ab: f64,
    pub loss_ba: f64,
    /// Routing cost of each direction (routes are least-cost paths; 1 = fewest hops).
    pub cost_ab: f64,
    pub cost_ba: f64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SwitchSpec {
    pub at: f64,
    pub cc: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct FlowSpec {
    pub name: String,
    pub src: String,
    pub dst: String,
    pub cc: String,
    pub cc_params: BTreeMap<String, f64>,
    pub start: f64,
    pub stop: Option<f64>,
    pub size: Option<u64>,
    pub switch: Vec<SwitchSpec>,
    pub tcp: TcpSpec,
    /// "tcp" or "udp" (a non-adaptive constant-bit-rate source).
    #[serde(default = "default_transport")]
    pub transport: String,
    /// UDP packet size on the wire (bytes), when `transport = "udp"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet: Option<u32>,
    /// UDP rate steps (time relative to the flow's start, bit/s), when `transport = "udp"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_schedule: Option<Vec<RateStep>>,
}

fn default_transport() -> String {
    "tcp".into()
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

/// TCP options of one flow. Defaults follow ns-2.35 where the papers rely on ns-2.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TcpSpec {
    pub mss: u32,
    pub header: u32,
    pub ack_size: u32,
    pub init_cwnd: f64,
    pub init_ssthresh: f64,
    pub rwnd: f64,
    pub delayed_ack: bool,
    pub delack_timeout: f64,
    pub delack_count: u32,
    pub dupthresh: u32,
    pub timestamps: bool,
    pub min_rto: f64,
    pub max_rto: f64,
    pub initial_rto: f64,
    pub tick: f64,
    pub handshake: bool,
    /// RFC 3042 Limited Transmit (ns-2.35's `singledup_`, on there by default).
    #[serde(default)]
    pub limited_transmit: bool,
    /// Maximum random processing time per data packet at the sender (uniform in
    /// [0, send_jitter], order kept), as in Qiu, Zhang, Keshav §5.2. 0 = none.
    #[serde(default)]
    pub send_jitter: f64,
}

impl Default for TcpSpec {
    fn default() -> Self {
        TcpSpec {
            mss: 1000,
            header: 40,
            ack_size: 40,
            init_cwnd: 1.0,
            init_ssthresh: 1e9,
            rwnd: 1e9,
            delayed_ack: false,
            delack_timeout: 0.1,
            delack_count: 2,
            dupthresh: 3,
            timestamps: false,
            min_rto: 0.2,
            max_rto: 64.0,
            initial_rto: 3.0,
            tick: 0.01,
            handshake: false,
            limited_transmit: false,
            send_jitter: 0.0,
        }
    }
}

// ---------------------------------------------------------------- field readers

fn route_cost(path: &str, v: &Value) -> Result<f64, SpecError> {
    let c = num(path, v)?;
    if !(c > 0.0) {
        return err(path, format!("{c} is not allowed; a routing cost must be > 0"));
    }
    Ok(c)
}

/// A cc parameter: a number, or a name for the parameters that take one (`error = "tbe"`).
fn cc_param(path: &str, key: &str, v: &Value) -> Result<f64, SpecError> {
    match v {
        Value::String(name) => cc::choice_code(key, name).map_err(|m| SpecError(format!("{path}: {m}"))),
        _ => num(path, v),
    }
}

fn prob(path: &str, v: &Value) -> Result<f64, SpecError> {
    let p = num(path, v)?;
    if !(0.0..1.0).contains(&p) {
        return err(path, format!("probability {p} is not allowed; must be in [0, 1)"));
    }
    Ok(p)
}

fn queue(path: &str, v: &Value) -> Result<u32, SpecError> {
    Ok(int_in(path, v, 1, MAX_QUEUE)? as u32)
}

fn tcp_options(path: &str, raw: Option<&Map<String, Value>>) -> Result<TcpSpec, SpecError> {
    let mut t = TcpSpec::default();
    let Some(raw) = raw else { return Ok(t) };
    for (k, v) in raw {
        let p = format!("{path}.{k}");
        match k.as_str() {
            "mss" => t.mss = int_in(&p, v, 1, MAX_PACKET)? as u32,
            "header" => t.header = int_in(&p, v, 0, MAX_PACKET)? as u32,
            "ack_size" => t.ack_size = int_in(&p, v, 1, MAX_PACKET)? as u32,
            "init_cwnd" => t.init_cwnd = num_in(&p, v, 1.0, MAX_INIT_CWND, "segments")?,
            "init_ssthresh" => {
                t.init_ssthresh = num(&p, v)?;
                if t.init_ssthresh < 2.0 {
                    return err(&p, format!("{} is not allowed; must be >= 2 segments", t.init_ssthresh));
                }
            }
            "rwnd" => t.rwnd = num_in(&p, v, 1.0, MAX_WINDOW, "segments")?,
            "delayed_ack" => t.delayed_ack = boolean(&p, v)?,
            "delack_timeout" => t.delack_timeout = time_pos(&p, v)?,
            "delack_count" => t.delack_count = int_in(&p, v, 1, MAX_ACK_COUNT)? as u32,
            "dupthresh" => t.dupthresh = int_in(&p, v, 1, MAX_ACK_COUNT)? as u32,
            "timestamps" => t.timestamps = boolean(&p, v)?,
            "min_rto" => t.min_rto = time_pos(&p, v)?,
            "max_rto" => t.max_rto = time_pos(&p, v)?,
            "initial_rto" => t.initial_rto = time_pos(&p, v)?,
            "tick" => t.tick = time_nonneg(&p, v)?,
            "handshake" => t.handshake = boolean(&p, v)?,
            "limited_transmit" => t.limited_transmit = boolean(&p, v)?,
            "send_jitter" => t.send_jitter = time_nonneg(&p, v)?,
            _ => {
                let allowed = "mss, header, ack_size, init_cwnd, init_ssthresh, rwnd, delayed_ack, \
                               delack_timeout, delack_count, dupthresh, timestamps, min_rto, max_rto, \
                               initial_rto, tick, handshake, limited_transmit, send_jitter";
                return err(&p, format!("unknown TCP option; allowed: {allowed}"));
            }
        }
    }
    if t.max_rto < t.min_rto {
        return err(
            &format!("{path}.max_rto"),
            format!("{} s is below min_rto {} s", t.max_rto, t.min_rto),
        );
    }
    Ok(t)
}

fn boolean(path: &str, v: &Value) -> Result<bool, SpecError> {
    v.as_bool()
        .ok_or_else(|| SpecError(format!("{path}: expected true or false, got {v}")))
}

// ---------------------------------------------------------------- normalisation

/// Parse JSON text into a normalised, validated spec.
pub fn parse(spec_json: &str) -> Result<Spec, SpecError> {
    let value: Value = serde_json::from_str(spec_json).map_err(|e| SpecError(format!("spec: {e}")))?;
    shape::check(&value)?;
    drop(value);
    let de = &mut serde_json::Deserializer::from_str(spec_json);
    let raw: RawSpec = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let msg = inner.to_string();
        // serde's messages end with " at line L column C"; keep them, they help with files.
        if path == "." || path.is_empty() {
            SpecError(format!("spec: {msg}"))
        } else {
            SpecError(format!("{path}: {msg}"))
        }
    })?;
    let spec = normalise(raw)?;
    check_memory(&spec)?;
    Ok(spec)
}

/// Refuse a spec whose estimated memory exceeds `sim.memory_limit`.
fn check_memory(spec: &Spec) -> Result<(), SpecError> {
    let e = memory::estimate(spec);
    let limit = spec.sim.memory_limit.unwrap_or_else(default_memory_limit) as f64;
    if e.bytes <= limit {
        return Ok(());
    }
    err(
        "sim.memory_limit",
        format!(
            "this run needs an estimated {} ({}), more than the limit of {}; reduce the scenario, \
             or raise the limit if the machine has the memory (e.g. memory_limit = \"{}\" in [sim])",
            memory::human(e.bytes),
            e.largest_parts(),
            memory::human(limit),
            suggested_limit(e.bytes),
        ),
    )
}

/// The estimate rounded up to whole GiB, as a value for `sim.memory_limit`.
fn suggested_limit(bytes: f64) -> String {
    format!("{}GiB", (bytes / (1u64 << 30) as f64).ceil().max(1.0))
}

fn memory_limit(path: &str, v: &Value) -> Result<u64, SpecError> {
    let b = units::parse_size(v).map_err(|m| SpecError(format!("{path}: {m}")))?;
    const MAX: f64 = (1u64 << 62) as f64;
    if !(b.is_finite() && (1.0..=MAX).contains(&b)) {
        return err(path, format!("{v} is not allowed; must be from 1 byte to 4 EiB"));
    }
    Ok(b as u64)
}

fn normalise(raw: RawSpec) -> Result<Spec, SpecError> {
    let duration = time_pos("sim.duration", &raw.sim.duration)?;
    let sample_interval = match &raw.sim.sample_interval {
        Some(v) => time_nonneg("sim.sample_interval", v)?,
        None => 0.0,
    };
    let seed = match &raw.sim.seed {
        Some(v) if !v.is_null() => int_in("sim.seed", v, 0, u64::MAX)?,
        _ => 1,
    };
    let memory_limit = match &raw.sim.memory_limit {
        Some(v) if !v.is_null() => Some(memory_limit("sim.memory_limit", v)?),
        _ => None,
    };
    let sim = SimSpec {
        duration,
        sample_interval,
        seed,
        memory_limit,
    };
    check_total_count("flows", raw.flows.iter().map(|f| f.count.as_ref()), MAX_FLOWS)?;
    check_total_count(
        "generators",
        raw.generators.iter().map(|g| g.count.as_ref()),
        MAX_GENERATORS,
    )?;

    let mut nodes: Vec<NodeSpec> = Vec::new();
    let mut links: Vec<LinkSpec> = Vec::new();
    for (i, n) in raw.nodes.iter().enumerate() {
        let p = format!("nodes[{i}]");
        name(&format!("{p}.name"), &n.name)?;
        let kind = n.kind.clone().unwrap_or_else(|| "host".into());
        if kind != "host" && kind != "router" {
            return err(
                &format!("{p}.kind"),
                format!("{kind:?} is not allowed; allowed: host, router"),
            );
        }
        let tcbi = match &n.tcbi {
            Some(v) => Some(tcbi_options(&format!("{p}.tcbi"), v)?),
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
        nodes.push(NodeSpec {
            name: n.name.clone(),
            kind,
            address,
            tcbi,
        });
    }
    if let Some(d) = &raw.dumbbell {
        dumbbell(d, &mut nodes, &mut links)?;
    }
    let mut index: HashMap<String, usize> = HashMap::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        if index.insert(n.name.clone(), i).is_some() {
            // declared nodes come first: a clash with a dumbbell node is the dumbbell's
            let src = if i < raw.nodes.len() {
                format!("nodes[{i}].name")
            } else {
                "dumbbell".to_string()
            };
            return err(&src, format!("node name {:?} is used twice", n.name));
        }
    }
    for (i, l) in raw.links.iter().enumerate() {
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
            Some(v) => queue(&format!("{p}.queue"), v)?,
            None => 100,
        };
        let queue_ab = match &l.queue_ab {
            Some(v) => queue(&format!("{p}.queue_ab"), v)?,
            None => q,
        };
        let queue_ba = match &l.queue_ba {
            Some(v) => queue(&format!("{p}.queue_ba"), v)?,
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
        links.push(LinkSpec {
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
        });
    }

    assign_addresses(&mut nodes)?;
    let lans = raw
        .lans
        .iter()
        .enumerate()
        .map(|(i, l)| lan(i, l, &index))
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
    let mut components = Components::new(nodes.len());
    for l in &links {
        components.join(index[&l.a], index[&l.b]);
    }
    for l in &lans {
        let first = index[&l.members[0]];
        for m in &l.members[1..] {
            components.join(first, index[m]);
        }
    }
    let mut flows = Vec::new();
    for (i, f) in raw.flows.iter().enumerate() {
        expand_flow(i, f, &sim, &index, &mut components, &mut flows)?;
    }
    let mut seen = HashMap::with_capacity(flows.len());
    for (i, f) in flows.iter().enumerate() {
        if let Some(j) = seen.insert(f.name.as_str(), i) {
            return err("flows", format!("flow name {:?} is used by flows {j} and {i}", f.name));
        }
    }
    let mut generators = Vec::new();
    let mut expected_flows = 0.0;
    for (i, g) in raw.generators.iter().enumerate() {
        let before = generators.len();
        expand_generator(i, g, &sim, &index, &mut components, &mut generators)?;
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
    let mut generator_names = HashSet::with_capacity(generators.len());
    for g in &generators {
        if seen.contains_key(g.name.as_str()) || !generator_names.insert(g.name.as_str()) {
            return err(
                "generators",
                format!("name {:?} is used twice (flows and generators share names)", g.name),
            );
        }
    }
    check_pcap(&raw.pcap, &links, &lans)?;
    let spec = Spec {
        sim,
        nodes,
        links,
        flows,
        pcap: raw.pcap,
        generators,
        lans,
    };
    check_queue_drain(&spec, spec.links.len() - raw.links.len())?;
    check_samples(&spec)?;
    Ok(spec)
}

/// The largest packet any flow sends (bytes on the wire), 0 without flows.
fn largest_packet(spec: &Spec) -> u64 {
    let tcp = |t: &TcpSpec| (t.mss as u64 + t.header as u64).max(t.ack_size as u64);
    let flows = spec.flows.iter().map(|f| match f.packet {
        Some(p) if f.transport == "udp" => p as u64,
        _ => tcp(&f.tcp),
    });
    flows
        .chain(spec.generators.iter().map(|g| tcp(&g.tcp)))
        .max()
        .unwrap_or(0)
}

/// A full queue must drain within the clock's range, or the departure times of the
/// packets behind it could not be represented.
fn check_queue_drain(spec: &Spec, dumbbell_links: usize) -> Result<(), SpecError> {
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
        for (q, dir) in [(l.queue_ab, "queue_ab"), (l.queue_ba, "queue_ba")] {
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

/// The sampled time series hold one row per TCP flow (and generator) and one per link
/// direction at every sampling instant.
fn check_samples(spec: &Spec) -> Result<(), SpecError> {
    if spec.sim.sample_interval <= 0.0 {
        return Ok(());
    }
    let instants = (spec.sim.duration / spec.sim.sample_interval).floor() + 1.0;
    let per_instant =
        spec.flows.iter().filter(|f| f.transport == "tcp").count() + spec.generators.len() + 2 * spec.links.len();
    let rows = instants * per_instant as f64;
    if rows > MAX_SAMPLE_ROWS {
        return err(
            "sim.sample_interval",
            format!(
                "{} s over {} s gives {instants:.3e} sampling instants x {per_instant} flows and link \
                 directions = {rows:.3e} rows; at most {MAX_SAMPLE_ROWS:e}: sample less often",
                spec.sim.sample_interval, spec.sim.duration
            ),
        );
    }
    Ok(())
}

/// The entries of `list` expand into at most `max` items together (checked before anything
/// is expanded).
fn check_total_count<'a>(
    list: &str,
    counts: impl Iterator<Item = Option<&'a Value>>,
    max: u64,
) -> Result<(), SpecError> {
    let mut total = 0;
    for (i, count) in counts.enumerate() {
        let path = format!("{list}[{i}].count");
        let n = match count {
            Some(v) => int_in(&path, v, 1, max)?,
            None => 1,
        };
        total += n;
        if total > max {
            return err(
                &path,
                format!("{n} more {list} would make {total}; at most {max} {list} in one scenario"),
            );
        }
    }
    Ok(())
}

/// Every `[[pcap]]` entry names the two ends of a link, or two members of one LAN.
fn check_pcap(pcap: &[PcapSpec], links: &[LinkSpec], lans: &[LanSpec]) -> Result<(), SpecError> {
    if pcap.is_empty() {
        return Ok(());
    }
    let linked: HashSet<(&str, &str)> = links
        .iter()
        .flat_map(|l| [(l.a.as_str(), l.b.as_str()), (l.b.as_str(), l.a.as_str())])
        .collect();
    let mut lans_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, l) in lans.iter().enumerate() {
        for m in &l.members {
            lans_of.entry(m.as_str()).or_default().push(k);
        }
    }
    for (i, c) in pcap.iter().enumerate() {
        let on_link = linked.contains(&(c.a.as_str(), c.b.as_str()));
        let on_lan = c.a != c.b
            && match (lans_of.get(c.a.as_str()), lans_of.get(c.b.as_str())) {
                (Some(x), Some(y)) => x.iter().any(|k| y.contains(k)),
                _ => false,
            };
        if !on_link && !on_lan {
            return err(
                &format!("pcap[{i}]"),
                format!("there is no link or LAN between {:?} and {:?}", c.a, c.b),
            );
        }
    }
    Ok(())
}

/// Parse a dotted-quad IPv4 address.
pub fn parse_ipv4(s: &str) -> Option<u32> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut a: u32 = 0;
    for p in parts {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let x: u32 = p.parse().ok()?;
        if x > 255 {
            return None;
        }
        a = (a << 8) | x;
    }
    Some(a)
}

pub fn format_ipv4(a: u32) -> String {
    format!("{}.{}.{}.{}", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255)
}

/// Check that given addresses are unique and give every other node a default: node `i`
/// (in node order, dumbbell nodes after the declared ones) gets 10.0.0.0 + i + 1, or the
/// next higher address not yet taken.
fn assign_addresses(nodes: &mut [NodeSpec]) -> Result<(), SpecError> {
    let mut taken: HashMap<u32, usize> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.address.is_empty() {
            continue;
        }
        let a = parse_ipv4(&n.address).expect("checked");
        if let Some(j) = taken.insert(a, i) {
            return err(
                &format!("nodes[{i}].address"),
                format!(
                    "{:?} is already the address of nodes[{j}] ({:?})",
                    n.address, nodes[j].name
                ),
            );
        }
    }
    // Every address between a node's base and the previous default one is taken, so the
    // search resumes after the previous default instead of starting again at the base.
    let mut next: u64 = 0;
    for (i, n) in nodes.iter_mut().enumerate() {
        if !n.address.is_empty() {
            continue;
        }
        let mut a = next.max(0x0A00_0000 + i as u64 + 1);
        while a <= u32::MAX as u64 && taken.contains_key(&(a as u32)) {
            a += 1;
        }
        if a > u32::MAX as u64 {
            return err(&format!("nodes[{i}].address"), "no IPv4 address is left for a default");
        }
        taken.insert(a as u32, i);
        n.address = format_ipv4(a as u32);
        next = a + 1;
    }
    Ok(())
}

fn tcbi_options(path: &str, v: &Value) -> Result<TcbiSpec, SpecError> {
    let Value::Object(m) = v else {
        return err(path, format!("expected a table like {{controller = \"mv\"}}, got {v}"));
    };
    let mut t = TcbiSpec {
        controller: "none".into(),
        prefix: 32,
        temporal: None,
    };
    for (k, v) in m {
        let p = format!("{path}.{k}");
        match k.as_str() {
            "controller" => match v.as_str() {
                Some(c @ ("none" | "mv" | "fs")) => t.controller = c.into(),
                _ => return err(&p, format!("{v} is not allowed; allowed: \"none\", \"mv\", \"fs\"")),
            },
            "prefix" => t.prefix = int_in(&p, v, 0, 32)? as u8,
            "temporal" => {
                if v.is_null() {
                    continue;
                }
                let Value::Object(tm) = v else {
                    return err(&p, format!("expected a table like {{lifetime = 600}}, got {v}"));
                };
                let mut temporal = TemporalSpec {
                    lifetime: 600.0,
                    ageing: "linear".into(),
                };
                for (tk, tv) in tm {
                    let tp = format!("{p}.{tk}");
                    match tk.as_str() {
                        "lifetime" => temporal.lifetime = time_pos(&tp, tv)?,
                        "ageing" => match tv.as_str() {
                            Some(a @ ("linear" | "none")) => temporal.ageing = a.into(),
                            _ => return err(&tp, format!("{tv} is not allowed; allowed: \"linear\", \"none\"")),
                        },
                        _ => return err(&tp, "unknown field; allowed: lifetime, ageing"),
                    }
                }
                t.temporal = Some(temporal);
            }
            _ => return err(&p, "unknown field; allowed: controller, prefix, temporal"),
        }
    }
    Ok(t)
}

fn lan(i: usize, l: &RawLan, index: &HashMap<String, usize>) -> Result<LanSpec, SpecError> {
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

fn dumbbell(d: &RawDumbbell, nodes: &mut Vec<NodeSpec>, links: &mut Vec<LinkSpec>) -> Result<(), SpecError> {
    let n = int_in("dumbbell.pairs", &d.pairs, 1, MAX_PAIRS)? as usize;
    let b = &d.bottleneck;
    let b_rate = rate_pos("dumbbell.bottleneck.rate", &b.rate)?;
    let b_delay = time_nonneg("dumbbell.bottleneck.delay", &b.delay)?;
    let b_queue = match &b.queue {
        Some(v) => queue("dumbbell.bottleneck.queue", v)?,
        None => 100,
    };
    let b_loss = match &b.loss {
        Some(v) => prob("dumbbell.bottleneck.loss", v)?,
        None => 0.0,
    };
    let a = &d.access;
    let a_rate = rate_pos("dumbbell.access.rate", &a.rate)?;
    let a_delays: Vec<f64> = match &a.delay {
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
                .collect::<Result<_, _>>()?
        }
        v => vec![time_nonneg("dumbbell.access.delay", v)?; n],
    };
    let a_queue = match &a.queue {
        Some(v) => queue("dumbbell.access.queue", v)?,
        None => 1000,
    };
    let a_loss = match &a.loss {
        Some(v) => prob("dumbbell.access.loss", v)?,
        None => 0.0,
    };
    nodes.push(NodeSpec {
        name: "r1".into(),
        kind: "router".into(),
        address: String::new(),
        tcbi: None,
    });
    nodes.push(NodeSpec {
        name: "r2".into(),
        kind: "router".into(),
        address: String::new(),
        tcbi: None,
    });
    let link = |x: String, y: String, rate, delay, q, loss| LinkSpec {
        a: x,
        b: y,
        rate,
        delay,
        queue_ab: q,
        queue_ba: q,
        loss_ab: loss,
        loss_ba: loss,
        cost_ab: 1.0,
        cost_ba: 1.0,
    };
    links.push(link("r1".into(), "r2".into(), b_rate, b_delay, b_queue, b_loss));
    for (i, delay) in a_delays.iter().enumerate() {
        nodes.push(NodeSpec {
            name: format!("s{i}"),
            kind: "host".into(),
            address: String::new(),
            tcbi: None,
        });
        nodes.push(NodeSpec {
            name: format!("d{i}"),
            kind: "host".into(),
            address: String::new(),
            tcbi: None,
        });
        links.push(link(format!("s{i}"), "r1".into(), a_rate, *delay, a_queue, a_loss));
        links.push(link("r2".into(), format!("d{i}"), a_rate, *delay, a_queue, a_loss));
    }
    Ok(())
}

fn expand_flow(
    i: usize,
    f: &RawFlow,
    sim: &SimSpec,
    index: &HashMap<String, usize>,
    components: &mut Components,
    out: &mut Vec<FlowSpec>,
) -> Result<(), SpecError> {
    let p = format!("flows[{i}]");
    let count = match &f.count {
        Some(v) => int_in(&format!("{p}.count"), v, 1, MAX_FLOWS)? as usize,
        None => 1,
    };
    let cc_name = f.cc.clone().unwrap_or_else(|| "newreno".into());
    let cc_params: BTreeMap<String, f64> = match &f.cc_params {
        Some(m) => m
            .iter()
            .map(|(k, v)| Ok((k.clone(), cc_param(&format!("{p}.cc_params.{k}"), k, v)?)))
            .collect::<Result<_, SpecError>>()?,
        None => BTreeMap::new(),
    };
    if let Err(m) = cc::create(&cc_name, &cc_params) {
        return err(&format!("{p}.cc"), m);
    }
    let starts: Vec<f64> = match &f.start {
        None => vec![0.0; count],
        Some(Value::Array(xs)) => {
            if xs.len() != count {
                return err(
                    &format!("{p}.start"),
                    format!(
                        "a list of {} start times was given; it must have one per flow (count = {count})",
                        xs.len()
                    ),
                );
            }
            xs.iter()
                .enumerate()
                .map(|(k, x)| time_nonneg(&format!("{p}.start[{k}]"), x))
                .collect::<Result<_, _>>()?
        }
        Some(v) => vec![time_nonneg(&format!("{p}.start"), v)?; count],
    };
    for (k, s) in starts.iter().enumerate() {
        if *s >= sim.duration {
            let path = if count > 1 {
                format!("{p}.start[{k}]")
            } else {
                format!("{p}.start")
            };
            return err(
                &path,
                format!(
                    "{s} s is not before the end of the simulation (sim.duration = {} s)",
                    sim.duration
                ),
            );
        }
    }
    let stop = match &f.stop {
        Some(v) => Some(time_nonneg(&format!("{p}.stop"), v)?),
        None => None,
    };
    let size = match &f.size {
        Some(v) => Some(int_in(&format!("{p}.size"), v, 1, MAX_FLOW_SIZE)?),
        None => None,
    };
    let mut switch = Vec::new();
    for (k, s) in f.switch.iter().enumerate() {
        let at = time_nonneg(&format!("{p}.switch[{k}].at"), &s.at)?;
        if let Err(m) = cc::create(&s.cc, &cc_params) {
            return err(&format!("{p}.switch[{k}].cc"), m);
        }
        switch.push(SwitchSpec { at, cc: s.cc.clone() });
    }
    let tcp = tcp_options(&format!("{p}.tcp"), f.tcp.as_ref())?;
    let transport = f.transport.clone().unwrap_or_else(|| "tcp".into());
    let udp_fields = f.rate.is_some() || f.rate_schedule.is_some() || f.packet.is_some();
    let udp = match transport.as_str() {
        "tcp" => {
            if udp_fields {
                return err(
                    &format!("{p}.rate"),
                    "rate, rate_schedule and packet are for transport = \"udp\" only",
                );
            }
            None
        }
        "udp" => {
            if f.size.is_some() || !f.switch.is_empty() {
                return err(&format!("{p}.transport"), "a udp flow takes no size and no switch");
            }
            Some(udp_source(&p, f)?)
        }
        other => {
            return err(
                &format!("{p}.transport"),
                format!("{other:?} is not allowed; allowed: tcp, udp"),
            )
        }
    };
    for k in 0..count {
        let subst = |s: &str| s.replace("{i}", &k.to_string());
        let src = subst(&f.src);
        let dst = subst(&f.dst);
        let (Some(&a), Some(&b)) = (index.get(&src), index.get(&dst)) else {
            let (field, name) = if index.contains_key(&src) {
                ("dst", dst)
            } else {
                ("src", src)
            };
            return err(&format!("{p}.{field}"), format!("unknown node {name:?}"));
        };
        if a == b {
            return err(
                &format!("{p}.dst"),
                format!("source and destination are the same node {src:?}"),
            );
        }
        if !components.connected(a, b) {
            return err(&format!("{p}.dst"), format!("no route from {src:?} to {dst:?}"));
        }
        let start = starts[k];
        if let Some(s) = stop {
            if s <= start {
                return err(&format!("{p}.stop"), format!("{s} s is not after the start {start} s"));
            }
        }
        let name = match &f.name {
            Some(n) if count > 1 && n.contains("{i}") => subst(n),
            Some(n) if count > 1 => format!("{n}{k}"),
            Some(n) => n.clone(),
            None => format!("flow{}", out.len()),
        };
        self::name(&format!("{p}.name"), &name)?;
        out.push(FlowSpec {
            name,
            src,
            dst,
            cc: cc_name.clone(),
            cc_params: cc_params.clone(),
            start,
            stop,
            size,
            switch: switch.clone(),
            tcp: tcp.clone(),
            transport: transport.clone(),
            packet: udp.as_ref().map(|u| u.packet),
            rate_schedule: udp.as_ref().map(|u| u.schedule.clone()),
        });
    }
    Ok(())
}

/// A distribution from `{dist = ..., <own parameters>}` or `{dist = ..., mean = ..., std = ...}`.
///
/// `max_typical`: for a distribution of times, the largest mean (or, for a Pareto without
/// a mean, the largest scale) allowed.
fn dist(path: &str, v: &Value, max_typical: Option<f64>) -> Result<Dist, SpecError> {
    let Value::Object(m) = v else {
        return err(
            path,
            format!("expected a distribution table like {{dist = \"exponential\", mean = 1.0}}, got {v}"),
        );
    };
    let kind = m.get("dist").and_then(Value::as_str).unwrap_or("");
    let by_moments = m.contains_key("std") || (m.contains_key("mean") && kind != "exponential");
    let d = if by_moments {
        for k in m.keys() {
            if !["dist", "mean", "std"].contains(&k.as_str()) {
                return err(
                    &format!("{path}.{k}"),
                    "give either mean and std, or the distribution's own parameters",
                );
            }
        }
        let mean = num(&format!("{path}.mean"), m.get("mean").unwrap_or(&Value::Null))?;
        let std = match m.get("std") {
            Some(s) => num(&format!("{path}.std"), s)?,
            None => 0.0,
        };
        Dist::from_moments(kind, mean, std).map_err(|e| SpecError(format!("{path}: {e}")))?
    } else {
        serde_json::from_value::<Dist>(v.clone()).map_err(|e| {
            SpecError(format!(
                "{path}: {e}; expected one of {{dist=\"constant\", value}}, {{dist=\"uniform\", low, high}}, \
                 {{dist=\"exponential\", mean}}, {{dist=\"pareto\", shape, scale}}, {{dist=\"lognormal\", mu, sigma}}, \
                 {{dist=\"gamma\", shape, scale}}, or mean and std"
            ))
        })?
    };
    d.validate().map_err(|e| SpecError(format!("{path}: {e}")))?;
    let params = match d {
        Dist::Constant { value } => [value, 0.0],
        Dist::Uniform { low, high } => [low, high],
        Dist::Exponential { mean } => [mean, 0.0],
        Dist::Pareto { shape, scale } | Dist::Gamma { shape, scale } => [shape, scale],
        Dist::Lognormal { mu, sigma } => [mu, sigma],
    };
    if params.iter().any(|x| !x.is_finite()) {
        return err(
            path,
            format!("{d:?} is not allowed; every parameter must be a finite number"),
        );
    }
    if let Some(max) = max_typical {
        let (what, typical) = match d {
            Dist::Pareto { scale, .. } if !d.mean().is_finite() => ("scale", scale),
            _ => ("mean", d.mean()),
        };
        if !(typical <= max) {
            return err(
                path,
                format!("{d:?} has {what} {typical:e} s; at most {max:e} s (the simulated clock's range)"),
            );
        }
    }
    Ok(d)
}

fn default_record() -> String {
    "flows".into()
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
    let count = match &g.count {
        Some(v) => int_in(&format!("{p}.count"), v, 1, MAX_GENERATORS)? as usize,
        None => 1,
    };
    if !["poisson", "closed", "sessions"].contains(&g.kind.as_str()) {
        return err(
            &format!("{p}.kind"),
            format!("{:?} is not allowed; allowed: poisson, closed, sessions", g.kind),
        );
    }
    let cc_name = g.cc.clone().unwrap_or_else(|| "newreno".into());
    let cc_params: BTreeMap<String, f64> = match &g.cc_params {
        Some(m) => m
            .iter()
            .map(|(k, v)| Ok((k.clone(), cc_param(&format!("{p}.cc_params.{k}"), k, v)?)))
            .collect::<Result<_, SpecError>>()?,
        None => BTreeMap::new(),
    };
    if let Err(m) = cc::create(&cc_name, &cc_params) {
        return err(&format!("{p}.cc"), m);
    }
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
    let size = dist(&format!("{p}.size"), &g.size, None)?;
    let size_unit = g.size_unit.clone().unwrap_or_else(|| "segments".into());
    if size_unit != "segments" && size_unit != "bytes" {
        return err(
            &format!("{p}.size_unit"),
            format!("{size_unit:?} is not allowed; allowed: segments, bytes"),
        );
    }
    let opt = |name: &str, v: &Option<Value>, max: Option<f64>| -> Result<Option<Dist>, SpecError> {
        v.as_ref().map(|v| dist(&format!("{p}.{name}"), v, max)).transpose()
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
        let subst = |s: &str| s.replace("{i}", &k.to_string());
        let (src, dst) = (subst(&g.src), subst(&g.dst));
        let (Some(&a), Some(&b)) = (index.get(&src), index.get(&dst)) else {
            let (field, name) = if index.contains_key(&src) {
                ("dst", dst)
            } else {
                ("src", src)
            };
            return err(&format!("{p}.{field}"), format!("unknown node {name:?}"));
        };
        if a == b || !components.connected(a, b) {
            return err(&format!("{p}.dst"), format!("no route from {src:?} to {dst:?}"));
        }
        let name = match &g.name {
            Some(n) if count > 1 && n.contains("{i}") => subst(n),
            Some(n) if count > 1 => format!("{n}{k}"),
            Some(n) => n.clone(),
            None => format!("gen{}", out.len()),
        };
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
            rate,
            think: think.clone(),
            session_gap: session_gap.clone(),
            pages: pages.clone(),
            reading: reading.clone(),
            max_flows,
            record: record.clone(),
        });
    }
    Ok(())
}

fn udp_source(p: &str, f: &RawFlow) -> Result<UdpSpec, SpecError> {
    let packet = match &f.packet {
        Some(v) => int_in(&format!("{p}.packet"), v, 1, MAX_PACKET)? as u32,
        None => 1000,
    };
    let mut schedule = Vec::new();
    match (&f.rate, &f.rate_schedule) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> serde_json::Value {
        serde_json::json!({
            "sim": {"duration": "10s"},
            "dumbbell": {"pairs": 2,
                "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 50},
                "access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [{"src": "s{i}", "dst": "d{i}", "count": 2}]
        })
    }

    fn parse_v(v: &serde_json::Value) -> Result<Spec, SpecError> {
        parse(&v.to_string())
    }

    #[test]
    fn dumbbell_expands() {
        let s = parse_v(&base()).unwrap();
        assert_eq!(s.nodes.len(), 6);
        assert_eq!(s.links.len(), 5);
        assert_eq!(s.flows.len(), 2);
        assert_eq!(s.flows[1].src, "s1");
        assert_eq!(s.links[0].rate, 10e6);
        assert_eq!(s.flows[0].tcp, TcpSpec::default());
    }

    #[test]
    fn normalised_spec_is_a_fixed_point() {
        let s = parse_v(&base()).unwrap();
        let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(s, again);
    }

    #[test]
    fn errors_name_the_field() {
        let mut v = base();
        v["flows"][0]["cc"] = "nosuch".into();
        let e = parse_v(&v).unwrap_err().0;
        assert!(
            e.starts_with("flows[0].cc: unknown congestion-control algorithm"),
            "{e}"
        );
        assert!(e.contains("newreno"), "{e}");

        let mut v = base();
        v["dumbbell"]["bottleneck"]["rate"] = (-5.0).into();
        let e = parse_v(&v).unwrap_err().0;
        assert!(e.starts_with("dumbbell.bottleneck.rate:"), "{e}");

        let mut v = base();
        v["dumbbell"]["bottleneck"]["queue"] = 0.into();
        assert!(parse_v(&v).unwrap_err().0.starts_with("dumbbell.bottleneck.queue:"));

        let mut v = base();
        v["flows"][0]["tcp"] = serde_json::json!({"mss": 1000, "bogus": 1});
        assert!(parse_v(&v)
            .unwrap_err()
            .0
            .starts_with("flows[0].tcp.bogus: unknown TCP option"));

        let mut v = base();
        v["flows"][0]["colour"] = "red".into();
        let e = parse_v(&v).unwrap_err().0;
        assert!(e.contains("flows[0]") && e.contains("colour"), "{e}");
    }

    #[test]
    fn udp_flows_normalise_to_a_rate_schedule() {
        let mut v = base();
        v["flows"] = serde_json::json!([
            {"src": "s0", "dst": "d0", "transport": "udp", "rate": "2Mbps", "start": 1.0},
            {"src": "s1", "dst": "d1", "transport": "udp", "packet": 500,
             "rate_schedule": [{"at": 0, "rate": 0}, {"at": "20s", "rate": "1Mbps"}]}
        ]);
        let s = parse_v(&v).unwrap();
        assert_eq!(s.flows[0].rate_schedule, Some(vec![RateStep { at: 0.0, rate: 2e6 }]));
        assert_eq!(s.flows[1].packet, Some(500));
        let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(s, again);
        v["flows"][1]["rate_schedule"][1]["at"] = 0.into();
        let e = parse_v(&v).unwrap_err().0;
        assert!(e.starts_with("flows[1].rate_schedule[1].at:"), "{e}");
        v["flows"][1]["transport"] = "sctp".into();
        assert!(parse_v(&v).unwrap_err().0.starts_with("flows[1].transport:"));
    }

    #[test]
    fn generators_normalise_distributions_and_check_their_kind() {
        let mut v = base();
        v["generators"] = serde_json::json!([
            {"kind": "sessions", "src": "s0", "dst": "d0",
             "size": {"dist": "pareto", "mean": 5000, "std": 8000}, "size_unit": "bytes",
             "session_gap": {"dist": "exponential", "mean": 30},
             "pages": {"dist": "lognormal", "mean": 5, "std": 3},
             "reading": {"dist": "gamma", "mean": 10, "std": 20}},
            {"kind": "poisson", "src": "s1", "dst": "d1", "rate": 5, "size": {"dist": "constant", "value": 100}}
        ]);
        let s = parse_v(&v).unwrap();
        assert_eq!(s.generators.len(), 2);
        assert!(matches!(s.generators[0].pages, Some(Dist::Lognormal { .. })));
        let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(s, again);
        v["generators"][1]["rate"] = serde_json::Value::Null;
        let e = parse_v(&v).unwrap_err().0;
        assert_eq!(e, "generators[1].rate: required for kind = \"poisson\"");
        v["generators"][1]["rate"] = 5.into();
        v["generators"][1]["size"] = serde_json::json!({"dist": "weibull", "mean": 1});
        let e = parse_v(&v).unwrap_err().0;
        assert!(e.starts_with("generators[1].size: unknown distribution"), "{e}");
    }

    fn lan_spec() -> serde_json::Value {
        serde_json::json!({
            "sim": {"duration": 5},
            "nodes": [{"name": "h", "address": "10.0.2.1", "tcbi": {"controller": "mv", "prefix": 24}},
                      {"name": "r", "kind": "router"}, {"name": "x"}, {"name": "y", "address": "10.0.0.3"}],
            "links": [{"a": "r", "b": "y", "rate": 1e6, "delay": 0.01}],
            "lans": [{"name": "lan1", "members": ["h", "r", "x"], "rate": "10Mb/s", "delay": 0.5e-6, "queue": 20}],
            "flows": [{"src": "h", "dst": "y"}]
        })
    }

    #[test]
    fn addresses_tcbi_and_lans_normalise() {
        let s = parse_v(&lan_spec()).unwrap();
        let addr: Vec<&str> = s.nodes.iter().map(|n| n.address.as_str()).collect();
        // defaults: 10.0.0.(i+1), skipping 10.0.0.3 which y holds
        assert_eq!(addr, ["10.0.2.1", "10.0.0.2", "10.0.0.4", "10.0.0.3"]);
        let t = s.nodes[0].tcbi.as_ref().unwrap();
        assert_eq!((t.controller.as_str(), t.prefix, &t.temporal), ("mv", 24, &None));
        assert_eq!(s.lans[0].queue, 20);
        assert_eq!(s.lans[0].rate, 10e6);
        let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(s, again);
        let mut v = lan_spec();
        v["nodes"][0]["tcbi"]["temporal"] = serde_json::json!({});
        let s = parse_v(&v).unwrap();
        let tmp = s.nodes[0].tcbi.as_ref().unwrap().temporal.clone().unwrap();
        assert_eq!((tmp.lifetime, tmp.ageing.as_str()), (600.0, "linear"));
    }

    #[test]
    fn lan_mac_defaults_to_fifo_and_stays_out_of_the_normalised_spec() {
        let s = parse_v(&lan_spec()).unwrap();
        assert_eq!(s.lans[0].mac, "fifo");
        let text = serde_json::to_string(&s).unwrap();
        assert!(
            !text.contains("\"mac\""),
            "specs without a mac keep their normalised form (and store keys)"
        );
        let mut v = lan_spec();
        v["lans"][0]["mac"] = "csma_cd".into();
        let s = parse_v(&v).unwrap();
        assert_eq!(s.lans[0].mac, "csma_cd");
        let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(s, again);
        v["lans"][0]["mac"] = "aloha".into();
        assert!(parse_v(&v).unwrap_err().0.starts_with("lans[0].mac:"));
    }

    #[test]
    fn address_tcbi_and_lan_errors_name_the_field() {
        let cases: Vec<(&str, serde_json::Value, &str)> = vec![
            ("/nodes/2/address", "10.0.2.300".into(), "nodes[2].address:"),
            ("/nodes/2/address", "10.0.2.1".into(), "nodes[2].address:"),
            ("/nodes/0/tcbi/controller", "xx".into(), "nodes[0].tcbi.controller:"),
            ("/nodes/0/tcbi/prefix", 33.into(), "nodes[0].tcbi.prefix:"),
            ("/nodes/0/tcbi/colour", 1.into(), "nodes[0].tcbi.colour:"),
            (
                "/nodes/1/tcbi",
                serde_json::json!({"controller": "mv"}),
                "nodes[1].tcbi:",
            ),
            ("/lans/0/members/2", "nosuch".into(), "lans[0].members[2]:"),
            ("/lans/0/members/2", "h".into(), "lans[0].members[2]:"),
            ("/lans/0/loss", 1.5.into(), "lans[0].loss:"),
            ("/lans/0/queue", 0.into(), "lans[0].queue:"),
        ];
        for (ptr, val, want) in cases {
            let mut v = lan_spec();
            let (parent, key) = ptr.rsplit_once('/').unwrap();
            match v.pointer_mut(parent).unwrap() {
                serde_json::Value::Array(xs) => xs[key.parse::<usize>().unwrap()] = val,
                o => o[key] = val,
            }
            let e = parse_v(&v).unwrap_err().0;
            assert!(e.starts_with(want), "{ptr}: {e}");
        }
    }

    #[test]
    fn unreachable_destination_is_rejected() {
        let v = serde_json::json!({
            "sim": {"duration": 5},
            "nodes": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
            "links": [{"a": "a", "b": "b", "rate": 1e6, "delay": 0.01}],
            "flows": [{"src": "a", "dst": "c"}]
        });
        let e = parse_v(&v).unwrap_err().0;
        assert_eq!(e, "flows[0].dst: no route from \"a\" to \"c\"");
    }
}
