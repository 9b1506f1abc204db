//! Congestion control written in Python: the simulator's counterpart of TCP KentRidge's
//! loadable module. A plug-in is a Python class with the hooks of the core's
//! `CongestionControl` trait (`init`, `on_switch_in`, `on_ack`, `on_ack_arrival`,
//! `on_congestion`, `on_recovery_ack`, `on_recovery_exit`, `on_rtt_sample`,
//! `on_packet_sent`, `on_timer`), each optional: a hook the class does not define runs the
//! trait's default (Reno's), without calling Python. [`PyCc`] holds the object and calls it
//! under the GIL; the core reaches it through its factory hook for names it does not know
//! (`cc::set_external_factory`): `python:module:Class`, `python:path/to/file.py:Class`, or a
//! name given to `tcplab.register_algorithm`. Runs without plug-ins never come here.
//!
//! A hook that raises ends the run: the failure is kept in [`FAILURE`] and the hook unwinds
//! with a [`PluginAbort`] panic, which `guarded` turns into the plug-in's one-line error.
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::cell::RefCell;
use tcplab_core::cc::{self, AckSample, CcState, CongestionControl, Params, Phase, Recovery, Signal};
use tcplab_core::engine::intern;

/// What a plug-in names when it is not loaded: the end of the core's unknown-name error.
pub const ALLOWED: &str =
    "a Python plug-in: python:MODULE:CLASS, python:PATH.py:CLASS, or a name given to tcplab.register_algorithm";

/// The state a hook reads and sets (`st`), loaded from the connection before each call and
/// written back after it. `cwnd`, `ssthresh` and `recovery_base` may be set; the others are
/// read-only. Times in seconds, windows in segments.
#[pyclass(module = "tcplab._core", name = "CcState")]
pub struct PyCcState {
    /// Simulated time, seconds.
    #[pyo3(get)]
    now: f64,
    #[pyo3(get, set)]
    cwnd: f64,
    #[pyo3(get, set)]
    ssthresh: f64,
    #[pyo3(get)]
    rwnd: f64,
    #[pyo3(get)]
    init_cwnd: f64,
    #[pyo3(get)]
    init_ssthresh: f64,
    #[pyo3(get)]
    mss: u32,
    #[pyo3(get)]
    flight: u64,
    #[pyo3(get)]
    srtt: f64,
    #[pyo3(get)]
    rttvar: f64,
    #[pyo3(get)]
    min_rtt: f64,
    #[pyo3(get, set)]
    recovery_base: f64,
    phase: Phase,
    log: Vec<(String, f64)>,
}

#[pymethods]
impl PyCcState {
    /// The backplane's phase: slow_start, congestion_avoidance, fast_recovery or
    /// timeout_recovery.
    #[getter]
    fn phase(&self) -> &'static str {
        match self.phase {
            Phase::SlowStart => "slow_start",
            Phase::CongestionAvoidance => "congestion_avoidance",
            Phase::FastRecovery => "fast_recovery",
            Phase::TimeoutRecovery => "timeout_recovery",
        }
    }

    /// The usable window in whole segments: floor(min(cwnd, rwnd)), as the core computes it.
    fn window(&self) -> f64 {
        tcplab_core::sim::floor(self.cwnd.min(self.rwnd))
    }

    /// Record an event (name, value) in the run's events table, time-stamped now.
    fn log(&mut self, name: String, value: f64) {
        self.log.push((name, value));
    }

    fn __repr__(&self) -> String {
        format!(
            "CcState(now={}, cwnd={}, ssthresh={}, phase={}, srtt={}, flight={})",
            self.now,
            self.cwnd,
            self.ssthresh,
            self.phase(),
            self.srtt,
            self.flight
        )
    }
}

impl PyCcState {
    fn new() -> PyCcState {
        PyCcState {
            now: 0.0,
            cwnd: 0.0,
            ssthresh: 0.0,
            rwnd: 0.0,
            init_cwnd: 0.0,
            init_ssthresh: 0.0,
            mss: 0,
            flight: 0,
            srtt: 0.0,
            rttvar: 0.0,
            min_rtt: 0.0,
            recovery_base: 0.0,
            phase: Phase::SlowStart,
            log: Vec::new(),
        }
    }

    fn load(&mut self, st: &CcState) {
        self.now = tcplab_core::sim::to_secs(st.now);
        self.cwnd = st.cwnd;
        self.ssthresh = st.ssthresh;
        self.rwnd = st.rwnd;
        self.init_cwnd = st.init_cwnd;
        self.init_ssthresh = st.init_ssthresh;
        self.mss = st.mss;
        self.flight = st.flight;
        self.srtt = st.srtt;
        self.rttvar = st.rttvar;
        self.min_rtt = st.min_rtt;
        self.recovery_base = st.recovery_base;
        self.phase = st.phase;
        self.log.clear();
    }

    /// Write what the hook set back into the connection; an impossible window is an error.
    fn store(&mut self, st: &mut CcState) -> Result<(), String> {
        for (field, v, ok) in [
            ("cwnd", self.cwnd, self.cwnd.is_finite() && self.cwnd > 0.0),
            ("ssthresh", self.ssthresh, self.ssthresh > 0.0),
            ("recovery_base", self.recovery_base, !self.recovery_base.is_nan()),
        ] {
            if !ok {
                return Err(format!("set st.{field} to {v}; it must be a positive number"));
            }
        }
        st.cwnd = self.cwnd;
        st.ssthresh = self.ssthresh;
        st.recovery_base = self.recovery_base;
        for (name, value) in self.log.drain(..) {
            st.log.push((intern(&name), value));
        }
        Ok(())
    }
}

/// What an arriving ACK tells the plug-in (`ack`): `acked` segments newly acknowledged
/// (0 for a duplicate), `duplicate`, and `rtt`, the RTT sample in seconds or None.
#[pyclass(module = "tcplab._core", name = "AckSample", frozen)]
pub struct PyAck {
    #[pyo3(get)]
    acked: u64,
    #[pyo3(get)]
    duplicate: bool,
    #[pyo3(get)]
    rtt: Option<f64>,
}

#[pymethods]
impl PyAck {
    fn __repr__(&self) -> String {
        format!(
            "AckSample(acked={}, duplicate={}, rtt={:?})",
            self.acked, self.duplicate, self.rtt
        )
    }
}

/// A hook failed: the one-line message and the exception (re-raised as it is when it is
/// KeyboardInterrupt).
pub struct Failure {
    pub message: String,
    pub error: PyErr,
}

thread_local! {
    /// The plug-in failure that ended the current run on this thread, if any.
    pub static FAILURE: RefCell<Option<Failure>> = const { RefCell::new(None) };
}

/// The panic payload a failing hook unwinds with.
pub struct PluginAbort;

/// The failure that ended the last run on this thread, taken.
pub fn take_failure() -> Option<Failure> {
    FAILURE.with(|f| f.borrow_mut().take())
}

/// One line: the exception's type and message.
fn describe(py: Python<'_>, e: &PyErr) -> String {
    let kind = e
        .get_type_bound(py)
        .qualname()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    let text = e.value_bound(py).str().map(|s| s.to_string()).unwrap_or_default();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        kind
    } else {
        format!("{kind}: {text}")
    }
}

const HOOKS: [&str; 10] = [
    "init",
    "on_switch_in",
    "on_ack",
    "on_ack_arrival",
    "on_congestion",
    "on_recovery_ack",
    "on_recovery_exit",
    "on_rtt_sample",
    "on_packet_sent",
    "on_timer",
];
const INIT: usize = 0;
const SWITCH_IN: usize = 1;
const ON_ACK: usize = 2;
const ACK_ARRIVAL: usize = 3;
const CONGESTION: usize = 4;
const RECOVERY_ACK: usize = 5;
const RECOVERY_EXIT: usize = 6;
const RTT_SAMPLE: usize = 7;
const PACKET_SENT: usize = 8;
const TIMER: usize = 9;

/// A Python object driving a connection's congestion control.
pub struct PyCc {
    name: &'static str,
    obj: Py<PyAny>,
    st: Py<PyCcState>,
    /// Which hooks the object defines.
    has: [bool; HOOKS.len()],
    recovery: Recovery,
    timer: Option<f64>,
}

/// The connection state a hook gets: read only, or to be written back after the call.
enum St<'a> {
    Read(&'a CcState),
    Write(&'a mut CcState),
}

impl PyCc {
    /// Call hook `h` with `st` (loaded before the call; written back after it for
    /// `St::Write`) and the further arguments `args` make. A failure ends the run (see the
    /// module doc).
    fn call<F>(&self, h: usize, mut st: St<'_>, args: F)
    where
        F: for<'py> FnOnce(Python<'py>) -> PyResult<Vec<PyObject>>,
    {
        let now = match &st {
            St::Read(s) => s.now,
            St::Write(s) => s.now,
        };
        let result = Python::with_gil(|py| -> Result<(), (PyErr, Option<String>)> {
            {
                let view: &CcState = match &st {
                    St::Read(s) => s,
                    St::Write(s) => s,
                };
                self.st.bind(py).borrow_mut().load(view);
            }
            let mut call_args = vec![self.st.clone_ref(py).into_any()];
            call_args.extend(args(py).map_err(|e| (e, None))?);
            let tuple = PyTuple::new_bound(py, call_args);
            self.obj.bind(py).call_method1(HOOKS[h], tuple).map_err(|e| (e, None))?;
            if let St::Write(out) = &mut st {
                self.st
                    .bind(py)
                    .borrow_mut()
                    .store(out)
                    .map_err(|m| (pyo3::exceptions::PyValueError::new_err(m.clone()), Some(m)))?;
            }
            Ok(())
        });
        if let Err((error, own)) = result {
            let what = own.unwrap_or_else(|| Python::with_gil(|py| format!("raised {}", describe(py, &error))));
            let message = format!(
                "plug-in {:?} {what} in {} (at simulated time {:.6} s)",
                self.name,
                HOOKS[h],
                tcplab_core::sim::to_secs(now)
            );
            FAILURE.with(|f| *f.borrow_mut() = Some(Failure { message, error }));
            std::panic::panic_any(PluginAbort);
        }
    }

    fn with_st(&self, h: usize, st: &mut CcState) {
        self.call(h, St::Write(st), |_| Ok(Vec::new()));
    }

    fn ack_arg(py: Python<'_>, ack: &AckSample) -> PyResult<PyObject> {
        let a = PyAck {
            acked: ack.acked,
            duplicate: ack.duplicate,
            rtt: ack.rtt,
        };
        Ok(Py::new(py, a)?.into_any())
    }
}

fn signal_name(s: Signal) -> &'static str {
    match s {
        Signal::DupAcks => "dupacks",
        Signal::Timeout => "timeout",
        Signal::Ecn => "ecn",
        Signal::Explicit => "explicit",
    }
}

impl CongestionControl for PyCc {
    fn name(&self) -> &'static str {
        self.name
    }

    fn recovery(&self) -> Recovery {
        self.recovery
    }

    fn init(&mut self, st: &mut CcState) {
        if self.has[INIT] {
            self.with_st(INIT, st);
        } else {
            st.cwnd = st.init_cwnd;
            st.ssthresh = st.init_ssthresh;
        }
    }

    fn on_switch_in(&mut self, st: &mut CcState) {
        if self.has[SWITCH_IN] {
            self.with_st(SWITCH_IN, st);
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if !self.has[ON_ACK] {
            return cc::reno_increase(st, ack);
        }
        self.call(ON_ACK, St::Write(st), |py| Ok(vec![PyCc::ack_arg(py, ack)?]));
    }

    fn on_ack_arrival(&mut self, st: &CcState, ack: &AckSample) {
        if self.has[ACK_ARRIVAL] {
            self.call(ACK_ARRIVAL, St::Read(st), |py| Ok(vec![PyCc::ack_arg(py, ack)?]));
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        if !self.has[CONGESTION] {
            return cc::halve(st, signal);
        }
        self.call(CONGESTION, St::Write(st), |py| {
            Ok(vec![signal_name(signal).into_py(py)])
        });
    }

    fn on_recovery_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if self.has[RECOVERY_ACK] {
            self.call(RECOVERY_ACK, St::Write(st), |py| Ok(vec![PyCc::ack_arg(py, ack)?]));
        }
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        if self.has[RECOVERY_EXIT] {
            self.with_st(RECOVERY_EXIT, st);
        } else {
            st.cwnd = st.recovery_base;
        }
    }

    fn on_rtt_sample(&mut self, st: &CcState, rtt: f64) {
        if self.has[RTT_SAMPLE] {
            self.call(RTT_SAMPLE, St::Read(st), |py| Ok(vec![rtt.into_py(py)]));
        }
    }

    fn on_packet_sent(&mut self, st: &CcState, seq: u64, retransmission: bool) {
        if self.has[PACKET_SENT] {
            self.call(PACKET_SENT, St::Read(st), |py| {
                Ok(vec![seq.into_py(py), retransmission.into_py(py)])
            });
        }
    }

    fn timer_interval(&self) -> Option<f64> {
        self.timer
    }

    fn on_timer(&mut self, st: &mut CcState) {
        if self.has[TIMER] {
            self.with_st(TIMER, st);
        }
    }
}

/// The core's factory hook: a plug-in for `name`, `None` when `name` is not a plug-in's.
pub fn factory(name: &str, params: &Params) -> Option<Result<Box<dyn CongestionControl>, String>> {
    Python::with_gil(|py| {
        let resolved = py
            .import_bound("tcplab.plugins")
            .and_then(|m| m.call_method1("_resolve", (name,)));
        let class = match resolved {
            Ok(c) if c.is_none() => return None,
            Ok(c) => c,
            Err(e) => return Some(Err(format!("plug-in {name:?}: {}", plain(py, &e)))),
        };
        Some(make(py, name, &class, params))
    })
}

/// The message of an error the loader raised on purpose (PluginLoadError), or the type and
/// message of any other.
fn plain(py: Python<'_>, e: &PyErr) -> String {
    let ours = py
        .import_bound("tcplab.plugins")
        .and_then(|m| m.getattr("PluginLoadError"))
        .is_ok_and(|t| e.get_type_bound(py).is(&t));
    if ours {
        e.value_bound(py).str().map(|s| s.to_string()).unwrap_or_default()
    } else {
        describe(py, e)
    }
}

fn make(
    py: Python<'_>,
    name: &str,
    class: &Bound<'_, PyAny>,
    params: &Params,
) -> Result<Box<dyn CongestionControl>, String> {
    let kwargs = PyDict::new_bound(py);
    for (k, v) in params {
        kwargs.set_item(k, v).map_err(|e| describe(py, &e))?;
    }
    let obj = class.call((), Some(&kwargs)).map_err(|e| {
        let with = if params.is_empty() {
            String::new()
        } else {
            format!(" with cc_params {params:?}")
        };
        format!("plug-in {name:?} could not be created{with}: {}", describe(py, &e))
    })?;
    let mut has = [false; HOOKS.len()];
    for (i, h) in HOOKS.iter().enumerate() {
        has[i] = obj.getattr(*h).is_ok_and(|m| m.is_callable());
    }
    let recovery = match obj.getattr("recovery") {
        Err(_) => Recovery::NewReno,
        Ok(r) => match r.extract::<String>().as_deref() {
            Ok("newreno") => Recovery::NewReno,
            Ok("reno") => Recovery::Reno,
            Ok("none") => Recovery::None,
            _ => {
                return Err(format!(
                    "plug-in {name:?}: recovery = {} is not allowed; allowed: \"newreno\", \"reno\", \"none\"",
                    r.repr().map(|s| s.to_string()).unwrap_or_default()
                ))
            }
        },
    };
    let timer = match obj.getattr("timer_interval") {
        Err(_) => None,
        Ok(t) if t.is_none() => None,
        Ok(t) => match t.extract::<f64>() {
            Ok(v) if v > 0.0 && v.is_finite() => Some(v),
            _ => {
                return Err(format!(
                "plug-in {name:?}: timer_interval = {} is not allowed; must be None or a positive number of seconds",
                t.repr().map(|s| s.to_string()).unwrap_or_default()
            ))
            }
        },
    };
    if timer.is_some() && !has[TIMER] {
        return Err(format!(
            "plug-in {name:?}: timer_interval is set but there is no on_timer hook"
        ));
    }
    let st = Py::new(py, PyCcState::new()).map_err(|e| describe(py, &e))?;
    Ok(Box::new(PyCc {
        name: intern(name),
        obj: obj.unbind(),
        st,
        has,
        recovery,
        timer,
    }))
}
