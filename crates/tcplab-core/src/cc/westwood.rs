//! TCP Westwood with the bandwidth estimator (BE), the rate estimator (RE) and the
//! combined, loss-cause-adaptive CRB (Gerla, Ng, Sanadidi, Valla, Wang: "TCP Westwood with
//! Adaptive Bandwidth Estimation to Improve Efficiency/Friendliness Tradeoffs").
//!
//! Slow start and congestion avoidance are NewReno's; only the reaction to a loss differs:
//! ssthresh = estimate · RTTmin / segment size. The estimate is BE (`westwood_be`), RE
//! (`westwood_re`), or, for `westwood_crb`, RE when cwnd / (RE·RTTmin/seg) > θ (the loss is
//! attributed to congestion) and BE otherwise; after a timeout CRB always uses BE.
//!
//! Parameters (`cc_params`), with the readings taken where the paper is silent
//! (SEED-NOTES §5A):
//! - `tau` = 1.0 s: filter time constant (cut-off 1/τ), as the UCLA ns-2 TCPW module.
//! - `m` = 2: a virtual zero sample every τ/m without ACKs (Nyquist), m ≥ 2.
//! - `t_factor` = 4: the RE window T = t_factor · RTTmin (the paper's T = 4·RTT).
//! - `theta` = 1.4: the CRB threshold.
//! - `fixed_filter` = 0: 1 uses the ns-2 module's constant coefficients (0.9047, 0.0476)
//!   instead of the time-varying Tustin filter.
//! - `max_count` = 2: AckedCount's cap on segments credited to one cumulative ACK (ns-2
//!   module); 0 = no cap.
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};
use crate::sim::{to_secs, Time};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Be,
    Re,
    Crb,
}

/// The first-order low-pass filter discretised with the Tustin approximation, with
/// time-varying coefficient α_k = (2τ − Δt_k)/(2τ + Δt_k).
#[derive(Debug, Clone)]
pub struct TustinFilter {
    pub tau: f64,
    pub fixed: bool,
    pub estimate: f64,
    prev_sample: f64,
}

impl TustinFilter {
    pub fn new(tau: f64, fixed: bool) -> Self {
        TustinFilter {
            tau,
            fixed,
            estimate: 0.0,
            prev_sample: 0.0,
        }
    }

    /// Feed `sample` taken `dt` seconds after the previous one.
    pub fn update(&mut self, sample: f64, dt: f64) -> f64 {
        let mean = (sample + self.prev_sample) / 2.0;
        self.estimate = if self.fixed {
            0.9047 * self.estimate + 0.0476 * (sample + self.prev_sample)
        } else {
            let alpha = (2.0 * self.tau - dt) / (2.0 * self.tau + dt);
            alpha * self.estimate + (1.0 - alpha) * mean
        };
        self.prev_sample = sample;
        self.estimate
    }
}

/// AckedCount (section 2.3): segments reported delivered by an ACK, counting duplicate
/// ACKs as one segment each and never crediting a segment twice.
#[derive(Debug, Clone, Default)]
pub struct AckedCount {
    /// Segments already credited through duplicate ACKs and not yet covered cumulatively.
    pub accounted_for: u64,
    pub max_count: u64,
}

impl AckedCount {
    pub fn count(&mut self, ack: &AckSample) -> u64 {
        if ack.duplicate {
            self.accounted_for += 1;
            return 1;
        }
        let n = ack.acked;
        let c = if self.accounted_for >= n {
            // The cumulative ACK covers segments already credited: only the retransmitted
            // one is new.
            self.accounted_for -= n.saturating_sub(1);
            1
        } else {
            let c = n - self.accounted_for;
            self.accounted_for = 0;
            c
        };
        if self.max_count > 0 {
            c.min(self.max_count)
        } else {
            c
        }
    }
}

/// The shortest interval between virtual bandwidth samples, tau / m (seconds).
const MIN_SAMPLE_STEP: f64 = 1e-6;

pub struct Westwood {
    variant: Variant,
    m: f64,
    t_factor: f64,
    theta: f64,
    counter: AckedCount,
    be: TustinFilter,
    re: TustinFilter,
    /// Time of the last real or virtual sample.
    last: Option<Time>,
    /// Data (bits) of ACKs that arrived at the same instant as the previous sample.
    carry_bits: f64,
    /// (arrival time, bits) of ACKs inside the RE window.
    window: VecDeque<(Time, f64)>,
    window_bits: f64,
    /// Last loss-cause ratio cwnd / (RE·RTTmin/seg) and whether RE was chosen.
    last_ratio: f64,
    last_used_re: bool,
}

impl Westwood {
    fn with_variant(variant: Variant, name: &str, params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params(
            name,
            params,
            &["tau", "m", "t_factor", "theta", "fixed_filter", "max_count"],
        )?;
        let get = |k: &str, d: f64| params.get(k).copied().unwrap_or(d);
        let tau = get("tau", 1.0);
        let m = get("m", 2.0);
        let t_factor = get("t_factor", 4.0);
        let theta = get("theta", 1.4);
        let max_count = get("max_count", 2.0);
        if !(tau > 0.0 && tau.is_finite()) {
            return Err(format!("{name}: tau = {tau} is not allowed; must be > 0 s and finite"));
        }
        if !(m >= 2.0) {
            return Err(format!("{name}: m = {m} is not allowed; must be >= 2 (Nyquist)"));
        }
        // An idle sender gets one virtual sample per tau/m: a step of nanoseconds would
        // take the run billions of filter updates per idle second.
        if !(tau / m >= MIN_SAMPLE_STEP) {
            return Err(format!(
                "{name}: tau / m = {} s is not allowed; must be >= {MIN_SAMPLE_STEP} s (1 µs)",
                tau / m
            ));
        }
        if t_factor <= 0.0 {
            return Err(format!("{name}: t_factor = {t_factor} is not allowed; must be > 0"));
        }
        if theta <= 0.0 {
            return Err(format!("{name}: theta = {theta} is not allowed; must be > 0"));
        }
        if max_count < 0.0 || max_count.fract() != 0.0 {
            return Err(format!(
                "{name}: max_count = {max_count} is not allowed; must be an integer >= 0"
            ));
        }
        let fixed = get("fixed_filter", 0.0) != 0.0;
        Ok(Box::new(Westwood::new(
            variant,
            tau,
            m,
            t_factor,
            theta,
            fixed,
            max_count as u64,
        )))
    }

    pub fn new(variant: Variant, tau: f64, m: f64, t_factor: f64, theta: f64, fixed: bool, max_count: u64) -> Westwood {
        Westwood {
            variant,
            m,
            t_factor,
            theta,
            counter: AckedCount {
                accounted_for: 0,
                max_count,
            },
            be: TustinFilter::new(tau, fixed),
            re: TustinFilter::new(tau, fixed),
            last: None,
            carry_bits: 0.0,
            window: VecDeque::new(),
            window_bits: 0.0,
            last_ratio: f64::NAN,
            last_used_re: false,
        }
    }

    pub fn create_be(p: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Self::with_variant(Variant::Be, "westwood_be", p)
    }
    pub fn create_re(p: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Self::with_variant(Variant::Re, "westwood_re", p)
    }
    pub fn create_crb(p: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Self::with_variant(Variant::Crb, "westwood_crb", p)
    }

    /// The RE window T in nanoseconds: t_factor · RTTmin (τ until an RTT is known).
    fn re_window(&self, st: &CcState) -> f64 {
        let base = if st.min_rtt.is_finite() {
            st.min_rtt
        } else {
            self.be.tau
        };
        self.t_factor * base
    }

    /// The RE sample at `now`: bits reported in the last T seconds, divided by T.
    fn re_sample(&mut self, now: Time, t_window: f64) -> f64 {
        let horizon = now.saturating_sub(crate::sim::secs(t_window));
        while let Some(&(t, b)) = self.window.front() {
            if t <= horizon {
                self.window.pop_front();
                self.window_bits -= b;
            } else {
                break;
            }
        }
        if self.window.is_empty() {
            self.window_bits = 0.0;
        }
        self.window_bits / t_window
    }

    /// Feed virtual samples for every τ/m that passed without an ACK before `now`.
    fn idle_until(&mut self, now: Time, st: &CcState) {
        let Some(mut last) = self.last else { return };
        let step = crate::sim::secs(self.be.tau / self.m).max(1);
        let t_window = self.re_window(st);
        while now > last.saturating_add(step) {
            last += step;
            let dt = to_secs(step);
            self.be.update(0.0, dt);
            let re = self.re_sample(last, t_window);
            self.re.update(re, dt);
        }
        self.last = Some(last);
    }

    fn segment_bits(st: &CcState) -> f64 {
        st.mss as f64 * 8.0
    }

    /// Window (segments) that carries `rate` bit/s at RTTmin, or None before an RTT sample.
    fn window_for(rate: f64, st: &CcState) -> Option<f64> {
        st.min_rtt
            .is_finite()
            .then(|| rate * st.min_rtt / Self::segment_bits(st))
    }

    #[cfg(test)]
    pub fn bandwidth_estimate(&self) -> f64 {
        self.be.estimate
    }

    #[cfg(test)]
    pub fn rate_estimate(&self) -> f64 {
        self.re.estimate
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::Be => "westwood_be",
            Variant::Re => "westwood_re",
            Variant::Crb => "westwood_crb",
        }
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack_arrival(&mut self, st: &CcState, ack: &AckSample) {
        let now = st.now;
        let bits = self.counter.count(ack) as f64 * Self::segment_bits(st);
        let t_window = self.re_window(st);
        self.window.push_back((now, bits));
        self.window_bits += bits;
        let Some(_) = self.last else {
            // The first ACK only starts the clock.
            self.last = Some(now);
            return;
        };
        self.idle_until(now, st);
        let last = self.last.unwrap_or(now);
        if now <= last {
            self.carry_bits += bits;
            return;
        }
        let dt = to_secs(now - last);
        let sample = (bits + self.carry_bits) / dt;
        self.carry_bits = 0.0;
        self.be.update(sample, dt);
        let re = self.re_sample(now, t_window);
        self.re.update(re, dt);
        self.last = Some(now);
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        self.idle_until(st.now, st);
        let by_be = Self::window_for(self.be.estimate, st);
        let by_re = Self::window_for(self.re.estimate, st);
        let Some(be_win) = by_be else {
            // No RTT sample yet: no estimate to rely on, react as NewReno.
            st.ssthresh = super::half_window(st);
            st.cwnd = if signal == Signal::Timeout { 1.0 } else { st.ssthresh };
            return;
        };
        let re_win = by_re.unwrap_or(0.0);
        self.last_ratio = if re_win > 0.0 { st.cwnd / re_win } else { f64::INFINITY };
        st.log.push(("westwood_ratio", self.last_ratio));
        st.log.push(("re_window", re_win));
        st.log.push(("be_window", be_win));
        match signal {
            Signal::Timeout => {
                st.cwnd = 1.0;
                st.ssthresh = be_win.max(2.0);
                self.last_used_re = false;
            }
            _ => {
                let use_re = match self.variant {
                    Variant::Be => false,
                    Variant::Re => true,
                    Variant::Crb => self.last_ratio > self.theta,
                };
                self.last_used_re = use_re;
                if self.variant == Variant::Crb {
                    st.log.push(("crb_uses_re", if use_re { 1.0 } else { 0.0 }));
                }
                let w = if use_re { re_win } else { be_win };
                st.ssthresh = w.max(2.0);
                if st.cwnd > st.ssthresh {
                    st.cwnd = st.ssthresh;
                }
            }
        }
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("be_bps", self.be.estimate));
        out.push(("re_bps", self.re.estimate));
        if self.variant == Variant::Crb {
            out.push(("crb_uses_re", if self.last_used_re { 1.0 } else { 0.0 }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_state;
    use crate::sim::secs;

    fn ack(acked: u64) -> AckSample {
        AckSample {
            acked,
            duplicate: false,
            rtt: None,
            rate: None,
        }
    }
    fn dup() -> AckSample {
        AckSample {
            acked: 0,
            duplicate: true,
            rtt: None,
            rate: None,
        }
    }

    #[test]
    fn tustin_coefficient_for_a_tenth_of_tau_is_19_over_21() {
        let mut f = TustinFilter::new(1.0, false);
        f.estimate = 21.0;
        f.prev_sample = 4.0;
        // b̂ = 19/21·21 + 2/21·(10+4)/2 = 19 + 2/3
        let e = f.update(10.0, 0.1);
        assert!((e - (19.0 + 2.0 / 3.0)).abs() < 1e-12, "{e}");
    }

    #[test]
    fn virtual_samples_decay_geometrically() {
        let mut f = TustinFilter::new(1.0, false);
        f.estimate = 100.0;
        f.prev_sample = 30.0;
        let m = 2.0;
        // First virtual step: (2m−1)/(2m+1)·b̂ + (0 + b_prev)/(2m+1)
        let e1 = f.update(0.0, 1.0 / m);
        assert!((e1 - (0.6 * 100.0 + 30.0 / 5.0)).abs() < 1e-12);
        let e2 = f.update(0.0, 1.0 / m);
        let e3 = f.update(0.0, 1.0 / m);
        assert!((e2 - 0.6 * e1).abs() < 1e-12 && (e3 - 0.6 * e2).abs() < 1e-12);
    }

    #[test]
    fn acked_count_credits_dupacks_once() {
        let mut c = AckedCount {
            accounted_for: 0,
            max_count: 0,
        };
        assert_eq!(c.count(&ack(1)), 1);
        assert_eq!(c.count(&ack(2)), 2, "delayed ACK counts two");
        // Loss: three dup ACKs, each one segment delivered.
        for _ in 0..3 {
            assert_eq!(c.count(&dup()), 1);
        }
        assert_eq!(c.accounted_for, 3);
        // Cumulative ACK for the retransmission covers 4 = 1 new + 3 already credited.
        assert_eq!(c.count(&ack(4)), 1);
        assert_eq!(c.accounted_for, 0);
        // Fewer credited than covered: the rest is new.
        c.count(&dup());
        assert_eq!(c.count(&ack(5)), 4);
        // The ns-2 module's cap.
        let mut capped = AckedCount {
            accounted_for: 0,
            max_count: 2,
        };
        assert_eq!(capped.count(&ack(10)), 2);
    }

    fn feed(w: &mut Westwood, st: &mut CcState, gap: f64, n: usize) {
        for _ in 0..n {
            st.now += secs(gap);
            w.on_ack_arrival(st, &ack(1));
        }
    }

    fn westwood(variant: Variant) -> Westwood {
        Westwood::new(variant, 1.0, 2.0, 4.0, 1.4, false, 0)
    }

    #[test]
    fn evenly_spaced_acks_converge_to_the_rate_for_both_estimators() {
        let mut w = westwood(Variant::Be);
        let mut st = test_state(10.0, 100.0);
        st.min_rtt = 0.1;
        // One 1000-byte segment per ms = 8 Mb/s.
        feed(&mut w, &mut st, 0.001, 20_000);
        assert!(
            (w.bandwidth_estimate() - 8e6).abs() / 8e6 < 0.01,
            "{}",
            w.bandwidth_estimate()
        );
        assert!((w.rate_estimate() - 8e6).abs() / 8e6 < 0.01, "{}", w.rate_estimate());
    }

    #[test]
    fn bursty_acks_make_be_overestimate_while_re_tracks_the_rate() {
        // Bursts of 10 ACKs 0.1 ms apart every 10 ms: the achieved rate is 8 Mb/s, the
        // back-to-back spacing says 80 Mb/s (the ACK-compression effect of section 4).
        let mut w = westwood(Variant::Be);
        let mut st = test_state(10.0, 100.0);
        st.min_rtt = 0.1;
        for _ in 0..2000 {
            feed(&mut w, &mut st, 0.0091, 1);
            feed(&mut w, &mut st, 0.0001, 9);
        }
        let rate = 8e6;
        assert!(w.bandwidth_estimate() > 1.5 * rate, "BE {}", w.bandwidth_estimate());
        assert!(
            (w.rate_estimate() - rate).abs() / rate < 0.05,
            "RE {}",
            w.rate_estimate()
        );
    }

    #[test]
    fn loss_reactions_follow_the_pseudo_code() {
        let mut w = westwood(Variant::Be);
        let mut st = test_state(30.0, 100.0);
        st.min_rtt = 0.1;
        feed(&mut w, &mut st, 0.001, 20_000); // 8 Mb/s → BE·RTTmin/seg = 100 segments
        let be_win = w.bandwidth_estimate() * 0.1 / 8000.0;
        // 3 dup ACKs with cwnd below the estimate: ssthresh = estimate, cwnd unchanged.
        w.on_congestion(&mut st, Signal::DupAcks);
        assert!((st.ssthresh - be_win).abs() < 1e-9);
        assert_eq!(st.cwnd, 30.0);
        // cwnd above it: cwnd = ssthresh.
        st.cwnd = 150.0;
        w.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(st.cwnd, st.ssthresh);
        // Timeout: cwnd 1, ssthresh from BE, at least 2.
        w.on_congestion(&mut st, Signal::Timeout);
        assert_eq!(st.cwnd, 1.0);
        assert!((st.ssthresh - be_win).abs() < 1e-9);
        let mut fresh = westwood(Variant::Be);
        let mut st2 = test_state(30.0, 100.0);
        st2.min_rtt = 0.1;
        fresh.on_congestion(&mut st2, Signal::Timeout);
        assert_eq!((st2.cwnd, st2.ssthresh), (1.0, 2.0), "zero estimate floors at 2");
    }

    #[test]
    fn crb_picks_re_under_congestion_and_be_for_random_loss() {
        let mut w = westwood(Variant::Crb);
        let mut st = test_state(10.0, 100.0);
        st.min_rtt = 0.1;
        feed(&mut w, &mut st, 0.001, 20_000); // RE·RTTmin = 100 segments
                                              // cwnd far above the pipe estimate: congestion, RE.
        st.cwnd = 200.0;
        w.on_congestion(&mut st, Signal::DupAcks);
        assert!(w.last_used_re);
        assert!((w.last_ratio - 2.0).abs() < 0.05);
        // cwnd close to the pipe estimate: random loss, BE.
        st.cwnd = 110.0;
        w.on_congestion(&mut st, Signal::DupAcks);
        assert!(!w.last_used_re);
        // Timeouts always use BE.
        st.cwnd = 200.0;
        w.on_congestion(&mut st, Signal::Timeout);
        assert!(!w.last_used_re);
        assert!(st.log.iter().any(|(n, _)| *n == "crb_uses_re"));
    }

    #[test]
    fn parameters_are_validated() {
        let mut p = Params::new();
        p.insert("m".into(), 1.0);
        let e = Westwood::create_be(&p).err().unwrap();
        assert!(e.contains("m = 1"), "{e}");
        let mut p = Params::new();
        p.insert("gamma".into(), 1.0);
        assert!(Westwood::create_crb(&p).err().unwrap().contains("allowed: tau, m"));
    }

    #[test]
    fn a_virtual_sample_step_below_a_microsecond_is_refused() {
        // tau / m = 1 ns would feed 10^9 virtual samples per idle second (a hang).
        let mut p = Params::new();
        p.insert("tau".into(), 1e-9);
        let e = Westwood::create_be(&p).err().unwrap();
        assert!(e.contains("tau / m") && e.contains(">= 0.000001 s"), "{e}");
        p.insert("tau".into(), f64::INFINITY);
        assert!(Westwood::create_be(&p).err().unwrap().contains("tau = inf"));
        p.insert("tau".into(), 1.0);
        p.insert("m".into(), 1e7);
        assert!(Westwood::create_re(&p).err().unwrap().contains("tau / m"));
        p.insert("m".into(), 1e6);
        assert!(Westwood::create_re(&p).is_ok(), "1 µs is allowed");
    }
}
