//! TCP NewReno (RFC 6582): the reference algorithm. Its window arithmetic is the standard
//! one of the trait's defaults; what makes it NewReno is the backplane's recovery with
//! partial and full ACKs, selected by `recovery()`.
use super::{check_params, CongestionControl, Params, Recovery};

pub struct NewReno;

impl NewReno {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params("newreno", params, &[])?;
        Ok(Box::new(NewReno))
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{test_state, AckSample, Signal};

    #[test]
    fn slow_start_then_congestion_avoidance() {
        let mut cc = NewReno;
        let mut st = test_state(1.0, 4.0);
        let ack = AckSample {
            acked: 1,
            duplicate: false,
            rtt: None,
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
        let mut cc = NewReno;
        let mut st = test_state(20.0, 100.0);
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (10.0, 10.0));
        let mut st = test_state(20.0, 100.0);
        cc.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.ssthresh, st.cwnd), (10.0, 1.0));
    }
}
