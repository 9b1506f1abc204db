//! The Python extension `tcplab._core`: thin bindings over `tcplab_core::api`.
#![allow(unexpected_cfgs)] // pyo3 0.22 macros test a cfg this crate does not declare
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use tcplab_core::api::{self, Column, Table};

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "The scenario is invalid; the message names the field."
);
create_exception!(
    _core,
    SimulationError,
    PyRuntimeError,
    "The simulation failed internally (a bug in tcplab)."
);

fn to_py_err(e: api::Error) -> PyErr {
    match e {
        api::Error::Scenario(m) => ScenarioError::new_err(m),
        api::Error::Simulation(m) => SimulationError::new_err(m),
    }
}

/// Run `f` and turn a Rust panic into a `SimulationError` instead of aborting Python.
fn guarded<T>(f: impl FnOnce() -> Result<T, api::Error> + std::panic::UnwindSafe) -> Result<T, api::Error> {
    match std::panic::catch_unwind(f) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(api::Error::Simulation(format!("panic in the simulator core: {msg}")))
        }
    }
}

fn table_to_dict<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    for (name, col) in &t.columns {
        match col {
            Column::F64(v) => d.set_item(name, PyList::new_bound(py, v))?,
            Column::U64(v) => d.set_item(name, PyList::new_bound(py, v))?,
            Column::Str(v) => d.set_item(name, PyList::new_bound(py, v))?,
        }
    }
    Ok(d)
}

/// Run one simulation (optionally bounded by `wall_limit` seconds of wall-clock time). Returns a dict of tables (each a dict of column lists), `pcaps`
/// (name -> bytes) and `summary_json`.
#[pyfunction]
#[pyo3(signature = (spec_json, seed, wall_limit=None))]
fn run(py: Python<'_>, spec_json: String, seed: u64, wall_limit: Option<f64>) -> PyResult<Py<PyDict>> {
    let out = py
        .allow_threads(move || guarded(move || api::run_limited(&spec_json, seed, wall_limit)))
        .map_err(to_py_err)?;
    let d = PyDict::new_bound(py);
    d.set_item("flows", table_to_dict(py, &out.flows)?)?;
    d.set_item("links", table_to_dict(py, &out.links)?)?;
    d.set_item("flow_ts", table_to_dict(py, &out.flow_ts)?)?;
    d.set_item("link_ts", table_to_dict(py, &out.link_ts)?)?;
    d.set_item("events", table_to_dict(py, &out.events)?)?;
    let pcaps = PyDict::new_bound(py);
    for (name, bytes) in &out.pcaps {
        pcaps.set_item(name, PyBytes::new_bound(py, bytes))?;
    }
    d.set_item("pcaps", pcaps)?;
    d.set_item("summary_json", out.summary_json)?;
    Ok(d.unbind())
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

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type_bound::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
