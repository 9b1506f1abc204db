//! CUBIC v2.1 as Linux 2.6.22's `tcp_cubic.c`, the module ns-2.35's TCP-Linux ships and the
//! thesis simulated (Rhee, Xu: "CUBIC: A New TCP-Friendly High-Speed TCP Variant",
//! PFLDnet 2005): `cubic_linux`. For RFC 9438's CUBIC see `cubic`.
//!
//! The window follows W(t) = C·(t − K)³ + W_max, K = ∛((W_max − cwnd_epoch)/C), t the time
//! since the first ACK of congestion avoidance after a loss, plus the minimum RTT (the
//! target is the window one RTT ahead). Per ACK in congestion avoidance the module computes
//! `cnt`, the ACKs per one-segment increase: cwnd/(target − cwnd), 100·cwnd when the target
//! is not above cwnd; at most 16·(RTTmin/0.1 s) segments per RTT above W_max
//! (`max_increment`); 50 before the first loss; at most what the TCP-friendly estimate needs
//! (tcp_cwnd grows by one per cwnd·β_scale/8 ACKs, β_scale = 8(1024+β)/(3(1024−β)) = 23 in
//! integer arithmetic, i.e. ≈ 1/3 segment per RTT, Reno's rate for a 0.8 decrease); scaled
//! by the smoothed packets-per-ACK ratio (delayed ACKs). The window grows by one when the
//! counter `snd_cwnd_cnt` has reached `cnt` (every cnt + 1 ACKs). On loss: ssthresh =
//! max(cwnd·β/1024, 2) with β = 819 (× 0.8), W_max = cwnd, or cwnd·(1024 + β)/2048 when
//! cwnd < W_max (fast convergence). A timeout resets the module's state (Linux
//! `bictcp_reset` on entering the Loss state), so W_max is forgotten. Slow start is the
//! standard one (+1 per ACK while cwnd ≤ ssthresh), without HyStart (2.6.22 has none).
//!
//! Parameters (`cc_params`): `beta` = 819/1024 (the window after a loss, as a fraction;
//! rounded to 1/1024 as the module's integer β), `c` = 0.4, `fast_convergence` = 1,
//! `tcp_friendliness` = 1, `max_increment` = 16 (segments per 100 ms of RTTmin).
//!
//! Departures from the kernel: time is continuous (no jiffies; the 1/32 s throttle of the
//! cnt computation and the 1 s guard of the delay measurement are kept), K is the exact cube
//! root (the kernel's table and Newton step err by ≤ 0.2 %), C is 0.4 (the kernel's fixed
//! point gives 410/1024 = 0.4004); the minimum RTT comes from any RTT sample (the kernel
//! takes it only from the timestamp option: with `tcp.timestamps` off we sample once per
//! window); `tcp_is_cwnd_limited` is not checked (bulk senders are window-limited). The
//! integer arithmetic of `cnt`, the target, ssthresh and W_max is kept.
use super::linux::{self, param_flag, param_in, param_int, snd_cwnd};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Phase, Recovery, Signal};

const PARAMS: &[&str] = &["beta", "c", "fast_convergence", "tcp_friendliness", "max_increment"];

#[derive(Debug, Clone)]
pub struct CubicLinux {
    /// β scaled by 1024 (819).
    beta: u64,
    c: f64,
    fast_convergence: bool,
    tcp_friendliness: bool,
    max_increment: u64,
    /// 8(1024 + β)/(3(1024 − β)) in integer arithmetic (23 for β = 819).
    beta_scale: u64,
    // The module's state (struct bictcp).
    cnt: u64,
    last_max_cwnd: u64,
    loss_cwnd: u64,
    last_cwnd: u64,
    last_time: f64,
    origin: u64,
    /// K in seconds.
    k: f64,
    /// Minimum RTT in seconds (0 = none yet).
    delay_min: f64,
    epoch_start: Option<f64>,
    ack_cnt: u64,
    tcp_cwnd: u64,
    /// Packets per ACK, scaled by 16 (starts at 2).
    delayed_ack: i64,
    /// Linux's snd_cwnd_cnt.
    cwnd_cnt: u64,
    loss: linux::LossState,
    /// The last target window (for the time series).
    target: f64,
}

impl CubicLinux {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Ok(Box::new(Self::from_params(params)?))
    }

    pub fn from_params(params: &Params) -> Result<CubicLinux, String> {
        const N: &str = "cubic_linux";
        check_params(N, params, PARAMS)?;
        let beta = param_in(N, params, "beta", 819.0 / 1024.0, 0.0, 1.0)?;
        let beta_i = (beta * 1024.0).round() as u64;
        if !(1..=1023).contains(&beta_i) {
            return Err(format!(
                "{N}: beta = {beta} is not allowed; must be in [1/1024, 1023/1024] (the module's integer beta)"
            ));
        }
        let c = param_in(N, params, "c", 0.4, 0.0, 1e6)?;
        if c <= 0.0 {
            return Err(format!("{N}: c = {c} is not allowed; must be > 0"));
        }
        Ok(CubicLinux::new(
            beta_i,
            c,
            param_flag(N, params, "fast_convergence", true)?,
            param_flag(N, params, "tcp_friendliness", true)?,
            param_int(N, params, "max_increment", 16, 1, 1_000_000)?,
        ))
    }

    pub fn new(beta: u64, c: f64, fast_convergence: bool, tcp_friendliness: bool, max_increment: u64) -> CubicLinux {
        let mut s = CubicLinux {
            beta,
            c,
            fast_convergence,
            tcp_friendliness,
            max_increment,
            beta_scale: 8 * (1024 + beta) / 3 / (1024 - beta),
            cnt: 0,
            last_max_cwnd: 0,
            loss_cwnd: 0,
            last_cwnd: 0,
            last_time: 0.0,
            origin: 0,
            k: 0.0,
            delay_min: 0.0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            delayed_ack: 2 << 4,
            cwnd_cnt: 0,
            loss: linux::LossState::default(),
            target: f64::NAN,
        };
        s.reset();
        s
    }

    /// Linux `bictcp_reset`.
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.loss_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0.0;
        self.origin = 0;
        self.k = 0.0;
        self.delay_min = 0.0;
        self.epoch_start = None;
        self.delayed_ack = 2 << 4;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
    }

    /// Linux `bictcp_update`: the ACK count per one-segment increase at window `w`.
    fn update(&mut self, w: u64, now: f64) {
        self.ack_cnt += 1;
        if self.last_cwnd == w && now - self.last_time <= 1.0 / 32.0 {
            return;
        }
        self.last_cwnd = w;
        self.last_time = now;
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = 1;
                self.tcp_cwnd = w;
                if self.last_max_cwnd <= w {
                    self.k = 0.0;
                    self.origin = w;
                } else {
                    self.k = ((self.last_max_cwnd - w) as f64 / self.c).cbrt();
                    self.origin = self.last_max_cwnd;
                }
                now
            }
        };
        let t = now + self.delay_min - epoch;
        let offs = (t - self.k).abs();
        // (the kernel's integer result; the guard keeps C·K³ = W_max − cwnd exact)
        let delta = crate::sim::floor(self.c * offs * offs * offs + 1e-9) as u64;
        let target = if t < self.k {
            self.origin.saturating_sub(delta)
        } else {
            self.origin + delta
        };
        self.target = target as f64;
        let mut cnt = if target > w { w / (target - w) } else { 100 * w };
        if self.delay_min > 0.0 {
            // at most max_increment segments per RTT for an RTT of 100 ms
            let min_cnt = crate::sim::floor(w as f64 * 0.1 / (self.max_increment as f64 * self.delay_min)) as u64;
            if cnt < min_cnt && t >= self.k {
                cnt = min_cnt;
            }
        }
        if self.loss_cwnd == 0 {
            cnt = 50;
        }
        if self.tcp_friendliness {
            let delta = ((w * self.beta_scale) >> 3).max(1);
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > w {
                let max_cnt = w / (self.tcp_cwnd - w);
                cnt = cnt.min(max_cnt);
            }
        }
        cnt = (cnt << 4) / self.delayed_ack.max(1) as u64;
        self.cnt = cnt.max(1);
    }

    /// Linux `bictcp_recalc_ssthresh`.
    fn recalc_ssthresh(&mut self, w: u64) -> u64 {
        self.epoch_start = None;
        self.last_max_cwnd = if w < self.last_max_cwnd && self.fast_convergence {
            w * (1024 + self.beta) / 2048
        } else {
            w
        };
        self.loss_cwnd = w;
        (w * self.beta / 1024).max(2)
    }
}

impl CongestionControl for CubicLinux {
    fn name(&self) -> &'static str {
        "cubic_linux"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let now = linux::now_secs(st);
        // bictcp_acked (packets per ACK), only in the open state
        // (bictcp_acked: only in the open state, not in the Loss state after a timeout)
        let in_loss = self.loss.on_ack(ack.acked);
        if ack.acked > 0 && !in_loss && st.phase != Phase::TimeoutRecovery {
            let cnt = ack.acked as i64 - (self.delayed_ack >> 4);
            self.delayed_ack += cnt;
        }
        // measure_delay: not in the first second of an epoch
        if let Some(rtt) = ack.rtt {
            if self.epoch_start.is_none_or(|e| now - e >= 1.0) && (self.delay_min == 0.0 || rtt < self.delay_min) {
                self.delay_min = rtt.max(1e-9);
            }
        }
        if linux::in_slow_start(st) {
            linux::slow_start(st);
        } else {
            let w = snd_cwnd(st);
            self.update(w, now);
            if self.cwnd_cnt >= self.cnt {
                st.cwnd += 1.0;
                self.cwnd_cnt = 0;
            } else {
                self.cwnd_cnt += 1;
            }
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| self.recalc_ssthresh(snd_cwnd(st)));
        linux::apply_loss(st, signal, ssthresh);
        self.cwnd_cnt = 0;
        if signal == Signal::Timeout {
            self.reset();
        }
        self.loss.on_signal(st, signal);
    }

    fn tcp_linux(&self) -> bool {
        true
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("cubic_w_max", self.last_max_cwnd as f64));
        out.push(("cubic_k", self.k));
        out.push(("cubic_origin", self.origin as f64));
        out.push(("cubic_epoch_start", self.epoch_start.unwrap_or(f64::NAN)));
        out.push(("cubic_target", self.target));
        out.push(("cubic_tcp_cwnd", self.tcp_cwnd as f64));
        out.push(("cubic_cnt", self.cnt as f64));
        out.push(("cubic_delay_min", self.delay_min));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state};
    use crate::sim::secs;

    fn ack() -> AckSample {
        AckSample {
            acked: 1,
            duplicate: false,
            rtt: None,
            rate: None,
        }
    }

    fn linux() -> CubicLinux {
        CubicLinux::new(819, 0.4, true, true, 16)
    }

    #[test]
    fn loss_keeps_four_fifths_and_fast_convergence_lowers_w_max() {
        let mut cc = linux();
        // W = 100: ssthresh = 100·819/1024 = 79.98 → 79 (integer), cwnd = 79, W_max = 100.
        let mut st = test_state(100.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(
            (st.ssthresh, st.cwnd, cc.last_max_cwnd, cc.loss_cwnd),
            (79.0, 79.0, 100, 100)
        );
        // The next loss at 90 < W_max: fast convergence, W_max = ⌊90·(1024+819)/2048⌋ =
        // ⌊80.99⌋ = 80; ssthresh = ⌊90·819/1024⌋ = 71.
        st.cwnd = 90.0;
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((cc.last_max_cwnd, st.ssthresh), (80, 71.0));
        // Without fast convergence W_max is the window at the loss.
        let mut cc = CubicLinux::new(819, 0.4, false, true, 16);
        cc.last_max_cwnd = 100;
        let mut st = test_state(90.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(cc.last_max_cwnd, 90);
    }

    #[test]
    fn the_cubic_function_at_given_times() {
        // After a loss at W_max = 100 the epoch starts at cwnd = 80:
        // K = ∛((100 − 80)/0.4) = ∛50 = 3.6840 s. Without an RTT (delay_min 0), at t = 0 the
        // target is 100 − ⌊0.4·K³⌋ = 100 − 20 = 80; at t = 2 s: 100 − ⌊0.4·1.684³⌋ =
        // 100 − ⌊1.910⌋ = 99; at t = K + 2: 100 + ⌊0.4·8⌋ = 103.
        let mut cc = linux();
        cc.last_max_cwnd = 100;
        cc.loss_cwnd = 100;
        cc.tcp_friendliness = false;
        cc.update(80, 10.0);
        assert!((cc.k - 50f64.cbrt()).abs() < 1e-12, "{}", cc.k);
        assert_eq!(cc.target, 80.0);
        cc.update(81, 12.0);
        assert_eq!(cc.target, 99.0);
        // cnt = ⌊81/(99 − 81)⌋ = 4, scaled by 16/delayed_ack = 16/32 (2 packets per ACK
        // assumed until measured) → 2.
        assert_eq!(cc.cnt, 2);
        cc.update(82, 12.0 + cc.k);
        assert_eq!(cc.target, 103.0);
        // Near the origin the target does not pass cwnd: cnt = 100·cwnd (scaled by 1/2).
        cc.update(99, 10.0 + cc.k);
        assert_eq!(cc.target, 100.0);
        cc.update(100, 10.0 + cc.k + 0.01 + 1.0 / 32.0);
        assert_eq!(cc.target, 100.0);
        assert_eq!(cc.cnt, 100 * 100 / 2);
    }

    #[test]
    fn the_target_looks_one_min_rtt_ahead_and_max_increment_caps_growth() {
        let mut cc = linux();
        cc.last_max_cwnd = 100;
        cc.loss_cwnd = 100;
        cc.tcp_friendliness = false;
        cc.delayed_ack = 16;
        cc.delay_min = 0.5;
        cc.update(80, 10.0);
        // t = 0 + 0.5: target = 100 − ⌊0.4·(3.684 − 0.5)³⌋ = 100 − ⌊12.91⌋ = 88.
        assert_eq!(cc.target, 88.0);
        assert_eq!(cc.cnt, 80 / 8);
        // Far above the origin (t − K = 10 s): target = 100 + 400 = 500 → cnt = 0 → but
        // max_increment: ⌊120·0.1/(16·0.5)⌋ = 1 (at most 16·5 segments per RTT of 0.5 s).
        cc.update(120, 10.0 + cc.k + 9.5);
        assert_eq!(cc.target, 500.0);
        assert_eq!(cc.cnt, 1);
        cc.delay_min = 0.01;
        cc.last_time = 0.0;
        cc.update(120, 10.0 + cc.k + 9.99);
        // ⌊120·0.1/(16·0.01)⌋ = 75: at 10 ms the cap is 1.6 segments per RTT
        assert_eq!(cc.cnt, 75);
    }

    #[test]
    fn tcp_friendly_region_takes_over_at_small_rtt() {
        // Short RTT, W_max only just above cwnd: the cubic target hardly moves in a
        // few hundred ms, while the Reno estimate grows by one per ⌊w·23/8⌋ ACKs.
        let mut cc = linux();
        cc.last_max_cwnd = 21;
        cc.loss_cwnd = 21;
        cc.delayed_ack = 16;
        let w = 20;
        let mut now = 1.0;
        cc.update(w, now); // epoch start: tcp_cwnd = 20, ack_cnt = 1
        assert_eq!(cc.tcp_cwnd, 20);
        // ⌊20·23/8⌋ = 57 ACKs per Reno segment; after 58 ACKs (in updates at least 1/32 s
        // apart so none is skipped... ack_cnt counts skipped ones too) tcp_cwnd = 21, and
        // after 115: 22 > w → cnt ≤ 20/(22 − 20) = 10.
        for _ in 0..114 {
            now += 0.001;
            cc.update(w, now);
        }
        now += 0.05;
        cc.update(w, now);
        // 116 ACKs counted: 116 − 57 − 57 = 2, two Reno segments.
        assert_eq!(cc.tcp_cwnd, 22, "ack_cnt {}", cc.ack_cnt);
        // cubic alone: K = ∛(1/0.4) = 1.357 s, at t = 0.164 s the target is 21: cnt = 20;
        // the Reno estimate wins.
        assert_eq!(cc.cnt, 10);
        // without friendliness the cubic count stands
        let mut cc2 = linux();
        cc2.last_max_cwnd = 21;
        cc2.loss_cwnd = 21;
        cc2.delayed_ack = 16;
        cc2.tcp_friendliness = false;
        cc2.update(w, 1.0);
        cc2.update(w, 1.2);
        assert!(cc2.cnt >= 20, "{}", cc2.cnt);
    }

    #[test]
    fn grows_one_segment_after_cnt_plus_one_acks_and_slow_starts_to_ssthresh_inclusive() {
        let mut cc = linux();
        let mut st = test_state(10.0, 10.0);
        // cwnd ≤ ssthresh: slow start
        cc.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 11.0);
        // before any loss cnt = 50, scaled by the packets-per-ACK ratio: 2 at first, then
        // (2·16 + (1 − 2))... the ratio moves 1/16 toward 1 per ACK.
        let mut n = 0;
        while st.cwnd == 11.0 {
            st.now += secs(0.001);
            cc.on_ack(&mut st, &ack());
            n += 1;
            assert!(n < 100);
        }
        // The first CA ACK moves the ratio from 32 to 31 (1 − 32>>4 = −1); then 31>>4 = 1
        // and it stays: cnt = 50·16/31 = 25, and the window grows after 26 ACKs.
        assert_eq!(cc.cnt, 25);
        assert_eq!(n, 26);
    }

    #[test]
    fn a_timeout_forgets_w_max_and_keeps_ssthresh_in_recovery() {
        let mut cc = linux();
        let mut st = test_state(100.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        st.phase = Phase::FastRecovery;
        cc.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.cwnd, st.ssthresh, cc.last_max_cwnd), (1.0, 79.0, 0));
        st.phase = Phase::CongestionAvoidance;
        st.cwnd = 50.0;
        cc.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.cwnd, st.ssthresh), (1.0, 39.0));
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("beta".into(), 0.7);
        let mut cc = CubicLinux::from_params(&p).unwrap();
        let mut st = test_state(100.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(st.ssthresh, 70.0, "⌊100·717/1024⌋ (0.7·1024 = 716.8 → 717)");
        p.insert("beta".into(), 1.5);
        let e = create("cubic_linux", &p).err().unwrap();
        assert_eq!(e, "cubic_linux: beta = 1.5 is not allowed; must be in [0, 1]");
        let mut p = Params::new();
        p.insert("fast_convergence".into(), 2.0);
        let e = create("cubic_linux", &p).err().unwrap();
        assert_eq!(e, "cubic_linux: fast_convergence = 2 is not allowed; must be 0 or 1");
        let mut p = Params::new();
        p.insert("c".into(), 0.0);
        assert!(create("cubic_linux", &p).err().unwrap().contains("c = 0"));
        let mut p = Params::new();
        p.insert("hystart".into(), 1.0);
        assert!(create("cubic_linux", &p)
            .err()
            .unwrap()
            .contains("has no parameter \"hystart\""));
    }
}
