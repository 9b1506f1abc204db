//! What the algorithms that emulate a Linux 2.6.22 module (the kernel ns-2.35's TCP-Linux
//! ships) share: the whole-segment window with its fractional counter `snd_cwnd_cnt`, the
//! slow-start and Reno increases of that kernel, its loss reaction as seen through our
//! backplane, and a per-round-trip counter for algorithms that act once per RTT.
//!
//! Linux's `snd_cwnd` is an integer; here it is `floor(st.cwnd)` (the Linux algorithms keep
//! `st.cwnd` integral themselves: they add whole segments and set integral windows on loss;
//! a fractional window handed over by a switch or by TCBI keeps its fraction).
use super::{CcState, Phase, Signal};

/// Linux's `snd_cwnd`: the window in whole segments (at least 1).
pub fn snd_cwnd(st: &CcState) -> u64 {
    crate::sim::floor(st.cwnd).max(1.0) as u64
}

/// Linux 2.6.22 slow-start test `snd_cwnd <= snd_ssthresh` (note `<=`: the first ACK after a
/// recovery that left cwnd = ssthresh still slow-starts, one segment).
pub fn in_slow_start(st: &CcState) -> bool {
    (snd_cwnd(st) as f64) <= st.ssthresh
}

/// Linux 2.6.22 `tcp_slow_start` with `tcp_abc = 0` (its default): +1 segment per ACK.
pub fn slow_start(st: &mut CcState) {
    st.cwnd += 1.0;
}

/// Linux 2.6.22 `tcp_reno_cong_avoid` in congestion avoidance: the counter counts ACKs and
/// the window grows by one once the counter has reached the window, that is every cwnd + 1
/// ACKs (the kernel's `>=` test after the increment of the previous ACK).
pub fn reno_ai(st: &mut CcState, cwnd_cnt: &mut u64) {
    let w = snd_cwnd(st);
    if *cwnd_cnt >= w {
        st.cwnd += 1.0;
        *cwnd_cnt = 0;
    } else {
        *cwnd_cnt += 1;
    }
}

/// Appropriate Byte Counting as ns-2.35's TCP-Linux runs `tcp_slow_start` and
/// `tcp_reno_cong_avoid`: its `sysctl_tcp_abc` is 1 (ns-linux-param.c), where the 2.6.22
/// kernel's default is 0 ([`slow_start`], [`reno_ai`]). The glue adds every new ACK's
/// segments to `bytes_acked`, in recovery too, and zeroes it when a recovery or a timeout
/// begins; slow start adds one segment per ACK and empties the count; congestion avoidance
/// adds one segment once a window's worth is counted and keeps the rest. The segments
/// acknowledged in a recovery thus count toward the growth after it (counted here in
/// segments: the glue's `bytes_acked` is whole `mss_cache`s).
#[derive(Debug, Clone, Default)]
pub struct ByteCount {
    pub acked: u64,
}

impl ByteCount {
    /// A new ACK of `acked` segments arrived (any state).
    pub fn add(&mut self, acked: u64) {
        self.acked += acked;
    }

    /// A recovery or a timeout begins.
    pub fn reset(&mut self) {
        self.acked = 0;
    }

    /// `tcp_slow_start` with `tcp_abc = 1`: one segment if at least one was counted.
    pub fn slow_start(&mut self, st: &mut CcState) {
        if self.acked == 0 {
            return;
        }
        self.acked = 0;
        st.cwnd += 1.0;
    }

    /// `tcp_reno_cong_avoid` with `tcp_abc = 1` in congestion avoidance: one segment once
    /// cwnd segments are counted.
    pub fn reno_ai(&mut self, st: &mut CcState) {
        let w = snd_cwnd(st);
        if self.acked >= w {
            self.acked -= w;
            st.cwnd += 1.0;
        }
    }
}

/// Does this congestion signal make Linux call the module's `ssthresh()`? Linux 2.6.22
/// computes a new ssthresh on entering fast recovery (`tcp_fastretrans_alert`), and on a
/// timeout only from the open or disorder state (`tcp_enter_loss`): a timeout during fast
/// recovery or a repeated one (back-off) keeps the ssthresh already set.
pub fn recomputes_ssthresh(st: &CcState, signal: Signal) -> bool {
    match signal {
        Signal::Timeout => !matches!(st.phase, Phase::FastRecovery | Phase::TimeoutRecovery),
        _ => true,
    }
}

/// The loss reaction of a Linux module through our backplane: `ssthresh` (the module's
/// `ssthresh()` result, or `None` when Linux would not call it, see
/// [`recomputes_ssthresh`]) and cwnd = ssthresh after duplicate ACKs (Linux's rate halving
/// ends with `tcp_complete_cwr`, cwnd = min(cwnd, ssthresh); our backplane's fast recovery
/// starts from that window and returns to it), cwnd = 1 after a timeout. That is Linux's
/// result for the modules without `min_cwnd`; those with one add [`MinCwnd`].
pub fn apply_loss(st: &mut CcState, signal: Signal, ssthresh: Option<u64>) {
    if let Some(s) = ssthresh {
        st.ssthresh = s as f64;
    }
    st.cwnd = match signal {
        Signal::Timeout => 1.0,
        _ => st.ssthresh.min(snd_cwnd(st) as f64),
    };
    st.recovery_base = st.cwnd;
}

/// The module's part of Linux 2.6.22's rate halving as ns-2.35's TCP-Linux performs it, for
/// the modules with their own `min_cwnd` (Reno's ssthresh/2, `tcp_reno_min_cwnd`: scalable,
/// hybla, illinois, yeah, lp, vegas, compound, highspeed_linux; westwood_plus: BWE·RTTmin): during SACK recovery cwnd is
/// `min_cwnd`, the floor below which the sender's rate-halving window
/// (`CongestionControl::tcp_linux`) does not take the window; recovery then ends with
/// cwnd = min(ssthresh, pipe + 3) when `min_cwnd` is below ssthresh, after which the module
/// slow-starts back to ssthresh. The modules without `min_cwnd` (cubic, bic, htcp, veno)
/// keep cwnd = ssthresh as the floor ([`apply_loss`]). Our backplane calls
/// it through `on_recovery_ack` in SACK recovery only (NewReno's window inflation is
/// another model).
#[derive(Debug, Clone, Default)]
pub struct MinCwnd {
    /// In a recovery started by duplicate ACKs.
    active: bool,
}

impl MinCwnd {
    /// An ACK in recovery with `tcp_reno_min_cwnd`: cwnd = ssthresh/2.
    pub fn on_ack(&mut self, st: &mut CcState) {
        let min_cwnd = crate::sim::floor(st.ssthresh / 2.0) as u64;
        self.on_ack_to(st, min_cwnd);
    }

    /// An ACK in recovery with the module's `min_cwnd`: cwnd = `min_cwnd` (at least 1).
    pub fn on_ack_to(&mut self, st: &mut CcState, min_cwnd: u64) {
        if !self.active {
            return;
        }
        let w = (min_cwnd as f64).max(1.0);
        st.cwnd = w;
        st.recovery_base = w;
    }

    /// The module's loss reaction: called before [`apply_loss`]; duplicate ACKs start it.
    pub fn on_congestion(&mut self, _st: &CcState, signal: Signal) {
        self.active = signal == Signal::DupAcks;
    }

    /// Recovery ended (or a timeout came).
    pub fn stop(&mut self) {
        self.active = false;
    }
}

/// Linux's Loss state after a timeout: it lasts until the data outstanding at the timeout
/// (`high_seq`) is acknowledged, while our backplane's timeout recovery ends with the first
/// new ACK. The modules that act only in the open state (their `pkts_acked` statistics,
/// Hybla's and Veno's own increase) ask this instead.
#[derive(Debug, Clone, Default)]
pub struct LossState {
    /// Segments still to be acknowledged before the open state returns.
    left: u64,
}

impl LossState {
    /// A timeout: the state lasts until what is outstanding now is acknowledged.
    pub fn on_timeout(&mut self, st: &CcState) {
        self.left = st.flight.max(1);
    }

    /// Account a new ACK of `acked` segments; true if the ACK arrived in the Loss state.
    pub fn on_ack(&mut self, acked: u64) -> bool {
        let was = self.left > 0;
        self.left = self.left.saturating_sub(acked);
        was
    }

    /// Still in the Loss state (after the ACKs accounted so far)?
    pub fn active(&self) -> bool {
        self.left > 0
    }

    /// Fast retransmit ends the Loss state bookkeeping (the backplane left it).
    pub fn clear(&mut self) {
        self.left = 0;
    }

    /// A congestion signal: a timeout starts the Loss state, any other signal ends it.
    pub fn on_signal(&mut self, st: &CcState, signal: Signal) {
        if signal == Signal::Timeout {
            self.on_timeout(st);
        } else {
            self.clear();
        }
    }
}

/// Counts round trips in acknowledged segments: a round that starts when `flight` segments
/// are outstanding ends when all of them are acknowledged (`strict`: when one more is, as
/// Linux's `after(ack, end_seq)` with end_seq = snd_nxt at the start of the round).
#[derive(Debug, Clone, Default)]
pub struct Rounds {
    /// Segments outstanding when the round began; `None` before the first ACK.
    end: Option<u64>,
    acked: u64,
    pub count: u64,
}

impl Rounds {
    /// Account an ACK of `acked` segments; true if it ends the round (a new one begins, up to
    /// what is outstanding now). The first ACK always begins a round.
    pub fn on_ack(&mut self, st: &CcState, acked: u64, strict: bool) -> bool {
        self.add(acked);
        self.check(st, strict)
    }

    /// Count acknowledged segments (e.g. from every ACK arrival, recovery included).
    pub fn add(&mut self, acked: u64) {
        self.acked += acked;
    }

    /// True if the segments counted so far end the round (then a new one begins).
    pub fn check(&mut self, st: &CcState, strict: bool) -> bool {
        let ended = match self.end {
            None => true,
            Some(e) => {
                if strict {
                    self.acked > e
                } else {
                    self.acked >= e
                }
            }
        };
        if ended {
            self.restart(st);
            self.count += 1;
        }
        ended
    }

    /// Begin a new round now (Linux `rtt_reset`).
    pub fn restart(&mut self, st: &CcState) {
        self.end = Some(st.flight);
        self.acked = 0;
    }
}

/// Seconds since the start of the simulation.
pub fn now_secs(st: &CcState) -> f64 {
    crate::sim::to_secs(st.now)
}

/// Reads a numeric parameter with its default, rejecting NaN and infinities.
pub fn param(algorithm: &str, params: &super::Params, key: &str, default: f64) -> Result<f64, String> {
    let v = params.get(key).copied().unwrap_or(default);
    if !v.is_finite() {
        return Err(format!(
            "{algorithm}: {key} = {v} is not allowed; must be a finite number"
        ));
    }
    Ok(v)
}

/// A parameter in [lo, hi] (`what` says so in the error).
pub fn param_in(
    algorithm: &str,
    params: &super::Params,
    key: &str,
    default: f64,
    lo: f64,
    hi: f64,
) -> Result<f64, String> {
    let v = param(algorithm, params, key, default)?;
    if !(lo..=hi).contains(&v) {
        return Err(format!(
            "{algorithm}: {key} = {v} is not allowed; must be in [{lo}, {hi}]"
        ));
    }
    Ok(v)
}

/// A parameter that is 0 or 1.
pub fn param_flag(algorithm: &str, params: &super::Params, key: &str, default: bool) -> Result<bool, String> {
    match params.get(key).copied() {
        None => Ok(default),
        Some(v) if v == 0.0 => Ok(false),
        Some(v) if v == 1.0 => Ok(true),
        Some(v) => Err(format!("{algorithm}: {key} = {v} is not allowed; must be 0 or 1")),
    }
}

/// An integer parameter in [lo, hi].
pub fn param_int(
    algorithm: &str,
    params: &super::Params,
    key: &str,
    default: u64,
    lo: u64,
    hi: u64,
) -> Result<u64, String> {
    let v = param(algorithm, params, key, default as f64)?;
    if v.fract() != 0.0 || v < lo as f64 || v > hi as f64 {
        return Err(format!(
            "{algorithm}: {key} = {v} is not allowed; must be an integer in [{lo}, {hi}]"
        ));
    }
    Ok(v as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_state;

    #[test]
    fn reno_ai_grows_one_segment_every_cwnd_plus_one_acks() {
        // Linux 2.6.22: counter 0..=w, the (w+1)-th ACK finds cnt >= w and adds one.
        let mut st = test_state(10.0, 5.0);
        let mut cnt = 0;
        for _ in 0..10 {
            reno_ai(&mut st, &mut cnt);
        }
        assert_eq!(st.cwnd, 10.0);
        reno_ai(&mut st, &mut cnt);
        assert_eq!((st.cwnd, cnt), (11.0, 0));
    }

    #[test]
    fn byte_counting_grows_once_per_window_acknowledged_and_carries_the_rest() {
        // tcp_abc = 1 (ns-2.35's TCP-Linux): in congestion avoidance at cwnd 10 the 10th
        // segment acknowledged adds one (without ABC the 11th ACK, above)
        let mut st = test_state(10.0, 5.0);
        let mut abc = ByteCount::default();
        for _ in 0..9 {
            abc.add(1);
            abc.reno_ai(&mut st);
        }
        assert_eq!((st.cwnd, abc.acked), (10.0, 9));
        abc.add(1);
        abc.reno_ai(&mut st);
        assert_eq!((st.cwnd, abc.acked), (11.0, 0));
        // 25 segments counted during a recovery (the ACK that ends it covers them): the
        // next ACKs add one each while the count holds a window: 26 - 11 = 15 (cwnd 12),
        // 16 - 12 = 4 (cwnd 13), then 5 < 13
        abc.add(25);
        for _ in 0..3 {
            abc.add(1);
            abc.reno_ai(&mut st);
        }
        assert_eq!((st.cwnd, abc.acked), (13.0, 5));
        // a loss empties the count
        abc.reset();
        abc.reno_ai(&mut st);
        assert_eq!((st.cwnd, abc.acked), (13.0, 0));
        // slow start: one segment per ACK however many it acknowledges, none without a
        // segment counted; the count is emptied
        let mut st = test_state(4.0, 100.0);
        abc.slow_start(&mut st);
        assert_eq!(st.cwnd, 4.0);
        abc.add(3);
        abc.slow_start(&mut st);
        assert_eq!((st.cwnd, abc.acked), (5.0, 0));
    }

    #[test]
    fn rounds_end_when_the_flight_at_their_start_is_acknowledged() {
        let mut st = test_state(10.0, 5.0);
        let mut r = Rounds::default();
        st.flight = 4;
        assert!(r.on_ack(&st, 1, false), "the first ACK starts a round");
        st.flight = 10;
        assert!(!r.on_ack(&st, 3, false));
        assert!(r.on_ack(&st, 1, false), "4 of 4 acknowledged");
        let mut strict = Rounds::default();
        st.flight = 4;
        strict.on_ack(&st, 1, true);
        assert!(!strict.on_ack(&st, 4, true));
        assert!(strict.on_ack(&st, 1, true), "one beyond the end");
    }

    #[test]
    fn the_loss_state_lasts_until_the_outstanding_data_is_acknowledged() {
        let mut st = test_state(10.0, 5.0);
        st.flight = 5;
        let mut l = LossState::default();
        assert!(!l.on_ack(1));
        l.on_timeout(&st);
        assert!(l.on_ack(3) && l.active());
        assert!(l.on_ack(2) && !l.active(), "the ACK that ends it arrived in the state");
        assert!(!l.on_ack(1));
    }

    #[test]
    fn in_recovery_the_module_holds_cwnd_at_its_min_cwnd() {
        // Scalable at cwnd 72: ssthresh 63 and cwnd 63 at the loss (apply_loss); from the
        // first recovery ACK cwnd is the floor ssthresh/2 = 31 (the sender's rate-halving
        // window keeps the sending rate above it); nothing outside recovery.
        let mut st = test_state(72.0, 100.0);
        let mut floor = MinCwnd::default();
        floor.on_congestion(&st, Signal::DupAcks);
        apply_loss(&mut st, Signal::DupAcks, Some(63));
        assert_eq!((st.cwnd, st.recovery_base), (63.0, 63.0));
        floor.on_ack(&mut st);
        assert_eq!((st.cwnd, st.recovery_base, st.ssthresh), (31.0, 31.0, 63.0));
        floor.on_ack_to(&mut st, 40);
        assert_eq!(st.cwnd, 40.0, "a module's own min_cwnd (westwood_plus: BWE·RTTmin)");
        floor.stop();
        st.cwnd = 50.0;
        floor.on_ack(&mut st);
        assert_eq!(st.cwnd, 50.0, "no effect outside recovery");
        floor.on_congestion(&st, Signal::Timeout);
        floor.on_ack(&mut st);
        assert_eq!(st.cwnd, 50.0, "a timeout does not start it");
    }

    #[test]
    fn a_timeout_in_recovery_keeps_ssthresh_as_linux() {
        let mut st = test_state(40.0, 100.0);
        st.phase = Phase::FastRecovery;
        assert!(!recomputes_ssthresh(&st, Signal::Timeout));
        assert!(recomputes_ssthresh(&st, Signal::DupAcks));
        st.phase = Phase::CongestionAvoidance;
        assert!(recomputes_ssthresh(&st, Signal::Timeout));
        apply_loss(&mut st, Signal::Timeout, None);
        assert_eq!((st.cwnd, st.ssthresh), (1.0, 100.0));
    }
}
