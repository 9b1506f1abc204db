//! The sender's part of the handoff protocols (thesis ch. 2): TCP-HO's Capability
//! negotiation and its Bandwidth option with the anti-cheating rule and the immediate
//! transmission, and the zero-window handling Freeze-TCP relies on (persist mode, window
//! probes, resumption). None of this runs for a connection that never sees these options.
use super::{ConnState, Sender};
use crate::cc::{Handoff, Phase};
use crate::net::SegOption;
use crate::sim::Time;
use crate::tcp::{Kind, Tx};

/// Why a Bandwidth option was ignored (the value of the `ho_option_ignored` event).
pub const IGNORED_NOT_AFTER_TIMEOUT: f64 = 1.0;
pub const IGNORED_ALREADY_ACCEPTED: f64 = 2.0;
pub const IGNORED_NOT_NEGOTIATED: f64 = 3.0;

/// Bits of `Sender::ho`.
pub(super) const HO_NEGOTIATED: u8 = 1;
pub(super) const HO_ACCEPTED: u8 = 2;
pub(super) const PERSIST: u8 = 4;

impl Sender {
    #[inline]
    pub(super) fn ho_flag(&self, bit: u8) -> bool {
        self.ho & bit != 0
    }

    pub(super) fn set_ho(&mut self, bit: u8, on: bool) {
        if on {
            self.ho |= bit;
        } else {
            self.ho &= !bit;
        }
    }

    /// The Capability option's mask on this connection's SYN (0: the SYN carries none).
    pub(super) fn syn_capability(&self) -> u32 {
        if self.cc.handoff() == Handoff::TcpHo || self.cfg.offer_ho {
            1u32 << self.cfg.ho_bit
        } else {
            0
        }
    }

    /// The SYN-ACK carried the Capability option with `mask`: TCP-HO is negotiated when
    /// the SYN asked for it and the mask has its bit.
    pub fn on_capability(&mut self, now: Time, mask: u32) {
        let on = self.syn_capability() != 0 && mask & 1u32 << self.cfg.ho_bit != 0;
        self.set_ho(HO_NEGOTIATED, on);
        self.log(now, "ho_negotiated", f64::from(u8::from(on)));
    }

    /// Whether TCP-HO was negotiated in the handshake.
    pub fn ho_negotiated(&self) -> bool {
        self.ho_flag(HO_NEGOTIATED)
    }

    /// An ACK `ack` with TCP-HO's Bandwidth option (`kbps`) arrives. It counts only just
    /// after a timeout: in timeout recovery with the backed-off timer pending, no new ACK
    /// since, and no option accepted since that timeout. The option's own ACK may
    /// acknowledge data (segments the host received before the outage, whose ACKs the
    /// outage lost): snd_una moves to it, without a window increase.
    /// Accepted: the algorithm sets its windows from the bandwidth, the backed-off timer is
    /// cancelled (back-off 0) and the window is sent from snd_una at once; true is returned
    /// and the ACK needs no other handling. Ignored (with the reason in the events): false,
    /// the caller processes the ACK as any other.
    pub fn on_bandwidth_option(&mut self, now: Time, ack: u64, kbps: u32, out: &mut Vec<Tx>) -> bool {
        self.sync(now);
        if let Some(k) = self.kr.as_deref_mut() {
            // options_handler: the peer's explicit handoff notification, accepted or not.
            k.on_notification(now);
        }
        let why = if self.cc.handoff() != Handoff::TcpHo || !self.ho_flag(HO_NEGOTIATED) {
            IGNORED_NOT_NEGOTIATED
        } else if self.state != ConnState::Established
            || self.st.phase != Phase::TimeoutRecovery
            || self.rto_deadline.is_none()
            || ack < self.snd_una
        {
            IGNORED_NOT_AFTER_TIMEOUT
        } else if self.ho_flag(HO_ACCEPTED) {
            IGNORED_ALREADY_ACCEPTED
        } else {
            0.0
        };
        if why != 0.0 {
            self.log(now, "ho_option_ignored", why);
            return false;
        }
        self.set_ho(HO_ACCEPTED, true);
        self.log(now, "ho_option_accepted", f64::from(kbps));
        self.cc.on_bandwidth_option(&mut self.st, f64::from(kbps) * 1000.0);
        for (n, v) in std::mem::take(&mut self.st.log) {
            self.log(now, n, v);
        }
        self.log(now, "ssthresh", self.st.ssthresh);
        if ack > self.snd_una {
            // Data the host received before the outage, whose ACKs the outage lost.
            if self.cfg.sack {
                let dt = self.cfg.dupthresh;
                self.sb().advance(ack, dt);
            }
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
        }
        self.rto_deadline = None;
        self.backoff = 0;
        self.timing = None;
        self.snd_nxt = self.snd_una;
        self.try_send(now, out);
        true
    }

    /// An ACK-type segment (`kind` SynAck or Ack) carrying option `opt.0` with value
    /// `opt.1`: the Capability option of a SYN-ACK, TCP-HO's Bandwidth option, or a window
    /// advertisement. An ACK that changes the window is no duplicate (RFC 5681 §2): it only
    /// updates the window unless it also acknowledges new data (processed first when the
    /// window closes, so that the zero window holds what the ACK would release).
    #[allow(clippy::too_many_arguments)]
    pub fn on_option_ack(
        &mut self,
        now: Time,
        kind: Kind,
        ack: u64,
        ts_echo: Time,
        ece: bool,
        opt: (Option<SegOption>, u32),
        out: &mut Vec<Tx>,
    ) {
        match (kind, opt.0) {
            (Kind::SynAck, Some(SegOption::Capability)) => {
                if self.state == ConnState::SynSent {
                    self.on_capability(now, opt.1);
                }
                self.on_ack(now, kind, ack, ts_echo, out);
            }
            (Kind::Ack, Some(SegOption::Bandwidth)) => {
                if !self.on_bandwidth_option(now, ack, opt.1, out) {
                    self.on_ack_sack(now, kind, ack, ts_echo, None, ece, out);
                }
            }
            (Kind::Ack, Some(SegOption::Window)) => {
                let w = opt.1;
                let changed = self.st.rwnd != f64::from(w);
                if changed && ack <= self.snd_una {
                    self.on_window(now, w, out);
                    return;
                }
                if w == 0 {
                    self.on_window(now, w, out);
                }
                self.on_ack_sack(now, kind, ack, ts_echo, None, ece, out);
                if w != 0 {
                    self.on_window(now, w, out);
                }
            }
            _ => self.on_ack_sack(now, kind, ack, ts_echo, None, ece, out),
        }
    }

    /// In persist mode: the receiver advertises a zero window.
    pub fn in_persist(&self) -> bool {
        self.ho_flag(PERSIST)
    }

    /// An ACK advertises a window of `w` segments (an option: a change of the standing
    /// window). Zero enters persist mode: nothing new is sent and the retransmission timer
    /// is frozen, replaced by the persist timer (window probes with back-off), as Freeze-TCP
    /// asks of the sender ("all retransmission timers frozen"). Non-zero leaves it: the
    /// back-off is cleared, the oldest outstanding segment (if any) is sent again at once
    /// (what the original's three reconnection ACKs obtain, without a window cut; later
    /// holes are left to the duplicate ACKs), and the window, with the cwnd and ssthresh
    /// the algorithm kept, is sent.
    pub fn on_window(&mut self, now: Time, w: u32, out: &mut Vec<Tx>) {
        self.sync(now);
        let was = self.ho_flag(PERSIST);
        self.st.rwnd = f64::from(w);
        self.set_ho(PERSIST, w == 0);
        if self.ho_flag(PERSIST) && !was {
            self.log(now, "persist_enter", self.st.cwnd);
            if self.state == ConnState::Established {
                self.backoff = 0;
                self.arm(now);
            }
        } else if was && !self.ho_flag(PERSIST) {
            self.log(now, "persist_exit", self.st.cwnd);
            self.backoff = 0;
            if self.snd_una < self.snd_max {
                self.emit_data(self.snd_una, now, out);
                self.arm(now);
            } else {
                self.rto_deadline = None;
            }
            self.try_send(now, out);
        }
    }

    /// The persist timer fires: a window probe, which the receiver answers with its window
    /// (the oldest outstanding segment, or with nothing outstanding the last acknowledged
    /// one), and the timer again with one more back-off. No congestion response. Before any
    /// data was sent there is no segment to probe with and only the timer is re-armed.
    pub(super) fn window_probe(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.backoff = (self.backoff + 1).min(20);
        let seq = if self.snd_una < self.snd_max {
            Some(self.snd_una)
        } else {
            self.snd_una.checked_sub(1)
        };
        if let Some(seq) = seq {
            self.stats.segments_sent += 1;
            self.stats.retransmits += u64::from(seq >= self.snd_una);
            out.push(Tx {
                kind: Kind::Data,
                seq,
                ts: now,
                ts_echo: 0,
                retransmission: true,
                sack: 0,
                ecn: Default::default(),
            });
            self.log(now, "window_probe", f64::from(self.backoff));
        }
        self.arm(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc;
    use crate::scenario::TcpSpec;
    use crate::tcp::SenderConfig;

    const MS: Time = 1_000_000;

    fn sender(name: &str, tcp: TcpSpec) -> Sender {
        let cfg = SenderConfig::from_spec(&tcp, None);
        Sender::new(cfg, &tcp, cc::create(name, &cc::Params::new()).unwrap())
    }

    fn data(out: &[Tx]) -> Vec<u64> {
        out.iter().filter(|t| t.kind == Kind::Data).map(|t| t.seq).collect()
    }

    fn events(s: &Sender) -> Vec<(&'static str, f64)> {
        s.events.iter().map(|e| (e.name, e.value)).collect()
    }

    /// A TCP-HO sender (window 10, ssthresh 10) past a handshake whose SYN-ACK came back
    /// after 100 ms with `mask`, its 10 segments 0..10 in flight.
    fn ho_sender(mask: Option<u32>) -> Sender {
        let tcp = TcpSpec {
            init_cwnd: 10.0,
            init_ssthresh: 10.0,
            tick: 0.0,
            handshake: true,
            ..TcpSpec::default()
        };
        let mut s = sender("tcp_ho", tcp);
        let mut out = vec![];
        s.start(0, &mut out);
        assert_eq!(out[0].kind, Kind::Syn);
        assert_eq!((out[0].ecn.option(), out[0].sack), (Some(SegOption::Capability), 1));
        if let Some(m) = mask {
            s.on_capability(100 * MS, m);
        }
        out.clear();
        s.on_ack(100 * MS, Kind::SynAck, 0, 0, &mut out);
        assert_eq!(data(&out), (0..10).collect::<Vec<_>>());
        s
    }

    #[test]
    fn a_bandwidth_option_counts_only_just_after_a_timeout_and_transmits_at_once() {
        let mut s = ho_sender(Some(1));
        assert!(s.ho_negotiated());
        let mut out = vec![];
        // Before any timeout: ignored (reason 1), nothing sent.
        assert!(!s.on_bandwidth_option(200 * MS, 0, 7000, &mut out));
        assert!(out.is_empty());
        // srtt 0.1, rttvar 0.05 (the SYN-ACK's sample): RTO 0.3 s from the last send at
        // 100 ms. Timeouts at 400 ms (back-off 1: next at 400 + 600) and 1000 ms (back-off
        // 2: next at 1000 + 1200 = 2200 ms). ssthresh = max(10 / 2, 2) = 5, cwnd 1.
        assert_eq!(s.rto_deadline, Some(400 * MS));
        s.on_timeout(400 * MS, &mut out);
        assert_eq!(s.rto_deadline, Some(1000 * MS));
        s.on_timeout(1000 * MS, &mut out);
        assert_eq!(s.rto_deadline, Some(2200 * MS));
        assert_eq!((s.st.cwnd, s.st.ssthresh), (1.0, 2.0), "second timeout: floor of 2");
        out.clear();
        // The notification at 1500 ms: accepted; ssthresh = 875 000 B/s × 0.1 s / 1000 B
        // = 87.5; segment 0 leaves now instead of at 2200 ms; the timer restarts without
        // back-off (1500 + 300 ms).
        assert!(s.on_bandwidth_option(1500 * MS, 0, 7000, &mut out));
        assert_eq!(data(&out), vec![0]);
        assert_eq!((s.st.cwnd, s.st.ssthresh), (1.0, 87.5));
        assert_eq!((s.backoff, s.rto_deadline), (0, Some(1800 * MS)));
        // The second of the two duplicate ACKs: ignored (reason 2).
        out.clear();
        assert!(!s.on_bandwidth_option(1500 * MS, 0, 7000, &mut out));
        assert!(out.is_empty());
        // After a new ACK the state is no longer "just after a timeout" (reason 1).
        // (An option whose own ACK is new is tested below.)
        s.on_ack(1700 * MS, Kind::Ack, 1, 0, &mut out);
        assert_eq!(s.st.phase, Phase::SlowStart);
        assert!(!s.on_bandwidth_option(1750 * MS, 1, 7000, &mut out));
        let ev: Vec<_> = events(&s).into_iter().filter(|(n, _)| n.starts_with("ho_")).collect();
        assert_eq!(
            ev,
            vec![
                ("ho_negotiated", 1.0),
                ("ho_option_ignored", IGNORED_NOT_AFTER_TIMEOUT),
                ("ho_option_accepted", 7000.0),
                ("ho_adjust_enter", 87.5),
                ("ho_option_ignored", IGNORED_ALREADY_ACCEPTED),
                ("ho_option_ignored", IGNORED_NOT_AFTER_TIMEOUT),
            ]
        );
    }

    #[test]
    fn the_options_own_ack_may_acknowledge_data_the_outage_did_not_report() {
        let mut s = ho_sender(Some(1));
        let mut out = vec![];
        s.on_timeout(400 * MS, &mut out);
        out.clear();
        // the host had segments 0..3; their ACKs were lost: the option acknowledges 3
        assert!(s.on_bandwidth_option(600 * MS, 3, 7000, &mut out));
        assert_eq!(s.snd_una, 3);
        assert_eq!(data(&out), vec![3], "the window (cwnd 1) from the new snd_una");
        assert_eq!(s.st.cwnd, 1.0, "no increase for that ACK");
        // an old ACK number is no notification after this timeout
        let mut s = ho_sender(Some(1));
        s.on_timeout(400 * MS, &mut out);
        s.snd_una = 2;
        assert!(!s.on_bandwidth_option(600 * MS, 1, 7000, &mut out));
    }

    #[test]
    fn without_negotiation_the_option_is_ignored() {
        let mut s = ho_sender(None);
        assert!(!s.ho_negotiated());
        let mut out = vec![];
        s.on_timeout(400 * MS, &mut out);
        out.clear();
        assert!(!s.on_bandwidth_option(500 * MS, 0, 7000, &mut out));
        assert!(out.is_empty());
        assert_eq!(s.st.ssthresh, 5.0);
        let ev = events(&s);
        assert!(ev.contains(&("ho_negotiated", 0.0)), "{ev:?}");
        assert!(ev.contains(&("ho_option_ignored", IGNORED_NOT_NEGOTIATED)), "{ev:?}");
        // a NewReno sender neither offers nor accepts
        let mut s = sender("newreno", TcpSpec::default());
        assert_eq!(s.syn_capability(), 0);
        s.on_capability(0, 1);
        assert!(!s.ho_negotiated());
    }

    #[test]
    fn zero_window_persist_probes_and_resumption_with_the_frozen_window() {
        let tcp = TcpSpec {
            init_cwnd: 4.0,
            init_ssthresh: 100.0,
            tick: 0.0,
            ..TcpSpec::default()
        };
        let mut s = sender("freeze_tcp", tcp);
        let mut out = vec![];
        s.start(0, &mut out);
        assert_eq!(data(&out), vec![0, 1, 2, 3]);
        out.clear();
        // ACK 4 at 100 ms (sample 0.1 s): slow start 4 -> 5, segments 4..9 leave.
        s.on_ack(100 * MS, Kind::Ack, 4, 0, &mut out);
        assert_eq!(data(&out), vec![4, 5, 6, 7, 8]);
        out.clear();
        // The zero window at 150 ms: persist mode; the timer is the persist timer (RTO 0.3
        // s after the first sample: 450 ms).
        s.on_window(150 * MS, 0, &mut out);
        assert!(s.in_persist() && out.is_empty());
        assert_eq!(s.rto_deadline, Some(450 * MS));
        // ACK 9 at 200 ms: cwnd frozen at 5 (no slow-start step), nothing new leaves, the
        // persist timer restarts. Second sample 0.1 s: srtt 0.1, rttvar 0.75 × 0.05 =
        // 0.0375, RTO 0.1 + 0.15 = 0.25 s: a probe at 450 ms.
        s.on_ack(200 * MS, Kind::Ack, 9, 0, &mut out);
        assert!(out.is_empty());
        assert_eq!((s.st.cwnd, s.st.ssthresh), (5.0, 100.0));
        assert_eq!(s.rto_deadline, Some(450 * MS));
        // The probe: segment 8 (acknowledged already), back-off 1, next at 450 + 500.
        s.on_timeout(450 * MS, &mut out);
        assert_eq!(data(&out), vec![8]);
        assert_eq!((s.backoff, s.rto_deadline), (1, Some(950 * MS)));
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.stats.timeouts), (5.0, 100.0, 0));
        out.clear();
        // The window reopens at 600 ms: the frozen cwnd 5 leaves at once.
        s.on_window(600 * MS, 64, &mut out);
        assert!(!s.in_persist());
        assert_eq!(data(&out), vec![9, 10, 11, 12, 13]);
        assert_eq!((s.backoff, s.rto_deadline), (0, Some(850 * MS)));
        let ev: Vec<_> = events(&s)
            .into_iter()
            .filter(|(n, _)| n.starts_with("persist") || *n == "window_probe")
            .collect();
        assert_eq!(
            ev,
            vec![("persist_enter", 5.0), ("window_probe", 1.0), ("persist_exit", 5.0)]
        );
    }

    #[test]
    fn persist_freezes_the_retransmission_timer_and_resends_the_outstanding_data() {
        // A zero window with segments 0..4 in flight and lost: the timer probes with
        // segment 0 (no congestion response); the reopened window sends segment 0 again,
        // and nothing new (0..4 outstanding fill the window of 4).
        let tcp = TcpSpec {
            init_cwnd: 4.0,
            init_ssthresh: 100.0,
            tick: 0.0,
            ..TcpSpec::default()
        };
        let mut s = sender("freeze_tcp", tcp);
        let mut out = vec![];
        s.start(0, &mut out);
        s.on_window(50 * MS, 0, &mut out);
        out.clear();
        // initial RTO 3 s from 50 ms
        assert_eq!(s.rto_deadline, Some(3050 * MS));
        s.on_timeout(3050 * MS, &mut out);
        assert_eq!(data(&out), vec![0]);
        assert_eq!((s.st.cwnd, s.st.ssthresh, s.stats.timeouts), (4.0, 100.0, 0));
        assert_eq!((s.backoff, s.rto_deadline), (1, Some(9050 * MS)));
        out.clear();
        s.on_window(4000 * MS, 64, &mut out);
        assert_eq!(data(&out), vec![0]);
        assert_eq!((s.backoff, s.rto_deadline), (0, Some(7000 * MS)));
    }
}
