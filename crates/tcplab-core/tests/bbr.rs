//! End-to-end checks of BBR v1 (cc/bbr.rs) and the delivery-rate sampling it uses
//! (tcp/sender/rate.rs).
use serde_json::{json, Value};
use tcplab_core::api::{self, RunOutput};

/// N flows of `cc` on a 10 Mb/s dumbbell with a base RTT of 2·(16 + 2·2) = 40 ms and a
/// DropTail bottleneck buffer of `limit` packets.
fn dumbbell(cc: &str, params: Value, n: u32, limit: u32, duration: f64) -> String {
    json!({
        "sim": {"duration": duration, "sample_interval": 0.1},
        "dumbbell": {"pairs": n,
            "bottleneck": {"rate": "10Mbps", "delay": "16ms",
                           "queue": {"type": "droptail", "limit": limit}},
            "access": {"rate": "100Mbps", "delay": "2ms", "queue": 1000}},
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": n, "cc": cc, "cc_params": params}]
    })
    .to_string()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn bottleneck_queue(out: &RunOutput, from: f64) -> Vec<f64> {
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

fn flow_series(out: &RunOutput, f: usize, name: &str, from: f64) -> Vec<f64> {
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

#[test]
fn explore() {
    let out = api::run(&dumbbell("bbr", json!({}), 1, 1000, 30.0), 1).unwrap();
    let g: f64 = out.flows.f64s("goodput_bps").iter().sum();
    let q = mean(&bottleneck_queue(&out, 5.0));
    let bw = flow_series(&out, 0, "bbr_btl_bw", 5.0);
    let rtt = flow_series(&out, 0, "bbr_min_rtt", 5.0);
    let st = flow_series(&out, 0, "bbr_state", 0.0);
    let cw = flow_series(&out, 0, "cwnd", 0.0);
    eprintln!("goodput {g} queue {q} bw {:?} rtt {:?}", &bw[bw.len()-3..], &rtt[rtt.len()-3..]);
    eprintln!("state {:?}", &st[..60]);
    eprintln!("cwnd {:?}", &cw[..60]);
    let nr = api::run(&dumbbell("newreno", json!({}), 1, 1000, 30.0), 1).unwrap();
    eprintln!("newreno goodput {} queue {}", nr.flows.f64s("goodput_bps")[0], mean(&bottleneck_queue(&nr, 5.0)));
    let two = api::run(&dumbbell("bbr", json!({}), 2, 1000, 60.0), 1).unwrap();
    eprintln!("two {:?}", two.flows.f64s("goodput_bps"));
}
