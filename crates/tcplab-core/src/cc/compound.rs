//! Compound TCP as the Linux 2.6.22 port ns-2.35's TCP-Linux runs with `select_ca compound`
//! (`tcp_compound.c`, Castellani and Hemminger's port of Tan, Song, Zhang, Sridharan:
//! "A Compound TCP Approach for High-speed and Long Distance Networks", INFOCOM 2006 /
//! MSR-TR-2005-86): `compound`.
//!
//! The window is win = cwnd + dwnd: cwnd a Reno window, dwnd a delay-based one. Per ACK:
//! first cwnd/dwnd are made consistent with the window the backplane holds: if they add up
//! to more (after a loss), cwnd = win and dwnd = 0 when either part alone exceeds win, else
//! cwnd = win − dwnd; then
//! nothing more unless the window was full before the ACK (`tcp_is_cwnd_limited`, TCP-Linux's
//! version: in_flight ≥ win; without it a window held by the receiver's would let dwnd grow
//! without bound); cwnd grows by one per ACK while cwnd ≤ ssthresh, else by one every win ACKs (the counter
//! //! runs against the whole window). Once per round trip (as Linux's Vegas, `cc/vegas.rs`:
//! RTT = the smallest sample of the round trip, baseRTT = the smallest ever, at least 3
//! samples) with `old_wnd` the segments sent in the previous round trip, Diff =
//! old_wnd·(RTT − baseRTT)/RTT in the kernel's fixed point (half segments):
//! - Diff < γ: dwnd += (⌊α·old_wnd^k⌋ − 1)⁺, with α = 1/8 and k = 3/4 computed as the
//!   kernel does, ⌊qroot(old_wnd³)⌋ >> 3 (an integer Newton fourth root);
//! - Diff ≥ γ: dwnd ← ⌊(2·dwnd − ζ·2·Diff)/2⌋⁺.
//!
//! Then win = cwnd + dwnd. On a loss ssthresh = max(⌊win·(1 − β)⌋, 2) and win = ssthresh
//! (Linux's Reno ssthresh with β = 1/2); the split follows at the next ACK as above. After
//! fast recovery, and after the Loss state of a timeout (until what was outstanding is
//! acknowledged), the next round trip starts afresh (Linux's `set_state` to open).
//!
//! Relation to the thesis's statement (SEED-NOTES §2.2 E) — where they agree and differ:
//! - Δ test once per RTT against γ with brtt = min RTT: the same, but the port's RTT is the
//!   *minimum* sample of the round trip (the thesis: the mean) and it needs ≥ 3 samples, and
//!   it measures the window as the segments sent in the previous round trip (`old_wnd`),
//!   not the current win;
//! - dwnd increase: the same α·win^k − 1 (integer, from `old_wnd`); it also runs in slow
//!   start (the thesis is silent);
//! - dwnd decrease: (dwnd − ζΔ)⁺, the same;
//! - loss: the thesis sets dwnd ← (win(1 − β) − cwnd/2)⁺ and cwnd ← cwnd/2 (both parts
//!   halve, win/2 in all); the port also ends at win(1 − β) = win/2 (Reno's ssthresh), but
//!   its split rule above gives all of it to cwnd and sets dwnd = 0 whenever either part
//!   exceeded win/2 — that is, after every loss except when cwnd = dwnd exactly. After a
//!   timeout win = 1, cwnd = 1 and dwnd = 0 in both.
//! - the Reno part grows by one every *win* ACKs (not every cwnd), i.e. about once per RTT.
//!
//! In SACK recovery cwnd is the module's `min_cwnd` = ssthresh/2, the floor of Linux 2.6.22's
//! rate halving (`linux::MinCwnd`); the sender's TCP-Linux recovery
//! (`tcp_linux`) halves the rate from the window at the loss down to it, held to what is in
//! flight + 1, and ends recovery at min(ssthresh, in flight + 3) when the floor is lower.
//!
//! Compound needs an RTT per ACK: run it with `tcp.timestamps = true` (TCP-Linux calls the
//! module's `rtt_sample` with every timestamp echo). Without timestamps there are fewer
//! than 3 samples per round trip, dwnd stays 0 and Compound is Reno (with its counter).
//!
//! Parameters (`cc_params`): `alpha` = 0.125, `k` = 0.75, `gamma` = 30 (segments, a
//! multiple of 0.5), `zeta` = 1, `beta` = 0.5. With α = 1/8 and k = 3/4 the kernel's integer
//! root is used; otherwise ⌊α·old_wnd^k⌋ in floating point.
//!
//! Departures from the kernel: sequence numbers in segments; samples come from ACKs of new
//! data only (the backplane's duplicate ACKs carry none); the restart after idle is not
//! modelled; RTTs are rounded to microseconds as TCP-Linux does.
use super::linux::{self, param_in, snd_cwnd};
use super::vegas::{cwnd_limited, half_units, VegasRtt};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

const PARAMS: &[&str] = &["alpha", "k", "gamma", "zeta", "beta"];

#[derive(Debug, Clone)]
pub struct Compound {
    alpha: f64,
    k: f64,
    gamma2: u64,
    zeta: f64,
    beta: f64,
    rtt: VegasRtt,
    /// the Reno part (the kernel's `vegas->cwnd`)
    cwnd: u64,
    dwnd: u64,
    cwnd_cnt: u64,
    /// 2·Diff at the last computation (NaN before any)
    diff2: f64,
    loss: linux::LossState,
    min_cwnd: linux::MinCwnd,
}

/// Index of the highest set bit, 1-based (0 for 0), as the kernel's `fls64`.
fn fls64(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// The kernel's `cdiv64_64`: a 64-bit division whose divisor is first cut to 32 bits.
fn cdiv64_64(mut dividend: u64, divisor: u64) -> u64 {
    let mut d = divisor;
    if divisor > 0xffff_ffff {
        let shift = fls64(divisor >> 32);
        d = divisor >> shift;
        dividend >>= shift;
    }
    dividend / d.max(1)
}

/// The kernel's integer fourth root by Newton's method (`qroot`).
pub fn qroot(a: u64) -> u64 {
    let mut x: u64 = 1 << (fls64(a) >> 2);
    loop {
        let x1 = x;
        let x3 = x * x * x;
        if x3 == 0 {
            return 0;
        }
        x = (3 * x + (cdiv64_64(a, x3) as u32) as u64) / 4;
        if (x1 as i64 - x as i64).abs() <= 1 {
            return x;
        }
    }
}

impl Compound {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "compound";
        check_params(N, params, PARAMS)?;
        let mut c = Compound::new();
        c.alpha = param_in(N, params, "alpha", 0.125, 0.0, 1e3)?;
        c.k = param_in(N, params, "k", 0.75, 0.0, 1.0)?;
        c.gamma2 = half_units(N, params, "gamma", 30.0)?;
        c.zeta = param_in(N, params, "zeta", 1.0, 0.0, 1e3)?;
        c.beta = param_in(N, params, "beta", 0.5, 0.0, 1.0)?;
        Ok(Box::new(c))
    }

    pub fn new() -> Compound {
        Compound {
            alpha: 0.125,
            k: 0.75,
            gamma2: 60,
            zeta: 1.0,
            beta: 0.5,
            rtt: VegasRtt::default(),
            cwnd: 0,
            dwnd: 0,
            cwnd_cnt: 0,
            diff2: f64::NAN,
            loss: linux::LossState::default(),
            min_cwnd: linux::MinCwnd::default(),
        }
    }

    /// ⌊α·w^k⌋ (the kernel's ⌊qroot(w³)⌋ >> 3 with the defaults).
    fn increment(&self, w: u64) -> u64 {
        if self.alpha == 0.125 && self.k == 0.75 {
            qroot(w * w * w) >> 3
        } else {
            crate::sim::floor(self.alpha * (w as f64).powf(self.k)) as u64
        }
    }
}

impl Default for Compound {
    fn default() -> Self {
        Compound::new()
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn init(&mut self, st: &mut CcState) {
        st.cwnd = st.init_cwnd;
        st.ssthresh = st.init_ssthresh;
        self.cwnd = snd_cwnd(st);
        self.dwnd = 0;
    }

    fn on_switch_in(&mut self, st: &mut CcState) {
        self.cwnd = snd_cwnd(st);
        self.dwnd = 0;
    }

    fn on_ack_arrival(&mut self, st: &CcState, ack: &AckSample) {
        if self.rtt.on_arrival(ack) {
            self.rtt.enable(st);
        }
        if let Some(rtt) = ack.rtt {
            self.rtt.sample((rtt * 1e6).round() as u64 + 1);
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        // the open state returns after this ACK if it ends the Loss state of a timeout
        let reopen = self.loss.on_ack(ack.acked) && !self.loss.active();
        self.cong_avoid(st, ack);
        if reopen {
            self.rtt.enable(st);
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| {
            let w = snd_cwnd(st);
            (crate::sim::floor(w as f64 * (1.0 - self.beta)) as u64).max(2)
        });
        self.min_cwnd.on_congestion(st, signal);
        linux::apply_loss(st, signal, ssthresh);
        self.cwnd_cnt = 0;
        self.loss.on_signal(st, signal);
    }

    fn on_recovery_ack(&mut self, st: &mut CcState, _ack: &AckSample) {
        self.min_cwnd.on_ack(st);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        st.cwnd = st.recovery_base;
        self.min_cwnd.stop();
        self.rtt.enable(st);
    }

    fn tcp_linux(&self) -> bool {
        true
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("compound_cwnd", self.cwnd as f64));
        out.push(("compound_dwnd", self.dwnd as f64));
        out.push(("compound_diff", self.diff2 / 2.0));
        out.push(("compound_base_rtt", self.rtt.base_rtt_secs()));
    }
}

impl Compound {
    /// The module's `cong_avoid`.
    fn cong_avoid(&mut self, st: &mut CcState, ack: &AckSample) {
        let w = snd_cwnd(st);
        if self.cwnd + self.dwnd > w {
            if self.cwnd > w || self.dwnd > w {
                self.cwnd = w;
                self.dwnd = 0;
            } else {
                self.cwnd = w - self.dwnd;
            }
        }
        if !cwnd_limited(st, ack.acked) {
            return;
        }
        let mut inc = false;
        if self.cwnd as f64 <= st.ssthresh {
            inc = true;
        } else if self.cwnd_cnt < w {
            self.cwnd_cnt += 1;
        }
        if self.cwnd_cnt >= w {
            inc = true;
            self.cwnd_cnt = 0;
        }
        if inc {
            self.cwnd += 1;
        }
        if let Some((old_wnd, _)) = self.rtt.round_end(st) {
            if self.rtt.cnt_rtt > 2 {
                let (_, diff2) = self.rtt.diff2(old_wnd);
                self.diff2 = diff2 as f64;
                self.dwnd = if diff2 < self.gamma2 {
                    self.dwnd + self.increment(old_wnd).saturating_sub(1)
                } else {
                    let left = 2.0 * self.dwnd as f64 - self.zeta * diff2 as f64;
                    if left < 0.0 {
                        0
                    } else {
                        crate::sim::floor(left / 2.0) as u64
                    }
                };
            }
            self.rtt.clear();
        }
        st.cwnd = (self.cwnd + self.dwnd) as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, one_ack, test_state};

    fn ack(c: &mut Compound, st: &mut CcState, rtt: Option<f64>, flight: u64) {
        st.flight = flight;
        let a = one_ack(rtt);
        c.on_ack_arrival(st, &a);
        c.on_ack(st, &a);
    }

    /// Let the next ACK (with a sample at `rtt` seconds) end a round trip in which `old_wnd`
    /// segments were sent, with `cnt` samples before it.
    fn end_round(c: &mut Compound, st: &mut CcState, old_wnd: u64, cnt: u64, rtt: f64) {
        c.rtt.set_round(old_wnd, 0, cnt);
        let f = snd_cwnd(st);
        ack(c, st, Some(rtt), f);
    }

    #[test]
    fn qroot_is_the_kernels_integer_fourth_root() {
        // 100³ = 10⁶: ⁴√ = 31.62 → 31 (Newton from 2^(20/4) = 32); 1000³ = 10⁹ → 177
        assert_eq!(qroot(1_000_000), 31);
        assert_eq!(qroot(1_000_000_000), 177);
        assert_eq!(qroot(0), 0);
        for w in [8u64, 50, 333, 5000, 40_000] {
            let exact = (w as f64).powf(0.75);
            let q = qroot(w * w * w) as f64;
            assert!((q - exact).abs() <= 1.5, "{w}: {q} vs {exact}");
        }
    }

    #[test]
    fn dwnd_grows_below_gamma_and_shrinks_above() {
        let mut c = Compound::new();
        let mut st = test_state(100.0, 10.0);
        c.cwnd = 100;
        ack(&mut c, &mut st, Some(0.1), 100);
        assert_eq!((c.cwnd, c.dwnd, c.cwnd_cnt, st.cwnd), (100, 0, 1, 100.0));
        // Diff 0 < γ: α·100^¾ = ⌊qroot(10⁶)⌋ >> 3 = 31 >> 3 = 3: dwnd += 2
        end_round(&mut c, &mut st, 100, 5, 0.1);
        assert_eq!((c.dwnd, st.cwnd), (2, 102.0));
        // old_wnd 1000: qroot(10⁹) = 177 >> 3 = 22: dwnd += 21
        end_round(&mut c, &mut st, 1000, 5, 0.1);
        assert_eq!((c.dwnd, st.cwnd), (23, 123.0));
        // the Reno part's counter runs against the whole window (123)
        c.cwnd_cnt = 121;
        ack(&mut c, &mut st, Some(0.1), 123);
        assert_eq!((c.cwnd, c.cwnd_cnt), (100, 122));
        ack(&mut c, &mut st, Some(0.1), 123);
        assert_eq!((c.cwnd, c.cwnd_cnt, st.cwnd), (101, 0, 124.0));
        // RTT 130 ms, old_wnd 100: target ⌊200·100001/130001⌋ = 153, diff 47 (23.5 segments)
        // < 2γ = 60: still growing by 2
        end_round(&mut c, &mut st, 100, 5, 0.13);
        assert_eq!((c.diff2, c.dwnd), (47.0, 25));
        // old_wnd 200 at 130 ms: target 307, diff 93 ≥ 60: dwnd ← ⌊(2·60 − 93)/2⌋ = 13
        c.dwnd = 60;
        st.cwnd = (c.cwnd + 60) as f64;
        end_round(&mut c, &mut st, 200, 5, 0.13);
        assert_eq!((c.diff2, c.dwnd, st.cwnd), (93.0, 13, 114.0));
        // ... and to 0, not below: RTT 150 ms, old_wnd 100: diff 67 > 2·13
        end_round(&mut c, &mut st, 100, 5, 0.15);
        assert_eq!((c.diff2, c.dwnd), (67.0, 0));
        // ζ = 1/2: ⌊(120 − 93/2)/2⌋ = 36
        c.zeta = 0.5;
        c.dwnd = 60;
        st.cwnd = (c.cwnd + 60) as f64;
        end_round(&mut c, &mut st, 200, 5, 0.13);
        assert_eq!(c.dwnd, 36);
        // too few samples: no dwnd change
        end_round(&mut c, &mut st, 100, 1, 0.1);
        assert_eq!(c.dwnd, 36);
    }

    #[test]
    fn loss_halves_the_whole_window_into_the_reno_part() {
        let mut c = Compound::new();
        let mut st = test_state(100.0, 10.0);
        c.cwnd = 70;
        c.dwnd = 30;
        ack(&mut c, &mut st, Some(0.1), 100);
        assert_eq!(st.cwnd, 100.0);
        c.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (50.0, 50.0));
        c.on_recovery_exit(&mut st);
        ack(&mut c, &mut st, Some(0.1), 50);
        // cwnd 70 > 50: the Reno part takes the window, dwnd 0; then cwnd ≤ ssthresh: +1
        assert_eq!((c.cwnd, c.dwnd, st.cwnd), (51, 0, 51.0));
        // only when neither part exceeds the new window is dwnd kept (cwnd = w − dwnd)
        c.cwnd = 50;
        c.dwnd = 50;
        st.cwnd = 100.0;
        c.on_congestion(&mut st, Signal::DupAcks);
        c.on_recovery_exit(&mut st);
        ack(&mut c, &mut st, Some(0.1), 50);
        assert_eq!((c.cwnd, c.dwnd, st.cwnd), (1, 50, 51.0));
        // timeout: win 1 → cwnd 1 (+1 in slow start), dwnd 0
        c.on_congestion(&mut st, Signal::Timeout);
        ack(&mut c, &mut st, Some(0.1), 1);
        assert_eq!((c.cwnd, c.dwnd, st.cwnd), (2, 0, 2.0));
    }

    #[test]
    fn nothing_happens_when_the_window_was_not_full() {
        let mut c = Compound::new();
        let mut st = test_state(100.0, 10.0);
        c.cwnd = 100;
        ack(&mut c, &mut st, Some(0.1), 50); // 51 outstanding before the ACK, window 100
        assert_eq!((c.cwnd_cnt, st.cwnd), (0, 100.0));
        c.rtt.set_round(100, 0, 5);
        ack(&mut c, &mut st, Some(0.1), 50);
        assert_eq!(c.dwnd, 0, "the round end waits for a window-limited ACK");
        ack(&mut c, &mut st, Some(0.1), 99); // 100 before it: full
        assert_eq!((c.dwnd, c.cwnd_cnt, st.cwnd), (2, 1, 102.0));
    }

    #[test]
    fn a_new_round_starts_when_the_loss_state_of_a_timeout_ends() {
        let mut c = Compound::new();
        let mut st = test_state(20.0, 10.0);
        c.cwnd = 20;
        ack(&mut c, &mut st, Some(0.1), 20);
        st.flight = 2;
        c.on_congestion(&mut st, Signal::Timeout);
        ack(&mut c, &mut st, Some(0.1), 1);
        assert_eq!(c.rtt.cnt_rtt, 2, "still in the Loss state: the samples count on");
        ack(&mut c, &mut st, Some(0.1), 3);
        assert_eq!(c.rtt.cnt_rtt, 0);
        assert_eq!(c.rtt.beg_snd_nxt, c.rtt.snd_nxt(&st));
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("k".into(), 1.5);
        assert_eq!(
            create("compound", &p).err().unwrap(),
            "compound: k = 1.5 is not allowed; must be in [0, 1]"
        );
        let mut p = Params::new();
        p.insert("alpha".into(), 0.25);
        p.insert("k".into(), 0.5);
        assert!(create("compound", &p).is_ok());
        let c = Compound {
            alpha: 0.25,
            k: 0.5,
            ..Compound::new()
        };
        assert_eq!(c.increment(100), 2); // 0.25·10
    }
}
