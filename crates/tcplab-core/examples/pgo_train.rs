//! The training run of the profile-guided build (`tools/pgo-profile.sh`, docs/architecture.md,
//! "Profile-guided build"): typical scenarios through the same entry point as the Python
//! front (`api::run`), so that the compiler learns which branches the event loop takes, and
//! which code is cold. The mix is what researchers run: the thesis-era dumbbell with few
//! and many flows, with and without time series; SACK, CUBIC, RED with ECN and pacing; short
//! flows from a generator; a lossy path. It takes a few seconds instrumented.
//!
//! `cargo run --release --example pgo_train` (normally only under the profile-generating
//! build, where it writes the raw profiles).
use serde_json::json;

fn dumbbell(flows: u32, secs: f64, sample: f64, cc: &str, tcp: serde_json::Value) -> serde_json::Value {
    json!({
        "sim": {"duration": secs, "sample_interval": sample},
        "dumbbell": {"pairs": flows,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 100},
            "access": {"rate": "100Mbps", "delay": "1ms", "queue": 1000}},
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": flows, "cc": cc, "tcp": tcp}]
    })
}

fn main() {
    let mss = json!({"mss": 1000});
    let scenarios = [
        dumbbell(1, 200.0, 0.0, "newreno", mss.clone()),
        dumbbell(10, 100.0, 0.1, "newreno", mss.clone()),
        dumbbell(100, 100.0, 0.0, "newreno", mss.clone()),
        dumbbell(1000, 20.0, 0.0, "newreno", mss),
        dumbbell(8, 60.0, 0.1, "westwood_be", json!({"delayed_ack": true})),
        json!({
            "sim": {"duration": 60.0, "sample_interval": 0.1},
            "dumbbell": {"pairs": 4,
                "bottleneck": {"rate": "100Mbps", "delay": "10ms",
                    "queue": {"type": "red", "limit": 400, "min_th": 20, "max_th": 60, "ecn": true}},
                "access": {"rate": "1Gbps", "delay": ["1ms", "5ms", "10ms", "20ms"], "queue": 2000}},
            "flows": [
                {"src": "s{i}", "dst": "d{i}", "count": 2, "cc": "cubic", "tcp": {"sack": true, "ecn": true}},
                {"src": "s2", "dst": "d2", "cc": "fast", "tcp": {"sack": true}},
                {"src": "s3", "dst": "d3", "cc": "bbr", "tcp": {"sack": true}}
            ]
        }),
        json!({
            "sim": {"duration": 60.0, "sample_interval": 1.0},
            "dumbbell": {"pairs": 2,
                "bottleneck": {"rate": "8Mbps", "delay": "15ms", "queue": 25, "loss": 0.001},
                "access": {"rate": "100Mbps", "delay": "2ms"}},
            "generators": [{"name": "web{i}", "kind": "poisson", "src": "s{i}", "dst": "d{i}", "count": 2,
                "rate": 20.0, "size": {"dist": "pareto", "shape": 1.2, "scale": 8},
                "tcp": {"handshake": true, "delayed_ack": true}}]
        }),
    ];
    for (i, spec) in scenarios.iter().enumerate() {
        let out = tcplab_core::api::run(&spec.to_string(), 1 + i as u64).expect("a training scenario runs");
        let s: serde_json::Value = serde_json::from_str(&out.summary_json).expect("a summary");
        println!("training scenario {i}: {} events", s["events"]);
    }
}
