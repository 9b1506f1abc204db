//! Per-connection statistics kept beside the TCP machines (the sender's own counters,
//! `tcp::SenderStats`, count segments, retransmissions and timeouts). A new per-connection
//! statistic is a field here, filled by a hook the transport calls at the matching point
//! of a connection's life (start, ACK, close), and a column in `flows.rs`.
use crate::tcp::Sender;

/// A connection's initial control block as it started (for the flows table).
#[derive(Debug, Clone, Copy)]
pub struct InitRecord {
    pub cwnd: f64,
    pub ssthresh: f64,
    pub srtt: f64,
    pub rttvar: f64,
}

#[derive(Debug, Clone, Default)]
pub struct ConnStats {
    /// Set when the connection starts.
    pub init: Option<InitRecord>,
}

impl ConnStats {
    /// The connection started: `s` holds its initial control block.
    pub fn on_start(&mut self, s: &Sender) {
        let st = &s.st;
        let seeded = s.has_rtt();
        self.init = Some(InitRecord {
            cwnd: st.cwnd,
            ssthresh: st.ssthresh,
            srtt: if seeded { st.srtt } else { f64::NAN },
            rttvar: if seeded { st.rttvar } else { f64::NAN },
        });
    }
}
