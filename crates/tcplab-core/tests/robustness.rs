//! The engine survives what validation may let through and scenarios at the edges: no
//! panic, no wrapped time, no unbounded memory or time, every table well-formed.
use std::sync::Arc;
use std::time::{Duration, Instant};
use tcplab_core::api::{self, Column, RunOutput, Table};
use tcplab_core::engine::World;
use tcplab_core::scenario::{self, Spec};

fn run(spec: &serde_json::Value, seed: u64) -> RunOutput {
    api::run(&spec.to_string(), seed).unwrap()
}

fn strs(t: &Table, name: &str) -> Vec<String> {
    match t.column(name) {
        Some(Column::Str(v)) => v.clone(),
        _ => panic!("no string column {name}"),
    }
}

fn rows(t: &Table) -> usize {
    match t.columns.first().map(|(_, c)| c) {
        Some(Column::F64(v)) => v.len(),
        Some(Column::U64(v)) => v.len(),
        Some(Column::Str(v)) => v.len(),
        None => 0,
    }
}

fn names(t: &Table) -> Vec<&str> {
    t.columns.iter().map(|(n, _)| n.as_str()).collect()
}

/// A TCBI host whose connections to one subnet are made by a Poisson generator.
fn tcbi_generated(record: &str) -> serde_json::Value {
    serde_json::json!({
        "sim": {"duration": 20.0, "sample_interval": 1.0},
        "nodes": [
            {"name": "tcbi", "address": "10.0.1.1", "tcbi": {"controller": "fs", "prefix": 24}},
            {"name": "ra", "kind": "router", "address": "10.0.1.254"},
            {"name": "rb", "kind": "router", "address": "10.0.2.254"},
            {"name": "r0", "address": "10.0.2.1"},
            {"name": "r1", "address": "10.0.2.2"}
        ],
        "links": [
            {"a": "tcbi", "b": "ra", "rate": "10Mb/s", "delay": "1ms", "queue": 20},
            {"a": "ra", "b": "rb", "rate": "10Mb/s", "delay": "10ms", "queue": 20, "loss": 0.01},
            {"a": "rb", "b": "r0", "rate": "100Mb/s", "delay": "1ms"},
            {"a": "rb", "b": "r1", "rate": "100Mb/s", "delay": "1ms"}
        ],
        "flows": [{"name": "bulk", "src": "tcbi", "dst": "r0", "size": 2000}],
        "generators": [{"name": "g", "kind": "poisson", "rate": 4, "src": "tcbi", "dst": "r1",
                        "record": record, "size": {"dist": "constant", "value": 30}}]
    })
}

#[test]
fn tcbi_hosts_with_a_summary_generator_finish_their_runs_with_the_same_totals() {
    for seed in 1..=4 {
        let full = run(&tcbi_generated("flows"), seed);
        let summary = run(&tcbi_generated("summary"), seed);
        let g = |o: &RunOutput, c: &str| o.generators.f64s(c)[0];
        assert!(
            g(&summary, "completed") > 20.0,
            "seed {seed}: the generator's flows complete"
        );
        assert_eq!(
            g(&summary, "retired"),
            g(&summary, "completed"),
            "seed {seed}: all retired"
        );
        for c in [
            "created",
            "completed",
            "completed_segments",
            "delivered_bytes",
            "retransmits",
            "timeouts",
        ] {
            assert_eq!(g(&full, c), g(&summary, c), "seed {seed}: {c}");
        }
        assert_eq!(strs(&summary.flows, "name"), vec!["bulk"], "summary flows have no rows");
        // The parallel intervals name the retired flows as the full record does.
        assert!(
            rows(&full.parallel_intervals) > 0,
            "seed {seed}: connections overlapped"
        );
        assert_eq!(full.parallel_intervals, summary.parallel_intervals, "seed {seed}");
        assert!(strs(&summary.parallel_intervals, "name")
            .iter()
            .any(|n| n.starts_with("g:")));
    }
}

/// Every table of `out` has the columns of the same table in a run with links, flows,
/// events, LANs and generators.
fn assert_all_columns(out: &RunOutput, what: &str) {
    let full = run(&tcbi_generated("flows"), 1);
    let tables = |o: &RunOutput| {
        [
            o.flows.clone(),
            o.links.clone(),
            o.flow_ts.clone(),
            o.link_ts.clone(),
            o.events.clone(),
            o.lans.clone(),
            o.parallel_intervals.clone(),
            o.generators.clone(),
        ]
    };
    for (i, (t, reference)) in tables(out).iter().zip(tables(&full).iter()).enumerate() {
        let (have, want) = (names(t), names(reference));
        // flow_ts carries one column per algorithm-specific sample: compare the common part
        let want = if i == 2 { want[..8].to_vec() } else { want };
        assert!(have.len() >= want.len(), "{what}: table {i}: {have:?}");
        assert_eq!(have[..want.len()], want[..], "{what}: table {i}");
    }
}

#[test]
fn a_lan_only_scenario_runs_and_keeps_every_table_well_formed() {
    let spec = serde_json::json!({
        "sim": {"duration": 10.0, "sample_interval": 0.5},
        "nodes": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
        "lans": [{"name": "l", "members": ["a", "b", "c"], "rate": "10Mb/s", "delay": "1ms", "queue": 20}],
        "flows": [{"src": "a", "dst": "b"}, {"src": "c", "dst": "b", "size": 100}]
    });
    let out = run(&spec, 1);
    assert_eq!(rows(&out.links), 0);
    assert_eq!(rows(&out.link_ts), 0);
    assert_eq!(rows(&out.lans), 3);
    let delivered = out.flows.f64s("delivered_segments");
    assert!(delivered[0] > 1000.0 && delivered[1] == 100.0, "{delivered:?}");
    assert_all_columns(&out, "LAN only");
}

#[test]
fn scenarios_without_links_or_flows_run_and_keep_every_table_well_formed() {
    let no_links = serde_json::json!({"sim": {"duration": 5.0, "sample_interval": 0.5},
                                      "nodes": [{"name": "a"}, {"name": "b"}]});
    let out = run(&no_links, 1);
    for t in [&out.flows, &out.links, &out.events, &out.generators, &out.lans] {
        assert_eq!(rows(t), 0);
    }
    assert_all_columns(&out, "no links");
    let no_flows = serde_json::json!({"sim": {"duration": 5.0, "sample_interval": 0.5},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}]});
    let out = run(&no_flows, 1);
    assert_eq!((rows(&out.flows), rows(&out.links)), (0, 2));
    assert_eq!(
        rows(&out.link_ts),
        2 * 11,
        "both directions sampled at 0, 0.5, ..., 5 s"
    );
    assert_all_columns(&out, "no flows");
}

/// One flow a → b over a 10 Mb/s, 10 ms link, 5 s, as a validated spec to bend.
fn one_link(flow: serde_json::Value) -> Spec {
    let mut f = flow;
    f["src"] = "a".into();
    f["dst"] = "b".into();
    let json = serde_json::json!({
        "sim": {"duration": 5.0, "sample_interval": 0.5},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms"}],
        "flows": [f]
    });
    scenario::parse(&json.to_string()).unwrap()
}

/// Run a spec that validation would (now or later) refuse, straight through the engine:
/// it must end within a few seconds with its invariants intact.
fn run_engine(spec: Spec) -> World {
    let mut w = World::new(spec, 1).unwrap();
    let t0 = Instant::now();
    w.run_with_limit(20.0).expect("the run ends");
    assert!(t0.elapsed() < Duration::from_secs(20));
    w.check_invariants().unwrap();
    w
}

fn flows_of(w: &mut World) -> Table {
    w.output().0
}

#[test]
fn a_delay_beyond_the_time_range_never_arrives_instead_of_wrapping_to_zero() {
    // 2e10 s is 2e19 ns, beyond u64: it used to wrap to a delay of about 1.6 s... or 0
    let mut spec = one_link(serde_json::json!({"size": 10}));
    spec.links[0].delay = 2e10;
    let mut w = run_engine(spec);
    let flows = flows_of(&mut w);
    assert_eq!(flows.f64s("delivered_segments"), vec![0.0]);
    assert!(flows.f64s("completion_time")[0].is_nan());
    let mut spec = one_link(serde_json::json!({"size": 10}));
    spec.links[0].delay = f64::INFINITY;
    assert_eq!(flows_of(&mut run_engine(spec)).f64s("delivered_segments"), vec![0.0]);
}

#[test]
fn a_link_too_slow_for_the_time_range_carries_nothing() {
    // 1e-300 bit/s: a packet's transmission time is not representable (it used to wrap
    // and the link carried 59 Mb/s)
    let mut spec = one_link(serde_json::json!({}));
    spec.links[0].rate = 1e-300;
    let mut w = run_engine(spec);
    let (flows, links, ..) = w.output();
    assert_eq!(flows.f64s("delivered_segments"), vec![0.0]);
    assert_eq!(links.f64s("departures"), vec![0.0, 0.0]);
    assert!(links.f64s("utilisation")[0] <= 1.0);
}

#[test]
fn a_udp_source_with_a_huge_packet_gap_does_not_loop_forever() {
    // A rate step of 1e-300 bit/s: the gap to the next packet is not representable (the
    // clock used to stay where it was, the run never ended).
    // (Validation now refuses such a rate: the step is set on the validated spec.)
    let mut spec = one_link(serde_json::json!({"transport": "udp", "packet": 1000,
        "rate_schedule": [{"at": 1, "rate": "1Mbps"}, {"at": 2, "rate": "1Mbps"}]}));
    let f = Arc::make_mut(&mut spec.flows[0]);
    f.rate_schedule.as_mut().unwrap()[1].rate = 1e-300;
    let mut w = run_engine(spec);
    let sent = flows_of(&mut w).f64s("segments_sent")[0];
    // 1 Mb/s of 1000-byte packets for 1 s, then at most the one packet sent at the step
    assert!((125.0..=127.0).contains(&sent), "{sent}");
}

#[test]
fn timers_and_samples_beyond_the_time_range_never_fire() {
    let mut spec = one_link(serde_json::json!({"size": 50,
        "tcp": {"delayed_ack": true, "send_jitter": "1ms"}}));
    let f = Arc::make_mut(&mut spec.flows[0]);
    f.tcp.delack_timeout = 1e300;
    f.tcp.send_jitter = 1e300;
    spec.sim.sample_interval = 1e300;
    let mut w = run_engine(spec);
    let (_, _, flow_ts, ..) = w.output();
    assert_eq!(flow_ts.f64s("time"), vec![0.0], "one sample at 0, the next never");
    // A flow starting beyond the time range never starts; the run still ends at 5 s.
    let mut spec = one_link(serde_json::json!({}));
    Arc::make_mut(&mut spec.flows[0]).start = 1e300;
    assert_eq!(flows_of(&mut run_engine(spec)).f64s("segments_sent"), vec![0.0]);
}

#[test]
fn fair_share_restarts_with_the_default_receiver_window_need_no_huge_allocation() {
    // rwnd = 10^9 (the default): each RFS/ESSE draw used to allocate 8 GB and abort.
    // (Not NBE: it draws windows anywhere up to rwnd, and a window of 10^8 segments is a
    // burst of 10^8 packets; the draws themselves are checked in cc::fair_share.)
    for error in ["bbe", "tbe"] {
        let spec = serde_json::json!({
            "sim": {"duration": 20.0},
            "dumbbell": {"pairs": 3,
                "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 20},
                "access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [{"src": "s{i}", "dst": "d{i}", "count": 3, "cc": "rfs+esse",
                       "cc_params": {"error": error}}]
        });
        let out = run(&spec, 2);
        let n = |name: &str| strs(&out.events, "event").iter().filter(|e| *e == name).count();
        assert!(n("rfs_window") + n("esse_exit") > 0, "{error}: the estimate was drawn");
    }
}

#[test]
fn a_window_of_a_million_segments_leaves_at_once_in_bounded_memory() {
    // init_cwnd at its validation limit: the burst is offered to the first link at time 0
    // in chunks; all but the queue's 10 packets are dropped there at once (the run ends
    // before the first ACK can return).
    let spec = serde_json::json!({
        "sim": {"duration": 0.0015},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": "1Gbps", "delay": "1ms", "queue": 10}],
        "flows": [{"src": "a", "dst": "b", "tcp": {"init_cwnd": 1e6}}]
    });
    let out = run(&spec, 1);
    let link = |c: &str| out.links.f64s(c)[0];
    assert_eq!(link("arrivals"), 1e6);
    assert_eq!(link("drops_queue"), 1e6 - 10.0);
    assert_eq!(out.flows.f64s("segments_sent")[0], 1e6);
}

#[test]
fn a_large_spec_is_summarised_without_its_normalised_form() {
    let spec = |count: u32| {
        serde_json::json!({
            "sim": {"duration": 0.1},
            "dumbbell": {"pairs": 1,
                "bottleneck": {"rate": "10Mbps", "delay": "20ms"},
                "access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [{"src": "s0", "dst": "d0", "count": count}]
        })
    };
    let small = run(&spec(3), 1);
    let s: serde_json::Value = serde_json::from_str(&small.summary_json).unwrap();
    let normalised: serde_json::Value = serde_json::from_str(&api::validate(&spec(3).to_string()).unwrap()).unwrap();
    assert_eq!(s["spec"], normalised, "small specs keep the normalised spec");
    assert!(s.get("spec_input").is_none() && s.get("spec_omitted").is_none());

    let big = run(&spec(5000), 1);
    assert!(big.summary_json.len() < 4096, "{} bytes", big.summary_json.len());
    let s: serde_json::Value = serde_json::from_str(&big.summary_json).unwrap();
    assert!(s.get("spec").is_none());
    assert_eq!(s["spec_input"], spec(5000));
    assert_eq!(s["spec_sizes"]["flows"], 5000);
    assert_eq!(s["spec_sizes"]["nodes"], 4);
    assert!(s["spec_omitted"].as_str().unwrap().contains("1048576 bytes"));
}

#[test]
fn setting_up_a_large_dumbbell_is_near_linear() {
    // 20 000 pairs with one flow each: one Dijkstra per flow took 73 s (quadratic).
    let pairs = 20_000;
    let json = serde_json::json!({
        "sim": {"duration": 1.0},
        "dumbbell": {"pairs": pairs,
            "bottleneck": {"rate": "100Mbps", "delay": "20ms", "queue": 500},
            "access": {"rate": "1Gbps", "delay": "1ms"}},
        "flows": [{"src": "s0", "dst": "d0"}]
    });
    // The flows are added to the validated spec, so this times the engine's set-up only.
    let mut spec = scenario::parse(&json.to_string()).unwrap();
    let template = spec.flows[0].clone();
    spec.flows = (0..pairs)
        .map(|i| {
            let mut f = (*template).clone();
            f.name = format!("f{i}");
            f.src = format!("s{i}").into();
            f.dst = format!("d{i}").into();
            Arc::new(f)
        })
        .collect();
    let t0 = Instant::now();
    let w = World::new(spec, 1).unwrap();
    let took = t0.elapsed();
    assert!(took < Duration::from_secs(15), "set-up took {took:?}");
    drop(w);
}

#[test]
fn hybla_with_a_coarse_clock_stays_within_its_window_clamp() {
    // Found by the property-based tests: a 0.5 s tick rounds srtt up to 0.5 s, so ρ = 20 and
    // each slow-start ACK opened the window by 2^20 segments, all dropped at once into the
    // drop trace (4.3 GB for 0.5 s simulated). The module's clamp (65535) bounds it.
    let spec = serde_json::json!({
        "dumbbell": {"pairs": 1, "bottleneck": {"rate": "500kbps", "delay": 0, "queue": 11},
                     "access": {"rate": "10Mbps", "delay": 0, "queue": 11}},
        "sim": {"duration": 0.5, "drop_trace": true},
        "flows": [{"src": "s0", "dst": "d0", "cc": "hybla",
                   "tcp": {"timestamps": false, "tick": 0.5, "delayed_ack": false}}]
    });
    let t0 = Instant::now();
    let out = run(&spec, 1);
    let sent = match out.flows.column("segments_sent") {
        Some(Column::U64(v)) => v[0],
        Some(Column::F64(v)) => v[0] as u64,
        _ => panic!("no segments_sent"),
    };
    assert!(sent <= 2 * 65_535 + 100, "{sent} segments sent");
    assert!(t0.elapsed() < Duration::from_secs(5));
}
