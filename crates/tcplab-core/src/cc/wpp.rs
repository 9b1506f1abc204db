//! WpP, Window p-Persistent (Lo Cigno, Procissi, Gerla): in congestion avoidance the window
//! grows by one segment per RTT only with probability p. The simulator uses the paper's
//! deterministic form, cwnd += p/cwnd per new ACK (p segments per RTT on average), which
//! lowers the loop gain without adding randomness. Slow start is unchanged.
use super::{reno_increase, AckSample, CcState};

pub fn wpp_increase(st: &mut CcState, ack: &AckSample, p: f64) {
    if st.cwnd < st.ssthresh {
        reno_increase(st, ack);
    } else {
        st.cwnd += p / st.cwnd;
    }
}
