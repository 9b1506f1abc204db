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
/// result for the modules without `min_cwnd`; those with one add [`RateHalving`].
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

/// Linux 2.6.22's rate halving in fast recovery (`tcp_cwnd_down`) for the modules whose
/// `min_cwnd` is Reno's ssthresh/2 (`tcp_reno_min_cwnd`: scalable, hybla, illinois, yeah,
/// lp): from the window at the loss, cwnd loses one segment every second ACK during recovery,
/// not below ssthresh/2, and recovery ends with cwnd = min(cwnd, ssthresh)
/// (`tcp_complete_cwr`), after which the module slow-starts back to ssthresh. A recovery of
/// one round trip thus ends near half the window whatever the module's ssthresh (7/8 for
/// Scalable). ns-2.35's TCP-Linux does the same (`next_pkts_in_flight_`, `min_cwnd`). The
/// modules whose `min_cwnd` is ssthresh (none defined: cubic, bic, htcp, veno) stop at
/// ssthresh, which is where [`apply_loss`] puts cwnd at once. Our backplane calls it through
/// `on_recovery_ack` in SACK recovery only (NewReno's window inflation is another model).
/// [`RateHalving::on_ack`] (scalable, illinois, yeah) leaves out Linux's other bound,
/// cwnd ≤ in flight + 1; [`RateHalving::on_ack_in_flight`] (vegas, compound, hybla, lp,
/// highspeed_linux) applies it, which matters after a large slow-start overshoot.
#[derive(Debug, Clone, Default)]
pub struct RateHalving {
    /// The emulated Linux window during recovery (0 = not in recovery).
    window: u64,
    odd: bool,
}

impl RateHalving {
    /// At the loss (after duplicate ACKs), with Linux's window before the reduction.
    pub fn start(&mut self, window: u64) {
        self.window = window;
        self.odd = false;
    }

    /// An ACK in recovery with `tcp_reno_min_cwnd`: every second one lowers the window by
    /// one down to ssthresh/2; cwnd (and the window recovery returns to) is min(ssthresh,
    /// that window).
    pub fn on_ack(&mut self, st: &mut CcState) {
        let ssthresh = st.ssthresh;
        self.on_ack_to(st, crate::sim::floor(ssthresh / 2.0) as u64, ssthresh);
    }

    /// An ACK in recovery with the module's `min_cwnd`: cwnd = min(`cap`, the window), the
    /// window losing one every second ACK while above `min_cwnd`. The cap stands for our
    /// backplane's start of recovery at cwnd = ssthresh (Linux starts from the old window
    /// and sends one segment per two ACKs from the first).
    pub fn on_ack_to(&mut self, st: &mut CcState, min_cwnd: u64, cap: f64) {
        if self.window == 0 {
            return;
        }
        if self.odd && self.window > min_cwnd {
            self.window -= 1;
        }
        self.odd = !self.odd;
        let w = (self.window as f64).min(cap).max(1.0);
        st.cwnd = w;
        st.recovery_base = w;
    }

    /// An ACK in recovery with `tcp_reno_min_cwnd` and both of Linux 2.6.22's bounds
    /// (`tcp_cwnd_down`): the window loses one every second ACK while above ssthresh/2, and
    /// is then held to `in_flight` + 1 (the segments in flight after this ACK, RFC 6675's
    /// pipe, as the kernel's `tcp_packets_in_flight`). The bound is stored in the window, as
    /// the kernel stores it in `snd_cwnd`: at most one segment goes out per ACK that lowers
    /// what is in flight, so after a large overshoot what is in flight falls with each ACK
    /// instead of staying at ssthresh. cwnd is that window, not capped at ssthresh (the
    /// kernel's); the window recovery returns to is min(window, ssthresh)
    /// (`tcp_complete_cwr`).
    pub fn on_ack_in_flight(&mut self, st: &mut CcState, in_flight: u64) {
        if self.window == 0 {
            return;
        }
        let min_cwnd = crate::sim::floor(st.ssthresh / 2.0) as u64;
        if self.odd && self.window > min_cwnd {
            self.window -= 1;
        }
        self.odd = !self.odd;
        self.window = self.window.min(in_flight + 1).max(1);
        st.cwnd = self.window as f64;
        st.recovery_base = (self.window as f64).min(st.ssthresh);
    }

    /// The module's loss reaction: called before [`apply_loss`]; duplicate ACKs start it.
    pub fn on_congestion(&mut self, st: &CcState, signal: Signal) {
        if signal == Signal::DupAcks {
            self.start(snd_cwnd(st));
        } else {
            self.stop();
        }
    }

    /// Recovery ended (or a timeout came).
    pub fn stop(&mut self) {
        self.window = 0;
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
    fn rate_halving_lowers_the_window_every_second_ack_down_to_half_ssthresh() {
        // Scalable at cwnd 72: ssthresh 63, cwnd 63 at once (apply_loss); Linux's window 72
        // loses one per two ACKs: after 20 ACKs 62, after 40 ACKs 52; it stops at 31.
        let mut st = test_state(72.0, 100.0);
        apply_loss(&mut st, Signal::DupAcks, Some(63));
        let mut rh = RateHalving::default();
        rh.start(72);
        for _ in 0..19 {
            rh.on_ack(&mut st);
        }
        assert_eq!((st.cwnd, st.recovery_base), (63.0, 63.0));
        rh.on_ack(&mut st);
        assert_eq!((st.cwnd, st.recovery_base), (62.0, 62.0));
        for _ in 0..20 {
            rh.on_ack(&mut st);
        }
        assert_eq!(st.cwnd, 52.0);
        for _ in 0..200 {
            rh.on_ack(&mut st);
        }
        assert_eq!((st.cwnd, st.ssthresh), (31.0, 63.0));
        rh.stop();
        st.cwnd = 40.0;
        rh.on_ack(&mut st);
        assert_eq!(st.cwnd, 40.0, "no effect outside recovery");
    }

    #[test]
    fn rate_halving_holds_the_window_to_what_is_in_flight_plus_one() {
        // Vegas after a slow-start overshoot: window 4047 at the loss, ssthresh 2023.
        let mut st = test_state(4047.0, 100.0);
        apply_loss(&mut st, Signal::DupAcks, Some(2023));
        let mut rh = RateHalving::default();
        rh.start(4047);
        // first ACK: no decrement yet; 3940 in flight: window min(4047, 3941), not capped
        // at ssthresh; recovery would return to min(3941, 2023)
        rh.on_ack_in_flight(&mut st, 3940);
        assert_eq!((st.cwnd, st.recovery_base), (3941.0, 2023.0));
        // second ACK: 3941 − 1 = 3940, in flight 3938: 3939
        rh.on_ack_in_flight(&mut st, 3938);
        assert_eq!(st.cwnd, 3939.0);
        // the bound is kept in the window: more in flight does not raise it
        rh.on_ack_in_flight(&mut st, 3950);
        assert_eq!(st.cwnd, 3939.0);
        rh.on_ack_in_flight(&mut st, 3950);
        assert_eq!(st.cwnd, 3938.0);
        // with plenty in flight, one segment less every second ACK, down to ssthresh/2
        for _ in 0..10_000 {
            rh.on_ack_in_flight(&mut st, 5000);
        }
        assert_eq!((st.cwnd, st.recovery_base), (1011.0, 1011.0));
        rh.on_ack_in_flight(&mut st, 0);
        assert_eq!(st.cwnd, 1.0, "nothing in flight: one segment");
        rh.stop();
        st.cwnd = 40.0;
        rh.on_ack_in_flight(&mut st, 3);
        assert_eq!(st.cwnd, 40.0, "no effect outside recovery");
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
