//! A shared-medium LAN (Ethernet-type, collision-free model): every member has its own
//! DropTail interface queue toward one channel of fixed rate that carries one frame at a
//! time. The channel serves frames in the order in which they reached the head of their
//! interface queue (a global FIFO over the interface-queue heads). A frame stays in its
//! interface's system while it is transmitted; when its transmission ends it is lost with
//! probability `loss` or reaches its next-hop member `delay` later.
//!
//! Unlike a point-to-point link, a frame's departure cannot be computed when it is
//! accepted (a frame arriving later at another interface may be served first), so the
//! LAN needs one event per frame: the end of its transmission.
use crate::sim::{Rng, Time};
use std::collections::VecDeque;

/// One member's interface onto the LAN.
pub struct Iface {
    pub node: u32,
    /// Frames (packet ids, wire bytes) in the interface's system, the head first.
    queue: VecDeque<(u32, u32)>,
    /// When the current head reached the head (its order number among all heads).
    head_order: u64,
    pub arrivals: u64,
    pub departures: u64,
    pub drops_queue: u64,
    pub drops_loss: u64,
    /// Accepted, not lost, not yet at the next-hop member (queued, in service, propagating).
    pub in_system: u64,
    pub busy_ns: u64,
}

/// What happened to a frame offered to an interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LanEnqueue {
    /// Queued behind others (or behind another interface's frame on the channel).
    Queued,
    /// The channel was idle: the frame is being transmitted; its transmission ends then.
    Transmitting(Time),
    /// The interface queue was full.
    QueueDrop,
}

/// The outcome of a transmission that ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxEnd {
    pub packet: u32,
    pub iface: u32,
    /// `Some(t)`: the frame reaches its next hop at t. `None`: lost on the medium.
    pub arrives: Option<Time>,
    /// The next transmission on the channel ends then (schedule the next `tx_end`).
    pub next_end: Option<Time>,
}

pub struct Lan {
    pub rate: f64,
    pub delay: Time,
    pub limit: u32,
    pub loss: f64,
    rng: Rng,
    pub ifaces: Vec<Iface>,
    /// The interface whose head frame is on the channel.
    transmitting: Option<u32>,
    next_order: u64,
}

impl Lan {
    pub fn new(members: &[u32], rate: f64, delay: Time, limit: u32, loss: f64, rng: Rng) -> Lan {
        let ifaces = members
            .iter()
            .map(|&node| Iface {
                node,
                queue: VecDeque::with_capacity(limit.min(4096) as usize),
                head_order: 0,
                arrivals: 0,
                departures: 0,
                drops_queue: 0,
                drops_loss: 0,
                in_system: 0,
                busy_ns: 0,
            })
            .collect();
        Lan {
            rate,
            delay,
            limit,
            loss,
            rng,
            ifaces,
            transmitting: None,
            next_order: 0,
        }
    }

    pub fn tx_time(&self, bytes: u32) -> Time {
        ((bytes as f64 * 8.0) * 1e9 / self.rate).round() as Time
    }

    /// Frames in interface `i`'s system (waiting + on the channel).
    pub fn occupancy(&self, i: u32) -> usize {
        self.ifaces[i as usize].queue.len()
    }

    /// Offer packet `packet` of `bytes` to interface `i` at `now`.
    pub fn enqueue(&mut self, now: Time, i: u32, packet: u32, bytes: u32) -> LanEnqueue {
        let order = self.next_order;
        let f = &mut self.ifaces[i as usize];
        f.arrivals += 1;
        if f.queue.len() >= self.limit as usize {
            f.drops_queue += 1;
            return LanEnqueue::QueueDrop;
        }
        f.queue.push_back((packet, bytes));
        f.in_system += 1;
        if f.queue.len() == 1 {
            f.head_order = order;
            self.next_order += 1;
            if self.transmitting.is_none() {
                return LanEnqueue::Transmitting(self.begin(now, i));
            }
        }
        LanEnqueue::Queued
    }

    fn begin(&mut self, now: Time, i: u32) -> Time {
        let bytes = self.ifaces[i as usize].queue.front().expect("head frame").1;
        let tx = self.tx_time(bytes);
        self.transmitting = Some(i);
        let f = &mut self.ifaces[i as usize];
        f.busy_ns = f.busy_ns.saturating_add(tx);
        now.saturating_add(tx)
    }

    /// The frame on the channel finished its transmission at `now`.
    pub fn tx_end(&mut self, now: Time) -> TxEnd {
        let i = self.transmitting.take().expect("a frame is on the channel");
        let lost = self.rng.bernoulli(self.loss);
        let order = self.next_order;
        let f = &mut self.ifaces[i as usize];
        let (packet, _) = f.queue.pop_front().expect("head frame");
        if !f.queue.is_empty() {
            f.head_order = order;
            self.next_order += 1;
        }
        let arrives = if lost {
            f.drops_loss += 1;
            f.in_system -= 1;
            None
        } else {
            Some(now.saturating_add(self.delay))
        };
        // Global FIFO over the heads: the head that arrived there first goes next.
        let next = self
            .ifaces
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.queue.is_empty())
            .min_by_key(|(_, f)| f.head_order)
            .map(|(k, _)| k as u32);
        let next_end = next.map(|k| self.begin(now, k));
        TxEnd {
            packet,
            iface: i,
            arrives,
            next_end,
        }
    }

    /// A frame sent by interface `i` reached its next-hop member.
    pub fn on_delivered(&mut self, i: u32) {
        let f = &mut self.ifaces[i as usize];
        f.in_system -= 1;
        f.departures += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // 8 Mb/s: a 1000-byte frame takes 1 ms; 5 µs propagation.
    fn lan(limit: u32, loss: f64) -> Lan {
        Lan::new(&[0, 1, 2], 8e6, 5_000, limit, loss, Rng::from_seed(5))
    }

    /// Run the LAN until idle; returns (packet, iface, arrival) of every delivered frame.
    fn drain(l: &mut Lan, mut end: Option<Time>) -> Vec<(u32, u32, Option<Time>)> {
        let mut out = vec![];
        while let Some(t) = end {
            let r = l.tx_end(t);
            if let Some(_) = r.arrives {
                l.on_delivered(r.iface);
            }
            out.push((r.packet, r.iface, r.arrives));
            end = r.next_end;
        }
        out
    }

    #[test]
    fn two_members_sending_at_once_share_the_channel() {
        let mut l = lan(10, 0.0);
        let first = l.enqueue(0, 0, 100, 1000);
        assert_eq!(first, LanEnqueue::Transmitting(1_000_000));
        assert_eq!(l.enqueue(0, 1, 200, 1000), LanEnqueue::Queued, "the channel is busy");
        let out = drain(&mut l, Some(1_000_000));
        assert_eq!(
            out,
            vec![(100, 0, Some(1_005_000)), (200, 1, Some(2_005_000))],
            "the second frame waits for the first: 2x the transmission time"
        );
    }

    #[test]
    fn heads_are_served_in_the_order_they_reached_the_head() {
        let mut l = lan(10, 0.0);
        let LanEnqueue::Transmitting(end) = l.enqueue(0, 0, 1, 1000) else {
            panic!()
        };
        l.enqueue(0, 0, 2, 1000); // behind 1 in interface 0
        l.enqueue(500_000, 1, 3, 1000); // head of interface 1 at 0.5 ms
        l.enqueue(600_000, 2, 4, 1000); // head of interface 2 at 0.6 ms
        let order: Vec<u32> = drain(&mut l, Some(end)).iter().map(|x| x.0).collect();
        // 2 becomes a head only when 1 leaves (1 ms), after 3 and 4.
        assert_eq!(order, vec![1, 3, 4, 2]);
    }

    #[test]
    fn interface_queues_drop_tail_separately() {
        let mut l = lan(2, 0.0);
        let LanEnqueue::Transmitting(end) = l.enqueue(0, 0, 1, 1000) else {
            panic!()
        };
        assert_eq!(l.enqueue(0, 0, 2, 1000), LanEnqueue::Queued);
        assert_eq!(l.enqueue(0, 0, 3, 1000), LanEnqueue::QueueDrop);
        assert_eq!(
            l.enqueue(0, 1, 4, 1000),
            LanEnqueue::Queued,
            "another interface has room"
        );
        assert_eq!(drain(&mut l, Some(end)).len(), 3);
        let f = &l.ifaces[0];
        assert_eq!((f.arrivals, f.departures, f.drops_queue), (3, 2, 1));
    }

    #[test]
    fn loss_rate_and_conservation() {
        let mut l = lan(1_000_000, 0.2);
        let n = 20_000u32;
        let mut end = None;
        for k in 0..n {
            if let LanEnqueue::Transmitting(t) = l.enqueue(0, k % 3, k, 1000) {
                end = Some(t);
            }
        }
        // half-way: check the invariant with frames still queued
        let mut t = end;
        for _ in 0..n / 2 {
            let r = l.tx_end(t.unwrap());
            if r.arrives.is_some() {
                l.on_delivered(r.iface);
            }
            t = r.next_end;
        }
        for f in &l.ifaces {
            assert_eq!(f.arrivals, f.departures + f.drops_queue + f.drops_loss + f.in_system);
            assert!(f.in_system > 0);
        }
        drain(&mut l, t);
        let lost: u64 = l.ifaces.iter().map(|f| f.drops_loss).sum();
        let rate = lost as f64 / n as f64;
        assert!((rate - 0.2).abs() < 0.01, "{rate}");
        for f in &l.ifaces {
            assert_eq!(f.arrivals, f.departures + f.drops_queue + f.drops_loss + f.in_system);
            assert_eq!(f.in_system, 0);
        }
        let busy: u64 = l.ifaces.iter().map(|f| f.busy_ns).sum();
        assert_eq!(busy, n as u64 * 1_000_000, "lost frames occupy the channel too");
    }
}
