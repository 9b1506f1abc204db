//! ESSE, Early Slow-Start Exit (Lo Cigno, Procissi, Gerla): slow start ends as soon as the
//! window reaches the estimated fair share. No estimate is trusted before the window has
//! reached `min_window` segments (5: "after three RTTs"); at that point the target is drawn
//! once from the estimation-error distribution, and slow start goes on until the window
//! reaches it (at once if the target is below the window). Every slow start (the first one
//! and those after a timeout) is treated the same way.
use super::fair_share::EstimateError;
use super::CcState;

#[derive(Debug, Clone)]
pub struct EarlyExit {
    pub min_window: f64,
    target: Option<f64>,
}

impl EarlyExit {
    pub fn new(min_window: f64) -> EarlyExit {
        EarlyExit {
            min_window,
            target: None,
        }
    }

    /// After the slow-start increase of one new ACK: leave slow start (ssthresh = cwnd) if
    /// the window reached the target. Returns true when it did.
    pub fn after_slow_start_ack(&mut self, st: &mut CcState, error: &EstimateError) -> bool {
        if st.cwnd >= st.ssthresh || st.cwnd < self.min_window {
            return false;
        }
        if self.target.is_none() {
            let Some(share) = st.path.window(st.min_rtt, st.rwnd) else {
                return false;
            };
            self.target = Some(error.draw(share, st.rwnd, &mut st.rng));
        }
        let target = self.target.unwrap();
        if st.cwnd >= target {
            st.ssthresh = st.cwnd;
            self.target = None;
            st.log.push(("esse_exit", st.cwnd));
            return true;
        }
        false
    }

    /// A congestion signal ends the slow start: the next one draws a new target.
    pub fn reset(&mut self) {
        self.target = None;
    }
}
