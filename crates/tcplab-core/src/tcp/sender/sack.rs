//! SACK-based loss recovery (RFC 6675): the scoreboard of segments the receiver reported
//! (SACKed) and the ones retransmitted, the `pipe` estimate of segments in the network,
//! and NextSeg, which picks what to send while cwnd - pipe >= 1 during recovery.
//!
//! Everything is counted in segments. IsLost(s) holds when at least `dupthresh` SACKed
//! segments lie above s; since that count only falls with s, the lost segments are the
//! unSACKed ones below one boundary, the `dupthresh`-th highest SACKed segment, which the
//! scoreboard keeps up to date as SACKs arrive, so that pipe and NextSeg cost no scan of
//! the window.
use super::Sender;
use crate::sim::Time;
use crate::tcp::{SackBlocks, Tx};
use std::collections::VecDeque;

const SACKED: u8 = 1;
const RETRANSMITTED: u8 = 2;

#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    /// Flags of segments `base`, `base + 1`, ... (up to the highest one marked).
    flags: VecDeque<u8>,
    base: u64,
    /// SACKed segments at or above `base`.
    sacked: u64,
    /// Retransmitted segments at or above `base` that are not SACKed.
    retransmitted: u64,
    /// One past the highest SACKed segment (0: none).
    high_sacked: u64,
    /// The `dupthresh`-th highest SACKed segment: unSACKed segments below it are lost.
    lost_below: Option<u64>,
    /// NextSeg's cursor: segments below it are SACKed or retransmitted (RFC 6675's
    /// HighRxt + 1, moved past SACKed segments too).
    cursor: u64,
    /// Retransmissions in the order made, with `snd_max` at the time: once a segment sent
    /// after a retransmission is SACKed and the retransmission is not, it was lost too.
    retx_log: VecDeque<(u64, u64)>,
    /// TCP-Linux's rate-halving window during the SACK recovery of a Linux port
    /// (`CongestionControl::tcp_linux`, its glue's `next_pkts_in_flight_`), 0 otherwise.
    pub(super) linux_next: u64,
    /// Ranges every segment of which (at or above `base`) is SACKed: what earlier ACKs'
    /// blocks reported. An ACK repeats its predecessors' blocks, the first one grown by the
    /// newest segment, so `mark` walks only what they add instead of the whole blocks again
    /// (which made a long recovery quadratic in the window). `(0, 0)`: an empty place.
    known: [(u64, u64); KNOWN_RANGES],
}

/// How many SACKed ranges the scoreboard remembers (the receiver reports 3 per ACK).
const KNOWN_RANGES: usize = 4;

impl Scoreboard {
    fn flag(&self, seq: u64) -> u8 {
        seq.checked_sub(self.base)
            .and_then(|k| self.flags.get(k as usize))
            .copied()
            .unwrap_or(0)
    }

    fn flag_mut(&mut self, seq: u64) -> &mut u8 {
        let k = (seq - self.base) as usize;
        if self.flags.len() <= k {
            self.flags.resize(k + 1, 0);
        }
        &mut self.flags[k]
    }

    /// The cumulative ACK moved to `una`.
    pub fn advance(&mut self, una: u64, dupthresh: u32) {
        while self.base < una {
            match self.flags.pop_front() {
                Some(f) if f & SACKED != 0 => self.sacked -= 1,
                Some(f) if f & RETRANSMITTED != 0 => self.retransmitted -= 1,
                _ => {}
            }
            self.base += 1;
        }
        self.cursor = self.cursor.max(una);
        if self.lost_below.is_some_and(|l| l < una) {
            self.find_lost_boundary(dupthresh);
        }
    }

    /// The receiver reported the segments of `blocks` (clipped to [base, snd_max)); returns
    /// the retransmissions this found lost.
    pub fn mark(&mut self, blocks: &SackBlocks, snd_max: u64, dupthresh: u32) -> u64 {
        let mut moved = false;
        for (start, end) in blocks.iter() {
            let (start, end) = (start.max(self.base), end.min(snd_max));
            if start >= end {
                continue;
            }
            // Only the part no remembered range covers can hold segments not yet SACKed;
            // skipping the rest changes nothing (those segments would be passed over below).
            let (new_start, new_end) = self.unknown_part(start, end);
            self.remember(start, end);
            for seq in new_start..new_end {
                let f = self.flag_mut(seq);
                if *f & SACKED != 0 {
                    continue;
                }
                let was_retransmitted = *f & RETRANSMITTED != 0;
                *f |= SACKED;
                self.sacked += 1;
                if was_retransmitted {
                    self.retransmitted -= 1;
                }
                self.high_sacked = self.high_sacked.max(seq + 1);
                moved |= self.lost_below.is_none_or(|l| seq > l);
            }
        }
        if moved {
            self.find_lost_boundary(dupthresh);
        }
        self.detect_lost_retransmissions()
    }

    /// `[start, end)` less the remembered ranges that cover its beginning or its end.
    fn unknown_part(&self, mut start: u64, mut end: u64) -> (u64, u64) {
        loop {
            let before = (start, end);
            for &(ks, ke) in &self.known {
                if ks <= start && start < ke {
                    start = ke;
                }
                if ks < end && end <= ke {
                    end = ks.max(start);
                }
                if start >= end {
                    return (start, start);
                }
            }
            if (start, end) == before {
                return (start, end);
            }
        }
    }

    /// Remember that `[start, end)` is SACKed: merged with the ranges it overlaps or
    /// touches, or in place of the lowest one (forgetting a range costs only a longer walk).
    fn remember(&mut self, mut start: u64, mut end: u64) {
        let mut free = None;
        for k in 0..KNOWN_RANGES {
            let (ks, ke) = self.known[k];
            if ks == ke || ke <= self.base {
                self.known[k] = (0, 0);
                free.get_or_insert(k);
            } else if ks <= end && start <= ke {
                start = start.min(ks);
                end = end.max(ke);
                self.known[k] = (0, 0);
                free.get_or_insert(k);
            }
        }
        let k = free.unwrap_or_else(|| (0..KNOWN_RANGES).min_by_key(|&k| self.known[k].0).unwrap_or(0));
        self.known[k] = (start, end);
    }

    /// Lost retransmissions (as ns-2's scoreboard and Linux detect them; RFC 6675 leaves
    /// them to the RTO): a retransmitted segment still not SACKed when something sent after
    /// it was becomes a hole again, for NextSeg to retransmit once more.
    fn detect_lost_retransmissions(&mut self) -> u64 {
        let mut lost = 0;
        while let Some(&(seq, sent_before)) = self.retx_log.front() {
            if seq < self.base || self.flag(seq) & SACKED != 0 {
                self.retx_log.pop_front();
                continue;
            }
            if self.high_sacked <= sent_before {
                break; // later retransmissions were made later still
            }
            self.retx_log.pop_front();
            *self.flag_mut(seq) &= !RETRANSMITTED;
            self.retransmitted -= 1;
            self.cursor = self.cursor.min(seq);
            lost += 1;
        }
        lost
    }

    /// The `dupthresh`-th highest SACKed segment, from the top of the scoreboard (the
    /// segments above the old boundary are few: the scan is short).
    fn find_lost_boundary(&mut self, dupthresh: u32) {
        self.lost_below = None;
        if self.sacked < u64::from(dupthresh) {
            return;
        }
        let mut seen = 0;
        for (k, f) in self.flags.iter().enumerate().rev() {
            if f & SACKED != 0 {
                seen += 1;
                if seen == dupthresh {
                    self.lost_below = Some(self.base + k as u64);
                    return;
                }
            }
        }
    }

    /// The `dupthresh`-th highest SACKed segment: IsLost holds for the unSACKed ones below.
    pub fn lost_boundary(&self) -> Option<u64> {
        self.lost_below
    }

    /// RFC 6675 IsLost.
    pub fn is_lost(&self, seq: u64) -> bool {
        self.lost_below.is_some_and(|l| seq < l) && self.flag(seq) & SACKED == 0
    }

    /// RFC 6675 SetPipe: segments in [base, snd_max) that are neither SACKed nor lost,
    /// plus the retransmitted ones not SACKed.
    pub fn pipe(&self, snd_max: u64, dupthresh: u32) -> u64 {
        let not_lost = match self.lost_below {
            // Above the boundary: the boundary itself and dupthresh - 1 more are SACKed.
            Some(l) => snd_max - l - u64::from(dupthresh),
            None => snd_max - self.base - self.sacked,
        };
        not_lost + self.retransmitted
    }

    /// The first segment at or after the cursor that is neither SACKed nor retransmitted,
    /// if it lies below the highest SACKed segment (NextSeg's rules 1 and 3).
    fn first_hole(&mut self) -> Option<u64> {
        while self.cursor < self.high_sacked && self.flag(self.cursor) != 0 {
            self.cursor += 1;
        }
        (self.cursor < self.high_sacked).then_some(self.cursor)
    }

    /// Segment `seq` is retransmitted while `snd_max` is the next new segment.
    pub fn retransmitting(&mut self, seq: u64, snd_max: u64) {
        let f = self.flag_mut(seq);
        if *f & (SACKED | RETRANSMITTED) == 0 {
            *f |= RETRANSMITTED;
            self.retransmitted += 1;
            self.retx_log.push_back((seq, snd_max));
        }
    }

    /// Forget what the receiver reported (after a timeout, RFC 2018: it may renege).
    pub fn clear(&mut self) {
        self.flags.clear();
        self.sacked = 0;
        self.retransmitted = 0;
        self.high_sacked = 0;
        self.lost_below = None;
        self.cursor = self.base;
        self.retx_log.clear();
        self.known = [(0, 0); KNOWN_RANGES];
    }

    #[cfg(test)]
    pub fn sacked(&self) -> u64 {
        self.sacked
    }
}

impl Sender {
    /// Retransmissions were lost in SACK recovery: the window the algorithm kept is more
    /// than the path holds, so cwnd falls to pipe + 1 (Linux's bound in recovery,
    /// `tcp_cwnd_down`, applied when retransmissions are lost; RFC 6675 leaves a lost
    /// retransmission to the RTO, whose response would be cwnd = 1). Without it, the
    /// retransmissions the detection frees leave in one burst into the queue the window
    /// keeps full, are lost again, and recovery never ends (docs/tcp.md, SACK).
    pub(super) fn clamp_to_pipe(&mut self) {
        let (snd_max, dt) = (self.snd_max, self.cfg.dupthresh);
        let pipe = self.sb().pipe(snd_max, dt) as f64;
        if self.st.cwnd > pipe + 1.0 {
            self.st.cwnd = pipe + 1.0;
            self.st.recovery_base = self.st.recovery_base.min(self.st.cwnd);
        }
    }

    /// During SACK recovery: send while cwnd - pipe >= 1, what NextSeg picks.
    pub(super) fn sack_send(&mut self, now: Time, out: &mut Vec<Tx>) {
        let dt = self.cfg.dupthresh;
        let floor_cwnd = crate::sim::floor(self.st.cwnd) as u64;
        let snd_max = self.snd_max;
        let mut pipe = self.sb().pipe(snd_max, dt);
        // TCP-Linux's rate halving (`tcp_linux`): the window follows pipe down.
        let mut next = self.sb().linux_next;
        let linux = next > 0;
        if linux {
            next = next.min(pipe + 1);
        }
        let mut cwnd = floor_cwnd.max(next);
        let rwnd_end = self.snd_una.saturating_add(crate::sim::floor(self.st.rwnd) as u64);
        let mut room = super::MAX_BURST;
        while cwnd >= pipe + 1 {
            if room == 0 {
                // as `try_send`: the rest leaves in chunks at this instant (`send_more`)
                self.burst_pending = true;
                break;
            }
            room -= 1;
            let sb = self.sb();
            let hole = sb.first_hole();
            let lost = hole.is_some_and(|s| sb.is_lost(s));
            let seq = match hole {
                // Rule 1: a lost segment not yet retransmitted.
                Some(s) if lost => s,
                // Rule 2: new data.
                _ if self.snd_max < self.limit() && self.snd_max < rwnd_end => self.snd_max,
                // Rule 3: an unSACKed segment below the highest SACKed one.
                Some(s) => s,
                None => break,
            };
            if seq < self.snd_max {
                let snd_max = self.snd_max;
                self.sb().retransmitting(seq, snd_max);
                self.emit_data(seq, now, out);
            } else {
                self.emit_data(seq, now, out);
                self.snd_max += 1;
                self.snd_nxt = self.snd_max;
            }
            pipe += 1;
            if linux {
                next = next.min(pipe.saturating_sub(1).max(1));
                cwnd = floor_cwnd.max(next);
            }
        }
        if linux {
            self.sb().linux_next = next;
        }
        self.st.flight = self.snd_max - self.snd_una;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(b: &[(u64, u64)]) -> SackBlocks {
        let mut s = SackBlocks::default();
        for &r in b {
            s.blocks[s.n as usize] = r;
            s.n += 1;
        }
        s
    }

    #[test]
    fn pipe_and_is_lost_follow_rfc_6675() {
        // Segments 0..10 outstanding; 0 and 2 lost, the receiver has 1 and 3..10.
        let mut sb = Scoreboard::default();
        sb.mark(&blocks(&[(1, 2)]), 10, 3);
        assert_eq!(sb.pipe(10, 3), 9, "one SACKed, none lost yet");
        assert!(!sb.is_lost(0));
        sb.mark(&blocks(&[(3, 5), (1, 2)]), 10, 3);
        // SACKed 1, 3, 4: 0 has three above it -> lost; 2 has two -> not yet.
        assert!(sb.is_lost(0) && !sb.is_lost(2));
        assert_eq!(sb.lost_below, Some(1));
        // pipe: 2, 5..10 not SACKed and not lost = 6
        assert_eq!(sb.pipe(10, 3), 6);
        sb.mark(&blocks(&[(3, 10)]), 10, 3);
        assert!(sb.is_lost(0) && sb.is_lost(2) && !sb.is_lost(3));
        assert_eq!(sb.pipe(10, 3), 0);
        // Retransmitting 0 puts it back in the pipe; a cumulative ACK up to 2 takes it out.
        sb.retransmitting(0, 10);
        assert_eq!(sb.pipe(10, 3), 1);
        sb.advance(2, 3);
        assert_eq!((sb.pipe(10, 3), sb.sacked()), (0, 7));
        assert_eq!(sb.first_hole(), Some(2));
        sb.retransmitting(2, 10);
        assert_eq!(sb.first_hole(), None, "nothing unSACKed below the highest SACK");
        sb.advance(10, 3);
        assert_eq!((sb.pipe(10, 3), sb.sacked(), sb.lost_below), (0, 0, None));
    }

    #[test]
    fn a_retransmission_is_lost_once_a_later_segment_is_sacked() {
        let mut sb = Scoreboard::default();
        sb.mark(&blocks(&[(1, 10)]), 10, 3);
        assert_eq!(sb.first_hole(), Some(0));
        sb.retransmitting(0, 10);
        assert_eq!(sb.first_hole(), None);
        // SACKs of what was sent before the retransmission say nothing about it...
        sb.mark(&blocks(&[(1, 10)]), 12, 3);
        assert_eq!((sb.first_hole(), sb.pipe(12, 3)), (None, 2 + 1));
        // ...segment 10, sent after it, arriving first does: 0 is a hole again.
        sb.mark(&blocks(&[(1, 11)]), 12, 3);
        assert_eq!(sb.first_hole(), Some(0));
        assert!(sb.is_lost(0));
        assert_eq!(sb.pipe(12, 3), 1, "11 in flight, the lost retransmission not");
    }

    #[test]
    fn the_lost_boundary_matches_a_direct_count_under_random_sacks() {
        let mut r = crate::sim::Rng::from_seed(5);
        for _ in 0..200 {
            let mut sb = Scoreboard::default();
            let snd_max = 200;
            let mut una = 0;
            let mut sacked = vec![false; 200];
            for _ in 0..30 {
                let s = (r.next_u64() % 190) + 1;
                let e = (s + 1 + r.next_u64() % 8).min(snd_max);
                sb.mark(&blocks(&[(s, e)]), snd_max, 3);
                for x in s.max(una)..e {
                    sacked[x as usize] = true;
                }
                if r.next_u64() % 4 == 0 {
                    una = (una + r.next_u64() % 10).min(snd_max);
                    sb.advance(una, 3);
                }
                for q in una..snd_max {
                    let above = (q + 1..snd_max).filter(|&x| sacked[x as usize]).count();
                    let lost = above >= 3 && !sacked[q as usize];
                    assert_eq!(sb.is_lost(q), lost, "segment {q}");
                }
                let pipe = (una..snd_max)
                    .filter(|&q| !sacked[q as usize] && !sb.is_lost(q))
                    .count();
                assert_eq!(sb.pipe(snd_max, 3), pipe as u64);
            }
        }
    }

    /// Blocks as a receiver repeats them (the newest first, growing by one segment, older
    /// ones again and again) with timeouts in between: the remembered ranges must not hide
    /// a segment that is not SACKed, nor count one twice.
    #[test]
    fn repeated_growing_blocks_mark_as_a_fresh_walk_would() {
        let mut r = crate::sim::Rng::from_seed(11);
        for _ in 0..100 {
            let mut sb = Scoreboard::default();
            let snd_max = 400;
            let (mut una, mut sacked) = (0, vec![false; 400]);
            let mut recent: Vec<(u64, u64)> = Vec::new();
            for step in 0..120 {
                if r.next_u64() % 3 == 0 || recent.is_empty() {
                    let s = una + 1 + r.next_u64() % 150;
                    recent.insert(0, (s, (s + 1).min(snd_max)));
                } else {
                    recent[0].1 = (recent[0].1 + 1 + r.next_u64() % 3).min(snd_max);
                }
                recent.truncate(3);
                let bl: Vec<(u64, u64)> = recent.iter().copied().filter(|&(s, e)| s < e).collect();
                sb.mark(&blocks(&bl), snd_max, 3);
                for &(s, e) in &bl {
                    for x in s.max(una)..e {
                        sacked[x as usize] = true;
                    }
                }
                match r.next_u64() % 10 {
                    0 => {
                        una = (una + r.next_u64() % 20).min(snd_max - 1);
                        sb.advance(una, 3);
                    }
                    1 if step % 7 == 0 => {
                        sb.clear();
                        sacked.iter_mut().for_each(|x| *x = false);
                        recent.clear();
                    }
                    _ => {}
                }
                let count = (una..snd_max).filter(|&q| sacked[q as usize]).count() as u64;
                assert_eq!(sb.sacked(), count, "step {step}");
                for q in una..snd_max {
                    let above = (q + 1..snd_max).filter(|&x| sacked[x as usize]).count();
                    assert_eq!(sb.is_lost(q), above >= 3 && !sacked[q as usize], "segment {q}");
                }
            }
        }
    }
}
