//! TCP-HO and its two testbed variants (Wu Xiuchao's thesis, chapter 2: §2.4 and Fig. 2.3
//! for TCP-HO, §2.5 for TCP-HO-Immediate and TCP-HO-Aggressive), on NewReno as the thesis's
//! FreeBSD 5.4 implementation is.
//!
//! The protocol is split between the backplane and this file. The sender
//! (`tcp/sender/handoff.rs`) negotiates TCP-HO with the Capability option on the SYN, and
//! applies the anti-cheating rule: a Bandwidth option counts only "just after a timeout"
//! (retransmission-timeout recovery with the backed-off timer pending, no new ACK since, the
//! first option since that timeout). It then calls [`CongestionControl::on_bandwidth_option`]
//! here and transmits at once, cancelling the backed-off timer. This file decides the windows:
//!
//! - `tcp_ho`: ssthresh = bw_new × sr_old (sr_old = the smoothed RTT of the old path, the
//!   srtt when the option arrives), cwnd stays 1, state HO-ADJUST. In HO-ADJUST every RTT
//!   sample updates sr_new and sets ssthresh = bw_new × sr_new; the state is left after
//!   `adjust_samples` samples (4, "four samples give an accurate average", after FreeBSD 5.4)
//!   or at the first congestion signal, whichever comes first.
//! - `tcp_ho_immediate`: the immediate transmission only; the bandwidth is ignored.
//! - `tcp_ho_aggressive`: cwnd = ssthresh = bw_new × srtt_old, no HO-ADJUST.
//!
//! Choices where the thesis is silent (docs/tcp.md):
//! - sr_new is the arithmetic mean of the new path's samples so far: with at most four
//!   samples a mean is the "smooth average" the thesis names (RFC 6298's 1/8 gain would
//!   leave more than half the weight on the first sample after four).
//! - bytes become segments with the MSS (ssthresh is bw × RTT bytes of payload, as FreeBSD
//!   counts its windows in bytes), and the threshold is never below 2 segments.
//! - With no RTT sample before the handoff (srtt = 0) ssthresh is left as it is.
//!
//! Parameters: `exit_increase` (NewReno's, default 1) for all three; `adjust_samples`
//! (tcp_ho only, default 4, an integer in [1, 64]).
use super::linux::param_int;
use super::{
    check_params, exit_increase_param, halve, ns2_recovery_exit, reno_increase, AckSample, CcState, CongestionControl,
    Handoff, Params, Recovery, Signal,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Ho,
    Immediate,
    Aggressive,
}

pub struct TcpHo {
    variant: Variant,
    exit_increase: bool,
    adjust_samples: u32,
    /// In HO-ADJUST.
    adjust: bool,
    /// New-path RTT samples in this HO-ADJUST and their sum (seconds).
    samples: u32,
    sum: f64,
    /// The last notified bandwidth (bytes/s), sr_old and sr_new (seconds).
    bw: f64,
    sr_old: f64,
    sr_new: f64,
}

impl TcpHo {
    fn new(variant: Variant, exit_increase: bool, adjust_samples: u32) -> TcpHo {
        TcpHo {
            variant,
            exit_increase,
            adjust_samples,
            adjust: false,
            samples: 0,
            sum: 0.0,
            bw: 0.0,
            sr_old: 0.0,
            sr_new: 0.0,
        }
    }

    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params("tcp_ho", params, &["exit_increase", "adjust_samples"])?;
        let n = param_int("tcp_ho", params, "adjust_samples", 4, 1, 64)? as u32;
        Ok(Box::new(TcpHo::new(
            Variant::Ho,
            exit_increase_param("tcp_ho", params)?,
            n,
        )))
    }

    pub fn create_immediate(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params("tcp_ho_immediate", params, &["exit_increase"])?;
        let e = exit_increase_param("tcp_ho_immediate", params)?;
        Ok(Box::new(TcpHo::new(Variant::Immediate, e, 4)))
    }

    pub fn create_aggressive(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params("tcp_ho_aggressive", params, &["exit_increase"])?;
        let e = exit_increase_param("tcp_ho_aggressive", params)?;
        Ok(Box::new(TcpHo::new(Variant::Aggressive, e, 4)))
    }

    /// bw × rtt in segments, at least 2.
    fn bdp(&self, st: &CcState, rtt: f64) -> f64 {
        (self.bw * rtt / f64::from(st.mss)).max(2.0)
    }

    fn leave_adjust(&mut self, st: &mut CcState, why: f64) {
        self.adjust = false;
        st.log.push(("ho_adjust_exit", why));
    }
}

impl CongestionControl for TcpHo {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::Ho => "tcp_ho",
            Variant::Immediate => "tcp_ho_immediate",
            Variant::Aggressive => "tcp_ho_aggressive",
        }
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn handoff(&self) -> Handoff {
        Handoff::TcpHo
    }

    fn on_bandwidth_option(&mut self, st: &mut CcState, bps: f64) {
        self.bw = bps / 8.0;
        self.sr_old = st.srtt;
        if st.srtt <= 0.0 || self.variant == Variant::Immediate {
            return;
        }
        match self.variant {
            Variant::Ho => {
                st.ssthresh = self.bdp(st, st.srtt);
                (self.adjust, self.samples, self.sum, self.sr_new) = (true, 0, 0.0, 0.0);
                st.log.push(("ho_adjust_enter", st.ssthresh));
            }
            Variant::Aggressive => {
                st.ssthresh = self.bdp(st, st.srtt);
                st.cwnd = st.ssthresh;
            }
            Variant::Immediate => {}
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if self.adjust {
            if let Some(r) = ack.rtt {
                self.samples += 1;
                self.sum += r;
                self.sr_new = self.sum / f64::from(self.samples);
                st.ssthresh = self.bdp(st, self.sr_new);
                if self.samples >= self.adjust_samples {
                    self.leave_adjust(st, 0.0);
                }
            }
        }
        reno_increase(st, ack);
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        if self.adjust {
            self.leave_adjust(st, 1.0);
        }
        halve(st, signal);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        ns2_recovery_exit(st, self.exit_increase);
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("tcp_ho_adjust", f64::from(u8::from(self.adjust))));
        out.push(("tcp_ho_bw", self.bw * 8.0));
        out.push(("tcp_ho_sr_old", self.sr_old));
        out.push(("tcp_ho_sr_new", self.sr_new));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, one_ack, test_state};

    fn ho() -> TcpHo {
        TcpHo::new(Variant::Ho, true, 4)
    }

    #[test]
    fn accepted_option_sets_ssthresh_from_the_old_srtt_and_enters_ho_adjust() {
        // After a timeout: cwnd 1. Old path srtt 0.5 s, new link 7 Mb/s = 875 000 B/s:
        // ssthresh = 875 000 × 0.5 / 1000 = 437.5 segments; cwnd stays 1.
        let mut cc = ho();
        let mut st = test_state(1.0, 8.0);
        st.srtt = 0.5;
        cc.on_bandwidth_option(&mut st, 7e6);
        assert_eq!((st.cwnd, st.ssthresh), (1.0, 437.5));
        assert!(cc.adjust);
        assert_eq!(st.log, vec![("ho_adjust_enter", 437.5)]);
    }

    #[test]
    fn ho_adjust_follows_the_mean_of_four_new_samples_then_leaves() {
        let mut cc = ho();
        let mut st = test_state(1.0, 8.0);
        st.srtt = 0.5;
        cc.on_bandwidth_option(&mut st, 7e6);
        st.log.clear();
        // An ACK without a sample changes nothing but cwnd (slow start: 1 -> 2).
        cc.on_ack(&mut st, &one_ack(None));
        assert_eq!((st.cwnd, st.ssthresh), (2.0, 437.5));
        // samples 0.2, 0.24, 0.22, 0.18: means 0.2, 0.22, 0.22, 0.21;
        // ssthresh = 875 × mean: 175, 192.5, 192.5, 183.75
        let expect = [175.0, 192.5, 192.5, 183.75];
        for (i, r) in [0.2, 0.24, 0.22, 0.18].into_iter().enumerate() {
            cc.on_ack(&mut st, &one_ack(Some(r)));
            assert!((st.ssthresh - expect[i]).abs() < 1e-9, "{i}: {}", st.ssthresh);
            assert_eq!(st.cwnd, 3.0 + i as f64, "slow start goes on toward ssthresh");
        }
        assert!(!cc.adjust, "left after the 4th sample");
        assert_eq!(st.log, vec![("ho_adjust_exit", 0.0)]);
        assert!((cc.sr_new - 0.21).abs() < 1e-12);
        // a 5th sample no longer moves ssthresh
        cc.on_ack(&mut st, &one_ack(Some(0.3)));
        assert!((st.ssthresh - 183.75).abs() < 1e-9);
    }

    #[test]
    fn a_loss_ends_ho_adjust_and_is_handled_as_newreno() {
        let mut cc = ho();
        let mut st = test_state(1.0, 8.0);
        st.srtt = 0.5;
        cc.on_bandwidth_option(&mut st, 7e6);
        cc.on_ack(&mut st, &one_ack(Some(0.2))); // ssthresh 175, cwnd 2
        st.cwnd = 40.0;
        st.log.clear();
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert!(!cc.adjust);
        assert_eq!(st.log, vec![("ho_adjust_exit", 1.0)]);
        assert_eq!((st.ssthresh, st.cwnd), (20.0, 20.0));
        // further samples are plain samples
        cc.on_ack(&mut st, &one_ack(Some(0.05)));
        assert_eq!(st.ssthresh, 20.0);
        // adjust_samples = 2 leaves after two samples
        let mut cc = TcpHo::new(Variant::Ho, true, 2);
        let mut st = test_state(1.0, 8.0);
        st.srtt = 0.5;
        cc.on_bandwidth_option(&mut st, 7e6);
        cc.on_ack(&mut st, &one_ack(Some(0.2)));
        assert!(cc.adjust);
        cc.on_ack(&mut st, &one_ack(Some(0.2)));
        assert!(!cc.adjust);
    }

    #[test]
    fn immediate_ignores_the_bandwidth_and_aggressive_sets_both_windows() {
        let mut cc = TcpHo::new(Variant::Immediate, true, 4);
        let mut st = test_state(1.0, 8.0);
        st.srtt = 0.5;
        cc.on_bandwidth_option(&mut st, 7e6);
        assert_eq!((st.cwnd, st.ssthresh), (1.0, 8.0));
        assert!(!cc.adjust && st.log.is_empty());
        let mut cc = TcpHo::new(Variant::Aggressive, true, 4);
        let mut st = test_state(1.0, 8.0);
        st.srtt = 0.5;
        cc.on_bandwidth_option(&mut st, 7e6);
        assert_eq!((st.cwnd, st.ssthresh), (437.5, 437.5));
        assert!(!cc.adjust);
        // 8 kb/s × 0.5 s = 500 bytes: half a segment, raised to the floor of 2
        let mut cc = ho();
        let mut st = test_state(1.0, 8.0);
        st.srtt = 0.5;
        cc.on_bandwidth_option(&mut st, 8e3);
        assert_eq!(st.ssthresh, 2.0);
        // no RTT sample yet: nothing to multiply by
        let mut cc = ho();
        let mut st = test_state(1.0, 8.0);
        cc.on_bandwidth_option(&mut st, 7e6);
        assert_eq!(st.ssthresh, 8.0);
        assert!(!cc.adjust);
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("adjust_samples".into(), 0.0);
        let e = create("tcp_ho", &p).err().unwrap();
        assert_eq!(
            e,
            "tcp_ho: adjust_samples = 0 is not allowed; must be an integer in [1, 64]"
        );
        let e = create("tcp_ho_immediate", &p).err().unwrap();
        assert!(
            e.starts_with("tcp_ho_immediate has no parameter \"adjust_samples\""),
            "{e}"
        );
        for n in ["tcp_ho", "tcp_ho_immediate", "tcp_ho_aggressive"] {
            let cc = create(n, &Params::new()).unwrap();
            assert_eq!((cc.name(), cc.handoff()), (n, Handoff::TcpHo));
        }
    }
}
