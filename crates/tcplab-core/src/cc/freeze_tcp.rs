//! Freeze-TCP (Goff, Moronski, Phatak, Gupta, "Freeze-TCP: a true end-to-end TCP
//! enhancement mechanism for mobile environments", INFOCOM 2000), as the comparison protocol
//! of the thesis's chapter 2, on NewReno.
//!
//! The mobile host (the receiver, `tcp/receiver.rs`) advertises a zero window one RTT
//! before the predicted disconnection, and after reconnection sends three duplicate ACKs
//! of its last in-order segment with its window open again. The sender's part is the
//! standard zero-window handling of the backplane (`tcp/sender/handoff.rs`: persist mode,
//! window probes with back-off, resumption on a window update). What is Freeze-TCP's own
//! is here: while the advertised window is zero, cwnd and ssthresh stay frozen (ACKs of the
//! data still in flight do not open the window), so the sender resumes with the values it
//! had before the disconnection.
//!
//! The prediction is the simulator's (see `freeze_offset` in docs/tcp.md): the mobile host
//! knows the disconnection time and the connection's smoothed RTT; the offset shifts the
//! advertisement to study mis-prediction. Parameter: `exit_increase` (NewReno's, default 1).
use super::{
    check_params, exit_increase_param, ns2_recovery_exit, reno_increase, AckSample, CcState, CongestionControl,
    Handoff, Params, Recovery,
};

pub struct FreezeTcp {
    exit_increase: bool,
    frozen: bool,
}

impl FreezeTcp {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params("freeze_tcp", params, &["exit_increase"])?;
        Ok(Box::new(FreezeTcp {
            exit_increase: exit_increase_param("freeze_tcp", params)?,
            frozen: false,
        }))
    }
}

impl CongestionControl for FreezeTcp {
    fn name(&self) -> &'static str {
        "freeze_tcp"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn handoff(&self) -> Handoff {
        Handoff::Freeze
    }

    fn on_ack_arrival(&mut self, st: &CcState, _ack: &AckSample) {
        self.frozen = st.rwnd < 1.0;
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if st.rwnd >= 1.0 {
            reno_increase(st, ack);
        }
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        ns2_recovery_exit(st, self.exit_increase);
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("freeze_frozen", f64::from(u8::from(self.frozen))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, one_ack, test_state};

    #[test]
    fn the_window_is_frozen_while_the_advertised_window_is_zero() {
        let mut cc = FreezeTcp {
            exit_increase: true,
            frozen: false,
        };
        let mut st = test_state(10.0, 20.0);
        st.rwnd = 0.0;
        let ack = one_ack(None);
        cc.on_ack_arrival(&st, &ack);
        cc.on_ack(&mut st, &ack);
        assert_eq!((st.cwnd, st.ssthresh), (10.0, 20.0));
        assert!(cc.frozen);
        // reopened: slow start again (10 < 20 -> 11)
        st.rwnd = 64.0;
        cc.on_ack_arrival(&st, &ack);
        cc.on_ack(&mut st, &ack);
        assert_eq!(st.cwnd, 11.0);
        assert!(!cc.frozen);
        let cc = create("freeze_tcp", &Params::new()).unwrap();
        assert_eq!(cc.handoff(), Handoff::Freeze);
    }
}
