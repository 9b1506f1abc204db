//! The stable entry points used by the Python extension and the CLI.

/// A column of a result table.
#[derive(Debug, Clone)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    Str(Vec<String>),
}

/// A result table: named columns of equal length.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

/// Everything one run produces.
#[derive(Debug, Clone, Default)]
pub struct RunOutput {
    pub flows: Table,
    pub links: Table,
    pub flow_ts: Table,
    pub link_ts: Table,
    /// JSON object: seed, duration, events, setup_seconds, loop_seconds, packets_forwarded, spec.
    pub summary_json: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The scenario is invalid; the message names the field path, the value and what is allowed.
    Scenario(String),
    /// The simulation failed internally (a bug); the message says where.
    Simulation(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Scenario(m) => write!(f, "{m}"),
            Error::Simulation(m) => write!(f, "internal simulation error: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// Validate and normalise a spec; returns the normalised spec as JSON.
pub fn validate(spec_json: &str) -> Result<String, Error> {
    let _ = spec_json;
    Err(Error::Simulation("not implemented yet".into()))
}

/// Run one simulation of `spec_json` with master seed `seed`.
pub fn run(spec_json: &str, seed: u64) -> Result<RunOutput, Error> {
    let _ = (spec_json, seed);
    Err(Error::Simulation("not implemented yet".into()))
}

/// Names of the registered congestion-control algorithms.
pub fn algorithms() -> Vec<&'static str> {
    vec!["tahoe", "reno", "newreno"]
}
