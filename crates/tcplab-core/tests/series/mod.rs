//! Reading a run's time series in the end-to-end tests of the algorithms (bbr.rs,
//! delay_based.rs).
use tcplab_core::api::RunOutput;

pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The bottleneck's (link direction 0) queue samples after `from` seconds.
pub fn bottleneck_queue(out: &RunOutput, from: f64) -> Vec<f64> {
    let (t, l, q) = (
        out.link_ts.f64s("time"),
        out.link_ts.f64s("link"),
        out.link_ts.f64s("queue"),
    );
    (0..t.len())
        .filter(|&i| l[i] == 0.0 && t[i] >= from)
        .map(|i| q[i])
        .collect()
}

/// Flow `f`'s values of flow_ts column `name` after `from` seconds.
pub fn flow_series(out: &RunOutput, f: usize, name: &str, from: f64) -> Vec<f64> {
    let (t, fl, v) = (
        out.flow_ts.f64s("time"),
        out.flow_ts.f64s("flow"),
        out.flow_ts.f64s(name),
    );
    assert!(!v.is_empty(), "no column {name}");
    (0..t.len())
        .filter(|&i| fl[i] == f as f64 && t[i] >= from)
        .map(|i| v[i])
        .collect()
}
