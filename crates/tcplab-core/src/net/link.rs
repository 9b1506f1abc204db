use super::aqm::{Aqm, Item, Kind, RedVerdict};
use super::change::Changing;
use crate::sim::{to_secs, Fifo, Key, Rng, Time};

/// What happened to a packet offered to a link direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Enqueue {
    /// Accepted; it reaches the far end at this time.
    Arrives(Time),
    /// Dropped because the queue was full.
    QueueDrop,
    /// Transmitted but lost (random loss); it occupied the link.
    Lost,
    /// A managed link (a queue discipline): the caller hands the packet to
    /// `Network::offer_managed`. The arrival is counted.
    Managed,
}

/// What a managed link's arrival-time discipline (droptail, red) decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Drop it; `early`: the discipline's own decision (RED's early drop, counted in
    /// `drops_aqm`), else a forced drop (no room, or RED's average beyond its drop region).
    Drop { early: bool },
    /// Admit it (then [`LinkDir::admit`]); `mark`: set CE.
    Accept { mark: bool },
}

/// A transmission that starts on a scheduled link: packet `p` (set CE if `mark`) until `end`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Started {
    pub p: u32,
    pub mark: bool,
    pub end: Time,
}

/// The random stream of the direction `dir` ("ab" or "ba") of the link between nodes `a`
/// and `b`: the only thing it draws is the Bernoulli loss of each packet the queue admits.
pub fn link_rng(seed: u64, a: &str, b: &str, dir: &str) -> Rng {
    Rng::stream(seed, &format!("link:{a}:{b}:{dir}"))
}

/// The packets that direction loses under master seed `seed` with loss probability `loss`,
/// among the first `n` its queue admits (indices from 0, in the order admitted, which is
/// also the order they leave the link): the draws [`LinkDir::enqueue`] makes. For replaying
/// tcplab's loss realisation in another simulator (ns-2's `ErrorModel/List`).
pub fn loss_pattern(seed: u64, a: &str, b: &str, dir: &str, loss: f64, n: u64) -> Vec<u64> {
    let mut rng = link_rng(seed, a, b, dir);
    (0..n).filter(|_| rng.bernoulli(loss)).collect()
}

/// One direction of a duplex link: a FIFO DropTail queue in front of a transmitter of
/// fixed rate, followed by a propagation delay.
///
/// The link computes each packet's departure time when it is accepted (FIFO, fixed rate),
/// so a packet costs one event per hop: its arrival at the far end. `departures` holds the
/// end-of-transmission times of the packets in the system (waiting or being sent); its
/// length is the queue occupancy, counted like ns-2's `queue-limit` (waiting + in service).
///
/// Arrivals at the far end come in the order packets were accepted, so the link keeps them
/// in `in_transit` with the place in the event order each took when it was accepted, and
/// only the first is in the event queue: the queue stays as small as the number of links,
/// not of packets, and events pop in exactly the same order.
// The fields an event touches come first, in cache lines of their own (the struct is
// aligned to a line): a packet crossing a hop reads the first line of the direction it
// leaves and the first three of the one it enters; with hundreds of directions they are not
// all in the first-level cache.
/// Where a packet in transit is on its path (`Packet::at`) and its size: kept with its
/// place in the link's FIFO (in what was padding), so that its arrival reads neither from
/// the packet, whose slot is cold by then. Only plain directions' arrivals read it; a
/// changing direction's (`NetEv::LinkArriveC`) read the packet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hop {
    pub at: u32,
    pub size: u32,
}

#[repr(C, align(64))]
pub struct LinkDir {
    /// Packets on their way to the far end (not lost), earliest first, with their place in
    /// the event order.
    pub(super) in_transit: Fifo<(Key, u32, Hop)>,
    /// Accepted, not lost, not yet at the far end (queued, in service or propagating).
    pub in_system: u64,
    pub delivered: u64,
    pub limit: u32,
    /// (In the first line's padding, so that `change` fits in the last line.)
    pub link: u32,
    pub(super) departures: Fifo<Time>,
    pub(super) busy_until: Time,
    pub arrivals: u64,
    pub delay: Time,
    /// The transmission times of the last two packet sizes (a direction mostly carries one
    /// data and one ACK size): the division and rounding cost more than the rest of
    /// `enqueue`.
    pub(super) tx_cache: [(u32, Time); 2],
    pub loss: f64,
    pub busy_ns: u64,
    /// A queue discipline; `None`: plain DropTail (the fast path). A managed link has
    /// `limit` 0, so that every arrival fails the DropTail test and comes to the one branch
    /// that tells the two apart.
    pub(super) aqm: Option<Box<Aqm>>,
    pub drops_queue: u64,
    pub(super) rng: Rng,
    pub drops_loss: u64,
    pub rate: f64,
    pub from: u32,
    pub to: u32,
    /// Scheduled changes (`[[link_changes]]`, `change.rs`); `None`: the fast path. A
    /// changing direction has `limit` 0 (its limit is kept here), as a managed link.
    pub(super) change: Option<Box<Changing>>,
}

impl LinkDir {
    #[allow(clippy::too_many_arguments)]
    pub fn new(link: u32, from: u32, to: u32, rate: f64, delay: Time, limit: u32, loss: f64, rng: Rng) -> Self {
        LinkDir {
            link,
            from,
            to,
            rate,
            delay,
            limit,
            loss,
            rng,
            tx_cache: [(u32::MAX, 0); 2],
            busy_until: 0,
            departures: Fifo::new(),
            in_transit: Fifo::new(),
            in_system: 0,
            arrivals: 0,
            delivered: 0,
            drops_queue: 0,
            drops_loss: 0,
            busy_ns: 0,
            aqm: None,
            change: None,
        }
    }

    /// Put the queue under discipline `aqm` (its limit replaces the DropTail limit).
    pub fn manage(&mut self, mut aqm: Aqm) {
        self.limit = 0;
        aqm.plain_droptail &= self.change.is_none();
        self.aqm = Some(Box::new(aqm));
    }

    pub fn aqm(&self) -> Option<&Aqm> {
        self.aqm.as_deref()
    }

    /// Hold packets back now and then (a managed direction only).
    pub fn set_reorder(&mut self, r: super::reorder::Reorder) {
        if let Some(a) = self.aqm.as_deref_mut() {
            a.reorder = Some(r);
            a.plain_droptail = false;
        }
    }

    /// The arrival time of a packet admitted for `at` if the reordering model holds it
    /// back (`None`: it arrives in order).
    #[inline]
    pub fn held_back(&mut self, at: Time) -> Option<Time> {
        self.aqm.as_deref_mut()?.reorder.as_mut()?.arrival(at)
    }

    /// Packets the reordering model held back.
    pub fn reordered(&self) -> u64 {
        self.aqm
            .as_deref()
            .and_then(|a| a.reorder.as_ref())
            .map_or(0, |r| r.held)
    }

    /// The most packets the queue holds (the DropTail limit or the discipline's).
    pub fn queue_limit(&self) -> u32 {
        match (&self.aqm, &self.change) {
            (Some(a), _) => a.limit,
            (None, Some(c)) => c.limit,
            (None, None) => self.limit,
        }
    }

    /// Its discipline has its own queue and an event per transmission (codel, fq_codel).
    pub fn is_scheduled(&self) -> bool {
        self.aqm.as_ref().is_some_and(|a| a.is_scheduled())
    }

    /// Packets in the system at `now`: waiting or being transmitted.
    pub fn queue_len(&mut self, now: Time) -> usize {
        match self.aqm.as_deref() {
            Some(Aqm {
                kind: Kind::Sched { queue, current },
                ..
            }) => queue.len() + current.is_some() as usize,
            _ => self.occupancy(now) + self.held(),
        }
    }

    /// Transmission time of `bytes` at this link's rate, in nanoseconds.
    pub fn tx_time(&self, bytes: u32) -> Time {
        crate::sim::tx_time(bytes, self.rate)
    }

    #[inline]
    pub(super) fn cached_tx_time(&mut self, bytes: u32) -> Time {
        if self.tx_cache[0].0 == bytes {
            return self.tx_cache[0].1;
        }
        if self.tx_cache[1].0 != bytes {
            self.tx_cache[1] = (bytes, self.tx_time(bytes));
        }
        self.tx_cache.swap(0, 1);
        self.tx_cache[0].1
    }

    /// Packets in the queue system (waiting + being transmitted) at `now`.
    pub fn occupancy(&mut self, now: Time) -> usize {
        if self.busy_until <= now {
            // idle (as an access link mostly is): every transmission has ended, and the
            // buffer's line need not be read
            self.departures.clear();
            return 0;
        }
        self.departures.pop_front_while(|end| end <= now);
        self.departures.len()
    }

    /// Nanoseconds spent transmitting up to `end`. `busy_ns` counts a packet's whole
    /// transmission when it is accepted; the link is busy without a gap from the start of
    /// its current busy period until `busy_until`, so what lies beyond `end` is exactly
    /// `busy_until - end` (for an `end` at or after the last `enqueue`, as the end of a run).
    pub fn busy_until_end(&self, end: Time) -> u64 {
        self.busy_ns - self.busy_until.saturating_sub(end).min(self.busy_ns)
    }

    /// Offer a packet of `bytes` at `now`.
    #[inline(always)]
    pub fn enqueue(&mut self, now: Time, bytes: u32) -> Enqueue {
        self.arrivals += 1;
        let occupancy = self.occupancy(now);
        if occupancy >= self.limit as usize {
            return self.full(now, bytes, occupancy);
        }
        self.admit(now, bytes)
    }

    /// The DropTail test failed: the queue is full, or the link is managed (`occupancy`:
    /// packets in the system at `now`). A managed droptail direction without extras
    /// ([`Aqm::plain_droptail`]) is decided here, as on the plain path.
    #[cold]
    #[inline(never)]
    fn full(&mut self, now: Time, bytes: u32, occupancy: usize) -> Enqueue {
        if self.aqm.as_deref().is_some_and(|a| a.plain_droptail) {
            return self.droptail(now, bytes, occupancy);
        }
        if self.aqm.is_some() || self.change.is_some() {
            return Enqueue::Managed;
        }
        self.drops_queue += 1;
        Enqueue::QueueDrop
    }

    /// A managed droptail direction without reordering or changes: what
    /// [`LinkDir::managed_verdict`] and [`LinkDir::admit`] do, without the verdict (a
    /// queue drop is counted in `drops_queue` and is not the discipline's own).
    #[inline(always)]
    fn droptail(&mut self, now: Time, bytes: u32, occupancy: usize) -> Enqueue {
        let Some(aqm) = self.aqm.as_deref_mut() else {
            unreachable!("a managed link")
        };
        if occupancy >= aqm.limit as usize {
            self.drops_queue += 1;
            return Enqueue::QueueDrop;
        }
        aqm.stats.record(self.busy_until.saturating_sub(now));
        self.admit(now, bytes)
    }

    /// A packet of `bytes` accepted at `now` is sent after the packets before it: when its
    /// transmission ends.
    #[inline(always)]
    pub(super) fn transmit(&mut self, now: Time, bytes: u32) -> Time {
        let tx = self.cached_tx_time(bytes);
        let end = self.busy_until.max(now).saturating_add(tx);
        self.busy_until = end;
        self.busy_ns = self.busy_ns.saturating_add(tx);
        self.departures.push_back(end);
        end
    }

    /// Admit a packet of `bytes` at `now`: its transmission follows the packets before it.
    #[inline(always)]
    pub fn admit(&mut self, now: Time, bytes: u32) -> Enqueue {
        let end = self.transmit(now, bytes);
        if self.rng.bernoulli(self.loss) {
            self.drops_loss += 1;
            return Enqueue::Lost;
        }
        self.in_system += 1;
        Enqueue::Arrives(end.saturating_add(self.delay))
    }

    /// Packet `p`, accepted with `Enqueue::Arrives`, travels to the far end, where it
    /// arrives at the place `key` in the event order; true if it is the first in transit
    /// (its arrival is the one to schedule).
    #[inline]
    pub fn push_transit(&mut self, key: Key, p: u32, hop: Hop) -> bool {
        debug_assert!(self.in_transit.back().is_none_or(|(k, _, _)| k < key), "FIFO order");
        self.in_transit.push_back((key, p, hop));
        self.in_transit.len() == 1
    }

    /// The first packet in transit, `p`, reached the far end: it leaves, and the next one's
    /// arrival (if any: its place in the event order and the packet) is the one to schedule.
    #[inline]
    pub fn pop_transit(&mut self, p: u32) -> (Hop, Option<(Key, u32)>) {
        let first = self.in_transit.pop_front().expect("a packet in transit");
        debug_assert_eq!(first.1, p, "the packet in transit first");
        (first.2, self.in_transit.front().map(|(k, p, _)| (k, p)))
    }

    /// A packet reached the far end.
    pub fn on_delivered(&mut self) {
        self.in_system -= 1;
        self.delivered += 1;
    }

    /// A managed link's arrival-time discipline (droptail, red) on a packet arriving at
    /// `now` (`ect`: ECN-capable). On `Accept` the caller admits it.
    pub fn managed_verdict(&mut self, now: Time, ect: bool) -> Verdict {
        let occupancy = self.occupancy(now) + self.held();
        let busy_until = self.busy_until;
        let aqm = self.aqm.as_deref_mut().expect("a managed link");
        let full = occupancy >= aqm.limit as usize;
        let verdict = match &mut aqm.kind {
            Kind::DropTail if full => RedVerdict::DropForced,
            Kind::DropTail => RedVerdict::Enqueue,
            Kind::Red(red) => {
                // ns-2's queue length leaves out the packet in service; the link has been
                // idle since its last transmission ended if nothing is in the system
                let waiting = occupancy.saturating_sub(1);
                let idle = (occupancy == 0).then(|| to_secs(now.saturating_sub(busy_until)));
                red.arrive(waiting, idle, ect, full, &mut aqm.rng)
            }
            Kind::Sched { .. } => unreachable!("a scheduled link decides at dequeue"),
        };
        match verdict {
            RedVerdict::DropForced | RedVerdict::DropEarly => {
                self.drops_queue += 1;
                let early = verdict == RedVerdict::DropEarly;
                aqm.drops_aqm += early as u64;
                Verdict::Drop { early }
            }
            RedVerdict::Enqueue | RedVerdict::Mark => {
                let mark = verdict == RedVerdict::Mark;
                aqm.marks += mark as u64;
                aqm.stats.record(busy_until.saturating_sub(now));
                Verdict::Accept { mark }
            }
        }
    }

    /// Scheduled path: packet `p` (`bytes`, of flow `flow`, ECN-capable or not) arrives
    /// at `now` (counted already). Packets dropped on the way go to `dropped`; if the link
    /// was idle, the transmission that starts now.
    pub fn sched_arrive(
        &mut self,
        now: Time,
        p: u32,
        bytes: u32,
        flow: u32,
        ect: bool,
        dropped: &mut Vec<(u32, bool)>,
    ) -> Option<Started> {
        let aqm = self.aqm.as_deref_mut().expect("a managed link");
        let Kind::Sched { queue, current } = &mut aqm.kind else {
            unreachable!("a scheduled link")
        };
        let it = Item {
            p,
            size: bytes,
            enq: now,
            ect,
            flow,
        };
        self.in_system += 1;
        match queue {
            super::aqm::Sched::Codel(q) => {
                if q.len() >= aqm.limit as usize {
                    aqm.scratch.push(it);
                } else {
                    q.push(it);
                }
            }
            super::aqm::Sched::FqCodel(q) => q.enqueue(it, &mut aqm.scratch),
        }
        let idle = current.is_none() && !self.change.as_deref().is_some_and(|c| c.down);
        for d in aqm.scratch.drain(..) {
            self.in_system -= 1;
            self.drops_queue += 1;
            dropped.push((d.p, false));
        }
        if idle {
            return self.start_next(now, dropped);
        }
        None
    }

    /// Scheduled path: the transmission in progress ends at `now`. The packet that was
    /// sent and when it reaches the far end (`None`: lost), and the next transmission.
    pub fn sched_tx_end(&mut self, now: Time, dropped: &mut Vec<(u32, bool)>) -> (u32, Option<Time>, Option<Started>) {
        let aqm = self.aqm.as_deref_mut().expect("a managed link");
        let Kind::Sched { current, .. } = &mut aqm.kind else {
            unreachable!("a scheduled link")
        };
        let done = current.take().expect("a packet in transmission");
        let arrives = if self.rng.bernoulli(self.loss) {
            self.in_system -= 1;
            self.drops_loss += 1;
            None
        } else if self.change.is_some() {
            Some(now.saturating_add(self.delay).max(self.transit_floor()))
        } else {
            Some(now.saturating_add(self.delay))
        };
        if self.is_down() {
            return (done, arrives, None);
        }
        (done, arrives, self.start_next(now, dropped))
    }

    /// A scheduled direction sends nothing now.
    pub(super) fn sched_idle(&self) -> bool {
        matches!(
            self.aqm.as_deref(),
            Some(Aqm {
                kind: Kind::Sched { current: None, .. },
                ..
            })
        )
    }

    /// Start the next transmission of an idle scheduled direction (after an outage).
    pub(super) fn sched_start(&mut self, now: Time, dropped: &mut Vec<(u32, bool)>) -> Option<Started> {
        self.start_next(now, dropped)
    }

    /// A scheduled direction's new limit (waiting packets).
    pub(super) fn set_sched_limit(&mut self, n: u32) {
        let aqm = self.aqm.as_deref_mut().expect("a managed link");
        aqm.limit = n;
        if let Kind::Sched {
            queue: super::aqm::Sched::FqCodel(q),
            ..
        } = &mut aqm.kind
        {
            q.set_limit(n);
        }
    }

    /// Take every packet waiting in a scheduled direction's queue (not the one being sent).
    pub(super) fn drain_sched(&mut self, out: &mut Vec<u32>) {
        let aqm = self.aqm.as_deref_mut().expect("a managed link");
        let Kind::Sched { queue, .. } = &mut aqm.kind else {
            unreachable!("a scheduled link")
        };
        let mut items = Vec::new();
        match queue {
            super::aqm::Sched::Codel(q) => {
                while let Some(it) = q.pop_head() {
                    items.push(it);
                }
            }
            super::aqm::Sched::FqCodel(q) => q.drain(&mut items),
        }
        out.extend(items.iter().map(|it| it.p));
    }

    /// Take the next packet from the scheduled queue, if any, and start sending it.
    fn start_next(&mut self, now: Time, dropped: &mut Vec<(u32, bool)>) -> Option<Started> {
        let aqm = self.aqm.as_deref_mut().expect("a managed link");
        let Kind::Sched { queue, current } = &mut aqm.kind else {
            unreachable!("a scheduled link")
        };
        let next = match queue {
            super::aqm::Sched::Codel(q) => q.dequeue(now, &mut aqm.scratch),
            super::aqm::Sched::FqCodel(q) => q.dequeue(now, &mut aqm.scratch),
        };
        for d in aqm.scratch.drain(..) {
            self.in_system -= 1;
            self.drops_queue += 1;
            aqm.drops_aqm += 1;
            dropped.push((d.p, true));
        }
        let (it, mark) = next?;
        *current = Some(it.p);
        aqm.marks += mark as u64;
        aqm.stats.record(now.saturating_sub(it.enq));
        let tx = self.cached_tx_time(it.size);
        let end = now.saturating_add(tx);
        self.busy_until = end;
        self.busy_ns = self.busy_ns.saturating_add(tx);
        Some(Started { p: it.p, mark, end })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(limit: u32, loss: f64) -> LinkDir {
        // 8 Mb/s: a 1000-byte packet takes 1 ms.
        LinkDir::new(0, 0, 1, 8e6, 5_000_000, limit, loss, Rng::from_seed(3))
    }

    #[test]
    fn fifo_departures_and_droptail() {
        let mut l = link(3, 0.0);
        assert_eq!(l.enqueue(0, 1000), Enqueue::Arrives(1_000_000 + 5_000_000));
        assert_eq!(l.enqueue(0, 1000), Enqueue::Arrives(2_000_000 + 5_000_000));
        assert_eq!(l.enqueue(0, 1000), Enqueue::Arrives(3_000_000 + 5_000_000));
        assert_eq!(l.enqueue(0, 1000), Enqueue::QueueDrop, "3 in the system: full");
        // After the first departure there is room again.
        assert_eq!(l.occupancy(1_000_000), 2);
        assert_eq!(l.enqueue(1_000_000, 500), Enqueue::Arrives(3_500_000 + 5_000_000));
        assert_eq!((l.arrivals, l.drops_queue), (5, 1));
    }

    #[test]
    fn busy_time_counts_only_transmission_before_the_end() {
        let mut l = link(10, 0.0);
        // Busy 0-1 ms, idle, then 4-7 ms (three packets back to back from 4 ms).
        l.enqueue(0, 1000);
        for _ in 0..3 {
            l.enqueue(4_000_000, 1000);
        }
        assert_eq!(l.busy_until_end(10_000_000), 4_000_000, "everything before the end");
        assert_eq!(l.busy_until_end(7_000_000), 4_000_000);
        assert_eq!(
            l.busy_until_end(5_500_000),
            2_500_000,
            "1 ms + 1.5 ms of the busy period"
        );
        assert_eq!(
            l.busy_until_end(4_000_000),
            1_000_000,
            "the backlog from 4 ms is not counted"
        );
    }

    #[test]
    fn loss_pattern_is_what_the_link_loses_among_the_admitted_packets() {
        let p = 0.05;
        let pattern = loss_pattern(7, "r1", "r2", "ab", p, 5_000);
        let mut l = LinkDir::new(0, 0, 1, 8e6, 0, 3, p, link_rng(7, "r1", "r2", "ab"));
        let mut admitted = 0u64;
        let mut lost = vec![];
        for i in 0..20_000u64 {
            // Bursts of 5 at 1 ms per packet against a queue of 3: some are queue drops,
            // which draw nothing.
            match l.enqueue((i / 5) * 5_000_000, 1000) {
                Enqueue::QueueDrop => continue,
                Enqueue::Lost => lost.push(admitted),
                Enqueue::Arrives(_) => {}
                Enqueue::Managed => unreachable!(),
            }
            admitted += 1;
            if admitted == 5_000 {
                break;
            }
        }
        assert!(l.drops_queue > 1000, "the queue dropped packets too");
        assert_eq!(lost, pattern);
        assert!(pattern.len() > 150 && pattern.len() < 350, "{}", pattern.len());
        assert_ne!(
            pattern,
            loss_pattern(7, "r1", "r2", "ba", p, 5_000),
            "each direction its own"
        );
    }

    #[test]
    fn random_loss_rate_and_conservation() {
        let mut l = link(1_000_000, 0.1);
        let n = 100_000;
        for i in 0..n {
            l.enqueue(i * 1_000_000, 1000);
        }
        let rate = l.drops_loss as f64 / n as f64;
        assert!((rate - 0.1).abs() < 0.005, "{rate}");
        assert_eq!(l.arrivals, l.delivered + l.drops_queue + l.drops_loss + l.in_system);
    }
}
