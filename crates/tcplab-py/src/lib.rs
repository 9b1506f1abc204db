//! The Python extension `tcplab._core`: thin bindings over `tcplab_core::api`.
#![allow(unexpected_cfgs)] // pyo3 0.22 macros test a cfg this crate does not declare
mod parquet_output;
mod plugin;

use parquet_output::PreviewRequest;
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Once;
use tcplab_core::api::{self, Column, Table};

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "The scenario is invalid; the message names the field."
);
create_exception!(
    _core,
    PluginError,
    ScenarioError,
    "A Python congestion-control plug-in failed; the message names it, the hook and the exception."
);
create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "The simulation failed internally (a bug in tcplab)."
);

fn to_py_err(e: api::Error) -> PyErr {
    // A plug-in's failure ended the run: its own error (KeyboardInterrupt as it is).
    if let Some(f) = plugin::take_failure() {
        PLUGIN_FAILED.with(|c| c.set(true));
        return Python::with_gil(|py| {
            if f.error.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                f.error
            } else {
                PluginError::new_err(f.message)
            }
        });
    }
    match e {
        api::Error::Scenario(m) => ScenarioError::new_err(m),
        api::Error::Simulation(m) => SimulationError::new_err(m),
    }
}

thread_local! {
    /// Set when a plug-in's failure (which stops the world in the middle of an event) was
    /// reported on this thread; a stepped session reads and clears it.
    static PLUGIN_FAILED: Cell<bool> = const { Cell::new(false) };
    /// True while this thread runs inside `guarded`: a panic there is reported through the
    /// Python exception, so the panic hook stays silent.
    static IN_GUARD: Cell<bool> = const { Cell::new(false) };
    /// Where the last guarded panic happened (file:line), for the exception's message.
    static PANIC_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Install (once per process) a panic hook that keeps Rust's panic text off the terminal
/// for panics `guarded` catches; every other panic goes to the previous hook as before.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_GUARD.with(Cell::get) {
                let at = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
                PANIC_LOCATION.with(|p| *p.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
}

/// Run `f` and turn a Rust panic into a `SimulationError` (with the panic's message and
/// location) instead of aborting Python or printing to stderr.
fn guarded<T>(f: impl FnOnce() -> Result<T, api::Error> + std::panic::UnwindSafe) -> Result<T, api::Error> {
    let outer = IN_GUARD.with(|g| g.replace(true));
    let result = std::panic::catch_unwind(f);
    IN_GUARD.with(|g| g.set(outer));
    match result {
        Ok(r) => r,
        Err(payload) if payload.is::<plugin::PluginAbort>() => {
            PANIC_LOCATION.with(|p| p.borrow_mut().take());
            Err(api::Error::Scenario("a plug-in failed".into()))
        }
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            let at = PANIC_LOCATION
                .with(|p| p.borrow_mut().take())
                .map_or(String::new(), |l| format!(" (at {l})"));
            Err(api::Error::Simulation(format!(
                "panic in the simulator core: {msg}{at}"
            )))
        }
    }
}

/// A numpy array of `values` (native byte order), made by one copy into a `bytearray` that
/// `numpy.frombuffer` then views, so the array is writable and owns its memory via the buffer.
fn numpy_array<'py, T: Copy>(np: &Bound<'py, PyModule>, values: &[T], dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: T is f64 or u64 (plain old data without padding); the slice is viewed as bytes.
    let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr() as *const u8, std::mem::size_of_val(values)) };
    let buf = PyByteArray::new_bound(np.py(), bytes);
    np.call_method1("frombuffer", (buf, np.getattr(dtype)?))
}

/// A result table as a dict: column name -> numpy array (float64 / uint64) or list of str.
///
/// Takes the table by value and frees each column as soon as it is copied, so that the
/// core's copy and Python's copy of a run's results are never both whole in memory. Equal
/// strings in a column share one Python object (the events table repeats a few names on
/// every row).
fn table_to_dict<'py>(py: Python<'py>, np: &Bound<'py, PyModule>, t: Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    for (name, col) in t.columns {
        match col {
            Column::F64(v) => d.set_item(name, numpy_array(np, &v, "float64")?)?,
            Column::U64(v) => d.set_item(name, numpy_array(np, &v, "uint64")?)?,
            Column::Str(v) => {
                let mut seen: HashMap<String, Bound<'py, PyString>> = HashMap::new();
                let list = PyList::empty_bound(py);
                for s in v {
                    let item = match seen.get(&s) {
                        Some(o) => o.clone(),
                        None => {
                            let o = PyString::new_bound(py, &s);
                            seen.insert(s, o.clone());
                            o
                        }
                    };
                    list.append(item)?;
                }
                d.set_item(name, list)?
            }
        }
    }
    Ok(d)
}

/// The names of a run's tables, in the order they are returned.
const TABLES: [&str; 9] = [
    "flows",
    "links",
    "flow_ts",
    "link_ts",
    "events",
    "lans",
    "parallel_intervals",
    "generators",
    "drops",
];

/// Run one simulation (optionally bounded by `wall_limit` seconds of wall-clock time).
///
/// Returns a dict with the tables `flows`, `links`, `flow_ts`, `link_ts`, `events`, `lans`,
/// `parallel_intervals`, `generators`, `drops`, `pcaps` (name -> pcap bytes) and `summary` (a dict;
/// its `spec` is the normalised spec, or, when that is over 1 MiB as JSON, `spec_input` is
/// the spec as given, with `spec_sizes` and `spec_omitted`).
///
/// With `output="numpy"` each table is a dict of column name -> numpy array (float64 /
/// uint64) or list of str. With `output="parquet"` each table is the bytes of a Parquet
/// file (numpy is not imported), and the dict also holds `rows` (table name -> number of
/// rows) and `previews`: for each table named in `previews` (name -> `(limit, busiest)`),
/// the rows a short view shows, `{"limit", "busiest", "columns", "rows": [{column: value}],
/// "more"}`: the first `limit` rows, or, when `busiest` names a column, the `limit` rows
/// with its largest positive values (earlier rows first among equal values) in table order;
/// `more` counts the rows left out (of those with a positive value, for `busiest`).
///
/// `progress`, if given, is called about once per wall-clock second (during the set-up at
/// simulated time 0, then during the run) as
/// `progress(simulated_now, simulated_end, events)`; if it raises, or a signal such as
/// Ctrl-C arrives, the run stops and the exception propagates.
#[pyfunction]
#[pyo3(signature = (spec_json, seed, wall_limit=None, progress=None, output="numpy", previews=None))]
fn run(
    py: Python<'_>,
    spec_json: String,
    seed: u64,
    wall_limit: Option<f64>,
    progress: Option<PyObject>,
    output: &str,
    previews: Option<HashMap<String, PreviewRequest>>,
) -> PyResult<Py<PyDict>> {
    let previews = previews.unwrap_or_default();
    let parquet = output_kind(output, &previews)?;
    let out = drive(py, &progress, |report| {
        api::run_with_progress(&spec_json, seed, wall_limit, Some(report))
    })?;
    output_dict(py, out, parquet, &previews)
}

/// Run `work` without the GIL, guarded, with a progress reporter that checks for signals
/// (Ctrl-C) and calls `progress`; an exception of either, or a plug-in's failure, is
/// what the call raises.
fn drive<T: Send>(
    py: Python<'_>,
    progress: &Option<PyObject>,
    work: impl FnOnce(&mut dyn FnMut(f64, f64, u64) -> bool) -> Result<T, api::Error> + Send,
) -> PyResult<T> {
    let mut raised: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        guarded(std::panic::AssertUnwindSafe(|| {
            let mut report = |now: f64, end: f64, events: u64| -> bool {
                Python::with_gil(|py| {
                    let outcome = py.check_signals().and_then(|_| match progress {
                        Some(cb) => cb.call1(py, (now, end, events)).map(|_| ()),
                        None => Ok(()),
                    });
                    match outcome {
                        Ok(()) => true,
                        Err(e) => {
                            raised = Some(e);
                            false
                        }
                    }
                })
            };
            work(&mut report)
        }))
    });
    if let Some(e) = raised {
        plugin::take_failure();
        return Err(e);
    }
    result.map_err(to_py_err)
}

/// Parse `output` and `previews` as `run` takes them.
fn output_kind(output: &str, previews: &HashMap<String, PreviewRequest>) -> PyResult<bool> {
    let parquet = match output {
        "numpy" => false,
        "parquet" => true,
        _ => {
            return Err(PyValueError::new_err(format!(
                "output: {output:?}; allowed: numpy, parquet"
            )))
        }
    };
    if let Some(name) = previews.keys().find(|n| !TABLES.contains(&n.as_str())) {
        return Err(PyValueError::new_err(format!("previews: no table {name:?}")));
    }
    if !parquet && !previews.is_empty() {
        return Err(PyValueError::new_err("previews: only with output=\"parquet\""));
    }
    Ok(parquet)
}

/// A run's output as the dict `run` returns.
fn output_dict(
    py: Python<'_>,
    out: api::RunOutput,
    parquet: bool,
    previews: &HashMap<String, PreviewRequest>,
) -> PyResult<Py<PyDict>> {
    let api::RunOutput {
        flows,
        links,
        flow_ts,
        link_ts,
        events,
        lans,
        parallel_intervals,
        generators,
        drops,
        pcaps,
        summary_json,
    } = out;
    let tables = [
        flows,
        links,
        flow_ts,
        link_ts,
        events,
        lans,
        parallel_intervals,
        generators,
        drops,
    ];
    let d = PyDict::new_bound(py);
    if parquet {
        let rows = PyDict::new_bound(py);
        let picked = PyDict::new_bound(py);
        // Each table is freed once written, so that only one is ever in memory twice.
        for (name, table) in TABLES.into_iter().zip(tables) {
            if let Some(request) = previews.get(name) {
                picked.set_item(name, parquet_output::preview(py, &table, request)?)?;
            }
            rows.set_item(name, table.rows())?;
            d.set_item(name, parquet_output::parquet_bytes(py, &table)?)?;
        }
        d.set_item("rows", rows)?;
        d.set_item("previews", picked)?;
    } else {
        let np = py.import_bound("numpy")?;
        for (name, table) in TABLES.into_iter().zip(tables) {
            d.set_item(name, table_to_dict(py, &np, table)?)?;
        }
    }
    let py_pcaps = PyDict::new_bound(py);
    for (name, bytes) in pcaps {
        py_pcaps.set_item(name, PyBytes::new_bound(py, &bytes))?;
    }
    d.set_item("pcaps", py_pcaps)?;
    let summary = py.import_bound("json")?.call_method1("loads", (summary_json,))?;
    d.set_item("summary", summary)?;
    Ok(d.unbind())
}

/// A simulation run in steps (`tcplab.Simulation` wraps it): built like `run` builds one,
/// driven to chosen times, looked at and switched between steps, and finished into the
/// dict `run` returns. After a failure (a plug-in's, the simulation's) it is closed; after
/// an interrupt it goes on from the event it stopped at.
#[pyclass(module = "tcplab._core")]
struct Session {
    inner: Option<api::Session<'static>>,
    closed: Option<String>,
}

impl Session {
    fn live(&mut self) -> PyResult<&mut api::Session<'static>> {
        match self.inner.as_mut() {
            Some(s) => Ok(s),
            None => Err(PyRuntimeError::new_err(format!(
                "the simulation is closed ({}); start a new one",
                self.closed.as_deref().unwrap_or("finished")
            ))),
        }
    }

    /// Run `work` on the session as `drive` runs work; any failure closes the session (its
    /// world may be half-way through an event).
    fn step<T: Send>(
        &mut self,
        py: Python<'_>,
        progress: &Option<PyObject>,
        work: impl FnOnce(&mut api::Session<'static>, &mut dyn FnMut(f64, f64, u64) -> bool) -> Result<T, api::Error> + Send,
    ) -> PyResult<T> {
        let session = self.live()?;
        PLUGIN_FAILED.with(|c| c.set(false));
        let r = drive(py, progress, |report| work(session, report));
        if let Err(e) = &r {
            let mid_event = PLUGIN_FAILED.with(|c| c.replace(false));
            // Bad input changes nothing; an interrupt (Ctrl-C, a progress callback that
            // raised) stops the loop between two events, so the world can go on from there.
            let bad_input = e.is_instance_of::<ScenarioError>(py) && !e.is_instance_of::<PluginError>(py);
            let between_events = e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py)
                || (!e.is_instance_of::<ScenarioError>(py) && !e.is_instance_of::<SimulationError>(py));
            if mid_event || (!bad_input && !between_events) {
                self.inner = None;
                self.closed = Some(format!("it stopped: {}", e.value_bound(py)));
            }
        }
        r
    }
}

#[pymethods]
impl Session {
    #[new]
    #[pyo3(signature = (spec_json, seed, progress=None))]
    fn new(py: Python<'_>, spec_json: String, seed: u64, progress: Option<PyObject>) -> PyResult<Session> {
        let s = drive(py, &progress, |report| api::Session::new(spec_json, seed, Some(report)))?;
        Ok(Session {
            inner: Some(s),
            closed: None,
        })
    }

    /// Simulated seconds reached.
    #[getter]
    fn now(&mut self) -> PyResult<f64> {
        Ok(self.live()?.now())
    }

    /// The run's duration, seconds.
    #[getter]
    fn duration(&mut self) -> PyResult<f64> {
        Ok(self.live()?.duration())
    }

    /// Events processed so far.
    #[getter]
    fn events(&mut self) -> PyResult<u64> {
        Ok(self.live()?.events())
    }

    /// Run to `until` seconds (events before it; those at `until` come with the next step).
    #[pyo3(signature = (until, wall_limit=None, progress=None))]
    fn run_until(
        &mut self,
        py: Python<'_>,
        until: f64,
        wall_limit: Option<f64>,
        progress: Option<PyObject>,
    ) -> PyResult<()> {
        self.step(py, &progress, |s, report| s.run_until(until, wall_limit, Some(report)))
    }

    /// The live TCP connections: a dict of columns (numpy arrays, lists of str).
    fn connections<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let table = self.live()?.connections();
        table_to_dict(py, &py.import_bound("numpy")?, table)
    }

    /// The flow id of connection `conn` (flow name or 4-tuple `src:sport-dst:dport`).
    fn find(&mut self, conn: String) -> PyResult<u32> {
        self.live()?.find(&conn).map_err(to_py_err)
    }

    /// Switch connection `conn` (flow name or 4-tuple) to `algorithm` now: (flow id, name).
    fn switch(&mut self, py: Python<'_>, conn: String, algorithm: String) -> PyResult<(u32, &'static str)> {
        self.step(py, &None, |s, _| s.switch(&conn, &algorithm))
    }

    /// Run to the end and return what `run` returns; the session is closed after.
    #[pyo3(signature = (wall_limit=None, progress=None, output="numpy", previews=None))]
    fn finish(
        &mut self,
        py: Python<'_>,
        wall_limit: Option<f64>,
        progress: Option<PyObject>,
        output: &str,
        previews: Option<HashMap<String, PreviewRequest>>,
    ) -> PyResult<Py<PyDict>> {
        let previews = previews.unwrap_or_default();
        let parquet = output_kind(output, &previews)?;
        let session = match self.inner.take() {
            Some(s) => s,
            None => return self.live().map(|_| unreachable!()),
        };
        self.closed = Some("finished".into());
        let out = drive(py, &progress, |report| session.finish(wall_limit, Some(report)))?;
        output_dict(py, out, parquet, &previews)
    }
}

/// The bytes of a Parquet file holding `columns` (name -> `("f64" | "u64" | "str", values)`),
/// as `run(output="parquet")` writes its tables; `row_group_bytes` lowers the size at which
/// a new row group starts (for tests of the writer only).
#[pyfunction]
#[pyo3(signature = (columns, row_group_bytes=None))]
fn _parquet_table<'py>(
    py: Python<'py>,
    columns: Vec<(String, (String, Bound<'py, PyAny>))>,
    row_group_bytes: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut table = Table::default();
    for (name, (kind, values)) in columns {
        let col = match kind.as_str() {
            "f64" => Column::F64(values.extract()?),
            "u64" => Column::U64(values.extract()?),
            "str" => Column::Str(values.extract()?),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "{name}: type {kind:?}; allowed: f64, u64, str"
                )))
            }
        };
        table.columns.push((name, col));
    }
    if table.columns.iter().any(|(_, c)| c.len() != table.rows()) {
        return Err(PyValueError::new_err("columns of different lengths"));
    }
    let file = tcplab_core::observe::parquet::ParquetFile::with_row_group_bytes(
        &table,
        row_group_bytes.unwrap_or(tcplab_core::observe::parquet::ROW_GROUP_BYTES),
    );
    Ok(PyBytes::new_bound(py, &file.to_vec()))
}

/// Validate a spec and return the normalised spec as JSON.
#[pyfunction]
fn validate(py: Python<'_>, spec_json: String) -> PyResult<String> {
    py.allow_threads(move || guarded(move || api::validate(&spec_json)))
        .map_err(to_py_err)
}

/// Names of the registered congestion-control algorithms.
#[pyfunction]
fn algorithms() -> Vec<&'static str> {
    api::algorithms()
}

/// The packets a link direction loses in a run with master seed `seed`: the indices, among
/// the first `n` packets its queue admits (from 0, in order), of those lost with probability
/// `loss` on direction `dir` ("ab" or "ba") of the link between nodes `a` and `b`. For
/// replaying tcplab's losses in ns-2 (`tcplab.ns2`, `losses="tcplab"`).
#[pyfunction]
fn loss_pattern<'py>(
    py: Python<'py>,
    seed: u64,
    a: String,
    b: String,
    dir: String,
    loss: f64,
    n: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let v = py
        .allow_threads(move || guarded(move || api::loss_pattern(seed, &a, &b, &dir, loss, n)))
        .map_err(to_py_err)?;
    numpy_array(&py.import_bound("numpy")?, &v, "uint64")
}

/// Panic inside the core's guard (for tests of the panic-to-`SimulationError` path only).
#[pyfunction]
fn _panic_in_core(py: Python<'_>, message: String) -> PyResult<()> {
    py.allow_threads(move || guarded(move || -> Result<(), api::Error> { panic!("{message}") }))
        .map_err(to_py_err)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    install_panic_hook();
    // Names the core does not know may be Python plug-ins (only runs that use one come here).
    tcplab_core::cc::set_external_factory(plugin::factory, plugin::ALLOWED);
    m.add_class::<Session>()?;
    m.add_class::<plugin::PyCcState>()?;
    m.add_class::<plugin::PyAck>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(loss_pattern, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_in_core, m)?)?;
    m.add_function(wrap_pyfunction!(_parquet_table, m)?)?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type_bound::<SimulationError>())?;
    m.add("PluginError", m.py().get_type_bound::<PluginError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The sources this extension was built from: results of different builds never share a key.
    m.add(
        "__build__",
        concat!(env!("CARGO_PKG_VERSION"), "+src.", env!("TCPLAB_SOURCE_HASH")),
    )?;
    Ok(())
}
