//! Specs and helpers shared by the validation tests.
#![allow(dead_code)]
use serde_json::{json, Value};
use tcplab_core::scenario::{parse, Spec, SpecError};

pub fn base() -> Value {
    json!({
        "sim": {"duration": "10s", "sample_interval": "100ms", "seed": 3},
        "dumbbell": {"pairs": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 50, "loss": 0.01},
            "access": {"rate": "100Mbps", "delay": ["1ms", "2ms"], "queue": 1000}},
        "flows": [
            {"name": "bulk", "src": "s{i}", "dst": "d{i}", "count": 2, "cc": "newreno",
             "start": [0, "1s"], "stop": "9s", "switch": [{"at": "5s", "cc": "reno"}],
             "tcp": {"mss": 1000, "header": 40, "ack_size": 40, "init_cwnd": 2, "init_ssthresh": 64,
                     "rwnd": 1000, "delayed_ack": true, "delack_timeout": "100ms", "delack_count": 2,
                     "dupthresh": 3, "min_rto": "200ms", "max_rto": "64s", "initial_rto": "3s",
                     "tick": "10ms", "send_jitter": "1ms"}},
            {"src": "s0", "dst": "d1", "size": 100, "cc": "rfs+esse", "cc_params": {"error": "tbe"}},
            {"src": "s1", "dst": "d0", "transport": "udp", "packet": 500,
             "rate_schedule": [{"at": 0, "rate": 0}, {"at": "2s", "rate": "1Mbps"}]}
        ],
        "generators": [
            {"name": "web", "kind": "poisson", "src": "s0", "dst": "d0", "rate": 5, "stop": "8s",
             "size": {"dist": "pareto", "mean": 5000, "std": 8000}, "size_unit": "bytes", "max_flows": 100},
            {"kind": "sessions", "src": "s1", "dst": "d1", "record": "summary",
             "size": {"dist": "constant", "value": 10},
             "session_gap": {"dist": "exponential", "mean": 3},
             "pages": {"dist": "lognormal", "mean": 5, "std": 3},
             "reading": {"dist": "gamma", "shape": 0.5, "scale": 2}}
        ],
        "pcap": [{"a": "r1", "b": "r2"}]
    })
}

pub fn lan_base() -> Value {
    json!({
        "sim": {"duration": 5, "memory_limit": "1GiB"},
        "nodes": [{"name": "h", "address": "10.0.2.1",
                   "tcbi": {"controller": "fs", "prefix": 24, "temporal": {"lifetime": "600s", "ageing": "linear"}}},
                  {"name": "r", "kind": "router"}, {"name": "x"}, {"name": "y", "address": "10.0.0.3"}],
        "links": [{"a": "r", "b": "y", "rate": 1e6, "delay": 0.01, "queue_ab": 10, "queue_ba": 20,
                   "loss_ab": 0.01, "cost": 2, "cost_ba": 3}],
        "lans": [{"name": "lan1", "members": ["h", "r", "x"], "rate": "10Mb/s", "delay": 0.5e-6,
                  "queue": 20, "loss": 0.001}],
        "flows": [{"src": "h", "dst": "y", "tcp": {"timestamps": true, "handshake": true}}],
        "generators": [{"kind": "closed", "src": "x", "dst": "y", "think": {"dist": "uniform", "low": 0, "high": 2},
                        "size": {"dist": "exponential", "mean": 20}}],
        "pcap": [{"a": "h", "b": "x"}]
    })
}

pub fn parse_v(v: &Value) -> Result<Spec, SpecError> {
    parse(&v.to_string())
}

pub fn error(v: &Value) -> String {
    parse_v(v).expect_err("the spec should be refused").0
}

/// Set the value at a JSON pointer (creating the last key).
pub fn set(v: &mut Value, ptr: &str, val: Value) {
    let (parent, key) = ptr.rsplit_once('/').unwrap();
    match v.pointer_mut(parent).unwrap() {
        Value::Array(xs) => xs[key.parse::<usize>().unwrap()] = val,
        Value::Object(o) => {
            o.insert(key.to_string(), val);
        }
        _ => panic!("{ptr}: parent is not a container"),
    }
}

pub fn with(ptr: &str, val: Value) -> Value {
    let mut v = base();
    set(&mut v, ptr, val);
    v
}

pub fn assert_refused(v: &Value, field: &str, words: &[&str]) {
    let e = error(v);
    assert!(
        e.starts_with(&format!("{field}: ")),
        "expected an error on {field}, got: {e}"
    );
    for w in words {
        assert!(e.contains(w), "{field}: {e:?} does not say {w:?}");
    }
}
