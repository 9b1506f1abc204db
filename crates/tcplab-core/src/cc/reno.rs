//! TCP Reno as ns-2.35's `Agent/TCP/Reno`: fast retransmit and fast recovery that ends with
//! the first new ACK. Parameter `exit_increase` as for NewReno (default 1: the ACK that ends
//! recovery also opens the window, as ns-2's `RenoTcpAgent::recv` does).
use super::{check_params, exit_increase_param, ns2_recovery_exit, CcState, CongestionControl, Params, Recovery};

pub struct Reno {
    pub exit_increase: bool,
}

impl Reno {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params("reno", params, &["exit_increase"])?;
        Ok(Box::new(Reno {
            exit_increase: exit_increase_param("reno", params)?,
        }))
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn recovery(&self) -> Recovery {
        Recovery::Reno
    }
    fn on_recovery_exit(&mut self, st: &mut CcState) {
        ns2_recovery_exit(st, self.exit_increase);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{test_state, Signal};

    #[test]
    fn the_first_new_ack_deflates_then_opens_the_window_as_ns2() {
        let mut st = test_state(20.0, 1e9);
        let mut cc = Reno { exit_increase: true };
        cc.on_congestion(&mut st, Signal::DupAcks);
        st.cwnd += 3.0;
        cc.on_recovery_exit(&mut st);
        assert_eq!((st.cwnd, st.ssthresh), (10.1, 10.0));
        let mut st = test_state(20.0, 1e9);
        let mut cc = Reno { exit_increase: false };
        cc.on_congestion(&mut st, Signal::DupAcks);
        st.cwnd += 3.0;
        cc.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 10.0);
    }
}
