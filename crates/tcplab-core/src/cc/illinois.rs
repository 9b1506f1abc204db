//! TCP Illinois (Liu, Başar, Srikant: "TCP-Illinois: A Loss and Delay-Based Congestion
//! Control Algorithm for High-Speed Networks", VALUETOOLS 2006) with the rules and defaults of
//! Linux's `tcp_illinois.c` (2.6.22, ns-2.35 TCP-Linux): `illinois`.
//!
//! Loss decides the direction, delay the amount. From the RTT samples: baseRTT (the
//! minimum), maxRTT (the maximum), and once per round trip the average; d_m = maxRTT −
//! baseRTT, d_a = average − baseRTT. Once per round trip (when the data outstanding at the
//! previous update is acknowledged and one more segment):
//! - cwnd < `win_thresh` (15): α = 1, β = 1/2 (Reno);
//! - α: with d₁ = d_m/100, α = α_max while d_a ≤ d₁ (after a period above d₁, only after
//!   `theta` = 5 consecutive rounds at or below it), else α = κ₁/(κ₂ + d_a) through
//!   (d₁, α_max) and (d_m, α_min): α = α_max·(d_m − d₁)/((d_m − d₁) + (d_a − d₁)·(α_max −
//!   α_min)/α_min);
//! - β: β_min for d_a ≤ d₂ = d_m/10, β_max for d_a ≥ d₃ = 0.8·d_m, linear in between.
//! In congestion avoidance cwnd += α/cwnd per acknowledged segment (counted in whole
//! segments: +⌊counter·α/w⌋ once counter·α ≥ w). On a loss ssthresh = max(cwnd − ⌊cwnd·β⌋,
//! 2), the paper's W ← (1 − β)W, cwnd = ssthresh; a timeout also resets α = 1, β = 1/2.
//!
//! Illinois needs an RTT per ACK (the kernel times every segment): run it with
//! `tcp.timestamps = true`; without timestamps there is one sample per window.
//!
//! Parameters (`cc_params`): `alpha_min` = 0.3, `alpha_max` = 10, `beta_min` = 0.125,
//! `beta_max` = 0.5, `win_thresh` = 15, `theta` = 5, `linux_2622_ssthresh` = 0.
//!
//! In SACK recovery the window follows Linux's rate halving toward the module's `min_cwnd`
//! = ssthresh/2 (`tcp_reno_min_cwnd`; see `linux::MinCwnd`).
//!
//! Departures: α and β are floats (the kernel's fixed point makes α_min 38/128 = 0.297);
//! RTTs are not rounded to microseconds. Linux 2.6.22's module, and ns-2.35's copy of it,
//! compute ssthresh = max(⌊cwnd·β⌋, 2) — a window of cwnd/8 after a loss at low delay,
//! corrected in later kernels to cwnd − cwnd·β; `linux_2622_ssthresh = 1` reproduces it.
use super::linux::{self, param, param_flag, param_int, snd_cwnd, Rounds};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

const PARAMS: &[&str] = &[
    "alpha_min",
    "alpha_max",
    "beta_min",
    "beta_max",
    "win_thresh",
    "theta",
    "linux_2622_ssthresh",
];

#[derive(Debug, Clone)]
pub struct Illinois {
    alpha_min: f64,
    alpha_max: f64,
    beta_min: f64,
    beta_max: f64,
    win_thresh: u64,
    theta: u64,
    linux_2622_ssthresh: bool,
    sum_rtt: f64,
    cnt_rtt: u64,
    base_rtt: f64,
    max_rtt: f64,
    alpha: f64,
    beta: f64,
    acked: u64,
    rtt_above: bool,
    rtt_low: u64,
    rounds: Rounds,
    cwnd_cnt: u64,
    min_cwnd: linux::MinCwnd,
}

impl Illinois {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Ok(Box::new(Self::from_params(params)?))
    }

    pub fn from_params(params: &Params) -> Result<Illinois, String> {
        const N: &str = "illinois";
        check_params(N, params, PARAMS)?;
        let amin = param(N, params, "alpha_min", 0.3)?;
        let amax = param(N, params, "alpha_max", 10.0)?;
        let bmin = param(N, params, "beta_min", 0.125)?;
        let bmax = param(N, params, "beta_max", 0.5)?;
        if !(amin > 0.0) {
            return Err(format!("{N}: alpha_min = {amin} is not allowed; must be > 0"));
        }
        if !(amax >= amin) {
            return Err(format!(
                "{N}: alpha_max = {amax} is not allowed; must be >= alpha_min ({amin})"
            ));
        }
        if !(bmin > 0.0 && bmin < 1.0) {
            return Err(format!("{N}: beta_min = {bmin} is not allowed; must be in (0, 1)"));
        }
        if !(bmax >= bmin && bmax < 1.0) {
            return Err(format!(
                "{N}: beta_max = {bmax} is not allowed; must be in [beta_min ({bmin}), 1)"
            ));
        }
        let mut s = Illinois {
            alpha_min: amin,
            alpha_max: amax,
            beta_min: bmin,
            beta_max: bmax,
            win_thresh: param_int(N, params, "win_thresh", 15, 0, 1_000_000_000)?,
            theta: param_int(N, params, "theta", 5, 0, 1_000_000)?,
            linux_2622_ssthresh: param_flag(N, params, "linux_2622_ssthresh", false)?,
            sum_rtt: 0.0,
            cnt_rtt: 0,
            base_rtt: f64::INFINITY,
            max_rtt: 0.0,
            alpha: amax,
            beta: bmax,
            acked: 1,
            rtt_above: false,
            rtt_low: 0,
            rounds: Rounds::default(),
            cwnd_cnt: 0,
            min_cwnd: linux::MinCwnd::default(),
        };
        s.alpha = amax;
        Ok(s)
    }

    /// α for average and maximum queueing delays `da`, `dm` (kernel `alpha()`).
    fn alpha_for(&mut self, da: f64, dm: f64) -> f64 {
        let d1 = dm / 100.0;
        if da <= d1 {
            if !self.rtt_above {
                return self.alpha_max;
            }
            self.rtt_low += 1;
            if self.rtt_low < self.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return self.alpha_max;
        }
        self.rtt_above = true;
        let (dm, da) = (dm - d1, da - d1);
        dm * self.alpha_max / (dm + da * (self.alpha_max - self.alpha_min) / self.alpha_min)
    }

    /// β (kernel `beta()`).
    fn beta_for(&self, da: f64, dm: f64) -> f64 {
        let d2 = dm / 10.0;
        if da <= d2 {
            return self.beta_min;
        }
        let d3 = 0.8 * dm;
        if da >= d3 || d3 <= d2 {
            return self.beta_max;
        }
        (self.beta_min * d3 - self.beta_max * d2 + (self.beta_max - self.beta_min) * da) / (d3 - d2)
    }

    fn rtt_reset(&mut self, st: &CcState) {
        self.rounds.restart(st);
        self.cnt_rtt = 0;
        self.sum_rtt = 0.0;
    }

    fn update_params(&mut self, st: &CcState) {
        if snd_cwnd(st) < self.win_thresh {
            self.alpha = 1.0;
            self.beta = 0.5;
        } else if self.cnt_rtt > 0 {
            let dm = self.max_rtt - self.base_rtt;
            let da = self.sum_rtt / self.cnt_rtt as f64 - self.base_rtt;
            self.alpha = self.alpha_for(da, dm);
            self.beta = self.beta_for(da, dm);
        }
        self.cnt_rtt = 0;
        self.sum_rtt = 0.0;
    }
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        "illinois"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    /// The kernel's pkts_acked hook: every ACK that acknowledges data, recovery included.
    fn on_ack_arrival(&mut self, _st: &CcState, ack: &AckSample) {
        if ack.duplicate || ack.acked == 0 {
            return;
        }
        self.acked = ack.acked;
        self.rounds.add(ack.acked);
        if let Some(rtt) = ack.rtt {
            self.base_rtt = self.base_rtt.min(rtt);
            self.max_rtt = self.max_rtt.max(rtt);
            self.cnt_rtt += 1;
            self.sum_rtt += rtt;
        }
    }

    fn on_ack(&mut self, st: &mut CcState, _ack: &AckSample) {
        if self.rounds.check(st, true) {
            self.update_params(st);
        }
        if linux::in_slow_start(st) {
            linux::slow_start(st);
        } else {
            self.cwnd_cnt += self.acked;
            self.acked = 1;
            let w = snd_cwnd(st);
            let delta = crate::sim::floor(self.cwnd_cnt as f64 * self.alpha) as u64;
            if delta >= w {
                st.cwnd += (delta / w) as f64;
                self.cwnd_cnt = 0;
            }
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| {
            let w = snd_cwnd(st);
            let cut = crate::sim::floor(w as f64 * self.beta) as u64;
            if self.linux_2622_ssthresh {
                cut.max(2)
            } else {
                w.saturating_sub(cut).max(2)
            }
        });
        self.min_cwnd.on_congestion(st, signal);
        linux::apply_loss(st, signal, ssthresh);
        self.cwnd_cnt = 0;
        if signal == Signal::Timeout {
            self.alpha = 1.0;
            self.beta = 0.5;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.rtt_reset(st);
        }
    }

    fn on_recovery_ack(&mut self, st: &mut CcState, _ack: &AckSample) {
        self.min_cwnd.on_ack(st);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        st.cwnd = st.recovery_base;
        self.min_cwnd.stop();
    }

    fn tcp_linux(&self) -> bool {
        true
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("illinois_alpha", self.alpha));
        out.push(("illinois_beta", self.beta));
        out.push(("illinois_base_rtt", self.base_rtt));
        out.push(("illinois_max_rtt", self.max_rtt));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state};

    fn ill() -> Illinois {
        Illinois::from_params(&Params::new()).unwrap()
    }

    #[test]
    fn alpha_falls_from_10_to_0_3_with_the_average_delay() {
        let mut i = ill();
        let dm = 0.1;
        // no delay yet: α_max
        assert_eq!(i.alpha_for(0.0005, dm), 10.0);
        // d_a = d_m: α_min (κ₁/(κ₂ + d_m) = α_min by construction)
        assert!((i.alpha_for(dm, dm) - 0.3).abs() < 1e-12);
        // d_a = d_m/2: d₁ = 1 ms, (99·10)/(99 + 49·9.7/0.3) = 990/1683.33 = 0.5881 (ms units)
        assert!((i.alpha_for(0.05, dm) - 990.0 / (99.0 + 49.0 * 9.7 / 0.3)).abs() < 1e-9);
        // after a period above d₁, back to α_max only after theta = 5 low rounds
        i.alpha = 0.5;
        for _ in 0..4 {
            assert_eq!(i.alpha_for(0.0, dm), 0.5);
        }
        assert_eq!(i.alpha_for(0.0, dm), 10.0);
    }

    #[test]
    fn beta_rises_from_an_eighth_to_a_half() {
        let i = ill();
        let dm = 0.1;
        assert_eq!(i.beta_for(0.01, dm), 0.125);
        assert_eq!(i.beta_for(0.09, dm), 0.5);
        // halfway between d₂ = 10 ms and d₃ = 80 ms: (0.125 + 0.5)/2
        assert!((i.beta_for(0.045, dm) - 0.3125).abs() < 1e-12);
    }

    #[test]
    fn decrease_and_increase() {
        let mut i = ill();
        i.beta = 0.125;
        let mut st = test_state(100.0, 1e9);
        i.on_congestion(&mut st, Signal::DupAcks);
        // 100 − ⌊12.5⌋ = 88
        assert_eq!((st.ssthresh, st.cwnd), (88.0, 88.0));
        // Linux 2.6.22's rule: ⌊100·0.125⌋ = 12
        let mut p = Params::new();
        p.insert("linux_2622_ssthresh".into(), 1.0);
        let mut i2 = Illinois::from_params(&p).unwrap();
        i2.beta = 0.125;
        let mut st = test_state(100.0, 1e9);
        i2.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(st.ssthresh, 12.0);
        // α = 10 at w = 100: +1 after 10 segments (10·10 ≥ 100)
        let mut i = ill();
        let mut st = test_state(100.0, 50.0);
        st.flight = 100;
        let ack = AckSample {
            acked: 1,
            duplicate: false,
            rtt: None,
            rate: None,
        };
        for _ in 0..9 {
            i.on_ack_arrival(&st, &ack);
            i.on_ack(&mut st, &ack);
        }
        assert_eq!(st.cwnd, 100.0);
        i.on_ack_arrival(&st, &ack);
        i.on_ack(&mut st, &ack);
        assert_eq!(st.cwnd, 101.0);
        // below win_thresh the next round sets α = 1, β = 1/2
        let mut st = test_state(10.0, 5.0);
        let mut i = ill();
        i.on_ack(&mut st, &ack);
        assert_eq!((i.alpha, i.beta), (1.0, 0.5));
        // a timeout resets them
        let mut i = ill();
        i.alpha = 7.0;
        let mut st = test_state(100.0, 1e9);
        i.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((i.alpha, i.beta, st.cwnd, st.ssthresh), (1.0, 0.5, 1.0, 50.0));
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("alpha_max".into(), 0.1);
        assert_eq!(
            create("illinois", &p).err().unwrap(),
            "illinois: alpha_max = 0.1 is not allowed; must be >= alpha_min (0.3)"
        );
    }
}
