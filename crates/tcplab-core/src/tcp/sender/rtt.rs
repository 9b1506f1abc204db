//! RTT sampling: the smoothed estimates (RFC 6298) from measured samples, or given from
//! outside (TCBI).
use super::Sender;
use crate::sim::{to_secs, Time};

impl Sender {
    /// True once srtt/rttvar hold an estimate (a sample, or values given from outside).
    pub fn has_rtt(&self) -> bool {
        self.has_rtt
    }

    /// Set srtt and rttvar from outside (TCBI) and recompute the RTO from them; later
    /// samples smooth from these values. The back-off and a running timer are kept.
    pub fn assign_rtt(&mut self, srtt: f64, rttvar: f64) {
        self.has_rtt = true;
        self.st.srtt = srtt;
        self.st.rttvar = rttvar;
        self.rto = self.rto_from_estimates();
    }

    pub(super) fn rtt_sample(&mut self, r: f64) {
        let tick = self.cfg.tick;
        let r = if tick > 0.0 {
            (r / tick).round().max(1.0) * tick
        } else {
            r
        };
        if !self.has_rtt {
            self.has_rtt = true;
            self.st.srtt = r;
            self.st.rttvar = r / 2.0;
        } else {
            let delta = r - self.st.srtt;
            self.st.srtt += delta / 8.0;
            self.st.rttvar += (delta.abs() - self.st.rttvar) / 4.0;
        }
        self.st.min_rtt = self.st.min_rtt.min(r);
        self.rto = self.rto_from_estimates();
        self.backoff = 0;
        self.cc.on_rtt_sample(&self.st, r);
    }

    /// The RTT sample a new cumulative ACK `ack` gives in fixed-interval sampling: from the
    /// latest tagged segment it covers (earlier covered ones waited for it); the covered
    /// tags are done.
    pub(super) fn tagged_sample(&mut self, now: Time, ack: u64) -> Option<f64> {
        let mut sent = None;
        while let Some(&(seq, t)) = self.tagged.front() {
            if seq >= ack {
                break;
            }
            sent = Some(t);
            self.tagged.pop_front();
        }
        sent.map(|t| to_secs(now - t))
    }

    /// Karn's rule: segment `seq` is sent again, so tags on it and on later segments (whose
    /// ACKs now wait for the retransmission) give no sample.
    pub(super) fn untag_from(&mut self, seq: u64) {
        while self.tagged.back().is_some_and(|&(s, _)| s >= seq) {
            self.tagged.pop_back();
        }
    }
}
