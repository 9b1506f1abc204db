//! End-to-end checks of BBR v1 (cc/bbr.rs) and the delivery-rate sampling it uses
//! (tcp/sender/rate.rs).
use serde_json::{json, Value};
use tcplab_core::api::{self, RunOutput};

mod series;
use series::{bottleneck_queue, flow_series, mean};

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

fn goodputs(out: &RunOutput) -> Vec<f64> {
    out.flows.f64s("goodput_bps")
}

/// The names of flow `f`'s events with their values.
fn events(out: &RunOutput, f: usize) -> Vec<(String, f64)> {
    let names = match out.events.column("event") {
        Some(tcplab_core::api::Column::Str(v)) => v.clone(),
        _ => panic!("no event column"),
    };
    let (fl, v) = (out.events.f64s("flow"), out.events.f64s("value"));
    (0..names.len())
        .filter(|&i| fl[i] == f as f64)
        .map(|i| (names[i].clone(), v[i]))
        .collect()
}

/// Payload bits per second the 10 Mb/s bottleneck carries with 1000-byte segments and
/// 40-byte headers, and its rate in segments per second.
const PAYLOAD_BPS: f64 = 10e6 * 1000.0 / 1040.0;
const SEGMENTS_PER_S: f64 = 10e6 / (1040.0 * 8.0);

#[test]
fn one_flow_fills_the_path_with_a_short_queue_and_learns_the_path() {
    // 10 Mb/s, 40 ms, a 1000-packet buffer (25 BDPs), 30 s. Measured (seed 1): BBR 9.40 Mb/s
    // of goodput (97.8 % of the payload rate) with a mean queue of 9.4 packets after 5 s;
    // NewReno 8.76 Mb/s with 503 packets. btl_bw 1201.92 segments/s (the bottleneck's
    // 1201.92), min_rtt 41.0368 ms (the base RTT below, exactly).
    let out = api::run(&dumbbell("bbr", json!({}), 1, 1000, 30.0), 1).unwrap();
    let util = goodputs(&out)[0] / PAYLOAD_BPS;
    assert!(util >= 0.9, "utilisation {util}");
    let q = mean(&bottleneck_queue(&out, 5.0));
    let nr = api::run(&dumbbell("newreno", json!({}), 1, 1000, 30.0), 1).unwrap();
    let q_nr = mean(&bottleneck_queue(&nr, 5.0));
    assert!(q < q_nr / 10.0 && q < 30.0, "BBR queue {q}, NewReno {q_nr}");
    let bw = flow_series(&out, 0, "bbr_btl_bw", 5.0);
    assert!(
        bw.iter().all(|b| (b / SEGMENTS_PER_S - 1.0).abs() <= 0.05),
        "btl_bw {:?} against {SEGMENTS_PER_S}",
        bw
    );
    // propagation + serialisation of a data segment (1040 bytes) and an ACK (40 bytes) at
    // the bottleneck and at both access links
    let base = 0.040 + 1080.0 * 8.0 / 10e6 + 2.0 * 1080.0 * 8.0 / 100e6;
    let rtt = flow_series(&out, 0, "bbr_min_rtt", 5.0);
    // When the 10-s window expires the filter takes the current sample, queueing included,
    // until ProbeRTT's drained queue gives the base again (Linux does the same): 2 of 250
    // samples (53.2 and 49.1 ms).
    let off: Vec<f64> = rtt.iter().copied().filter(|r| (r / base - 1.0).abs() > 0.01).collect();
    assert!(off.len() * 50 <= rtt.len(), "min_rtt {off:?} against {base}");
    assert!(rtt.iter().all(|&r| r >= base * (1.0 - 1e-9)), "below the base RTT");
    assert!((rtt[rtt.len() - 1] / base - 1.0).abs() <= 0.01);
    // Startup, Drain, ProbeBW, and ProbeRTT about every 10 s (the min_rtt never falls)
    let states: Vec<f64> = events(&out, 0)
        .into_iter()
        .filter(|(n, _)| n == "bbr_state")
        .map(|(_, v)| v)
        .collect();
    assert_eq!(&states[..2], &[1.0, 2.0], "{states:?}");
    let probe_rtt = states.iter().filter(|&&s| s == 3.0).count();
    assert!((2..=3).contains(&probe_rtt), "{states:?}");
    for g in ["bbr_pacing_gain", "bbr_cwnd_gain", "bbr_state"] {
        assert!(flow_series(&out, 0, g, 0.0).iter().all(|x| x.is_finite()), "{g}");
    }
}

/// Jain's fairness index.
fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

#[test]
fn two_flows_share_fairly() {
    // Measured (seed 1, 60 s): 1000-packet buffer 4.81 and 4.62 Mb/s, Jain 0.9996, 98.1 % of
    // the payload rate; 100-packet buffer with SACK 4.71 and 4.72 Mb/s, Jain 1.0000, 98.0 %.
    for (limit, sack) in [(1000, false), (100, true)] {
        let mut spec: Value = serde_json::from_str(&dumbbell("bbr", json!({}), 2, limit, 60.0)).unwrap();
        spec["flows"][0]["tcp"] = json!({ "sack": sack });
        let out = api::run(&spec.to_string(), 1).unwrap();
        let g = goodputs(&out);
        let j = jain(&g);
        let util = g.iter().sum::<f64>() / PAYLOAD_BPS;
        assert!(
            j >= 0.9 && util >= 0.9,
            "buffer {limit}: {g:?} Jain {j} utilisation {util}"
        );
    }
}

#[test]
fn bbr_switched_in_mid_run_starts_sampling() {
    // NewReno for 10 s (filling the 100-packet buffer), then BBR: the sender starts its
    // rate sampler at the switch and BBR learns the bottleneck rate.
    let mut spec: Value = serde_json::from_str(&dumbbell("newreno", json!({}), 1, 100, 30.0)).unwrap();
    spec["flows"][0]["switch"] = json!([{"at": 10.0, "cc": "bbr"}]);
    let out = api::run(&spec.to_string(), 1).unwrap();
    let bw = flow_series(&out, 0, "bbr_btl_bw", 15.0);
    assert!(bw.iter().all(|b| (b / SEGMENTS_PER_S - 1.0).abs() <= 0.05), "{bw:?}");
    let g = goodputs(&out)[0] / PAYLOAD_BPS;
    assert!(g >= 0.9, "{g}");
}

#[test]
fn with_sack_and_a_shallow_buffer_losses_neither_stall_nor_inflate_the_estimate() {
    // Startup overshoots a 50-packet buffer by about 2 BDPs. Two faults, measured before they
    // were fixed (44 ms path, 20 s): the window at the start of recovery counted the lost
    // segments as in flight, which overflowed the queue with retransmissions until the timer
    // expired (1.58 Mb/s, 6 timeouts; this test fails with it: 84 %, 1 timeout); and then a
    // go-back-N retransmission of an already SACKed segment counted as a second delivery
    // (btl_bw 1903 segments/s against 1202; without the first fault no timeout happens here,
    // so the rate sampler's unit test guards this one). Now (40 ms path, 30 s, seed 1): 97.8 %
    // of the payload rate, no timeout, btl_bw at most 1201.92 segments/s.
    let mut spec: Value = serde_json::from_str(&dumbbell("bbr", json!({}), 1, 50, 30.0)).unwrap();
    spec["flows"][0]["tcp"] = json!({ "sack": true });
    let out = api::run(&spec.to_string(), 1).unwrap();
    let util = goodputs(&out)[0] / PAYLOAD_BPS;
    let timeouts = out.flows.f64s("timeouts")[0];
    let bw = flow_series(&out, 0, "bbr_btl_bw", 0.0);
    let top = bw.iter().cloned().fold(0.0, f64::max);
    assert!(
        util >= 0.9 && timeouts <= 1.0,
        "utilisation {util}, {timeouts} timeouts"
    );
    assert!(top <= SEGMENTS_PER_S * 1.05, "btl_bw up to {top}");
}

/// One flow over a 10 Mb/s, 2·(2 + 16 + 2) ms path whose bottleneck (a `limit`-packet
/// DropTail buffer) drops data segments at random with probability `loss` (ACKs are not
/// lost), with SACK and timestamps.
fn lossy_path(loss: f64, limit: u32, params: Value, duration: f64) -> String {
    json!({
        "sim": {"duration": duration, "sample_interval": 0.1},
        "nodes": [{"name": "s"}, {"name": "r1", "kind": "router"},
                  {"name": "r2", "kind": "router"}, {"name": "d"}],
        "links": [
            {"a": "s", "b": "r1", "rate": "100Mbps", "delay": "2ms", "queue": 1000},
            {"a": "r1", "b": "r2", "rate": "10Mbps", "delay": "16ms", "queue": limit,
             "loss_ab": loss},
            {"a": "r2", "b": "d", "rate": "100Mbps", "delay": "2ms", "queue": 1000}],
        "flows": [{"src": "s", "dst": "d", "cc": "bbr", "cc_params": params,
                   "tcp": {"sack": true, "timestamps": true}}]
    })
    .to_string()
}

/// The samples of flow 0 in ProbeBW with lt_bw in use, and its lt_bw start and end events.
fn lt_in_use(out: &RunOutput) -> (Vec<usize>, usize, usize) {
    let (lt_use, state) = (
        flow_series(out, 0, "bbr_lt_use", 0.0),
        flow_series(out, 0, "bbr_state", 0.0),
    );
    let on = (0..lt_use.len())
        .filter(|&i| lt_use[i] == 1.0 && state[i] == 2.0)
        .collect();
    let ev = events(out, 0);
    let count = |name: &str| ev.iter().filter(|(n, _)| n == name).count();
    (on, count("bbr_lt_bw_start"), count("bbr_lt_bw_end"))
}

#[test]
fn heavy_random_loss_engages_the_long_term_bandwidth() {
    // 25 % of the data segments lost at random, 60 s, seed 1. Measured: lt_bw in use in
    // ProbeBW in 441 of 601 samples, 15 starts and 15 ends (after 48 rounds), lt_bw between
    // 399.4 and 581.5 segments/s; 1.87 Mb/s of goodput with 57 timeouts (BBR's rate is not
    // stable at this loss here: retransmissions are lost too and the timer expires).
    let out = api::run(&lossy_path(0.25, 100, json!({}), 60.0), 1).unwrap();
    let (on, starts, ends) = lt_in_use(&out);
    let lt_bw = flow_series(&out, 0, "bbr_lt_bw", 0.0);
    let gain = flow_series(&out, 0, "bbr_pacing_gain", 0.0);
    let pacing = flow_series(&out, 0, "bbr_pacing_rate", 0.0);
    assert!(
        on.len() * 4 >= lt_bw.len(),
        "lt_bw in use in {} of {} samples",
        on.len(),
        lt_bw.len()
    );
    assert!(starts >= 2 && ends >= 1, "{starts} starts, {ends} ends");
    // in use it sets the pacing rate exactly, at gain 1, and it is a rate the path delivered
    for &i in &on {
        assert_eq!((pacing[i], gain[i]), (lt_bw[i], 1.0), "sample {i}");
        assert!(lt_bw[i] > 0.0 && lt_bw[i] <= SEGMENTS_PER_S, "sample {i}: {}", lt_bw[i]);
    }
    // lt_bw = 0 turns the estimate off
    let off = api::run(&lossy_path(0.25, 100, json!({"lt_bw": 0}), 60.0), 1).unwrap();
    let (on, starts, _) = lt_in_use(&off);
    assert!(on.is_empty() && starts == 0);
    assert!(flow_series(&off, 0, "bbr_lt_bw", 0.0).iter().all(|&b| b == 0.0));
}

#[test]
fn the_long_term_bandwidth_stays_off_without_heavy_loss() {
    // A clean path whose 50-packet buffer Startup overflows and 1 % random loss of the data
    // segments on a 100-packet buffer: losses far below 50/256 of the deliveries. Measured
    // (60 s, seed 1): 177 and 984 retransmissions, 97.7 % and 95.5 % of the payload rate, no
    // sample with lt_bw in use.
    for (loss, limit) in [(0.0, 50), (0.01, 100)] {
        let out = api::run(&lossy_path(loss, limit, json!({}), 60.0), 1).unwrap();
        let lt_use = flow_series(&out, 0, "bbr_lt_use", 0.0);
        let (_, starts, _) = lt_in_use(&out);
        let retx = out.flows.f64s("retransmits")[0];
        assert!(retx > 0.0, "loss {loss}, buffer {limit}: no loss at all");
        assert!(
            lt_use.iter().all(|&u| u == 0.0) && starts == 0,
            "loss {loss}, buffer {limit}"
        );
        let util = goodputs(&out)[0] / PAYLOAD_BPS;
        assert!(util >= 0.9, "loss {loss}, buffer {limit}: utilisation {util}");
    }
}
