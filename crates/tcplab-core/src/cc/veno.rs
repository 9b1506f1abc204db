//! TCP Veno as Linux 2.6.22's `tcp_veno.c` (ns-2.35 TCP-Linux): `veno` (Fu, Liew: "TCP
//! Veno: TCP Enhancement for Transmission over Wireless Access Networks", IEEE JSAC 2003).
//!
//! Veno estimates the sender's backlog in the bottleneck queue, N = cwnd·(RTT − baseRTT)/RTT
//! (Vegas' Diff·baseRTT), with baseRTT the smallest RTT sample ever and RTT the smallest
//! sample of the current ACK. In the kernel's fixed point (one binary digit) N is
//! (2·cwnd − ⌊2·cwnd·baseRTT/RTT⌋)/2, compared with β = 3 segments. Congestion avoidance:
//! N < β ("non-congestive"): Reno's +1 per cwnd + 1 ACKs; N ≥ β: +1 only every other such
//! period (every other RTT). A loss while N < β is taken as random: ssthresh =
//! max(⌊cwnd·4/5⌋, 2); otherwise ssthresh = max(⌊cwnd/2⌋, 2); cwnd = ssthresh (1 after a
//! timeout). With at most 2 RTT samples so far, and outside the open state (our timeout
//! recovery until what was outstanding at the timeout is acknowledged), Veno is Reno.
//!
//! Veno needs an RTT per ACK (the kernel times every segment): run it with
//! `tcp.timestamps = true`. Without timestamps there is a sample once per window, and an
//! ACK without one uses the last sample (the kernel would see no sample and its
//! "infinite" RTT would call every such ACK congestive).
//!
//! Parameters (`cc_params`): `beta` = 3 (segments).
//!
//! Departures from the kernel: as above for ACKs without a sample; RTTs are not rounded to
//! microseconds (the kernel adds 1 µs to every sample so that none is zero; so do we);
//! `tcp_is_cwnd_limited` is not checked.
use super::linux::{self, param_in, snd_cwnd};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

#[derive(Debug, Clone)]
pub struct Veno {
    /// β in the kernel's fixed point (2·β).
    beta2: u64,
    base_rtt: f64,
    /// smallest sample since the previous ACK processed (∞ = none)
    min_rtt: f64,
    last_rtt: f64,
    cnt_rtt: u64,
    /// 2·N at the last computation (0 before any).
    diff2: u64,
    inc: bool,
    cwnd_cnt: u64,
    loss: linux::LossState,
}

impl Veno {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "veno";
        check_params(N, params, &["beta"])?;
        let beta = param_in(N, params, "beta", 3.0, 0.0, 1e9)?;
        if (2.0 * beta).fract() != 0.0 {
            return Err(format!(
                "{N}: beta = {beta} is not allowed; must be a multiple of 0.5 (the module's fixed point) in [0, 1000000000]"
            ));
        }
        Ok(Box::new(Veno::new((2.0 * beta) as u64)))
    }

    pub fn new(beta2: u64) -> Veno {
        Veno {
            beta2,
            base_rtt: f64::INFINITY,
            min_rtt: f64::INFINITY,
            last_rtt: f64::INFINITY,
            cnt_rtt: 0,
            diff2: 0,
            inc: true,
            cwnd_cnt: 0,
            loss: linux::LossState::default(),
        }
    }

    fn reno(&mut self, st: &mut CcState) {
        if linux::in_slow_start(st) {
            linux::slow_start(st);
        } else {
            linux::reno_ai(st, &mut self.cwnd_cnt);
        }
    }

    /// The backlog estimate N (segments) at the last computation.
    pub fn backlog(&self) -> f64 {
        self.diff2 as f64 / 2.0
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack_arrival(&mut self, _st: &CcState, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            let v = rtt + 1e-6;
            self.base_rtt = self.base_rtt.min(v);
            self.min_rtt = self.min_rtt.min(v);
            self.last_rtt = v;
            self.cnt_rtt += 1;
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        self.loss.on_ack(ack.acked);
        if self.loss.active() || self.cnt_rtt <= 2 {
            self.reno(st);
        } else {
            let rtt = if self.min_rtt.is_finite() {
                self.min_rtt
            } else {
                self.last_rtt
            };
            let w = snd_cwnd(st);
            let target2 = crate::sim::floor(2.0 * w as f64 * self.base_rtt / rtt) as u64;
            self.diff2 = (2 * w).saturating_sub(target2);
            if linux::in_slow_start(st) {
                linux::slow_start(st);
            } else if self.diff2 < self.beta2 {
                linux::reno_ai(st, &mut self.cwnd_cnt);
            } else if self.cwnd_cnt >= w {
                if self.inc {
                    st.cwnd += 1.0;
                    self.inc = false;
                } else {
                    self.inc = true;
                }
                self.cwnd_cnt = 0;
            } else {
                self.cwnd_cnt += 1;
            }
            st.cwnd = st.cwnd.max(2.0);
        }
        self.min_rtt = f64::INFINITY;
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| {
            let w = snd_cwnd(st);
            let random = self.diff2 < self.beta2;
            st.log.push(("veno_random_loss", if random { 1.0 } else { 0.0 }));
            if random {
                (w * 4 / 5).max(2)
            } else {
                (w / 2).max(2)
            }
        });
        linux::apply_loss(st, signal, ssthresh);
        self.cwnd_cnt = 0;
        self.loss.on_signal(st, signal);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        st.cwnd = st.recovery_base;
        self.min_rtt = f64::INFINITY;
    }

    fn tcp_linux(&self) -> bool {
        true
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("veno_base_rtt", self.base_rtt));
        out.push(("veno_backlog", self.backlog()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state};

    fn feed(v: &mut Veno, st: &mut CcState, rtt: f64) {
        let a = AckSample {
            acked: 1,
            duplicate: false,
            rtt: Some(rtt),
            rate: None,
        };
        v.on_ack_arrival(st, &a);
        v.on_ack(st, &a);
    }

    #[test]
    fn backlog_decides_the_increase_and_the_decrease() {
        // baseRTT 100 ms (+1 µs), RTT 120 ms, w = 30: ⌊60·0.100001/0.120001⌋ = 50,
        // 2N = 60 − 50 = 10 → N = 5 ≥ 3: congestive.
        let mut v = Veno::new(6);
        let mut st = test_state(30.0, 10.0);
        for _ in 0..3 {
            feed(&mut v, &mut st, 0.1);
        }
        // three samples at the base: N = 0, Reno until now (the first three ACKs are Reno's
        // while ≤ 2 samples, then Veno's non-congestive Reno)
        assert_eq!(v.backlog(), 0.0);
        st.cwnd = 30.0;
        v.cwnd_cnt = 0;
        feed(&mut v, &mut st, 0.12);
        assert_eq!(v.backlog(), 5.0);
        // Congestive: the window grows every other cwnd + 1 ACKs: 31 ACKs bring the counter to
        // 30, the 32nd flips `inc` without growth... (inc starts true: the first period grows)
        for _ in 0..30 {
            feed(&mut v, &mut st, 0.12);
        }
        assert_eq!(st.cwnd, 31.0, "first period grows");
        for _ in 0..32 {
            feed(&mut v, &mut st, 0.12);
        }
        assert_eq!(st.cwnd, 31.0, "second period does not");
        // Congestive loss: halve.
        v.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (15.0, 15.0));
        // Small backlog (RTT 105 ms: ⌊60·0.100001/0.105001⌋ = 57, 2N = 3 < 6): random loss,
        // cwnd·4/5.
        let mut st = test_state(30.0, 10.0);
        feed(&mut v, &mut st, 0.105);
        assert_eq!(v.backlog(), 1.5);
        st.cwnd = 30.0;
        v.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (24.0, 24.0));
        assert!(st.log.contains(&("veno_random_loss", 1.0)));
    }

    #[test]
    fn before_three_samples_veno_is_reno_and_its_first_loss_counts_as_random() {
        let mut v = Veno::new(6);
        let mut st = test_state(30.0, 10.0);
        feed(&mut v, &mut st, 0.1);
        assert_eq!(v.diff2, 0);
        // the kernel's diff starts at 0: N < β
        v.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(st.ssthresh, 24.0);
        let mut p = Params::new();
        p.insert("beta".into(), 0.3);
        assert_eq!(
            create("veno", &p).err().unwrap(),
            "veno: beta = 0.3 is not allowed; must be a multiple of 0.5 (the module's fixed point) in [0, 1000000000]"
        );
    }
}
