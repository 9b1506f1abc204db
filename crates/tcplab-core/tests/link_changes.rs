//! Link changes over time (`[[link_changes]]`) in whole runs: a CBR flow's one-way delay
//! across a delay change, a saturated link's rate across a rate change, a queue limit and a
//! loss rate changed, outages with the queue kept or dropped under a TCP flow, the
//! rerouting geometry of thesis §3.5.4, the events and links tables, and determinism.
use serde_json::{json, Value};
use tcplab_core::api::{self, Column, RunOutput, Table};

/// One pair on a dumbbell (bottleneck 10 Mb/s, 20 ms; access 100 Mb/s, `access_delay`),
/// with `flows` and `changes`.
fn spec(duration: f64, access_delay: Value, queue: u32, flows: Value, changes: Value) -> String {
    json!({
        "sim": {"duration": duration, "sample_interval": 0.1, "drop_trace": true},
        "dumbbell": {"pairs": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": queue},
            "access": {"rate": "100Mbps", "delay": access_delay, "queue": 1000}},
        "flows": flows,
        "link_changes": changes,
    })
    .to_string()
}

fn cbr(rate: &str, packet: u32) -> Value {
    json!([{"src": "s0", "dst": "d0", "transport": "udp", "rate": rate, "packet": packet, "delay_trace": true}])
}

fn strs(t: &Table, name: &str) -> Vec<String> {
    match t.column(name) {
        Some(Column::Str(v)) => v.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

fn u64s(t: &Table, name: &str) -> Vec<u64> {
    match t.column(name) {
        Some(Column::U64(v)) => v.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

/// (arrival time, one-way delay) of every datagram, from the events table.
fn datagrams(out: &RunOutput) -> Vec<(f64, f64)> {
    let ev = strs(&out.events, "event");
    let (t, v) = (out.events.f64s("time"), out.events.f64s("value"));
    (0..ev.len())
        .filter(|&i| ev[i] == "datagram_delay")
        .map(|i| (t[i], v[i]))
        .collect()
}

/// The links table's row of the direction from `a` to `b`.
fn row(out: &RunOutput, a: &str, b: &str) -> usize {
    let (src, dst) = (strs(&out.links, "src"), strs(&out.links, "dst"));
    (0..src.len()).find(|&i| src[i] == a && dst[i] == b).unwrap()
}

fn tx(bytes: f64, rate: f64) -> f64 {
    bytes * 8.0 / rate
}

#[test]
fn a_delay_change_moves_a_cbr_flows_one_way_delay_by_exactly_the_change() {
    // 500-byte datagrams every 4 ms on an idle path: 1 + 20 + 1 ms and three transmissions
    // (0.04 + 0.4 + 0.04 ms). At 5 s r2-d0 takes 7 ms: the datagrams whose transmission
    // on it ends after 5 s (sent after 5 s - 21.48 ms) take 6 ms more.
    let out = api::run(
        &spec(
            10.0,
            json!("1ms"),
            50,
            cbr("1Mbps", 500),
            json!([{"link": "r2-d0", "at": 5.0, "delay": "7ms"}]),
        ),
        1,
    )
    .unwrap();
    let d = 0.022 + 2.0 * tx(500.0, 100e6) + tx(500.0, 10e6);
    let want = |sent: f64| if sent + d - 0.001 > 5.0 { d + 0.006 } else { d };
    let rows = datagrams(&out);
    let arrived = (0..2500)
        .filter(|k| *k as f64 * 0.004 + want(*k as f64 * 0.004) <= 10.0)
        .count();
    assert_eq!(rows.len(), arrived, "every datagram that could arrive by 10 s");
    for (at, delay) in &rows {
        let sent = at - delay;
        assert!(
            (delay - want(sent)).abs() < 2e-9,
            "sent at {sent}: {delay} s, expected {}",
            want(sent)
        );
    }
    assert_eq!(out.links.f64s("drops_queue").iter().sum::<f64>(), 0.0);
    assert_eq!(out.links.f64s("drops_loss").iter().sum::<f64>(), 0.0);
}

#[test]
fn a_delay_decrease_keeps_the_order_and_loses_nothing() {
    // 7 ms access links, r2-d0 down to 1 ms at 5 s: datagrams keep their order (send
    // times increase with arrival), their delay goes from the old to the new value, never
    // below it, and all arrive.
    let out = api::run(
        &spec(
            10.0,
            json!("7ms"),
            50,
            cbr("4Mbps", 500),
            json!([{"link": "r2-d0", "at": 5.0, "delay": "1ms"}]),
        ),
        1,
    )
    .unwrap();
    let d_old = 0.034 + 2.0 * tx(500.0, 100e6) + tx(500.0, 10e6);
    let d_new = d_old - 0.006;
    let rows = datagrams(&out);
    assert_eq!(
        rows.len(),
        9972,
        "every datagram sent by 10 s - d_new, the last at 9.971 s"
    );
    let mut last_sent = -1.0;
    let mut held_back = 0;
    for (at, delay) in &rows {
        let sent = at - delay;
        assert!(sent > last_sent, "order at {at}");
        last_sent = sent;
        assert!(*delay <= d_old + 2e-9 && *delay >= d_new - 2e-9, "{delay}");
        if *at > 5.0 && *at < 5.1 && (delay - d_new).abs() > 2e-9 && (delay - d_old).abs() > 2e-9 {
            held_back += 1;
        }
        if sent > 5.1 {
            assert!((delay - d_new).abs() < 2e-9);
        }
    }
    // 6 ms at a datagram per ms: about 6 were held back to arrive after an earlier one
    assert!((5..=7).contains(&held_back), "{held_back}");
}

#[test]
fn a_rate_change_sets_a_saturated_links_delivered_rate() {
    // 20 Mb/s of 1000-byte datagrams into the 10 Mb/s bottleneck; 5 Mb/s from 5 s.
    let out = api::run(
        &spec(
            10.0,
            json!("1ms"),
            50,
            cbr("20Mbps", 1000),
            json!([{"link": "r1-r2", "direction": "ab", "at": 5.0, "rate": "5Mbps"}]),
        ),
        1,
    )
    .unwrap();
    let rows = datagrams(&out);
    let count = |a: f64, b: f64| rows.iter().filter(|(t, _)| *t >= a && *t < b).count() as f64;
    let before = count(2.0, 5.0);
    let after = count(6.0, 9.0);
    assert!((before - 10e6 * 3.0 / 8000.0).abs() <= 1.0, "{before}");
    assert!((after - 5e6 * 3.0 / 8000.0).abs() <= 1.0, "{after}");
    // the reverse direction is untouched; the forward one reports its change
    let ev = strs(&out.events, "event");
    let i = ev.iter().position(|e| e == "link_rate").unwrap();
    assert_eq!(out.events.f64s("value")[i], 5e6);
    assert_eq!(u64s(&out.events, "link")[i], row(&out, "r1", "r2") as u64);
    assert_eq!(ev.iter().filter(|e| e.starts_with("link_")).count(), 1);
}

#[test]
fn a_smaller_queue_limits_the_queueing_delay_from_then_on() {
    // Overload: a full queue of 50 (49 waiting ahead) before 5 s, of 10 after.
    let out = api::run(
        &spec(
            10.0,
            json!("1ms"),
            50,
            cbr("12Mbps", 1000),
            json!([{"link": "r1-r2", "direction": "ab", "at": 5.0, "queue": 10}]),
        ),
        1,
    )
    .unwrap();
    let base = 0.022 + 2.0 * tx(1000.0, 100e6) + tx(1000.0, 10e6);
    let t = tx(1000.0, 10e6);
    let rows = datagrams(&out);
    let max_in = |a: f64, b: f64| {
        rows.iter()
            .filter(|(at, _)| *at >= a && *at < b)
            .map(|x| x.1)
            .fold(0.0, f64::max)
    };
    let (before, after) = (max_in(3.0, 5.0), max_in(6.0, 10.0));
    assert!(
        before <= base + 49.0 * t + 1e-9 && before >= base + 48.0 * t,
        "{before}"
    );
    assert!(after <= base + 9.0 * t + 1e-9 && after >= base + 8.0 * t, "{after}");
    let r = row(&out, "r1", "r2");
    assert_eq!(u64s(&out.links, "queue_limit")[r], 10);
}

#[test]
fn a_loss_change_applies_from_its_time() {
    // 250 datagrams/s; 20 % loss on r1-r2 from 5 s: about 0.2 · 10000 in the next 40 s
    // (within 5 standard deviations, 200), none before.
    let out = api::run(
        &spec(
            45.0,
            json!("1ms"),
            50,
            cbr("1Mbps", 500),
            json!([{"a": "r1", "b": "r2", "at": 5.0, "loss": 0.2}]),
        ),
        4,
    )
    .unwrap();
    let times = out.drops.f64s("time");
    let reasons = strs(&out.drops, "reason");
    assert!(reasons.iter().all(|r| r == "loss"));
    assert!(times.iter().all(|&t| t > 5.0));
    let n = times.len() as f64;
    assert!((n - 2000.0).abs() < 200.0, "{n}");
}

fn tcp_outage(queued: &str) -> RunOutput {
    let flows = json!([{"src": "s0", "dst": "d0", "cc": "newreno"}]);
    let changes = json!([
        {"link": "r1-r2", "at": 5.0, "state": "down", "queued": queued},
        {"link": "r1-r2", "at": 7.0, "state": "up"},
    ]);
    api::run(&spec(15.0, json!("1ms"), 50, flows, changes), 2).unwrap()
}

/// Flow 0's delivered segments at sample time `t`.
fn delivered_at(out: &RunOutput, t: f64) -> f64 {
    let (time, flow, d) = (
        out.flow_ts.f64s("time"),
        out.flow_ts.f64s("flow"),
        out.flow_ts.f64s("delivered"),
    );
    (0..time.len())
        .find(|&i| flow[i] == 0.0 && (time[i] - t).abs() < 1e-9)
        .map(|i| d[i])
        .unwrap()
}

#[test]
fn a_tcp_flow_stalls_during_an_outage_and_recovers() {
    for queued in ["keep", "drop"] {
        let out = tcp_outage(queued);
        // what was past the bottleneck at 5 s has arrived by 5.1 s; nothing more until 7 s
        let (d5, d7) = (delivered_at(&out, 5.1), delivered_at(&out, 7.0));
        assert_eq!(d5, d7, "{queued}: nothing delivered during the outage");
        assert!(
            delivered_at(&out, 4.9) > delivered_at(&out, 4.0),
            "{queued}: it was sending"
        );
        assert!(delivered_at(&out, 15.0) > d7 + 1000.0, "{queued}: it recovers");
        assert!(u64s(&out.flows, "timeouts")[0] >= 1, "{queued}: timeouts");
        let r = row(&out, "r1", "r2");
        let down = u64s(&out.links, "drops_down");
        let traced = strs(&out.drops, "reason").iter().filter(|x| *x == "down").count() as u64;
        assert_eq!(down.iter().sum::<u64>(), traced);
        if queued == "keep" {
            assert_eq!(down[r], 0);
            // the queue kept is sent as soon as the link is up
            assert!(delivered_at(&out, 7.1) > d7, "keep: the queue leaves at 7 s");
        } else {
            assert!(
                down[r] > 10,
                "drop: the queue and the retransmissions are dropped: {}",
                down[r]
            );
        }
        let ev = strs(&out.events, "event");
        let names: Vec<&str> = ev
            .iter()
            .filter(|e| e.starts_with("link_"))
            .map(|s| s.as_str())
            .collect();
        assert_eq!(names, ["link_down", "link_down", "link_up", "link_up"]);
    }
}

/// Mean of flow `f`'s srtt samples in [a, b).
fn mean_srtt(out: &RunOutput, f: f64, a: f64, b: f64) -> f64 {
    let (time, flow, s) = (
        out.flow_ts.f64s("time"),
        out.flow_ts.f64s("flow"),
        out.flow_ts.f64s("srtt"),
    );
    let v: Vec<f64> = (0..time.len())
        .filter(|&i| flow[i] == f && time[i] >= a && time[i] < b)
        .map(|i| s[i])
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn rerouting_raises_the_smoothed_rtt_by_twice_the_delay_change() {
    // Thesis §3.5.4's geometry: two NewReno flows; pair 0's access link r2-d0 goes from
    // 2 ms to 7 ms (both directions) at 10 s. With windows below the path's capacity (no
    // standing queue) flow 0's srtt rises by 2 · 5 ms, flow 1's does not move.
    let flows = json!([{"src": "s{i}", "dst": "d{i}", "count": 2, "cc": "newreno", "tcp": {"rwnd": 10}}]);
    let out = api::run(
        &spec(
            20.0,
            json!(["2ms", "4ms"]),
            50,
            flows,
            json!([{"link": "r2-d0", "at": 10.0, "delay": "7ms"}]),
        ),
        1,
    )
    .unwrap();
    let rise0 = mean_srtt(&out, 0.0, 12.0, 20.0) - mean_srtt(&out, 0.0, 5.0, 10.0);
    let rise1 = mean_srtt(&out, 1.0, 12.0, 20.0) - mean_srtt(&out, 1.0, 5.0, 10.0);
    assert!((rise0 - 0.010).abs() < 0.0005, "flow 0: {rise0}");
    assert!(rise1.abs() < 0.0005, "flow 1: {rise1}");
}

#[test]
fn same_seed_same_tables_and_a_plain_run_until_the_change() {
    let flows = json!([
        {"src": "s{i}", "dst": "d{i}", "count": 2, "cc": "newreno"},
        {"src": "s1", "dst": "d0", "transport": "udp", "rate": "2Mbps", "packet": 500},
    ]);
    let changes = json!([
        {"link": "r1-r2", "at": 3.0, "rate": "5Mbps", "loss": 0.01},
        {"link": "r2-d0", "at": 4.0, "delay": "9ms"},
        {"link": "r1-r2", "at": 5.0, "state": "down", "queued": "drop"},
        {"link": "r1-r2", "at": 5.5, "state": "up", "direction": "ab"},
        {"link": "r1-r2", "at": 5.7, "state": "up", "direction": "ba"},
    ]);
    let s = spec(8.0, json!("1ms"), 50, flows.clone(), changes);
    let (a, b) = (api::run(&s, 5).unwrap(), api::run(&s, 5).unwrap());
    for (x, y) in [
        (&a.flows, &b.flows),
        (&a.links, &b.links),
        (&a.events, &b.events),
        (&a.drops, &b.drops),
        (&a.flow_ts, &b.flow_ts),
        (&a.link_ts, &b.link_ts),
    ] {
        assert_eq!(x, y);
    }
    // Before 3 s the run is the one without changes: same drops, same events.
    let plain = api::run(&spec(8.0, json!("1ms"), 50, flows, json!([])), 5).unwrap();
    let early = |o: &RunOutput| {
        let t = o.drops.f64s("time");
        let seq = u64s(&o.drops, "seq");
        (0..t.len())
            .filter(|&i| t[i] < 3.0)
            .map(|i| (t[i].to_bits(), seq[i]))
            .collect::<Vec<_>>()
    };
    assert!(!early(&plain).is_empty());
    assert_eq!(early(&a), early(&plain));
    assert!(plain.links.column("drops_down").is_none(), "no column without changes");
    assert!(plain.events.column("link").is_none());
}

#[test]
fn bad_changes_are_refused_with_one_line_naming_the_field() {
    let cases = [
        (
            json!({"link": "r2-d7", "at": 1, "delay": 0.01}),
            "link_changes[0].link: \"r2-d7\" names no link",
        ),
        (
            json!({"link": "r2-d0", "at": 20, "delay": 0.01}),
            "link_changes[0].at: 20 s is not within the run",
        ),
        (
            json!({"link": "r2-d0", "at": 1, "rate": 0}),
            "link_changes[0].rate: rate 0 is not allowed",
        ),
        (
            json!({"link": "r2-d0", "at": 1, "rate": "-1Mbps"}),
            "link_changes[0].rate: rate \"-1Mbps\" is not allowed",
        ),
        (
            json!({"link": "r2-d0", "at": 1, "state": "off"}),
            "link_changes[0].state: \"off\" is not allowed",
        ),
        (
            json!({"link": "r2-d0", "at": 1, "state": "up", "queued": "drop"}),
            "link_changes[0].queued",
        ),
        (json!({"link": "r2-d0", "at": 1}), "link_changes[0]: changes nothing"),
        (
            json!({"a": "r2", "b": "s0", "at": 1, "delay": 0}),
            "link_changes[0]: there is no link between \"r2\" and \"s0\"",
        ),
        (json!({"link": "r2-d0", "at": 1, "loss": 1.0}), "link_changes[0].loss"),
        (
            json!({"link": "r2-d0", "at": 1, "rate": 1, "queue": 1_000_000}),
            "link_changes[0].rate: a full queue of 1000000 packets takes",
        ),
    ];
    for (c, want) in cases {
        let s = spec(10.0, json!("1ms"), 50, json!([{"src": "s0", "dst": "d0"}]), json!([c]));
        match api::validate(&s) {
            Err(api::Error::Scenario(m)) => {
                assert!(m.starts_with(want), "{m}");
                assert!(!m.contains('\n'));
            }
            other => panic!("{c}: {other:?}"),
        }
    }
    // a LAN hop is not a link
    let lan = json!({
        "sim": {"duration": 10},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "lans": [{"name": "l", "members": ["a", "b"], "rate": "10Mbps", "delay": "1ms"}],
        "link_changes": [{"a": "a", "b": "b", "at": 1, "delay": 0}],
    });
    match api::validate(&lan.to_string()) {
        Err(api::Error::Scenario(m)) => assert!(m.contains("changes to LAN hops are not supported"), "{m}"),
        other => panic!("{other:?}"),
    }
}

/// s - r1 - r2 - d (100 Mb/s, 1 ms; the bottleneck r1-r2 10 Mb/s, 20 ms, `queue`, holding
/// 2 % of the packets of each direction back by 5 ms), a NewReno flow and a 2 Mb/s CBR
/// flow from s to d, `changes`.
fn reordering_spec(queue: Value, changes: Value) -> String {
    json!({
        "sim": {"duration": 8.0, "sample_interval": 0.1, "drop_trace": true},
        "nodes": [{"name": "s"}, {"name": "r1", "kind": "router"}, {"name": "r2", "kind": "router"},
                  {"name": "d"}],
        "links": [
            {"a": "s", "b": "r1", "rate": "100Mbps", "delay": "1ms", "queue": 1000},
            {"a": "r1", "b": "r2", "rate": "10Mbps", "delay": "20ms", "queue": queue,
             "reorder": {"prob": 0.02, "delay": "5ms"}},
            {"a": "r2", "b": "d", "rate": "100Mbps", "delay": "1ms", "queue": 1000},
        ],
        "flows": [
            {"src": "s", "dst": "d", "cc": "newreno"},
            {"src": "s", "dst": "d", "transport": "udp", "rate": "2Mbps", "packet": 500},
        ],
        "link_changes": changes,
    })
    .to_string()
}

#[test]
fn a_reordering_link_takes_delay_and_rate_changes_and_accounts_for_every_packet() {
    // refused before issue 20. A delay increase, a rate change, a delay decrease and an
    // outage on a bottleneck holding packets back, on a plain, codel and fq_codel queue
    let changes = json!([
        {"link": "r1-r2", "at": 2.0, "delay": "40ms"},
        {"link": "r1-r2", "at": 3.0, "rate": "5Mbps"},
        {"link": "r1-r2", "at": 4.0, "delay": "5ms"},
        {"link": "r1-r2", "at": 5.0, "state": "down", "queued": "keep"},
        {"link": "r1-r2", "at": 5.3, "state": "up"},
    ]);
    for queue in [json!(50), json!({"type": "codel"}), json!({"type": "fq_codel"})] {
        let s = reordering_spec(queue.clone(), changes.clone());
        let (a, b) = (api::run(&s, 7).unwrap(), api::run(&s, 7).unwrap());
        for (x, y) in [
            (&a.flows, &b.flows),
            (&a.links, &b.links),
            (&a.events, &b.events),
            (&a.drops, &b.drops),
        ] {
            assert_eq!(x, y, "{queue}: same seed, same tables");
        }
        let l = &a.links;
        let col = |name| u64s(l, name);
        let (arr, dep, dq, dl, dd, sys, held) = (
            col("arrivals"),
            col("departures"),
            col("drops_queue"),
            col("drops_loss"),
            col("drops_down"),
            col("in_system"),
            col("reordered"),
        );
        for i in 0..arr.len() {
            // every packet offered is delivered, dropped, or still on its way: none lost or
            // duplicated by holding it back
            assert_eq!(arr[i], dep[i] + dq[i] + dl[i] + dd[i] + sys[i], "{queue}: row {i}");
        }
        assert_eq!(
            a.drops.f64s("time").len() as u64,
            dq.iter().chain(&dl).chain(&dd).sum::<u64>()
        );
        let (ab, ba) = (row(&a, "r1", "r2"), row(&a, "r2", "r1"));
        for r in [ab, ba] {
            let share = held[r] as f64 / dep[r] as f64;
            assert!((share - 0.02).abs() < 0.01, "{queue}: {held:?} {dep:?}");
        }
        for (r, &h) in held.iter().enumerate() {
            if r != ab && r != ba {
                assert_eq!(h, 0, "{queue}: not reordering");
            }
        }
    }
}
