//! The stable entry points used by the Python extension and the CLI.
use crate::engine::World;
use crate::scenario;
use serde_json::Value;
use std::time::Instant;

/// A column of a result table.
#[derive(Debug, Clone)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Bit-for-bit equality (NaN equals NaN), the sense in which runs are reproducible.
impl PartialEq for Column {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Column::F64(a), Column::F64(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            (Column::U64(a), Column::U64(b)) => a == b,
            (Column::Str(a), Column::Str(b)) => a == b,
            _ => false,
        }
    }
}

/// A result table: named columns of equal length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// The number of rows (0 for a table without columns).
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    /// For a short view of the table: the first `limit` rows, and how many rows follow them.
    pub fn first_rows(&self, limit: usize) -> (Vec<usize>, usize) {
        let n = self.rows();
        ((0..n.min(limit)).collect(), n.saturating_sub(limit))
    }

    /// For a short view of the busiest rows: of the rows with a positive value in the
    /// numeric column `key`, the `limit` with the largest values (the earlier row first
    /// among equal values), in table order, and how many such rows are left out. No rows
    /// when there is no such column.
    pub fn busiest_rows(&self, key: &str, limit: usize) -> (Vec<usize>, usize) {
        match self.column(key) {
            Some(Column::F64(v)) => largest_positive(v, 0.0, limit),
            Some(Column::U64(v)) => largest_positive(v, 0, limit),
            _ => (Vec::new(), 0),
        }
    }

    pub fn f64s(&self, name: &str) -> Vec<f64> {
        match self.column(name) {
            Some(Column::F64(v)) => v.clone(),
            Some(Column::U64(v)) => v.iter().map(|x| *x as f64).collect(),
            _ => Vec::new(),
        }
    }
}

fn largest_positive<T: PartialOrd + Copy>(values: &[T], zero: T, limit: usize) -> (Vec<usize>, usize) {
    let mut rows: Vec<usize> = (0..values.len()).filter(|&i| values[i] > zero).collect();
    let more = rows.len().saturating_sub(limit);
    if more > 0 {
        // A stable sort keeps table order among equal values (NaN is not positive: never here).
        rows.sort_by(|&a, &b| values[b].partial_cmp(&values[a]).expect("no NaN"));
        rows.truncate(limit);
        rows.sort_unstable();
    }
    (rows, more)
}

/// Everything one run produces.
#[derive(Debug, Clone, Default)]
pub struct RunOutput {
    pub flows: Table,
    pub links: Table,
    pub flow_ts: Table,
    pub link_ts: Table,
    /// Time-stamped per-flow events: loss reactions and algorithm decisions
    /// (`time, flow, event, value`).
    pub events: Table,
    /// Per LAN member interface: counters (`lan, member, address, rate_bps, delay,
    /// queue_limit, loss, arrivals, departures, drops_queue, drops_loss, in_system,
    /// busy_time, utilisation`).
    pub lans: Table,
    /// TCBI: every maximal interval with constant set membership and n >= 2, one row per
    /// (interval, member): `host, set, interval, t0, t1, n, flow, name, acked_bytes`.
    pub parallel_intervals: Table,
    /// One row per flow generator (created and completed flows, totals).
    pub generators: Table,
    /// With `sim.drop_trace`: one row per dropped packet (`time, hop, src, dst, reason,
    /// flow, kind, seq, size, ecn`); empty otherwise.
    pub drops: Table,
    /// Packet captures requested by the spec's `[[pcap]]` entries: (name "a-b", pcap bytes).
    pub pcaps: Vec<(String, Vec<u8>)>,
    /// JSON object: seed, duration, events, setup_seconds, loop_seconds, packets_forwarded,
    /// version, and `spec` (or, for a spec too large to embed, `spec_input`, `spec_sizes`
    /// and `spec_omitted`: see `spec_fields`).
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
    let spec = scenario::parse(spec_json).map_err(|e| Error::Scenario(e.0))?;
    serde_json::to_string(&spec).map_err(|e| Error::Simulation(e.to_string()))
}

/// Run one simulation of `spec_json` with master seed `seed`.
pub fn run(spec_json: &str, seed: u64) -> Result<RunOutput, Error> {
    run_limited(spec_json, seed, None)
}

/// Run one simulation, failing with a `Simulation` error once `wall_limit` seconds of
/// wall-clock time have passed (used by sweeps to bound a run).
pub fn run_limited(spec_json: &str, seed: u64, wall_limit: Option<f64>) -> Result<RunOutput, Error> {
    run_with_progress(spec_json, seed, wall_limit, None)
}

/// Run one simulation, reporting progress about once per wall-clock second to `progress`
/// (simulated now, simulated end, events processed; return false to interrupt the run).
pub fn run_with_progress(
    spec_json: &str,
    seed: u64,
    wall_limit: Option<f64>,
    mut progress: Option<&mut dyn FnMut(f64, f64, u64) -> bool>,
) -> Result<RunOutput, Error> {
    let setup_progress = progress
        .as_mut()
        .map(|p| &mut **p as &mut dyn FnMut(f64, f64, u64) -> bool);
    Session::new(spec_json, seed, setup_progress)?.finish(wall_limit, progress)
}

/// A simulation run in steps (the KentRidge console, `tcplab.Simulation`): the world a
/// whole run builds, driven to chosen times, looked at and changed between the steps, and
/// finished into the output a whole run gives. [`run_with_progress`] is a session run to
/// its end at once, so steps to the end give the same tables as one run, bit for bit.
pub struct Session<'s> {
    spec_json: std::borrow::Cow<'s, str>,
    world: World,
    setup_seconds: f64,
    loop_seconds: f64,
}

impl<'s> Session<'s> {
    /// Validate `spec_json` and build its world (`progress` as for [`run_with_progress`]
    /// during the set-up).
    pub fn new(
        spec_json: impl Into<std::borrow::Cow<'s, str>>,
        seed: u64,
        progress: Option<&mut dyn FnMut(f64, f64, u64) -> bool>,
    ) -> Result<Session<'s>, Error> {
        let t0 = Instant::now();
        let spec_json = spec_json.into();
        let spec = scenario::parse(&spec_json).map_err(|e| Error::Scenario(e.0))?;
        let world = World::new_observed(spec, seed, progress)?;
        Ok(Session {
            spec_json,
            world,
            setup_seconds: t0.elapsed().as_secs_f64(),
            loop_seconds: 0.0,
        })
    }

    /// Simulated seconds reached so far.
    pub fn now(&self) -> f64 {
        self.world.now_secs()
    }

    /// The run's duration (seconds).
    pub fn duration(&self) -> f64 {
        self.world.spec().sim.duration
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.world.events()
    }

    /// Run to simulated time `until` (seconds): every event before it is processed, those
    /// at `until` itself come with the next step (so a switch made now acts before them, as
    /// a scheduled one at `until` does). Time only moves forward and stops at the duration:
    /// anything else is a `Scenario` error naming `until`.
    pub fn run_until(
        &mut self,
        until: f64,
        wall_limit: Option<f64>,
        progress: Option<&mut dyn FnMut(f64, f64, u64) -> bool>,
    ) -> Result<(), Error> {
        let (now, end) = (self.now(), self.duration());
        if until.is_nan() || until < now || until > end {
            return Err(Error::Scenario(format!(
                "until: {until} s is not allowed; must be between the current time {now} s and the run's duration {end} s"
            )));
        }
        let t = Instant::now();
        let r = self.world.run_until(crate::sim::secs(until), wall_limit, progress);
        self.loop_seconds += t.elapsed().as_secs_f64();
        r.map_err(Error::Simulation)
    }

    /// The live TCP connections now, one row each (see [`World::connections`]).
    pub fn connections(&self) -> Table {
        self.world.connections()
    }

    /// The flow id of the live TCP connection `conn` (a flow name or a 4-tuple
    /// `src:sport-dst:dport`); a `Scenario` error naming `connection` otherwise.
    pub fn find(&self, conn: &str) -> Result<u32, Error> {
        self.world.find_connection(conn).map_err(Error::Scenario)
    }

    /// Switch the connection `conn` (a flow name or a 4-tuple `src:sport-dst:dport`) to
    /// algorithm `algorithm` now; returns the flow id and the algorithm's canonical name.
    /// An unknown connection or algorithm is a `Scenario` error naming the field.
    pub fn switch(&mut self, conn: &str, algorithm: &str) -> Result<(u32, &'static str), Error> {
        let f = self.world.find_connection(conn).map_err(Error::Scenario)?;
        let name = self.world.switch_connection(f, algorithm).map_err(Error::Scenario)?;
        Ok((f, name))
    }

    /// Run to the end and collect the output, as [`run_with_progress`] does.
    pub fn finish(
        mut self,
        wall_limit: Option<f64>,
        progress: Option<&mut dyn FnMut(f64, f64, u64) -> bool>,
    ) -> Result<RunOutput, Error> {
        let t1 = Instant::now();
        self.world
            .run_observed(wall_limit, progress)
            .map_err(Error::Simulation)?;
        let loop_seconds = self.loop_seconds + t1.elapsed().as_secs_f64();
        let world = self.world;
        world.check_invariants().map_err(Error::Simulation)?;
        let mut summary = serde_json::json!({
            "seed": world.seed(),
            "duration": world.spec().sim.duration,
            "events": world.events(),
            "setup_seconds": self.setup_seconds,
            "loop_seconds": loop_seconds,
            "packets_forwarded": world.packets_forwarded(),
            "version": env!("CARGO_PKG_VERSION"),
        });
        let fields = summary.as_object_mut().expect("an object");
        fields.extend(spec_fields(world.spec(), &self.spec_json)?);
        let out = world.into_output();
        Ok(RunOutput {
            flows: out.flows,
            links: out.links,
            flow_ts: out.flow_ts,
            link_ts: out.link_ts,
            events: out.events,
            lans: out.lans,
            parallel_intervals: out.parallel_intervals,
            generators: out.generators,
            drops: out.drops,
            pcaps: out.pcaps,
            summary_json: summary.to_string(),
        })
    }
}

/// Above this size (bytes of JSON) the normalised spec is not embedded in the summary.
pub const SUMMARY_SPEC_LIMIT: usize = 1 << 20;

/// The summary's description of the spec: `spec`, the normalised spec, when its JSON is at
/// most `SUMMARY_SPEC_LIMIT` bytes; otherwise (10^6 flows made it 773 MB) `spec_input`, the
/// spec as given, `spec_sizes`, the counts of the normalised spec, and `spec_omitted`, why
/// `spec` is absent.
fn spec_fields(spec: &scenario::Spec, spec_json: &str) -> Result<serde_json::Map<String, Value>, Error> {
    let internal = |e: serde_json::Error| Error::Simulation(format!("summary: {e}"));
    let mut m = serde_json::Map::new();
    if serde_json::to_writer(CountingSink::new(SUMMARY_SPEC_LIMIT), spec).is_ok() {
        m.insert("spec".into(), serde_json::to_value(spec).map_err(internal)?);
        return Ok(m);
    }
    m.insert("spec_input".into(), serde_json::from_str(spec_json).map_err(internal)?);
    m.insert(
        "spec_sizes".into(),
        serde_json::json!({
            "nodes": spec.nodes.len(),
            "links": spec.links.len(),
            "lans": spec.lans.len(),
            "flows": spec.flows.len(),
            "generators": spec.generators.len(),
        }),
    );
    m.insert(
        "spec_omitted".into(),
        format!(
            "the normalised spec is larger than {SUMMARY_SPEC_LIMIT} bytes as JSON, so it is left out; \
             spec_input is the spec as given (normalising it gives the spec back)"
        )
        .into(),
    );
    Ok(m)
}

/// An `io::Write` that keeps nothing and fails once more than `limit` bytes were written.
struct CountingSink {
    left: usize,
}

impl CountingSink {
    fn new(limit: usize) -> CountingSink {
        CountingSink { left: limit }
    }
}

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.left = self
            .left
            .checked_sub(buf.len())
            .ok_or_else(|| std::io::Error::other("over the limit"))?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Names of the registered congestion-control algorithms.
pub fn algorithms() -> Vec<&'static str> {
    crate::cc::names()
}

/// The packets the direction `dir` ("ab" or "ba") of the link between nodes `a` and `b`
/// loses in a run with master seed `seed` and loss probability `loss`: indices, among the
/// first `n` packets its queue admits, of those lost (see `net::loss_pattern`).
pub fn loss_pattern(seed: u64, a: &str, b: &str, dir: &str, loss: f64, n: u64) -> Result<Vec<u64>, Error> {
    if dir != "ab" && dir != "ba" {
        return Err(Error::Scenario(format!("dir: {dir:?}; allowed: ab, ba")));
    }
    if !(0.0..=1.0).contains(&loss) {
        return Err(Error::Scenario(format!("loss: {loss}; must be in [0, 1]")));
    }
    Ok(crate::net::loss_pattern(seed, a, b, dir, loss, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table {
            columns: vec![
                (
                    "name".into(),
                    Column::Str(["a", "b", "c", "d", "e", "f"].map(String::from).to_vec()),
                ),
                ("arrivals".into(), Column::U64(vec![5, 0, 9, 5, 7, 5])),
                ("share".into(), Column::F64(vec![0.5, f64::NAN, 0.9, 0.5, 0.7, -1.0])),
            ],
        }
    }

    #[test]
    fn first_rows_counts_the_rest() {
        assert_eq!(table().first_rows(4), (vec![0, 1, 2, 3], 2));
        assert_eq!(table().first_rows(10), ((0..6).collect(), 0));
        assert_eq!(Table::default().first_rows(3), (vec![], 0));
    }

    #[test]
    fn busiest_rows_keep_positive_rows_largest_first_earlier_on_ties_in_table_order() {
        let t = table();
        // Positive: a5 c9 d5 e7 f5; the three largest: c9, e7 and a5 (the first of the 5s).
        assert_eq!(t.busiest_rows("arrivals", 3), (vec![0, 2, 4], 2));
        assert_eq!(t.busiest_rows("arrivals", 4), (vec![0, 2, 3, 4], 1));
        assert_eq!(t.busiest_rows("arrivals", 5), (vec![0, 2, 3, 4, 5], 0));
        assert_eq!(t.busiest_rows("arrivals", 0), (vec![], 5));
        // NaN and negative values are not positive.
        assert_eq!(t.busiest_rows("share", 2), (vec![2, 4], 2));
        assert_eq!(t.busiest_rows("name", 3), (vec![], 0));
        assert_eq!(t.busiest_rows("missing", 3), (vec![], 0));
    }
}
