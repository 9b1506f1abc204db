//! ACK processing and loss recovery: new ACKs (window growth, leaving fast recovery, partial
//! ACKs), duplicate ACKs (fast retransmit, Limited Transmit), and congestion signals from
//! outside the ACK clock.
use super::handoff::PERSIST;
use super::Sender;
use crate::cc::{AckSample, Phase, Recovery, Signal};
use crate::sim::{floor, to_secs, Time};
use crate::tcp::Tx;

impl Sender {
    pub(super) fn on_new_ack(&mut self, now: Time, ack: u64, ts_echo: Time, ece: bool, out: &mut Vec<Tx>) {
        let acked = ack - self.snd_una;
        let rtt = if self.cfg.timestamps {
            Some(to_secs(now.saturating_sub(ts_echo)))
        } else if self.cfg.rtt_sample_interval > 0 {
            self.tagged_sample(now, ack)
        } else {
            match self.timing {
                Some((seq, sent)) if ack > seq => {
                    self.timing = None;
                    Some(to_secs(now - sent))
                }
                _ => None,
            }
        };
        if let Some(r) = rtt {
            self.rtt_sample(r);
        }
        let rate = self.rate_sample(now, ack);
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.st.flight = self.snd_max - self.snd_una;
        let sample = AckSample {
            acked,
            duplicate: false,
            rtt,
            rate,
        };
        self.cc.on_ack_arrival(&self.st, &sample);

        if self.st.phase == Phase::FastRecovery {
            let full = self.recover.is_none_or(|r| ack >= r);
            // Reno leaves recovery with the first new ACK; SACK recovery (RFC 6675) goes on
            // to the recovery point whatever the algorithm.
            if full || (self.cc.recovery() == Recovery::Reno && !self.cfg.sack) {
                self.cc.on_recovery_exit(&mut self.st);
                let linux = self
                    .scoreboard
                    .as_mut()
                    .map_or(0, |sb| std::mem::take(&mut sb.linux_next));
                if linux > 0 && self.st.cwnd < self.st.ssthresh {
                    // TCP-Linux's exit from recovery: up to ssthresh, but at most 3 segments
                    // beyond those in flight (`tcp_moderate_cwnd`).
                    let (snd_max, dt) = (self.snd_max, self.cfg.dupthresh);
                    let pipe = self.sb().pipe(snd_max, dt) as f64;
                    self.st.cwnd = self.st.ssthresh.min(pipe + 3.0);
                }
                self.dupacks = 0;
                self.update_phase();
            } else if self.sack_recovery() {
                // Partial ACK: NextSeg picks what to send; the timer restarts (RFC 6298).
                self.cc.on_recovery_ack(&mut self.st, &sample);
                self.arm(now);
                self.sack_send(now, out);
                return;
            } else {
                // Partial ACK: retransmit the next hole, deflate by the amount acknowledged
                // and add back one segment (RFC 6582), stay in fast recovery. The timer is
                // re-armed on the first partial ACK only (RFC 6582's "Impatient" variant, as
                // ns-2's newreno_changes1_), so that a window with many losses ends in a
                // timeout instead of one retransmission per round trip.
                self.rate_head_lost();
                self.emit_data(self.snd_una, now, out);
                self.st.cwnd = (self.st.cwnd - acked as f64 + 1.0).max(1.0);
                // Once the inflation is used up, the deflation eats into the base window.
                self.st.recovery_base = self.st.recovery_base.min(self.st.cwnd - 1.0).max(1.0);
                if !self.partial_ack_seen {
                    self.partial_ack_seen = true;
                    self.arm(now);
                }
                self.try_send(now, out);
                return;
            }
        } else {
            self.dupacks = 0;
            if !ece {
                self.cc.on_ack(&mut self.st, &sample);
                if self.st.cwnd > self.st.rwnd && self.cc.tcp_linux() {
                    self.st.cwnd = self.st.rwnd.max(1.0);
                }
            } else if self.recover.is_none_or(|r| ack > r) {
                self.ecn_reduce(now);
            }
            // An ACK with ECN-Echo never opens the window (as ns-2's `recv_newack_helper`).
            self.update_phase();
        }
        if self.snd_una < self.snd_max || self.ho_flag(PERSIST) {
            self.arm(now);
        } else {
            self.rto_deadline = None;
        }
        self.flush_cc_log(now);
        self.complete_if_done(now, out);
        self.try_send(now, out);
    }

    /// Record the events an algorithm logged outside a congestion signal.
    fn flush_cc_log(&mut self, now: Time) {
        if self.st.log.is_empty() {
            return;
        }
        for (n, v) in std::mem::take(&mut self.st.log) {
            self.log(now, n, v);
        }
    }

    pub(super) fn on_dup_ack(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.dupacks += 1;
        let sample = AckSample {
            acked: 0,
            duplicate: true,
            rtt: None,
            rate: self.rate_sample(now, self.snd_una),
        };
        self.cc.on_ack_arrival(&self.st, &sample);
        if self.st.phase == Phase::FastRecovery {
            if self.sack_recovery() {
                self.cc.on_recovery_ack(&mut self.st, &sample);
                self.sack_send(now, out);
                return;
            }
            self.st.cwnd += 1.0;
            self.try_send(now, out);
            return;
        }
        if self.dupacks < self.cfg.dupthresh && self.cfg.limited_transmit {
            self.limited_transmit(now, out);
        }
        // TCP-Linux (`tcp_fastretrans_alert`) returns to the open state once everything
        // outstanding at the last reduction is acknowledged (snd_una = recover) and from
        // there starts a recovery on the first ACK after which its scoreboard finds
        // snd_una lost: the first segment sent after a fast retransmit, lost, is recovered,
        // not left to the RTO (ns-2's NewReno waits for an ACK beyond recover). Duplicate
        // ACKs without SACKed data above (go-back-N's needless retransmissions after a
        // timeout) are no loss.
        let linux_open = self.recover == Some(self.snd_una)
            && self.dupacks >= self.cfg.dupthresh
            && self.cc.tcp_linux()
            && self.sack_recovery()
            && self.scoreboard.as_ref().is_some_and(|sb| sb.is_lost(self.snd_una));
        if self.dupacks != self.cfg.dupthresh && !linux_open {
            return;
        }
        let mut reduce = true;
        if let Some(r) = self.recover {
            if self.snd_una <= r && !linux_open {
                // Still inside the window of the previous reduction: not a new loss event,
                // unless that reduction answered an ECN-Echo; then the loss is recovered
                // without reducing the window a second time (RFC 3168 §6.1.2, as ns-2).
                if !std::mem::take(&mut self.ecn_cut) {
                    return;
                }
                reduce = false;
            }
        }
        self.ecn_cut = false;
        self.recover = Some(self.snd_max);
        self.stats.fast_retransmits += 1;
        if self.spur.is_some() {
            let prior = reduce.then_some((self.st.cwnd, self.st.ssthresh));
            self.spur_begin(now, false, prior);
        }
        if let Some(k) = self.kr.as_deref_mut() {
            k.on_fast_retransmit(
                self.snd_una,
                self.dupacks,
                self.stats.segments_sent,
                self.snd_max,
                &self.st,
            );
        }
        self.rate_head_lost();
        self.timing = None;
        let before = crate::sim::floor(self.st.cwnd) as u64;
        if reduce {
            self.congestion(now, Signal::DupAcks);
        } else {
            self.log(now, "fast_retransmit", self.st.cwnd);
        }
        if self.sack_recovery() {
            // RFC 6675: retransmit the first segment, then send while cwnd - pipe >= 1;
            // the window is not inflated.
            self.st.recovery_base = self.st.cwnd;
            self.st.phase = Phase::FastRecovery;
            self.partial_ack_seen = false;
            if self.cc.tcp_linux() {
                self.sb().linux_next = before.max(1);
            }
            let (una, snd_max) = (self.snd_una, self.snd_max);
            self.sb().retransmitting(una, snd_max);
            self.emit_data(self.snd_una, now, out);
            self.arm(now);
            self.sack_send(now, out);
            return;
        }
        match self.cc.recovery() {
            Recovery::None => {
                // Tahoe: go back to the hole and slow-start from the new window.
                self.snd_nxt = self.snd_una;
                self.update_phase();
                self.arm(now);
                self.try_send(now, out);
            }
            Recovery::Reno | Recovery::NewReno => {
                self.emit_data(self.snd_una, now, out);
                self.st.recovery_base = self.st.cwnd;
                self.st.cwnd += f64::from(self.cfg.dupthresh);
                self.st.phase = Phase::FastRecovery;
                self.partial_ack_seen = false;
                self.arm(now);
                self.try_send(now, out);
            }
        }
    }

    /// Limited Transmit (RFC 3042) as ns-2.35's `send_one` (`singledup_`): a duplicate ACK
    /// before the threshold lets the next segment out, up to cwnd + dupacks beyond the
    /// cumulative ACK. The next segment is `snd_nxt`: new data normally, but after a
    /// timeout, while go-back-N is still below `snd_max`, a segment already sent (ns-2
    /// sends `t_seqno_`, reset to `highest_ack_ + 1` by the timeout).
    fn limited_transmit(&mut self, now: Time, out: &mut Vec<Tx>) {
        let allowed = (floor(self.st.cwnd) + f64::from(self.dupacks)).min(floor(self.st.rwnd)) as u64;
        if self.snd_nxt < self.limit() && self.snd_nxt < self.snd_una + allowed {
            let seq = self.snd_nxt;
            self.emit_data(seq, now, out);
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            self.st.flight = self.snd_max - self.snd_una;
        }
    }

    /// A congestion signal from outside the ACK clock (ECN or an explicit notification).
    pub fn on_notification(&mut self, now: Time, signal: Signal, out: &mut Vec<Tx>) {
        self.sync(now);
        if let Some(k) = self.kr.as_deref_mut() {
            k.on_notification(now);
        }
        if self.st.phase == Phase::FastRecovery || self.st.phase == Phase::TimeoutRecovery {
            return;
        }
        self.congestion(now, signal);
        self.update_phase();
        self.try_send(now, out);
    }

    /// The response to an ECN-Echo outside the window of the last reduction: the algorithm's
    /// reduction for `Signal::Ecn`, no retransmission, CWR on the next new segment.
    fn ecn_reduce(&mut self, now: Time) {
        self.recover = Some(self.snd_max);
        self.ecn_cut = true;
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
        if let Some(k) = self.kr.as_deref_mut() {
            k.on_ecn(&self.st);
        }
        self.congestion(now, Signal::Ecn);
    }

    /// Whether loss recovery is SACK-based: SACK on, and the algorithm recovers at all
    /// (Tahoe's go-back-N stays as it is).
    #[inline]
    pub(super) fn sack_recovery(&self) -> bool {
        self.cfg.sack && self.cc.recovery() != Recovery::None
    }
}
