//! RTT sampling: the smoothed estimates (RFC 6298) from measured samples, or given from
//! outside (TCBI).
use super::Sender;

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
}
