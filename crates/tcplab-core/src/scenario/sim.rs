//! The `[sim]` section: duration, sampling interval, seed and memory limit, and the bound on
//! the rows the sampled time series may hold.
use super::limits::{boolean, err, int_in, time_nonneg, time_pos, MAX_SAMPLE_ROWS};
use super::{units, Spec, SpecError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSim {
    duration: Value,
    #[serde(default)]
    sample_interval: Option<Value>,
    #[serde(default)]
    seed: Option<Value>,
    #[serde(default)]
    memory_limit: Option<Value>,
    #[serde(default)]
    drop_trace: Option<Value>,
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
    /// Record every dropped packet in the `drops` table. Left out of the normalised form
    /// when off, as `memory_limit`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drop_trace: bool,
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

pub(super) fn normalise_sim(raw: &RawSim) -> Result<SimSpec, SpecError> {
    let duration = time_pos("sim.duration", &raw.duration)?;
    let sample_interval = match &raw.sample_interval {
        Some(v) => time_nonneg("sim.sample_interval", v)?,
        None => 0.0,
    };
    let seed = match &raw.seed {
        Some(v) if !v.is_null() => int_in("sim.seed", v, 0, u64::MAX)?,
        _ => 1,
    };
    let memory_limit = match &raw.memory_limit {
        Some(v) if !v.is_null() => Some(memory_limit("sim.memory_limit", v)?),
        _ => None,
    };
    let drop_trace = match &raw.drop_trace {
        Some(v) => boolean("sim.drop_trace", v)?,
        None => false,
    };
    Ok(SimSpec {
        duration,
        sample_interval,
        seed,
        memory_limit,
        drop_trace,
    })
}

fn memory_limit(path: &str, v: &Value) -> Result<u64, SpecError> {
    let b = units::parse_size(v).map_err(|m| SpecError(format!("{path}: {m}")))?;
    const MAX: f64 = (1u64 << 62) as f64;
    if !(b.is_finite() && (1.0..=MAX).contains(&b)) {
        return err(path, format!("{v} is not allowed; must be from 1 byte to 4 EiB"));
    }
    Ok(b as u64)
}

/// The sampled time series hold one row per TCP flow (and generator) and one per link
/// direction at every sampling instant.
pub(super) fn check_samples(spec: &Spec) -> Result<(), SpecError> {
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
