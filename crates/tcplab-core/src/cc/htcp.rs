//! H-TCP as Linux 2.6.22's `tcp_htcp.c` (ns-2.35 TCP-Linux): `htcp` (Leith, Shorten:
//! "H-TCP: TCP for high-speed and long-distance networks", PFLDnet 2004).
//!
//! The increase depends on Δ, the time since the last congestion event ended (the end of
//! fast recovery; Linux also restarts it when recovery begins): α_raw = 1 for Δ ≤ Δ_L = 1 s,
//! else 1 + ⌊10(Δ − Δ_L) + (Δ − Δ_L)²/4⌋; with RTT scaling α_raw ← ⌊α_raw·8/s⌋ (at least
//! 1) with s = ⌊0.8/RTTmin⌋ clamped to [4, 80] (α_raw·RTTmin/100 ms, the ratio clamped to
//! [0.5, 10]); α = 2·α_raw·(1 − β), in 1/128 (the kernel's fixed point). The window grows by
//! one once counter·α ≥ cwnd (counter = packets acknowledged since the last increase: cwnd
//! += α/cwnd per packet), and α is recomputed then.
//!
//! β adapts on each loss: β = RTTmin/RTTmax clamped to [`beta_min`, `beta_max`] = [0.5, 0.8]
//! (in 1/128: 64..102), but 0.5 on the first loss and whenever the achieved throughput's
//! maximum moved by more than 20 % since the previous loss (the bandwidth switch: not 4·B_old
//! ≤ 5·B ≤ 6·B_old). ssthresh = max(⌊cwnd·β⌋, 2), cwnd = ssthresh. RTTmin and RTTmax are
//! taken from srtt (the kernel's `measure_rtt`): RTTmax only in congestion avoidance more
//! than 3 RTTmin after the last congestion event and by steps of at most 20 ms; after each
//! loss it fades: RTTmax ← RTTmin + 0.95·(RTTmax − RTTmin). The throughput B is measured over
//! at least RTTmin once about a window has been acknowledged, B ← (3B + B_now)/4, reset in
//! the first 3 RTTmin after a congestion event.
//!
//! Parameters (`cc_params`): `use_rtt_scaling` = 1, `use_bandwidth_switch` = 1, `beta_min` =
//! 0.5, `beta_max` = 0.8.
//!
//! Departures from the kernel: continuous time (no jiffies; the integer parts of α's
//! formula are kept); the undo of
//! spurious reductions is not modelled; `tcp_is_cwnd_limited` is not checked.
use super::linux::{self, param_flag, param_in, snd_cwnd};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Phase, Recovery, Signal};

const PARAMS: &[&str] = &["use_rtt_scaling", "use_bandwidth_switch", "beta_min", "beta_max"];

#[derive(Debug, Clone)]
pub struct Htcp {
    use_rtt_scaling: bool,
    use_bandwidth_switch: bool,
    /// β bounds in 1/128.
    beta_min: u64,
    beta_max: u64,
    /// α and β in 1/128.
    alpha: u64,
    beta: u64,
    modeswitch: bool,
    pkts_acked: u64,
    packetcount: u64,
    /// seconds; 0 = none yet
    min_rtt: f64,
    max_rtt: f64,
    last_cong: f64,
    min_b: f64,
    max_b: f64,
    old_max_b: f64,
    bi: f64,
    lasttime: f64,
    cwnd_cnt: u64,
    loss: linux::LossState,
}

impl Htcp {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "htcp";
        check_params(N, params, PARAMS)?;
        let bmin = param_in(N, params, "beta_min", 0.5, 0.0, 1.0)?;
        let bmax = param_in(N, params, "beta_max", 0.8, 0.0, 1.0)?;
        let (lo, hi) = ((bmin * 128.0) as u64, (bmax * 128.0) as u64);
        if lo == 0 || lo >= 128 {
            return Err(format!("{N}: beta_min = {bmin} is not allowed; must be in [1/128, 1)"));
        }
        if hi < lo || hi >= 128 {
            return Err(format!(
                "{N}: beta_max = {bmax} is not allowed; must be in [beta_min ({bmin}), 1)"
            ));
        }
        let mut h = Htcp::new(lo, hi);
        h.use_rtt_scaling = param_flag(N, params, "use_rtt_scaling", true)?;
        h.use_bandwidth_switch = param_flag(N, params, "use_bandwidth_switch", true)?;
        Ok(Box::new(h))
    }

    pub fn new(beta_min: u64, beta_max: u64) -> Htcp {
        Htcp {
            use_rtt_scaling: true,
            use_bandwidth_switch: true,
            beta_min,
            beta_max,
            alpha: 128,
            beta: beta_min,
            modeswitch: false,
            pkts_acked: 1,
            packetcount: 0,
            min_rtt: 0.0,
            max_rtt: 0.0,
            last_cong: 0.0,
            min_b: 0.0,
            max_b: 0.0,
            old_max_b: 0.0,
            bi: 0.0,
            lasttime: 0.0,
            cwnd_cnt: 0,
            loss: linux::LossState::default(),
        }
    }

    /// Round trips (of RTTmin) since the last congestion event.
    fn ccount(&self, now: f64) -> u64 {
        if self.min_rtt > 0.0 {
            ((now - self.last_cong) / self.min_rtt) as u64
        } else {
            0
        }
    }

    fn beta_update(&mut self) {
        if self.use_bandwidth_switch {
            let (max_b, old) = (self.max_b, self.old_max_b);
            self.old_max_b = self.max_b;
            if !(4.0 * old <= 5.0 * max_b && 5.0 * max_b <= 6.0 * old) {
                self.beta = self.beta_min;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.min_rtt > 0.010 && self.max_rtt > 0.0 {
            self.beta = ((self.min_rtt * 128.0 / self.max_rtt) as u64).clamp(self.beta_min, self.beta_max);
        } else {
            self.beta = self.beta_min;
            self.modeswitch = true;
        }
    }

    /// α from the time since the last congestion event (Linux `htcp_alpha_update`).
    fn alpha_update(&mut self, now: f64) {
        let mut factor = 1u64;
        let diff = now - self.last_cong;
        if diff > 1.0 {
            let d = diff - 1.0;
            factor = 1 + crate::sim::floor(10.0 * d + d * d / 4.0) as u64;
        }
        if self.use_rtt_scaling && self.min_rtt > 0.0 {
            let scale = (crate::sim::floor(0.8 / self.min_rtt) as u64).clamp(4, 80);
            factor = ((factor << 3) / scale).max(1);
        }
        self.alpha = 2 * factor * (128 - self.beta);
        if self.alpha == 0 {
            self.alpha = 128;
        }
    }

    fn measure_rtt(&mut self, st: &CcState, now: f64) {
        let srtt = st.srtt;
        if srtt <= 0.0 {
            return;
        }
        if self.min_rtt == 0.0 || self.min_rtt > srtt {
            self.min_rtt = srtt;
        }
        if st.ssthresh < 65535.0 && self.ccount(now) > 3 {
            if self.max_rtt < self.min_rtt {
                self.max_rtt = self.min_rtt;
            }
            if self.max_rtt < srtt && srtt <= self.max_rtt + 0.020 {
                self.max_rtt = srtt;
            }
        }
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn init(&mut self, st: &mut CcState) {
        st.cwnd = st.init_cwnd;
        st.ssthresh = st.init_ssthresh;
        self.last_cong = linux::now_secs(st);
    }

    fn on_switch_in(&mut self, st: &mut CcState) {
        self.last_cong = linux::now_secs(st);
    }

    /// `measure_achieved_throughput` (the kernel's pkts_acked hook).
    fn on_ack_arrival(&mut self, st: &CcState, ack: &AckSample) {
        if ack.duplicate || ack.acked == 0 {
            return;
        }
        let now = linux::now_secs(st);
        let open = matches!(st.phase, Phase::SlowStart | Phase::CongestionAvoidance) && !self.loss.active();
        if open {
            self.pkts_acked = ack.acked;
        }
        if !self.use_bandwidth_switch {
            return;
        }
        if !open {
            self.packetcount = 0;
            self.lasttime = now;
            return;
        }
        self.packetcount += ack.acked;
        let alpha_segments = (self.alpha >> 7).max(1);
        if self.packetcount + alpha_segments >= snd_cwnd(st)
            && now - self.lasttime >= self.min_rtt
            && self.min_rtt > 0.0
        {
            let cur = self.packetcount as f64 / (now - self.lasttime);
            if self.ccount(now) <= 3 {
                self.min_b = cur;
                self.max_b = cur;
                self.bi = cur;
            } else {
                self.bi = (3.0 * self.bi + cur) / 4.0;
                self.max_b = self.max_b.max(self.bi);
                self.min_b = self.min_b.min(self.max_b);
            }
            self.packetcount = 0;
            self.lasttime = now;
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let now = linux::now_secs(st);
        if self.loss.on_ack(ack.acked) && !self.loss.active() {
            // the Loss state ends: back to open (Linux `htcp_state`)
            self.last_cong = now;
        }
        if linux::in_slow_start(st) {
            linux::slow_start(st);
        } else {
            self.measure_rtt(st, now);
            if (self.cwnd_cnt * self.alpha) >> 7 >= snd_cwnd(st) {
                st.cwnd += 1.0;
                self.cwnd_cnt = 0;
                self.alpha_update(now);
            } else {
                self.cwnd_cnt += self.pkts_acked;
            }
            self.pkts_acked = 1;
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| {
            self.beta_update();
            self.alpha_update(linux::now_secs(st));
            if self.min_rtt > 0.0 && self.max_rtt > self.min_rtt {
                self.max_rtt = self.min_rtt + (self.max_rtt - self.min_rtt) * 0.95;
            }
            ((snd_cwnd(st) * self.beta) >> 7).max(2)
        });
        linux::apply_loss(st, signal, ssthresh);
        self.cwnd_cnt = 0;
        self.last_cong = linux::now_secs(st);
        self.loss.on_signal(st, signal);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        st.cwnd = st.recovery_base;
        self.last_cong = linux::now_secs(st);
    }

    fn tcp_linux(&self) -> bool {
        true
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("htcp_alpha", self.alpha as f64 / 128.0));
        out.push(("htcp_beta", self.beta as f64 / 128.0));
        out.push(("htcp_last_cong", self.last_cong));
        out.push(("htcp_min_rtt", self.min_rtt));
        out.push(("htcp_max_rtt", self.max_rtt));
        out.push(("htcp_max_b", self.max_b));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state};

    fn at(delta: f64, min_rtt: f64, beta: u64) -> f64 {
        let mut h = Htcp::new(64, 102);
        h.beta = beta;
        h.min_rtt = min_rtt;
        h.last_cong = 100.0;
        h.alpha_update(100.0 + delta);
        h.alpha as f64 / 128.0
    }

    #[test]
    fn alpha_follows_delta_with_rtt_scaling() {
        // Δ ≤ 1 s: α_raw = 1, RTT 100 ms: scale 8 → 1; α = 2·1·(1 − 0.5) = 1 (Reno).
        assert_eq!(at(0.5, 0.1, 64), 1.0);
        // Δ = 3 s: α_raw = 1 + 10·2 + 2²/4 = 22 (the paper's 1 + 10(Δ−Δ_L) + ((Δ−Δ_L)/2)²);
        // at RTTmin 100 ms α = 2·22·0.5 = 22.
        assert_eq!(at(3.0, 0.1, 64), 22.0);
        // RTTmin 200 ms: scale ⌊0.8/0.2⌋ = 4 → 22·8/4 = 44.
        assert_eq!(at(3.0, 0.2, 64), 44.0);
        // RTTmin 10 ms: scale 80 → ⌊22·8/80⌋ = 2.
        assert_eq!(at(3.0, 0.01, 64), 2.0);
        // RTTmin 1 s: scale clamped to 4 (ratio 10... 0.5 in the other direction: ×2).
        assert_eq!(at(3.0, 1.0, 64), 44.0);
        // β = 102/128: α = 2·22·(128 − 102)/128 = 8.9375.
        assert_eq!(at(3.0, 0.1, 102), 8.9375);
        // Without RTT scaling, RTTmin 200 ms keeps 22.
        let mut h = Htcp::new(64, 102);
        h.use_rtt_scaling = false;
        h.min_rtt = 0.2;
        h.alpha_update(3.0);
        assert_eq!(h.alpha, 2 * 22 * 64);
    }

    #[test]
    fn beta_adapts_to_the_rtt_ratio_after_the_first_loss() {
        let mut h = Htcp::new(64, 102);
        h.use_bandwidth_switch = false;
        h.min_rtt = 0.1;
        h.max_rtt = 0.15;
        let mut st = test_state(100.0, 1e9);
        h.on_congestion(&mut st, Signal::DupAcks);
        // first loss: β = 0.5, ssthresh = 50
        assert_eq!((h.beta, st.ssthresh), (64, 50.0));
        // RTTmax faded: 0.1 + 0.95·0.05 = 0.1475
        assert!((h.max_rtt - 0.1475).abs() < 1e-12);
        st.cwnd = 100.0;
        h.on_congestion(&mut st, Signal::DupAcks);
        // β = ⌊128·0.1/0.1475⌋ = 86 (0.672); ssthresh = ⌊100·86/128⌋ = 67
        assert_eq!((h.beta, st.ssthresh), (86, 67.0));
        // a ratio of 0.9 is clamped to 0.8 (102)
        h.max_rtt = 0.1 / 0.9;
        st.cwnd = 100.0;
        h.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((h.beta, st.ssthresh), (102, 79.0));
        // the bandwidth switch: max throughput moved by > 20 % → 0.5 again
        h.use_bandwidth_switch = true;
        h.old_max_b = 1000.0;
        h.max_b = 1000.0;
        st.cwnd = 100.0;
        h.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(h.beta, 102, "stable throughput keeps the RTT ratio");
        h.max_b = 1300.0;
        st.cwnd = 100.0;
        h.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((h.beta, st.ssthresh), (64, 50.0));
    }

    #[test]
    fn the_window_grows_by_alpha_over_cwnd_per_packet() {
        // α = 2 (256/128), w = 10: the counter must reach 5 (5·2 ≥ 10): +1 at the 6th ACK.
        let mut h = Htcp::new(64, 102);
        h.alpha = 256;
        h.use_bandwidth_switch = false;
        let mut st = test_state(10.0, 5.0);
        let ack = AckSample {
            acked: 1,
            duplicate: false,
            rtt: None,
            rate: None,
        };
        for _ in 0..5 {
            h.on_ack(&mut st, &ack);
        }
        assert_eq!(st.cwnd, 10.0);
        h.on_ack(&mut st, &ack);
        assert_eq!(st.cwnd, 11.0);
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("beta_max".into(), 0.4);
        assert_eq!(
            create("htcp", &p).err().unwrap(),
            "htcp: beta_max = 0.4 is not allowed; must be in [beta_min (0.5), 1)"
        );
    }
}
