//! The connection's life: start (with or without a handshake), the application's limit,
//! what leaves per window, completion (FIN) and the dispatch of arriving ACKs by state.
use super::handoff::{HO_NEGOTIATED, PERSIST};
use super::{ConnState, Sender, MAX_BURST};
use crate::cc::{CongestionControl, Pacing};
use crate::net::{Ecn, EcnBits};
use crate::sim::{to_secs, Time};
use crate::tcp::{Kind, SackBlocks, Tx};

impl Sender {
    /// The application starts: open the connection (or start sending at once).
    pub fn start(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.sync(now);
        self.start = now;
        self.cc.init(&mut self.st);
        if let Some(p) = self.preset.as_deref().copied() {
            self.st.cwnd = p.cwnd;
            self.st.ssthresh = p.ssthresh;
            if let Some((srtt, rttvar)) = p.rtt {
                self.assign_rtt(srtt, rttvar);
            }
        }
        self.update_phase();
        if self.cfg.handshake {
            self.state = ConnState::SynSent;
            self.send_control(Kind::Syn, now, out);
            self.arm(now);
        } else {
            self.state = ConnState::Established;
            if let Some(k) = self.kr.as_deref_mut() {
                k.on_establish(&self.st);
            }
            self.try_send(now, out);
        }
    }

    /// The application stops offering new data; what is already sent is still recovered.
    pub fn stop(&mut self) {
        let limit = self.app_limit.map_or(self.snd_max, |l| l.min(self.snd_max));
        self.app_limit = Some(limit);
    }

    /// Replace the congestion-control algorithm of the running connection: cwnd, ssthresh,
    /// srtt/rttvar and the minimum RTT carry over as they are, then the new algorithm's
    /// `on_switch_in` adapts its own state to them.
    pub fn switch_cc(&mut self, now: Time, cc: Box<dyn CongestionControl>, out: &mut Vec<Tx>) {
        self.switch_cc_with(now, cc, false, out);
    }

    /// As [`Sender::switch_cc`]; with `init`, the new algorithm's `init` (element_initialize)
    /// runs first, so that it sets up its own variables from scratch, and the shared cwnd,
    /// ssthresh and fast-recovery base it wrote over are put back (TCP KentRidge's agent
    /// switches so; docs/kentridge.md, "Hand-over").
    pub fn switch_cc_with(&mut self, now: Time, cc: Box<dyn CongestionControl>, init: bool, out: &mut Vec<Tx>) {
        self.sync(now);
        self.cc = cc;
        // Pacing is the algorithm's to set (Sync-TCP's SYNC mode, FAST): the connection's
        // own setting again, or the old algorithm's rate would hold the new one back.
        self.st.pacing = self.cfg.pacing;
        if init {
            let kept = (self.st.cwnd, self.st.ssthresh, self.st.recovery_base);
            self.cc.init(&mut self.st);
            (self.st.cwnd, self.st.ssthresh, self.st.recovery_base) = kept;
        }
        self.cfg.take_cc_sampling(self.cc.as_ref());
        if self.rate.is_none() && self.cc.wants_rate_samples() {
            self.rate = Some(Box::default());
        }
        self.cc.on_switch_in(&mut self.st);
        self.try_send(now, out);
    }

    pub fn started_at(&self) -> Time {
        self.start
    }

    pub(super) fn send_control(&mut self, kind: Kind, now: Time, out: &mut Vec<Tx>) {
        let mut ecn = EcnBits::default();
        if self.cfg.ecn && kind == Kind::Syn {
            // An ECN-setup SYN (RFC 3168 §6.1.1).
            ecn.set_ece(true);
            ecn.set_cwr(true);
        }
        let mut sack = 0;
        if kind == Kind::Syn {
            sack = self.syn_capability();
            if sack != 0 {
                ecn.set_option(Some(crate::net::SegOption::Capability));
            }
        }
        out.push(Tx {
            kind,
            seq: self.snd_max,
            ts: now,
            ts_echo: 0,
            retransmission: false,
            sack,
            ecn,
        });
    }

    pub(super) fn limit(&self) -> u64 {
        self.app_limit.unwrap_or(u64::MAX)
    }

    pub(super) fn emit_data(&mut self, seq: u64, now: Time, out: &mut Vec<Tx>) {
        let retransmission = seq < self.snd_max;
        if retransmission {
            self.stats.retransmits += 1;
            if let Some(k) = self.kr.as_deref_mut() {
                k.on_retransmit(self.snd_max);
            }
            if let Some(sp) = self.spur.as_deref_mut() {
                sp.on_retransmit(seq);
            }
            if !self.tagged.is_empty() {
                self.untag_from(seq);
            }
        } else if !self.cfg.timestamps {
            if self.cfg.rtt_sample_interval == 0 {
                if self.timing.is_none() {
                    self.timing = Some((seq, now));
                }
            } else if now >= self.next_tag {
                self.tagged.push_back((seq, now));
                self.next_tag = now.saturating_add(self.cfg.rtt_sample_interval);
            }
        }
        self.stats.segments_sent += 1;
        if let Some(r) = self.rate.as_deref_mut() {
            r.sent(seq, now, self.snd_max - self.snd_una, retransmission);
        }
        let mut ecn = EcnBits::default();
        if self.cfg.ecn && !retransmission {
            // Retransmissions are Not-ECT, and CWR goes on the first new segment after a
            // reduction (RFC 3168 §6.1.5, §6.1.2).
            ecn.set_codepoint(Ecn::Ect0);
            ecn.set_cwr(std::mem::take(&mut self.cwr_pending));
        }
        out.push(Tx {
            kind: Kind::Data,
            seq,
            ts: now,
            ts_echo: 0,
            retransmission,
            sack: 0,
            ecn,
        });
        self.cc.on_packet_sent(&self.st, seq, retransmission);
    }

    /// The rest of a burst that stopped at [`MAX_BURST`] (`burst_pending`): SACK's NextSeg
    /// in a SACK recovery, else `try_send`.
    pub fn send_more(&mut self, now: Time, out: &mut Vec<Tx>) {
        if self.st.phase == crate::cc::Phase::FastRecovery && self.sack_recovery() {
            self.sack_send(now, out);
        } else {
            self.try_send(now, out);
        }
    }

    /// Send what the window and the application allow.
    pub fn try_send(&mut self, now: Time, out: &mut Vec<Tx>) {
        if self.state != ConnState::Established || self.ho_flag(PERSIST) {
            return;
        }
        let wnd = self.st.window_segments();
        let limit = self.limit();
        let mut sent = false;
        let mut room = MAX_BURST;
        if self.restarts_from_idle() {
            self.cc.on_idle_restart(&mut self.st);
        }
        let pace = if self.st.pacing == Pacing::Off {
            None
        } else {
            self.pace_start(now)
        };
        while self.snd_nxt < limit && self.snd_nxt < self.snd_una.saturating_add(wnd) {
            if room == 0 {
                self.burst_pending = true;
                break;
            }
            if let Some(rate) = pace {
                if !self.pace_take(now, rate) {
                    break;
                }
            }
            room -= 1;
            let seq = self.snd_nxt;
            self.emit_data(seq, now, out);
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            sent = true;
        }
        self.st.flight = self.snd_max - self.snd_una;
        if let Some(r) = self.rate.as_deref_mut() {
            if self.snd_nxt >= limit && self.st.flight < wnd {
                r.app_limited(self.st.flight);
            }
        }
        if sent && self.rto_deadline.is_none() {
            self.arm(now);
        }
    }

    pub(super) fn complete_if_done(&mut self, now: Time, out: &mut Vec<Tx>) {
        if let Some(limit) = self.cfg.size {
            if self.snd_una >= limit && self.state == ConnState::Established {
                if self.cfg.handshake {
                    self.state = ConnState::FinSent;
                    self.send_control(Kind::Fin, now, out);
                    self.arm(now);
                } else {
                    self.state = ConnState::Closed;
                    self.stats.completion = Some(now);
                    self.rto_deadline = None;
                }
                if let Some(k) = self.kr.as_deref_mut() {
                    k.on_disconnect();
                }
            }
        }
    }

    /// An ACK segment (`kind` Ack, SynAck or FinAck) arrives.
    pub fn on_ack(&mut self, now: Time, kind: Kind, ack: u64, ts_echo: Time, out: &mut Vec<Tx>) {
        self.on_ack_sack(now, kind, ack, ts_echo, None, false, out);
    }

    /// An ACK arrives with the SACK blocks it carries, if any, and its ECN-Echo flag.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack_sack(
        &mut self,
        now: Time,
        kind: Kind,
        ack: u64,
        ts_echo: Time,
        sack: Option<&SackBlocks>,
        ece: bool,
        out: &mut Vec<Tx>,
    ) {
        self.sync(now);
        match (kind, self.state) {
            (Kind::SynAck, ConnState::SynSent) => {
                if !self.syn_retransmitted {
                    self.rtt_sample(to_secs(now - ts_echo));
                }
                self.state = ConnState::Established;
                self.rto_deadline = None;
                if let Some(k) = self.kr.as_deref_mut() {
                    k.on_establish(&self.st);
                }
                if !self.ho_flag(HO_NEGOTIATED) && self.syn_capability() != 0 {
                    self.log(now, "ho_negotiated", 0.0);
                }
                self.try_send(now, out);
                return;
            }
            (Kind::FinAck, ConnState::FinSent) => {
                self.state = ConnState::Closed;
                self.stats.completion = Some(now);
                self.rto_deadline = None;
                return;
            }
            (Kind::Ack, ConnState::Established) => {}
            _ => return,
        }
        if self.cfg.ack_extras && self.ack_extras(now, ack, ts_echo, sack) && ack <= self.snd_una {
            // A D-SACK reports a duplicate arrival, not a segment above a hole: no
            // duplicate ACK (RFC 6675 §2's definition counts only new SACK information).
            // What an undo it brought lets out leaves now (in fast recovery, NextSeg waits).
            if self.st.phase != crate::cc::Phase::FastRecovery {
                self.try_send(now, out);
            }
            return;
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack, ts_echo, ece && self.cfg.ecn, out);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.on_dup_ack(now, out);
        }
    }

    /// What an arriving ACK of an established connection does before the backplane acts on
    /// it, for connections that need more than the plain path (one flag, `ack_extras`,
    /// tested per ACK for all of them): TCP KentRidge's newack/dupack slices, and the SACK
    /// scoreboard, after spurious-retransmission detection (which takes a D-SACK block out
    /// of the blocks). Returns whether the ACK carried a D-SACK block.
    #[inline]
    fn ack_extras(&mut self, now: Time, ack: u64, ts_echo: Time, sack: Option<&SackBlocks>) -> bool {
        if self.kr.is_some() {
            self.kr_ack(now, ack, ts_echo);
        }
        if self.spur.is_some() {
            return self.spur_extras(now, ack, ts_echo, sack);
        }
        if self.cfg.sack {
            self.sack_ack(ack, sack);
        }
        false
    }

    /// `ack_extras` with spurious-retransmission detection, out of line (the plain SACK
    /// path stays as it was): the scoreboard gets the blocks other than a D-SACK.
    #[cold]
    #[inline(never)]
    fn spur_extras(&mut self, now: Time, ack: u64, ts_echo: Time, sack: Option<&SackBlocks>) -> bool {
        let (proper, dsack) = self.spur_ack(now, ack, ts_echo, sack);
        if self.cfg.sack {
            self.sack_ack(ack, proper.as_ref().filter(|b| b.n > 0));
        }
        dsack
    }

    /// The SACK scoreboard's part of an ACK: the cumulative ACK, the blocks, the
    /// retransmissions they show lost.
    #[inline(always)]
    fn sack_ack(&mut self, ack: u64, sack: Option<&SackBlocks>) {
        let (una, snd_max, dt) = (ack.max(self.snd_una), self.snd_max, self.cfg.dupthresh);
        let sb = self.sb();
        sb.advance(una, dt);
        let lost_retransmissions = sack.map_or(0, |b| sb.mark(b, snd_max, dt));
        if let (Some(b), Some(r)) = (sack, self.rate.as_deref_mut()) {
            r.sacked(b, snd_max);
        }
        self.rate_sack_losses(lost_retransmissions);
        if lost_retransmissions > 0 && self.st.phase == crate::cc::Phase::FastRecovery {
            self.clamp_to_pipe();
        }
    }

    /// newack_handler / dupack_handler's statistics (TCP KentRidge), out of line: the RTT
    /// sample of the timestamp echo (else the smoothed RTT), Eifel's verdict, the ACK count.
    #[cold]
    #[inline(never)]
    fn kr_ack(&mut self, now: Time, ack: u64, ts_echo: Time) {
        let Some(k) = self.kr.as_deref_mut() else {
            return;
        };
        if ack > self.snd_una {
            let rtt = if self.cfg.timestamps {
                Some(to_secs(now.saturating_sub(ts_echo)))
            } else {
                (self.st.srtt > 0.0).then_some(self.st.srtt)
            };
            k.on_new_ack(ack, rtt, self.cfg.timestamps.then_some(ts_echo), &self.st);
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            k.on_dup_ack();
        }
    }
}
