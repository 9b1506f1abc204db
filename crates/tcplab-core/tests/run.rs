//! End-to-end runs through the public API: invariants, determinism, headline behaviour.
use tcplab_core::api::{self, Column, RunOutput};

fn dumbbell(pairs: u32, loss: f64, duration: f64, cc: &str) -> String {
    serde_json::json!({
        "sim": {"duration": duration, "sample_interval": 0.5},
        "dumbbell": {"pairs": pairs,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 50, "loss": loss},
            "access": {"rate": "100Mbps", "delay": "2ms", "queue": 1000}},
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": pairs, "cc": cc}]
    })
    .to_string()
}

fn col(out: &RunOutput, table: &str, name: &str) -> Vec<f64> {
    let t = match table {
        "flows" => &out.flows,
        "links" => &out.links,
        "flow_ts" => &out.flow_ts,
        "generators" => &out.generators,
        _ => &out.link_ts,
    };
    t.f64s(name)
}

#[test]
fn bulk_flows_fill_the_bottleneck_and_conserve_packets() {
    let out = api::run(&dumbbell(4, 0.0, 30.0, "newreno"), 1).unwrap();
    let goodput: f64 = col(&out, "flows", "goodput_bps").iter().sum();
    assert!(goodput > 8.5e6 && goodput < 10e6, "aggregate goodput {goodput}");
    // Bottleneck r1->r2 is link direction 0: busy nearly all the time, with queue drops.
    let util = col(&out, "links", "utilisation");
    assert!(util[0] > 0.9, "bottleneck utilisation {}", util[0]);
    let drops = col(&out, "links", "drops_queue");
    assert!(drops[0] > 0.0);
    let (arr, dep, dq, dl, ins) = (
        col(&out, "links", "arrivals"),
        col(&out, "links", "departures"),
        col(&out, "links", "drops_queue"),
        col(&out, "links", "drops_loss"),
        col(&out, "links", "in_system"),
    );
    for i in 0..arr.len() {
        assert_eq!(arr[i], dep[i] + dq[i] + dl[i] + ins[i], "link {i}");
    }
    // Every flow made progress and recovered from losses.
    for g in col(&out, "flows", "goodput_bps") {
        assert!(g > 1e6, "flow goodput {g}");
    }
    assert!(col(&out, "flows", "fast_retransmits").iter().sum::<f64>() > 0.0);
}

#[test]
fn same_seed_same_results_different_seed_differs_under_loss() {
    let spec = dumbbell(3, 0.01, 20.0, "newreno");
    let a = api::run(&spec, 7).unwrap();
    let b = api::run(&spec, 7).unwrap();
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.links, b.links);
    assert_eq!(a.flow_ts, b.flow_ts);
    assert_eq!(a.link_ts, b.link_ts);
    let c = api::run(&spec, 8).unwrap();
    assert_ne!(a.flows, c.flows);
}

#[test]
fn adding_a_flow_does_not_change_other_links_random_draws() {
    // Loss only on s0's access link. Adding a flow on another pair must not change which
    // packets of flow 0 the s0 access link drops before flow 0 meets the other flow: compare
    // drop counts on that link over a short horizon where the bottleneck is not congested.
    let mk = |pairs: u32| {
        serde_json::json!({
            "sim": {"duration": 30.0},
            "nodes": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}],
            "links": [
                {"a": "a", "b": "b", "rate": "100Mbps", "delay": "5ms", "queue": 1000, "loss_ab": 0.05},
                {"a": "c", "b": "d", "rate": "100Mbps", "delay": "5ms", "queue": 1000, "loss_ab": 0.05}
            ],
            "flows": if pairs == 1 {
                serde_json::json!([{"src": "a", "dst": "b", "size": 500}])
            } else {
                serde_json::json!([{"src": "a", "dst": "b", "size": 500}, {"src": "c", "dst": "d", "size": 500}])
            }
        })
        .to_string()
    };
    let one = api::run(&mk(1), 3).unwrap();
    let two = api::run(&mk(2), 3).unwrap();
    assert_eq!(one.flows.f64s("completion_time").len(), 1);
    let ct = col(&one, "flows", "completion_time")[0];
    assert!(ct.is_finite(), "flow 0 completes");
    assert_eq!(col(&one, "links", "drops_loss")[0], col(&two, "links", "drops_loss")[0]);
    assert_eq!(ct, col(&two, "flows", "completion_time")[0]);
}

#[test]
fn fixed_size_flow_delivers_everything_once_and_records_completion() {
    for handshake in [false, true] {
        let spec = serde_json::json!({
            "sim": {"duration": 60.0},
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"a": "a", "b": "b", "rate": "2Mbps", "delay": "50ms", "queue": 20, "loss": 0.02}],
            "flows": [{"src": "a", "dst": "b", "size": 300, "tcp": {"handshake": handshake}}]
        })
        .to_string();
        let out = api::run(&spec, 11).unwrap();
        assert_eq!(col(&out, "flows", "delivered_segments"), vec![300.0]);
        assert_eq!(col(&out, "flows", "acked_segments"), vec![300.0]);
        let ct = col(&out, "flows", "completion_time")[0];
        // 300 kB over 2 Mb/s needs at least 1.2 s plus the round trips of slow start.
        assert!(ct > 1.2 && ct < 60.0, "completion {ct}");
        let sent = col(&out, "flows", "segments_sent")[0];
        let retx = col(&out, "flows", "retransmits")[0];
        assert_eq!(sent, 300.0 + retx, "every segment sent once plus retransmissions");
    }
}

#[test]
fn lossy_single_flow_follows_the_square_root_law_roughly() {
    // Mathis et al.: throughput ≈ (MSS/RTT)·sqrt(3/(2p)) for a loss-limited flow.
    let p: f64 = 0.01;
    let spec = serde_json::json!({
        "sim": {"duration": 200.0},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": "100Mbps", "delay": "50ms", "queue": 10000, "loss_ab": p}],
        "flows": [{"src": "a", "dst": "b"}]
    })
    .to_string();
    let out = api::run(&spec, 5).unwrap();
    let g = col(&out, "flows", "goodput_bps")[0];
    let mathis = 8000.0 / 0.1 * (1.5 / p).sqrt();
    assert!(g > 0.5 * mathis && g < 1.5 * mathis, "goodput {g} vs Mathis {mathis}");
}

#[test]
fn time_series_are_sampled_at_the_interval() {
    let out = api::run(&dumbbell(2, 0.0, 5.0, "reno"), 1).unwrap();
    let t = col(&out, "flow_ts", "time");
    assert_eq!(t.len(), 2 * 11, "samples at 0, 0.5, ..., 5.0 for 2 flows");
    assert_eq!(t[2], 0.5);
    let q = col(&out, "link_ts", "queue");
    assert_eq!(q.len(), 10 * 11);
}

#[test]
fn switching_algorithm_at_run_time_keeps_the_connection_going() {
    let spec = serde_json::json!({
        "sim": {"duration": 20.0},
        "dumbbell": {"pairs": 1,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 30},
            "access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": [{"src": "s0", "dst": "d0", "cc": "newreno", "switch": [{"at": 10.0, "cc": "tahoe"}]}]
    })
    .to_string();
    let out = api::run(&spec, 1).unwrap();
    match out.flows.column("cc_final") {
        Some(Column::Str(v)) => assert_eq!(v[0], "tahoe"),
        _ => panic!("no cc_final column"),
    }
    assert!(col(&out, "flows", "goodput_bps")[0] > 7e6);
}

#[test]
fn invalid_specs_are_scenario_errors() {
    let e = api::run("{\"sim\": {\"duration\": -1}}", 1).unwrap_err();
    assert!(
        matches!(e, api::Error::Scenario(ref m) if m.starts_with("sim.duration:")),
        "{e:?}"
    );
    let e = api::run("not json", 1).unwrap_err();
    assert!(matches!(e, api::Error::Scenario(_)));
}

fn lossy_wireless(cc: &str, loss: f64, seed: u64) -> f64 {
    // Westwood paper §6.1: 45 Mb/s wired (35 ms) then an 11 Mb/s wireless hop with loss.
    let spec = serde_json::json!({
        "sim": {"duration": 100.0},
        "nodes": [{"name": "src"}, {"name": "bs", "kind": "router"}, {"name": "mh"}],
        "links": [
            {"a": "src", "b": "bs", "rate": "45Mbps", "delay": "35ms", "queue": 100},
            {"a": "bs", "b": "mh", "rate": "11Mbps", "delay": "0.01ms", "queue": 70, "loss_ab": loss}
        ],
        "flows": [{"src": "src", "dst": "mh", "cc": cc, "tcp": {"mss": 1400}}]
    })
    .to_string();
    let out = api::run(&spec, seed).unwrap();
    col(&out, "flows", "goodput_bps")[0]
}

#[test]
fn westwood_gains_over_newreno_on_a_lossy_path() {
    let mean = |cc: &str| (1..=3).map(|s| lossy_wireless(cc, 0.01, s)).sum::<f64>() / 3.0;
    let nr = mean("newreno");
    let be = mean("westwood_be");
    let crb = mean("westwood_crb");
    let re = mean("westwood_re");
    eprintln!("1% loss: newreno {nr:.0} be {be:.0} crb {crb:.0} re {re:.0}");
    assert!(be > 1.5 * nr, "BE {be} vs NewReno {nr}");
    assert!(crb > 1.3 * nr, "CRB {crb} vs NewReno {nr}");
    assert!(be >= crb * 0.95 && crb > re * 0.95, "BE ≥ CRB ≥ RE ordering");
}

#[test]
fn udp_cbr_follows_its_rate_schedule_and_squeezes_tcp() {
    let spec = serde_json::json!({
        "sim": {"duration": 60.0},
        "dumbbell": {"pairs": 2,
            "bottleneck": {"rate": "5Mbps", "delay": "30ms", "queue": 32},
            "access": {"rate": "100Mbps", "delay": "2ms"}},
        "flows": [
            {"src": "s0", "dst": "d0", "cc": "newreno", "tcp": {"mss": 1400}},
            {"src": "s1", "dst": "d1", "transport": "udp", "packet": 1000,
             "rate_schedule": [{"at": 0, "rate": 0}, {"at": 20, "rate": "2Mbps"}, {"at": 40, "rate": 0}]}
        ]
    })
    .to_string();
    let out = api::run(&spec, 1).unwrap();
    let sent = col(&out, "flows", "segments_sent")[1];
    // 2 Mb/s of 1000-byte packets for 20 s = 5000 packets.
    assert!((sent - 5000.0).abs() <= 1.0, "udp sent {sent}");
    let tcp = col(&out, "flows", "goodput_bps")[0];
    let udp = col(&out, "flows", "goodput_bps")[1];
    assert!(udp > 0.6e6 && udp < 0.68e6, "udp average over 60 s {udp}");
    assert!(tcp > 3.5e6 && tcp < 4.8e6, "tcp takes the rest: {tcp}");
}

#[test]
fn pcap_capture_of_a_link_direction() {
    let spec = serde_json::json!({
        "sim": {"duration": 5.0},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms"}],
        "flows": [{"src": "a", "dst": "b", "size": 20}],
        "pcap": [{"a": "a", "b": "b"}, {"a": "b", "b": "a"}]
    })
    .to_string();
    let out = api::run(&spec, 1).unwrap();
    assert_eq!(out.pcaps.len(), 2);
    let (name, data) = &out.pcaps[0];
    assert_eq!(name, "a-b");
    // 24-byte header + 20 data records of 16 + 40 bytes.
    assert_eq!(data.len(), 24 + 20 * 56);
    let (_, acks) = &out.pcaps[1];
    assert_eq!(acks.len(), 24 + 20 * 56, "one ACK per segment without delayed ACKs");
    let bad = spec.replace(r#"{"a":"b","b":"a"}"#, r#"{"a":"b","b":"zz"}"#);
    assert_ne!(bad, spec);
    match api::run(&bad, 1) {
        Err(api::Error::Scenario(m)) => assert!(m.starts_with("pcap[1]"), "{m}"),
        other => panic!("expected a scenario error, got {:?}", other.map(|_| ())),
    }
}

/// The (seq field, TCP flags) of every TCP record of a pcap file (raw IPv4, 40-byte headers).
fn pcap_records(data: &[u8]) -> Vec<(u32, u8)> {
    let mut out = Vec::new();
    let mut at = 24;
    while at + 16 <= data.len() {
        let caplen = u32::from_le_bytes(data[at + 8..at + 12].try_into().unwrap()) as usize;
        let ip = &data[at + 16..at + 16 + caplen];
        out.push((u32::from_be_bytes(ip[24..28].try_into().unwrap()), ip[33]));
        at += 16 + caplen;
    }
    out
}

#[test]
fn a_capture_at_a_link_entry_shows_the_packets_its_queue_and_loss_drop() {
    let spec = serde_json::json!({
        "sim": {"duration": 20.0},
        "dumbbell": {"pairs": 3,
            "bottleneck": {"rate": "2Mbps", "delay": "20ms", "queue": 8, "loss": 0.01},
            "access": {"rate": "100Mbps", "delay": "1ms", "queue": 1000}},
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": 3}],
        "pcap": [{"a": "r1", "b": "r2"}, {"a": "r1", "b": "r2", "at": "entry"}]
    })
    .to_string();
    let out = api::run(&spec, 1).unwrap();
    let names: Vec<&str> = out.pcaps.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["r1-r2", "r1-r2.entry"]);
    let (exit, entry) = (pcap_records(&out.pcaps[0].1), pcap_records(&out.pcaps[1].1));
    let link = |c: &str| col(&out, "links", c)[0];
    assert_eq!(
        entry.len() as f64,
        link("arrivals"),
        "every packet offered, dropped ones too"
    );
    assert_eq!(exit.len() as f64, link("departures"));
    let dropped = link("drops_queue") + link("drops_loss") + link("in_system");
    assert!(link("drops_queue") > 0.0 && link("drops_loss") > 0.0);
    assert_eq!((entry.len() - exit.len()) as f64, dropped);
    // what left is what entered, less the drops, in the same order
    let mut left = exit.iter().peekable();
    let mut missing = 0;
    for r in &entry {
        if left.peek() == Some(&r) {
            left.next();
        } else {
            missing += 1;
        }
    }
    assert!(left.next().is_none());
    assert_eq!(missing as f64, dropped);
    let bad = spec.replace(r#""at":"entry""#, r#""at":"middle""#);
    assert_ne!(bad, spec);
    match api::run(&bad, 1) {
        Err(api::Error::Scenario(m)) => {
            assert_eq!(m, "pcap[1].at: \"middle\" is not allowed; allowed: exit, entry")
        }
        other => panic!("expected a scenario error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn the_drop_trace_has_one_row_per_drop_the_links_table_counts() {
    let spec = serde_json::json!({
        "sim": {"duration": 20.0, "drop_trace": true},
        "dumbbell": {"pairs": 4,
            "bottleneck": {"rate": "2Mbps", "delay": "20ms", "loss": 0.01,
                           "queue": {"type": "red", "limit": 25, "min_th": 3, "max_th": 9}},
            "access": {"rate": "100Mbps", "delay": "1ms", "queue": 1000, "loss": 0.002}},
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": 4}]
    })
    .to_string();
    let out = api::run(&spec, 1).unwrap();
    let d = &out.drops;
    let hops = d.f64s("hop");
    let reasons = match d.column("reason") {
        Some(Column::Str(v)) => v.clone(),
        _ => panic!("no reason column"),
    };
    let count = |hop: usize, why: &[&str]| {
        hops.iter()
            .zip(&reasons)
            .filter(|(h, r)| **h as usize == hop && why.contains(&r.as_str()))
            .count() as f64
    };
    let links = col(&out, "links", "drops_queue").len();
    let mut total = 0.0;
    for h in 0..links {
        let c = |name: &str| col(&out, "links", name)[h];
        assert_eq!(count(h, &["queue", "aqm"]), c("drops_queue"), "hop {h}");
        assert_eq!(count(h, &["loss"]), c("drops_loss"), "hop {h}");
        total += c("drops_queue") + c("drops_loss");
    }
    assert_eq!(hops.len() as f64, total);
    assert_eq!(count(0, &["aqm"]), col(&out, "links", "drops_aqm")[0]);
    assert!(count(0, &["aqm"]) > 0.0);
    assert!(count(0, &["loss"]) > 0.0 && count(2, &["loss"]) + count(3, &["loss"]) > 0.0);
    let times = d.f64s("time");
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "in the order of the drops");
    // without the option the table is empty
    let off = spec.replace(r#""drop_trace":true"#, r#""drop_trace":false"#);
    assert_ne!(off, spec);
    let plain = api::run(&off, 1).unwrap();
    assert_eq!(plain.drops.f64s("hop").len(), 0);
    assert_eq!(
        col(&plain, "links", "drops_queue"),
        col(&out, "links", "drops_queue"),
        "tracing changes nothing"
    );
    match api::run(&spec.replace(r#""drop_trace":true"#, r#""drop_trace":1"#), 1) {
        Err(api::Error::Scenario(m)) => assert_eq!(m, "sim.drop_trace: expected true or false, got 1"),
        other => panic!("expected a scenario error, got {:?}", other.map(|_| ())),
    }
}

fn gen_retired(o: &RunOutput) -> f64 {
    col(o, "generators", "retired")[0]
}

fn generated(kind_fields: serde_json::Value, duration: f64) -> RunOutput {
    let mut g = kind_fields;
    g["src"] = "s0".into();
    g["dst"] = "d0".into();
    let spec = serde_json::json!({
        "sim": {"duration": duration},
        "dumbbell": {"pairs": 1,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": 64},
            "access": {"rate": "100Mbps", "delay": "1ms"}},
        "generators": [g]
    })
    .to_string();
    api::run(&spec, 4).unwrap()
}

#[test]
fn poisson_generator_creates_flows_at_the_given_rate() {
    let out = generated(
        serde_json::json!({"kind": "poisson", "rate": 20, "size": {"dist": "constant", "value": 10}}),
        200.0,
    );
    let n = out.flows.f64s("flow").len() as f64;
    // 20 flows/s for 200 s: 4000 ± 4·sqrt(4000)
    assert!((n - 4000.0).abs() < 4.0 * 4000f64.sqrt(), "{n} flows");
    let done = col(&out, "flows", "completion_time")
        .iter()
        .filter(|c| c.is_finite())
        .count() as f64;
    assert!(done > 0.99 * n, "almost all complete: {done}/{n}");
    let delivered = col(&out, "flows", "delivered_segments");
    assert!(delivered.iter().all(|d| *d <= 10.0));
}

#[test]
fn closed_generator_runs_one_flow_at_a_time() {
    let out = generated(
        serde_json::json!({"kind": "closed", "size": {"dist": "constant", "value": 50},
                           "think": {"dist": "constant", "value": 1.0}}),
        30.0,
    );
    let starts = col(&out, "flows", "start");
    let ct = col(&out, "flows", "completion_time");
    for i in 1..starts.len() {
        let prev_end = starts[i - 1] + ct[i - 1];
        assert!(
            (starts[i] - (prev_end + 1.0)).abs() < 1e-6,
            "flow {i} starts 1 s after the previous ends"
        );
    }
    assert!(starts.len() > 10);
}

#[test]
fn session_generator_alternates_pages_and_reading() {
    let out = generated(
        serde_json::json!({"kind": "sessions", "size": {"dist": "constant", "value": 4000}, "size_unit": "bytes",
                           "pages": {"dist": "constant", "value": 3},
                           "reading": {"dist": "constant", "value": 2.0},
                           "session_gap": {"dist": "constant", "value": 10.0}}),
        100.0,
    );
    let starts = col(&out, "flows", "start");
    let ct = col(&out, "flows", "completion_time");
    assert_eq!(col(&out, "flows", "size")[0], 4.0, "4000 bytes = 4 segments of 1000");
    let gaps: Vec<f64> = (1..starts.len())
        .map(|i| starts[i] - starts[i - 1] - ct[i - 1])
        .collect();
    // Pattern: reading, reading, session gap, reading, reading, session gap, ...
    for (i, g) in gaps.iter().enumerate() {
        let expected = if i % 3 == 2 { 10.0 } else { 2.0 };
        assert!((g - expected).abs() < 1e-6, "gap {i} = {g}");
    }
}

#[test]
fn summary_generators_free_completed_flows_and_keep_the_same_totals() {
    // Poisson arrivals onto a congested bottleneck (losses, timeouts, packets of completed
    // flows still in flight): recording only the totals must not change the simulation.
    let fields = |record: &str| {
        serde_json::json!({"kind": "poisson", "rate": 40, "record": record,
                           "size": {"dist": "pareto", "shape": 1.5, "scale": 10}})
    };
    let full = generated(fields("flows"), 60.0);
    let summary = generated(fields("summary"), 60.0);
    assert_eq!(summary.flows.f64s("flow").len(), 0, "summary flows have no rows");
    assert_eq!(gen_retired(&full), 0.0);
    assert!(
        gen_retired(&summary) > 0.95 * col(&summary, "generators", "completed")[0],
        "state freed"
    );
    let per_flow = full.flows.f64s("flow").len() as f64;
    let gen = |o: &RunOutput, c: &str| col(o, "generators", c)[0];
    assert_eq!(gen(&full, "created"), per_flow);
    for c in [
        "created",
        "completed",
        "completed_segments",
        "delivered_bytes",
        "retransmits",
        "timeouts",
    ] {
        assert_eq!(gen(&full, c), gen(&summary, c), "{c}");
    }
    let ct = col(&full, "flows", "completion_time");
    let size = col(&full, "flows", "size");
    let done: Vec<usize> = (0..ct.len()).filter(|&i| ct[i].is_finite()).collect();
    assert_eq!(done.len() as f64, gen(&full, "completed"));
    let d: f64 = done.iter().map(|&i| ct[i]).sum();
    assert!((gen(&summary, "completed_duration") - d).abs() < 1e-6 * d);
    let rate: f64 = done.iter().map(|&i| size[i] / ct[i]).sum();
    assert!((gen(&summary, "sum_rate") - rate).abs() < 1e-6 * rate);
    assert!(
        col(&full, "links", "drops_queue").iter().sum::<f64>() > 0.0,
        "the scenario has losses"
    );
    assert_eq!(col(&full, "links", "arrivals"), col(&summary, "links", "arrivals"));
    assert_eq!(
        col(&full, "links", "drops_queue"),
        col(&summary, "links", "drops_queue")
    );
}

#[test]
fn wall_clock_limit_stops_a_long_run() {
    let spec = dumbbell(50, 0.0, 100_000.0, "newreno");
    match api::run_limited(&spec, 1, Some(0.05)) {
        Err(api::Error::Simulation(m)) => assert!(m.contains("wall-clock limit"), "{m}"),
        other => panic!("expected the limit to stop the run, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn source_processing_time_delays_and_desynchronises_flows() {
    let mk = |jitter: f64| {
        serde_json::json!({
            "sim": {"duration": 60.0},
            "dumbbell": {"pairs": 8,
                "bottleneck": {"rate": "1.6Mbps", "delay": "50ms", "queue": 60},
                "access": {"rate": "10Mbps", "delay": "0.001ms", "queue": 1000}},
            "flows": [{"src": "s{i}", "dst": "d{i}", "count": 8, "tcp": {"mss": 500, "send_jitter": jitter}}]
        })
        .to_string()
    };
    let plain = api::run(&mk(0.0), 1).unwrap();
    let jittered = api::run(&mk(0.01), 1).unwrap();
    // Same seed, different per-packet timing: the flows' fates differ, invariants still hold.
    assert_ne!(plain.flows, jittered.flows);
    let g: f64 = col(&jittered, "flows", "goodput_bps").iter().sum();
    assert!(g > 1.2e6 && g < 1.6e6, "{g}");
    // Processing keeps the sender's order: a lossless flow with a large jitter relative to its
    // packet spacing sees no reordering, hence no duplicate ACKs, no retransmissions.
    let spec = serde_json::json!({
        "sim": {"duration": 30.0},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "20ms", "queue": 10000}],
        "flows": [{"src": "a", "dst": "b", "tcp": {"send_jitter": "30ms", "rwnd": 50}}]
    })
    .to_string();
    let out = api::run(&spec, 3).unwrap();
    assert_eq!(col(&out, "flows", "retransmits"), vec![0.0]);
    assert!(col(&out, "flows", "delivered_segments")[0] > 10_000.0);
}
