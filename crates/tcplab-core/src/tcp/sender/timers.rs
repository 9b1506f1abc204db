//! The retransmission timer (RTO with exponential back-off, go-back-N on expiry) and the
//! algorithm's own periodic timer.
use super::handoff::{HO_ACCEPTED, PERSIST};
use super::{ConnState, Sender};
use crate::cc::{Phase, Signal};
use crate::sim::{secs, Time};
use crate::tcp::{Kind, Tx};

impl Sender {
    pub(super) fn rto_from_estimates(&self) -> f64 {
        (self.st.srtt + (4.0 * self.st.rttvar).max(self.cfg.tick))
            .max(self.cfg.min_rto)
            .min(self.cfg.max_rto)
    }

    /// The window the sender works with: cwnd, or during a Linux port's SACK recovery the
    /// rate-halving window when larger (what TCP-Linux's `cwnd_` shows).
    pub fn window(&self) -> f64 {
        self.st
            .cwnd
            .max(self.scoreboard.as_ref().map_or(0, |sb| sb.linux_next) as f64)
    }

    /// Timer value in effect: rto · 2^backoff, capped at max_rto.
    pub fn current_rto(&self) -> f64 {
        (self.rto * f64::from(1u32 << self.backoff.min(20))).min(self.cfg.max_rto)
    }

    pub(super) fn arm(&mut self, now: Time) {
        let from = (self.rto.to_bits(), self.backoff);
        let ns = match self.rto_ns {
            (k, ns) if k == from => ns,
            _ => {
                let ns = secs(self.current_rto());
                self.rto_ns = (from, ns);
                ns
            }
        };
        self.rto_deadline = Some(now.saturating_add(ns));
    }

    /// The retransmission timer fires.
    pub fn on_timeout(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.sync(now);
        self.rto_deadline = None;
        if let Some(sb) = self.scoreboard.as_mut() {
            sb.linux_next = 0;
        }
        match self.state {
            ConnState::SynSent => {
                self.syn_retransmitted = true;
                self.backoff += 1;
                self.stats.timeouts += 1;
                self.send_control(Kind::Syn, now, out);
                self.arm(now);
                return;
            }
            ConnState::FinSent => {
                self.backoff += 1;
                self.stats.timeouts += 1;
                self.send_control(Kind::Fin, now, out);
                self.arm(now);
                return;
            }
            ConnState::Established => {}
            _ => return,
        }
        if self.ho_flag(PERSIST) {
            return self.window_probe(now, out);
        }
        if self.snd_una >= self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        if self.spur.is_some() {
            // the window before the reduction: without a fast-recovery inflation
            let cwnd = if self.st.phase == Phase::FastRecovery {
                self.st.recovery_base
            } else {
                self.st.cwnd
            };
            self.spur_begin(now, true, Some((cwnd, self.st.ssthresh)));
        }
        if let Some(k) = self.kr.as_deref_mut() {
            k.on_timeout(self.stats.segments_sent, self.snd_max, &self.st);
        }
        if let Some(sb) = self.scoreboard.as_mut() {
            sb.clear();
        }
        if self.st.phase == Phase::FastRecovery {
            // Remove the fast-recovery inflation first: the window the timeout halves is
            // the one recovery started from (thesis Table 1.1: "halve ssthresh again").
            self.st.cwnd = self.st.recovery_base;
        }
        self.rate_timeout_losses();
        self.congestion(now, Signal::Timeout);
        self.st.phase = Phase::TimeoutRecovery;
        self.recover = Some(self.snd_max);
        self.ecn_cut = false;
        self.dupacks = 0;
        self.timing = None;
        self.snd_nxt = self.snd_una;
        self.backoff = (self.backoff + 1).min(20);
        self.set_ho(HO_ACCEPTED, false);
        self.arm(now);
        self.try_send(now, out);
    }

    /// The algorithm's own periodic timer.
    pub fn on_cc_timer(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.sync(now);
        self.cc.on_timer(&mut self.st);
        self.try_send(now, out);
    }
}
