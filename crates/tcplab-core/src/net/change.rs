//! Link changes over time (`[[link_changes]]`): a link direction's rate, delay, queue
//! limit and loss rate, and outages (down/up), changed at given times, each by its own
//! event (`NetEv::LinkChange`) handled here and in [`super::Network`].
//!
//! A direction with scheduled changes is marked *changing* when the network is built: like
//! a managed link its DropTail limit is 0, so every arrival fails the fast path's one test
//! and comes to the cold branch, which keeps what a change needs beside the fast path's
//! model: per accepted packet its id (or that it is lost) and size, in step with the
//! departure times. Directions without changes run exactly the fast path as before, and a
//! changing direction behaves exactly as the plain one until its first change (same
//! departure times, same random draws, same places in the event order).
//!
//! Semantics (docs/scenario.md, "Link changes"):
//!
//! - **delay**: applies to every packet whose transmission ends after the change (it
//!   starts propagating then); packets already propagating keep theirs. Arrivals stay in
//!   FIFO order: after a decrease, a packet that would overtake an earlier one arrives
//!   right after it (at the same time, later in the event order). A real re-routed path
//!   would let it overtake; the link's in-transit FIFO relies on the order.
//! - **rate**: the packet being transmitted finishes at the old rate; the packets queued
//!   behind it (their departure times were computed at acceptance) are re-timed back to
//!   back at the new rate.
//! - **queue**: the new limit (packets in the system, as the DropTail limit; a discipline's
//!   own limit for managed links). A smaller limit drops nothing already queued but
//!   admits nothing until the queue is below it.
//! - **loss**: the Bernoulli loss rate from then on, drawn from the direction's own stream
//!   as before (no other draw moves).
//! - **down**: no packet starts transmission; the one being transmitted finishes and, like
//!   packets already propagating, is delivered (it left). With `queued = "keep"` the
//!   queued packets wait and arrivals are queued up to the limit (loss is drawn on
//!   acceptance as always); with `"drop"` the queue is flushed and every arrival dropped
//!   while down, counted as drops of cause `down` (`drops_down`, the drops table).
//! - **up**: transmission resumes with the packets kept, back to back from now.
//!
//! Managed directions: droptail/red (decided at arrival, on the fast path's timing model)
//! take every change as a plain link; codel/fq_codel (scheduled: an event per
//! transmission) take the new rate from the next transmission, the new delay from the next
//! transmission end, and stop starting transmissions while down (`"drop"` flushes their
//! queues).
//!
//! Reordering (`net/reorder.rs`): a changing direction that is not scheduled draws when a
//! packet reaches the far end in order (`Network::link_arrive_changing`), when no change
//! can move its arrival any more (a scheduled one when the transmission ends, as without
//! changes); a held-back packet leaves the in-transit FIFO for an event of its own, which
//! no later change touches, as packets already propagating.
use super::link::{Hop, LinkDir};
use super::{DropReason, NetEv};
use crate::sim::{Fifo, Key, Queue, Time};
use std::collections::VecDeque;

/// In `Changing::sent` / `held`: the packet was lost (drawn at acceptance and freed then);
/// it still occupies the transmitter.
pub const LOST: u32 = u32::MAX;

/// One change to a link direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    Delay(Time),
    /// bit/s
    Rate(f64),
    Queue(u32),
    Loss(f64),
    /// `keep`: queued packets wait for `Up` (else they are dropped, as every arrival while
    /// down).
    Down {
        keep: bool,
    },
    Up,
}

impl Change {
    /// Its name in the events table (`link_<name>`) and its value there: seconds, bit/s,
    /// packets, probability; for down 1 with `keep`, 0 with `drop`; for up the packets
    /// waiting that now start.
    pub fn event_name(self) -> &'static str {
        match self {
            Change::Delay(_) => "link_delay",
            Change::Rate(_) => "link_rate",
            Change::Queue(_) => "link_queue",
            Change::Loss(_) => "link_loss",
            Change::Down { .. } => "link_down",
            Change::Up => "link_up",
        }
    }
}

/// A change applied: for the events table.
#[derive(Debug, Clone, Copy)]
pub struct ChangeRecord {
    pub time: Time,
    pub hop: u32,
    pub name: &'static str,
    pub value: f64,
}

/// What a changing direction keeps beside the fast path's model.
#[derive(Debug, Default)]
pub struct Changing {
    /// The DropTail limit (the link's own `limit` is 0); a managed link uses its
    /// discipline's.
    pub(super) limit: u32,
    pub(super) down: bool,
    /// While down: queue arrivals (true) or drop them.
    pub(super) keep: bool,
    /// Per entry of the link's `departures` (its last entries, in the same order): the
    /// packet (or `LOST`) and its size.
    pub(super) sent: Fifo<(u32, u32)>,
    /// Accepted while down, not yet timed: the packet (or `LOST`) and its size.
    pub(super) held: VecDeque<(u32, u32)>,
    /// Arrival events made stale by re-timing: (time, packet). The stale event of a packet
    /// pops before any valid one with the same time and packet (it was scheduled first).
    pub(super) stale: Vec<(Time, u32)>,
    /// Packets dropped because the direction was down (arrivals with `drop`, and the queue
    /// flushed).
    pub drops_down: u64,
}

/// What became of a packet admitted by a changing direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Admitted {
    /// On its way (its arrival is in the link's FIFO).
    Sent,
    /// Waiting for the direction to come up.
    Held,
    /// Lost (occupies the transmitter; the caller frees it).
    Lost,
}

impl LinkDir {
    /// Make this direction take the changing path (see the module comment).
    pub fn make_changing(&mut self) {
        if self.change.is_some() {
            return;
        }
        let mut ch = Changing::default();
        match self.aqm.as_deref_mut() {
            None => {
                ch.limit = self.limit;
                self.limit = 0;
            }
            // the changing path decides (`Network::offer_changing`)
            Some(a) => a.plain_droptail = false,
        }
        self.change = Some(Box::new(ch));
    }

    pub fn changing(&self) -> Option<&Changing> {
        self.change.as_deref()
    }

    /// Down, dropping what arrives.
    pub fn down_dropping(&self) -> bool {
        self.change.as_deref().is_some_and(|c| c.down && !c.keep)
    }

    pub fn is_down(&self) -> bool {
        self.change.as_deref().is_some_and(|c| c.down)
    }

    /// An arrival dropped because the direction is down.
    pub fn count_down_drop(&mut self) {
        if let Some(c) = self.change.as_deref_mut() {
            c.drops_down += 1;
        }
    }

    /// Packets waiting for the direction to come up (held on the plain timing model; in
    /// the discipline's queue on a scheduled direction).
    pub fn waiting_while_down(&self) -> usize {
        match self.aqm.as_deref() {
            Some(a) if a.is_scheduled() => match &a.kind {
                super::aqm::Kind::Sched { queue, .. } => queue.len(),
                _ => 0,
            },
            _ => self.held(),
        }
    }

    /// Packets accepted while down and waiting.
    pub fn held(&self) -> usize {
        self.change.as_deref().map_or(0, |c| c.held.len())
    }

    /// The latest arrival time in the in-transit FIFO (0 if empty): a new arrival is not
    /// earlier.
    #[inline]
    pub(super) fn transit_floor(&self) -> Time {
        self.in_transit.back().map_or(0, |(k, _, _)| k.time())
    }

    /// Drop `sent`'s entries whose departures have left the link.
    fn sync_sent(&mut self, now: Time) -> usize {
        let n = self.occupancy(now);
        let ch = self.change.as_deref_mut().expect("a changing link");
        while ch.sent.len() > n {
            ch.sent.pop_front();
        }
        n
    }

    /// A changing direction's queue test (plain DropTail): waiting, in service, and held.
    pub fn changing_full(&mut self, now: Time) -> bool {
        let n = self.sync_sent(now) + self.held();
        n >= self.change.as_deref().map_or(0, |c| c.limit) as usize
    }

    /// Admit packet `p` of `bytes` at `now` on a changing direction (`hop`) that is not
    /// scheduled, after its queue test: as [`LinkDir::admit`], recording the packet, and
    /// with arrivals kept in FIFO order; held while down.
    pub fn admit_changing(&mut self, now: Time, hop: u32, p: u32, bytes: u32, q: &mut Queue) -> Admitted {
        self.sync_sent(now);
        if self.is_down() {
            let lost = self.rng.bernoulli(self.loss);
            let ch = self.change.as_deref_mut().unwrap();
            if lost {
                self.drops_loss += 1;
                ch.held.push_back((LOST, bytes));
                return Admitted::Lost;
            }
            ch.held.push_back((p, bytes));
            self.in_system += 1;
            return Admitted::Held;
        }
        let end = self.transmit(now, bytes);
        let lost = self.rng.bernoulli(self.loss);
        let ch = self.change.as_deref_mut().unwrap();
        ch.sent.push_back((if lost { LOST } else { p }, bytes));
        if lost {
            self.drops_loss += 1;
            return Admitted::Lost;
        }
        self.in_system += 1;
        let at = end.saturating_add(self.delay).max(self.transit_floor());
        let key = q.key(at);
        if self.push_transit(key, p, Hop::default()) {
            q.schedule_key(key, NetEv::LinkArriveC(hop, p));
        }
        Admitted::Sent
    }

    /// An arrival event of a changing direction fired for packet `p` at `now`: true if it
    /// was made stale by a re-timing (ignore it).
    pub fn stale_arrival(&mut self, now: Time, p: u32) -> bool {
        let Some(ch) = self.change.as_deref_mut() else {
            return false;
        };
        match ch.stale.iter().position(|&(t, x)| t == now && x == p) {
            Some(i) => {
                ch.stale.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// Apply `c` at `now` to this changing direction (`hop`). Packets dropped by it (a
    /// flush) are appended to `dropped`; a scheduled direction's transmission that starts
    /// is returned.
    pub fn apply_change(
        &mut self,
        now: Time,
        hop: u32,
        c: Change,
        q: &mut Queue,
        dropped: &mut Vec<(u32, DropReason)>,
    ) -> Option<super::Started> {
        if self.is_scheduled() {
            return self.apply_scheduled(now, c, dropped);
        }
        match c {
            Change::Queue(n) => {
                match self.aqm.as_deref_mut() {
                    Some(a) => a.limit = n,
                    None => self.change.as_deref_mut().unwrap().limit = n,
                }
                return None;
            }
            Change::Loss(x) => {
                self.loss = x;
                return None;
            }
            _ => {}
        }
        self.retime(now, hop, c, q, dropped);
        None
    }

    fn apply_scheduled(
        &mut self,
        now: Time,
        c: Change,
        dropped: &mut Vec<(u32, DropReason)>,
    ) -> Option<super::Started> {
        match c {
            Change::Delay(d) => self.delay = d,
            Change::Rate(r) => self.set_rate(r),
            Change::Loss(x) => self.loss = x,
            Change::Queue(n) => self.set_sched_limit(n),
            Change::Down { keep } => {
                let ch = self.change.as_deref_mut().unwrap();
                ch.down = true;
                ch.keep = keep;
                if !keep {
                    let mut items = Vec::new();
                    self.drain_sched(&mut items);
                    let ch = self.change.as_deref_mut().unwrap();
                    ch.drops_down += items.len() as u64;
                    self.in_system -= items.len() as u64;
                    dropped.extend(items.into_iter().map(|p| (p, DropReason::Down)));
                }
            }
            Change::Up => {
                self.change.as_deref_mut().unwrap().down = false;
                if self.sched_idle() {
                    let mut scratch = Vec::new();
                    let s = self.sched_start(now, &mut scratch);
                    dropped.extend(
                        scratch
                            .into_iter()
                            .map(|(p, aqm)| (p, if aqm { DropReason::Aqm } else { DropReason::Queue })),
                    );
                    return s;
                }
            }
        }
        None
    }

    pub(super) fn set_rate(&mut self, r: f64) {
        self.rate = r;
        self.tx_cache = [(u32::MAX, 0); 2];
    }

    /// Re-time the packets of a changing direction on the fast path's model (see the
    /// module comment) for a delay, rate, down or up change.
    fn retime(&mut self, now: Time, hop: u32, c: Change, q: &mut Queue, dropped: &mut Vec<(u32, DropReason)>) {
        let n = self.sync_sent(now);
        let mut ends: Vec<Time> = Vec::with_capacity(n);
        while let Some(e) = self.departures.pop_front() {
            ends.push(e);
        }
        let ch = self.change.as_deref_mut().unwrap();
        let mut items: Vec<(u32, u32)> = Vec::with_capacity(n);
        while let Some(x) = ch.sent.pop_front() {
            items.push(x);
        }
        debug_assert_eq!(ends.len(), items.len());
        // The in-transit entries of the packets still in the system are the last ones.
        let m = items.iter().filter(|x| x.0 != LOST).count();
        let mut transit: Vec<(Key, u32, Hop)> = Vec::with_capacity(self.in_transit.len());
        while let Some(x) = self.in_transit.pop_front() {
            transit.push(x);
        }
        debug_assert!(transit.len() >= m);
        let keep_transit = transit.len() - m;
        let old_front = transit.first().map(|&(k, p, _)| (k, p));
        transit.truncate(keep_transit);
        // The packet in service (the first, if any) finishes as timed.
        let tx_old = |i: usize, ends: &[Time]| ends[i] - ends[i - 1];
        match c {
            Change::Delay(d) => self.delay = d,
            Change::Rate(r) => {
                self.set_rate(r);
                let old: Vec<Time> = (1..ends.len()).map(|i| tx_old(i, &ends)).collect();
                for i in 1..ends.len() {
                    let new = self.tx_time(items[i].1);
                    self.busy_ns = self.busy_ns.saturating_sub(old[i - 1]).saturating_add(new);
                    ends[i] = ends[i - 1].saturating_add(new);
                }
            }
            Change::Down { keep } => {
                let ch = self.change.as_deref_mut().unwrap();
                ch.down = true;
                ch.keep = keep;
                let mut removed: Vec<(u32, u32)> = Vec::new();
                for i in (1..ends.len()).rev() {
                    self.busy_ns = self.busy_ns.saturating_sub(tx_old(i, &ends));
                    removed.push(items[i]);
                }
                removed.reverse();
                ends.truncate(1);
                items.truncate(1);
                self.busy_until = ends.first().copied().unwrap_or(self.busy_until);
                let ch = self.change.as_deref_mut().unwrap();
                if keep {
                    for x in removed.into_iter().rev() {
                        ch.held.push_front(x);
                    }
                } else {
                    for x in removed.into_iter().chain(ch.held.drain(..)) {
                        if x.0 != LOST {
                            ch.drops_down += 1;
                            self.in_system -= 1;
                            dropped.push((x.0, DropReason::Down));
                        }
                    }
                }
            }
            Change::Up => {
                let ch = self.change.as_deref_mut().unwrap();
                ch.down = false;
                let held: Vec<(u32, u32)> = ch.held.drain(..).collect();
                let mut t = self.busy_until.max(now);
                for x in held {
                    let tx = self.cached_tx_time(x.1);
                    t = t.saturating_add(tx);
                    self.busy_ns = self.busy_ns.saturating_add(tx);
                    ends.push(t);
                    items.push(x);
                }
            }
            Change::Queue(_) | Change::Loss(_) => unreachable!("no re-timing"),
        }
        if let Some(&e) = ends.last() {
            self.busy_until = e;
        }
        for x in transit {
            self.in_transit.push_back(x);
        }
        let ch = self.change.as_deref_mut().unwrap();
        for (&e, &x) in ends.iter().zip(&items) {
            self.departures.push_back(e);
            ch.sent.push_back(x);
        }
        for (&e, &(p, _)) in ends.iter().zip(&items) {
            if p == LOST {
                continue;
            }
            let at = e.saturating_add(self.delay).max(self.transit_floor());
            let key = q.key(at);
            self.in_transit.push_back((key, p, Hop::default()));
        }
        let new_front = self.in_transit.front().map(|(k, p, _)| (k, p));
        if old_front != new_front {
            if let Some((k, p)) = old_front {
                self.change.as_deref_mut().unwrap().stale.push((k.time(), p));
            }
            if let Some((k, p)) = new_front {
                q.schedule_key(k, NetEv::LinkArriveC(hop, p));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! One link direction of 8 Mb/s (a 1000-byte packet takes 1 ms) and 10 ms of delay
    //! (unless said otherwise), fed with packets created here, with changes at given times;
    //! arrival times worked out by hand.
    use super::super::{DropReason, Network, Packet, Route};
    use super::*;
    use crate::net::reorder::Reorder;
    use crate::net::{Aqm, LinkDir};
    use crate::scenario::{CodelSpec, Discipline, FqCodelSpec, RedSpec};
    use crate::sim::{Ev, Rng};
    use crate::tcp::Kind;

    const MS: Time = 1_000_000;

    fn network(delay: Time, loss: f64, limit: u32) -> Network {
        let fwd = LinkDir::new(0, 0, 1, 8e6, delay, limit, loss, Rng::from_seed(1));
        let back = LinkDir::new(0, 1, 0, 8e6, delay, limit, 0.0, Rng::from_seed(3));
        let mut net = Network::new(vec![fwd, back], vec![], vec![]);
        let r = net.add_route(Route {
            fwd: vec![0],
            rev: vec![1],
        });
        net.attach(0, r);
        net.drop_trace = Some(Default::default());
        net
    }

    /// Send a 1000-byte packet at each time (seq = index) with the changes of direction 0
    /// at theirs; the (arrival time, seq) of the packets that reach the far end.
    fn run(net: &mut Network, sends: &[Time], changes: &[(Time, Change)]) -> Vec<(Time, u64)> {
        let mut q = Queue::new();
        if !changes.is_empty() {
            net.links[0].make_changing();
        }
        for (i, &(t, c)) in changes.iter().enumerate() {
            net.changes.push((t, 0, c));
            q.at(t, NetEv::LinkChange(i as u32));
        }
        let mut out = vec![];
        let pump = |q: &mut Queue, net: &mut Network, limit: Time, out: &mut Vec<(Time, u64)>| {
            while let Some((t, ev)) = q.pop_until(limit) {
                let Ev::Net(e) = ev else { unreachable!() };
                if let Some(c) = net.handle(t, e, q) {
                    assert!(c.delivered);
                    out.push((t, net.take_delivered(c.p).seq));
                }
            }
        };
        for (seq, &t) in sends.iter().enumerate() {
            pump(&mut q, net, t, &mut out);
            q.advance_to(t);
            let p = Packet {
                flow: 0,
                kind: Kind::Data,
                at: 0,
                size: 1000,
                seq: seq as u64,
                ts: t,
                ts_echo: 0,
                sack: 0,
                ecn: Default::default(),
            };
            net.send(t, p, &mut q);
        }
        pump(&mut q, net, Time::MAX, &mut out);
        let l = &net.links[0];
        let down = l.changing().map_or(0, |c| c.drops_down);
        assert_eq!(
            l.arrivals,
            l.delivered + l.drops_queue + l.drops_loss + down + l.in_system
        );
        assert_eq!((l.in_system, net.pool.live()), (0, 0), "everything delivered or freed");
        out
    }

    fn every(n: u64, gap: Time) -> Vec<Time> {
        (0..n).map(|k| k * gap).collect()
    }

    fn down_drops(net: &Network) -> usize {
        let t = net.drop_trace.as_ref().unwrap();
        t.drops.iter().filter(|d| d.reason == DropReason::Down).count()
    }

    #[test]
    fn the_link_direction_and_the_event_do_not_grow() {
        // four cache lines (the change pointer sits in what was padding), and the event
        // variants for changes fit in the 12 bytes NetEv had
        assert_eq!(std::mem::size_of::<LinkDir>(), 256);
        assert_eq!(std::mem::size_of::<NetEv>(), 12);
    }

    #[test]
    fn a_changing_direction_is_the_plain_one_until_its_first_change() {
        // bursts of 5 against a queue of 3, 10 % loss: queue drops and loss draws
        let sends: Vec<Time> = (0..3000).map(|k| (k / 5) * 5 * MS + k % 5).collect();
        let mut plain = network(10 * MS, 0.1, 3);
        let mut changing = network(10 * MS, 0.1, 3);
        let a = run(&mut plain, &sends, &[]);
        let b = run(&mut changing, &sends, &[(100_000 * MS, Change::Delay(MS))]);
        assert_eq!(a, b);
        let (x, y) = (&plain.links[0], &changing.links[0]);
        assert!(x.drops_queue > 500 && x.drops_loss > 100);
        assert_eq!(
            (x.drops_queue, x.drops_loss, x.busy_ns, x.delivered),
            (y.drops_queue, y.drops_loss, y.busy_ns, y.delivered)
        );
    }

    #[test]
    fn a_longer_delay_applies_from_the_packet_in_transmission() {
        // a packet every 2 ms, sent in 1 ms: packet k is transmitted from 2k to 2k+1 ms.
        // At 4.5 ms packet 2 is being sent: it and later ones take 20 ms, 0 and 1 took 10.
        let mut net = network(10 * MS, 0.0, 100);
        let out = run(
            &mut net,
            &every(6, 2 * MS),
            &[(4 * MS + MS / 2, Change::Delay(20 * MS))],
        );
        let want: Vec<(Time, u64)> = vec![(11, 0), (13, 1), (25, 2), (27, 3), (29, 4), (31, 5)]
            .into_iter()
            .map(|(t, s)| (t * MS, s))
            .collect();
        assert_eq!(out, want);
    }

    #[test]
    fn a_shorter_delay_keeps_the_order() {
        // 20 ms, then 1 ms from 4.5 ms: packets 0 and 1 arrive at 21 and 23 ms; packet k >= 2
        // would arrive at 2k+2 ms, before packet 1 for k <= 10: those arrive right after
        // it (at 23 ms, in order); from k = 11 on, at 2k+2 ms.
        let mut net = network(20 * MS, 0.0, 100);
        let out = run(&mut net, &every(14, 2 * MS), &[(4 * MS + MS / 2, Change::Delay(MS))]);
        let mut want = vec![(21 * MS, 0), (23 * MS, 1)];
        want.extend((2..=10).map(|k| (23 * MS, k)));
        want.extend((11..14).map(|k| ((2 * k + 2) * MS, k)));
        assert_eq!(out, want);
        assert_eq!(net.links[0].drops_queue + net.links[0].drops_loss, 0);
    }

    #[test]
    fn a_new_rate_retimes_the_queue_behind_the_packet_in_transmission() {
        // 10 packets at 0 leave at 1, 2, ..., 10 ms. At 2.5 ms the rate halves: packet 2
        // ends at 3 ms as timed, packets 3..9 take 2 ms each: 5, 7, ..., 17 ms.
        let mut net = network(10 * MS, 0.0, 100);
        let out = run(&mut net, &[0; 10], &[(2 * MS + MS / 2, Change::Rate(4e6))]);
        let ends: Vec<Time> = vec![1, 2, 3, 5, 7, 9, 11, 13, 15, 17];
        let want: Vec<(Time, u64)> = ends
            .iter()
            .enumerate()
            .map(|(k, e)| ((e + 10) * MS, k as u64))
            .collect();
        assert_eq!(out, want);
        assert_eq!(net.links[0].busy_ns, 17 * MS);
        // and a later packet is sent at the new rate: 2 ms
        let mut net = network(10 * MS, 0.0, 100);
        let out = run(&mut net, &[0, 50 * MS], &[(0, Change::Rate(4e6))]);
        assert_eq!(out, vec![(12 * MS, 0), (62 * MS, 1)]);
    }

    #[test]
    fn a_faster_rate_moves_the_first_arrival_earlier_and_its_old_event_is_ignored() {
        // Packet 0 is lost (loss 1, then 0 from 0.1 ms) but occupies the link 0-1 ms;
        // packets 1 and 2, queued at 0.2 ms, were timed to leave at 2 and 3 ms, and packet
        // 1's arrival (12 ms) was scheduled. At 0.5 ms the rate doubles: 1.5 and 2 ms.
        let mut net = network(10 * MS, 1.0, 100);
        let out = run(
            &mut net,
            &[0, MS / 5, MS / 5],
            &[(MS / 10, Change::Loss(0.0)), (MS / 2, Change::Rate(16e6))],
        );
        assert_eq!(out, vec![(11 * MS + MS / 2, 1), (12 * MS, 2)]);
        assert_eq!(net.links[0].drops_loss, 1);
        // Halved instead: 3 and 5 ms; the event at 12 ms is stale.
        let mut net = network(10 * MS, 1.0, 100);
        let out = run(
            &mut net,
            &[0, MS / 5, MS / 5],
            &[(MS / 10, Change::Loss(0.0)), (MS / 2, Change::Rate(4e6))],
        );
        assert_eq!(out, vec![(13 * MS, 1), (15 * MS, 2)]);
    }

    #[test]
    fn a_smaller_queue_drops_nothing_queued_and_admits_below_its_limit() {
        // 10 packets at 0 (limit 100); the limit becomes 3 at 0.5 ms. Arrivals at 4.5 ms
        // (6 in the system) and 7.5 ms (3) are dropped, one at 8.5 ms (2) is admitted and
        // leaves at 11 ms.
        let mut net = network(10 * MS, 0.0, 100);
        let sends = [vec![0; 10], vec![4 * MS + MS / 2, 7 * MS + MS / 2, 8 * MS + MS / 2]].concat();
        let out = run(&mut net, &sends, &[(MS / 2, Change::Queue(3))]);
        let seqs: Vec<u64> = out.iter().map(|x| x.1).collect();
        assert_eq!(seqs, vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12]);
        assert_eq!(out.last(), Some(&(21 * MS, 12)));
        assert_eq!(net.links[0].drops_queue, 2);
        assert_eq!(net.links[0].queue_limit(), 3);
    }

    #[test]
    fn a_new_loss_rate_applies_from_its_time() {
        // 10000 packets on an idle link without loss, then 10000 with 0.3: the losses are
        // within 5 standard deviations of 3000 (sd 45.8), none before.
        let mut net = network(MS, 0.0, 100);
        let sends = every(20_000, 2 * MS);
        let out = run(&mut net, &sends, &[(20_000 * MS - MS / 2, Change::Loss(0.3))]);
        let lost_early = (0..10_000u64)
            .filter(|k| out.binary_search_by_key(k, |x| x.1).is_err())
            .count();
        assert_eq!(lost_early, 0);
        let lost = net.links[0].drops_loss as f64;
        assert!((lost - 3000.0).abs() < 5.0 * (10_000.0f64 * 0.3 * 0.7).sqrt(), "{lost}");
    }

    #[test]
    fn down_keep_holds_the_queue_and_arrivals_until_up() {
        // 5 packets at 0 (leaving at 1..5 ms); down at 2.5 ms: packet 2 finishes (arrives at
        // 13 ms), 3 and 4 wait with packet 5 (sent at 4 ms); up at 20 ms: they leave at 21,
        // 22, 23 ms and arrive 10 ms later. Nothing arrives between 13 and 31 ms.
        let mut net = network(10 * MS, 0.0, 100);
        let sends = [vec![0; 5], vec![4 * MS]].concat();
        let out = run(
            &mut net,
            &sends,
            &[(2 * MS + MS / 2, Change::Down { keep: true }), (20 * MS, Change::Up)],
        );
        let want: Vec<(Time, u64)> = [11, 12, 13, 31, 32, 33]
            .iter()
            .enumerate()
            .map(|(k, &t)| (t * MS, k as u64))
            .collect();
        assert_eq!(out, want);
        assert_eq!(net.links[0].changing().unwrap().drops_down, 0);
        let names: Vec<(&str, f64)> = net.change_log.iter().map(|c| (c.name, c.value)).collect();
        assert_eq!(names, [("link_down", 1.0), ("link_up", 3.0)]);
    }

    #[test]
    fn down_keep_respects_the_limit() {
        // limit 3: at 0.5 ms three packets are in the system; down at 0.5 ms keeps 2 waiting
        // (one in transmission); then 2 arrivals at 2 ms: 2 held + 1 more fill the limit,
        // the second is a queue drop.
        let mut net = network(10 * MS, 0.0, 3);
        let sends = [vec![0; 3], vec![2 * MS, 2 * MS]].concat();
        let out = run(
            &mut net,
            &sends,
            &[(MS / 2, Change::Down { keep: true }), (10 * MS, Change::Up)],
        );
        assert_eq!(out.iter().map(|x| x.1).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!(out[1], (21 * MS, 1));
        assert_eq!(net.links[0].drops_queue, 1);
    }

    #[test]
    fn down_drop_flushes_the_queue_and_drops_arrivals() {
        // as above, with drop: packets 3 and 4 are flushed, 5 (at 4 ms) dropped; a packet
        // at 21 ms, after up at 20 ms, leaves at 22 ms.
        let mut net = network(10 * MS, 0.0, 100);
        let sends = [vec![0; 5], vec![4 * MS, 21 * MS]].concat();
        let out = run(
            &mut net,
            &sends,
            &[(2 * MS + MS / 2, Change::Down { keep: false }), (20 * MS, Change::Up)],
        );
        assert_eq!(out, vec![(11 * MS, 0), (12 * MS, 1), (13 * MS, 2), (32 * MS, 6)]);
        assert_eq!(net.links[0].changing().unwrap().drops_down, 3);
        assert_eq!(down_drops(&net), 3);
        // the busy time is what was sent: 3 + 1 ms
        assert_eq!(net.links[0].busy_ns, 4 * MS);
    }

    /// Up to 300 sends in [0, 100] ms and 1–8 changes of every kind in [0, 100] ms, in time
    /// order, drawn with `below(n)` (uniform in 0..n).
    fn random_sends_and_changes(below: &mut impl FnMut(u64) -> u64) -> (Vec<Time>, Vec<(Time, Change)>) {
        let mut sends: Vec<Time> = (0..below(300)).map(|_| below(200) * MS / 2 + below(3)).collect();
        sends.sort_unstable();
        let mut changes: Vec<(Time, Change)> = (0..1 + below(8))
            .map(|_| {
                let c = match below(7) {
                    0 => Change::Delay(below(30) * MS),
                    1 => Change::Rate([1e6, 4e6, 8e6, 32e6][below(4) as usize]),
                    2 => Change::Queue(1 + below(20) as u32),
                    3 => Change::Loss([0.0, 0.2][below(2) as usize]),
                    4 => Change::Down { keep: below(2) == 0 },
                    _ => Change::Up,
                };
                (below(100) * MS + below(2) * MS / 3, c)
            })
            .collect();
        changes.sort_by_key(|c| c.0);
        (sends, changes)
    }

    #[test]
    fn random_changes_keep_the_order_and_account_for_every_packet() {
        // Random bursts and random changes (any kind, any order, down without up, up
        // without down) on plain, lossy, small-queue, RED and CoDel directions: the run's own
        // checks hold (conservation, every packet delivered or freed, and in a debug build
        // the FIFO of arrivals), and one flow's packets arrive in the order sent.
        let mut r = Rng::from_seed(42);
        let mut below = |n: u64| r.next_u64() % n;
        for case in 0..300 {
            let loss = if below(3) == 0 { 0.1 } else { 0.0 };
            let mut net = network(below(20) * MS, loss, 1 + below(30) as u32);
            if case % 5 == 0 {
                let codel = Discipline::Codel(CodelSpec {
                    limit: 1 + below(30) as u32,
                    target: 0.002,
                    interval: 0.02,
                    ecn: false,
                });
                net.links[0].manage(Aqm::new(&codel, 8e6, Rng::from_seed(case)));
            } else if case % 5 == 1 {
                let red = Discipline::Red(RedSpec {
                    limit: 1 + below(30) as u32,
                    min_th: 2.0,
                    max_th: 6.0,
                    q_weight: 0.2,
                    max_p: 0.2,
                    gentle: true,
                    wait: true,
                    mean_pktsize: 1000,
                    ecn: false,
                });
                net.links[0].manage(Aqm::new(&red, 8e6, Rng::from_seed(case)));
            }
            let (sends, mut changes) = random_sends_and_changes(&mut below);
            // up at the end, so that whatever was kept leaves
            changes.push((200 * MS, Change::Up));
            let out = run(&mut net, &sends, &changes);
            assert!(
                out.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1),
                "case {case}: out of order"
            );
        }
    }

    #[test]
    fn a_codel_direction_stops_while_down_and_takes_the_new_delay_and_rate() {
        let codel = Discipline::Codel(CodelSpec {
            limit: 100,
            target: 0.005,
            interval: 0.1,
            ecn: false,
        });
        let mut net = network(10 * MS, 0.0, 100);
        net.links[0].manage(Aqm::new(&codel, 8e6, Rng::from_seed(2)));
        // 4 packets at 0: the first is sent 0-1 ms; down (keep) at 0.5 ms, up at 10 ms with
        // a delay of 5 ms and 4 Mb/s: the other three leave at 12, 14, 16 ms.
        let out = run(
            &mut net,
            &[0; 4],
            &[
                (MS / 2, Change::Down { keep: true }),
                (9 * MS, Change::Delay(5 * MS)),
                (9 * MS, Change::Rate(4e6)),
                (10 * MS, Change::Up),
            ],
        );
        assert_eq!(out, vec![(11 * MS, 0), (17 * MS, 1), (19 * MS, 2), (21 * MS, 3)]);
        let up = net.change_log.last().unwrap();
        assert_eq!((up.name, up.value, up.time), ("link_up", 3.0, 10 * MS), "three waiting");
        // with drop, the three waiting are flushed
        let mut net = network(10 * MS, 0.0, 100);
        net.links[0].manage(Aqm::new(&codel, 8e6, Rng::from_seed(2)));
        let out = run(&mut net, &[0; 4], &[(MS / 2, Change::Down { keep: false })]);
        assert_eq!(out, vec![(11 * MS, 0)]);
        assert_eq!(down_drops(&net), 3);
    }

    // Reordering (`net/reorder.rs`) on the directions that hand packets to the wire
    // themselves: scheduled (codel, fq_codel) and changing ones.

    /// Hold back packets of direction 0 with probability `prob` by `delay`, on a droptail
    /// discipline of limit `limit` if it has none (as the network's builder does).
    fn reorder(net: &mut Network, prob: f64, delay: Time, limit: u32) {
        if net.links[0].aqm().is_none() {
            let d = Discipline::Droptail { limit };
            net.links[0].manage(Aqm::new(&d, 8e6, Rng::from_seed(0)));
        }
        net.links[0].set_reorder(Reorder::new(prob, delay, Rng::from_seed(9)));
    }

    /// The arrivals of packets sent before one that arrived earlier (the packets overtaken).
    fn overtaken(out: &[(Time, u64)]) -> u64 {
        let mut max = None;
        out.iter()
            .filter(|&&(_, s)| {
                let behind = max.is_some_and(|m| s < m);
                max = max.max(Some(s));
                behind
            })
            .count() as u64
    }

    /// Every packet of `out` once (none duplicated).
    fn once(out: &[(Time, u64)]) -> bool {
        let mut seqs: Vec<u64> = out.iter().map(|x| x.1).collect();
        seqs.sort_unstable();
        seqs.windows(2).all(|w| w[0] < w[1])
    }

    fn codel() -> Discipline {
        Discipline::Codel(CodelSpec {
            limit: 100,
            target: 0.005,
            interval: 0.1,
            ecn: false,
        })
    }

    fn fq_codel() -> Discipline {
        Discipline::FqCodel(FqCodelSpec {
            limit: 100,
            target: 0.005,
            interval: 0.1,
            ecn: false,
            flows: 1024,
            quantum: 1514,
        })
    }

    #[test]
    fn a_codel_direction_holds_packets_back_when_their_transmission_ends() {
        // a packet every 2 ms, sent in 1 ms: nothing waits, CoDel drops nothing; packet k
        // arrives at 2k + 11 ms, or 20 ms later if held back, and each held-back packet is
        // overtaken by the ones sent in the 20 ms after it
        let sends = every(5000, 2 * MS);
        for disc in [codel(), fq_codel()] {
            let make = |prob: Option<f64>| {
                let mut net = network(10 * MS, 0.0, 100);
                net.links[0].manage(Aqm::new(&disc, 8e6, Rng::from_seed(2)));
                if let Some(p) = prob {
                    reorder(&mut net, p, 20 * MS, 100);
                }
                net
            };
            let mut net = make(Some(0.1));
            let out = run(&mut net, &sends, &[]);
            let held = net.links[0].reordered();
            assert_eq!(out.len(), 5000);
            assert!(once(&out));
            let late = out.iter().filter(|&&(t, s)| t == (2 * s + 31) * MS).count() as u64;
            assert!(out
                .iter()
                .all(|&(t, s)| t == (2 * s + 11) * MS || t == (2 * s + 31) * MS));
            assert_eq!((late, overtaken(&out)), (held, held));
            // 10 % within 5 standard deviations (sd 21.2)
            assert!((held as f64 - 500.0).abs() < 106.0, "{held}");
            // prob 0: the run without reordering
            let (mut a, mut b) = (make(None), make(Some(0.0)));
            let (x, y) = (run(&mut a, &sends, &[]), run(&mut b, &sends, &[]));
            assert_eq!(x, y);
            assert_eq!((overtaken(&y), b.links[0].reordered()), (0, 0));
            assert_eq!(
                (a.links[0].busy_ns, a.links[0].delivered),
                (b.links[0].busy_ns, b.links[0].delivered)
            );
        }
    }

    #[test]
    fn a_congested_codel_direction_reorders_after_its_own_drops() {
        // bursts of 40 every 20 ms at 1 ms per packet: CoDel drops; the held-back packets
        // are among those it sent, each delivered once
        let sends: Vec<Time> = (0..4000).map(|k| (k / 40) * 20 * MS).collect();
        for disc in [codel(), fq_codel()] {
            let mut net = network(10 * MS, 0.05, 100);
            net.links[0].manage(Aqm::new(&disc, 8e6, Rng::from_seed(2)));
            reorder(&mut net, 0.1, 5 * MS, 100);
            let out = run(&mut net, &sends, &[]);
            let l = &net.links[0];
            assert!(l.aqm().unwrap().drops_aqm > 0 && l.drops_loss > 0);
            assert!(once(&out));
            assert_eq!(out.len() as u64, l.delivered);
            assert_eq!(sends.len() as u64, l.delivered + l.drops_queue + l.drops_loss);
            assert!(l.reordered() > 0 && overtaken(&out) > 0);
            assert!(overtaken(&out) <= l.reordered());
        }
    }

    /// A packet every 2 ms for 10 s on direction 0 (10 ms, 5 % loss, limit 100) holding 10 %
    /// back by 20 ms, on `disc` (droptail if none), with a delay increase at 3 s, a rate
    /// halved at 5 s (the queue then grows), a delay decrease at 7 s.
    fn reordering_across_changes(disc: Option<&Discipline>) -> (Vec<(Time, u64)>, Network) {
        let mut net = network(10 * MS, 0.05, 100);
        if let Some(d) = disc {
            net.links[0].manage(Aqm::new(d, 8e6, Rng::from_seed(2)));
        }
        reorder(&mut net, 0.1, 20 * MS, 100);
        let changes = [
            (3000 * MS, Change::Delay(30 * MS)),
            (5000 * MS, Change::Rate(3e6)),
            (7000 * MS, Change::Delay(5 * MS)),
        ];
        let out = run(&mut net, &every(5000, 2 * MS), &changes);
        (out, net)
    }

    #[test]
    fn a_changing_direction_holds_packets_back_at_their_arrival_and_loses_none() {
        for disc in [None, Some(codel())] {
            let (out, net) = reordering_across_changes(disc.as_ref());
            let l = &net.links[0];
            // sent = delivered + dropped (the run also checks conservation and that every
            // packet was delivered or freed), each delivered once
            assert_eq!(out.len() as u64, l.delivered);
            assert_eq!(5000, l.delivered + l.drops_queue + l.drops_loss);
            assert!(l.drops_queue > 0 && l.drops_loss > 0, "the slower rate fills the queue");
            assert!(once(&out));
            // reordered, every held-back packet overtaken (the 20 ms carry 10 packets)
            assert!(l.reordered() > 300, "{}", l.reordered());
            assert_eq!(overtaken(&out), l.reordered());
            // without the held-back ones, the order is kept across the changes
            let mut kept = out.clone();
            let mut max = 0;
            kept.retain(|&(_, s)| {
                let keep = s >= max;
                max = max.max(s);
                keep
            });
            assert_eq!(kept.len() as u64 + l.reordered(), out.len() as u64);
            // the same seed, the same run
            let (again, net2) = reordering_across_changes(disc.as_ref());
            assert_eq!(out, again);
            let m = &net2.links[0];
            assert_eq!(
                (l.reordered(), l.drops_queue, l.drops_loss, l.busy_ns),
                (m.reordered(), m.drops_queue, m.drops_loss, m.busy_ns)
            );
        }
    }

    #[test]
    fn a_changing_reordering_direction_is_the_plain_one_until_its_first_change() {
        // as a_changing_direction_is_the_plain_one_until_its_first_change, holding 10 %
        // back by 3 ms: the same packets held back, the same arrival times. Only arrivals at
        // the same nanosecond may come in another order: the changing direction schedules a
        // held-back packet's event at its normal arrival, the plain one at admission
        let sends: Vec<Time> = (0..3000).map(|k| (k / 5) * 5 * MS + k % 5).collect();
        let mut plain = network(10 * MS, 0.1, 3);
        let mut changing = network(10 * MS, 0.1, 3);
        reorder(&mut plain, 0.1, 3 * MS, 3);
        reorder(&mut changing, 0.1, 3 * MS, 3);
        let a = run(&mut plain, &sends, &[]);
        let b = run(&mut changing, &sends, &[(100_000 * MS, Change::Delay(MS))]);
        let (mut x, mut y) = (a.clone(), b.clone());
        x.sort_unstable();
        y.sort_unstable();
        assert!(x == y, "the same arrivals");
        assert!(a.iter().zip(&b).all(|(p, c)| p.0 == c.0), "the same time at each place");
        let (x, y) = (&plain.links[0], &changing.links[0]);
        assert!(x.reordered() > 100 && overtaken(&a) > 100);
        assert_eq!(
            (x.reordered(), x.drops_queue, x.drops_loss, x.busy_ns),
            (y.reordered(), y.drops_queue, y.drops_loss, y.busy_ns)
        );
    }

    #[test]
    fn a_held_back_packet_is_on_the_wire_and_no_change_recalls_or_moves_it() {
        // every packet held back by 20 ms. Packet 0 (sent at 0) reaches the far end at 11 ms
        // and is held back to 31 ms: an outage from 15 ms (queue dropped) and a delay
        // change at 16 ms leave it there. Packet 1, sent at 20 ms while down, is dropped;
        // packet 2 (50 ms, up at 40 ms) takes the new 5 ms: 56, held back to 76 ms.
        for disc in [None, Some(codel())] {
            let mut net = network(10 * MS, 0.0, 100);
            if let Some(d) = &disc {
                net.links[0].manage(Aqm::new(d, 8e6, Rng::from_seed(2)));
            }
            reorder(&mut net, 1.0, 20 * MS, 100);
            let out = run(
                &mut net,
                &[0, 20 * MS, 50 * MS],
                &[
                    (15 * MS, Change::Down { keep: false }),
                    (16 * MS, Change::Delay(5 * MS)),
                    (40 * MS, Change::Up),
                ],
            );
            assert_eq!(out, vec![(31 * MS, 0), (76 * MS, 2)]);
            assert_eq!(down_drops(&net), 1);
            assert_eq!(net.links[0].reordered(), 2);
        }
    }

    #[test]
    fn random_changes_of_a_reordering_direction_account_for_every_packet() {
        // as random_changes_keep_the_order_and_account_for_every_packet, holding packets
        // back: every packet delivered once or dropped, and every packet that came out of
        // order was held back
        let mut r = Rng::from_seed(43);
        let mut below = |n: u64| r.next_u64() % n;
        for case in 0..300 {
            let loss = if below(3) == 0 { 0.1 } else { 0.0 };
            let limit = 1 + below(30) as u32;
            let mut net = network(below(20) * MS, loss, limit);
            if case % 3 == 0 {
                let codel = Discipline::Codel(CodelSpec {
                    limit,
                    target: 0.002,
                    interval: 0.02,
                    ecn: false,
                });
                net.links[0].manage(Aqm::new(&codel, 8e6, Rng::from_seed(case)));
            }
            reorder(
                &mut net,
                [0.01, 0.2, 0.9][below(3) as usize],
                (1 + below(20)) * MS,
                limit,
            );
            let (sends, mut changes) = random_sends_and_changes(&mut below);
            changes.push((200 * MS, Change::Up));
            let out = run(&mut net, &sends, &changes);
            let l = &net.links[0];
            let down = l.changing().unwrap().drops_down;
            assert!(once(&out), "case {case}");
            assert_eq!(
                sends.len() as u64,
                out.len() as u64 + l.drops_queue + l.drops_loss + down,
                "case {case}"
            );
            assert!(overtaken(&out) <= l.reordered(), "case {case}");
            assert!(l.reordered() <= out.len() as u64, "case {case}");
        }
    }
}
