//! The scenario spec: the raw form read from TOML/JSON, validation, and the normalised
//! form (every default filled in, helpers expanded) that the simulator builds from.
//!
//! Each section of the spec has its own file, which owns its raw and normalised types and
//! their validation; this file reads the spec and runs the sections in order.
mod addresses;
mod capture;
mod components;
mod distribution;
mod dumbbell;
mod flows;
mod generators;
mod handoff;
mod instances;
mod kentridge;
mod lan;
pub mod limits;
mod link_changes;
pub mod memory;
mod queue;
mod reorder;
mod shape;
mod sharing;
mod sim;
mod tcp_options;
mod topology;
mod udp;
pub mod units;

#[cfg(test)]
mod tests;

pub use addresses::{format_ipv4, parse_ipv4};
pub use capture::PcapSpec;
pub use flows::{FlowCommon, FlowSpec};
pub use generators::GeneratorSpec;
pub use handoff::{HandoffEvent, HandoffSpec};
pub use lan::LanSpec;
pub use link_changes::LinkChangeSpec;
pub use queue::{CodelSpec, Discipline, FqCodelSpec, QueueSpec, RedSpec};
pub use reorder::ReorderSpec;
pub use sharing::{TcbiSpec, TemporalSpec};
pub use sim::{default_memory_limit, SimSpec, FALLBACK_MEMORY_LIMIT};
pub use tcp_options::{SwitchSpec, TcpSpec, DEFAULT_DPORT};
pub use topology::{LinkSpec, NodeSpec};
pub use udp::{RateStep, UdpSpec, VoipSpec};

use limits::{MAX_FLOWS, MAX_GENERATORS};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// A scenario error: `path: message`.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecError(pub String);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    sim: sim::RawSim,
    #[serde(default)]
    nodes: Vec<topology::RawNode>,
    #[serde(default)]
    links: Vec<topology::RawLink>,
    #[serde(default)]
    dumbbell: Option<dumbbell::RawDumbbell>,
    #[serde(default)]
    flows: Vec<flows::RawFlow>,
    #[serde(default)]
    pcap: Vec<PcapSpec>,
    #[serde(default)]
    generators: Vec<generators::RawGenerator>,
    #[serde(default)]
    lans: Vec<lan::RawLan>,
    #[serde(default)]
    link_changes: Vec<link_changes::RawLinkChange>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Spec {
    pub sim: SimSpec,
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    /// Shared with the flow records built from them.
    pub flows: Vec<Arc<FlowSpec>>,
    /// Link directions to capture into pcap files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcap: Vec<PcapSpec>,
    /// Sources that create TCP flows while the simulation runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators: Vec<GeneratorSpec>,
    /// Shared-medium LANs (Ethernet-type): one channel shared by all members.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lans: Vec<LanSpec>,
    /// Changes of link directions at given times.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_changes: Vec<LinkChangeSpec>,
}

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
    memory::check_limit(&spec)?;
    Ok(spec)
}

/// The sections in the order their errors are reported: the first error found is the one
/// returned.
fn normalise(raw: RawSpec) -> Result<Spec, SpecError> {
    let sim = sim::normalise_sim(&raw.sim)?;
    instances::check_total_count("flows", raw.flows.iter().map(|f| f.count.as_ref()), MAX_FLOWS)?;
    instances::check_total_count(
        "generators",
        raw.generators.iter().map(|g| g.count.as_ref()),
        MAX_GENERATORS,
    )?;

    let mut nodes = topology::normalise_nodes(&raw.nodes)?;
    let mut links = Vec::new();
    if let Some(d) = &raw.dumbbell {
        dumbbell::expand_dumbbell(d, &mut nodes, &mut links)?;
    }
    let index = topology::node_index(&nodes, raw.nodes.len())?;
    for (i, l) in raw.links.iter().enumerate() {
        links.push(topology::normalise_link(i, l, &index)?);
    }
    addresses::assign_addresses(&mut nodes)?;
    let lans = lan::normalise_lans(&raw.lans, &index)?;
    let mut components = topology::connectivity(nodes.len(), &index, &links, &lans);

    let flows = flows::expand_flows(&raw.flows, &sim, &index, &mut components)?;
    let flow_names = flows::unique_flow_names(&flows)?;
    let generators = generators::expand_generators(&raw.generators, &sim, &index, &mut components)?;
    generators::check_generator_names(&generators, &flow_names)?;

    capture::check_pcap(&raw.pcap, &links, &lans)?;
    let link_changes = link_changes::normalise_link_changes(&raw.link_changes, &links, &lans, sim.duration)?;
    let spec = Spec {
        sim,
        nodes,
        links,
        flows,
        pcap: raw.pcap,
        generators,
        lans,
        link_changes,
    };
    topology::check_queue_drain(&spec, spec.links.len() - raw.links.len())?;
    link_changes::check_drain(
        &spec.link_changes,
        &spec.links,
        topology::largest_packet(&spec) as f64 * 8.0,
    )?;
    sim::check_samples(&spec)?;
    Ok(spec)
}
