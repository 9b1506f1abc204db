//! Spurious retransmissions: a loss episode (a fast retransmit, or a timeout series) whose
//! retransmissions were not needed, found by D-SACK (RFC 2883 §5, RFC 3708: every
//! retransmission of the episode was reported duplicate) or, with timestamps, by Eifel
//! (RFC 3522: the first ACK of new data after the first retransmission echoes a timestamp
//! older than it). With `tcp.undo` the window reduction of such an episode is taken back.
//!
//! The state lives behind `Sender::spur` (boxed: `tcp.dsack`, `tcp.undo`, or KentRidge with
//! timestamps), and every slot sits on a path a plain ACK does not take: the ACK extras,
//! a retransmission, a fast retransmit or a timeout.
use super::Sender;
use crate::cc::Phase;
use crate::sim::Time;
use crate::tcp::SackBlocks;

/// Retransmissions an episode remembers for D-SACK; beyond them D-SACK cannot tell that
/// all were duplicates (Eifel still can).
const MAX_TRACKED: usize = 64;

/// The loss episode being watched.
#[derive(Debug, Clone, Default)]
struct Episode {
    /// Started by a timeout (else by a fast retransmit).
    timeout: bool,
    /// The segment retransmitted first, and when (Eifel's RetransmitTS).
    seq: u64,
    at: Time,
    /// Eifel waits for the episode's first acceptable ACK (one of new data).
    eifel: bool,
    /// Retransmissions not reported duplicate yet (a multiset: a segment sent three times
    /// appears twice), and whether more were made than remembered.
    retx: Vec<u64>,
    overflow: bool,
    /// An acceptable ACK arrived since the episode began (a timeout after it starts a new
    /// episode; one before it is the same series backing off).
    acked: bool,
    /// cwnd and ssthresh before the episode's reduction (`None`: it made none, e.g. a loss
    /// in the window of an ECN response).
    prior: Option<(f64, f64)>,
}

/// Spurious-retransmission detection of one connection, and its counters.
#[derive(Debug, Clone, Default)]
pub struct Spurious {
    ep: Option<Episode>,
    /// D-SACK blocks received.
    pub dsacks: u64,
    /// Fast retransmits and timeouts (series) found spurious.
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Window reductions taken back (`tcp.undo`).
    pub undos: u64,
}

/// What an ACK told about the current episode.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Verdict {
    timeout: bool,
    seq: u64,
    prior: Option<(f64, f64)>,
}

impl Spurious {
    /// A loss episode begins: the fast retransmit of `seq` (or the timeout retransmitting
    /// it) at `now`, reducing the window from `prior`.
    fn begin(&mut self, now: Time, timeout: bool, seq: u64, prior: Option<(f64, f64)>) {
        if timeout {
            if let Some(ep) = self.ep.as_mut().filter(|e| e.timeout && !e.acked) {
                // the timer expired again before any new ACK: the same series
                ep.eifel = true;
                return;
            }
        }
        self.ep = Some(Episode {
            timeout,
            seq,
            at: now,
            eifel: true,
            retx: Vec::new(),
            overflow: false,
            acked: false,
            prior,
        });
    }

    /// Segment `seq` is sent again.
    pub(super) fn on_retransmit(&mut self, seq: u64) {
        if let Some(ep) = self.ep.as_mut() {
            if ep.retx.len() < MAX_TRACKED {
                ep.retx.push(seq);
            } else {
                ep.overflow = true;
            }
        }
    }

    /// Eifel (RFC 3522 §3.2 steps 2-3): the first acceptable ACK after the episode's first
    /// retransmission echoes `ts_echo`.
    fn eifel(&mut self, ts_echo: Time) -> Option<Verdict> {
        let ep = self.ep.as_mut()?;
        ep.acked = true;
        if !std::mem::take(&mut ep.eifel) || ts_echo >= ep.at {
            return None;
        }
        self.conclude()
    }

    /// A D-SACK reports `[start, end)` received twice: the episode's retransmissions of
    /// those segments were not needed; once none is left, the episode was spurious.
    fn dsack(&mut self, (start, end): (u64, u64)) -> Option<Verdict> {
        self.dsacks += 1;
        let ep = self.ep.as_mut()?;
        let before = ep.retx.len();
        for s in start..end.min(start.saturating_add(MAX_TRACKED as u64)) {
            if let Some(i) = ep.retx.iter().position(|&r| r == s) {
                ep.retx.swap_remove(i);
            }
        }
        if ep.retx.len() == before || !ep.retx.is_empty() || ep.overflow {
            return None;
        }
        self.conclude()
    }

    /// The episode was spurious: count it, stop watching it.
    fn conclude(&mut self) -> Option<Verdict> {
        let ep = self.ep.take()?;
        if ep.timeout {
            self.timeouts += 1;
        } else {
            self.fast_retransmits += 1;
        }
        Some(Verdict {
            timeout: ep.timeout,
            seq: ep.seq,
            prior: ep.prior,
        })
    }
}

impl Sender {
    /// The most memory one connection's detection holds (`Sender::spur`): the box, and the
    /// episode's list of retransmissions at its largest. The memory estimate counts it.
    pub fn spurious_state_bytes() -> usize {
        std::mem::size_of::<Spurious>() + MAX_TRACKED * std::mem::size_of::<u64>()
    }

    /// Whether a connection with these options keeps the detection's box (`Sender::new`,
    /// `enable_kentridge`).
    pub fn has_spurious_state(tcp: &crate::scenario::TcpSpec, kentridge: bool) -> bool {
        tcp.dsack || tcp.undo || (kentridge && tcp.timestamps)
    }

    /// A loss episode begins at `now`, before the window is reduced from `prior` (cwnd,
    /// ssthresh; `None`: no reduction).
    pub(super) fn spur_begin(&mut self, now: Time, timeout: bool, prior: Option<(f64, f64)>) {
        let seq = self.snd_una;
        if let Some(sp) = self.spur.as_deref_mut() {
            sp.begin(now, timeout, seq, prior);
        }
    }

    /// The ACK extras' part: Eifel on an acceptable ACK (with timestamps), D-SACK on the
    /// blocks (with `tcp.dsack`). Returns the blocks that are SACK information proper, and
    /// whether the ACK carried a D-SACK block.
    #[cold]
    #[inline(never)]
    pub(super) fn spur_ack(
        &mut self,
        now: Time,
        ack: u64,
        ts_echo: Time,
        sack: Option<&SackBlocks>,
    ) -> (Option<SackBlocks>, bool) {
        let mut verdict = None;
        if self.cfg.timestamps && ack > self.snd_una {
            verdict = self.spur.as_deref_mut().and_then(|sp| sp.eifel(ts_echo));
        }
        let mut blocks = sack.copied();
        let mut dsack = false;
        if let (true, Some(b)) = (self.cfg.dsack, sack) {
            let (d, rest) = b.split_dsack(ack);
            if let Some(d) = d {
                dsack = true;
                blocks = Some(rest);
                if let Some(v) = self.spur.as_deref_mut().and_then(|sp| sp.dsack(d)) {
                    verdict = Some(v);
                }
            }
        }
        if let Some(v) = verdict {
            self.spurious_found(now, v);
        }
        (blocks, dsack)
    }

    /// Turn the undo response on or off (TCP KentRidge's agent, for a knowledge-base row
    /// with the `undo` option). Detection needs the `spur` box, which a KentRidge flow
    /// with timestamps or D-SACK has (the row's capabilities ask for one of them).
    pub(crate) fn set_undo(&mut self, on: bool) {
        self.cfg.undo = on && self.spur.is_some();
    }

    /// An episode was found spurious: KentRidge's statistics hear of it, and with
    /// `tcp.undo` its reduction is taken back.
    fn spurious_found(&mut self, now: Time, v: Verdict) {
        if let Some(k) = self.kr.as_deref_mut() {
            if v.timeout {
                k.on_spurious_timeout(now);
            } else {
                k.on_spurious_fast_retransmit(now, v.seq);
            }
        }
        if self.cfg.dsack || self.cfg.undo {
            let name = if v.timeout {
                "spurious_timeout"
            } else {
                "spurious_retransmit"
            };
            self.log(now, name, v.seq as f64);
        }
        if let (true, Some(prior)) = (self.cfg.undo, v.prior) {
            self.undo(now, prior);
        }
    }

    /// Take a reduction back: cwnd and ssthresh return to at least their values before it;
    /// a recovery in progress ends (the algorithm's exit first), and after a timeout the
    /// go-back-N retransmissions stop (RFC 4015 §3.2 step 4: SND.NXT = SND.MAX).
    fn undo(&mut self, now: Time, (cwnd, ssthresh): (f64, f64)) {
        match self.st.phase {
            Phase::FastRecovery => {
                self.cc.on_recovery_exit(&mut self.st);
                if let Some(sb) = self.scoreboard.as_mut() {
                    sb.linux_next = 0;
                }
            }
            Phase::TimeoutRecovery => self.snd_nxt = self.snd_max,
            _ => {}
        }
        self.dupacks = 0;
        self.st.cwnd = self.st.cwnd.max(cwnd);
        self.st.ssthresh = self.st.ssthresh.max(ssthresh);
        self.update_phase();
        if let Some(sp) = self.spur.as_deref_mut() {
            sp.undos += 1;
        }
        for (n, v) in std::mem::take(&mut self.st.log) {
            self.log(now, n, v);
        }
        self.log(now, "undo", self.st.cwnd);
    }
}
