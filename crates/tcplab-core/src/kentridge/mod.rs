//! TCP KentRidge (thesis ch. 4, docs/kentridge.md): on top of the DC-TCP backplane
//! (`tcp/sender`, whose slices update [`Stats`]) and its switchable elements (`cc/`),
//!
//! - `stats.rs`: the passive per-connection statistics the slices keep;
//! - `npc.rs`: network pipe classification, the eleven rules of Fig. 4.5 with watermarks
//!   and an order of precedence;
//! - `kb.rs`: the knowledge base, a CSV file of adaptations;
//! - `agent.rs`: the intelligent agent that picks an adaptation on a pipe-type change;
//! - `expectations.rs`: the application's expectations, given or inferred from the port;
//! - `platform.rs`: the platform's constraints (CPU, memory, power) and the costs they
//!   penalise.
//!
//! A flow without a `kentridge` table has none of it: no statistics box, no timer, no
//! column.
pub mod agent;
pub mod expectations;
pub mod kb;
pub mod npc;
pub mod platform;
pub mod stats;

pub use agent::Decision;
pub use kb::KbRow;
pub use npc::{Npc, PipeType, Reading, Thresholds};
pub use platform::Platform;
pub use stats::Stats;

use crate::sim::Time;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A flow's `kentridge` table, validated (the knowledge base read in).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KentRidgeSpec {
    /// Seconds between periodic classifications.
    pub interval: f64,
    pub thresholds: Thresholds,
    /// Pipe types by precedence, first wins.
    pub precedence: Vec<String>,
    /// What the application expects (terms of the knowledge base's advantages and
    /// shortcomings).
    pub expectations: Vec<String>,
    /// Destination port → expectations, used when `expectations` is empty; `None`: the
    /// built-in map (`expectations::BUILTIN_PORT_EXPECTATIONS`), empty: no inference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port_expectations: Option<BTreeMap<u16, Vec<String>>>,
    /// The platform's constraints; `None`: none, and the rows' platform costs are dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// Where the knowledge base came from ("builtin" or the file's path).
    pub kb_source: String,
    pub kb: Vec<KbRow>,
}

impl KentRidgeSpec {
    pub fn precedence_types(&self) -> Vec<PipeType> {
        self.precedence.iter().filter_map(|p| PipeType::parse(p).ok()).collect()
    }
}

/// An event of the classifier or the agent, for the run's events table.
#[derive(Debug, Clone, PartialEq)]
pub struct KrEvent {
    pub time: Time,
    /// "pipe_type" (value: the rule number), "kr_switch", "kr_keep", "kr_no_adaptation"
    /// (value: the rule number of the pipe type decided on).
    pub name: &'static str,
    pub value: f64,
    pub detail: String,
}

/// The classifier and the agent's record of one connection (the statistics live in the
/// sender, where the slices update them).
#[derive(Debug, Clone)]
pub struct KentRidge {
    pub npc: Npc,
    pub events: Vec<KrEvent>,
    /// Classifications done (periodic and immediate).
    pub classifications: u64,
    /// The parameters of the running algorithm (the flow's `cc_params`, then the chosen
    /// row's).
    pub running_params: crate::cc::Params,
    /// The options the chosen row turned on (`options` of the knowledge base; none before
    /// the first switch).
    pub running_options: Vec<String>,
}

impl KentRidge {
    pub fn new(spec: &KentRidgeSpec, cc_params: &crate::cc::Params) -> KentRidge {
        KentRidge {
            npc: Npc::new(spec.thresholds.clone(), spec.precedence_types()),
            events: Vec::new(),
            classifications: 0,
            running_params: cc_params.clone(),
            running_options: Vec::new(),
        }
    }
}

/// The peer capabilities a flow offers to the knowledge base's `capabilities` column.
pub fn peer_capabilities(tcp: &crate::scenario::TcpSpec, mobile: bool) -> Vec<&'static str> {
    let mut c = Vec::new();
    if tcp.sack {
        c.push("sack");
    }
    if tcp.timestamps {
        c.push("timestamps");
    }
    if tcp.sack && tcp.dsack {
        c.push("dsack");
    }
    if tcp.ecn {
        c.push("ecn");
    }
    if mobile {
        c.push("tcp_ho");
    }
    c
}
