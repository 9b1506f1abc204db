//! BIC TCP as Linux 2.6.22's `tcp_bic.c` (ns-2.35 TCP-Linux): `bic` (Xu, Harfoush, Rhee:
//! "Binary Increase Congestion Control for Fast, Long Distance Networks", INFOCOM 2004).
//!
//! Per ACK in congestion avoidance the module sets `cnt`, the ACKs per one-segment increase,
//! from the window w and W_max (the window at the last loss), with B = 4:
//! - w ≤ `low_window` (14): cnt = w (Reno);
//! - below W_max, binary search: dist = (W_max − w)/B; dist > `max_increment` (16): cnt =
//!   w/16 (linear, 16 segments per RTT); dist ≤ 1: cnt = w·`smooth_part`/B (20: very slow near
//!   W_max); else cnt = w/dist (a 1/B of the way to W_max per RTT);
//! - above W_max (max probing): w < W_max + B: cnt = w·smooth_part/B; w < W_max +
//!   16·(B − 1): cnt = w·(B − 1)/(w − W_max) (slow start away from W_max); else w/16;
//! - before the first loss cnt ≤ 20 (5 % per RTT);
//! - scaled by 16/(packets per ACK, smoothed with gain 1/16, starting at 2), at least 1.
//! The window grows by one when the counter has reached cnt (every cnt + 1 ACKs); the cnt
//! computation is skipped when cwnd did not change for less than 1/32 s. On a loss:
//! W_max = w, or w·(1024 + β)/2048 if w < W_max (fast convergence); ssthresh = max(w/2, 2)
//! for w ≤ low_window, else max(w·β/1024, 2) with β = 819 (× 0.8); cwnd = ssthresh (1 after a
//! timeout, which also resets the module: W_max = 0). Slow start while cwnd ≤ ssthresh.
//!
//! Parameters (`cc_params`): `beta` = 819/1024, `max_increment` = 16, `low_window` = 14,
//! `smooth_part` = 20, `fast_convergence` = 1.
//!
//! Departures from the kernel: continuous time instead of jiffies; `tcp_is_cwnd_limited`
//! is not checked. The integer arithmetic is kept.
use super::linux::{self, param_flag, param_in, param_int, snd_cwnd};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Phase, Recovery, Signal};

const PARAMS: &[&str] = &["beta", "max_increment", "low_window", "smooth_part", "fast_convergence"];
const B: u64 = 4;

#[derive(Debug, Clone)]
pub struct Bic {
    beta: u64,
    max_increment: u64,
    low_window: u64,
    smooth_part: u64,
    fast_convergence: bool,
    cnt: u64,
    last_max_cwnd: u64,
    loss_cwnd: u64,
    last_cwnd: u64,
    last_time: f64,
    epoch_start: Option<f64>,
    delayed_ack: i64,
    cwnd_cnt: u64,
    loss: linux::LossState,
}

impl Bic {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "bic";
        check_params(N, params, PARAMS)?;
        let beta = param_in(N, params, "beta", 819.0 / 1024.0, 0.0, 1.0)?;
        let beta_i = (beta * 1024.0).round() as u64;
        if !(1..=1023).contains(&beta_i) {
            return Err(format!(
                "{N}: beta = {beta} is not allowed; must be in [1/1024, 1023/1024] (the module's integer beta)"
            ));
        }
        Ok(Box::new(Bic::new(
            beta_i,
            param_int(N, params, "max_increment", 16, 1, 1_000_000)?,
            param_int(N, params, "low_window", 14, 0, 1_000_000_000)?,
            param_int(N, params, "smooth_part", 20, 1, 1_000_000)?,
            param_flag(N, params, "fast_convergence", true)?,
        )))
    }

    pub fn new(beta: u64, max_increment: u64, low_window: u64, smooth_part: u64, fast_convergence: bool) -> Bic {
        Bic {
            beta,
            max_increment,
            low_window,
            smooth_part,
            fast_convergence,
            cnt: 0,
            last_max_cwnd: 0,
            loss_cwnd: 0,
            last_cwnd: 0,
            last_time: 0.0,
            epoch_start: None,
            delayed_ack: 2 << 4,
            cwnd_cnt: 0,
            loss: linux::LossState::default(),
        }
    }

    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.loss_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0.0;
        self.epoch_start = None;
        self.delayed_ack = 2 << 4;
    }

    /// Linux `bictcp_update`.
    fn update(&mut self, w: u64, now: f64) {
        if self.last_cwnd == w && now - self.last_time <= 1.0 / 32.0 {
            return;
        }
        self.last_cwnd = w;
        self.last_time = now;
        if self.epoch_start.is_none() {
            self.epoch_start = Some(now);
        }
        if w <= self.low_window {
            self.cnt = w;
            return;
        }
        let max = self.last_max_cwnd;
        let mut cnt = if w < max {
            let dist = (max - w) / B;
            if dist > self.max_increment {
                w / self.max_increment
            } else if dist <= 1 {
                w * self.smooth_part / B
            } else {
                w / dist
            }
        } else if w < max + B {
            w * self.smooth_part / B
        } else if w < max + self.max_increment * (B - 1) {
            w * (B - 1) / (w - max)
        } else {
            w / self.max_increment
        };
        if self.loss_cwnd == 0 && cnt > 20 {
            cnt = 20;
        }
        cnt = (cnt << 4) / self.delayed_ack.max(1) as u64;
        self.cnt = cnt.max(1);
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        // (bictcp_acked: only in the open state, not in the Loss state after a timeout)
        let in_loss = self.loss.on_ack(ack.acked);
        if ack.acked > 0 && !in_loss && st.phase != Phase::TimeoutRecovery {
            let cnt = ack.acked as i64 - (self.delayed_ack >> 4);
            self.delayed_ack += cnt;
        }
        if linux::in_slow_start(st) {
            linux::slow_start(st);
        } else {
            self.update(snd_cwnd(st), linux::now_secs(st));
            if self.cwnd_cnt >= self.cnt {
                st.cwnd += 1.0;
                self.cwnd_cnt = 0;
            } else {
                self.cwnd_cnt += 1;
            }
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| {
            let w = snd_cwnd(st);
            self.epoch_start = None;
            self.last_max_cwnd = if w < self.last_max_cwnd && self.fast_convergence {
                w * (1024 + self.beta) / 2048
            } else {
                w
            };
            self.loss_cwnd = w;
            if w <= self.low_window {
                (w / 2).max(2)
            } else {
                (w * self.beta / 1024).max(2)
            }
        });
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
        out.push(("bic_w_max", self.last_max_cwnd as f64));
        out.push(("bic_cnt", self.cnt as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state};

    fn bic() -> Bic {
        let mut b = Bic::new(819, 16, 14, 20, true);
        b.loss_cwnd = 1;
        b.delayed_ack = 16; // one packet per ACK
        b
    }

    fn cnt_at(w: u64, w_max: u64) -> u64 {
        let mut b = bic();
        b.last_max_cwnd = w_max;
        b.update(w, 1.0);
        b.cnt
    }

    #[test]
    fn binary_search_and_max_probing_counts() {
        // far below W_max = 100: dist = (100 − 20)/4 = 20 > 16 → cnt = 20/16 = 1 (linear,
        // ≈ 16 segments per RTT... bounded by w: one per ACK pair)
        assert_eq!(cnt_at(20, 100), 1);
        // binary search: dist = (100 − 80)/4 = 5 → cnt = 80/5 = 16: 5 segments per RTT
        assert_eq!(cnt_at(80, 100), 16);
        // next to W_max: dist = 0 ≤ 1 → cnt = 99·20/4 = 495
        assert_eq!(cnt_at(99, 100), 495);
        // just above W_max (< W_max + 4): 102·20/4 = 510
        assert_eq!(cnt_at(102, 100), 510);
        // max probing, slow start away from W_max: 110·3/10 = 33
        assert_eq!(cnt_at(110, 100), 33);
        // beyond W_max + 48: linear, 160/16 = 10
        assert_eq!(cnt_at(160, 100), 10);
        // low window: Reno
        assert_eq!(cnt_at(10, 100), 10);
        // before any loss at most 20 (495 next to W_max → 20)
        let mut b = bic();
        b.loss_cwnd = 0;
        b.last_max_cwnd = 100;
        b.update(99, 1.0);
        assert_eq!(b.cnt, 20);
        // the packets-per-ACK ratio: 2 → cnt halved
        let mut b = bic();
        b.delayed_ack = 32;
        b.last_max_cwnd = 100;
        b.update(80, 1.0);
        assert_eq!(b.cnt, 8);
    }

    #[test]
    fn loss_reaction_with_fast_convergence_and_low_window() {
        let mut b = bic();
        let mut st = test_state(100.0, 1e9);
        b.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd, b.last_max_cwnd), (79.0, 79.0, 100));
        // loss below W_max: W_max = 90·1843/2048 = 80.99 → 80
        st.cwnd = 90.0;
        b.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((b.last_max_cwnd, st.ssthresh), (80, 71.0));
        // ≤ low_window: halve
        st.cwnd = 12.0;
        b.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(st.ssthresh, 6.0);
        // timeout: reset
        st.cwnd = 50.0;
        b.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.cwnd, st.ssthresh, b.last_max_cwnd), (1.0, 39.0, 0));
    }

    #[test]
    fn the_window_grows_after_cnt_plus_one_acks() {
        let mut b = bic();
        b.last_max_cwnd = 100;
        let mut st = test_state(80.0, 50.0);
        let ack = AckSample {
            acked: 1,
            duplicate: false,
            rtt: None,
            rate: None,
        };
        let mut n = 0;
        while st.cwnd == 80.0 {
            b.on_ack(&mut st, &ack);
            n += 1;
        }
        assert_eq!((b.cnt, n), (16, 17));
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("smooth_part".into(), 0.0);
        assert_eq!(
            create("bic", &p).err().unwrap(),
            "bic: smooth_part = 0 is not allowed; must be an integer in [1, 1000000]"
        );
        let mut p = Params::new();
        p.insert("low_window".into(), 200.0);
        p.insert("max_increment".into(), 8.0);
        assert!(create("bic", &p).is_ok());
    }
}
