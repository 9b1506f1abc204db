//! TCP Tahoe: fast retransmit, then slow start from one segment (no fast recovery).
use super::{check_params, half_window, CcState, CongestionControl, Params, Recovery, Signal};

pub struct Tahoe;

impl Tahoe {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params("tahoe", params, &[])?;
        Ok(Box::new(Tahoe))
    }
}

impl CongestionControl for Tahoe {
    fn name(&self) -> &'static str {
        "tahoe"
    }
    fn recovery(&self) -> Recovery {
        Recovery::None
    }
    fn on_congestion(&mut self, st: &mut CcState, _signal: Signal) {
        st.ssthresh = half_window(st);
        st.cwnd = 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_state;

    #[test]
    fn every_congestion_signal_restarts_from_one() {
        let mut st = test_state(16.0, 100.0);
        Tahoe.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (8.0, 1.0));
    }
}
