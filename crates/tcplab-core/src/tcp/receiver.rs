use super::{Kind, Tx};
use crate::cc::Handoff;
use crate::net::{Ecn, EcnBits, SegOption};
use crate::sim::{Rng, Time};
use std::collections::VecDeque;

/// SACK blocks an ACK reports (RFC 2018): ranges of segments [start, end) received above
/// the cumulative ACK, the one holding the segment that triggered the ACK first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SackBlocks {
    pub n: u8,
    pub blocks: [(u64, u64); MAX_SACK_BLOCKS],
}

/// Blocks per ACK: 3, as ns-2's `TCPSink/Sack1` (`max_sack_blocks_`) and a TCP header with
/// the timestamp option leave room for.
pub const MAX_SACK_BLOCKS: usize = 3;

impl SackBlocks {
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.blocks[..self.n as usize].iter().copied()
    }

    /// The D-SACK block of an ACK with cumulative ACK `ack`, if its first block is one
    /// (RFC 2883 §4, as the sender tells: the first block lies below the cumulative ACK, or
    /// within the second block), and the blocks that are SACK information proper.
    pub fn split_dsack(&self, ack: u64) -> (Option<(u64, u64)>, SackBlocks) {
        if self.n == 0 {
            return (None, *self);
        }
        let first = self.blocks[0];
        let below = first.1 <= ack;
        let inside = self.n >= 2 && self.blocks[1].0 <= first.0 && first.1 <= self.blocks[1].1;
        if !(below || inside) {
            return (None, *self);
        }
        let mut rest = SackBlocks::default();
        for b in self.iter().skip(1) {
            rest.blocks[rest.n as usize] = b;
            rest.n += 1;
        }
        (Some(first), rest)
    }
}

/// The data receiver: in-order delivery, out-of-order buffering, cumulative ACKs,
/// optional delayed ACKs (every `delack_count`-th in-order segment or after a timeout;
/// out-of-order and hole-filling segments are acknowledged at once) and optional SACK.
#[derive(Debug, Clone)]
pub struct Receiver {
    /// Next segment expected = segments delivered in order to the application.
    rcv_nxt: u64,
    /// Segments received above `rcv_nxt`: disjoint ranges [start, end), in order, none
    /// adjacent to another or to `rcv_nxt`.
    ooo: Vec<(u64, u64)>,
    delayed_ack: bool,
    delack_count: u32,
    delack_timeout: Time,
    pending: u32,
    pending_ts: Time,
    /// When the delayed-ACK timer must fire, if armed.
    pub delack_deadline: Option<Time>,
    pub duplicates: u64,
    pub arrivals: u64,
    /// SACK: a segment of each block recently reported first, latest first (RFC 2018's
    /// "most recently reported blocks"), and the blocks of the ACKs sent and not yet seen
    /// by the sender, by ACK number (`Tx::sack`).
    sack: Option<SackState>,
    /// ECN-capable (`tcp.ecn`), and whether ACKs echo a Congestion Experienced mark
    /// (from a CE data segment until a segment with CWR).
    ecn: bool,
    ece: bool,
    /// Data segments that arrived marked Congestion Experienced.
    pub ce_received: u64,
    /// The timestamp the last ACK echoed (option ACKs sent outside the data path echo it).
    last_echo: Time,
    /// A mobile host taking part in a handoff protocol (boxed: most receivers are not).
    pub mobile: Option<Box<Mobile>>,
}

/// The mobile host's side of the handoff protocols (thesis ch. 2).
#[derive(Debug, Clone)]
pub struct Mobile {
    pub mode: Handoff,
    /// TCP-HO's bit in the Capability mask, and whether the handshake negotiated it.
    mask: u32,
    pub negotiated: bool,
    /// The window the host advertises when not frozen (segments).
    rwnd: u32,
    /// Freeze-TCP: a zero window is advertised.
    pub frozen: bool,
    /// The flow's own stream for the bandwidth estimation error.
    pub rng: Rng,
}

/// Duplicate ACKs with the Bandwidth option on handoff completion (TCP-HO), and window-
/// reopening duplicate ACKs on reconnection (Freeze-TCP).
pub const HO_NOTIFY_ACKS: usize = 2;
pub const FREEZE_REOPEN_ACKS: usize = 3;

#[derive(Debug, Clone, Default)]
struct SackState {
    /// D-SACK (RFC 2883): a duplicate segment is reported in the first block.
    dsack: bool,
    recent: VecDeque<u64>,
    sent: VecDeque<(u32, SackBlocks)>,
    next_id: u32,
}

impl Receiver {
    pub fn new(delayed_ack: bool, delack_count: u32, delack_timeout: Time) -> Receiver {
        Receiver {
            rcv_nxt: 0,
            ooo: Vec::new(),
            delayed_ack,
            delack_count: delack_count.max(1),
            delack_timeout,
            pending: 0,
            pending_ts: 0,
            delack_deadline: None,
            duplicates: 0,
            arrivals: 0,
            sack: None,
            ecn: false,
            ece: false,
            ce_received: 0,
            last_echo: 0,
            mobile: None,
        }
    }

    /// A mobile host running `mode` (its TCP-HO capability bit `mask`, its window `rwnd`
    /// segments, its random stream for estimation errors).
    pub fn with_mobile(mut self, mode: Handoff, mask: u16, rwnd: f64, rng: Rng) -> Receiver {
        self.mobile = Some(Box::new(Mobile {
            mode,
            mask: u32::from(mask),
            negotiated: false,
            rwnd: rwnd.clamp(1.0, f64::from(u32::MAX)) as u32,
            frozen: false,
            rng,
        }));
        self
    }

    /// A SYN arrives carrying the Capability option `cap` (if any): a TCP-HO mobile host
    /// negotiates when the mask has TCP-HO's bit, and echoes that bit on its SYN-ACK.
    pub fn on_syn_capability(&mut self, now: Time, ts: Time, cap: Option<u32>, out: &mut Vec<Tx>) {
        self.ack(Kind::SynAck, ts, now, out);
        let Some(m) = self.mobile.as_deref_mut() else {
            return;
        };
        m.negotiated = m.mode == Handoff::TcpHo && cap.is_some_and(|c| c & m.mask != 0);
        if m.negotiated {
            let t = out.last_mut().expect("just pushed");
            t.ecn.set_option(Some(SegOption::Capability));
            t.sack = m.mask;
        }
    }

    /// An ACK of everything received in order, carrying option `opt` with `value`.
    fn option_ack(&mut self, now: Time, opt: SegOption, value: u32, out: &mut Vec<Tx>) {
        let echo = if self.pending > 0 {
            self.pending_ts
        } else {
            self.last_echo
        };
        self.ack(Kind::Ack, echo, now, out);
        let t = out.last_mut().expect("just pushed");
        t.ecn.set_option(Some(opt));
        t.sack = value;
    }

    /// The link layer reports handoff completion with the new link's bandwidth (`kbps`, as
    /// the host estimated it). TCP-HO (negotiated): two duplicate ACKs with the Bandwidth
    /// option. Freeze-TCP (frozen): three duplicate ACKs reopening the window. Returns the
    /// ACKs sent.
    pub fn handoff_complete(&mut self, now: Time, kbps: u32, out: &mut Vec<Tx>) -> usize {
        let Some(m) = self.mobile.as_deref_mut() else {
            return 0;
        };
        let (opt, value, n) = match m.mode {
            Handoff::TcpHo if m.negotiated => (SegOption::Bandwidth, kbps, HO_NOTIFY_ACKS),
            Handoff::Freeze if m.frozen => {
                m.frozen = false;
                (SegOption::Window, m.rwnd, FREEZE_REOPEN_ACKS)
            }
            _ => return 0,
        };
        for _ in 0..n {
            self.option_ack(now, opt, value, out);
        }
        n
    }

    /// Freeze-TCP: the predicted disconnection is one RTT away: advertise a zero window.
    /// Returns false (nothing sent) for other receivers or when already frozen.
    pub fn freeze(&mut self, now: Time, out: &mut Vec<Tx>) -> bool {
        match self.mobile.as_deref_mut() {
            Some(m) if m.mode == Handoff::Freeze && !m.frozen => m.frozen = true,
            _ => return false,
        }
        self.option_ack(now, SegOption::Window, 0, out);
        true
    }

    /// The window a Freeze-TCP host advertises on the ACK just sent (answering a window
    /// probe or any segment already received).
    #[cold]
    fn advertise_window(&mut self, out: &mut [Tx]) {
        if let (Some(m), Some(t)) = (self.mobile.as_deref(), out.last_mut()) {
            if m.mode == Handoff::Freeze {
                t.ecn.set_option(Some(SegOption::Window));
                t.sack = if m.frozen { 0 } else { m.rwnd };
            }
        }
    }

    /// Take part in ECN (RFC 3168): echo CE marks with ECE until the sender's CWR.
    pub fn with_ecn(mut self, on: bool) -> Receiver {
        self.ecn = on;
        self
    }

    /// Report SACK blocks with every ACK.
    pub fn with_sack(mut self, on: bool) -> Receiver {
        self.sack = on.then(SackState::default);
        self
    }

    /// Report duplicate segments in the first SACK block (RFC 2883; with SACK only).
    pub fn with_dsack(mut self, on: bool) -> Receiver {
        if let Some(st) = self.sack.as_mut() {
            st.dsack = on;
        }
        self
    }

    /// Segments delivered to the application, in order, each exactly once.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    fn ack(&mut self, kind: Kind, ts_echo: Time, now: Time, out: &mut Vec<Tx>) {
        self.pending = 0;
        self.delack_deadline = None;
        self.last_echo = ts_echo;
        out.push(Tx {
            kind,
            seq: self.rcv_nxt,
            ts: now,
            ts_echo,
            retransmission: false,
            sack: 0,
            ecn: self.ack_ecn(kind),
        });
    }

    /// ECE on ACKs while a CE mark waits for the sender's CWR, and on the SYN-ACK of an ECN
    /// connection (RFC 3168 §6.1.1's ECN-setup SYN-ACK).
    fn ack_ecn(&self, kind: Kind) -> EcnBits {
        let mut e = EcnBits::default();
        e.set_ece(self.ecn && (self.ece || kind == Kind::SynAck));
        e
    }

    /// An ACK triggered by segment `seq` (if any), with SACK blocks when SACK is on.
    fn ack_data(&mut self, trigger: Option<u64>, ts_echo: Time, now: Time, out: &mut Vec<Tx>) {
        self.ack(Kind::Ack, ts_echo, now, out);
        if self.sack.is_some() {
            out.last_mut().expect("just pushed").sack = self.sack_blocks(trigger);
        }
    }

    /// The ACK of duplicate segment `seq`: with D-SACK, `seq` is its first SACK block
    /// (RFC 2883 §4), followed by the block that holds it, if it lies above the cumulative
    /// ACK, and by the most recent others (RFC 2018).
    #[cold]
    #[inline(never)]
    fn ack_duplicate(&mut self, seq: u64, ts_echo: Time, now: Time, out: &mut Vec<Tx>) {
        let dsack = self.sack.as_ref().is_some_and(|st| st.dsack);
        let trigger = (seq >= self.rcv_nxt).then_some(seq);
        if !dsack {
            return self.ack_data(trigger, ts_echo, now, out);
        }
        self.ack(Kind::Ack, ts_echo, now, out);
        out.last_mut().expect("just pushed").sack = self.sack_blocks_with(trigger, Some(seq));
    }

    /// The range holding segment `seq`, if it is buffered out of order.
    fn range_of(&self, seq: u64) -> Option<(u64, u64)> {
        let i = self.ooo.partition_point(|&(_, end)| end <= seq);
        self.ooo.get(i).copied().filter(|&(start, _)| start <= seq)
    }

    /// Record the blocks of a new ACK; its number for `Tx::sack` (0 = no blocks).
    #[inline]
    fn sack_blocks(&mut self, trigger: Option<u64>) -> u32 {
        self.sack_blocks_with(trigger, None)
    }

    /// `sack_blocks` with `dup`: a duplicate segment reported as a D-SACK block ahead of
    /// the others (inlined, so that the plain ACK's copy has no D-SACK code).
    #[inline(always)]
    fn sack_blocks_with(&mut self, trigger: Option<u64>, dup: Option<u64>) -> u32 {
        let mut b = SackBlocks::default();
        if let Some(d) = dup {
            b.blocks[0] = (d, d + 1);
            b.n = 1;
        }
        let first = trigger.and_then(|s| self.range_of(s));
        let st = self.sack.as_mut().expect("SACK on");
        if let (Some(t), Some(_)) = (trigger, first) {
            st.recent.retain(|&r| r != t);
            st.recent.push_front(t);
            st.recent.truncate(2 * MAX_SACK_BLOCKS);
        }
        let recent: Vec<u64> = st.recent.iter().copied().collect();
        // (the D-SACK block is no reason to leave out the block that holds it)
        let skip = usize::from(dup.is_some());
        for r in first.into_iter().chain(recent.iter().filter_map(|&r| self.range_of(r))) {
            if (b.n as usize) < MAX_SACK_BLOCKS && !b.blocks[skip..b.n as usize].contains(&r) {
                b.blocks[b.n as usize] = r;
                b.n += 1;
            }
        }
        let st = self.sack.as_mut().expect("SACK on");
        st.recent.retain(|&r| r >= self.rcv_nxt);
        if b.n == 0 {
            return 0;
        }
        st.next_id = st.next_id.wrapping_add(1).max(1);
        st.sent.push_back((st.next_id, b));
        st.next_id
    }

    /// The blocks of ACK number `id` as it reaches the sender; the blocks of ACKs sent
    /// before it are dropped (they were lost, or arrive later, out of order, without them).
    pub fn take_sack(&mut self, id: u32) -> Option<SackBlocks> {
        let st = self.sack.as_mut().filter(|_| id != 0)?;
        while let Some(&(k, b)) = st.sent.front() {
            st.sent.pop_front();
            if k == id {
                return Some(b);
            }
        }
        None
    }

    pub fn on_syn(&mut self, now: Time, ts: Time, out: &mut Vec<Tx>) {
        self.ack(Kind::SynAck, ts, now, out);
    }

    pub fn on_fin(&mut self, now: Time, ts: Time, out: &mut Vec<Tx>) {
        self.ack(Kind::FinAck, ts, now, out);
    }

    /// A data segment `seq` sent at `ts` arrives.
    pub fn on_data(&mut self, now: Time, seq: u64, ts: Time, out: &mut Vec<Tx>) {
        self.on_data_ecn(now, seq, ts, EcnBits::default(), out);
    }

    /// A data segment arrives with its ECN bits.
    #[inline]
    pub fn on_data_ecn(&mut self, now: Time, seq: u64, ts: Time, ecn: EcnBits, out: &mut Vec<Tx>) {
        self.arrivals += 1;
        if self.ecn {
            // CWR first: a segment with both stops the old echo and starts a new one.
            if ecn.cwr() {
                self.ece = false;
            }
            if ecn.codepoint() == Ecn::Ce {
                self.ece = true;
                self.ce_received += 1;
            }
        }
        if seq < self.rcv_nxt {
            self.duplicates += 1;
            self.ack_duplicate(seq, ts, now, out);
            if self.mobile.is_some() {
                self.advertise_window(out);
            }
            return;
        }
        if seq == self.rcv_nxt && self.ooo.is_empty() {
            // In order with nothing buffered: the common case.
            self.rcv_nxt += 1;
            return self.in_order(now, ts, out);
        }
        let i = self.ooo.partition_point(|&(_, end)| end <= seq);
        if self.ooo.get(i).is_some_and(|&(start, _)| start <= seq) {
            self.duplicates += 1;
            self.ack_duplicate(seq, ts, now, out);
            return;
        }
        let had_gap = !self.ooo.is_empty();
        // Insert [seq, seq + 1) at i, merged with its neighbours.
        let joins_prev = i > 0 && self.ooo[i - 1].1 == seq;
        let joins_next = self.ooo.get(i).is_some_and(|&(start, _)| start == seq + 1);
        match (joins_prev, joins_next) {
            (true, true) => {
                self.ooo[i - 1].1 = self.ooo[i].1;
                self.ooo.remove(i);
            }
            (true, false) => self.ooo[i - 1].1 += 1,
            (false, true) => self.ooo[i].0 = seq,
            (false, false) => self.ooo.insert(i, (seq, seq + 1)),
        }
        if self.ooo[0].0 == self.rcv_nxt {
            self.rcv_nxt = self.ooo.remove(0).1;
        }
        if seq > self.rcv_nxt || had_gap || !self.delayed_ack {
            // Out of order, filling a hole, or no delayed ACKs: acknowledge at once.
            let echo = if self.pending > 0 { self.pending_ts } else { ts };
            self.ack_data(Some(seq), echo, now, out);
            return;
        }
        self.in_order(now, ts, out);
    }

    /// An in-order segment that left no gap: acknowledge it, or delay the ACK.
    #[inline]
    fn in_order(&mut self, now: Time, ts: Time, out: &mut Vec<Tx>) {
        if !self.delayed_ack {
            return self.ack_data(None, ts, now, out);
        }
        if self.pending == 0 {
            self.pending_ts = ts;
        }
        self.pending += 1;
        if self.pending >= self.delack_count {
            let echo = self.pending_ts;
            self.ack_data(None, echo, now, out);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now.saturating_add(self.delack_timeout));
        }
    }

    /// The delayed-ACK timer fires.
    pub fn on_delack_timer(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.delack_deadline = None;
        if self.pending > 0 {
            let echo = self.pending_ts;
            self.ack_data(None, echo, now, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    fn acks(out: &[Tx]) -> Vec<u64> {
        out.iter().map(|t| t.seq).collect()
    }

    #[test]
    fn in_order_and_out_of_order() {
        let mut r = Receiver::new(false, 2, 100);
        let mut out = vec![];
        r.on_data(1, 0, 0, &mut out);
        r.on_data(2, 2, 0, &mut out); // hole at 1
        r.on_data(3, 3, 0, &mut out);
        r.on_data(4, 1, 0, &mut out); // fills the hole
        r.on_data(5, 1, 0, &mut out); // duplicate
        assert_eq!(acks(&out), vec![1, 1, 1, 4, 4]);
        assert_eq!(r.delivered(), 4);
        assert_eq!(r.duplicates, 1);
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timeout() {
        let mut r = Receiver::new(true, 2, 100);
        let mut out = vec![];
        r.on_data(10, 0, 7, &mut out);
        assert!(out.is_empty());
        assert_eq!(r.delack_deadline, Some(110));
        r.on_data(20, 1, 8, &mut out);
        assert_eq!(acks(&out), vec![2]);
        assert_eq!(out[0].ts_echo, 7, "echoes the earliest unacknowledged timestamp");
        assert_eq!(r.delack_deadline, None);
        r.on_data(30, 2, 9, &mut out);
        r.on_delack_timer(130, &mut out);
        assert_eq!(acks(&out), vec![2, 3]);
        // out-of-order: immediate
        r.on_data(140, 5, 10, &mut out);
        assert_eq!(acks(&out), vec![2, 3, 3]);
    }

    #[test]
    fn every_segment_delivered_once_in_order_under_any_arrival_order() {
        let mut rng = Rng::from_seed(42);
        for _ in 0..50 {
            // 200 segments, shuffled, with random duplicates.
            let mut seqs: Vec<u64> = (0..200).collect();
            for _ in 0..40 {
                seqs.push((rng.uniform() * 200.0) as u64);
            }
            for i in (1..seqs.len()).rev() {
                let j = (rng.uniform() * (i + 1) as f64) as usize;
                seqs.swap(i, j);
            }
            let mut r = Receiver::new(rng.bernoulli(0.5), 2, 100);
            let mut out = vec![];
            let mut last = 0;
            for (t, s) in seqs.iter().enumerate() {
                r.on_data(t as u64, *s, 0, &mut out);
                assert!(r.delivered() >= last, "delivery never goes back");
                last = r.delivered();
            }
            assert_eq!(r.delivered(), 200);
            assert_eq!(r.duplicates, 40);
            assert_eq!(r.arrivals, 240);
        }
    }

    fn marked(ce: bool, cwr: bool) -> EcnBits {
        let mut e = EcnBits::from(if ce { Ecn::Ce } else { Ecn::Ect0 });
        e.set_cwr(cwr);
        e
    }

    #[test]
    fn ece_from_a_ce_mark_until_the_senders_cwr() {
        let mut r = Receiver::new(false, 2, 100).with_ecn(true);
        let mut out = vec![];
        r.on_data_ecn(1, 0, 0, marked(false, false), &mut out);
        r.on_data_ecn(2, 1, 0, marked(true, false), &mut out); // CE
        r.on_data_ecn(3, 2, 0, marked(false, false), &mut out);
        r.on_data_ecn(4, 3, 0, marked(false, true), &mut out); // CWR: echo stops
        r.on_data_ecn(5, 4, 0, marked(true, true), &mut out); // CWR and CE: a new echo
        r.on_data_ecn(6, 5, 0, marked(false, false), &mut out);
        let ece: Vec<bool> = out.iter().map(|t| t.ecn.ece()).collect();
        assert_eq!(ece, vec![false, true, true, false, true, true]);
        assert_eq!(r.ce_received, 2);
        // a receiver without ECN neither echoes nor counts
        let mut r = Receiver::new(false, 2, 100);
        let mut out = vec![];
        r.on_data_ecn(1, 0, 0, marked(true, false), &mut out);
        assert!(!out[0].ecn.ece());
        assert_eq!(r.ce_received, 0);
        // the SYN-ACK of an ECN receiver is an ECN-setup SYN-ACK
        let mut r = Receiver::new(false, 2, 100).with_ecn(true);
        let mut out = vec![];
        r.on_syn(1, 0, &mut out);
        assert!(out[0].ecn.ece() && !out[0].ecn.cwr());
    }
}

#[cfg(test)]
mod dsack_tests {
    //! RFC 2883 §4's examples, in segments: segment k stands for bytes 500k..500k+499 of
    //! the RFC's (its 3000-3499 is our 6, and so on).
    use super::*;

    fn receiver(dsack: bool) -> Receiver {
        Receiver::new(false, 2, 100).with_sack(true).with_dsack(dsack)
    }

    /// Segments arriving in `order`: per ACK, its cumulative ACK and its blocks.
    fn acks(r: &mut Receiver, order: &[u64]) -> Vec<(u64, Vec<(u64, u64)>)> {
        let mut v = vec![];
        for (t, &s) in order.iter().enumerate() {
            let mut out = vec![];
            r.on_data(t as Time, s, 0, &mut out);
            for a in out {
                let b = r.take_sack(a.sack).map_or(vec![], |b| b.iter().collect());
                v.push((a.seq, b));
            }
        }
        v
    }

    #[test]
    fn a_duplicate_below_the_cumulative_ack_is_the_first_block() {
        // §4.1.1: both ACKs of 6 and 7 are lost; the timeout's retransmission of 6 is
        // reported: ACK 8, D-SACK 6.
        let mut r = receiver(true);
        let a = acks(&mut r, &[0, 1, 0]);
        assert_eq!(a[2], (2, vec![(0, 1)]));
        let b = {
            let mut r = receiver(true);
            let mut out = vec![];
            for (t, s) in [0, 1, 0].into_iter().enumerate() {
                r.on_data(t as Time, s, 0, &mut out);
            }
            r.take_sack(out[2].sack).unwrap()
        };
        assert_eq!(b.split_dsack(2).0, Some((0, 1)), "the sender tells it is a D-SACK");
        // without D-SACK, the same ACK carries no blocks at all
        let mut r = receiver(false);
        assert_eq!(acks(&mut r, &[0, 1, 0])[2], (2, vec![]));
    }

    #[test]
    fn a_segment_replicated_by_the_network() {
        // §4.1.3: 6, 7, 7 again, 8 lost, 9: ACK 8 with D-SACK 7, then ACK 8 SACK 9.
        let mut r = receiver(true);
        let a = acks(&mut r, &[0, 1, 1, 3]);
        assert_eq!(a, vec![(1, vec![]), (2, vec![]), (2, vec![(1, 2)]), (2, vec![(3, 4)])]);
    }

    #[test]
    fn a_duplicate_above_the_cumulative_ack_comes_before_the_block_holding_it() {
        // §4.2.1/§4.2.3: the D-SACK block is followed by the (larger) block that holds the
        // duplicate, then the most recent others; three blocks in all.
        let mut r = receiver(true);
        let a = acks(&mut r, &[1, 3, 4, 6, 3]);
        assert_eq!(a[3], (0, vec![(6, 7), (3, 5), (1, 2)]));
        assert_eq!(a[4], (0, vec![(3, 4), (3, 5), (6, 7)]));
        // a duplicate that is the whole of its block: the block is repeated
        let mut r = receiver(true);
        let a = acks(&mut r, &[2, 2]);
        assert_eq!(a[1], (0, vec![(2, 3), (2, 3)]));
        // the sender's reading: a first block inside the second is a D-SACK
        let mut b = SackBlocks::default();
        for x in [(3, 4), (3, 5), (6, 7)] {
            b.blocks[b.n as usize] = x;
            b.n += 1;
        }
        let (d, rest) = b.split_dsack(0);
        assert_eq!(d, Some((3, 4)));
        assert_eq!(rest.iter().collect::<Vec<_>>(), vec![(3, 5), (6, 7)]);
        // ordinary blocks are not
        let (d, rest) = rest.split_dsack(0);
        assert_eq!((d, rest.n), (None, 2));
        // without D-SACK the duplicate's ACK reports its block first, as before
        let mut r = receiver(false);
        assert_eq!(acks(&mut r, &[1, 3, 4, 6, 3])[4], (0, vec![(3, 5), (6, 7), (1, 2)]));
    }

    #[test]
    fn dsack_needs_sack_and_leaves_new_segments_alone() {
        // with_dsack on a receiver without SACK does nothing
        let mut r = Receiver::new(false, 2, 100).with_dsack(true);
        let mut out = vec![];
        r.on_data(1, 0, 0, &mut out);
        r.on_data(2, 0, 0, &mut out);
        assert_eq!(out[1].sack, 0);
        // new segments in and out of order: exactly the SACK receiver's ACKs
        let order = [0, 2, 3, 5, 1, 4, 6];
        assert_eq!(acks(&mut receiver(true), &order), acks(&mut receiver(false), &order));
    }
}

#[cfg(test)]
mod handoff_tests {
    use super::*;

    fn opts(out: &[Tx]) -> Vec<(Kind, u64, Option<SegOption>, u32)> {
        out.iter().map(|t| (t.kind, t.seq, t.ecn.option(), t.sack)).collect()
    }

    #[test]
    fn tcp_ho_host_negotiates_and_sends_two_bandwidth_acks_on_handoff() {
        let mut r = Receiver::new(false, 2, 100).with_mobile(Handoff::TcpHo, 1, 64.0, Rng::from_seed(1));
        let mut out = vec![];
        r.on_syn_capability(1, 0, Some(0b101), &mut out);
        assert_eq!(opts(&out), vec![(Kind::SynAck, 0, Some(SegOption::Capability), 1)]);
        for s in 0..3 {
            r.on_data(2 + s, s, 0, &mut out);
        }
        out.clear();
        assert_eq!(r.handoff_complete(10, 7000, &mut out), 2);
        let bw = (Kind::Ack, 3, Some(SegOption::Bandwidth), 7000);
        assert_eq!(opts(&out), vec![bw, bw]);
        // not negotiated (the SYN had no TCP-HO bit): nothing
        let mut r = Receiver::new(false, 2, 100).with_mobile(Handoff::TcpHo, 1, 64.0, Rng::from_seed(1));
        let mut out = vec![];
        r.on_syn_capability(1, 0, Some(0b10), &mut out);
        assert_eq!(out[0].ecn.option(), None);
        out.clear();
        assert_eq!(r.handoff_complete(10, 7000, &mut out), 0);
        assert!(out.is_empty());
        // a receiver that is no mobile host ignores the notification
        let mut r = Receiver::new(false, 2, 100);
        assert_eq!(r.handoff_complete(10, 7000, &mut out), 0);
    }

    #[test]
    fn freeze_host_advertises_zero_then_reopens_with_three_acks() {
        let mut r = Receiver::new(true, 2, 100).with_mobile(Handoff::Freeze, 1, 64.0, Rng::from_seed(1));
        let mut out = vec![];
        r.on_data(1, 0, 11, &mut out);
        r.on_data(2, 1, 12, &mut out);
        r.on_data(3, 2, 13, &mut out); // pending (delayed ACK)
        out.clear();
        // the zero window acknowledges the pending segment too, echoing its timestamp
        assert!(r.freeze(4, &mut out));
        assert_eq!(opts(&out), vec![(Kind::Ack, 3, Some(SegOption::Window), 0)]);
        assert_eq!(out[0].ts_echo, 13);
        assert_eq!(r.delack_deadline, None);
        assert!(!r.freeze(5, &mut out), "once per disconnection");
        out.clear();
        // a window probe (an old segment) is answered with the zero window
        r.on_data(6, 2, 14, &mut out);
        assert_eq!(opts(&out), vec![(Kind::Ack, 3, Some(SegOption::Window), 0)]);
        out.clear();
        assert_eq!(r.handoff_complete(7, 7000, &mut out), 3);
        let open = (Kind::Ack, 3, Some(SegOption::Window), 64);
        assert_eq!(opts(&out), vec![open, open, open]);
        out.clear();
        r.on_data(8, 2, 15, &mut out);
        assert_eq!(opts(&out), vec![open]);
        // not frozen: a handoff completion sends nothing
        out.clear();
        assert_eq!(r.handoff_complete(9, 7000, &mut out), 0);
    }
}
