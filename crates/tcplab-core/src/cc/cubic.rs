//! CUBIC as RFC 9438 (`cubic`), with HyStart++ (RFC 9406) as an option. For the Linux
//! 2.6.22 module that ns-2.35's TCP-Linux and the thesis use, see `cubic_linux`.
//!
//! In congestion avoidance, with t the time since the epoch began (the first ACK of
//! congestion avoidance after a congestion event) and RTT = srtt:
//! - W_cubic(t) = C·(t − K)³ + W_max, K = ∛((W_max − cwnd_epoch)/C);
//! - target = W_cubic(t + RTT) clamped to [cwnd, 1.5·cwnd]; cwnd += (target − cwnd)/cwnd
//!   per new ACK (§4.4, §4.5);
//! - Reno-friendly region (§4.3): W_est starts at cwnd_epoch and grows by
//!   α·segments_acked/cwnd, α = 3(1 − β)/(1 + β) until W_est ≥ cwnd_prior (the window before
//!   the last reduction), then 1; when W_cubic(t) < W_est, cwnd = W_est.
//! - On a congestion event (§4.6, §4.7): W_max = cwnd, or cwnd·(1 + β)/2 if cwnd < W_max
//!   (fast convergence); ssthresh = max(cwnd·β, 2), cwnd = ssthresh. RFC 9438 takes the
//!   flight size; we take cwnd, as its §4.6 notes implementations do.
//! - Timeout (§4.8): the same ssthresh and W_max, cwnd = 1; the first congestion avoidance
//!   after it runs with K = 0 and W_max = the window at its start.
//! - No loss yet (the initial slow start ended by ssthresh or by HyStart++): the epoch
//!   starts with K = 0 and W_max = cwnd_epoch (the concave part is skipped).
//!
//! Slow start: +1 segment per new ACK; with `hystart = 1` the initial slow start (ssthresh
//! still at its initial value) runs HyStart++ (RFC 9406 §4.2–4.3): per round (a window of
//! data), the minimum of the RTT samples; once a round has N_RTT_SAMPLE = 8 samples and its
//! minimum exceeds the previous round's by RttThresh = max(4 ms, min(lastRoundMinRTT/8,
//! 16 ms)), Conservative Slow Start: growth divided by CSS_GROWTH_DIVISOR = 4 for up to
//! CSS_ROUNDS = 5 rounds, then ssthresh = cwnd (congestion avoidance); back to slow start if
//! a CSS round's minimum RTT falls below the baseline. Growth per ACK is min(acked, L)
//! segments. HyStart++ needs an RTT sample on most ACKs: run it with `tcp.timestamps = true`
//! (without timestamps there is one sample per window and it never leaves slow start early).
//!
//! Parameters (`cc_params`): `beta` = 0.7, `c` = 0.4, `fast_convergence` = 1,
//! `reno_friendly` = 1, `hystart` = 0, `hystart_l` = 8 (RFC 9406's L for a sender without
//! pacing, segments).
use super::linux::{now_secs, param_flag, param_in, Rounds};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

const PARAMS: &[&str] = &["beta", "c", "fast_convergence", "reno_friendly", "hystart", "hystart_l"];

/// RFC 9406 constants.
const MIN_RTT_THRESH: f64 = 0.004;
const MAX_RTT_THRESH: f64 = 0.016;
const MIN_RTT_DIVISOR: f64 = 8.0;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlowStart {
    /// Standard slow start (HyStart++ watching, if on).
    Standard,
    /// Conservative Slow Start, with the rounds completed in it.
    Css(u32),
    /// HyStart++ is over (a congestion event, or CSS ended in congestion avoidance).
    Off,
}

#[derive(Debug, Clone)]
pub struct Cubic {
    beta: f64,
    c: f64,
    fast_convergence: bool,
    reno_friendly: bool,
    hystart: bool,
    hystart_l: f64,
    /// 0 = no congestion event yet.
    w_max: f64,
    cwnd_prior: f64,
    k: f64,
    /// The W(t) origin of the current epoch (W_max, or cwnd_epoch when it is above W_max).
    origin: f64,
    epoch_start: Option<f64>,
    w_est: f64,
    target: f64,
    after_timeout: bool,
    // HyStart++
    ss: SlowStart,
    rounds: Rounds,
    last_round_min_rtt: f64,
    current_round_min_rtt: f64,
    rtt_sample_count: u32,
    css_baseline_min_rtt: f64,
}

impl Cubic {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Ok(Box::new(Self::from_params(params)?))
    }

    pub fn from_params(params: &Params) -> Result<Cubic, String> {
        const N: &str = "cubic";
        check_params(N, params, PARAMS)?;
        let beta = param_in(N, params, "beta", 0.7, 0.0, 1.0)?;
        if beta <= 0.0 || beta >= 1.0 {
            return Err(format!("{N}: beta = {beta} is not allowed; must be in (0, 1)"));
        }
        let c = param_in(N, params, "c", 0.4, 0.0, 1e6)?;
        if c <= 0.0 {
            return Err(format!("{N}: c = {c} is not allowed; must be > 0"));
        }
        let l = param_in(N, params, "hystart_l", 8.0, 1.0, 1e9)?;
        let mut s = Cubic::new(beta, c);
        s.fast_convergence = param_flag(N, params, "fast_convergence", true)?;
        s.reno_friendly = param_flag(N, params, "reno_friendly", true)?;
        s.hystart = param_flag(N, params, "hystart", false)?;
        s.hystart_l = l;
        Ok(s)
    }

    pub fn new(beta: f64, c: f64) -> Cubic {
        Cubic {
            beta,
            c,
            fast_convergence: true,
            reno_friendly: true,
            hystart: false,
            hystart_l: 8.0,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            origin: 0.0,
            epoch_start: None,
            w_est: 0.0,
            target: f64::NAN,
            after_timeout: false,
            ss: SlowStart::Standard,
            rounds: Rounds::default(),
            last_round_min_rtt: f64::INFINITY,
            current_round_min_rtt: f64::INFINITY,
            rtt_sample_count: 0,
            css_baseline_min_rtt: f64::INFINITY,
        }
    }

    /// α of the Reno-friendly region.
    fn alpha(&self) -> f64 {
        if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        }
    }

    /// W_cubic(t), t in seconds since the epoch began.
    pub fn w_cubic(&self, t: f64) -> f64 {
        self.c * (t - self.k).powi(3) + self.origin
    }

    fn start_epoch(&mut self, cwnd: f64, now: f64) {
        self.epoch_start = Some(now);
        if self.w_max <= cwnd || self.after_timeout {
            self.k = 0.0;
            self.origin = cwnd;
        } else {
            self.k = ((self.w_max - cwnd) / self.c).cbrt();
            self.origin = self.w_max;
        }
        self.after_timeout = false;
        self.w_est = cwnd;
    }

    fn congestion_avoidance(&mut self, st: &mut CcState, ack: &AckSample) {
        let now = now_secs(st);
        if self.epoch_start.is_none() {
            self.start_epoch(st.cwnd, now);
        }
        let t = now - self.epoch_start.unwrap_or(now);
        let rtt = if st.srtt > 0.0 { st.srtt } else { 0.0 };
        let target = self.w_cubic(t + rtt).clamp(st.cwnd, 1.5 * st.cwnd);
        self.target = target;
        let segments = ack.acked.max(1) as f64;
        self.w_est += self.alpha() * segments / st.cwnd;
        if self.reno_friendly && self.w_cubic(t) < self.w_est {
            st.cwnd = self.w_est;
        } else {
            st.cwnd += (target - st.cwnd) / st.cwnd;
        }
    }

    /// Slow start, with HyStart++ during the initial one when it is on.
    fn slow_start(&mut self, st: &mut CcState, ack: &AckSample) {
        let hystart = self.hystart && self.ss != SlowStart::Off && st.ssthresh >= st.init_ssthresh;
        if !hystart {
            st.cwnd += 1.0;
            return;
        }
        if self.rounds.on_ack(st, ack.acked, false) {
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = f64::INFINITY;
            self.rtt_sample_count = 0;
            if let SlowStart::Css(n) = self.ss {
                self.ss = SlowStart::Css(n + 1);
                if n + 1 >= CSS_ROUNDS {
                    // CSS is over: congestion avoidance from here.
                    self.ss = SlowStart::Off;
                    st.ssthresh = st.cwnd;
                    st.log.push(("hystart_css_end", st.cwnd));
                    return;
                }
            }
        }
        if let Some(rtt) = ack.rtt {
            self.current_round_min_rtt = self.current_round_min_rtt.min(rtt);
            self.rtt_sample_count += 1;
        }
        let growth = (ack.acked.max(1) as f64).min(self.hystart_l);
        let enough = self.rtt_sample_count >= N_RTT_SAMPLE && self.current_round_min_rtt.is_finite();
        match self.ss {
            SlowStart::Standard => {
                st.cwnd += growth;
                if enough && self.last_round_min_rtt.is_finite() {
                    let thresh = MIN_RTT_THRESH.max((self.last_round_min_rtt / MIN_RTT_DIVISOR).min(MAX_RTT_THRESH));
                    if self.current_round_min_rtt >= self.last_round_min_rtt + thresh {
                        self.css_baseline_min_rtt = self.current_round_min_rtt;
                        self.ss = SlowStart::Css(0);
                        st.log.push(("hystart_css", st.cwnd));
                    }
                }
            }
            SlowStart::Css(_) => {
                st.cwnd += growth / CSS_GROWTH_DIVISOR;
                if enough && self.current_round_min_rtt < self.css_baseline_min_rtt {
                    self.css_baseline_min_rtt = f64::INFINITY;
                    self.ss = SlowStart::Standard;
                    st.log.push(("hystart_resume", st.cwnd));
                }
            }
            SlowStart::Off => {}
        }
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if st.cwnd < st.ssthresh {
            self.slow_start(st, ack);
        } else {
            self.congestion_avoidance(st, ack);
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let w = st.cwnd.min(st.rwnd);
        self.epoch_start = None;
        self.ss = SlowStart::Off;
        self.w_max = if self.fast_convergence && w < self.w_max {
            w * (1.0 + self.beta) / 2.0
        } else {
            w
        };
        self.cwnd_prior = w;
        st.ssthresh = (w * self.beta).max(2.0);
        st.cwnd = match signal {
            Signal::Timeout => {
                self.after_timeout = true;
                1.0
            }
            _ => st.ssthresh,
        };
        st.recovery_base = st.cwnd;
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("cubic_w_max", self.w_max));
        out.push(("cubic_k", self.k));
        out.push(("cubic_origin", self.origin));
        out.push(("cubic_epoch_start", self.epoch_start.unwrap_or(f64::NAN)));
        out.push(("cubic_target", self.target));
        out.push(("cubic_w_est", self.w_est));
        if self.hystart {
            let s = match self.ss {
                SlowStart::Standard => 0.0,
                SlowStart::Css(_) => 1.0,
                SlowStart::Off => 2.0,
            };
            out.push(("hystart_state", s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state};
    use crate::sim::secs;

    fn ack(rtt: Option<f64>) -> AckSample {
        AckSample {
            acked: 1,
            duplicate: false,
            rtt,
            rate: None,
        }
    }

    #[test]
    fn loss_keeps_seven_tenths_and_fast_convergence_lowers_w_max() {
        let mut cc = Cubic::new(0.7, 0.4);
        let mut st = test_state(100.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((cc.w_max, st.ssthresh, st.cwnd), (100.0, 70.0, 70.0));
        // A loss below W_max: W_max = 90·(1 + 0.7)/2 = 76.5.
        st.cwnd = 90.0;
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert!((cc.w_max - 76.5).abs() < 1e-12);
        assert!((st.ssthresh - 63.0).abs() < 1e-12);
        // Timeout: same ssthresh rule, cwnd = 1.
        st.cwnd = 50.0;
        cc.on_congestion(&mut st, Signal::Timeout);
        assert_eq!(st.cwnd, 1.0);
        assert!((st.ssthresh - 35.0).abs() < 1e-12);
    }

    #[test]
    fn w_cubic_at_given_times_for_w_max_100() {
        // W_max = 100, cwnd_epoch = 70: K = ∛((100 − 70)/0.4) = ∛75 = 4.2172 s.
        // W(0) = 70, W(K) = 100, W(K + 1) = 100.4, W(K + 5) = 100 + 0.4·125 = 150,
        // W(2) = 100 + 0.4·(2 − 4.2172)³ = 100 − 4.3599 = 95.640.
        let mut cc = Cubic::new(0.7, 0.4);
        cc.w_max = 100.0;
        cc.start_epoch(70.0, 0.0);
        assert!((cc.k - 75f64.cbrt()).abs() < 1e-12);
        assert!((cc.k - 4.2172).abs() < 1e-4);
        assert!((cc.w_cubic(0.0) - 70.0).abs() < 1e-9);
        assert!((cc.w_cubic(cc.k) - 100.0).abs() < 1e-12);
        assert!((cc.w_cubic(cc.k + 1.0) - 100.4).abs() < 1e-9);
        assert!((cc.w_cubic(cc.k + 5.0) - 150.0).abs() < 1e-9);
        assert!((cc.w_cubic(2.0) - 95.640).abs() < 1e-3, "{}", cc.w_cubic(2.0));
    }

    #[test]
    fn concave_growth_toward_w_max_follows_the_target() {
        // Loss at 100 → cwnd 70, K = ∛75 = 4.2172 s, RTT 1 s. The epoch's first ACK (t = 0):
        // W_cubic(0) = 70 = W_est before it grows, so W_est = 70 + α/70 (α = 0.9/1.7) rules:
        // cwnd = c1 = 70.00756. One second later W_cubic(1) = 100 + 0.4·(1 − 4.2172)³ =
        // 86.68 > W_est: the cubic rule, target = W_cubic(1 + 1) = 95.640, cwnd = c1 +
        // (95.640 − c1)/c1 = 70.3737.
        let mut cc = Cubic::new(0.7, 0.4);
        let mut st = test_state(100.0, 1e9);
        st.srtt = 1.0;
        cc.on_congestion(&mut st, Signal::DupAcks);
        st.now = secs(10.0);
        cc.on_ack(&mut st, &ack(None));
        let c1 = 70.0 + 0.9 / 1.7 / 70.0;
        assert!((st.cwnd - c1).abs() < 1e-12, "{}", st.cwnd);
        st.now = secs(11.0);
        cc.on_ack(&mut st, &ack(None));
        assert!((cc.target - 95.640).abs() < 1e-3, "{}", cc.target);
        assert!((st.cwnd - (c1 + (cc.target - c1) / c1)).abs() < 1e-12);
        assert!((st.cwnd - 70.3737).abs() < 1e-4, "{}", st.cwnd);
        // Far above the origin the target is clamped to 1.5·cwnd.
        st.now = secs(40.0);
        let before = st.cwnd;
        cc.on_ack(&mut st, &ack(None));
        assert_eq!(cc.target, 1.5 * before);
        assert!((st.cwnd - (before + 0.5)).abs() < 1e-12);
    }

    #[test]
    fn reno_friendly_region_takes_over_at_small_rtt() {
        // W_max = 71, cwnd 70 in congestion avoidance, RTT 1 ms, one ACK per ms: K =
        // ∛(1/0.4) = 1.357 s and W_cubic stays below 71 for 0.7 s (W_cubic(0.699) = 71 +
        // 0.4·(0.699 − 1.357)³ = 70.886), while W_est grows by α/cwnd per ACK, α = 3·0.3/1.7
        // = 0.5294 (W_est below cwnd_prior = 100): cwnd = W_est, and since dW/dn = α/W,
        // W² grows by 2α per ACK: after 700 ACKs W = √(70² + 700·2·0.5294) ≈ 75.11.
        let mut cc = Cubic::new(0.7, 0.4);
        cc.w_max = 71.0;
        cc.cwnd_prior = 100.0;
        let mut st = test_state(70.0, 70.0);
        st.srtt = 0.001;
        for i in 0..700 {
            st.now = secs(1.0 + i as f64 * 0.001);
            cc.on_ack(&mut st, &ack(None));
        }
        assert!((cc.k - 2.5f64.cbrt()).abs() < 1e-12);
        assert!(cc.w_cubic(0.699) < 70.9);
        assert_eq!(st.cwnd, cc.w_est, "the Reno-friendly window rules");
        let expected = (70.0f64 * 70.0 + 700.0 * 2.0 * 0.9 / 1.7).sqrt();
        assert!((st.cwnd - expected).abs() < 0.01, "{} vs {expected}", st.cwnd);
        // Without the region the cubic rule keeps it near W_max.
        let mut cc2 = Cubic::new(0.7, 0.4);
        cc2.reno_friendly = false;
        cc2.w_max = 71.0;
        let mut st2 = test_state(70.0, 70.0);
        st2.srtt = 0.001;
        for i in 0..700 {
            st2.now = secs(1.0 + i as f64 * 0.001);
            cc2.on_ack(&mut st2, &ack(None));
        }
        assert!(st2.cwnd < 71.0, "{}", st2.cwnd);
    }

    #[test]
    fn alpha_becomes_one_once_w_est_reaches_the_window_before_the_reduction() {
        let mut cc = Cubic::new(0.7, 0.4);
        cc.cwnd_prior = 100.0;
        cc.w_est = 99.0;
        assert!((cc.alpha() - 0.9 / 1.7).abs() < 1e-12);
        cc.w_est = 100.0;
        assert_eq!(cc.alpha(), 1.0);
    }

    #[test]
    fn after_a_timeout_the_epoch_starts_with_k_zero() {
        let mut cc = Cubic::new(0.7, 0.4);
        let mut st = test_state(100.0, 1e9);
        cc.on_congestion(&mut st, Signal::Timeout);
        st.cwnd = 70.0;
        st.srtt = 0.1;
        cc.on_ack(&mut st, &ack(None));
        assert_eq!((cc.k, cc.origin), (0.0, 70.0));
    }

    /// Feeds one round of `n` ACKs with RTT `rtt` (flight n so a round is n ACKs).
    fn round(cc: &mut Cubic, st: &mut CcState, n: u64, rtt: f64) {
        for _ in 0..n {
            st.flight = n;
            cc.on_ack(st, &ack(Some(rtt)));
        }
    }

    #[test]
    fn hystart_plus_plus_enters_css_on_delay_increase_and_ends_in_ca_after_five_rounds() {
        let mut p = Params::new();
        p.insert("hystart".into(), 1.0);
        let mut cc = Cubic::from_params(&p).unwrap();
        let mut st = test_state(10.0, 1e9);
        st.init_ssthresh = 1e9;
        // Round 1: RTT 100 ms. Round 2: 105 ms < 100 + max(4, min(12.5, 16)) = 112.5 ms.
        round(&mut cc, &mut st, 10, 0.100);
        round(&mut cc, &mut st, 10, 0.105);
        assert_eq!(cc.ss, SlowStart::Standard);
        assert_eq!(st.cwnd, 30.0, "+1 per ACK");
        // Round 3: 113 ms ≥ 105 + 13.125 ms? No (118.1). Round 4: 120 ms ≥ 113 + 14.125 =
        // 127.1? No. Make it 130 ms: ≥ 127.1 → CSS at its 8th sample.
        round(&mut cc, &mut st, 10, 0.113);
        assert_eq!(cc.ss, SlowStart::Standard);
        round(&mut cc, &mut st, 10, 0.130);
        assert_eq!(cc.ss, SlowStart::Css(0));
        // three rounds of +1 per ACK (10 → 40), then 8 ACKs at +1, 2 at +1/4: 48.5.
        assert_eq!(st.cwnd, 48.5);
        assert!(st.log.iter().any(|(n, _)| *n == "hystart_css"));
        // Five CSS rounds at a quarter of the growth, RTT steady: then ssthresh = cwnd.
        for _ in 0..4 {
            round(&mut cc, &mut st, 10, 0.130);
        }
        assert!(matches!(cc.ss, SlowStart::Css(4)), "{:?}", cc.ss);
        let w = st.cwnd;
        assert_eq!(w, 48.5 + 4.0 * 10.0 / 4.0);
        st.flight = 10;
        cc.on_ack(&mut st, &ack(Some(0.130)));
        assert_eq!(cc.ss, SlowStart::Off);
        assert_eq!(st.ssthresh, w);
    }

    #[test]
    fn hystart_css_returns_to_slow_start_when_the_rtt_falls_below_the_baseline() {
        let mut p = Params::new();
        p.insert("hystart".into(), 1.0);
        let mut cc = Cubic::from_params(&p).unwrap();
        let mut st = test_state(10.0, 1e9);
        round(&mut cc, &mut st, 10, 0.100);
        round(&mut cc, &mut st, 10, 0.120);
        assert_eq!(cc.ss, SlowStart::Css(0));
        // baseline 120 ms; next round 110 ms < 120 → resume slow start after 8 samples
        round(&mut cc, &mut st, 10, 0.110);
        assert_eq!(cc.ss, SlowStart::Standard);
        // without hystart the same delays change nothing
        let mut cc = Cubic::new(0.7, 0.4);
        let mut st = test_state(10.0, 1e9);
        round(&mut cc, &mut st, 10, 0.100);
        round(&mut cc, &mut st, 10, 0.200);
        assert_eq!(st.cwnd, 30.0);
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("beta".into(), 1.0);
        assert_eq!(
            create("cubic", &p).err().unwrap(),
            "cubic: beta = 1 is not allowed; must be in (0, 1)"
        );
        let mut p = Params::new();
        p.insert("hystart".into(), 0.5);
        assert_eq!(
            create("cubic", &p).err().unwrap(),
            "cubic: hystart = 0.5 is not allowed; must be 0 or 1"
        );
        let mut p = Params::new();
        p.insert("hystart_l".into(), 0.0);
        assert!(create("cubic", &p).err().unwrap().contains("hystart_l = 0"));
        let mut p = Params::new();
        p.insert("max_increment".into(), 16.0);
        assert!(create("cubic", &p)
            .err()
            .unwrap()
            .contains("allowed: beta, c, fast_convergence"));
    }
}
