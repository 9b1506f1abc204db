//! TCP Vegas as Linux 2.6.22's `tcp_vegas.c`, the module ns-2.35's TCP-Linux runs with
//! `select_ca vegas`: `vegas` (Brakmo, Peterson: "TCP Vegas: End to End Congestion Avoidance
//! on a Global Internet", IEEE JSAC 13(8), 1995).
//!
//! RTT samples (microseconds, + 1 so that none is zero): baseRTT is the smallest ever, RTT
//! the smallest of the current round trip, counted in `cntRTT`. A round trip ends with the
//! first ACK beyond `snd_nxt` at its start; at its end, with `old_wnd` the segments sent in
//! the round trip before (the distance between the two previous round starts) and
//! `old_cwnd` the window at the previous round start, Vegas computes in the kernel's fixed
//! point (one binary digit) target = ⌊2·old_wnd·baseRTT/RTT⌋ and
//! diff = 2·old_wnd − target, i.e. 2·old_wnd·(RTT − baseRTT)/RTT (Vegas' Diff·baseRTT, the
//! sender's backlog in the bottleneck queue), and then:
//! - with at most 2 samples in the round trip: Reno's step for this ACK;
//! - slow start (cwnd ≤ ssthresh): if diff > γ, leave it: ssthresh = 2 and
//!   cwnd = min(cwnd, ⌊target/2⌋ + 1); then +1 as any slow-start ACK;
//! - congestion avoidance: the wanted window is old_cwnd − 1 if diff > β, old_cwnd + 1 if
//!   diff < α, old_cwnd otherwise, and cwnd moves one segment toward it;
//! - cwnd ≥ 2.
//!
//! Between round ends the window grows only in slow start (+1 per ACK). Loss is Reno's
//! (ssthresh = max(⌊cwnd/2⌋, 2)). Outside the open state (our fast recovery, and the Loss
//! state after a timeout until what was outstanding is acknowledged) Vegas is Reno; when the
//! open state returns it starts afresh: the next round trip begins now and its samples are
//! counted from zero. An ECN echo or an explicit notification reduces the window as a loss
//! does but is followed by no recovery here, so Vegas goes on at once from a new round trip.
//!
//! Vegas needs an RTT per ACK (the kernel times every segment): run it with
//! `tcp.timestamps = true`. Without timestamps there is at most one sample per window, never
//! the 3 a round trip needs: Vegas then takes Reno's step only on the ACK that ends a round
//! trip, so that in congestion avoidance the window grows by one segment every cwnd + 1
//! round trips — as the kernel would without its per-segment timing.
//!
//! Parameters (`cc_params`, segments, multiples of 0.5 — the module's fixed point): `alpha`
//! = 2, `beta` = 4, `gamma` = 1 (the kernel's defaults; ns-2's own `Agent/TCP/Vegas` uses α
//! = 1, β = 3, γ = 1). `ss_every_other` = 0: 1 grows the window in slow start only every
//! other round trip, as the paper and ns-2's `Agent/TCP/Vegas` (the kernel grows every round
//! trip, "just like Reno").
//!
//! In SACK recovery cwnd is the module's `min_cwnd` = ssthresh/2, the floor of Linux 2.6.22's
//! rate halving (`linux::MinCwnd`); the sender's TCP-Linux recovery
//! (`tcp_linux`) halves the rate from the window at the loss down to it, held to what is in
//! flight + 1, and ends recovery at min(ssthresh, in flight + 3) when the floor is lower.
//! From there Vegas slow-starts (cwnd ≤ ssthresh) back. After a slow-start overshoot on a
//! long fat pipe what is in flight then falls with each ACK (ns-2.35's TCP-Linux: 3955,
//! 3365, 2490, 1666, 1077 at 1.10–1.30 s on the 200 Mb/s, 82 ms path), where cwnd =
//! ssthresh throughout let twice the link rate into the queue once the pipe had fallen to
//! it and lost again.
//!
//! Reno's step (`tcp_reno_cong_avoid`) is taken only when the window was full before the ACK
//! (`tcp_is_cwnd_limited`: in_flight ≥ cwnd, TCP-Linux's version without TSO); Vegas' own
//! steps do not look at it.
//!
//! Departures from the kernel: sequence numbers are counted in segments (the backplane's
//! unit; `old_wnd` is exact, the kernel divides bytes by the MSS); samples come from ACKs
//! that acknowledge new data, as the kernel's `pkts_acked`; the restart after idle
//! (`CA_EVENT_CWND_RESTART`) is not modelled. The module's state is
//! set up at the first ACK (where ns-2's TCP-Linux calls its `init`).
use super::linux::{self, param_flag, param_in, snd_cwnd};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

/// A half-segment parameter in the module's fixed point (2·v).
pub(super) fn half_units(algorithm: &str, params: &Params, key: &str, default: f64) -> Result<u64, String> {
    let v = param_in(algorithm, params, key, default, 0.0, 1e9)?;
    if (2.0 * v).fract() != 0.0 {
        return Err(format!(
            "{algorithm}: {key} = {v} is not allowed; must be a multiple of 0.5 (the module's fixed point) in [0, 1000000000]"
        ));
    }
    Ok((2.0 * v) as u64)
}

/// `tcp_is_cwnd_limited(sk, in_flight)` of TCP-Linux (no TSO): the segments outstanding before
/// this ACK of `acked` filled the window.
pub(super) fn cwnd_limited(st: &CcState, acked: u64) -> bool {
    st.flight + acked >= snd_cwnd(st)
}

/// The RTT-sampling and round-trip bookkeeping Linux's Vegas and its Compound port share
/// (`beg_snd_nxt`, `beg_snd_una`, `beg_snd_cwnd`, `minRTT`, `cntRTT`, `baseRTT`).
#[derive(Debug, Clone)]
pub(super) struct VegasRtt {
    /// microseconds + 1; u64::MAX = none yet
    pub base_rtt: u64,
    pub min_rtt: u64,
    pub cnt_rtt: u64,
    pub beg_snd_nxt: u64,
    pub beg_snd_una: u64,
    pub beg_snd_cwnd: u64,
    /// segments cumulatively acknowledged so far (the kernel's snd_una)
    snd_una: u64,
    started: bool,
}

impl Default for VegasRtt {
    fn default() -> Self {
        VegasRtt {
            base_rtt: u64::MAX,
            min_rtt: u64::MAX,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            beg_snd_una: 0,
            beg_snd_cwnd: 0,
            snd_una: 0,
            started: false,
        }
    }
}

impl VegasRtt {
    /// The kernel's `snd_nxt` in segments.
    pub fn snd_nxt(&self, st: &CcState) -> u64 {
        self.snd_una + st.flight
    }

    /// `vegas_enable`: the next round trip starts now, with no sample yet.
    pub fn enable(&mut self, st: &CcState) {
        self.beg_snd_nxt = self.snd_nxt(st);
        self.cnt_rtt = 0;
        self.min_rtt = u64::MAX;
    }

    /// Every ACK arrival; true the first time (the module's `init` is due).
    pub fn on_arrival(&mut self, ack: &AckSample) -> bool {
        self.snd_una += ack.acked;
        !std::mem::replace(&mut self.started, true)
    }

    /// An RTT sample in microseconds (already + 1).
    pub fn sample(&mut self, us: u64) {
        self.base_rtt = self.base_rtt.min(us);
        self.min_rtt = self.min_rtt.min(us);
        self.cnt_rtt += 1;
    }

    /// If this ACK ends the round trip (`after(ack, beg_snd_nxt)`), start the next one and
    /// return (old_wnd, old_snd_cwnd).
    pub fn round_end(&mut self, st: &CcState) -> Option<(u64, u64)> {
        if self.snd_una <= self.beg_snd_nxt {
            return None;
        }
        let old_wnd = self.beg_snd_nxt.saturating_sub(self.beg_snd_una);
        let old_cwnd = self.beg_snd_cwnd;
        self.beg_snd_una = self.beg_snd_nxt;
        self.beg_snd_nxt = self.snd_nxt(st);
        self.beg_snd_cwnd = snd_cwnd(st);
        Some((old_wnd, old_cwnd))
    }

    /// Tests: make the next ACK end a round trip in which `old_wnd` segments were sent, begun
    /// with the window `old_cwnd`, with `cnt` samples so far.
    #[cfg(test)]
    pub fn set_round(&mut self, old_wnd: u64, old_cwnd: u64, cnt: u64) {
        self.snd_una += old_wnd;
        self.beg_snd_nxt = self.snd_una;
        self.beg_snd_una = self.beg_snd_nxt - old_wnd;
        self.beg_snd_cwnd = old_cwnd;
        self.cnt_rtt = cnt;
        self.min_rtt = u64::MAX;
    }

    /// Wipe the slate for the next round trip.
    pub fn clear(&mut self) {
        self.cnt_rtt = 0;
        self.min_rtt = u64::MAX;
    }

    /// Diff in the fixed point (2·segments): (target, diff) for a window of old_wnd.
    pub fn diff2(&self, old_wnd: u64) -> (u64, u64) {
        let target2 = (old_wnd * self.base_rtt * 2) / self.min_rtt;
        (target2, (2 * old_wnd).saturating_sub(target2))
    }

    pub fn base_rtt_secs(&self) -> f64 {
        if self.base_rtt == u64::MAX {
            f64::NAN
        } else {
            self.base_rtt as f64 * 1e-6
        }
    }
}

#[derive(Debug, Clone)]
pub struct Vegas {
    alpha2: u64,
    beta2: u64,
    gamma2: u64,
    ss_every_other: bool,
    rtt: VegasRtt,
    doing_vegas: bool,
    cwnd_cnt: u64,
    /// 2·Diff at the last computation (NaN before any)
    diff2: f64,
    /// slow start grows in this round trip (`ss_every_other`)
    ss_grow: bool,
    loss: linux::LossState,
    min_cwnd: linux::MinCwnd,
}

impl Vegas {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "vegas";
        check_params(N, params, &["alpha", "beta", "gamma", "ss_every_other"])?;
        let alpha2 = half_units(N, params, "alpha", 2.0)?;
        let beta2 = half_units(N, params, "beta", 4.0)?;
        let gamma2 = half_units(N, params, "gamma", 1.0)?;
        if alpha2 > beta2 {
            return Err(format!(
                "{N}: alpha = {} is not allowed; must be at most beta = {}",
                alpha2 as f64 / 2.0,
                beta2 as f64 / 2.0
            ));
        }
        let mut v = Vegas::new(alpha2, beta2, gamma2);
        v.ss_every_other = param_flag(N, params, "ss_every_other", false)?;
        Ok(Box::new(v))
    }

    pub fn new(alpha2: u64, beta2: u64, gamma2: u64) -> Vegas {
        Vegas {
            alpha2,
            beta2,
            gamma2,
            ss_every_other: false,
            rtt: VegasRtt::default(),
            doing_vegas: true,
            cwnd_cnt: 0,
            diff2: f64::NAN,
            ss_grow: true,
            loss: linux::LossState::default(),
            min_cwnd: linux::MinCwnd::default(),
        }
    }

    /// `tcp_reno_cong_avoid`: nothing unless the window was full before this ACK
    /// (`tcp_is_cwnd_limited` as TCP-Linux has it: in_flight ≥ cwnd).
    fn reno(&mut self, st: &mut CcState, acked: u64) {
        if !cwnd_limited(st, acked) {
            return;
        }
        if linux::in_slow_start(st) {
            self.slow_start(st);
        } else {
            linux::reno_ai(st, &mut self.cwnd_cnt);
        }
    }

    fn slow_start(&mut self, st: &mut CcState) {
        if self.ss_grow || !self.ss_every_other {
            linux::slow_start(st);
        }
    }

    /// The backlog estimate Diff (segments) at the last round end.
    pub fn diff(&self) -> f64 {
        self.diff2 / 2.0
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack_arrival(&mut self, st: &CcState, ack: &AckSample) {
        if self.rtt.on_arrival(ack) {
            self.rtt.enable(st);
        }
        if let (false, Some(rtt)) = (ack.duplicate, ack.rtt) {
            self.rtt.sample(crate::sim::floor(rtt * 1e6) as u64 + 1);
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if self.loss.on_ack(ack.acked) {
            // the Loss state: Reno, and the open state returns once it is over
            self.reno(st, ack.acked);
            if !self.loss.active() {
                self.doing_vegas = true;
                self.rtt.enable(st);
            }
            return;
        }
        if !self.doing_vegas {
            self.reno(st, ack.acked);
            return;
        }
        let Some((old_wnd, old_cwnd)) = self.rtt.round_end(st) else {
            if linux::in_slow_start(st) {
                self.slow_start(st);
            }
            return;
        };
        if self.rtt.cnt_rtt <= 2 {
            self.reno(st, ack.acked);
        } else {
            let (target2, diff2) = self.rtt.diff2(old_wnd);
            self.diff2 = diff2 as f64;
            if linux::in_slow_start(st) {
                if diff2 > self.gamma2 {
                    st.ssthresh = 2.0;
                    st.cwnd = st.cwnd.min((target2 / 2 + 1) as f64);
                    st.log.push(("vegas_slow_start_exit", st.cwnd));
                }
                self.slow_start(st);
            } else {
                let next = if diff2 > self.beta2 {
                    old_cwnd.saturating_sub(1)
                } else if diff2 < self.alpha2 {
                    old_cwnd + 1
                } else {
                    old_cwnd
                };
                let w = snd_cwnd(st);
                if next > w {
                    st.cwnd = (w + 1) as f64;
                } else if next < w {
                    st.cwnd = (w - 1) as f64;
                }
            }
            st.cwnd = st.cwnd.max(2.0);
        }
        self.ss_grow = !self.ss_grow;
        self.rtt.clear();
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| (snd_cwnd(st) / 2).max(2));
        self.min_cwnd.on_congestion(st, signal);
        linux::apply_loss(st, signal, ssthresh);
        self.cwnd_cnt = 0;
        match signal {
            Signal::Timeout => {
                self.doing_vegas = false;
                self.loss.on_timeout(st);
            }
            Signal::DupAcks => {
                self.doing_vegas = false;
                self.loss.clear();
            }
            // No recovery follows an ECN echo or a notification here: Vegas goes on at once,
            // from a new round trip (as Linux does when its CWR state ends).
            Signal::Ecn | Signal::Explicit => {
                self.doing_vegas = true;
                self.rtt.enable(st);
            }
        }
    }

    fn on_recovery_ack(&mut self, st: &mut CcState, _ack: &AckSample) {
        self.min_cwnd.on_ack(st);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        st.cwnd = st.recovery_base;
        self.min_cwnd.stop();
        self.doing_vegas = true;
        self.rtt.enable(st);
    }

    fn tcp_linux(&self) -> bool {
        true
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("vegas_base_rtt", self.rtt.base_rtt_secs()));
        out.push(("vegas_diff", self.diff()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, dup_ack, one_ack, test_state};

    /// One new ACK of one segment with an RTT sample, `flight` outstanding after it.
    fn ack(v: &mut Vegas, st: &mut CcState, rtt: Option<f64>, flight: u64) {
        st.flight = flight;
        let a = one_ack(rtt);
        v.on_ack_arrival(st, &a);
        v.on_ack(st, &a);
    }

    /// Let the next ACK (with a sample at `rtt` seconds) end a round trip in which `old_wnd`
    /// segments were sent, begun with the window `old_cwnd`, with `cnt` samples before it.
    fn end_round(v: &mut Vegas, st: &mut CcState, old_wnd: u64, old_cwnd: u64, cnt: u64, rtt: f64) {
        v.rtt.set_round(old_wnd, old_cwnd, cnt);
        let f = snd_cwnd(st);
        ack(v, st, Some(rtt), f);
    }

    #[test]
    fn congestion_avoidance_moves_one_segment_per_round_toward_the_wanted_window() {
        let mut v = Vegas::new(4, 8, 2);
        let mut st = test_state(20.0, 10.0);
        // the first ACK starts the module: the round ends beyond snd_nxt = 1 + 20
        ack(&mut v, &mut st, Some(0.1), 20);
        assert_eq!((v.rtt.beg_snd_nxt, v.rtt.base_rtt, st.cwnd), (21, 100_001, 20.0));
        // between round ends the window does not move in congestion avoidance
        ack(&mut v, &mut st, Some(0.1), 20);
        assert_eq!(st.cwnd, 20.0);
        // at baseRTT: Diff 0 < α, wanted old_cwnd + 1 = 21 > 20: 21
        end_round(&mut v, &mut st, 20, 20, 5, 0.1);
        assert_eq!((v.diff(), st.cwnd), (0.0, 21.0));
        // the round's window was saved before the change (the kernel's beg_snd_cwnd)
        assert_eq!(v.rtt.beg_snd_cwnd, 20);
        // wanted far above: still one segment per round (old_cwnd 30 → 22)
        end_round(&mut v, &mut st, 20, 30, 5, 0.1);
        assert_eq!(st.cwnd, 22.0);
        // RTT 125 ms: target ⌊40·100001/125001⌋ = 32, diff 8 = 2β: not above β, keep old_cwnd
        // (20): 22 → 21
        end_round(&mut v, &mut st, 20, 20, 5, 0.125);
        assert_eq!((v.diff2, st.cwnd), (8.0, 21.0));
        // RTT 130 ms: target 30, diff 10 > 8: wanted old_cwnd − 1 = 19 < 21: 20
        end_round(&mut v, &mut st, 20, 20, 5, 0.13);
        assert_eq!((v.diff(), st.cwnd), (5.0, 20.0));
        // RTT 115 ms: target 34, diff 6 in [α, β]: wanted old_cwnd = 20: unchanged
        end_round(&mut v, &mut st, 20, 20, 5, 0.115);
        assert_eq!((v.diff2, st.cwnd), (6.0, 20.0));
        // 2 samples only (the ending ACK's is the third: 3 > 2 needed before it): Reno's step
        end_round(&mut v, &mut st, 20, 40, 1, 0.1);
        assert_eq!(st.cwnd, 20.0, "cnt 2: Reno's counter, no Vegas step");
        // the floor of 2
        st.cwnd = 2.0;
        st.ssthresh = 1.0;
        end_round(&mut v, &mut st, 20, 0, 5, 0.2);
        assert_eq!(st.cwnd, 2.0);
    }

    #[test]
    fn slow_start_ends_when_diff_exceeds_gamma() {
        let mut v = Vegas::new(4, 8, 2);
        let mut st = test_state(16.0, 1e9);
        ack(&mut v, &mut st, Some(0.1), 16);
        assert_eq!(st.cwnd, 17.0, "+1 per ACK");
        // RTT 102 ms: target ⌊32·100001/102001⌋ = 31, diff 1 ≤ γ = 1: stay, +1
        end_round(&mut v, &mut st, 16, 16, 5, 0.102);
        assert_eq!((v.diff2, st.cwnd, st.ssthresh), (1.0, 18.0, 1e9));
        // RTT 130 ms: target 24, diff 8 > 2: ssthresh 2, cwnd min(18, 12 + 1) = 13, then + 1
        end_round(&mut v, &mut st, 16, 16, 5, 0.13);
        assert_eq!((st.ssthresh, st.cwnd), (2.0, 14.0));
        assert!(st.log.iter().any(|(n, _)| *n == "vegas_slow_start_exit"));
    }

    #[test]
    fn paper_slow_start_grows_every_other_round() {
        let mut v = Vegas::new(4, 8, 2);
        v.ss_every_other = true;
        let mut st = test_state(2.0, 1e9);
        ack(&mut v, &mut st, Some(0.1), 2);
        assert_eq!(st.cwnd, 3.0, "the first round grows");
        end_round(&mut v, &mut st, 2, 2, 5, 0.1);
        assert_eq!(st.cwnd, 4.0, "the ACK that ends it too");
        v.rtt.beg_snd_nxt = 1000;
        for _ in 0..4 {
            ack(&mut v, &mut st, Some(0.1), 4);
        }
        assert_eq!(st.cwnd, 4.0, "the second round does not");
        end_round(&mut v, &mut st, 4, 3, 5, 0.1);
        assert_eq!(st.cwnd, 4.0);
        ack(&mut v, &mut st, Some(0.1), 4);
        assert_eq!(st.cwnd, 5.0, "the third does");
    }

    #[test]
    fn without_enough_samples_only_the_round_end_takes_renos_step() {
        let mut v = Vegas::new(4, 8, 2);
        let mut st = test_state(10.0, 5.0);
        ack(&mut v, &mut st, None, 10);
        for _ in 0..200 {
            ack(&mut v, &mut st, None, 10);
        }
        // 200 ACKs, about 18 round ends: Reno's counter reaches cwnd + 1 once
        assert_eq!(st.cwnd, 11.0);
        assert!(v.diff().is_nan());
    }

    #[test]
    fn loss_is_renos_and_vegas_restarts_after_recovery() {
        let mut v = Vegas::new(4, 8, 2);
        let mut st = test_state(31.0, 10.0);
        ack(&mut v, &mut st, Some(0.1), 31);
        v.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (15.0, 15.0));
        assert!(!v.doing_vegas);
        v.on_recovery_exit(&mut st);
        assert!(v.doing_vegas && v.rtt.cnt_rtt == 0);
        // a timeout: Reno (slow start from 1) until what was outstanding is acknowledged
        st.flight = 3;
        v.on_congestion(&mut st, Signal::Timeout);
        assert_eq!(st.cwnd, 1.0);
        ack(&mut v, &mut st, Some(0.1), 3);
        assert_eq!(st.cwnd, 2.0);
        assert!(!v.doing_vegas);
        ack(&mut v, &mut st, Some(0.1), 3);
        ack(&mut v, &mut st, Some(0.1), 3);
        assert!(v.doing_vegas, "open again once the 3 are acknowledged");
        // an ECN echo halves without a recovery: Vegas goes on, from a new round trip
        st.cwnd = 20.0;
        v.on_congestion(&mut st, Signal::Ecn);
        assert_eq!((st.cwnd, st.ssthresh), (10.0, 10.0));
        assert!(v.doing_vegas && v.rtt.cnt_rtt == 0);
    }

    #[test]
    fn sack_recovery_holds_cwnd_at_half_ssthresh() {
        // tcp_reno_min_cwnd: in recovery cwnd is ssthresh/2 = 25 (the sender's TCP-Linux
        // recovery halves the rate down to it); the exit keeps it and Vegas resumes
        let mut v = Vegas::new(4, 8, 2);
        assert!(v.tcp_linux());
        let mut st = test_state(100.0, 1e9);
        ack(&mut v, &mut st, Some(0.1), 100);
        v.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (50.0, 50.0));
        let dup = dup_ack();
        v.on_recovery_ack(&mut st, &dup);
        assert_eq!((st.cwnd, st.recovery_base), (25.0, 25.0));
        v.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 25.0);
        assert!(v.doing_vegas);
        v.on_recovery_ack(&mut st, &dup);
        assert_eq!(st.cwnd, 25.0, "no effect outside recovery");
    }

    #[test]
    fn parameters_are_half_segments() {
        let mut p = Params::new();
        p.insert("alpha".into(), 1.25);
        assert_eq!(
            create("vegas", &p).err().unwrap(),
            "vegas: alpha = 1.25 is not allowed; must be a multiple of 0.5 (the module's fixed point) in [0, 1000000000]"
        );
        p.insert("alpha".into(), 5.0);
        assert_eq!(
            create("vegas", &p).err().unwrap(),
            "vegas: alpha = 5 is not allowed; must be at most beta = 4"
        );
        p.insert("alpha".into(), 1.0);
        p.insert("beta".into(), 3.0);
        assert!(create("vegas", &p).is_ok());
    }
}
