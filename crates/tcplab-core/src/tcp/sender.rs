use super::{Kind, Tx};
use crate::cc::{AckSample, CcState, CongestionControl, Phase, Recovery, Signal};
use crate::scenario::TcpSpec;
use crate::sim::{secs, to_secs, Time};

/// Sender options (from the scenario's `tcp` table).
#[derive(Debug, Clone)]
pub struct SenderConfig {
    pub dupthresh: u32,
    pub timestamps: bool,
    pub min_rto: f64,
    pub max_rto: f64,
    pub initial_rto: f64,
    pub tick: f64,
    pub handshake: bool,
    pub limited_transmit: bool,
    /// Segments to send; `None` = infinite bulk transfer.
    pub size: Option<u64>,
}

impl SenderConfig {
    pub fn from_spec(t: &TcpSpec, size: Option<u64>) -> SenderConfig {
        SenderConfig {
            dupthresh: t.dupthresh,
            timestamps: t.timestamps,
            min_rto: t.min_rto,
            max_rto: t.max_rto,
            initial_rto: t.initial_rto,
            tick: t.tick,
            handshake: t.handshake,
            limited_transmit: t.limited_transmit,
            size,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnState {
    /// Not started yet.
    Idle,
    SynSent,
    Established,
    /// All data acknowledged, FIN sent.
    FinSent,
    Closed,
}

/// A time-stamped event of one connection (loss reactions, algorithm decisions).
#[derive(Debug, Clone, PartialEq)]
pub struct FlowEvent {
    pub time: Time,
    pub name: &'static str,
    pub value: f64,
}

#[derive(Debug, Clone, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub completion: Option<Time>,
}

/// The data sender of one connection.
pub struct Sender {
    cfg: SenderConfig,
    pub st: CcState,
    pub cc: Box<dyn CongestionControl>,
    pub state: ConnState,
    /// Oldest unacknowledged segment.
    pub snd_una: u64,
    /// Next segment to transmit (moves back to `snd_una` after a timeout: go-back-N).
    pub snd_nxt: u64,
    /// One past the highest segment ever transmitted.
    pub snd_max: u64,
    /// Segments the application offers (`None` = unlimited).
    app_limit: Option<u64>,
    pub dupacks: u32,
    /// `snd_max` when the last loss recovery began; duplicate ACKs start a new one only
    /// once the cumulative ACK passes it.
    recover: Option<u64>,
    /// The segment being timed (one per window, when timestamps are off) and its send time.
    timing: Option<(u64, Time)>,
    has_rtt: bool,
    /// Retransmission timeout before back-off, seconds.
    pub rto: f64,
    pub backoff: u32,
    /// When the retransmission timer expires, if armed.
    pub rto_deadline: Option<Time>,
    syn_retransmitted: bool,
    /// A partial ACK arrived in the current fast recovery.
    partial_ack_seen: bool,
    start: Time,
    pub stats: SenderStats,
    pub events: Vec<FlowEvent>,
    /// Initial control block given from outside (TCBI), applied by `start` after the
    /// algorithm's `init`.
    preset: Option<Preset>,
    /// `try_send` stopped at [`MAX_BURST`] with more of the window to send: the caller
    /// drains the output and calls `try_send` again at the same instant.
    pub burst_pending: bool,
}

/// Segments `try_send` emits per call. A window may be far larger (a share estimate drawn
/// up to rwnd = 1e9 segments): its burst leaves in chunks at the same instant and in the
/// same order, so the output buffer, not the window, bounds the memory.
pub const MAX_BURST: u64 = 1 << 16;

/// Initial values a connection starts with instead of the standard ones (set by the TCBI
/// sharing service through the backplane, never by an algorithm).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    pub cwnd: f64,
    pub ssthresh: f64,
    /// srtt and rttvar (seconds); the initial RTO is then srtt + 4·rttvar (clamped)
    /// instead of the fixed initial RTO.
    pub rtt: Option<(f64, f64)>,
}

impl Sender {
    pub fn new(cfg: SenderConfig, tcp: &TcpSpec, cc: Box<dyn CongestionControl>) -> Sender {
        let st = CcState {
            now: 0,
            cwnd: tcp.init_cwnd,
            ssthresh: tcp.init_ssthresh,
            rwnd: tcp.rwnd,
            init_cwnd: tcp.init_cwnd,
            init_ssthresh: tcp.init_ssthresh,
            mss: tcp.mss,
            flight: 0,
            srtt: 0.0,
            rttvar: 0.0,
            min_rtt: f64::INFINITY,
            phase: Phase::SlowStart,
            recovery_base: tcp.init_cwnd,
            log: Vec::new(),
            path: Default::default(),
            rng: crate::sim::Rng::from_seed(0),
        };
        let rto = cfg.initial_rto;
        Sender {
            app_limit: cfg.size,
            cfg,
            st,
            cc,
            state: ConnState::Idle,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            dupacks: 0,
            recover: None,
            timing: None,
            has_rtt: false,
            rto,
            backoff: 0,
            rto_deadline: None,
            syn_retransmitted: false,
            partial_ack_seen: false,
            start: 0,
            stats: SenderStats::default(),
            events: Vec::new(),
            preset: None,
            burst_pending: false,
        }
    }

    /// Start with these values instead of the standard ones (call before `start`).
    pub fn preset(&mut self, p: Preset) {
        self.preset = Some(p);
    }

    /// True once srtt/rttvar hold an estimate (a sample, or values given from outside).
    pub fn has_rtt(&self) -> bool {
        self.has_rtt
    }

    /// Overwrite cwnd and ssthresh of a running connection (FS-TCBI). The recovery state
    /// is kept; outside recovery the phase follows the new values.
    pub fn overwrite_window(&mut self, cwnd: f64, ssthresh: f64) {
        self.st.cwnd = cwnd;
        self.st.ssthresh = ssthresh;
        if self.st.phase != Phase::FastRecovery && self.st.phase != Phase::TimeoutRecovery {
            self.update_phase();
        }
    }

    /// Set srtt and rttvar from outside (TCBI) and recompute the RTO from them; later
    /// samples smooth from these values. The back-off and a running timer are kept.
    pub fn assign_rtt(&mut self, srtt: f64, rttvar: f64) {
        self.has_rtt = true;
        self.st.srtt = srtt;
        self.st.rttvar = rttvar;
        self.rto = self.rto_from_estimates();
    }

    fn rto_from_estimates(&self) -> f64 {
        (self.st.srtt + (4.0 * self.st.rttvar).max(self.cfg.tick))
            .max(self.cfg.min_rto)
            .min(self.cfg.max_rto)
    }

    /// Record an event from the backplane glue (e.g. TCBI decisions).
    pub fn note(&mut self, now: Time, name: &'static str, value: f64) {
        self.log(now, name, value);
    }

    fn sync(&mut self, now: Time) {
        self.st.now = now;
        self.st.flight = self.snd_max - self.snd_una;
    }

    fn log(&mut self, now: Time, name: &'static str, value: f64) {
        self.events.push(FlowEvent { time: now, name, value });
    }

    /// Call the algorithm's element_cr and record the reaction.
    fn congestion(&mut self, now: Time, signal: Signal) {
        let name = match signal {
            Signal::DupAcks => "fast_retransmit",
            Signal::Timeout => "timeout",
            Signal::Ecn => "ecn",
            Signal::Explicit => "notification",
        };
        self.log(now, name, self.st.cwnd);
        self.cc.on_congestion(&mut self.st, signal);
        for (n, v) in std::mem::take(&mut self.st.log) {
            self.log(now, n, v);
        }
        self.log(now, "ssthresh", self.st.ssthresh);
    }

    fn update_phase(&mut self) {
        self.st.phase = if self.st.cwnd < self.st.ssthresh {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        };
    }

    /// The application starts: open the connection (or start sending at once).
    pub fn start(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.sync(now);
        self.start = now;
        self.cc.init(&mut self.st);
        if let Some(p) = self.preset {
            self.st.cwnd = p.cwnd;
            self.st.ssthresh = p.ssthresh;
            if let Some((srtt, rttvar)) = p.rtt {
                self.assign_rtt(srtt, rttvar);
            }
        }
        self.update_phase();
        if self.cfg.handshake {
            self.state = ConnState::SynSent;
            self.send_control(Kind::Syn, now, out);
            self.arm(now);
        } else {
            self.state = ConnState::Established;
            self.try_send(now, out);
        }
    }

    /// The application stops offering new data; what is already sent is still recovered.
    pub fn stop(&mut self) {
        let limit = self.app_limit.map_or(self.snd_max, |l| l.min(self.snd_max));
        self.app_limit = Some(limit);
    }

    /// Replace the congestion-control algorithm of the running connection.
    pub fn switch_cc(&mut self, now: Time, cc: Box<dyn CongestionControl>, out: &mut Vec<Tx>) {
        self.sync(now);
        self.cc = cc;
        self.cc.on_switch_in(&mut self.st);
        self.try_send(now, out);
    }

    pub fn started_at(&self) -> Time {
        self.start
    }

    fn send_control(&mut self, kind: Kind, now: Time, out: &mut Vec<Tx>) {
        out.push(Tx {
            kind,
            seq: self.snd_max,
            ts: now,
            ts_echo: 0,
            retransmission: false,
        });
    }

    /// Timer value in effect: rto · 2^backoff, capped at max_rto.
    pub fn current_rto(&self) -> f64 {
        (self.rto * f64::from(1u32 << self.backoff.min(20))).min(self.cfg.max_rto)
    }

    fn arm(&mut self, now: Time) {
        self.rto_deadline = Some(now.saturating_add(secs(self.current_rto())));
    }

    fn limit(&self) -> u64 {
        self.app_limit.unwrap_or(u64::MAX)
    }

    fn emit_data(&mut self, seq: u64, now: Time, out: &mut Vec<Tx>) {
        let retransmission = seq < self.snd_max;
        if retransmission {
            self.stats.retransmits += 1;
        } else if !self.cfg.timestamps && self.timing.is_none() {
            self.timing = Some((seq, now));
        }
        self.stats.segments_sent += 1;
        out.push(Tx {
            kind: Kind::Data,
            seq,
            ts: now,
            ts_echo: 0,
            retransmission,
        });
        self.cc.on_packet_sent(&self.st, seq, retransmission);
    }

    /// Send what the window and the application allow.
    pub fn try_send(&mut self, now: Time, out: &mut Vec<Tx>) {
        if self.state != ConnState::Established {
            return;
        }
        let wnd = self.st.window().max(1.0) as u64;
        let limit = self.limit();
        let mut sent = false;
        let mut room = MAX_BURST;
        while self.snd_nxt < limit && self.snd_nxt < self.snd_una.saturating_add(wnd) {
            if room == 0 {
                self.burst_pending = true;
                break;
            }
            room -= 1;
            let seq = self.snd_nxt;
            self.emit_data(seq, now, out);
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            sent = true;
        }
        self.st.flight = self.snd_max - self.snd_una;
        if sent && self.rto_deadline.is_none() {
            self.arm(now);
        }
    }

    fn rtt_sample(&mut self, r: f64) {
        let tick = self.cfg.tick;
        let r = if tick > 0.0 {
            (r / tick).round().max(1.0) * tick
        } else {
            r
        };
        if !self.has_rtt {
            self.has_rtt = true;
            self.st.srtt = r;
            self.st.rttvar = r / 2.0;
        } else {
            let delta = r - self.st.srtt;
            self.st.srtt += delta / 8.0;
            self.st.rttvar += (delta.abs() - self.st.rttvar) / 4.0;
        }
        self.st.min_rtt = self.st.min_rtt.min(r);
        self.rto = self.rto_from_estimates();
        self.backoff = 0;
        self.cc.on_rtt_sample(&self.st, r);
    }

    fn complete_if_done(&mut self, now: Time, out: &mut Vec<Tx>) {
        if let Some(limit) = self.cfg.size {
            if self.snd_una >= limit && self.state == ConnState::Established {
                if self.cfg.handshake {
                    self.state = ConnState::FinSent;
                    self.send_control(Kind::Fin, now, out);
                    self.arm(now);
                } else {
                    self.state = ConnState::Closed;
                    self.stats.completion = Some(now);
                    self.rto_deadline = None;
                }
            }
        }
    }

    /// An ACK segment (`kind` Ack, SynAck or FinAck) arrives.
    pub fn on_ack(&mut self, now: Time, kind: Kind, ack: u64, ts_echo: Time, out: &mut Vec<Tx>) {
        self.sync(now);
        match (kind, self.state) {
            (Kind::SynAck, ConnState::SynSent) => {
                if !self.syn_retransmitted {
                    self.rtt_sample(to_secs(now - ts_echo));
                }
                self.state = ConnState::Established;
                self.rto_deadline = None;
                self.try_send(now, out);
                return;
            }
            (Kind::FinAck, ConnState::FinSent) => {
                self.state = ConnState::Closed;
                self.stats.completion = Some(now);
                self.rto_deadline = None;
                return;
            }
            (Kind::Ack, ConnState::Established) => {}
            _ => return,
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack, ts_echo, out);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_dup_ack(now, out);
        }
    }

    fn on_new_ack(&mut self, now: Time, ack: u64, ts_echo: Time, out: &mut Vec<Tx>) {
        let acked = ack - self.snd_una;
        let rtt = if self.cfg.timestamps {
            Some(to_secs(now.saturating_sub(ts_echo)))
        } else {
            match self.timing {
                Some((seq, sent)) if ack > seq => {
                    self.timing = None;
                    Some(to_secs(now - sent))
                }
                _ => None,
            }
        };
        if let Some(r) = rtt {
            self.rtt_sample(r);
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.st.flight = self.snd_max - self.snd_una;
        let sample = AckSample {
            acked,
            duplicate: false,
            rtt,
        };
        self.cc.on_ack_arrival(&self.st, &sample);

        if self.st.phase == Phase::FastRecovery {
            let full = self.recover.is_none_or(|r| ack >= r);
            if full || self.cc.recovery() == Recovery::Reno {
                self.cc.on_recovery_exit(&mut self.st);
                self.dupacks = 0;
                self.update_phase();
            } else {
                // Partial ACK: retransmit the next hole, deflate by the amount acknowledged
                // and add back one segment (RFC 6582), stay in fast recovery. The timer is
                // re-armed on the first partial ACK only (RFC 6582's "Impatient" variant, as
                // ns-2's newreno_changes1_), so that a window with many losses ends in a
                // timeout instead of one retransmission per round trip.
                self.emit_data(self.snd_una, now, out);
                self.st.cwnd = (self.st.cwnd - acked as f64 + 1.0).max(1.0);
                // Once the inflation is used up, the deflation eats into the base window.
                self.st.recovery_base = self.st.recovery_base.min(self.st.cwnd - 1.0).max(1.0);
                if !self.partial_ack_seen {
                    self.partial_ack_seen = true;
                    self.arm(now);
                }
                self.try_send(now, out);
                return;
            }
        } else {
            self.dupacks = 0;
            self.cc.on_ack(&mut self.st, &sample);
            self.update_phase();
        }
        if self.snd_una < self.snd_max {
            self.arm(now);
        } else {
            self.rto_deadline = None;
        }
        self.flush_cc_log(now);
        self.complete_if_done(now, out);
        self.try_send(now, out);
    }

    /// Record the events an algorithm logged outside a congestion signal.
    fn flush_cc_log(&mut self, now: Time) {
        for (n, v) in std::mem::take(&mut self.st.log) {
            self.log(now, n, v);
        }
    }

    fn on_dup_ack(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.dupacks += 1;
        let sample = AckSample {
            acked: 0,
            duplicate: true,
            rtt: None,
        };
        self.cc.on_ack_arrival(&self.st, &sample);
        if self.st.phase == Phase::FastRecovery {
            self.st.cwnd += 1.0;
            self.try_send(now, out);
            return;
        }
        if self.dupacks < self.cfg.dupthresh && self.cfg.limited_transmit {
            self.limited_transmit(now, out);
        }
        if self.dupacks != self.cfg.dupthresh {
            return;
        }
        if let Some(r) = self.recover {
            if self.snd_una <= r {
                // Still inside the window of the previous recovery: not a new loss event.
                return;
            }
        }
        self.recover = Some(self.snd_max);
        self.stats.fast_retransmits += 1;
        self.timing = None;
        self.congestion(now, Signal::DupAcks);
        match self.cc.recovery() {
            Recovery::None => {
                // Tahoe: go back to the hole and slow-start from the new window.
                self.snd_nxt = self.snd_una;
                self.update_phase();
                self.arm(now);
                self.try_send(now, out);
            }
            Recovery::Reno | Recovery::NewReno => {
                self.emit_data(self.snd_una, now, out);
                self.st.recovery_base = self.st.cwnd;
                self.st.cwnd += f64::from(self.cfg.dupthresh);
                self.st.phase = Phase::FastRecovery;
                self.partial_ack_seen = false;
                self.arm(now);
                self.try_send(now, out);
            }
        }
    }

    /// Limited Transmit (RFC 3042) as ns-2.35's `send_one` (`singledup_`): a duplicate ACK
    /// before the threshold lets the next segment out, up to cwnd + dupacks beyond the
    /// cumulative ACK. The next segment is `snd_nxt`: new data normally, but after a
    /// timeout, while go-back-N is still below `snd_max`, a segment already sent (ns-2
    /// sends `t_seqno_`, reset to `highest_ack_ + 1` by the timeout).
    fn limited_transmit(&mut self, now: Time, out: &mut Vec<Tx>) {
        let allowed = (self.st.cwnd.floor() + f64::from(self.dupacks)).min(self.st.rwnd.floor()) as u64;
        if self.snd_nxt < self.limit() && self.snd_nxt < self.snd_una + allowed {
            let seq = self.snd_nxt;
            self.emit_data(seq, now, out);
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            self.st.flight = self.snd_max - self.snd_una;
        }
    }

    /// The retransmission timer fires.
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.sync(now);
        self.rto_deadline = None;
        match self.state {
            ConnState::SynSent => {
                self.syn_retransmitted = true;
                self.backoff += 1;
                self.stats.timeouts += 1;
                self.send_control(Kind::Syn, now, out);
                self.arm(now);
                return;
            }
            ConnState::FinSent => {
                self.backoff += 1;
                self.stats.timeouts += 1;
                self.send_control(Kind::Fin, now, out);
                self.arm(now);
                return;
            }
            ConnState::Established => {}
            _ => return,
        }
        if self.snd_una >= self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        if self.st.phase == Phase::FastRecovery {
            // Remove the fast-recovery inflation first: the window the timeout halves is
            // the one recovery started from (thesis Table 1.1: "halve ssthresh again").
            self.st.cwnd = self.st.recovery_base;
        }
        self.congestion(now, Signal::Timeout);
        self.st.phase = Phase::TimeoutRecovery;
        self.recover = Some(self.snd_max);
        self.dupacks = 0;
        self.timing = None;
        self.snd_nxt = self.snd_una;
        self.backoff = (self.backoff + 1).min(20);
        self.arm(now);
        self.try_send(now, out);
    }

    /// A congestion signal from outside the ACK clock (ECN or an explicit notification).
    pub fn on_notification(&mut self, now: Time, signal: Signal, out: &mut Vec<Tx>) {
        self.sync(now);
        if self.st.phase == Phase::FastRecovery || self.st.phase == Phase::TimeoutRecovery {
            return;
        }
        self.congestion(now, signal);
        self.update_phase();
        self.try_send(now, out);
    }

    /// The algorithm's own periodic timer.
    pub fn on_cc_timer(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.sync(now);
        self.cc.on_timer(&mut self.st);
        self.try_send(now, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc;

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
}
