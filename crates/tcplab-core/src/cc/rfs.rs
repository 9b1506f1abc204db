//! RFS, Restart from Fair Share (Lo Cigno, Procissi, Gerla): when fast recovery ends,
//! congestion avoidance resumes from the (estimated) fair-share window instead of half the
//! window at the loss. A loss of the retransmission still ends in a timeout, unchanged.
use super::fair_share::EstimateError;
use super::CcState;

/// Set cwnd = ssthresh = the drawn fair-share window; false (nothing changed) when no
/// estimate exists yet (no RTT sample or no path), so the caller falls back to NewReno.
pub fn restart_from_fair_share(st: &mut CcState, error: &EstimateError) -> bool {
    let Some(share) = st.path.window(st.min_rtt, st.rwnd) else {
        return false;
    };
    let w = error.draw(share, st.rwnd, &mut st.rng);
    st.cwnd = w;
    st.ssthresh = w;
    st.log.push(("rfs_window", w));
    true
}
