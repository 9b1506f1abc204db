//! TCBI and shared-medium LANs end to end (Savorić/Karl/Wolisz Figure 2 in miniature).
use tcplab_core::api::{self, Column, RunOutput, Table};

fn spec(controller: &str, prefix: u32, loss: f64) -> serde_json::Value {
    serde_json::json!({
        "sim": {"duration": 40.0, "sample_interval": 0.0},
        "nodes": [
            {"name": "tcbi", "address": "10.0.1.1",
             "tcbi": {"controller": controller, "prefix": prefix}},
            {"name": "bs1", "address": "10.0.1.2"},
            {"name": "ra", "kind": "router", "address": "10.0.1.254"},
            {"name": "rb", "kind": "router", "address": "10.0.2.254"},
            {"name": "r0", "address": "10.0.2.1"},
            {"name": "r1", "address": "10.0.2.2"},
            {"name": "r2", "address": "10.0.2.3"},
            {"name": "br1", "address": "10.0.3.1"}
        ],
        "links": [
            {"a": "ra", "b": "rb", "rate": "100Mb/s", "delay": "10ms", "queue": 20},
            {"a": "rb", "b": "br1", "rate": "100Mb/s", "delay": "0.25ms", "queue": 20}
        ],
        "lans": [
            {"name": "sender", "members": ["tcbi", "bs1", "ra"], "rate": "10Mb/s", "delay": 0.5e-6, "queue": 20},
            {"name": "receiver", "members": ["r0", "r1", "r2", "rb"], "rate": "10Mb/s", "delay": 0.5e-6,
             "queue": 20, "loss": loss}
        ],
        "flows": [
            {"name": "s{i}", "src": "tcbi", "dst": "r{i}", "count": 3, "start": [0.0, 1.0, 2.0],
             "size": 3000, "tcp": {"init_cwnd": 2, "init_ssthresh": 64, "rwnd": 128}},
            {"name": "bg", "src": "bs1", "dst": "br1", "start": 0.5, "size": 3000}
        ]
    })
}

fn f64s(t: &Table, name: &str) -> Vec<f64> {
    t.f64s(name)
}

fn strs(t: &Table, name: &str) -> Vec<String> {
    match t.column(name) {
        Some(Column::Str(v)) => v.clone(),
        _ => panic!("no string column {name}"),
    }
}

fn run(v: &serde_json::Value) -> RunOutput {
    api::run(&v.to_string(), 3).unwrap()
}

/// cwnd values the existing members reported when flow `f` started.
fn peers_at_start(out: &RunOutput, start: f64, what: &str) -> Vec<f64> {
    let t = f64s(&out.events, "time");
    let v = f64s(&out.events, "value");
    let e = strs(&out.events, "event");
    (0..t.len())
        .filter(|&i| (t[i] - start).abs() < 1e-12 && e[i] == what)
        .map(|i| v[i])
        .collect()
}

#[test]
fn mv_gives_the_mean_of_the_existing_windows() {
    let out = run(&spec("mv", 24, 0.0));
    let init = f64s(&out.flows, "init_cwnd");
    let par = f64s(&out.flows, "tcbi_parallel");
    assert_eq!(&par[..3], &[0.0, 1.0, 2.0]);
    assert!(par[3].is_nan(), "bs1 has no tcbi");
    assert_eq!(init[0], 2.0);
    for (f, start) in [(1usize, 1.0), (2, 2.0)] {
        let peers = peers_at_start(&out, start, "tcbi_peer_cwnd");
        assert_eq!(peers.len(), f);
        let mean = peers.iter().sum::<f64>() / peers.len() as f64;
        assert!((init[f] - mean).abs() < 1e-9, "flow {f}: {} vs {mean}", init[f]);
        assert!(init[f] > 2.0);
    }
    let srtt = f64s(&out.flows, "init_srtt");
    assert!(srtt[0].is_nan() && srtt[1] > 0.0 && srtt[2] > 0.0);
    assert_eq!(strs(&out.flows, "tcbi_source")[..3], ["none", "ensemble", "ensemble"]);
    assert_eq!(strs(&out.flows, "tcbi_set")[..3], ["10.0.2.0/24"; 3]);
    for d in f64s(&out.flows, "delivered_segments") {
        assert_eq!(d, 3000.0);
    }
}

#[test]
fn fs_makes_everyone_equal_and_adds_one_standard_window() {
    let out = run(&spec("fs", 24, 0.0));
    let init = f64s(&out.flows, "init_cwnd");
    let init_ss = f64s(&out.flows, "init_ssthresh");
    for (f, start) in [(1usize, 1.0), (2, 2.0)] {
        let peers = peers_at_start(&out, start, "tcbi_peer_cwnd");
        let assigned = peers_at_start(&out, start, "tcbi_fs_cwnd");
        assert_eq!(assigned.len(), f);
        let want = (peers.iter().sum::<f64>() + 2.0) / (f as f64 + 1.0);
        assert!((init[f] - want).abs() < 1e-9);
        assert!(assigned.iter().all(|&a| a == init[f]), "all members equal");
        let ss = peers_at_start(&out, start, "tcbi_peer_ssthresh");
        let want_ss = (ss.iter().sum::<f64>() + 64.0) / (f as f64 + 1.0);
        assert!((init_ss[f] - want_ss).abs() < 1e-9);
    }
}

#[test]
fn prefix_32_separates_the_receivers() {
    let out = run(&spec("mv", 32, 0.0));
    assert_eq!(f64s(&out.flows, "tcbi_parallel")[..3], [0.0, 0.0, 0.0]);
    assert_eq!(f64s(&out.flows, "init_cwnd")[..3], [2.0, 2.0, 2.0]);
    assert_eq!(strs(&out.flows, "tcbi_set")[1], "10.0.2.2/32");
    assert_eq!(out.parallel_intervals.f64s("t0").len(), 0);
}

#[test]
fn lan_counters_conserve_and_loss_hits_the_receiver_lan() {
    let out = run(&spec("none", 24, 0.02));
    let l = &out.lans;
    let (arr, dep, dq, dl, ins) = (
        f64s(l, "arrivals"),
        f64s(l, "departures"),
        f64s(l, "drops_queue"),
        f64s(l, "drops_loss"),
        f64s(l, "in_system"),
    );
    assert_eq!(arr.len(), 7);
    for i in 0..arr.len() {
        assert_eq!(arr[i], dep[i] + dq[i] + dl[i] + ins[i], "interface {i}");
    }
    let lan = strs(l, "lan");
    let lost_receiver: f64 = (0..7).filter(|&i| lan[i] == "receiver").map(|i| dl[i]).sum();
    let lost_sender: f64 = (0..7).filter(|&i| lan[i] == "sender").map(|i| dl[i]).sum();
    assert!(lost_receiver > 0.0 && lost_sender == 0.0);
    // every TCBI flow still delivers everything
    for d in &f64s(&out.flows, "delivered_segments")[..3] {
        assert_eq!(*d, 3000.0);
    }
    // the no-TCBI run still reports who could have shared
    assert_eq!(f64s(&out.flows, "tcbi_parallel")[..3], [0.0, 1.0, 2.0]);
    assert_eq!(f64s(&out.flows, "init_cwnd")[..3], [2.0, 2.0, 2.0]);
}

#[test]
fn parallel_intervals_cover_the_overlaps() {
    let out = run(&spec("none", 24, 0.0));
    let p = &out.parallel_intervals;
    let (t0, t1, n, flow, acked) = (
        f64s(p, "t0"),
        f64s(p, "t1"),
        f64s(p, "n"),
        f64s(p, "flow"),
        f64s(p, "acked_bytes"),
    );
    assert!(!t0.is_empty());
    assert_eq!((t0[0], n[0]), (1.0, 2.0), "first interval starts when s1 joins s0");
    assert_eq!(flow[..2], [0.0, 1.0]);
    for i in 0..t0.len() {
        assert!(t1[i] > t0[i] && n[i] >= 2.0);
    }
    // acknowledged bytes over all intervals never exceed a flow's size
    for f in 0..3 {
        let total: f64 = (0..flow.len()).filter(|&i| flow[i] == f as f64).map(|i| acked[i]).sum();
        assert!(total <= 3000.0 * 1000.0);
    }
}

#[test]
fn temporal_cache_after_close_and_not_after_the_lifetime() {
    let mut v = spec("mv", 24, 0.0);
    v["nodes"][0]["tcbi"]["temporal"] = serde_json::json!({"lifetime": 15.0, "ageing": "none"});
    v["flows"] = serde_json::json!([
        {"name": "a", "src": "tcbi", "dst": "r0", "start": 0.0, "size": 300,
         "tcp": {"init_cwnd": 2, "init_ssthresh": 64, "rwnd": 128}},
        {"name": "b", "src": "tcbi", "dst": "r1", "start": 10.0, "size": 300,
         "tcp": {"init_cwnd": 2, "init_ssthresh": 64, "rwnd": 128}},
        {"name": "c", "src": "tcbi", "dst": "r2", "start": 30.0, "size": 300,
         "tcp": {"init_cwnd": 2, "init_ssthresh": 64, "rwnd": 128}}
    ]);
    let out = run(&v);
    let done = f64s(&out.flows, "completion_time");
    let start = f64s(&out.flows, "start");
    assert!(start[0] + done[0] < 10.0, "a ends before b starts, within the lifetime");
    assert!(
        start[1] + done[1] < 15.0,
        "b ends more than the lifetime before c starts"
    );
    assert_eq!(strs(&out.flows, "tcbi_source"), ["none", "temporal", "none"]);
    let init = f64s(&out.flows, "init_cwnd");
    assert_eq!(
        init[1],
        f64s(&out.flows, "final_cwnd")[0],
        "b starts with a's final window"
    );
    assert!(f64s(&out.flows, "init_srtt")[1] > 0.0);
    assert_eq!(init[2], 2.0, "c starts more than the lifetime after b closed");
}

#[test]
fn same_seed_same_tables() {
    let v = spec("fs", 24, 0.05);
    let a = run(&v);
    let b = run(&v);
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.lans, b.lans);
    assert_eq!(a.parallel_intervals, b.parallel_intervals);
}

#[test]
fn generated_flows_join_the_sets_of_their_host() {
    let mut v = spec("mv", 24, 0.0);
    v["flows"] = serde_json::json!([
        {"name": "long", "src": "tcbi", "dst": "r0", "start": 0.0, "size": 20000,
         "tcp": {"init_cwnd": 2, "init_ssthresh": 64, "rwnd": 128}}
    ]);
    v["generators"] = serde_json::json!([
        {"name": "web", "kind": "closed", "src": "tcbi", "dst": "r1", "start": 1.0, "stop": 10.0,
         "size": {"dist": "constant", "value": 5}, "think": {"dist": "constant", "value": 1.0},
         "tcp": {"init_cwnd": 2, "init_ssthresh": 64, "rwnd": 128}},
        {"name": "bgen", "kind": "closed", "src": "bs1", "dst": "br1", "start": 1.0, "stop": 10.0,
         "size": {"dist": "constant", "value": 5}}
    ]);
    let out = run(&v);
    let names = strs(&out.flows, "name");
    let par = f64s(&out.flows, "tcbi_parallel");
    let src = strs(&out.flows, "tcbi_source");
    let init = f64s(&out.flows, "init_cwnd");
    let mut web = 0;
    for i in 0..names.len() {
        if names[i].starts_with("web:") {
            web += 1;
            assert_eq!((par[i], src[i].as_str()), (1.0, "ensemble"), "{}", names[i]);
            assert!(init[i] > 2.0);
        } else if names[i].starts_with("bgen:") {
            assert!(par[i].is_nan());
            assert_eq!(init[i], 1.0, "background from a host without tcbi is unaffected");
        }
    }
    assert!(web >= 3);
}

#[test]
fn pcap_captures_the_frames_one_lan_member_sends_to_another() {
    let mut v = spec("none", 24, 0.0);
    v["pcap"] = serde_json::json!([{"a": "rb", "b": "r1"}, {"a": "r1", "b": "rb"}]);
    let out = run(&v);
    assert_eq!(out.pcaps.len(), 2);
    let (name, data) = &out.pcaps[0];
    assert_eq!(name, "rb-r1");
    // flow s1 (tcbi -> r1, 3000 segments) crosses rb -> r1 on the receiver LAN: every data
    // frame is captured there once (24-byte header, then 16 + 40 bytes per record)
    let delivered = f64s(&out.flows, "delivered_segments")[1];
    assert_eq!(delivered, 3000.0);
    assert_eq!((data.len() - 24) % 56, 0);
    assert!(
        (data.len() - 24) / 56 >= 3000,
        "every data segment, plus retransmissions"
    );
    let (_, acks) = &out.pcaps[1];
    assert!(acks.len() > 24, "the ACKs r1 sends back to rb");
    v["pcap"] = serde_json::json!([{"a": "r1", "b": "br1"}]);
    match api::run(&v.to_string(), 3) {
        Err(api::Error::Scenario(m)) => assert!(m.starts_with("pcap[0]: there is no link or LAN"), "{m}"),
        other => panic!("expected a scenario error, got {:?}", other.map(|_| ())),
    }
}
