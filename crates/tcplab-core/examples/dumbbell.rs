//! Time one dumbbell run: `cargo run --release --example dumbbell -- FLOWS SECONDS`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flows: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(60.0);
    let spec = serde_json::json!({
        "sim": {"duration": secs},
        "dumbbell": {"pairs": flows,
            "bottleneck": {"rate": "100Mbps", "delay": "20ms", "queue": 500},
            "access": {"rate": "1Gbps", "delay": "1ms", "queue": 10000}},
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": flows}]
    });
    let out = tcplab_core::api::run(&spec.to_string(), 1).expect("run");
    let s: serde_json::Value = serde_json::from_str(&out.summary_json).unwrap();
    let pk = s["packets_forwarded"].as_f64().unwrap();
    let lp = s["loop_seconds"].as_f64().unwrap();
    println!(
        "flows {flows} sim {secs}s: setup {:.3}s loop {:.3}s events {} packet-hops {} ({:.2} M/s)",
        s["setup_seconds"],
        lp,
        s["events"],
        pk,
        pk / lp / 1e6
    );
}
