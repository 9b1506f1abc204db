//! Step-by-step tests of the sender: slow start, each recovery variant, timeouts, Limited
//! Transmit, RTT estimation, presets and completion.
use super::*;
use crate::cc;
use crate::sim::{secs, to_secs};
use crate::tcp::{Kind, Tx};

const MS: Time = 1_000_000;

fn sender(name: &str, tcp: TcpSpec, size: Option<u64>) -> Sender {
    let cfg = SenderConfig::from_spec(&tcp, size);
    Sender::new(cfg, &tcp, cc::create(name, &cc::Params::new()).unwrap())
}

fn seqs(out: &[Tx]) -> Vec<u64> {
    out.iter().filter(|t| t.kind == Kind::Data).map(|t| t.seq).collect()
}

fn ack(s: &mut Sender, now: Time, a: u64) -> Vec<Tx> {
    let mut out = vec![];
    s.on_ack(now, Kind::Ack, a, 0, &mut out);
    out
}

/// Grow a NewReno sender to cwnd 10 in congestion avoidance with segments 0..10 in flight.
/// A started bulk sender whose first window is `w` segments (ssthresh `w`, no timer tick).
fn started(name: &str, w: f64, out: &mut Vec<Tx>) -> Sender {
    let tcp = TcpSpec {
        init_cwnd: w,
        init_ssthresh: w,
        tick: 0.0,
        ..TcpSpec::default()
    };
    let mut s = sender(name, tcp, None);
    s.start(0, out);
    s
}

fn sender_at_cwnd_10() -> Sender {
    let mut out = vec![];
    let s = started("newreno", 10.0, &mut out);
    assert_eq!(seqs(&out), (0..10).collect::<Vec<_>>());
    s
}

#[test]
fn preset_replaces_the_standard_start_for_any_algorithm() {
    for name in ["newreno", "reno", "tahoe", "westwood_be", "rfs"] {
        let tcp = TcpSpec {
            init_cwnd: 2.0,
            init_ssthresh: 64.0,
            min_rto: 0.2,
            tick: 0.0,
            ..TcpSpec::default()
        };
        let mut s = sender(name, tcp, None);
        s.preset(Preset {
            cwnd: 5.5,
            ssthresh: 40.0,
            rtt: Some((0.1, 0.05)),
        });
        let mut out = vec![];
        s.start(0, &mut out);
        assert_eq!(seqs(&out), vec![0, 1, 2, 3, 4], "{name}: burst of floor(5.5)");
        assert_eq!((s.st.cwnd, s.st.ssthresh), (5.5, 40.0), "{name}");
        assert!((s.rto - 0.3).abs() < 1e-12, "{name}: rto {}", s.rto);
        assert_eq!(s.rto_deadline, Some(secs(0.3)), "{name}");
        // the first sample smooths from the preset: 7/8·0.1 + 1/8·0.2
        ack(&mut s, 200 * MS, 1);
        assert!((s.st.srtt - 0.1125).abs() < 1e-12, "{name}: srtt {}", s.st.srtt);
    }
}

#[test]
fn overwrite_keeps_the_recovery_state() {
    let mut s = sender_at_cwnd_10();
    for k in 1..=3 {
        ack(&mut s, k * MS, 0);
    }
    assert_eq!(s.st.phase, Phase::FastRecovery);
    s.overwrite_window(3.25, 7.0);
    assert_eq!(s.st.phase, Phase::FastRecovery);
    assert_eq!((s.st.cwnd, s.st.ssthresh), (3.25, 7.0));
    let mut s = sender_at_cwnd_10();
    s.overwrite_window(3.0, 7.0);
    assert_eq!(s.st.phase, Phase::SlowStart);
}

#[test]
fn slow_start_doubles_per_round() {
    let mut s = sender("newreno", TcpSpec::default(), None);
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(seqs(&out), vec![0]);
    let o = ack(&mut s, 100 * MS, 1);
    assert_eq!(seqs(&o), vec![1, 2]);
    let o = ack(&mut s, 200 * MS, 2);
    assert_eq!(seqs(&o), vec![3, 4]);
    let o = ack(&mut s, 200 * MS, 3);
    assert_eq!(seqs(&o), vec![5, 6]);
    assert_eq!(s.st.cwnd, 4.0);
}

#[test]
fn newreno_fast_retransmit_partial_and_full_ack() {
    let mut s = sender_at_cwnd_10();
    // Segments 0 and 5 are lost. ACKs for 1..4 arrive as duplicates of 0.
    for k in 1..=2 {
        assert!(seqs(&ack(&mut s, k * MS, 0)).is_empty());
    }
    let o = ack(&mut s, 3 * MS, 0);
    assert_eq!(seqs(&o), vec![0], "third dup ACK retransmits the hole");
    assert_eq!(s.st.phase, Phase::FastRecovery);
    assert_eq!(s.st.ssthresh, 5.0);
    assert_eq!(s.st.cwnd, 8.0, "ssthresh + 3");
    assert_eq!(s.stats.fast_retransmits, 1);
    // Dup ACKs for 2,3,4 and 6..9 (7 more): cwnd inflates; new data once cwnd > flight.
    let mut sent = vec![];
    for k in 0..7 {
        sent.extend(seqs(&ack(&mut s, (4 + k) * MS, 0)));
    }
    assert_eq!(s.st.cwnd, 15.0);
    assert_eq!(sent, vec![10, 11, 12, 13, 14], "inflated window sends new data");
    // The retransmission of 0 arrives: ACK 5 is partial (recover = 10).
    let o = ack(&mut s, 20 * MS, 5);
    assert_eq!(seqs(&o)[0], 5, "partial ACK retransmits the next hole");
    assert_eq!(s.st.phase, Phase::FastRecovery);
    assert_eq!(s.st.cwnd, 15.0 - 5.0 + 1.0);
    // The retransmission of 5 arrives: ACK 15 covers recover -> full ACK.
    ack(&mut s, 30 * MS, 15);
    assert_ne!(s.st.phase, Phase::FastRecovery);
    assert_eq!(s.st.cwnd, 5.2, "full ACK: back to w/2 = 5, then opened by 1/5 (ns-2)");
    assert_eq!(s.stats.retransmits, 2);
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn a_window_larger_than_a_burst_leaves_in_chunks_in_order() {
    let w = 2 * MAX_BURST + 5;
    let mut out = vec![];
    let mut s = started("newreno", w as f64, &mut out);
    assert_eq!(out.len() as u64, MAX_BURST);
    assert!(s.burst_pending, "the rest of the window is pending");
    let mut all = seqs(&out);
    while std::mem::take(&mut s.burst_pending) {
        out.clear();
        s.try_send(0, &mut out);
        assert!(out.len() as u64 <= MAX_BURST);
        all.extend(seqs(&out));
    }
    assert_eq!(all, (0..w).collect::<Vec<_>>());
    assert_eq!((s.snd_nxt, s.st.flight), (w, w));
    out.clear();
    s.try_send(0, &mut out);
    assert!(out.is_empty() && !s.burst_pending, "nothing more until an ACK");
}

#[test]
fn recovery_returns_to_the_uninflated_half_window_as_ns2() {
    let in_recovery = || {
        let mut s = started("newreno", 11.0, &mut vec![]);
        for k in 1..=3 {
            ack(&mut s, k * MS, 0);
        }
        s
    };
    // Full ACK at once: back to 11/2 = 5.5 (ssthresh truncated to 5), and the full ACK
    // opens the window like any new ACK (ns-2's recv_newack_helper -> opencwnd):
    // 5.5 + 1/5.5, in congestion avoidance.
    let mut s = in_recovery();
    assert_eq!((s.st.ssthresh, s.st.cwnd, s.st.recovery_base), (5.0, 8.5, 5.5));
    ack(&mut s, 10 * MS, 11);
    assert_eq!((s.st.cwnd, s.st.phase), (5.5 + 1.0 / 5.5, Phase::CongestionAvoidance));
    // A partial ACK for 6 segments uses up the inflation of 3 and deflates the base to
    // 8.5 - 6 + 1 - 1 = 2.5 (ns-2: cwnd_ -= deflate - dupwnd_, dupwnd_ = 1); the full ACK
    // returns to it and, below ssthresh, adds a slow-start segment.
    let mut s = in_recovery();
    ack(&mut s, 10 * MS, 6);
    assert_eq!(
        (s.st.cwnd, s.st.recovery_base, s.st.phase),
        (3.5, 2.5, Phase::FastRecovery)
    );
    ack(&mut s, 20 * MS, 11);
    assert_eq!(s.st.cwnd, 3.5);
    assert_eq!(s.st.phase, Phase::SlowStart, "below ssthresh after the deflation");
    // With exit_increase = 0 the exit leaves the window at the base.
    let mut p = cc::Params::new();
    p.insert("exit_increase".into(), 0.0);
    let tcp = TcpSpec {
        init_cwnd: 11.0,
        init_ssthresh: 11.0,
        tick: 0.0,
        ..TcpSpec::default()
    };
    let mut s = Sender::new(
        SenderConfig::from_spec(&tcp, None),
        &tcp,
        cc::create("newreno", &p).unwrap(),
    );
    s.start(0, &mut vec![]);
    for k in 1..=3 {
        ack(&mut s, k * MS, 0);
    }
    ack(&mut s, 10 * MS, 11);
    assert_eq!(s.st.cwnd, 5.5);
}

#[test]
fn reno_leaves_recovery_on_partial_ack() {
    let mut s = started("reno", 10.0, &mut vec![]);
    for k in 1..=3 {
        ack(&mut s, k * MS, 0);
    }
    assert_eq!(s.st.phase, Phase::FastRecovery);
    ack(&mut s, 10 * MS, 5);
    assert_eq!(s.st.phase, Phase::CongestionAvoidance);
    assert_eq!(s.st.cwnd, 5.2, "w/2 = 5, opened by 1/5 on the same ACK (ns-2)");
}

#[test]
fn tahoe_goes_back_to_one_segment() {
    let mut s = started("tahoe", 10.0, &mut vec![]);
    ack(&mut s, MS, 0);
    ack(&mut s, 2 * MS, 0);
    let o = ack(&mut s, 3 * MS, 0);
    assert_eq!(seqs(&o), vec![0]);
    assert_eq!((s.st.cwnd, s.st.ssthresh), (1.0, 5.0));
    assert_eq!(s.st.phase, Phase::SlowStart);
}

#[test]
fn timeout_backs_off_exponentially_up_to_the_cap() {
    let tcp = TcpSpec {
        initial_rto: 1.0,
        max_rto: 64.0,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, None);
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(s.rto_deadline, Some(secs(1.0)));
    let mut now = 0;
    let mut gaps = vec![];
    for _ in 0..9 {
        let d = s.rto_deadline.unwrap();
        gaps.push(to_secs(d - now));
        now = d;
        let mut o = vec![];
        s.on_timeout(now, &mut o);
        assert_eq!(seqs(&o), vec![0], "go-back-N resends the first unacknowledged");
    }
    assert_eq!(gaps, vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 64.0, 64.0]);
    assert_eq!(s.stats.timeouts, 9);
    assert_eq!(s.st.phase, Phase::TimeoutRecovery);
    // Repeated timeouts left ssthresh at its floor of 2; a new ACK ends timeout recovery.
    assert_eq!(s.st.ssthresh, 2.0);
    ack(&mut s, now + MS, 1);
    assert_eq!(s.st.cwnd, 2.0);
    assert_eq!(s.st.phase, Phase::CongestionAvoidance);
}

#[test]
fn timeout_in_flight_resets_window_and_ssthresh() {
    let mut s = sender_at_cwnd_10();
    let mut out = vec![];
    s.on_timeout(secs(3.0), &mut out);
    assert_eq!(seqs(&out), vec![0]);
    assert_eq!((s.st.cwnd, s.st.ssthresh), (1.0, 5.0));
    // Dup ACKs from segments sent before the timeout do not start fast recovery.
    for k in 1..=5 {
        ack(&mut s, secs(3.0) + k * MS, 0);
    }
    assert_eq!(s.stats.fast_retransmits, 0);
}

#[test]
fn timeout_in_fast_recovery_halves_ssthresh_again_without_the_inflation() {
    let mut s = sender_at_cwnd_10();
    for k in 1..=3 {
        ack(&mut s, k * MS, 0);
    }
    for k in 4..=40 {
        ack(&mut s, k * MS, 0); // inflation to 8 + 37
    }
    assert_eq!(s.st.phase, Phase::FastRecovery);
    assert_eq!(s.st.cwnd, 45.0);
    let mut out = vec![];
    s.on_timeout(secs(2.0), &mut out);
    assert_eq!(
        (s.st.cwnd, s.st.ssthresh),
        (1.0, 2.0),
        "halves ssthresh 5 -> 2, not the inflated 45"
    );
}

#[test]
fn impatient_timer_is_rearmed_on_the_first_partial_ack_only() {
    let mut s = sender_at_cwnd_10();
    for k in 1..=3 {
        ack(&mut s, k * MS, 0);
    }
    let first = secs(0.5);
    ack(&mut s, first, 2);
    let armed = s.rto_deadline;
    ack(&mut s, first + 100 * MS, 4);
    assert_eq!(s.st.phase, Phase::FastRecovery);
    assert_eq!(s.rto_deadline, armed, "second partial ACK leaves the timer alone");
}

#[test]
fn limited_transmit_sends_one_new_segment_per_early_dup_ack() {
    let tcp = TcpSpec {
        init_cwnd: 4.0,
        init_ssthresh: 4.0,
        limited_transmit: true,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, None);
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(seqs(&ack(&mut s, MS, 0)), vec![4]);
    assert_eq!(seqs(&ack(&mut s, 2 * MS, 0)), vec![5]);
    assert_eq!(seqs(&ack(&mut s, 3 * MS, 0)), vec![0], "third: fast retransmit only");
}

#[test]
fn limited_transmit_after_a_timeout_resends_the_go_back_n_segments_as_ns2() {
    // ns-2's send_one sends t_seqno_, which the timeout reset to the first unacknowledged
    // segment: duplicate ACKs for segments sent before the timeout let the next
    // already-sent segments out again (as retransmissions).
    let tcp = TcpSpec {
        init_cwnd: 10.0,
        init_ssthresh: 10.0,
        limited_transmit: true,
        tick: 0.0,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, None);
    s.start(0, &mut vec![]);
    let mut out = vec![];
    s.on_timeout(secs(3.0), &mut out);
    assert_eq!(seqs(&out), vec![0], "go-back-N from the hole with cwnd 1");
    assert_eq!((s.snd_nxt, s.snd_max), (1, 10));
    // Two duplicate ACKs from segments still in flight: cwnd 1 + dupacks allows 1 and 2.
    assert_eq!(seqs(&ack(&mut s, secs(3.0) + MS, 0)), vec![1]);
    assert_eq!(seqs(&ack(&mut s, secs(3.0) + 2 * MS, 0)), vec![2]);
    assert_eq!(seqs(&ack(&mut s, secs(3.0) + 3 * MS, 0)), Vec::<u64>::new());
    assert_eq!((s.snd_nxt, s.snd_max, s.stats.retransmits), (3, 10, 3));
    assert_eq!(
        s.stats.fast_retransmits, 0,
        "no fast retransmit inside the timed-out window"
    );
}

#[test]
fn rto_follows_rfc6298_with_min_rto_and_tick() {
    let tcp = TcpSpec {
        min_rto: 0.2,
        tick: 0.01,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, None);
    let mut out = vec![];
    s.start(0, &mut out);
    ack(&mut s, 100 * MS, 1); // sample 100 ms: srtt 0.1, rttvar 0.05
    assert!((s.st.srtt - 0.1).abs() < 1e-12);
    assert!((s.rto - 0.3).abs() < 1e-12, "rto {}", s.rto);
    assert_eq!(s.st.min_rtt, 0.1);
}

#[test]
fn fixed_size_flow_completes_with_and_without_handshake() {
    let mut s = sender("newreno", TcpSpec::default(), Some(3));
    let mut out = vec![];
    s.start(0, &mut out);
    ack(&mut s, MS, 1);
    ack(&mut s, 2 * MS, 3);
    assert_eq!(s.stats.completion, Some(2 * MS));

    let tcp = TcpSpec {
        handshake: true,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, Some(1));
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(out[0].kind, Kind::Syn);
    let mut out = vec![];
    s.on_ack(10 * MS, Kind::SynAck, 0, 0, &mut out);
    assert_eq!(seqs(&out), vec![0]);
    let mut out = vec![];
    s.on_ack(20 * MS, Kind::Ack, 1, 10 * MS, &mut out);
    assert_eq!(out[0].kind, Kind::Fin);
    assert_eq!(s.stats.completion, None);
    s.on_ack(30 * MS, Kind::FinAck, 1, 0, &mut out);
    assert_eq!(s.stats.completion, Some(30 * MS));
}

#[test]
fn fixed_interval_sampling_tags_one_segment_per_interval_and_follows_karn() {
    // Window of 10 sent at t = 0, 10 more at 4 ms intervals as ACKs come: with a 10 ms
    // interval the segments sent at 0, 12 and 24 ms are tagged (not 4 or 8 ms).
    let tcp = TcpSpec {
        init_cwnd: 10.0,
        init_ssthresh: 10.0,
        tick: 0.0,
        rtt_sample_interval: 0.010,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, None);
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(s.tagged, VecDeque::from([(0, 0)]), "one tag for the whole first window");
    // ACK of segment 0 at 50 ms: sample 50 ms; segment 10 leaves at 50 ms, tagged.
    let out = ack(&mut s, 50 * MS, 1);
    assert!(!out.is_empty());
    assert_eq!((s.st.srtt, s.st.min_rtt), (0.05, 0.05));
    assert_eq!(s.tagged, VecDeque::from([(10, 50 * MS)]));
    // ACKs at 54 and 58 ms send segments but tag none (within 10 ms of the last tag); the
    // one at 62 ms tags its first new segment.
    ack(&mut s, 54 * MS, 2);
    ack(&mut s, 58 * MS, 3);
    assert_eq!(s.tagged.len(), 1);
    let before = s.snd_max;
    ack(&mut s, 62 * MS, 4);
    assert_eq!(s.tagged, VecDeque::from([(10, 50 * MS), (before, 62 * MS)]));
    // A cumulative ACK covering both tags samples from the later one: 80 - 62 = 18 ms.
    let srtt = s.st.srtt;
    ack(&mut s, 80 * MS, before + 1);
    let r = 0.018;
    let expected = srtt + (r - srtt) / 8.0;
    assert!((s.st.srtt - expected).abs() < 1e-12, "{} vs {expected}", s.st.srtt);
    assert!(s.tagged.iter().all(|&(q, _)| q > before));
    assert_eq!(
        s.tagged.len(),
        1,
        "the segment sent at 80 ms is tagged (72 ms had passed)"
    );
    // Karn: three duplicate ACKs retransmit snd_una; every tag at or above it goes.
    let una = s.snd_una;
    for k in 0..3 {
        ack(&mut s, (90 + k) * MS, una);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    assert!(s.tagged.is_empty(), "{:?}", s.tagged);
}

#[test]
fn an_algorithm_may_ask_for_fixed_interval_sampling_and_a_pacing_tick() {
    // Sync-TCP asks for its T_sample (10 ms) when the flow sets no interval of its own and
    // runs without timestamps; a flow's own interval and timestamps win.
    let with = |tcp: TcpSpec, params: &[(&str, f64)]| {
        let p: cc::Params = params.iter().map(|&(k, v)| (k.to_string(), v)).collect();
        let cfg = SenderConfig::from_spec(&tcp, None);
        Sender::new(cfg, &tcp, cc::create("sync_tcp", &p).unwrap())
    };
    let s = with(TcpSpec::default(), &[]);
    assert_eq!((s.cfg.rtt_sample_interval, s.cfg.pacing_tick), (10 * MS, 5 * MS));
    let s = with(TcpSpec::default(), &[("t_sample", 0.004), ("t_pace", 0.002)]);
    assert_eq!((s.cfg.rtt_sample_interval, s.cfg.pacing_tick), (4 * MS, 2 * MS));
    let own = TcpSpec {
        rtt_sample_interval: 0.02,
        ..TcpSpec::default()
    };
    assert_eq!(with(own, &[]).cfg.rtt_sample_interval, 20 * MS);
    let ts = TcpSpec {
        timestamps: true,
        ..TcpSpec::default()
    };
    assert_eq!(with(ts, &[]).cfg.rtt_sample_interval, 0);
    assert_eq!(sender("newreno", TcpSpec::default(), None).cfg.rtt_sample_interval, 0);
    // switched in at run time, it starts the sampling too
    let mut s = sender("newreno", TcpSpec::default(), None);
    let mut out = vec![];
    s.switch_cc(0, cc::create("sync_tcp", &cc::Params::new()).unwrap(), &mut out);
    assert_eq!(s.cfg.rtt_sample_interval, 10 * MS);
}

#[test]
fn without_an_interval_one_segment_per_window_is_timed() {
    let mut out = vec![];
    let mut s = started("newreno", 10.0, &mut out);
    assert!(s.tagged.is_empty());
    assert_eq!(s.timing, Some((0, 0)));
    ack(&mut s, 50 * MS, 1);
    // segments 10 and 11 left at 50 ms; the first of them is timed
    assert_eq!(s.timing, Some((10, 50 * MS)));
    ack(&mut s, 54 * MS, 2);
    assert_eq!(s.timing, Some((10, 50 * MS)), "one at a time");
}

fn paced(pacing: Pacing, tick: f64, w: f64) -> Sender {
    let tcp = TcpSpec {
        init_cwnd: w,
        init_ssthresh: w,
        tick: 0.0,
        pacing_tick: tick,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, None);
    s.st.pacing = pacing;
    s
}

/// Fire the pacing events the sender asks for until `until`; the data segments sent at
/// each event.
fn run_pacer(s: &mut Sender, until: Time) -> Vec<(Time, Vec<u64>)> {
    let mut sent = vec![];
    while let Some(d) = s.pace_event_due() {
        if d > until {
            break;
        }
        let mut out = vec![];
        assert!(s.on_pace_event(d, &mut out));
        sent.push((d, seqs(&out)));
    }
    sent
}

#[test]
fn leaky_bucket_pacing_sends_a_ticks_worth_per_tick() {
    // 1000 segments/s with a 5 ms timer: one segment at the start (the bucket holds one),
    // then 5 per tick until the window of 20 is out (the bucket holds up to 6).
    let mut s = paced(Pacing::Rate(1000.0), 0.005, 20.0);
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(seqs(&out), vec![0]);
    let sent = run_pacer(&mut s, 100 * MS);
    assert_eq!(
        sent,
        vec![
            (5 * MS, vec![1, 2, 3, 4, 5]),
            (10 * MS, vec![6, 7, 8, 9, 10]),
            (15 * MS, vec![11, 12, 13, 14, 15]),
            (20 * MS, vec![16, 17, 18, 19]),
        ]
    );
    assert!(!s.pacer_waiting(), "window-limited: the pacer sleeps");
    // An ACK 50 ms later finds a full bucket (6, not 50 segments' worth): the window's
    // room (1 acked + the congestion-avoidance growth) leaves at once.
    let out = ack(&mut s, 70 * MS, 1);
    assert_eq!(seqs(&out), vec![20]);
    assert_eq!(s.pacer_tokens(), 5.0);
    // A stale event (an earlier schedule superseded) does nothing.
    assert!(!s.on_pace_event(71 * MS, &mut vec![]));
}

#[test]
fn a_ticks_fraction_of_a_segment_carries_over() {
    // 240 segments/s with a 5 ms timer is 1.2 segments per tick: 1, 1, 1, 2, 1, ... on
    // average 1.2 (a cap of one tick's worth would lose the fraction: 1 per tick).
    let mut s = paced(Pacing::Rate(240.0), 0.005, 1000.0);
    let mut out = vec![];
    s.start(0, &mut out);
    let sent: usize = run_pacer(&mut s, secs(1.0)).iter().map(|(_, q)| q.len()).sum();
    assert!((239..=241).contains(&(sent + seqs(&out).len())), "{sent}");
}

#[test]
fn per_packet_pacing_spaces_segments_exactly() {
    let mut s = paced(Pacing::Rate(250.0), 0.0, 6.0);
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(seqs(&out), vec![0]);
    let sent = run_pacer(&mut s, secs(1.0));
    let times: Vec<Time> = sent.iter().map(|(t, _)| *t).collect();
    assert_eq!(times, vec![4 * MS, 8 * MS, 12 * MS, 16 * MS, 20 * MS]);
    assert!(sent.iter().all(|(_, q)| q.len() == 1));
}

#[test]
fn window_pacing_waits_for_an_rtt_estimate_then_spreads_the_window_over_srtt() {
    let mut s = paced(Pacing::Window, 0.005, 10.0);
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(seqs(&out).len(), 10, "no estimate yet: the first window is not paced");
    assert_eq!(s.pacing_rate(), None);
    // srtt 100 ms after the first ACK: cwnd 10.1 / 0.1 s = 101 segments/s, half a segment
    // per tick; the bucket (cap one segment) lets the one new segment out now.
    let out = ack(&mut s, 100 * MS, 1);
    assert_eq!(seqs(&out), vec![10]);
    let r = s.pacing_rate().unwrap();
    assert!((r - 101.0).abs() < 1e-9, "{r}");
}

/// Deliver data segments `seqs` to `r` and hand each ACK, with its SACK blocks, to `s`;
/// the data segments the sender answers with, per delivered segment.
fn through_receiver(s: &mut Sender, r: &mut crate::tcp::Receiver, t: &mut Time, data: &[u64]) -> Vec<Vec<u64>> {
    let mut sent = vec![];
    for &q in data {
        *t += MS;
        let mut acks = vec![];
        r.on_data(*t, q, 0, &mut acks);
        let mut out = vec![];
        for a in acks {
            let blocks = r.take_sack(a.sack);
            s.on_ack_sack(*t, Kind::Ack, a.seq, a.ts_echo, blocks.as_ref(), false, &mut out);
        }
        sent.push(seqs(&out));
    }
    sent
}

/// A started NewReno sender with SACK whose first window is `w` segments (ssthresh `w`), its
/// SACK receiver, and what the sender sent.
fn sack_pair(w: f64) -> (Sender, crate::tcp::Receiver, Vec<Tx>) {
    sack_pair_with("newreno", w)
}

/// `sack_pair` for algorithm `cc`.
fn sack_pair_with(cc: &str, w: f64) -> (Sender, crate::tcp::Receiver, Vec<Tx>) {
    let tcp = TcpSpec {
        init_cwnd: w,
        init_ssthresh: w,
        tick: 0.0,
        sack: true,
        ..TcpSpec::default()
    };
    let mut s = sender(cc, tcp, None);
    let mut out = vec![];
    s.start(0, &mut out);
    (s, crate::tcp::Receiver::new(false, 2, 0).with_sack(true), out)
}

#[test]
fn sack_recovery_retransmits_what_is_lost_and_sends_new_data_by_pipe() {
    // cwnd 10 in congestion avoidance, segments 0..10 out; 0 and 3 are lost.
    let (mut s, mut r, out) = sack_pair(10.0);
    assert_eq!(seqs(&out), (0..10).collect::<Vec<_>>());
    let mut t = 0;
    let sent = through_receiver(&mut s, &mut r, &mut t, &[1, 2, 4, 5, 6, 7, 8, 9]);
    // The third duplicate ACK (SACKing 1, 2, 4) starts recovery: cwnd 5, 0 retransmitted,
    // pipe = 6 not lost + 1 retransmitted > cwnd. After 6 is SACKed, 3 has three SACKed
    // segments above it: lost, retransmitted (pipe 4 -> 5). Then NextSeg has no hole left
    // below the highest SACK and sends new data, one per ACK (pipe stays 4 + 1).
    assert_eq!(
        sent,
        vec![vec![], vec![], vec![0], vec![], vec![3], vec![10], vec![11], vec![12]]
    );
    assert_eq!(
        (s.st.phase, s.st.cwnd, s.stats.fast_retransmits),
        (Phase::FastRecovery, 5.0, 1)
    );
    assert_eq!(s.stats.retransmits, 2);
    // The retransmitted 0 arrives: partial ACK (3); pipe = 3 not lost above the boundary
    // + 1 retransmitted (3) = 4: one more new segment.
    assert_eq!(through_receiver(&mut s, &mut r, &mut t, &[0]), vec![vec![13]]);
    assert_eq!(s.st.phase, Phase::FastRecovery);
    // The retransmitted 3: everything up to 10 is acknowledged, recovery ends at the
    // window it started from (5, plus ns-2's exit increase of 1/5), and the ACK clock
    // goes on: 4 in flight, one more.
    assert_eq!(through_receiver(&mut s, &mut r, &mut t, &[3]), vec![vec![14]]);
    assert_eq!(s.snd_una, 10);
    assert_eq!(s.st.phase, Phase::CongestionAvoidance);
    assert!((s.st.cwnd - 5.2).abs() < 1e-12, "{}", s.st.cwnd);
    assert_eq!(s.stats.retransmits, 2, "nothing sent twice needlessly");
}

#[test]
fn sack_recovery_needs_a_timeout_when_a_retransmission_is_lost_and_forgets_the_blocks() {
    let (mut s, mut r, _) = sack_pair(8.0);
    let mut t = 0;
    through_receiver(&mut s, &mut r, &mut t, &[1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(s.stats.retransmits, 1, "0 retransmitted (and lost again)");
    assert!(s.scoreboard.as_ref().unwrap().sacked() > 0);
    let deadline = s.rto_deadline.unwrap();
    let mut out = vec![];
    s.on_timeout(deadline, &mut out);
    assert_eq!(seqs(&out), vec![0], "go-back-N from the hole, cwnd 1");
    assert_eq!(
        s.scoreboard.as_ref().unwrap().sacked(),
        0,
        "SACK information is dropped after a timeout"
    );
}

#[test]
fn a_lost_retransmission_in_sack_recovery_lowers_cwnd_to_pipe_plus_one() {
    let (mut s, mut r, _) = sack_pair(10.0);
    let mut t = 0;
    // 0 is lost, and so is its retransmission: 1, 2, 3 start recovery (cwnd 5, 0 sent
    // again), 4, 5 leave pipe above cwnd, 6..9 let 10..13 out one per ACK.
    let sent = through_receiver(&mut s, &mut r, &mut t, &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(sent.concat(), vec![0, 10, 11, 12, 13]);
    assert_eq!(s.st.cwnd, 5.0);
    // 10, sent after the retransmission, is SACKed while 0 is not: the retransmission was
    // lost. pipe = 11, 12, 13 (the SACKed 8, 9, 10 make everything below 8 lost) = 3, so
    // cwnd 5 -> 4 and only 0 goes again (without the bound: 0 and new data 14).
    assert_eq!(through_receiver(&mut s, &mut r, &mut t, &[10]), vec![vec![0]]);
    assert_eq!((s.st.cwnd, s.st.recovery_base), (4.0, 4.0));
    assert_eq!(s.st.phase, Phase::FastRecovery);
    // The second retransmission arrives: recovery ends from the lowered window, 4, below
    // ssthresh 5, so ns-2's exit increase is slow start's +1.
    through_receiver(&mut s, &mut r, &mut t, &[0]);
    assert_eq!((s.st.cwnd, s.st.ssthresh), (5.0, 5.0));
}

#[test]
fn a_pacing_event_for_a_sender_that_cannot_send_is_not_repeated() {
    // Found by the property tests: a flow completed (or not yet established) while its
    // pacer waited; the event found nothing to send and asked for itself again at the
    // same instant, forever.
    let mut s = paced(Pacing::Rate(200.0), 0.005, 10.0);
    let mut out = vec![];
    s.start(0, &mut out);
    assert!(s.pacer_waiting());
    s.state = ConnState::Closed;
    let d = s.pace_event_due().unwrap();
    assert!(s.on_pace_event(d, &mut out));
    assert!(!s.pacer_waiting());
    assert_eq!(s.pace_event_due(), None);
}

fn ecn_sender(w: f64, out: &mut Vec<Tx>) -> Sender {
    let tcp = TcpSpec {
        init_cwnd: w,
        init_ssthresh: w,
        tick: 0.0,
        ecn: true,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, None);
    s.start(0, out);
    s
}

fn ack_ece(s: &mut Sender, now: Time, a: u64, ece: bool) -> Vec<Tx> {
    let mut out = vec![];
    s.on_ack_sack(now, Kind::Ack, a, 0, None, ece, &mut out);
    out
}

#[test]
fn ecn_echo_halves_once_per_window_and_the_next_new_segment_carries_cwr() {
    use crate::net::Ecn;
    let mut out = vec![];
    let mut s = ecn_sender(10.0, &mut out);
    assert!(
        out.iter().all(|t| t.ecn.codepoint() == Ecn::Ect0 && !t.ecn.cwr()),
        "new data is ECT(0)"
    );
    // ACK 1 echoes a mark: cwnd 10 -> 5, ssthresh 5, nothing retransmitted, and the
    // window (5, flight 9) lets nothing out yet.
    let out = ack_ece(&mut s, 10 * MS, 1, true);
    assert_eq!((s.st.cwnd, s.st.ssthresh), (5.0, 5.0));
    assert!(out.is_empty());
    assert_eq!(s.stats.ecn_reductions, 1);
    assert_eq!(s.stats.retransmits, 0);
    // Further echoes for data sent before the reduction do not reduce again, and ACKs with
    // ECE do not open the window. ACK 6 slides the window of 5 past segment 9: the first
    // new segment (10) carries CWR, the next one not.
    let mut out = vec![];
    for a in 2..=6 {
        out.extend(ack_ece(&mut s, (10 + a) * MS, a, true));
    }
    assert_eq!((s.st.cwnd, s.st.ssthresh, s.stats.ecn_reductions), (5.0, 5.0, 1));
    assert_eq!(seqs(&out), vec![10]);
    assert!(out[0].ecn.cwr() && out[0].ecn.codepoint() == Ecn::Ect0);
    let out = ack_ece(&mut s, 20 * MS, 7, false);
    assert_eq!(seqs(&out), vec![11]);
    assert!(!out[0].ecn.cwr());
    assert_eq!(s.st.cwnd, 5.2, "a clean ACK opens the window again");
    // An echo for data sent after the reduction (ack 11 > 10 = snd_max then) is a new
    // congestion event.
    let w = s.st.cwnd;
    ack_ece(&mut s, 30 * MS, 11, true);
    assert_eq!(s.stats.ecn_reductions, 2);
    assert_eq!(s.st.cwnd, w / 2.0);
}

#[test]
fn a_loss_in_the_window_of_an_ecn_reduction_is_retransmitted_without_a_second_cut() {
    let mut out = vec![];
    let mut s = ecn_sender(10.0, &mut out);
    ack_ece(&mut s, 10 * MS, 1, true);
    assert_eq!(s.st.cwnd, 5.0);
    // segment 1 was lost: three duplicate ACKs for 1
    let mut out = vec![];
    for k in 0..3 {
        out.extend(ack_ece(&mut s, (11 + k) * MS, 1, true));
    }
    assert_eq!(seqs(&out), vec![1], "fast retransmit of the hole");
    assert_eq!(s.st.phase, Phase::FastRecovery);
    assert_eq!(s.st.ssthresh, 5.0, "no second reduction");
    assert_eq!(s.st.cwnd, 5.0 + 3.0, "recovery from the ECN-reduced window, inflated");
    assert_eq!((s.stats.fast_retransmits, s.stats.ecn_reductions), (1, 1));
    assert!(!out[0].ecn.is_ect(), "a retransmission is Not-ECT");
    // Without the preceding ECN cut the same duplicate ACKs halve the window.
    let mut out = vec![];
    let mut s = ecn_sender(10.0, &mut out);
    ack_ece(&mut s, 10 * MS, 1, false);
    for k in 0..3 {
        ack_ece(&mut s, (11 + k) * MS, 1, false);
    }
    assert_eq!(s.st.ssthresh, 5.0);
    assert_eq!(s.stats.ecn_reductions, 0);
}

#[test]
fn without_ecn_echoes_are_ignored_and_nothing_is_ect() {
    let mut out = vec![];
    let mut s = started("newreno", 10.0, &mut out);
    assert!(out.iter().all(|t| !t.ecn.is_ect()));
    ack_ece(&mut s, 10 * MS, 1, true);
    assert_eq!(s.st.cwnd, 10.1, "congestion avoidance goes on");
    assert_eq!(s.stats.ecn_reductions, 0);
}

#[test]
fn an_ecn_connection_opens_with_an_ecn_setup_syn() {
    let tcp = TcpSpec {
        handshake: true,
        ecn: true,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, None);
    let mut out = vec![];
    s.start(0, &mut out);
    assert_eq!(out[0].kind, Kind::Syn);
    assert!(out[0].ecn.ece() && out[0].ecn.cwr() && !out[0].ecn.is_ect());
}

#[test]
fn linux_ports_halve_the_rate_in_sack_recovery_as_tcp_linux() {
    // A window of 20 with 0 lost, then the SACKs of 1..19 one by one.
    let run = |cc: &str| {
        let (mut s, mut r, _) = sack_pair_with(cc, 20.0);
        let mut t = 0;
        let sent = through_receiver(&mut s, &mut r, &mut t, &(1..20).collect::<Vec<_>>());
        (sent, s)
    };
    // H-TCP, a Linux port: at the third duplicate ACK cwnd falls to its floor ssthresh = 10
    // while the rate-halving window starts from the old 20 and follows pipe + 1 down: 0 is
    // retransmitted and 20 sent, then one new segment every second ACK (TCP-Linux's
    // `next_pkts_in_flight_`), the window shrinking by one per two ACKs to the floor.
    let (sent, s) = run("htcp");
    let mut expect: Vec<Vec<u64>> = vec![vec![], vec![], vec![0, 20]];
    for q in 21..29 {
        expect.push(vec![]);
        expect.push(vec![q]);
    }
    assert_eq!(sent, expect);
    assert_eq!((s.st.cwnd, s.window()), (10.0, 10.0));
    // NewReno (RFC 6675) sends nothing until pipe falls below cwnd = 10, then one per ACK.
    let (sent, s) = run("newreno");
    let mut expect: Vec<Vec<u64>> = vec![vec![], vec![], vec![0]];
    expect.extend((0..7).map(|_| vec![]));
    expect.extend((20..29).map(|q| vec![q]));
    assert_eq!(sent, expect);
    assert_eq!((s.st.cwnd, s.window()), (10.0, 10.0));
    // Scalable's floor is ssthresh/2: 20 - 20/8 = 18, floor 9. When the retransmitted 0
    // arrives, recovery ends with cwnd = min(ssthresh, pipe + 3) (TCP-Linux's exit).
    let (_, mut s) = run("scalable");
    assert_eq!((s.st.ssthresh, s.st.cwnd), (18.0, 9.0));
    let mut r = crate::tcp::Receiver::new(false, 2, 0).with_sack(true);
    let mut acks = vec![];
    for q in 1..20 {
        r.on_data(0, q, 0, &mut acks);
    }
    // 20..28 are in flight: cwnd = min(18, 9 + 3) = 12, three new segments, slow start.
    assert_eq!(s.snd_max, 29);
    let mut t = 100 * MS;
    assert_eq!(through_receiver(&mut s, &mut r, &mut t, &[0]), vec![vec![29, 30, 31]]);
    assert_eq!((s.st.cwnd, s.st.ssthresh, s.st.phase), (12.0, 18.0, Phase::SlowStart));
}

#[test]
fn linux_ports_never_grow_cwnd_beyond_the_receive_window() {
    // rwnd 8 segments: the window is full after slow start; a Linux port's cwnd stops at 8
    // (TCP-Linux's snd_cwnd_clamp), NewReno's goes on growing with every ACK (ns-2's).
    let grow = |cc: &str| {
        let tcp = TcpSpec {
            init_cwnd: 2.0,
            rwnd: 8.0,
            tick: 0.0,
            ..TcpSpec::default()
        };
        let mut s = sender(cc, tcp, None);
        s.start(0, &mut vec![]);
        for a in 1..=40 {
            ack(&mut s, a * MS, a);
        }
        s.st.cwnd
    };
    assert_eq!(grow("htcp"), 8.0);
    assert_eq!(grow("cubic_linux"), 8.0);
    assert!(grow("newreno") > 20.0);
}

#[test]
fn a_linux_port_recovers_a_loss_right_after_the_recovery_point_without_a_timeout() {
    // A window of 10 with 0 lost: 1..9 start a recovery (recover = 10) and let new data out;
    // the retransmitted 0 ends it with snd_una = recover = 10. Segment 10, the first sent
    // after the fast retransmit, is lost: the three later segments arriving make three
    // duplicate ACKs of 10. TCP-Linux is back in the open state and retransmits 10 at once
    // (`tcp_fastretrans_alert`); ns-2's NewReno takes an ACK beyond recover for a new loss
    // and waits for the RTO.
    let run = |cc: &str| {
        let (mut s, mut r, _) = sack_pair_with(cc, 10.0);
        let mut t = 0;
        let mut sent = through_receiver(&mut s, &mut r, &mut t, &(1..10).collect::<Vec<_>>()).concat();
        assert_eq!(sent.first(), Some(&0), "{cc}: 0 retransmitted");
        sent.extend(through_receiver(&mut s, &mut r, &mut t, &[0]).concat());
        assert_eq!((s.snd_una, s.recover), (10, Some(10)), "{cc}");
        assert_ne!(s.st.phase, Phase::FastRecovery, "{cc}: the full ACK ended the recovery");
        let later: Vec<u64> = sent.iter().copied().filter(|&q| q > 10).take(3).collect();
        assert_eq!(later.len(), 3, "{cc}: three segments after 10 were sent: {sent:?}");
        let again = through_receiver(&mut s, &mut r, &mut t, &later).concat();
        (again, s)
    };
    let (again, s) = run("htcp");
    assert_eq!(
        again.first(),
        Some(&10),
        "htcp retransmits 10 on the third duplicate ACK"
    );
    assert_eq!((s.stats.fast_retransmits, s.stats.timeouts), (2, 0));
    assert_eq!(s.st.phase, Phase::FastRecovery);
    let (again, s) = run("newreno");
    assert!(!again.contains(&10), "NewReno leaves 10 to the RTO: {again:?}");
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn a_switch_with_init_hands_over_the_shared_state() {
    // NewReno at cwnd 10 with RTT estimates; the switch to FAST runs FAST's init (pacing
    // on, cwnd and ssthresh reset to the initial values) and then puts the shared window
    // back: what the connection learnt survives, the new algorithm's own state is fresh.
    let mut out = vec![];
    let mut s = started("newreno", 10.0, &mut out);
    for (k, t) in [(1, 100), (2, 104), (3, 108)] {
        ack(&mut s, t * MS, k);
    }
    s.st.ssthresh = 7.0;
    let before = (s.st.cwnd, s.st.ssthresh, s.st.srtt, s.st.rttvar, s.st.min_rtt, s.rto);
    assert!(before.0 > 10.0 && before.2 > 0.0 && before.4.is_finite(), "{before:?}");
    s.switch_cc_with(
        200 * MS,
        cc::create("fast", &cc::Params::new()).unwrap(),
        true,
        &mut out,
    );
    let after = (s.st.cwnd, s.st.ssthresh, s.st.srtt, s.st.rttvar, s.st.min_rtt, s.rto);
    assert_eq!(before, after);
    assert_eq!(s.cc.name(), "fast");
    assert_eq!(s.st.pacing, Pacing::Window, "FAST's init (and on_switch_in) pace");
    // without init, as scheduled switches do, the same values carry over
    let mut s2 = started("newreno", 10.0, &mut out);
    for (k, t) in [(1, 100), (2, 104), (3, 108)] {
        ack(&mut s2, t * MS, k);
    }
    s2.st.ssthresh = 7.0;
    s2.switch_cc(200 * MS, cc::create("fast", &cc::Params::new()).unwrap(), &mut out);
    assert_eq!(
        after,
        (
            s2.st.cwnd,
            s2.st.ssthresh,
            s2.st.srtt,
            s2.st.rttvar,
            s2.st.min_rtt,
            s2.rto
        )
    );
}

#[test]
fn a_switch_gives_pacing_back_to_the_connections_setting() {
    // Sync-TCP in its SYNC mode paces at cwnd/srtt; after a switch to CUBIC the flow must
    // not stay paced at that rate (it sent about cwnd per RTT for the rest of the run)
    let mut out = Vec::new();
    for init in [false, true] {
        let mut s = started("sync_tcp", 10.0, &mut out);
        s.st.pacing = Pacing::Rate(260.0);
        s.switch_cc_with(
            200 * MS,
            cc::create("cubic", &cc::Params::new()).unwrap(),
            init,
            &mut out,
        );
        assert_eq!(s.st.pacing, Pacing::Off, "init {init}");
    }
    // an algorithm that paces sets it again itself
    let mut s = started("sync_tcp", 10.0, &mut out);
    s.st.pacing = Pacing::Rate(260.0);
    s.switch_cc(200 * MS, cc::create("fast", &cc::Params::new()).unwrap(), &mut out);
    assert_eq!(s.st.pacing, Pacing::Window);
}

/// A started NewReno sender with SACK and D-SACK (and `undo`) whose first window is `w`
/// segments, and its D-SACK receiver.
fn dsack_pair(w: f64, undo: bool) -> (Sender, crate::tcp::Receiver) {
    let tcp = TcpSpec {
        init_cwnd: w,
        init_ssthresh: w,
        tick: 0.0,
        sack: true,
        dsack: true,
        undo,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, None);
    s.start(0, &mut vec![]);
    let r = crate::tcp::Receiver::new(false, 2, 0).with_sack(true).with_dsack(true);
    (s, r)
}

fn spur(s: &Sender) -> (u64, u64, u64, u64) {
    let sp = s.spur.as_deref().expect("detection on");
    (sp.fast_retransmits, sp.timeouts, sp.undos, sp.dsacks)
}

#[test]
fn a_reordered_segment_makes_a_spurious_fast_retransmit_that_dsack_reports() {
    for undo in [false, true] {
        let (mut s, mut r) = dsack_pair(10.0, undo);
        let mut t = 0;
        // 0 is late: 1, 2, 3 start recovery (cwnd 10 -> 5) and 0 is sent again
        through_receiver(&mut s, &mut r, &mut t, &[1, 2, 3]);
        assert_eq!((s.stats.fast_retransmits, s.st.cwnd, s.st.ssthresh), (1, 5.0, 5.0));
        // the original 0 arrives, then the rest of the window: recovery ends
        through_receiver(&mut s, &mut r, &mut t, &[0, 4, 5, 6, 7, 8, 9]);
        assert_eq!(spur(&s), (0, 0, 0, 0), "nothing known yet");
        let dupacks = s.dupacks;
        // the retransmitted 0 arrives: a duplicate, reported below the cumulative ACK
        through_receiver(&mut s, &mut r, &mut t, &[0]);
        assert_eq!(s.dupacks, dupacks, "a D-SACK is no duplicate ACK");
        if undo {
            assert_eq!(spur(&s), (1, 0, 1, 1));
            assert_eq!((s.st.cwnd, s.st.ssthresh), (10.0, 10.0), "the reduction is taken back");
            assert_eq!(s.st.phase, Phase::CongestionAvoidance);
            let e = s.events.iter().rev().find(|e| e.name == "undo").expect("an undo event");
            assert_eq!(e.value, 10.0);
            assert!(s
                .events
                .iter()
                .any(|e| e.name == "spurious_retransmit" && e.value == 0.0));
        } else {
            assert_eq!(spur(&s), (1, 0, 0, 1));
            assert!(s.st.cwnd < 10.0 && s.st.ssthresh == 5.0, "no undo without tcp.undo");
            assert!(!s.events.iter().any(|e| e.name == "undo"));
        }
    }
}

#[test]
fn a_needed_retransmission_is_not_spurious() {
    let (mut s, mut r) = dsack_pair(10.0, true);
    let mut t = 0;
    // 0 is lost: its retransmission fills the hole, nothing arrives twice
    through_receiver(&mut s, &mut r, &mut t, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 0]);
    assert_eq!(s.snd_una, 10);
    assert_eq!(spur(&s), (0, 0, 0, 0));
    assert_eq!(s.st.ssthresh, 5.0);
    // a segment the network duplicates is reported, but it was never retransmitted
    through_receiver(&mut s, &mut r, &mut t, &[10, 10]);
    assert_eq!(spur(&s), (0, 0, 0, 1));
}

#[test]
fn a_dsack_block_is_no_sack_information() {
    let (mut s, mut r) = dsack_pair(10.0, false);
    let mut t = 0;
    through_receiver(&mut s, &mut r, &mut t, &[1, 2, 3]);
    let sb = |s: &Sender| s.scoreboard.as_ref().unwrap().sacked();
    let (sacked, dupacks, retransmits) = (sb(&s), s.dupacks, s.stats.retransmits);
    assert_eq!((sacked, dupacks), (3, 3));
    // 2 arrives again: ACK 0, blocks (2, 3) D-SACK and (1, 4)
    let mut acks = vec![];
    r.on_data(10 * MS, 2, 0, &mut acks);
    let b = r.take_sack(acks[0].sack).unwrap();
    assert_eq!(b.iter().collect::<Vec<_>>(), vec![(2, 3), (1, 4)]);
    let mut out = vec![];
    s.on_ack_sack(10 * MS, Kind::Ack, 0, 0, Some(&b), false, &mut out);
    assert_eq!((sb(&s), s.dupacks, s.stats.retransmits), (sacked, dupacks, retransmits));
    assert!(out.is_empty(), "nothing sent for it");
    assert_eq!(spur(&s), (0, 0, 0, 1), "0's retransmission is not what was duplicated");
    // a sender without D-SACK takes the same ACK for a duplicate ACK
    let (mut s, mut r, _) = sack_pair(10.0);
    let mut t = 0;
    through_receiver(&mut s, &mut r, &mut t, &[1, 2, 3]);
    s.on_ack_sack(10 * MS, Kind::Ack, 0, 0, Some(&b), false, &mut out);
    assert_eq!(s.dupacks, 4);
}

/// A sender with timestamps (and `undo`), cwnd = ssthresh = 10, segments 0..10 sent at 0.
fn eifel_sender(undo: bool) -> Sender {
    let tcp = TcpSpec {
        init_cwnd: 10.0,
        init_ssthresh: 10.0,
        tick: 0.0,
        timestamps: true,
        undo,
        ..TcpSpec::default()
    };
    let mut s = sender("newreno", tcp, None);
    s.start(0, &mut vec![]);
    s
}

#[test]
fn eifel_finds_a_spurious_timeout_and_undo_takes_it_back() {
    for undo in [false, true] {
        let mut s = eifel_sender(undo);
        if !undo {
            // detection without undo: KentRidge's statistics with timestamps count them
            s.enable_kentridge(0.003);
        }
        let rto = s.rto_deadline.unwrap();
        let mut out = vec![];
        s.on_timeout(rto, &mut out);
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!((s.st.cwnd, s.st.ssthresh), (1.0, 5.0));
        // the ACK of the original 0 (sent at 0): its echo is older than the retransmission
        let mut out = vec![];
        s.on_ack(rto + MS, Kind::Ack, 1, 0, &mut out);
        if undo {
            assert_eq!(spur(&s), (0, 1, 1, 0));
            let e = s.events.iter().find(|e| e.name == "undo").expect("an undo event");
            assert_eq!(e.value, 10.0, "cwnd back to the window before the timeout");
            assert_eq!(s.st.ssthresh, 10.0);
            // no go-back-N: what follows is new data (1..9 were never lost)
            assert!(seqs(&out).iter().all(|&q| q >= 10), "{:?}", seqs(&out));
            assert_eq!(s.stats.retransmits, 1);
        } else {
            assert_eq!(spur(&s), (0, 1, 0, 0));
            assert_eq!(s.kr.as_ref().unwrap().total_spurious_timeouts, 1);
            assert_eq!(s.st.ssthresh, 5.0);
            assert_eq!(seqs(&out), vec![1, 2], "go-back-N goes on");
            assert!(!s.events.iter().any(|e| e.name.starts_with("spurious")), "no events");
        }
    }
    // the ACK echoes the retransmission: the timeout was needed
    let mut s = eifel_sender(true);
    let rto = s.rto_deadline.unwrap();
    s.on_timeout(rto, &mut vec![]);
    s.on_ack(rto + MS, Kind::Ack, 1, rto, &mut vec![]);
    assert_eq!(spur(&s), (0, 0, 0, 0));
    assert_eq!(s.st.ssthresh, 5.0);
}

#[test]
fn eifel_finds_a_spurious_fast_retransmit_with_timestamps() {
    let mut s = eifel_sender(true);
    let mut out = vec![];
    for k in 1..=3 {
        s.on_ack(k * MS, Kind::Ack, 0, 0, &mut out);
    }
    assert_eq!((s.st.phase, s.st.ssthresh), (Phase::FastRecovery, 5.0));
    // the late original 0 arrives: ACK 10 echoing its send time 0 < the retransmission's
    s.on_ack(5 * MS, Kind::Ack, 10, 0, &mut out);
    assert_eq!(spur(&s), (1, 0, 1, 0));
    assert_eq!(s.st.ssthresh, 10.0);
    assert!(s.st.cwnd >= 10.0, "{}", s.st.cwnd);
    assert_ne!(s.st.phase, Phase::FastRecovery);
}

#[test]
fn without_the_options_nothing_is_watched() {
    let (s, _, _) = sack_pair(10.0);
    assert!(s.spur.is_none());
    let tcp = TcpSpec {
        timestamps: true,
        ..TcpSpec::default()
    };
    assert!(sender("newreno", tcp, None).spur.is_none());
}

#[test]
fn a_sack_recovery_window_larger_than_a_burst_leaves_in_chunks() {
    // In SACK recovery (0 and 3 lost), a window overwritten to far more than a burst (TCBI's
    // fair share once averaged an initial ssthresh of 1e9 into it): NextSeg's loop stops at
    // MAX_BURST segments per call and `send_more` goes on at the same instant, instead of
    // filling the output with the whole window at once (the run aborted on a 4 GiB buffer).
    let (mut s, mut r, _) = sack_pair(10.0);
    let mut t = 0;
    through_receiver(&mut s, &mut r, &mut t, &[1, 2, 4, 5, 6, 7]);
    assert_eq!(s.st.phase, Phase::FastRecovery);
    let w = 2 * MAX_BURST + 100;
    s.st.cwnd = w as f64;
    let before = s.snd_max;
    let mut out = vec![];
    s.sack_send(t, &mut out);
    assert_eq!(out.len() as u64, MAX_BURST);
    assert!(s.burst_pending);
    let mut sent = out.len() as u64;
    while std::mem::take(&mut s.burst_pending) {
        out.clear();
        s.send_more(t, &mut out);
        assert!(out.len() as u64 <= MAX_BURST);
        sent += out.len() as u64;
    }
    // the window is filled: what was in flight plus what left reaches cwnd
    assert!(s.snd_max - before > 2 * MAX_BURST, "{}", s.snd_max - before);
    assert!(sent >= 2 * MAX_BURST);
    out.clear();
    s.send_more(t, &mut out);
    assert!(out.is_empty() && !s.burst_pending, "nothing more until an ACK");
}
