//! BBR v1 as in Linux 4.9's tcp_bbr.c (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson:
//! "BBR: Congestion-Based Congestion Control", ACM Queue 2016), also the model of ns-3's
//! TcpBbr: `bbr`. There is no BBR in ns-2.35 (TCP-Linux carries the 2.6.22 modules), so it
//! has no parity counterpart.
//!
//! The model, updated on every ACK from the sender's delivery-rate sample (`tcp/sender/
//! rate.rs`, asked for with `wants_rate_samples`):
//! - btl_bw = the maximum delivery rate over the last `bw_rtts` (10) round trips (Nichols'
//!   windowed max filter, Linux's lib/minmax.c); samples from app-limited sends count only
//!   if they raise it. A round trip ends when a segment sent after the previous end is
//!   delivered (`prior_delivered ≥ next_rtt_delivered`).
//! - min_rtt = the smallest RTT over `min_rtt_win` (10 s); when it expires without a new
//!   minimum the flow enters ProbeRTT.
//! - States: Startup (pacing and cwnd gain 2/ln 2 = 2.885) until btl_bw grew less than 25 %
//!   in 3 rounds (non-app-limited round starts); Drain (pacing gain 1/2.885) until the
//!   segments in flight ≤ BDP; ProbeBW cycling pacing gains 5/4, 3/4, 1, 1, 1, 1, 1, 1 (a
//!   phase lasts min_rtt; the 5/4 phase goes on until in flight reaches 5/4·BDP or a
//!   sample reports losses, the 3/4 phase ends early once in flight ≤ BDP), starting at a random phase other than 3/4
//!   drawn from the connection's stream `st.rng`; ProbeRTT: cwnd = `min_cwnd` (4) until
//!   `probe_rtt_time` (200 ms) and one round trip have passed with in flight ≤ 4, then
//!   the cwnd before it is restored and Startup (if the pipe was never full) or ProbeBW
//!   follows.
//! - pacing rate = pacing_gain · btl_bw (segments/s, `Pacing::Rate`), never lowered before
//!   the pipe is first full; at the start high_gain · init_cwnd / srtt (1 ms without an
//!   RTT, as 4.9), set again from the first RTT sample if there was none (Linux 4.13's
//!   fix, taken here because a connection without handshake has no RTT at the start).
//! - target cwnd = cwnd_gain · btl_bw · min_rtt rounded up, + 3 · Linux's TSO segment goal
//!   (the quantization allowance: max(rate·mss-bytes / 1024 / mss, 1 below 1.2 Mb/s else 2),
//!   at most 127 segments), rounded up to even; init_cwnd while min_rtt is unknown. cwnd
//!   grows by the acknowledged segments towards it (without a cap before the pipe is full),
//!   at least `min_cwnd`.
//! - Loss: BBR keeps its model; ssthresh stays "infinite" (2^31 − 1). Each ACK's newly lost
//!   segments (the rate sample's `losses`, counted by the sender's loss detection) come off
//!   cwnd before its growth. Entering fast recovery saves cwnd, sets it to the segments in
//!   flight and starts a round trip; for that round trip cwnd = max(cwnd, in flight +
//!   delivered by the ACK) (packet conservation), then it grows again towards the target
//!   (with SACK in `on_recovery_ack`; without it NewReno's inflation governs); leaving
//!   recovery restores max(cwnd, saved). A timeout saves cwnd, sets it to 1, restarts the
//!   full-pipe estimate and ends a round with a loss for lt_bw; once the data outstanding
//!   at the timeout is acknowledged the saved cwnd is restored.
//! - Long-term (policer) bandwidth lt_bw: from the first loss, sampling intervals of at
//!   least `lt_intvl_min_rtts` (4) and at most 4 times as many round trips, each ending at
//!   a loss once lost/delivered over it ≥ `lt_loss_thresh` (50/256), rate = delivered over
//!   the time between the interval's deliveries (whole milliseconds, the kernel's stamp).
//!   Two intervals in a row whose rates differ by at most `lt_bw_ratio` (1/8) or
//!   `lt_bw_diff` (4000 bit/s) mean a policer: lt_bw = their mean replaces btl_bw for
//!   pacing and cwnd, at pacing gain 1 with the ProbeBW cycle frozen, for `lt_bw_max_rtts`
//!   (48) ProbeBW round trips, after which ProbeBW restarts. An app-limited sample (the
//!   sender's, or ProbeRTT's) or an interval over 4 · `lt_intvl_min_rtts` rounds resets the
//!   sampling; `lt_bw` = 0 turns it off. Events `bbr_lt_bw_start` and `bbr_lt_bw_end` (value
//!   lt_bw).
//! - Idle restart: when an app-limited connection with nothing in flight gets new data
//!   (`on_idle_restart`), ProbeBW paces at btl_bw (lt_bw if in use) with gain 1 until the
//!   next ACK, and the next rate sample does not enter ProbeRTT (4.9's CA_EVENT_TX_START).
//!
//! Parameters (`cc_params`): `high_gain` = 2.885, `drain_gain` = 1/2.885, `cwnd_gain` = 2,
//! `probe_gain_up` = 1.25, `probe_gain_down` = 0.75, `bw_rtts` = 10 (rounds),
//! `min_rtt_win` = 10 (s), `probe_rtt_time` = 0.2 (s, 0 = no ProbeRTT), `min_cwnd` = 4,
//! `full_bw_thresh` = 1.25, `full_bw_rounds` = 3, `quanta` = 3 (TSO goals of allowance),
//! `lt_bw` = 1 (0 = off), `lt_intvl_min_rtts` = 4, `lt_loss_thresh` = 50/256,
//! `lt_bw_ratio` = 1/8, `lt_bw_diff` = 4000 (bit/s), `lt_bw_max_rtts` = 48.
//!
//! Departures from Linux 4.9:
//! - Floating point instead of the kernel's fixed point (BW_SCALE 24, BBR_SCALE 8): gains
//!   are exact (2/ln 2 not 739/256), differences below 1 % of the kernel's values.
//! - The growth of cwnd after the first round trip of a SACK recovery stops at what pacing
//!   at pacing_gain · bw keeps in flight (the target window with the pacing gain), never
//!   below packet conservation: the sender's SACK recovery sends what cwnd allows without
//!   pacing, where 4.9's growth relies on the pacer (fq). With 4.9's growth alone one flow
//!   with SACK on a 10 Mb/s, 40 ms path with a 20-packet buffer retransmitted 19691
//!   segments in 60 s (seed 1; 1963 before losses were counted, 1118 now), and 1099 against
//!   146 now with a 50-packet buffer on a 48 ms path.
//! - Losses marked when a fast retransmit starts (and at NewReno's partial ACKs) come with
//!   the next ACK's sample, not that ACK's: the sender decides the retransmission after the
//!   algorithm saw the sample. A timeout's losses reach lt_bw at the timeout
//!   (`on_losses_marked`) and are not reported again. Without SACK, an ACK during NewReno's
//!   recovery does not call the algorithm: its losses do not come off cwnd (NewReno's
//!   inflation sets the window).
//! - While lt_bw is in use the pacing gain is 1 also after ProbeRTT (Linux 4.16's fix;
//!   4.9 restarts the frozen ProbeBW cycle there at a random phase's gain).
//! - The idle restart is called when new data leaves with nothing in flight after the
//!   sender marked the application limited (no project application resumes a connection
//!   yet: it is reachable from the sender's API only).
//! - State changes inside a NewReno recovery are logged at the next ACK after it; duplicate
//!   ACKs outside recovery update the model but not the pacing rate or cwnd (4.9 runs its
//!   whole update on every ACK).
//! - The window set on entering recovery leaves out the ACK's delivered segment (one
//!   segment less than 4.9; the next ACK makes it up).
//! - ProbeRTT marks samples as app-limited through its own record (the segments sent from
//!   its entry until the data then in flight is delivered), not the sender's.
use super::linux::{param_flag, param_in, param_int};
use super::{check_params, AckSample, CcState, CongestionControl, Pacing, Params, RateSample, Signal};
use crate::sim::{secs, to_secs, Time};

/// Linux's TCP_INFINITE_SSTHRESH.
const INFINITE_SSTHRESH: f64 = 2147483647.0;
const CYCLE_LEN: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

/// Kathleen Nichols' windowed running maximum over `win` rounds, keeping the best, second
/// and third best samples of the window (Linux lib/minmax.c).
#[derive(Debug, Clone, Copy, Default)]
struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    fn get(&self) -> f64 {
        self.s[0].1
    }

    fn update(&mut self, win: u64, t: u64, v: f64) {
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            self.s = [(t, v); 3];
            return;
        }
        if v >= self.s[1].1 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        let dt = t - self.s[0].0;
        if dt > win {
            self.s = [self.s[1], self.s[2], (t, v)];
            if t - self.s[0].0 > win {
                self.s = [self.s[1], self.s[2], (t, v)];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
    }
}

#[derive(Debug, Clone)]
pub struct Bbr {
    high_gain: f64,
    drain_gain: f64,
    cwnd_gain_param: f64,
    gains: [f64; CYCLE_LEN],
    bw_rtts: u64,
    min_rtt_win: Time,
    probe_rtt_time: Time,
    min_cwnd: f64,
    full_bw_thresh: f64,
    full_bw_rounds: u32,
    quanta: f64,
    lt_enabled: bool,
    lt_intvl_min_rtts: u64,
    lt_loss_thresh: f64,
    lt_bw_ratio: f64,
    /// bit/s.
    lt_bw_diff: f64,
    lt_bw_max_rtts: u64,

    mode: Mode,
    bw: MaxFilter,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    /// Seconds; infinity before the first sample.
    min_rtt: f64,
    min_rtt_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    /// Segments sent with a prior delivered count in this range are app-limited (ProbeRTT).
    probe_rtt_limited: Option<(u64, u64)>,
    pacing_gain: f64,
    cwnd_gain: f64,
    /// Segments per second.
    pacing_rate: f64,
    cycle_idx: usize,
    cycle_stamp: Time,
    full_bw: f64,
    full_bw_cnt: u32,
    prior_cwnd: f64,
    restore_cwnd: bool,
    in_recovery: bool,
    /// The first round trip of a recovery: cwnd only keeps what is in flight plus what the
    /// ACK delivered.
    packet_conservation: bool,
    /// The losses of the current ACK's rate sample, for its cwnd step.
    ack_losses: u64,
    /// The backplane calls `on_recovery_ack` in this recovery (SACK recovery).
    sack_recovery: bool,
    /// After a timeout: segments still to be acknowledged before the loss state ends.
    loss_left: Option<u64>,
    /// The random part of the next ProbeBW start phase, drawn ahead from `st.rng` (the model
    /// is updated where the connection state is read-only), and whether it was used.
    cycle_offset: usize,
    redraw: bool,
    delivered: u64,
    /// The connection's lost count and the time of its last delivery (from the samples).
    lost: u64,
    delivered_time: Time,
    in_flight: u64,
    /// Long-term (policer) bandwidth: sampling an interval since the first loss, its round
    /// trips, whether `lt_bw` (segments/s, 0 = none) replaces btl_bw, and the interval's
    /// start (delivered and lost counts, time in whole milliseconds as the kernel's stamp).
    lt_is_sampling: bool,
    lt_rtt_cnt: u64,
    lt_use_bw: bool,
    lt_bw: f64,
    lt_last_delivered: u64,
    lt_last_lost: u64,
    lt_last_stamp_ms: u64,
    /// The connection restarted from idle; cleared by the next rate sample's model update.
    idle_restart: bool,
    /// The pacing rate was set from an RTT (else from 1 ms: re-set at the first one).
    has_seen_rtt: bool,
    /// State changes not yet logged (logging needs the mutable hooks).
    pending_log: Vec<(&'static str, f64)>,
}

impl Bbr {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "bbr";
        check_params(
            N,
            params,
            &[
                "high_gain",
                "drain_gain",
                "cwnd_gain",
                "probe_gain_up",
                "probe_gain_down",
                "bw_rtts",
                "min_rtt_win",
                "probe_rtt_time",
                "min_cwnd",
                "full_bw_thresh",
                "full_bw_rounds",
                "quanta",
                "lt_bw",
                "lt_intvl_min_rtts",
                "lt_loss_thresh",
                "lt_bw_ratio",
                "lt_bw_diff",
                "lt_bw_max_rtts",
            ],
        )?;
        let high = 2.0 / std::f64::consts::LN_2;
        let mut b = Bbr::new();
        b.high_gain = param_in(N, params, "high_gain", high, 1.0, 100.0)?;
        b.drain_gain = param_in(N, params, "drain_gain", 1.0 / high, 0.01, 1.0)?;
        b.cwnd_gain_param = param_in(N, params, "cwnd_gain", 2.0, 1.0, 100.0)?;
        let up = param_in(N, params, "probe_gain_up", 1.25, 1.0, 10.0)?;
        let down = param_in(N, params, "probe_gain_down", 0.75, 0.01, 1.0)?;
        b.gains = [up, down, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        b.bw_rtts = param_int(N, params, "bw_rtts", 10, 1, 1000)?;
        b.min_rtt_win = secs(param_in(N, params, "min_rtt_win", 10.0, 0.001, 3600.0)?);
        b.probe_rtt_time = secs(param_in(N, params, "probe_rtt_time", 0.2, 0.0, 60.0)?);
        b.min_cwnd = param_int(N, params, "min_cwnd", 4, 1, 1000)? as f64;
        b.full_bw_thresh = param_in(N, params, "full_bw_thresh", 1.25, 1.0, 10.0)?;
        b.full_bw_rounds = param_int(N, params, "full_bw_rounds", 3, 1, 100)? as u32;
        b.quanta = param_int(N, params, "quanta", 3, 0, 100)? as f64;
        b.lt_enabled = param_flag(N, params, "lt_bw", true)?;
        b.lt_intvl_min_rtts = param_int(N, params, "lt_intvl_min_rtts", 4, 1, 1000)?;
        b.lt_loss_thresh = param_in(N, params, "lt_loss_thresh", 50.0 / 256.0, 0.0, 1.0)?;
        b.lt_bw_ratio = param_in(N, params, "lt_bw_ratio", 1.0 / 8.0, 0.0, 1.0)?;
        b.lt_bw_diff = param_in(N, params, "lt_bw_diff", 4000.0, 0.0, 1e12)?;
        b.lt_bw_max_rtts = param_int(N, params, "lt_bw_max_rtts", 48, 1, 100000)?;
        Ok(Box::new(b))
    }

    pub fn new() -> Bbr {
        let high = 2.0 / std::f64::consts::LN_2;
        Bbr {
            high_gain: high,
            drain_gain: 1.0 / high,
            cwnd_gain_param: 2.0,
            gains: [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            bw_rtts: 10,
            min_rtt_win: secs(10.0),
            probe_rtt_time: secs(0.2),
            min_cwnd: 4.0,
            full_bw_thresh: 1.25,
            full_bw_rounds: 3,
            quanta: 3.0,
            lt_enabled: true,
            lt_intvl_min_rtts: 4,
            lt_loss_thresh: 50.0 / 256.0,
            lt_bw_ratio: 1.0 / 8.0,
            lt_bw_diff: 4000.0,
            lt_bw_max_rtts: 48,
            mode: Mode::Startup,
            bw: MaxFilter::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: f64::INFINITY,
            min_rtt_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            probe_rtt_limited: None,
            pacing_gain: high,
            cwnd_gain: high,
            pacing_rate: 0.0,
            cycle_idx: 0,
            cycle_stamp: 0,
            full_bw: 0.0,
            full_bw_cnt: 0,
            prior_cwnd: 0.0,
            restore_cwnd: false,
            in_recovery: false,
            packet_conservation: false,
            ack_losses: 0,
            sack_recovery: false,
            loss_left: None,
            cycle_offset: 0,
            redraw: true,
            delivered: 0,
            lost: 0,
            delivered_time: 0,
            in_flight: 0,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0.0,
            lt_last_delivered: 0,
            lt_last_lost: 0,
            lt_last_stamp_ms: 0,
            idle_restart: false,
            has_seen_rtt: false,
            pending_log: Vec::new(),
        }
    }

    fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// The bandwidth the flow paces at and sizes cwnd for (Linux's bbr_bw).
    fn bw(&self) -> f64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    fn full_bw_reached(&self) -> bool {
        self.full_bw_cnt >= self.full_bw_rounds
    }

    fn set_mode(&mut self, m: Mode) {
        if m != self.mode {
            self.mode = m;
            self.pending_log.push(("bbr_state", m as u8 as f64));
        }
    }

    /// Linux's tcp_tso_autosize goal for the pacing rate (segments).
    fn tso_segs_goal(&self, mss: u32) -> f64 {
        let bytes = self.pacing_rate * f64::from(mss);
        let min_segs = if bytes < 1.2e6 / 8.0 { 1.0 } else { 2.0 };
        let per_ms = (bytes / 1024.0).min(65536.0 - 1.0 - 320.0);
        (per_ms / f64::from(mss)).floor().max(min_segs).min(127.0)
    }

    /// cwnd for `gain` times the estimated BDP, with the quantization allowance.
    fn target_cwnd(&self, bw: f64, gain: f64, st: &CcState) -> f64 {
        if !self.min_rtt.is_finite() {
            return st.init_cwnd;
        }
        let w = (bw * self.min_rtt * gain - 1e-9).ceil().max(0.0);
        let w = w + self.quanta * self.tso_segs_goal(st.mss);
        2.0 * (w / 2.0).ceil()
    }

    fn save_cwnd(&mut self, cwnd: f64) {
        self.prior_cwnd = if !self.in_recovery && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = now;
        // While lt_bw is in use the gain stays 1 (Linux 4.16's fix; 4.9 could keep a
        // ProbeBW phase's gain set on leaving ProbeRTT, the cycle being frozen).
        self.pacing_gain = if self.lt_use_bw {
            1.0
        } else {
            self.gains[self.cycle_idx]
        };
    }

    fn reset_probe_bw(&mut self, now: Time) {
        self.set_mode(Mode::ProbeBw);
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.cwnd_gain_param;
        // Start anywhere but the 3/4 phase: idx = 7 − r, r in [0, 7), then advanced.
        self.cycle_idx = CYCLE_LEN - 1 - self.cycle_offset;
        self.redraw = true;
        self.advance_cycle_phase(now);
    }

    fn reset_startup(&mut self) {
        self.set_mode(Mode::Startup);
        self.pacing_gain = self.high_gain;
        self.cwnd_gain = self.high_gain;
    }

    fn app_limited(&self, rs: &RateSample) -> bool {
        rs.is_app_limited
            || self
                .probe_rtt_limited
                .is_some_and(|(lo, hi)| rs.prior_delivered >= lo && rs.prior_delivered <= hi)
    }

    fn update_bw(&mut self, st: &CcState, rs: &RateSample) {
        self.round_start = false;
        if !rs.valid() {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = rs.total_delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        if self.lt_enabled {
            self.lt_bw_sampling(st, rs.losses, self.app_limited(rs));
        }
        let bw = rs.delivery_rate;
        if !self.app_limited(rs) || bw >= self.max_bw() {
            self.bw.update(self.bw_rtts, self.rtt_cnt, bw);
        }
    }

    /// Start a long-term sampling interval now.
    fn reset_lt_interval(&mut self) {
        self.lt_last_stamp_ms = self.delivered_time / 1_000_000;
        self.lt_last_delivered = self.delivered;
        self.lt_last_lost = self.lost;
        self.lt_rtt_cnt = 0;
    }

    fn reset_lt_bw_sampling(&mut self) {
        if self.lt_use_bw {
            self.pending_log.push(("bbr_lt_bw_end", self.lt_bw));
        }
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_interval();
    }

    /// An interval ended with `bw` (segments/s): two in a row that agree within
    /// `lt_bw_ratio` or `lt_bw_diff` mean a policer; their mean becomes lt_bw.
    fn lt_bw_interval_done(&mut self, bw: f64, mss: u32) {
        if self.lt_bw > 0.0 {
            let diff = (bw - self.lt_bw).abs();
            if diff <= self.lt_bw_ratio * self.lt_bw || diff * f64::from(mss) * 8.0 <= self.lt_bw_diff {
                self.lt_bw = (bw + self.lt_bw) / 2.0;
                self.lt_use_bw = true;
                self.pacing_gain = 1.0;
                self.lt_rtt_cnt = 0;
                self.pending_log.push(("bbr_lt_bw_start", self.lt_bw));
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_interval();
    }

    /// Linux's bbr_lt_bw_sampling: intervals of `lt_intvl_min_rtts` to 4 times as many
    /// round trips that start at a loss and end at a loss with lost/delivered ≥
    /// `lt_loss_thresh`; lt_bw is used for `lt_bw_max_rtts` ProbeBW rounds.
    fn lt_bw_sampling(&mut self, st: &CcState, losses: u64, app_limited: bool) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= self.lt_bw_max_rtts {
                    self.reset_lt_bw_sampling();
                    self.reset_probe_bw(st.now);
                }
            }
            return;
        }
        // The first loss starts sampling (a policer's bucket is then empty).
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_interval();
            self.lt_is_sampling = true;
        }
        if app_limited {
            self.reset_lt_bw_sampling();
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < self.lt_intvl_min_rtts {
            return;
        }
        if self.lt_rtt_cnt > 4 * self.lt_intvl_min_rtts {
            self.reset_lt_bw_sampling();
            return;
        }
        if losses == 0 {
            return;
        }
        let lost = self.lost.saturating_sub(self.lt_last_lost);
        let delivered = self.delivered.saturating_sub(self.lt_last_delivered);
        if delivered == 0 || (lost as f64) < self.lt_loss_thresh * delivered as f64 {
            return;
        }
        let ms = (self.delivered_time / 1_000_000).saturating_sub(self.lt_last_stamp_ms);
        if ms < 1 {
            return;
        }
        self.lt_bw_interval_done(delivered as f64 / (ms as f64 * 1e-3), st.mss);
    }

    fn update_cycle_phase(&mut self, st: &CcState, rs: &RateSample) {
        if self.mode != Mode::ProbeBw || self.lt_use_bw {
            return;
        }
        let losses = rs.losses > 0;
        let full_length = to_secs(st.now.saturating_sub(self.cycle_stamp)) > self.min_rtt;
        let inflight = rs.prior_in_flight as f64;
        let next = if self.pacing_gain == 1.0 {
            full_length
        } else if self.pacing_gain > 1.0 {
            full_length && (losses || inflight >= self.target_cwnd(self.max_bw(), self.pacing_gain, st))
        } else {
            full_length || inflight <= self.target_cwnd(self.max_bw(), 1.0, st)
        };
        if next {
            self.advance_cycle_phase(st.now);
        }
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached() || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * self.full_bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
    }

    fn check_drain(&mut self, st: &CcState, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached() {
            self.set_mode(Mode::Drain);
            self.pacing_gain = self.drain_gain;
            self.cwnd_gain = self.high_gain;
        }
        if self.mode == Mode::Drain && rs.in_flight as f64 <= self.target_cwnd(self.max_bw(), 1.0, st) {
            self.reset_probe_bw(st.now);
        }
    }

    fn update_min_rtt(&mut self, st: &CcState, rs: &RateSample) {
        let now = st.now;
        let idle_restart = std::mem::take(&mut self.idle_restart);
        let expired = now > self.min_rtt_stamp.saturating_add(self.min_rtt_win);
        if let Some(rtt) = rs.rtt {
            if rtt <= self.min_rtt || expired {
                self.min_rtt = rtt;
                self.min_rtt_stamp = now;
            }
        }
        if self.probe_rtt_time > 0 && expired && !idle_restart && self.mode != Mode::ProbeRtt {
            self.save_cwnd(st.cwnd);
            self.set_mode(Mode::ProbeRtt);
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.probe_rtt_done = None;
            self.probe_rtt_limited = Some((rs.total_delivered, rs.total_delivered));
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        if let Some((_, hi)) = self.probe_rtt_limited.as_mut() {
            *hi = (rs.total_delivered + rs.in_flight).max(1);
        }
        match self.probe_rtt_done {
            None if rs.in_flight as f64 <= self.min_cwnd => {
                self.probe_rtt_done = Some(now.saturating_add(self.probe_rtt_time));
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = rs.total_delivered;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.min_rtt_stamp = now;
                    self.restore_cwnd = true;
                    if self.full_bw_reached() {
                        self.reset_probe_bw(now);
                    } else {
                        self.reset_startup();
                    }
                }
            }
        }
    }

    /// The model update of one rate sample (Linux's bbr_update_model).
    fn update_model(&mut self, st: &CcState, rs: &RateSample) {
        self.delivered = rs.total_delivered;
        self.lost = rs.total_lost;
        self.delivered_time = rs.delivered_time;
        self.in_flight = rs.in_flight;
        self.ack_losses = rs.losses;
        self.update_bw(st, rs);
        self.update_cycle_phase(st, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(st, rs);
        self.update_min_rtt(st, rs);
    }

    /// Pacing rate and cwnd after an ACK of `acked` segments (Linux's bbr_main after the
    /// model update), and what the read-only model update left to do.
    fn control(&mut self, st: &mut CcState, acked: u64) {
        self.housekeeping(st);
        if !self.has_seen_rtt && st.srtt > 0.0 {
            self.init_pacing(st);
        }
        let bw = self.bw();
        self.set_pacing_rate(st, bw * self.pacing_gain);
        if acked == 0 {
            return;
        }
        let mut cwnd = self.deduct_losses(st.cwnd);
        if self.restore_cwnd {
            cwnd = cwnd.max(self.prior_cwnd);
            self.restore_cwnd = false;
        }
        st.cwnd = self.grow(st, cwnd, acked as f64, bw);
    }

    /// The ACK's newly lost segments come off cwnd (an ACK releases at most twice what it
    /// delivered: the loss deduction, then the growth).
    fn deduct_losses(&mut self, cwnd: f64) -> f64 {
        let losses = std::mem::take(&mut self.ack_losses);
        if losses > 0 {
            (cwnd - losses as f64).max(1.0)
        } else {
            cwnd
        }
    }

    /// cwnd grown by `acked` towards the target (capped there once the pipe was full), at
    /// least `min_cwnd`, at most `min_cwnd` in ProbeRTT.
    fn grow(&self, st: &CcState, mut cwnd: f64, acked: f64, bw: f64) -> f64 {
        let target = self.target_cwnd(bw, self.cwnd_gain, st);
        if self.full_bw_reached() {
            cwnd = (cwnd + acked).min(target);
        } else if cwnd < target || (self.delivered as f64) < st.init_cwnd {
            cwnd += acked;
        }
        cwnd = cwnd.max(self.min_cwnd);
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.min_cwnd);
        }
        cwnd
    }

    fn set_pacing_rate(&mut self, st: &mut CcState, rate: f64) {
        if rate > 0.0 && (self.full_bw_reached() || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
        if self.pacing_rate > 0.0 {
            st.pacing = Pacing::Rate(self.pacing_rate);
        }
    }

    fn housekeeping(&mut self, st: &mut CcState) {
        if self.redraw {
            self.cycle_offset = (st.rng.uniform() * (CYCLE_LEN - 1) as f64) as usize % (CYCLE_LEN - 1);
            self.redraw = false;
        }
        st.log.append(&mut self.pending_log);
    }

    fn init_pacing(&mut self, st: &mut CcState) {
        self.has_seen_rtt = st.srtt > 0.0;
        let rtt = if st.srtt > 0.0 { st.srtt } else { 0.001 };
        self.pacing_rate = 0.0;
        self.set_pacing_rate(st, self.high_gain * st.cwnd / rtt);
    }
}

impl Default for Bbr {
    fn default() -> Self {
        Bbr::new()
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn init(&mut self, st: &mut CcState) {
        st.cwnd = st.init_cwnd;
        st.ssthresh = INFINITE_SSTHRESH;
        self.min_rtt_stamp = st.now;
        self.housekeeping(st);
        self.init_pacing(st);
    }

    fn on_switch_in(&mut self, st: &mut CcState) {
        st.ssthresh = INFINITE_SSTHRESH;
        self.min_rtt_stamp = st.now;
        if st.min_rtt.is_finite() {
            self.min_rtt = st.min_rtt;
        }
        self.housekeeping(st);
        self.init_pacing(st);
    }

    fn on_ack_arrival(&mut self, st: &CcState, ack: &AckSample) {
        if let Some(rs) = ack.rate {
            self.update_model(st, &rs);
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if let Some(left) = self.loss_left {
            if ack.acked >= left {
                self.loss_left = None;
                self.restore_cwnd = true;
            } else {
                self.loss_left = Some(left - ack.acked);
            }
        }
        self.control(st, ack.acked);
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        self.housekeeping(st);
        self.save_cwnd(st.cwnd);
        match signal {
            Signal::DupAcks => {
                // Packet conservation: the window is what is in flight, for a round trip
                // that starts now.
                self.in_recovery = true;
                self.packet_conservation = true;
                self.sack_recovery = false;
                self.next_rtt_delivered = self.delivered;
                st.cwnd = (self.in_flight as f64).max(1.0);
            }
            Signal::Timeout => {
                self.in_recovery = false;
                self.packet_conservation = false;
                self.loss_left = Some(st.flight);
                self.full_bw = 0.0;
                // The timeout ends a round and is a loss for the long-term sampling.
                self.round_start = true;
                if self.lt_enabled {
                    self.lt_bw_sampling(st, 1, false);
                }
                self.housekeeping(st);
                st.cwnd = 1.0;
            }
            // BBR v1 does not answer ECN or other notifications.
            Signal::Ecn | Signal::Explicit => {}
        }
        st.ssthresh = INFINITE_SSTHRESH;
        st.recovery_base = st.cwnd;
    }

    fn on_recovery_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        self.sack_recovery = true;
        self.housekeeping(st);
        let bw = self.bw();
        self.set_pacing_rate(st, bw * self.pacing_gain);
        let Some(rs) = ack.rate else { return };
        if rs.newly_delivered == 0 {
            if self.mode == Mode::ProbeRtt {
                st.cwnd = st.cwnd.min(self.min_cwnd);
            }
            return;
        }
        let acked = rs.newly_delivered as f64;
        let cwnd = self.deduct_losses(st.cwnd);
        st.cwnd = if self.packet_conservation {
            let c = cwnd.max(rs.in_flight as f64 + acked);
            if self.mode == Mode::ProbeRtt {
                c.min(self.min_cwnd)
            } else {
                c
            }
        } else {
            // The sender's SACK recovery does not pace: the growth stops at what pacing
            // at pacing_gain · bw keeps in flight (see the departures).
            let paced = self.target_cwnd(bw, self.pacing_gain, st);
            let conserved = cwnd.max(rs.in_flight as f64 + acked);
            self.grow(st, cwnd, acked, bw).min(paced.max(conserved))
        };
    }

    fn on_losses_marked(&mut self, total_delivered: u64, total_lost: u64) {
        self.delivered = total_delivered;
        self.lost = total_lost;
    }

    fn on_idle_restart(&mut self, st: &mut CcState) {
        self.idle_restart = true;
        if self.mode == Mode::ProbeBw {
            // Restarting app-limited: pace at the estimate, no faster (gain 1).
            let bw = self.bw();
            self.set_pacing_rate(st, bw);
        }
        self.housekeeping(st);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        self.in_recovery = false;
        // NewReno's recovery inflated cwnd (recovery_base is the window without it); in
        // SACK recovery cwnd is BBR's own.
        let base = if self.sack_recovery { st.cwnd } else { st.recovery_base };
        st.cwnd = base.max(self.prior_cwnd).max(self.min_cwnd);
        if self.mode == Mode::ProbeRtt {
            st.cwnd = st.cwnd.min(self.min_cwnd);
        }
        self.housekeeping(st);
        let bw = self.bw();
        self.set_pacing_rate(st, bw * self.pacing_gain);
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("bbr_state", self.mode as u8 as f64));
        out.push(("bbr_btl_bw", self.max_bw()));
        out.push((
            "bbr_min_rtt",
            if self.min_rtt.is_finite() {
                self.min_rtt
            } else {
                f64::NAN
            },
        ));
        out.push(("bbr_pacing_gain", self.pacing_gain));
        out.push(("bbr_cwnd_gain", self.cwnd_gain));
        out.push(("bbr_pacing_rate", self.pacing_rate));
        out.push(("bbr_lt_bw", self.lt_bw));
        out.push(("bbr_lt_use", f64::from(u8::from(self.lt_use_bw))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state};

    /// A valid rate sample: `rate` segments/s, the segment sent at delivered count
    /// `prior`, `total` delivered after the ACK, in flight before and after, an RTT.
    fn rs(rate: f64, prior: u64, total: u64, in_flight: (u64, u64), rtt: f64) -> RateSample {
        RateSample {
            delivery_rate: rate,
            interval: 0.1,
            delivered: total - prior,
            prior_delivered: prior,
            total_delivered: total,
            prior_in_flight: in_flight.0,
            in_flight: in_flight.1,
            newly_delivered: 1,
            rtt: Some(rtt),
            is_app_limited: false,
            ..RateSample::default()
        }
    }

    fn feed(b: &mut Bbr, st: &mut CcState, t: f64, r: RateSample) {
        st.now = secs(t);
        let a = AckSample {
            acked: 1,
            duplicate: false,
            rtt: None,
            rate: Some(r),
        };
        b.on_ack_arrival(st, &a);
        b.on_ack(st, &a);
    }

    /// A flow at 490 segments/s, min_rtt 100 ms, started and driven out of Startup: one
    /// round per sample (each sample's segment was sent after the previous round ended).
    fn through_startup(b: &mut Bbr, st: &mut CcState) -> u64 {
        st.srtt = 0.1;
        b.init(st);
        let mut total = 0;
        for (k, rate) in [100.0, 200.0, 400.0, 450.0, 480.0, 490.0].iter().enumerate() {
            let prior = total;
            total += 100;
            feed(b, st, 0.1 * (k + 1) as f64, rs(*rate, prior, total, (200, 200), 0.1));
            if k < 5 {
                assert_eq!(b.mode, Mode::Startup, "round {}", k + 1);
            }
        }
        total
    }

    #[test]
    fn startup_ends_after_three_rounds_without_25_percent_growth() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        through_startup(&mut b, &mut st);
        // 100, 200, 400 grow ≥ 25 % (full_bw follows); 450, 480, 490 < 1.25·400: 3 rounds
        assert_eq!((b.rtt_cnt, b.full_bw, b.full_bw_cnt), (6, 400.0, 3));
        assert_eq!(b.mode, Mode::Drain);
        assert!((b.pacing_gain - std::f64::consts::LN_2 / 2.0).abs() < 1e-12);
        assert!((b.cwnd_gain - 2.0 / std::f64::consts::LN_2).abs() < 1e-12);
        assert_eq!(st.log, vec![("bbr_state", 1.0)]);
        // Startup's pacing: 2/ln 2 · 480 (never lowered while the pipe was not full), in
        // Drain 490/2.885 (full pipe: follows the model)
        assert!((b.pacing_rate - 490.0 * std::f64::consts::LN_2 / 2.0).abs() < 1e-9);
        // cwnd grew by one per ACK in Startup (below the target 2.885·BDP), from init_cwnd
        // 1 raised to min_cwnd 4 at the first: 4, 5, ..., 9
        assert_eq!(st.cwnd, 9.0);
        // an app-limited round start does not count
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        st.srtt = 0.1;
        b.init(&mut st);
        feed(&mut b, &mut st, 0.1, rs(400.0, 0, 100, (200, 200), 0.1));
        let mut r = rs(400.0, 100, 200, (200, 200), 0.1);
        r.is_app_limited = true;
        for k in 0..5 {
            r.prior_delivered = 100 * (k + 1);
            r.total_delivered = 100 * (k + 2);
            feed(&mut b, &mut st, 0.2 + 0.1 * k as f64, r);
        }
        assert_eq!((b.mode, b.full_bw_cnt), (Mode::Startup, 0));
    }

    #[test]
    fn drain_lasts_until_in_flight_is_at_most_the_bdp() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        let mut total = through_startup(&mut b, &mut st);
        // BDP target: ceil(490 · 0.1) = 49 + 3·2 (TSO goal 2 at 1.4 MB/s) = 55 → even: 56
        assert_eq!(b.target_cwnd(490.0, 1.0, &st), 56.0);
        b.cycle_offset = 0;
        total += 1;
        feed(&mut b, &mut st, 0.61, rs(490.0, 500, total, (60, 57), 0.1));
        assert_eq!(b.mode, Mode::Drain);
        total += 1;
        feed(&mut b, &mut st, 0.62, rs(490.0, 500, total, (57, 56), 0.1));
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!((b.cycle_idx, b.pacing_gain, b.cwnd_gain), (0, 1.25, 2.0));
        assert_eq!(st.log.last(), Some(&("bbr_state", 2.0)));
        // full pipe: cwnd ≤ 2·BDP + allowance = 98 + 6 = 104
        st.cwnd = 200.0;
        feed(&mut b, &mut st, 0.63, rs(490.0, 500, total + 1, (56, 56), 0.1));
        assert_eq!(st.cwnd, 104.0);
        assert_eq!(st.pacing, Pacing::Rate(490.0 * 1.25));
    }

    #[test]
    fn probe_bw_cycles_through_the_eight_gains() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        let total = through_startup(&mut b, &mut st);
        b.cycle_offset = 0;
        feed(&mut b, &mut st, 0.6, rs(490.0, 500, total + 1, (56, 56), 0.1));
        assert_eq!((b.cycle_idx, b.pacing_gain), (0, 1.25));
        let mut t = 0.6;
        let mut step = |b: &mut Bbr, st: &mut CcState, dt: f64, prior_in_flight: u64| {
            t += dt;
            feed(b, st, t, rs(490.0, 500, total + 1, (prior_in_flight, 56), 0.1));
            (b.cycle_idx, b.pacing_gain)
        };
        // 5/4 phase: at least min_rtt and in flight ≥ target(5/4) = 62 + 6 = 68
        assert_eq!(step(&mut b, &mut st, 0.05, 100), (0, 1.25), "shorter than min_rtt");
        assert_eq!(step(&mut b, &mut st, 0.06, 67), (0, 1.25), "in flight below 5/4 BDP");
        assert_eq!(step(&mut b, &mut st, 0.01, 68), (1, 0.75));
        // (a loss ends the 5/4 phase too, once it lasted min_rtt: checked below)
        // 3/4 phase: ends early once in flight ≤ BDP (56), else after min_rtt
        assert_eq!(step(&mut b, &mut st, 0.01, 57), (1, 0.75));
        assert_eq!(step(&mut b, &mut st, 0.01, 56), (2, 1.0));
        // six phases at gain 1, each longer than min_rtt
        for idx in 3..=7 {
            assert_eq!(step(&mut b, &mut st, 0.05, 10), (idx - 1, 1.0));
            assert_eq!(step(&mut b, &mut st, 0.051, 10), (idx, 1.0));
        }
        assert_eq!(step(&mut b, &mut st, 0.101, 10), (0, 1.25));
        // a sample with losses ends the 5/4 phase if it lasted min_rtt
        let mut lossy = |b: &mut Bbr, st: &mut CcState, dt: f64| {
            t += dt;
            let mut r = rs(490.0, 500, total + 1, (10, 10), 0.1);
            r.losses = 1;
            feed(b, st, t, r);
            (b.cycle_idx, b.pacing_gain)
        };
        assert_eq!(lossy(&mut b, &mut st, 0.05), (0, 1.25), "shorter than min_rtt");
        assert_eq!(lossy(&mut b, &mut st, 0.06), (1, 0.75));
        // the start phase is random, never the 3/4 one: idx 7 − r + 1, r ∈ [0, 7)
        let mut seen = [0u32; CYCLE_LEN];
        for seed in 0..400 {
            let mut b = Bbr::new();
            let mut st = test_state(10.0, 1e9);
            st.rng = crate::sim::Rng::from_seed(seed);
            b.init(&mut st);
            b.reset_probe_bw(0);
            seen[b.cycle_idx] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 30), "{seen:?}");
    }

    #[test]
    fn probe_rtt_after_10_s_without_a_new_minimum_for_200_ms_and_a_round() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        let mut total = through_startup(&mut b, &mut st);
        b.cycle_offset = 3;
        feed(&mut b, &mut st, 0.6, rs(490.0, 500, total + 1, (56, 56), 0.1));
        assert_eq!(b.mode, Mode::ProbeBw);
        // the last new minimum (0.1 s, ≤ the old one) was at 0.6 s; later RTTs are longer
        assert_eq!((b.min_rtt, b.min_rtt_stamp), (0.1, secs(0.6)));
        feed(&mut b, &mut st, 10.6, rs(490.0, 500, total + 2, (56, 56), 0.12));
        assert_eq!(b.mode, Mode::ProbeBw, "10 s, not more");
        st.cwnd = 100.0;
        feed(&mut b, &mut st, 10.61, rs(490.0, 500, total + 3, (56, 56), 0.12));
        assert_eq!(b.mode, Mode::ProbeRtt);
        assert_eq!((b.min_rtt, b.prior_cwnd, st.cwnd), (0.12, 100.0, 4.0));
        assert_eq!((b.pacing_gain, b.cwnd_gain), (1.0, 1.0));
        // in flight above 4: the 200 ms have not begun
        total += 10;
        feed(&mut b, &mut st, 10.7, rs(490.0, total - 1, total, (40, 30), 0.12));
        assert_eq!(b.probe_rtt_done, None);
        // in flight 4 at 10.8 s: done at 11.0 s and one round after (a segment sent after
        // now is delivered)
        total += 10;
        feed(&mut b, &mut st, 10.8, rs(490.0, total - 1, total, (5, 4), 0.12));
        assert_eq!(b.probe_rtt_done, Some(secs(11.0)));
        let round_end = total;
        // the round ends at 10.9 s, before the 200 ms
        feed(&mut b, &mut st, 10.9, rs(490.0, round_end, round_end + 4, (4, 4), 0.12));
        assert!(b.probe_rtt_round_done && b.mode == Mode::ProbeRtt);
        feed(
            &mut b,
            &mut st,
            10.99,
            rs(490.0, round_end + 1, round_end + 5, (4, 4), 0.12),
        );
        assert_eq!(b.mode, Mode::ProbeRtt);
        feed(
            &mut b,
            &mut st,
            11.01,
            rs(490.0, round_end + 2, round_end + 6, (4, 4), 0.12),
        );
        assert_eq!(b.mode, Mode::ProbeBw, "the pipe was full: back to ProbeBW");
        assert_eq!(b.min_rtt_stamp, secs(11.01));
        // the cwnd before ProbeRTT comes back, + 1 for the ACK (below the target
        // 2·0.12·490 → 118 + 6 = 124)
        assert_eq!(st.cwnd, 101.0);
        // samples of segments sent during ProbeRTT are app-limited for the bw filter
        assert!(b.app_limited(&rs(10.0, round_end, round_end + 1, (4, 4), 0.12)));
        assert!(!b.app_limited(&rs(10.0, round_end + 100, round_end + 101, (4, 4), 0.12)));
    }

    #[test]
    fn probe_rtt_waits_for_the_round_after_the_200_ms() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        let total = through_startup(&mut b, &mut st);
        feed(&mut b, &mut st, 10.7, rs(490.0, 500, total + 1, (56, 4), 0.12));
        assert_eq!(b.mode, Mode::ProbeRtt);
        assert_eq!(b.probe_rtt_done, Some(secs(10.9)));
        let end = total + 1;
        feed(&mut b, &mut st, 11.0, rs(490.0, end - 1, end + 1, (4, 4), 0.12));
        assert_eq!(b.mode, Mode::ProbeRtt, "200 ms passed, the round not");
        feed(&mut b, &mut st, 11.01, rs(490.0, end, end + 2, (4, 4), 0.12));
        assert_eq!(b.mode, Mode::ProbeBw);
    }

    #[test]
    fn the_bandwidth_filter_keeps_the_maximum_of_10_rounds() {
        let mut f = MaxFilter::default();
        f.update(10, 1, 1000.0);
        for t in 2..=11 {
            f.update(10, t, 500.0 + t as f64);
            assert_eq!(f.get(), 1000.0, "round {t}");
        }
        // round 12: the 1000 is more than 10 rounds old; the best of the window remains
        f.update(10, 12, 400.0);
        assert!(f.get() < 1000.0 && f.get() >= 502.0, "{}", f.get());
        // app-limited samples only count when they raise the estimate
        let mut b = Bbr::new();
        let st = test_state(10.0, 1e9);
        let mut r = rs(300.0, 0, 10, (10, 10), 0.1);
        b.update_bw(&st, &r);
        r.is_app_limited = true;
        r.delivery_rate = 100.0;
        r.prior_delivered = 10;
        b.update_bw(&st, &r);
        assert_eq!(b.max_bw(), 300.0);
        r.delivery_rate = 350.0;
        b.update_bw(&st, &r);
        assert_eq!(b.max_bw(), 350.0);
    }

    #[test]
    fn losses_conserve_packets_and_restore_the_window() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        let total = through_startup(&mut b, &mut st);
        st.cwnd = 80.0;
        let a = AckSample {
            acked: 0,
            duplicate: true,
            rtt: None,
            rate: Some(rs(490.0, 500, total + 1, (60, 57), 0.1)),
        };
        b.on_ack_arrival(&st, &a);
        b.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.cwnd, st.ssthresh, b.prior_cwnd), (57.0, INFINITE_SSTHRESH, 80.0));
        st.recovery_base = 50.0;
        b.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 80.0);
        // a timeout: cwnd 1, back once the data outstanding then (60) is acknowledged
        st.flight = 60;
        b.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.cwnd, b.full_bw), (1.0, 0.0));
        let a = |n| AckSample {
            acked: n,
            duplicate: false,
            rtt: None,
            rate: None,
        };
        b.on_ack(&mut st, &a(30));
        assert_eq!(st.cwnd, 31.0);
        b.on_ack(&mut st, &a(30));
        // restored: max(31, 80) + 30, below the target of Drain 2.885·49 → 142 + 6 = 148
        assert_eq!(st.cwnd, 110.0);
        // ECN is ignored
        b.on_congestion(&mut st, Signal::Ecn);
        assert_eq!(st.cwnd, 110.0);
    }

    #[test]
    fn sack_recovery_conserves_packets_for_a_round_then_grows_minus_the_losses() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        let total = through_startup(&mut b, &mut st); // 600 delivered, Drain, 490/s, 0.1 s
        b.cycle_offset = 0;
        feed(&mut b, &mut st, 0.6, rs(490.0, 500, total + 1, (56, 56), 0.1));
        assert_eq!(b.mode, Mode::ProbeBw);
        st.cwnd = 100.0;
        let ack = |b: &mut Bbr, st: &mut CcState, t: f64, r: RateSample, dup: bool| {
            st.now = secs(t);
            let a = AckSample {
                acked: u64::from(!dup),
                duplicate: dup,
                rtt: None,
                rate: Some(r),
            };
            b.on_ack_arrival(st, &a);
            a
        };
        // the third duplicate ACK: 60 in flight (pipe)
        let d = total + 1;
        ack(&mut b, &mut st, 0.61, rs(490.0, 550, d + 1, (63, 60), 0.1), true);
        b.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.cwnd, b.prior_cwnd, b.next_rtt_delivered), (60.0, 100.0, d + 1));
        // the ACK's newly lost segments come off, then cwnd = max(cwnd, pipe + delivered):
        // 60 - 2 = 58, max(58, 58 + 1)
        let mut r = rs(490.0, 560, d + 3, (60, 58), 0.1);
        r.losses = 2;
        let a = ack(&mut b, &mut st, 0.62, r, true);
        b.on_recovery_ack(&mut st, &a);
        assert_eq!(st.cwnd, 59.0);
        let a = ack(&mut b, &mut st, 0.63, rs(490.0, 570, d + 4, (60, 62), 0.1), true);
        b.on_recovery_ack(&mut st, &a);
        assert_eq!(st.cwnd, 63.0, "max(59, 62 + 1)");
        // an ACK that delivers nothing changes nothing, losses or not
        let mut r = rs(490.0, 570, d + 4, (62, 61), 0.1);
        (r.newly_delivered, r.losses) = (0, 1);
        let a = ack(&mut b, &mut st, 0.64, r, true);
        b.on_recovery_ack(&mut st, &a);
        assert_eq!(st.cwnd, 63.0);
        // a segment sent after the recovery began is delivered: the round ends and with it
        // the conservation; cwnd grows by the 6 delivered towards the target (104) after
        // the deduction of the 1 lost: 63 - 1 + 6
        let mut r = rs(490.0, d + 1, d + 10, (62, 55), 0.1);
        (r.newly_delivered, r.losses) = (6, 1);
        let a = ack(&mut b, &mut st, 0.7, r, false);
        b.on_recovery_ack(&mut st, &a);
        assert!(b.round_start && !b.packet_conservation);
        assert_eq!(st.cwnd, 68.0);
        // 4.9 would go on to 68 + 10 = 78; here the growth stops at what pacing at the
        // 5/4 phase's rate keeps in flight: ceil(1.25 · 490 · 0.1) + 3 · 2 = 68
        let mut r = rs(490.0, d + 2, d + 20, (55, 50), 0.1);
        r.newly_delivered = 10;
        let a = ack(&mut b, &mut st, 0.71, r, false);
        b.on_recovery_ack(&mut st, &a);
        assert_eq!((b.pacing_gain, st.cwnd), (1.25, 68.0));
        // never below what conservation would keep: 80 in flight after 10 delivered
        let mut r = rs(490.0, d + 3, d + 30, (85, 80), 0.1);
        r.newly_delivered = 10;
        let a = ack(&mut b, &mut st, 0.72, r, false);
        b.on_recovery_ack(&mut st, &a);
        assert_eq!(st.cwnd, 78.0, "min(68 + 10, max(68, 80 + 10))");
        // the end: back to the window before the loss
        b.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 100.0);
        // outside recovery a lossy ACK takes its losses off too: min(100 - 3 + 1, 104)
        let mut r = rs(490.0, d + 10, d + 31, (60, 59), 0.1);
        r.losses = 3;
        feed(&mut b, &mut st, 0.73, r);
        assert_eq!(st.cwnd, 98.0);
    }

    /// One round trip's sample: the segment sent at delivered count `prior` (the previous
    /// round's end) is delivered with `total`, when `lost` segments were marked lost so far,
    /// `losses` of them since the previous sample, at `t` seconds (the delivery time).
    fn round(prior: u64, total: u64, lost: u64, losses: u64, t: f64) -> RateSample {
        let mut r = rs(490.0, prior, total, (56, 56), 0.1);
        (r.total_lost, r.losses, r.delivered_time) = (lost, losses, secs(t));
        r
    }

    /// In ProbeBW at gain 1 (phase 6), 600 delivered, round 6 ended at 0.6 s.
    fn in_probe_bw(b: &mut Bbr, st: &mut CcState) {
        let total = through_startup(b, st);
        b.cycle_offset = 2;
        feed(b, st, 0.6, rs(490.0, 500, total, (56, 56), 0.1));
        assert_eq!((b.mode, b.cycle_idx, b.pacing_gain), (Mode::ProbeBw, 6, 1.0));
        assert_eq!(b.next_rtt_delivered, 600);
    }

    /// Interval A of the long-term sampling: starts with the first loss at 0.8 s (800
    /// delivered, 1 lost) and ends at 1.2 s: 400 delivered in 0.4 s = 1000/s, 80 lost.
    fn interval_a(b: &mut Bbr, st: &mut CcState) {
        feed(b, st, 0.7, round(600, 700, 0, 0, 0.7));
        assert!(!b.lt_is_sampling, "no loss, no sampling");
        feed(b, st, 0.8, round(700, 800, 1, 1, 0.8));
        assert_eq!(
            (
                b.lt_is_sampling,
                b.lt_rtt_cnt,
                b.lt_last_delivered,
                b.lt_last_lost,
                b.lt_last_stamp_ms
            ),
            (true, 1, 800, 1, 800),
            "the loss's own round counts"
        );
        feed(b, st, 0.9, round(800, 900, 10, 9, 0.9));
        feed(b, st, 1.0, round(900, 1000, 30, 20, 1.0));
        // round 4 at 1.1 s: 300 delivered, 58 lost < 50/256 · 300 = 58.6: not yet
        feed(b, st, 1.1, round(1000, 1100, 59, 29, 1.1));
        assert_eq!((b.lt_rtt_cnt, b.lt_bw), (4, 0.0));
        // round 5: 400 delivered, 80 lost ≥ 78.1: the interval ends
        feed(b, st, 1.2, round(1100, 1200, 81, 22, 1.2));
        assert_eq!(
            (
                b.lt_bw,
                b.lt_use_bw,
                b.lt_rtt_cnt,
                b.lt_last_delivered,
                b.lt_last_lost,
                b.lt_last_stamp_ms
            ),
            (1000.0, false, 0, 1200, 81, 1200)
        );
    }

    /// Interval B: four rounds of `per_round` segments from 1.2 s to 1.6 s, `lost` marked
    /// lost in all at the end.
    fn interval_b(b: &mut Bbr, st: &mut CcState, per_round: u64, lost: u64) {
        let lost = [90, 100, 120, lost];
        for k in 0..4u64 {
            let t = 1.3 + 0.1 * k as f64;
            let prior = 1200 + k * per_round;
            let l = lost[k as usize];
            let prev = if k == 0 { 81 } else { lost[k as usize - 1] };
            feed(b, st, t, round(prior, prior + per_round, l, l - prev, t));
        }
    }

    #[test]
    fn long_term_bandwidth_is_used_after_two_lossy_intervals_that_agree() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        in_probe_bw(&mut b, &mut st);
        interval_a(&mut b, &mut st);
        // B: 4 · 105 delivered in 0.4 s = 1050/s, |1050 − 1000| ≤ 1000/8; 164 − 81 = 83 lost
        // ≥ 50/256 · 420 = 82.03: a policer; lt_bw = (1000 + 1050) / 2
        interval_b(&mut b, &mut st, 105, 164);
        assert_eq!((b.lt_use_bw, b.lt_bw, b.lt_rtt_cnt), (true, 1025.0, 0));
        assert!(st.log.contains(&("bbr_lt_bw_start", 1025.0)), "{:?}", st.log);
        // pacing at lt_bw with gain 1 (btl_bw is still 490), cwnd towards 2 · lt_bw · min_rtt
        assert_eq!((b.pacing_gain, b.max_bw()), (1.0, 490.0));
        assert_eq!(st.pacing, Pacing::Rate(1025.0));
        assert_eq!(b.target_cwnd(b.bw(), b.cwnd_gain, &st), 212.0, "205 + 3 · 2, even");
        let mut out = vec![];
        b.samples(&mut out);
        assert!(out.contains(&("bbr_lt_bw", 1025.0)) && out.contains(&("bbr_lt_use", 1.0)));
        // 48 ProbeBW rounds later lt_bw ends and gain cycling restarts; meanwhile the
        // cycle stays where it was (each round is longer than min_rtt)
        let idx = b.cycle_idx;
        let mut d = 1620;
        st.log.clear();
        for k in 1..=48u64 {
            let t = 1.6 + 0.11 * k as f64;
            feed(&mut b, &mut st, t, round(d, d + 100, 200, 0, t));
            d += 100;
            if k < 48 {
                assert_eq!((b.lt_use_bw, b.lt_rtt_cnt, b.cycle_idx), (true, k, idx), "round {k}");
            }
        }
        assert_eq!((b.lt_use_bw, b.lt_bw, b.lt_is_sampling), (false, 0.0, false));
        assert_eq!(st.log, vec![("bbr_lt_bw_end", 1025.0)]);
        assert_ne!(b.cycle_idx, 1);
        assert_eq!(b.pacing_gain, b.gains[b.cycle_idx]);
        assert_eq!(st.pacing, Pacing::Rate(490.0 * b.pacing_gain));
    }

    #[test]
    fn long_term_sampling_restarts_when_intervals_disagree_run_out_of_data_or_last_too_long() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        in_probe_bw(&mut b, &mut st);
        interval_a(&mut b, &mut st);
        // B at 1200/s (480 in 0.4 s, 175 − 81 = 94 lost ≥ 50/256 · 480 = 93.75): 200 > 1000/8
        // and 200/s · 8000 bit = 1.6 Mb/s > 4 kb/s: B becomes the first interval of a new pair
        interval_b(&mut b, &mut st, 120, 175);
        assert_eq!(
            (b.lt_use_bw, b.lt_bw, b.lt_last_delivered, b.lt_rtt_cnt),
            (false, 1200.0, 1680, 0)
        );
        // with lt_bw_diff = 2 Mb/s the same two intervals agree: (1000 + 1200) / 2
        let mut c = Bbr::new();
        c.lt_bw_diff = 2e6;
        let mut st2 = test_state(10.0, 1e9);
        in_probe_bw(&mut c, &mut st2);
        interval_a(&mut c, &mut st2);
        interval_b(&mut c, &mut st2, 120, 175);
        assert_eq!((c.lt_use_bw, c.lt_bw), (true, 1100.0));
        // an app-limited sample while sampling resets everything
        let mut r = round(1680, 1700, 176, 1, 1.7);
        r.is_app_limited = true;
        feed(&mut b, &mut st, 1.7, r);
        assert_eq!((b.lt_is_sampling, b.lt_bw, b.lt_rtt_cnt), (false, 0.0, 0));
        // a new loss starts sampling; 16 rounds without an interval end (no losses) are the
        // most an interval may last: the 17th resets
        feed(&mut b, &mut st, 1.8, round(1700, 1800, 177, 1, 1.8));
        assert_eq!((b.lt_is_sampling, b.lt_rtt_cnt), (true, 1));
        let mut d = 1800;
        for k in 2..=17u64 {
            let t = 1.8 + 0.1 * (k - 1) as f64;
            feed(&mut b, &mut st, t, round(d, d + 100, 177, 0, t));
            d += 100;
            assert_eq!(b.lt_is_sampling, k <= 16, "round {k}");
        }
        // lt_bw = 0 turns it off: interval A and B (1050/s) never engage it
        let mut c = Bbr::new();
        c.lt_enabled = false;
        let mut st2 = test_state(10.0, 1e9);
        in_probe_bw(&mut c, &mut st2);
        for (k, lost) in [1u64, 40, 81, 120, 164, 200].iter().enumerate() {
            let t = 0.8 + 0.1 * k as f64;
            let prior = 700 + 100 * k as u64;
            feed(&mut c, &mut st2, t, round(prior, prior + 100, *lost, 30, t));
        }
        assert!(!c.lt_is_sampling && !c.lt_use_bw);
    }

    #[test]
    fn a_timeout_ends_a_round_with_a_loss_for_the_long_term_sampling() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        in_probe_bw(&mut b, &mut st);
        interval_a(&mut b, &mut st);
        // three rounds of B (315 delivered by 1.5 s), then a timeout at 1.9 s marks 60
        // outstanding segments lost: the fourth round, 120 − 81 + 60 = 99 lost ≥ 50/256 ·
        // 315 = 61.5; the rate is over the time of the last delivery (1.5 s): 315 / 0.3
        for (k, lost) in [90u64, 100, 120].iter().enumerate() {
            let t = 1.3 + 0.1 * k as f64;
            let prior = 1200 + 105 * k as u64;
            feed(&mut b, &mut st, t, round(prior, prior + 105, *lost, 10, t));
        }
        assert_eq!((b.lt_rtt_cnt, b.lt_bw), (3, 1000.0));
        st.now = secs(1.9);
        st.flight = 60;
        b.on_losses_marked(1515, 180);
        b.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((b.lt_use_bw, b.lt_bw), (true, (1000.0 + 1050.0) / 2.0));
        assert!(st.log.contains(&("bbr_lt_bw_start", 1025.0)));
        assert_eq!((st.cwnd, b.full_bw), (1.0, 0.0));
    }

    #[test]
    fn idle_restart_paces_at_the_estimate_in_probe_bw_and_skips_a_probe_rtt() {
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        // Startup: the restart changes no rate
        st.srtt = 0.1;
        b.init(&mut st);
        let before = st.pacing;
        b.on_idle_restart(&mut st);
        assert!(b.idle_restart);
        assert_eq!(st.pacing, before);
        // ProbeBW in the 5/4 phase: the restart paces at btl_bw (the gain stays)
        let mut b = Bbr::new();
        let mut st = test_state(10.0, 1e9);
        let total = through_startup(&mut b, &mut st);
        b.cycle_offset = 0;
        feed(&mut b, &mut st, 0.6, rs(490.0, 500, total, (56, 56), 0.1));
        assert_eq!(st.pacing, Pacing::Rate(490.0 * 1.25));
        b.on_idle_restart(&mut st);
        assert_eq!(
            (st.pacing, b.pacing_rate, b.pacing_gain),
            (Pacing::Rate(490.0), 490.0, 1.25)
        );
        // the min_rtt filter expired (last new minimum at 0.6 s): the sample that follows the
        // restart does not enter ProbeRTT, and clears the restart
        let mut r = rs(490.0, 600, 601, (1, 1), 0.1);
        r.rtt = None;
        feed(&mut b, &mut st, 10.7, r);
        assert_eq!((b.mode, b.idle_restart), (Mode::ProbeBw, false));
        r.total_delivered = 602;
        feed(&mut b, &mut st, 10.71, r);
        assert_eq!(b.mode, Mode::ProbeRtt);
    }

    #[test]
    fn parameters_are_validated() {
        let mut p = Params::new();
        p.insert("cwnd_gain".into(), 0.5);
        assert_eq!(
            create("bbr", &p).err().unwrap(),
            "bbr: cwnd_gain = 0.5 is not allowed; must be in [1, 100]"
        );
        let mut p = Params::new();
        p.insert("bw_rtts".into(), 2.5);
        assert!(create("bbr", &p).err().unwrap().contains("integer"));
        let mut p = Params::new();
        p.insert("probe_rtt_time".into(), 0.0);
        assert!(create("bbr", &p).is_ok());
        for (k, v, allowed) in [
            ("lt_bw", 0.5, "must be 0 or 1"),
            ("lt_intvl_min_rtts", 0.0, "must be an integer in [1, 1000]"),
            ("lt_loss_thresh", 1.5, "must be in [0, 1]"),
            ("lt_bw_ratio", -0.1, "must be in [0, 1]"),
            ("lt_bw_diff", -1.0, "must be in [0, 1000000000000]"),
            ("lt_bw_max_rtts", 0.0, "must be an integer in [1, 100000]"),
        ] {
            let mut p = Params::new();
            p.insert(k.into(), v);
            let e = create("bbr", &p).err().unwrap();
            assert!(e.starts_with(&format!("bbr: {k} = {v}")) && e.ends_with(allowed), "{e}");
        }
        let mut p = Params::new();
        for (k, v) in [("lt_bw", 0.0), ("lt_intvl_min_rtts", 8.0), ("lt_loss_thresh", 0.25)] {
            p.insert(k.into(), v);
        }
        assert!(create("bbr", &p).is_ok());
    }
}
