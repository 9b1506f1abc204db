//! TCP NewReno (RFC 6582) as ns-2.35's `Agent/TCP/Newreno`: the reference algorithm. Its
//! window arithmetic is the standard one of the trait's defaults; what makes it NewReno is
//! the backplane's recovery with partial and full ACKs, selected by `recovery()`.
//!
//! Parameter `exit_increase` (default 1): the full ACK that ends fast recovery returns the
//! window to the un-inflated w/2 and then opens it like any new ACK, as ns-2.35 does
//! ([`ns2_recovery_exit`]); 0 leaves it at w/2 (RFC 6582's deflation without an increase).
use super::{check_params, exit_increase_param, ns2_recovery_exit, CcState, CongestionControl, Params, Recovery};

pub struct NewReno {
    pub exit_increase: bool,
}

impl NewReno {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params("newreno", params, &["exit_increase"])?;
        Ok(Box::new(NewReno {
            exit_increase: exit_increase_param("newreno", params)?,
        }))
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    fn on_recovery_exit(&mut self, st: &mut CcState) {
        ns2_recovery_exit(st, self.exit_increase);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state, AckSample, Signal};

    fn ns2() -> NewReno {
        NewReno { exit_increase: true }
    }

    #[test]
    fn slow_start_then_congestion_avoidance() {
        let mut cc = ns2();
        let mut st = test_state(1.0, 4.0);
        let ack = AckSample {
            acked: 1,
            duplicate: false,
            rtt: None,
            rate: None,
        };
        for expected in [2.0, 3.0, 4.0] {
            cc.on_ack(&mut st, &ack);
            assert_eq!(st.cwnd, expected);
        }
        cc.on_ack(&mut st, &ack);
        assert!((st.cwnd - 4.25).abs() < 1e-12);
    }

    #[test]
    fn halves_on_dupacks_and_restarts_on_timeout() {
        let mut cc = ns2();
        let mut st = test_state(20.0, 100.0);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (10.0, 10.0));
        let mut st = test_state(20.0, 100.0);
        cc.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.ssthresh, st.cwnd), (10.0, 1.0));
    }

    #[test]
    fn the_recovery_ending_ack_deflates_then_opens_the_window_as_ns2() {
        // ns-2.35 traced (1 flow, 1 % loss, seed 1): cwnd_ 18.776 during recovery, the full
        // ACK sets it to 18.829 = 18.776 + 1/18.776 (dupwnd_ dropped, then opencwnd()).
        let mut cc = ns2();
        let mut st = test_state(37.552, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (18.0, 18.776));
        st.cwnd += 3.0 + 30.0; // inflation by the duplicate ACKs
        cc.on_recovery_exit(&mut st);
        assert!((st.cwnd - (18.776 + 1.0 / 18.776)).abs() < 1e-12, "{}", st.cwnd);
        // Partial ACKs deflated the base below ssthresh: the exit ACK is a slow-start ACK.
        let mut st = test_state(20.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        st.recovery_base = 2.5;
        cc.on_recovery_exit(&mut st);
        assert_eq!((st.cwnd, st.ssthresh), (3.5, 10.0));
        // exit_increase = 0: the window stays at the un-inflated half.
        let mut cc = NewReno { exit_increase: false };
        let mut st = test_state(37.552, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        st.cwnd += 33.0;
        cc.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 18.776);
    }

    #[test]
    fn exit_increase_parameter_is_0_or_1_and_defaults_to_ns2() {
        let mut p = Params::new();
        let mut st = test_state(10.0, 5.0);
        st.recovery_base = 5.0;
        create("newreno", &p).unwrap().on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 5.2);
        p.insert("exit_increase".into(), 0.0);
        st.recovery_base = 5.0;
        create("newreno", &p).unwrap().on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 5.0);
        p.insert("exit_increase".into(), 0.5);
        let e = create("newreno", &p).err().unwrap();
        assert_eq!(e, "newreno: exit_increase = 0.5 is not allowed; must be 0 or 1");
    }
}
