//! Time one run of the core alone, without Python:
//!   `cargo run --release --example dumbbell -- FLOWS SECONDS` (100 Mb/s dumbbell), or
//!   `cargo run --release --example dumbbell -- --spec FILE.json [SEED]` (any scenario).
//! Prints one JSON line: set-up and loop seconds, events and packets forwarded. `make bench`
//! runs it under callgrind to count instructions per packet.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (spec, seed) = if args.get(1).map(String::as_str) == Some("--spec") {
        let path = args.get(2).expect("--spec FILE");
        let text = std::fs::read_to_string(path).expect("read the spec");
        (text, args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1))
    } else {
        let flows: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
        let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(60.0);
        let spec = serde_json::json!({
            "sim": {"duration": secs},
            "dumbbell": {"pairs": flows,
                "bottleneck": {"rate": "100Mbps", "delay": "20ms", "queue": 500},
                "access": {"rate": "1Gbps", "delay": "1ms", "queue": 10000}},
            "flows": [{"src": "s{i}", "dst": "d{i}", "count": flows}]
        });
        (spec.to_string(), 1)
    };
    let out = tcplab_core::api::run(&spec, seed).expect("run");
    let s: serde_json::Value = serde_json::from_str(&out.summary_json).unwrap();
    let line = serde_json::json!({
        "setup_seconds": s["setup_seconds"],
        "loop_seconds": s["loop_seconds"],
        "events": s["events"],
        "packets_forwarded": s["packets_forwarded"],
    });
    println!("{line}");
}
