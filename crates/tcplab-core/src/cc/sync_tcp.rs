//! Sync-TCP (Wu Xiuchao's thesis, chapter 3, §3.4 and Table 3.1): `sync_tcp`. There is no
//! published code and Fig. 3.5 (the state diagram) is missing from the thesis, so this file
//! follows SEED-NOTES §2.2 A's reconstruction of §3.4; the readings taken where the thesis is
//! unclear are marked **reading** below.
//!
//! Modes: a flow starts in TCP mode (tcplab's `newreno`: slow start, +1/cwnd per ACK, ns-2's
//! halving on loss and its recovery exit, the shared `reno_increase`/`halve`/
//! `ns2_recovery_exit`; in SYNC mode recovery ends at the cut window) and switches to SYNC
//! when cwnd > Th_t2s = 2·Th_s2t; it goes back to TCP when cwnd < Th_s2t = brtt/(qd_max − Th_qd) segments (= brtt/8 ms with the
//! defaults: Th_thr = mss/(qd_max − Th_qd) is one segment per 8 ms, 1.5 Mb/s at 1500 B, and
//! the segment size cancels out of Th_s2t, so no segment size is needed). §3.4.7 is followed,
//! not Table 3.1, whose usage column swaps the two names.
//!
//! RTT sampling, in every mode and sub-state: one segment tagged every T_sample, no
//! timestamps (the sender's fixed-interval sampling; the algorithm asks for T_sample through
//! `rtt_sample_interval`, used when the flow leaves `tcp.rtt_sample_interval` at 0). Per
//! sample r: srtt ← (1 − T_sample/T_win)·srtt + (T_sample/T_win)·r (eq. 3.7; **reading**: the
//! first sample sets srtt = r), brtt ← min(brtt, r), brtt_epoch ← min(brtt_epoch, r);
//! qd = srtt − brtt.
//!
//! SYNC mode has three sub-states; the window changes only in Probing and at reduce():
//! - Probing: per sample, if qd > Th_qd the flow enters Waiting (a congestion decision);
//!   otherwise cwnd += α·T_sample/T_win, so that it grows by α segments per T_win. α is
//!   recomputed once per T_win (at the first sample at least T_win after the previous
//!   update) as α = max((1 + t + t⁴/32)·(Th_qd − qd)/Th_qd, 1) (eq. 3.8) with t the clock
//!   time in seconds since this Probing period began; at the start of Probing α = α(0, qd).
//! - Waiting: cwnd frozen, no detection; after T_wait: reduce() and Emptying.
//! - Emptying: cwnd frozen, no detection; after T_wait: Probing (t restarts at 0).
//!
//! reduce(): λ is adapted first on the epoch that ends (**reading**: the thesis says "first
//! calculates the difference", SEED-NOTES takes λ before β): λ ← λ + 1 if
//! brtt_epoch − brtt exceeds Th_emptied, else λ ← 1.25; then the rerouting fix: if λ > 20
//! and brtt_epoch > brtt, brtt ← brtt_epoch and λ ← 1.25; then β = clamp(1 − λ·(srtt − brtt)/srtt, 0.125, 0.95)
//! (eq. 3.9), cwnd ← β·cwnd, brtt_epoch ← ∞.
//!
//! Loss and mode changes:
//! - Loss (dupthresh duplicate ACKs, or ECN) in SYNC: cwnd ← β·cwnd at once with β from eq.
//!   3.9 and the upper bound 0.875 instead of 0.95; NewReno recovery; **reading**: then
//!   Emptying (SEED-NOTES, from §3.5.1's "in the Emptying sub-state after a loss"); **reading**:
//!   λ unchanged on loss; **reading**: the loss is a window reduction, so it ends the
//!   congestion epoch (brtt_epoch ← ∞).
//! - Timeout in SYNC: **reading**: the standard timeout (ssthresh = half, cwnd = 1), and the
//!   flow returns to TCP mode (as through the SYNC→TCP switch, with brtt ← ∞).
//! - TCP → SYNC: pacing on, sub-state Emptying for T_wait (avoids detecting the delayed-ACK
//!   noise of unpaced TCP, §3.4.1); **reading**: λ ← 1.25 and brtt_epoch ← ∞ on entry;
//!   **reading**: ssthresh ← cwnd (SYNC has no slow start).
//! - SYNC → TCP: pacing off; **reading**: brtt ← ∞ (relearn the propagation delay after a
//!   rerouting, §3.4.6), and brtt_epoch ← ∞.
//!
//! Pacing (SYNC only, whatever `tcp.pacing` says): the backplane's leaky bucket (the one
//! FAST uses) at cwnd/srtt segments per second with eq. 3.7's srtt (`Pacing::Rate`, set again after every sample and
//! window change), with the flow's `tcp.pacing_tick` (5 ms by default = T_pace) or `t_pace`
//! when given. **reading**: eq. 3.7's srtt rather than the backplane's RFC 6298 one, which
//! is rounded to the clock tick (10 ms by default).
//!
//! The optional α bound of §3.4.4 (`alpha_cap` = 1, off by default as in the thesis's
//! results): α ≤ (5 ms/srtt)·cwnd·(T_win/srtt); **reading**: applied before the floor of 1.
//!
//! Parameters (`cc_params`, Table 3.1): `t_win` = 0.1 s, `t_wait` = 0.5 s, `t_sample` = 0.01
//! s, `t_pace` (the flow's `tcp.pacing_tick` unless given), `th_qd` = 0.012 s, `qd_max` = 0.02
//! s, `lambda` = 1.25 (initial and reset value), `th_emptied` = 0.002 s, `beta_min` = 0.125,
//! `beta_max` = 0.95, `beta_max_loss` = 0.875, `lambda_reroute` = 20, `alpha_cap` = 0.
//!
//! Departures: the sub-state timers are checked at each new ACK outside recovery (no timer of
//! its own: a SYNC flow is paced, so ACKs arrive far more often than T_wait is resolved);
//! RTT samples that arrive during fast recovery update the estimators but move no window;
//! growth in Probing is capped at the receiver window; switched in at run time, the flow
//! starts in TCP mode and learns srtt and brtt afresh. With `tcp.timestamps` every ACK is a
//! sample and eq. 3.7's weight no longer spans T_win: the thesis forbids timestamps.
use super::linux::{param_flag, param_in};
use super::{
    check_params, halve, ns2_recovery_exit, reno_increase, AckSample, CcState, CongestionControl, Pacing, Params,
    Recovery, Signal,
};
use crate::sim::{secs, to_secs, Time};

const N: &str = "sync_tcp";
const PARAMS: &[&str] = &[
    "t_win",
    "t_wait",
    "t_sample",
    "t_pace",
    "th_qd",
    "qd_max",
    "lambda",
    "th_emptied",
    "beta_min",
    "beta_max",
    "beta_max_loss",
    "lambda_reroute",
    "alpha_cap",
];

/// The δ of the optional α bound (§3.4.4): queueing delay added per round trip at most.
const ALPHA_CAP_DELAY: f64 = 0.005;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Tcp,
    Sync,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sub {
    Probing,
    Waiting,
    Emptying,
}

impl Sub {
    /// The code in the `sync_substate` series and events.
    fn code(self) -> f64 {
        match self {
            Sub::Probing => 0.0,
            Sub::Waiting => 1.0,
            Sub::Emptying => 2.0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    pub t_win: f64,
    pub t_wait: Time,
    pub t_sample: f64,
    pub t_pace: Option<f64>,
    pub th_qd: f64,
    pub qd_max: f64,
    pub lambda: f64,
    pub th_emptied: f64,
    pub beta_min: f64,
    pub beta_max: f64,
    pub beta_max_loss: f64,
    pub lambda_reroute: f64,
    pub alpha_cap: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            t_win: 0.1,
            t_wait: secs(0.5),
            t_sample: 0.01,
            t_pace: None,
            th_qd: 0.012,
            qd_max: 0.02,
            lambda: 1.25,
            th_emptied: 0.002,
            beta_min: 0.125,
            beta_max: 0.95,
            beta_max_loss: 0.875,
            lambda_reroute: 20.0,
            alpha_cap: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct SyncTcp {
    c: Config,
    mode: Mode,
    sub: Sub,
    /// when the current sub-state began
    t_sub: Time,
    /// when the current Probing period began, and when α is next due
    probe_start: Time,
    alpha_due: Time,
    /// eq. 3.7's srtt (0 before the first sample)
    srtt: f64,
    brtt: f64,
    brtt_epoch: f64,
    alpha: f64,
    /// β of the last reduction (NaN before any)
    beta: f64,
    lambda: f64,
    /// the ACK being processed brought an RTT sample
    sampled: bool,
}

/// eq. 3.8: α at `t` seconds into Probing with queueing delay `qd`, before the floor of 1.
pub fn alpha_raw(t: f64, qd: f64, th_qd: f64) -> f64 {
    (1.0 + t + t.powi(4) / 32.0) * (th_qd - qd) / th_qd
}

impl SyncTcp {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Ok(Box::new(SyncTcp::new(Self::config(params)?)))
    }

    pub fn config(p: &Params) -> Result<Config, String> {
        check_params(N, p, PARAMS)?;
        let d = Config::default();
        let t_win = param_in(N, p, "t_win", d.t_win, 1e-3, 10.0)?;
        let t_sample = param_in(N, p, "t_sample", d.t_sample, 1e-6, t_win)?;
        let th_qd = param_in(N, p, "th_qd", d.th_qd, 1e-6, 1.0)?;
        let qd_max = param_in(N, p, "qd_max", d.qd_max, 0.0, 10.0)?;
        if qd_max <= th_qd {
            return Err(format!(
                "{N}: qd_max = {qd_max} is not allowed; must be greater than th_qd = {th_qd}"
            ));
        }
        let beta_min = param_in(N, p, "beta_min", d.beta_min, 0.0, 1.0)?;
        Ok(Config {
            t_win,
            t_wait: secs(param_in(N, p, "t_wait", 0.5, 0.0, 60.0)?),
            t_sample,
            t_pace: match p.get("t_pace") {
                Some(_) => Some(param_in(N, p, "t_pace", 0.0, 0.0, 1.0)?),
                None => None,
            },
            th_qd,
            qd_max,
            lambda: param_in(N, p, "lambda", d.lambda, 1.0, 1000.0)?,
            th_emptied: param_in(N, p, "th_emptied", d.th_emptied, 0.0, 1.0)?,
            beta_min,
            beta_max: param_in(N, p, "beta_max", d.beta_max, beta_min, 1.0)?,
            beta_max_loss: param_in(N, p, "beta_max_loss", d.beta_max_loss, beta_min, 1.0)?,
            lambda_reroute: param_in(N, p, "lambda_reroute", d.lambda_reroute, 1.0, 1e6)?,
            alpha_cap: param_flag(N, p, "alpha_cap", false)?,
        })
    }

    pub fn new(c: Config) -> SyncTcp {
        SyncTcp {
            lambda: c.lambda,
            c,
            mode: Mode::Tcp,
            sub: Sub::Emptying,
            t_sub: 0,
            probe_start: 0,
            alpha_due: 0,
            srtt: 0.0,
            brtt: f64::INFINITY,
            brtt_epoch: f64::INFINITY,
            alpha: 1.0,
            beta: f64::NAN,
            sampled: false,
        }
    }

    /// Th_thr (eq. 3.10) in segments per second: one segment per (qd_max − Th_qd).
    pub fn th_thr(&self) -> f64 {
        1.0 / self.qd_gap()
    }

    /// qd_max − Th_qd, taken through whole nanoseconds so that 20 ms − 12 ms is 8 ms.
    fn qd_gap(&self) -> f64 {
        to_secs(secs(self.c.qd_max) - secs(self.c.th_qd))
    }

    /// Th_s2t (eq. 3.11, segments): SYNC → TCP below it; infinite while brtt is unknown.
    pub fn th_s2t(&self) -> f64 {
        self.brtt * self.th_thr()
    }

    /// Th_t2s = 2·Th_s2t (segments): TCP → SYNC above it.
    pub fn th_t2s(&self) -> f64 {
        2.0 * self.th_s2t()
    }

    fn qd(&self) -> f64 {
        self.srtt - self.brtt
    }

    /// α (eq. 3.8) with the optional bound and the floor of one segment.
    fn alpha_at(&self, t: f64, cwnd: f64) -> f64 {
        let mut a = alpha_raw(t, self.qd(), self.c.th_qd);
        if self.c.alpha_cap {
            a = a.min(ALPHA_CAP_DELAY / self.srtt * cwnd * (self.c.t_win / self.srtt));
        }
        a.max(1.0)
    }

    /// eq. 3.9 clamped to [beta_min, `hi`].
    fn beta_for(&self, hi: f64) -> f64 {
        (1.0 - self.lambda * self.qd() / self.srtt).clamp(self.c.beta_min, hi)
    }

    fn estimate(&mut self, r: f64) {
        let g = self.c.t_sample / self.c.t_win;
        self.srtt = if self.srtt == 0.0 {
            r
        } else {
            (1.0 - g) * self.srtt + g * r
        };
        self.brtt = self.brtt.min(r);
        self.brtt_epoch = self.brtt_epoch.min(r);
    }

    fn enter(&mut self, st: &mut CcState, sub: Sub) {
        self.sub = sub;
        self.t_sub = st.now;
        if sub == Sub::Probing {
            self.probe_start = st.now;
            self.alpha_due = st.now.saturating_add(secs(self.c.t_win));
            self.alpha = self.alpha_at(0.0, st.cwnd);
        }
        st.log.push(("sync_substate", sub.code()));
    }

    fn set_lambda(&mut self, st: &mut CcState, lambda: f64) {
        if lambda != self.lambda {
            self.lambda = lambda;
            st.log.push(("sync_lambda", lambda));
        }
    }

    /// Pacing at cwnd/srtt (SYNC mode).
    fn pace(&self, st: &mut CcState) {
        st.pacing = Pacing::Rate(st.cwnd.max(1.0) / self.srtt);
    }

    fn enter_sync(&mut self, st: &mut CcState) {
        self.mode = Mode::Sync;
        self.pace(st);
        st.ssthresh = st.cwnd;
        let l = self.c.lambda;
        self.set_lambda(st, l);
        self.brtt_epoch = f64::INFINITY;
        st.log.push(("sync_mode", 1.0));
        self.enter(st, Sub::Emptying);
    }

    fn leave_sync(&mut self, st: &mut CcState) {
        self.mode = Mode::Tcp;
        st.pacing = Pacing::Off;
        self.brtt = f64::INFINITY;
        self.brtt_epoch = f64::INFINITY;
        st.log.push(("sync_mode", 0.0));
    }

    /// The end of a Waiting period: adapt λ, then cut the window by β.
    fn reduce(&mut self, st: &mut CcState) {
        let lambda = if self.brtt_epoch - self.brtt > self.c.th_emptied {
            self.lambda + 1.0
        } else {
            self.c.lambda
        };
        self.set_lambda(st, lambda);
        if self.lambda > self.c.lambda_reroute && self.brtt_epoch > self.brtt {
            self.brtt = self.brtt_epoch;
            st.log.push(("sync_reroute", self.brtt));
            let l = self.c.lambda;
            self.set_lambda(st, l);
        }
        self.beta = self.beta_for(self.c.beta_max);
        self.cut(st, self.beta);
        st.log.push(("sync_reduce", self.beta));
        self.enter(st, Sub::Emptying);
    }

    fn cut(&mut self, st: &mut CcState, beta: f64) {
        st.cwnd = (beta * st.cwnd.min(st.rwnd)).max(1.0);
        st.ssthresh = st.cwnd.max(2.0);
        st.recovery_base = st.cwnd;
        self.brtt_epoch = f64::INFINITY;
    }

    /// One RTT sample in Probing: detection, else growth.
    fn probe(&mut self, st: &mut CcState) {
        let qd = self.qd();
        if qd > self.c.th_qd {
            st.log.push(("sync_congestion", qd));
            self.enter(st, Sub::Waiting);
            return;
        }
        if st.now >= self.alpha_due {
            self.alpha = self.alpha_at(to_secs(st.now - self.probe_start), st.cwnd);
            let t_win = secs(self.c.t_win);
            while self.alpha_due <= st.now {
                self.alpha_due = self.alpha_due.saturating_add(t_win);
            }
        }
        let grown = st.cwnd + self.alpha * self.c.t_sample / self.c.t_win;
        st.cwnd = grown.min(st.rwnd.max(st.cwnd));
    }
}

impl CongestionControl for SyncTcp {
    fn name(&self) -> &'static str {
        "sync_tcp"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn init(&mut self, st: &mut CcState) {
        st.cwnd = st.init_cwnd;
        st.ssthresh = st.init_ssthresh;
        st.pacing = Pacing::Off;
    }

    fn on_switch_in(&mut self, st: &mut CcState) {
        // The backplane's estimates are rounded to its clock tick: srtt and brtt are learnt
        // afresh from the T_sample samples.
        st.pacing = Pacing::Off;
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        ns2_recovery_exit(st, self.mode == Mode::Tcp);
    }

    fn rtt_sample_interval(&self) -> Option<f64> {
        Some(self.c.t_sample)
    }

    fn pacing_tick(&self) -> Option<f64> {
        self.c.t_pace
    }

    fn on_ack_arrival(&mut self, _st: &CcState, ack: &AckSample) {
        self.sampled = false;
        if let Some(r) = ack.rtt {
            self.estimate(r);
            self.sampled = true;
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if self.mode == Mode::Tcp {
            reno_increase(st, ack);
            if st.cwnd > self.th_t2s() {
                self.enter_sync(st);
            }
            return;
        }
        let t_wait = self.t_sub.saturating_add(self.c.t_wait);
        if self.sub == Sub::Waiting && st.now >= t_wait {
            self.reduce(st);
        } else if self.sub == Sub::Emptying && st.now >= t_wait {
            self.enter(st, Sub::Probing);
        }
        if self.sampled && self.sub == Sub::Probing {
            self.probe(st);
        }
        if st.cwnd < self.th_s2t() {
            self.leave_sync(st);
        } else {
            self.pace(st);
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        match (self.mode, signal) {
            (Mode::Sync, Signal::Timeout) => {
                halve(st, signal);
                self.leave_sync(st);
            }
            (Mode::Sync, _) => {
                let beta = self.beta_for(self.c.beta_max_loss);
                self.beta = beta;
                self.cut(st, beta);
                st.log.push(("sync_loss", beta));
                self.enter(st, Sub::Emptying);
                if st.cwnd < self.th_s2t() {
                    self.leave_sync(st);
                } else {
                    self.pace(st);
                }
            }
            (Mode::Tcp, _) => halve(st, signal),
        }
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        let sync = self.mode == Mode::Sync;
        let srtt = if self.srtt > 0.0 { self.srtt } else { f64::NAN };
        out.push(("sync_mode", if sync { 1.0 } else { 0.0 }));
        out.push(("sync_substate", if sync { self.sub.code() } else { f64::NAN }));
        out.push((
            "sync_qd",
            if self.brtt.is_finite() {
                srtt - self.brtt
            } else {
                f64::NAN
            },
        ));
        out.push(("sync_brtt", self.brtt));
        out.push(("sync_srtt", srtt));
        out.push(("sync_alpha", self.alpha));
        out.push(("sync_beta", self.beta));
        out.push(("sync_lambda", self.lambda));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, one_ack, test_state};

    const MS: Time = 1_000_000;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// A new ACK at `t` ms, with an RTT sample if `rtt` is given.
    fn ack(s: &mut SyncTcp, st: &mut CcState, t: Time, rtt: Option<f64>) {
        st.now = t * MS;
        let a = one_ack(rtt);
        s.on_ack_arrival(st, &a);
        s.on_ack(st, &a);
    }

    /// A flow in SYNC mode since `t` ms (sub-state Emptying), brtt = srtt = 100 ms.
    fn in_sync(cwnd: f64, t: Time) -> (SyncTcp, CcState) {
        let mut s = SyncTcp::new(Config::default());
        let mut st = test_state(cwnd, 1e9);
        s.estimate(0.1);
        st.now = t * MS;
        s.enter_sync(&mut st);
        st.log.clear();
        (s, st)
    }

    /// The same, already Probing since `t` ms.
    fn probing(cwnd: f64, t: Time) -> (SyncTcp, CcState) {
        let (mut s, mut st) = in_sync(cwnd, t);
        s.enter(&mut st, Sub::Probing);
        st.log.clear();
        (s, st)
    }

    #[test]
    fn derived_thresholds_and_alpha_values() {
        let mut s = SyncTcp::new(Config::default());
        // Th_thr = mss/(qd_max − Th_qd) = 1 segment per 20 − 12 = 8 ms = 125 segments/s,
        // = 1500·125 B/s = 1.5 Mb/s at 1500 B
        assert_eq!(s.th_thr(), 125.0);
        assert_eq!(1500.0 * 8.0 * s.th_thr(), 1.5e6);
        // unknown brtt: no switch either way
        assert_eq!(s.th_s2t(), f64::INFINITY);
        // brtt = 100 ms: Th_s2t = 100/8 = 12.5 segments, Th_t2s = 100/4 = 25
        s.estimate(0.1);
        assert_eq!((s.th_s2t(), s.th_t2s()), (12.5, 25.0));
        s.brtt = 0.06;
        assert!(close(s.th_s2t(), 7.5) && close(s.th_t2s(), 15.0));
        // α(qd = 0): 1 + t + t⁴/32
        assert_eq!(alpha_raw(0.0, 0.0, 0.012), 1.0);
        // 2.4 s: 1 + 2.4 + 33.1776/32 = 3.4 + 1.0368 = 4.4368 ≈ 4.44
        let a = alpha_raw(2.4, 0.0, 0.012);
        assert!(close(a, 4.4368), "{a}");
        assert_eq!((a * 100.0).round() / 100.0, 4.44);
        // 5 s: 1 + 5 + 625/32 = 25.53125; 10 s: 1 + 10 + 10000/32 = 323.5
        assert_eq!(alpha_raw(5.0, 0.0, 0.012), 25.53125);
        assert_eq!(alpha_raw(10.0, 0.0, 0.012), 323.5);
        // halfway to Th_qd halves it; at Th_qd the floor of one segment holds
        assert_eq!(alpha_raw(10.0, 0.006, 0.012), 161.75);
        s.srtt = 0.112;
        assert_eq!(s.alpha_at(10.0, 100.0), 1.0);
    }

    #[test]
    fn srtt_is_a_ten_sample_ewma_started_by_the_first_sample() {
        let mut s = SyncTcp::new(Config::default());
        s.estimate(0.2);
        assert_eq!((s.srtt, s.brtt, s.brtt_epoch), (0.2, 0.2, 0.2));
        // weight T_sample/T_win = 0.1: 0.9·0.2 + 0.1·0.1 = 0.19
        s.estimate(0.1);
        assert!(close(s.srtt, 0.19));
        assert_eq!((s.brtt, s.brtt_epoch), (0.1, 0.1));
        s.estimate(0.3);
        assert!(close(s.srtt, 0.201));
        assert_eq!(s.brtt, 0.1);
    }

    #[test]
    fn tcp_mode_is_newreno_until_cwnd_exceeds_th_t2s_then_emptying() {
        let mut s = SyncTcp::new(Config::default());
        let mut st = test_state(2.0, 1e9);
        st.pacing = Pacing::Window;
        s.init(&mut st);
        assert_eq!(s.rtt_sample_interval(), Some(0.01));
        assert_eq!((st.cwnd, st.pacing), (1.0, Pacing::Off));
        st.cwnd = 2.0;
        // slow start: +1 per ACK; the first sample sets brtt = 100 ms, Th_t2s = 25
        ack(&mut s, &mut st, 0, Some(0.1));
        assert_eq!(st.cwnd, 3.0);
        for i in 0..22 {
            ack(&mut s, &mut st, 1 + i, None);
        }
        assert_eq!((st.cwnd, s.mode), (25.0, Mode::Tcp), "25 is not above 25");
        ack(&mut s, &mut st, 30, None);
        assert_eq!((st.cwnd, s.mode, s.sub), (26.0, Mode::Sync, Sub::Emptying));
        // paced at cwnd/srtt = 26/0.1 segments per second
        assert_eq!(st.pacing, Pacing::Rate(260.0));
        assert_eq!(st.ssthresh, 26.0);
        assert_eq!(st.log, vec![("sync_mode", 1.0), ("sync_substate", 2.0)]);
        // a loss in TCP mode halves (ns-2's halving), and recovery ends with ns-2's increase
        let mut s = SyncTcp::new(Config::default());
        let mut st = test_state(21.0, 1e9);
        s.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.cwnd, st.ssthresh), (10.5, 10.0));
        st.cwnd += 3.0;
        s.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 10.5 + 1.0 / 10.5);
    }

    #[test]
    fn emptying_freezes_cwnd_for_t_wait_then_probing_grows_alpha_per_t_win() {
        let (mut s, mut st) = in_sync(40.0, 1000);
        // frozen: no per-ACK increase, samples only update the estimators
        ack(&mut s, &mut st, 1200, Some(0.1));
        ack(&mut s, &mut st, 1499, Some(0.1));
        assert_eq!((st.cwnd, s.sub), (40.0, Sub::Emptying));
        // T_wait = 500 ms after entry: Probing, α(0, qd 0) = 1, and this sample grows cwnd by
        // α·T_sample/T_win = 0.1
        ack(&mut s, &mut st, 1500, Some(0.1));
        assert_eq!(s.sub, Sub::Probing);
        assert_eq!(st.log, vec![("sync_substate", 0.0)]);
        assert_eq!(s.alpha, 1.0);
        assert!(close(st.cwnd, 40.1));
        // an ACK without a sample changes nothing
        ack(&mut s, &mut st, 1505, None);
        assert!(close(st.cwnd, 40.1));
        // nine more samples, 10 ms apart: +0.1 each
        for k in 1..10 {
            ack(&mut s, &mut st, 1500 + 10 * k, Some(0.1));
        }
        assert!(close(st.cwnd, 41.0), "{}", st.cwnd);
        // at 1600 ms α is due: t = 0.1 s, α = 1 + 0.1 + 0.0001/32 = 1.100003125
        ack(&mut s, &mut st, 1600, Some(0.1));
        assert!(close(s.alpha, 1.100003125));
        assert!(close(st.cwnd, 41.1100003125));
        // not again before 1700 ms
        ack(&mut s, &mut st, 1690, Some(0.1));
        assert!(close(s.alpha, 1.100003125));
        // queueing delay scales it: jump to 5 s into Probing with srtt − brtt = 6 ms:
        // α = 25.53125·(12 − 6)/12 = 12.765625, cwnd + 1.2765625
        s.srtt = 0.106;
        let w = st.cwnd;
        st.now = 6500 * MS;
        s.alpha_due = st.now;
        s.probe(&mut st);
        assert!(close(s.alpha, 12.765625));
        assert!(close(st.cwnd, w + 1.2765625));
        // growth stops at the receiver window
        st.rwnd = st.cwnd + 0.5;
        s.probe(&mut st);
        assert_eq!(st.cwnd, st.rwnd);
    }

    #[test]
    fn queueing_delay_above_th_qd_waits_with_cwnd_frozen_then_reduces() {
        let (mut s, mut st) = probing(40.0, 0);
        // rtt 200 ms: srtt = 0.9·0.1 + 0.1·0.2 = 0.11, qd 10 ms ≤ 12 ms: grows
        ack(&mut s, &mut st, 10, Some(0.2));
        assert!(close(s.srtt, 0.11));
        assert!(close(st.cwnd, 40.1));
        // again: srtt = 0.099 + 0.02 = 0.119, qd 19 ms > 12 ms: a congestion decision
        ack(&mut s, &mut st, 20, Some(0.2));
        assert_eq!(s.sub, Sub::Waiting);
        assert!(close(st.cwnd, 40.1), "frozen");
        assert_eq!(st.log[1], ("sync_substate", 1.0));
        assert_eq!(st.log[0].0, "sync_congestion");
        assert!(close(st.log[0].1, 0.019));
        for k in 3..52 {
            ack(&mut s, &mut st, 10 * k, Some(0.2));
        }
        assert!(close(st.cwnd, 40.1), "frozen for T_wait");
        assert_eq!(s.sub, Sub::Waiting);
        // T_wait after the decision (20 ms + 500 ms): reduce() with the values then:
        st.cwnd = 40.0;
        (s.srtt, s.brtt, s.brtt_epoch) = (0.125, 0.1, 0.101);
        st.log.clear();
        ack(&mut s, &mut st, 520, None);
        // brtt_epoch − brtt = 1 ms ≤ 2 ms: λ stays at 1.25 (no event);
        // β = 1 − 1.25·25/125 = 0.75
        assert_eq!(s.sub, Sub::Emptying);
        assert!(close(s.beta, 0.75));
        assert!(close(st.cwnd, 30.0));
        assert_eq!(s.brtt_epoch, f64::INFINITY);
        assert_eq!(st.log[0].0, "sync_reduce");
        assert_eq!(st.log[1], ("sync_substate", 2.0));
        // Emptying: frozen for another T_wait
        ack(&mut s, &mut st, 1019, Some(0.1));
        assert!(close(st.cwnd, 30.0));
        ack(&mut s, &mut st, 1020, None);
        assert_eq!(s.sub, Sub::Probing);
    }

    /// reduce() from Waiting with srtt 125 ms, brtt 100 ms, cwnd 400 and the given λ,
    /// brtt_epoch.
    fn reduce_with(lambda: f64, brtt_epoch: f64) -> (SyncTcp, CcState) {
        let (mut s, mut st) = probing(400.0, 0);
        s.enter(&mut st, Sub::Waiting);
        (s.srtt, s.brtt, s.brtt_epoch, s.lambda) = (0.125, 0.1, brtt_epoch, lambda);
        st.log.clear();
        ack(&mut s, &mut st, 500, None);
        (s, st)
    }

    #[test]
    fn lambda_grows_when_the_queue_did_not_empty_and_resets_otherwise() {
        // brtt_epoch 5 ms above brtt > Th_emptied: λ = 1.25 + 1 = 2.25, β = 1 − 2.25·0.2 = 0.55
        let (s, st) = reduce_with(1.25, 0.105);
        assert_eq!(s.lambda, 2.25);
        assert!(close(s.beta, 0.55) && close(st.cwnd, 220.0));
        assert_eq!(st.log[0], ("sync_lambda", 2.25));
        // the queue emptied (within 2 ms): back to 1.25 from 5.25, β = 0.75
        let (s, st) = reduce_with(5.25, 0.1019);
        assert_eq!(s.lambda, 1.25);
        assert!(close(s.beta, 0.75) && close(st.cwnd, 300.0));
        assert_eq!(st.log[0], ("sync_lambda", 1.25));
        // β's clamp: λ = 4.25 + 1 = 5.25: 1 − 5.25·0.2 < 0.125
        let (s, st) = reduce_with(4.25, 0.11);
        assert_eq!((s.lambda, s.beta), (5.25, 0.125));
        assert_eq!(st.cwnd, 50.0);
        // ... and at the top: qd 1 ms of srtt 101 ms: 1 − 1.25/101 = 0.9876 > 0.95
        let (mut s, mut st) = probing(40.0, 0);
        s.enter(&mut st, Sub::Waiting);
        (s.srtt, s.brtt_epoch) = (0.101, 0.1);
        ack(&mut s, &mut st, 500, None);
        assert_eq!(s.beta, 0.95);
        assert!(close(st.cwnd, 38.0));
    }

    #[test]
    fn lambda_above_20_with_a_higher_epoch_minimum_takes_it_as_the_new_brtt() {
        // 18.25 + 1 = 19.25: not above 20, β = 1 − 19.25·0.2 → clamped 0.125
        let (s, st) = reduce_with(18.25, 0.11);
        assert_eq!((s.lambda, s.brtt, s.beta, st.cwnd), (19.25, 0.1, 0.125, 50.0));
        // 19.25 + 1 = 20.25 > 20 and brtt_epoch 110 ms > brtt: rerouting fix, brtt = 110 ms,
        // λ = 1.25; then qd = 125 − 110 = 15 ms: β = 1 − 1.25·15/125 = 0.85, cwnd 34
        let (s, st) = reduce_with(19.25, 0.11);
        assert_eq!((s.lambda, s.brtt), (1.25, 0.11));
        assert!(close(s.beta, 0.85) && close(st.cwnd, 340.0));
        assert_eq!(
            st.log[..3],
            [("sync_lambda", 20.25), ("sync_reroute", 0.11), ("sync_lambda", 1.25)]
        );
        // and Th_s2t follows the new brtt: 110/8 = 13.75
        assert!(close(s.th_s2t(), 13.75));
    }

    #[test]
    fn loss_in_sync_cuts_at_once_bounded_by_0_875_and_empties() {
        // Probing, srtt 125 ms, brtt 100 ms, λ 2.25: β = 1 − 2.25·0.2 = 0.55
        let (mut s, mut st) = probing(40.0, 0);
        (s.srtt, s.lambda) = (0.125, 2.25);
        st.now = 300 * MS;
        s.on_congestion(&mut st, Signal::DupAcks);
        assert!(close(s.beta, 0.55) && close(st.cwnd, 22.0));
        assert_eq!((st.ssthresh, st.recovery_base), (st.cwnd, st.cwnd));
        assert_eq!(
            (s.sub, s.t_sub, s.lambda),
            (Sub::Emptying, 300 * MS, 2.25),
            "λ unchanged"
        );
        assert_eq!(s.brtt_epoch, f64::INFINITY);
        assert_eq!(st.log[1], ("sync_substate", 2.0));
        // recovery ends at the cut window (frozen in Emptying)
        st.cwnd += 3.0;
        s.on_recovery_exit(&mut st);
        assert!(close(st.cwnd, 22.0));
        // small queueing delay: 1 − 1.25·1/101 = 0.9876, bounded by 0.875 (not 0.95)
        let (mut s, mut st) = probing(40.0, 0);
        s.srtt = 0.101;
        s.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(s.beta, 0.875);
        assert_eq!(st.cwnd, 35.0);
        assert_eq!(st.pacing, Pacing::Rate(35.0 / 0.101));
        assert_eq!(st.log[0], ("sync_loss", 0.875));
        // a loss while Waiting also cuts and empties
        let (mut s, mut st) = probing(40.0, 0);
        s.enter(&mut st, Sub::Waiting);
        s.srtt = 0.125;
        s.on_congestion(&mut st, Signal::Ecn);
        assert_eq!((st.cwnd, s.sub), (30.0, Sub::Emptying));
    }

    #[test]
    fn timeout_in_sync_is_the_standard_one_and_returns_to_tcp() {
        let (mut s, mut st) = probing(40.0, 0);
        s.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.cwnd, st.ssthresh), (1.0, 20.0));
        assert_eq!((s.mode, st.pacing), (Mode::Tcp, Pacing::Off));
        assert_eq!(s.brtt, f64::INFINITY);
        assert_eq!(st.log, vec![("sync_mode", 0.0)]);
        // TCP mode again: slow start, no switch before a new brtt
        ack(&mut s, &mut st, 10, None);
        assert_eq!((st.cwnd, s.mode), (2.0, Mode::Tcp));
    }

    #[test]
    fn below_th_s2t_sync_returns_to_tcp_and_forgets_brtt() {
        // brtt 100 ms: Th_s2t = 12.5; β = 0.75 on 14 segments leaves 10.5
        let (mut s, mut st) = probing(14.0, 0);
        s.enter(&mut st, Sub::Waiting);
        (s.srtt, s.brtt_epoch) = (0.125, 0.1);
        st.log.clear();
        ack(&mut s, &mut st, 500, None);
        assert!(close(st.cwnd, 10.5));
        assert_eq!((s.mode, st.pacing, s.brtt), (Mode::Tcp, Pacing::Off, f64::INFINITY));
        assert_eq!(st.log.last(), Some(&("sync_mode", 0.0)));
        // the next sample relearns brtt (now with the queue in it): 120 ms, Th_t2s = 30;
        // TCP congestion avoidance: +1/cwnd per ACK
        ack(&mut s, &mut st, 600, Some(0.12));
        assert_eq!(s.brtt, 0.12);
        assert!(close(st.cwnd, 10.5 + 1.0 / 10.5));
        // a loss below Th_s2t in SYNC also returns to TCP
        let (mut s, mut st) = probing(14.0, 0);
        s.srtt = 0.125;
        s.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.cwnd, s.mode), (10.5, Mode::Tcp));
    }

    #[test]
    fn the_optional_alpha_cap_bounds_alpha_to_5_ms_of_queue_per_round_trip() {
        let mut s = SyncTcp::new(Config {
            alpha_cap: true,
            ..Config::default()
        });
        s.estimate(0.1);
        // srtt = brtt = 100 ms, cwnd 40: cap = (5/100)·40·(100/100) = 2 < α(5 s) = 25.53
        assert!(close(s.alpha_at(5.0, 40.0), 2.0));
        // cwnd 10: cap 0.5, but α is never below one segment
        assert_eq!(s.alpha_at(5.0, 10.0), 1.0);
        // off by default
        let mut s = SyncTcp::new(Config::default());
        s.estimate(0.1);
        assert_eq!(s.alpha_at(5.0, 40.0), 25.53125);
    }

    #[test]
    fn parameters_are_validated_and_reach_the_sender() {
        let mut p = Params::new();
        p.insert("th_qd".into(), 0.03);
        assert_eq!(
            create("sync_tcp", &p).err().unwrap(),
            "sync_tcp: qd_max = 0.02 is not allowed; must be greater than th_qd = 0.03"
        );
        let mut p = Params::new();
        p.insert("t_sample".into(), 0.2);
        assert_eq!(
            create("sync_tcp", &p).err().unwrap(),
            "sync_tcp: t_sample = 0.2 is not allowed; must be in [0.000001, 0.1]"
        );
        let mut p = Params::new();
        p.insert("beta_max".into(), 0.1);
        assert_eq!(
            create("sync_tcp", &p).err().unwrap(),
            "sync_tcp: beta_max = 0.1 is not allowed; must be in [0.125, 1]"
        );
        let mut p = Params::new();
        p.insert("alpha_cap".into(), 2.0);
        assert_eq!(
            create("sync_tcp", &p).err().unwrap(),
            "sync_tcp: alpha_cap = 2 is not allowed; must be 0 or 1"
        );
        let mut p = Params::new();
        p.insert("t_sample".into(), 0.005);
        p.insert("t_pace".into(), 0.002);
        let cc = create("sync_tcp", &p).unwrap();
        assert_eq!((cc.rtt_sample_interval(), cc.pacing_tick()), (Some(0.005), Some(0.002)));
        assert_eq!(create("sync_tcp", &Params::new()).unwrap().pacing_tick(), None);
    }
}
