//! The data sender of one connection: a segment-counting state machine driven by calls
//! with the current time, emitting [`Tx`](super::Tx) segments into an output buffer.
mod connection;
mod handoff;
mod pacing;
mod rate;
mod recovery;
mod rtt;
mod sack;
mod spurious;
mod timers;

#[cfg(test)]
mod tests;

use crate::cc::{CcState, CongestionControl, Pacing, Phase, Signal};
use crate::scenario::TcpSpec;
use crate::sim::Time;
use pacing::Pacer;
use sack::Scoreboard;
use std::collections::VecDeque;

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
    /// SACK-based loss recovery (RFC 6675) instead of Reno/NewReno's (`tcp.sack`).
    pub sack: bool,
    /// ECN (RFC 3168, `tcp.ecn`): new data is ECT(0), an ECN-Echo halves the window once
    /// per window of data, and the next new segment carries CWR.
    pub ecn: bool,
    /// How new segments are paced at the start (`tcp.pacing`), and the pacer's timer
    /// granularity (`tcp.pacing_tick`, 0 = per packet).
    pub pacing: Pacing,
    pub pacing_tick: Time,
    /// Without timestamps: 0 = one timed segment per window; otherwise a segment is tagged
    /// for an RTT sample every this many nanoseconds (`tcp.rtt_sample_interval`).
    pub rtt_sample_interval: Time,
    /// Segments to send; `None` = infinite bulk transfer.
    pub size: Option<u64>,
    /// TCP-HO's bit in the Capability option's mask (`tcp.ho_capability_bit`).
    pub ho_bit: u8,
    /// D-SACK (RFC 2883, `tcp.dsack`): the first SACK block may report a duplicate.
    pub dsack: bool,
    /// Take back a reduction found spurious (`tcp.undo`).
    pub undo: bool,
    /// An arriving ACK needs more than the plain path: SACK, spurious-retransmission
    /// detection, or TCP KentRidge's statistics.
    pub ack_extras: bool,
    /// The SYN offers TCP-HO whatever the starting algorithm: a KentRidge connection with
    /// handoffs, whose agent may switch it to TCP-HO later (DC-TCP's options_creator
    /// negotiates the peer's capabilities once, at establishment).
    pub offer_ho: bool,
}

impl SenderConfig {
    /// The algorithm's RTT-sampling interval, when the flow runs without timestamps and
    /// does not set its own (`tcp.rtt_sample_interval` = 0).
    pub(super) fn take_cc_sampling(&mut self, cc: &dyn CongestionControl) {
        if !self.timestamps && self.rtt_sample_interval == 0 {
            if let Some(t) = cc.rtt_sample_interval() {
                self.rtt_sample_interval = crate::sim::secs(t);
            }
        }
    }

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
            sack: t.sack,
            ecn: t.ecn,
            pacing: t.pacing(),
            pacing_tick: crate::sim::secs(t.pacing_tick),
            rtt_sample_interval: crate::sim::secs(t.rtt_sample_interval),
            size,
            ho_bit: t.ho_capability_bit,
            dsack: t.dsack,
            undo: t.undo,
            ack_extras: t.sack || t.undo,
            offer_ho: false,
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
    /// Window reductions in response to ECN-Echo.
    pub ecn_reductions: u64,
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
    /// The last window reduction was an ECN response (ns-2's `CWND_ACTION_ECN`): a loss
    /// found in its window is retransmitted without reducing again (RFC 3168 §6.1.2).
    ecn_cut: bool,
    /// The next new data segment carries CWR.
    cwr_pending: bool,
    /// The segment being timed (one per window, when timestamps are off) and its send time.
    timing: Option<(u64, Time)>,
    /// With a sampling interval: the tagged segments in flight (sequence, send time), in
    /// sequence order, and when the next segment may be tagged.
    tagged: VecDeque<(u64, Time)>,
    next_tag: Time,
    has_rtt: bool,
    /// Retransmission timeout before back-off, seconds.
    pub rto: f64,
    pub backoff: u32,
    /// `secs(current_rto())` for the (rto bits, backoff) it was computed from: the
    /// conversion costs more than the rest of arming the timer, which every ACK does.
    /// The key (0, u32::MAX) stands for none (never a real one: the back-off stops at 20);
    /// without an `Option` the sender stays within its size bound.
    rto_ns: ((u64, u32), Time),
    /// When the retransmission timer expires, if armed.
    pub rto_deadline: Option<Time>,
    syn_retransmitted: bool,
    /// The handoff protocols' state: TCP-HO negotiated, a Bandwidth option accepted since
    /// the last timeout, the receiver's window zero (persist mode); one byte of bits
    /// (`handoff.rs`), so that the sender keeps within its size bound.
    ho: u8,
    /// A partial ACK arrived in the current fast recovery.
    partial_ack_seen: bool,
    start: Time,
    pub stats: SenderStats,
    pub events: Vec<FlowEvent>,
    /// Initial control block given from outside (TCBI), applied by `start` after the
    /// algorithm's `init`.
    preset: Option<Box<Preset>>,
    /// `try_send` or SACK's NextSeg loop stopped at [`MAX_BURST`] with more of the window to
    /// send: the caller drains the output and calls `send_more` at the same instant.
    pub burst_pending: bool,
    /// The pacer, once the connection paces (boxed: most connections never do, and the
    /// flow records of a large run stay small).
    pub pacer: Option<Box<Pacer>>,
    /// What the receiver SACKed and what was retransmitted (with SACK only).
    pub scoreboard: Option<Box<sack::Scoreboard>>,
    /// Delivery-rate sampling, for algorithms that ask for it.
    rate: Option<Box<rate::RateSampler>>,
    /// TCP KentRidge's passive statistics, which the slices update (`None`: KentRidge is
    /// off and every slot costs one pointer test).
    pub kr: Option<Box<crate::kentridge::Stats>>,
    /// Spurious-retransmission detection (`spurious.rs`): with D-SACK, undo, or KentRidge
    /// with timestamps.
    pub spur: Option<Box<spurious::Spurious>>,
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
    /// The flow's size in segments, if it has one (the spec's, kept here where the packet
    /// path reads it: a short flow's spec is cold in the cache).
    #[inline]
    pub fn size(&self) -> Option<u64> {
        self.cfg.size
    }

    /// Whether the flow runs TCP timestamps (the spec's, as for [`Sender::size`]).
    #[inline]
    pub fn timestamps(&self) -> bool {
        self.cfg.timestamps
    }

    pub fn new(mut cfg: SenderConfig, tcp: &TcpSpec, cc: Box<dyn CongestionControl>) -> Sender {
        cfg.take_cc_sampling(cc.as_ref());
        if let Some(t) = cc.pacing_tick() {
            cfg.pacing_tick = crate::sim::secs(t);
        }
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
            pacing: cfg.pacing,
        };
        let rto = cfg.initial_rto;
        let scoreboard = cfg.sack.then(Box::default);
        let rate = cc.wants_rate_samples().then(Box::default);
        let spur = (cfg.dsack || cfg.undo).then(Box::default);
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
            ecn_cut: false,
            cwr_pending: false,
            timing: None,
            tagged: VecDeque::new(),
            next_tag: 0,
            has_rtt: false,
            rto,
            backoff: 0,
            rto_ns: ((0, u32::MAX), 0),
            rto_deadline: None,
            syn_retransmitted: false,
            ho: 0,
            partial_ack_seen: false,
            start: 0,
            stats: SenderStats::default(),
            events: Vec::new(),
            preset: None,
            burst_pending: false,
            pacer: None,
            scoreboard,
            rate,
            kr: None,
            spur,
        }
    }

    /// Keep TCP KentRidge's statistics (`small_queue`: the queue delay below which a loss
    /// counts as corruption, seconds).
    pub fn enable_kentridge(&mut self, small_queue: f64) {
        self.kr = Some(Box::new(crate::kentridge::Stats::new(small_queue)));
        self.cfg.ack_extras = true;
        if self.cfg.timestamps && self.spur.is_none() {
            // Eifel on timeouts, for the statistics' count of spurious timeouts
            self.spur = Some(Box::default());
        }
    }

    /// Data segments sent so far (new and retransmitted).
    #[inline]
    pub fn segments_sent(&self) -> u64 {
        self.stats.segments_sent
    }

    /// Start with these values instead of the standard ones (call before `start`).
    pub fn preset(&mut self, p: Preset) {
        self.preset = Some(Box::new(p));
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

    /// The scoreboard of a SACK connection.
    fn sb(&mut self) -> &mut Scoreboard {
        self.scoreboard.get_or_insert_with(Box::default)
    }
}
