//! Scalable TCP (Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area
//! Networks", CCR 2003): `scalable`. A multiplicative increase, so that the time to recover
//! from a loss does not grow with the window.
//!
//! We follow Linux 2.6.22's `tcp_scalable.c` (ns-2.35's TCP-Linux) by default (`linux` = 1):
//! in congestion avoidance a counter counts ACKs and the window grows by one segment once
//! the counter exceeds min(cwnd, `ai_cnt`), i.e. every min(cwnd, 50) + 1 ACKs (the kernel
//! uses 50 instead of Kelly's 100 "to account for delayed ACKs": with an ACK per segment
//! that is a = 0.02 per ACK, twice Kelly's); slow start while cwnd ≤ ssthresh (+1 per ACK);
//! on a loss ssthresh = max(cwnd − ⌊cwnd·b⌋, 2), b = 1/8 (the kernel's cwnd − cwnd>>3) over
//! the integer window, cwnd = ssthresh (1 after a timeout); in SACK recovery Linux's rate
//! halving toward the module's `min_cwnd` = ssthresh/2 (`linux::MinCwnd`). With `linux` = 0, Kelly's rule
//! over a float window: cwnd += a per new ACK (a = 0.01), cwnd ← (1 − b)·cwnd on a loss.
//!
//! Parameters (`cc_params`): `linux` = 1, `ai_cnt` = 50 (Linux rule), `a` = 0.01 (Kelly
//! rule), `b` = 0.125.
use super::linux::{self, param_flag, param_in, param_int, snd_cwnd};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

const PARAMS: &[&str] = &["linux", "ai_cnt", "a", "b"];

#[derive(Debug, Clone)]
pub struct Scalable {
    linux: bool,
    ai_cnt: u64,
    a: f64,
    b: f64,
    cwnd_cnt: u64,
    min_cwnd: linux::MinCwnd,
}

impl Scalable {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "scalable";
        check_params(N, params, PARAMS)?;
        let b = param_in(N, params, "b", 0.125, 0.0, 1.0)?;
        if b <= 0.0 || b >= 1.0 {
            return Err(format!("{N}: b = {b} is not allowed; must be in (0, 1)"));
        }
        let a = param_in(N, params, "a", 0.01, 0.0, 1e6)?;
        if a <= 0.0 {
            return Err(format!("{N}: a = {a} is not allowed; must be > 0"));
        }
        Ok(Box::new(Scalable {
            linux: param_flag(N, params, "linux", true)?,
            ai_cnt: param_int(N, params, "ai_cnt", 50, 1, 1_000_000_000)?,
            a,
            b,
            cwnd_cnt: 0,
            min_cwnd: linux::MinCwnd::default(),
        }))
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack(&mut self, st: &mut CcState, _ack: &AckSample) {
        if self.linux {
            if linux::in_slow_start(st) {
                linux::slow_start(st);
            } else {
                self.cwnd_cnt += 1;
                if self.cwnd_cnt > snd_cwnd(st).min(self.ai_cnt) {
                    st.cwnd += 1.0;
                    self.cwnd_cnt = 0;
                }
            }
        } else if st.cwnd < st.ssthresh {
            st.cwnd += 1.0;
        } else {
            st.cwnd += self.a;
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        self.cwnd_cnt = 0;
        if self.linux {
            let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| {
                let w = snd_cwnd(st);
                w.saturating_sub(crate::sim::floor(w as f64 * self.b) as u64).max(2)
            });
            self.min_cwnd.on_congestion(st, signal);
            linux::apply_loss(st, signal, ssthresh);
        } else {
            let w = st.cwnd.min(st.rwnd);
            st.ssthresh = ((1.0 - self.b) * w).max(2.0);
            st.cwnd = match signal {
                Signal::Timeout => 1.0,
                _ => st.ssthresh,
            };
            st.recovery_base = st.cwnd;
        }
    }

    fn on_recovery_ack(&mut self, st: &mut CcState, _ack: &AckSample) {
        if self.linux {
            self.min_cwnd.on_ack(st);
        }
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        st.cwnd = st.recovery_base;
        self.min_cwnd.stop();
    }

    fn tcp_linux(&self) -> bool {
        self.linux
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("scalable_cnt", self.cwnd_cnt as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, dup_ack, test_state};

    fn ack() -> AckSample {
        AckSample {
            acked: 1,
            duplicate: false,
            rtt: None,
            rate: None,
        }
    }

    fn make(pairs: &[(&str, f64)]) -> Box<dyn CongestionControl> {
        let p: Params = pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        create("scalable", &p).unwrap()
    }

    #[test]
    fn linux_rule_adds_a_segment_every_min_cwnd_50_plus_one_acks() {
        // cwnd 200 > 50: the 51st ACK finds the counter at 51 > 50.
        let mut cc = make(&[]);
        let mut st = test_state(200.0, 100.0);
        for _ in 0..50 {
            cc.on_ack(&mut st, &ack());
        }
        assert_eq!(st.cwnd, 200.0);
        cc.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 201.0);
        // cwnd 20 < 50: every 21 ACKs.
        let mut st = test_state(20.0, 10.0);
        let mut cc = make(&[]);
        for _ in 0..21 {
            cc.on_ack(&mut st, &ack());
        }
        assert_eq!(st.cwnd, 21.0);
        // Over a window of 1000 ACKs at w ≈ 1000 the window grows ≈ 1000/51 = 19.6 (≈ 2 % per RTT).
        let mut st = test_state(1000.0, 100.0);
        let mut cc = make(&[]);
        for _ in 0..1000 {
            cc.on_ack(&mut st, &ack());
        }
        assert_eq!(st.cwnd, 1019.0);
    }

    #[test]
    fn loss_gives_up_one_eighth() {
        // Linux: 100 − 100>>3 = 100 − 12 = 88.
        let mut cc = make(&[]);
        let mut st = test_state(100.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (88.0, 88.0));
        st.cwnd = 10.0;
        st.phase = crate::cc::Phase::CongestionAvoidance;
        cc.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.ssthresh, st.cwnd), (9.0, 1.0));
        // Kelly: 100·7/8 = 87.5.
        let mut cc = make(&[("linux", 0.0)]);
        let mut st = test_state(100.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (87.5, 87.5));
    }

    #[test]
    fn kelly_rule_adds_a_hundredth_per_ack() {
        let mut cc = make(&[("linux", 0.0)]);
        let mut st = test_state(100.0, 50.0);
        for _ in 0..100 {
            cc.on_ack(&mut st, &ack());
        }
        assert!((st.cwnd - 101.0).abs() < 1e-9, "{}", st.cwnd);
        let mut cc = make(&[("linux", 0.0), ("a", 0.02)]);
        let mut st = test_state(100.0, 50.0);
        cc.on_ack(&mut st, &ack());
        assert!((st.cwnd - 100.02).abs() < 1e-12);
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("ai_cnt".into(), 0.5);
        assert_eq!(
            create("scalable", &p).err().unwrap(),
            "scalable: ai_cnt = 0.5 is not allowed; must be an integer in [1, 1000000000]"
        );
        let mut p = Params::new();
        p.insert("b".into(), 1.0);
        assert_eq!(
            create("scalable", &p).err().unwrap(),
            "scalable: b = 1 is not allowed; must be in (0, 1)"
        );
        // b = 0.25 with the Linux rule: 100 − 25 = 75
        let mut cc = make(&[("b", 0.25), ("ai_cnt", 10.0)]);
        let mut st = test_state(100.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(st.cwnd, 75.0);
    }

    #[test]
    fn tcp_linux_holds_cwnd_at_half_of_ssthresh() {
        // Linux 2.6.22 (and ns-2.35's TCP-Linux): the module's min_cwnd is ssthresh/2, the
        // floor of the recovery window (the sender's rate halving keeps the sending rate
        // above it). cwnd 72: ssthresh 63, cwnd 31 in recovery, which the module's exit
        // keeps (the sender then raises it to at most ssthresh); the next ACK slow-starts.
        let mut cc = make(&[]);
        assert!(cc.tcp_linux());
        let mut st = test_state(72.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (63.0, 63.0));
        let dup = dup_ack();
        for _ in 0..40 {
            cc.on_recovery_ack(&mut st, &dup);
        }
        assert_eq!(st.cwnd, 31.0);
        cc.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 31.0);
        cc.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 32.0);
        // Kelly's rule (linux = 0) has no such halving
        let mut cc = make(&[("linux", 0.0)]);
        assert!(!cc.tcp_linux());
        let mut st = test_state(72.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        for _ in 0..40 {
            cc.on_recovery_ack(&mut st, &dup);
        }
        cc.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 63.0);
    }
}
