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
//!
//! Opt-in, [`Mac::CsmaCd`]: IEEE 802.3 CSMA/CD instead of the global FIFO (see
//! [`CsmaCd`]): 1-persistent carrier sense with the inter-frame gap, collisions of
//! transmissions that start within one propagation delay of each other, jam, truncated
//! binary exponential backoff in slot times drawn from the LAN's random stream, and the
//! frame discarded after the attempt limit.
mod csma_cd;

#[cfg(test)]
mod tests;

pub use csma_cd::CsmaCd;

use crate::sim::{Rng, Time};
use csma_cd::{CsmaState, Station};
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
    /// CSMA/CD: collisions this interface's frames took part in.
    pub collisions: u64,
    /// CSMA/CD: frames discarded after the attempt limit (also counted in `drops_loss`).
    pub drops_collision: u64,
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

/// Medium access of a LAN.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mac {
    /// Collision-free: frames served in the order they reached the head of their queue.
    Fifo,
    CsmaCd(CsmaCd),
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
    csma: Option<CsmaState>,
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
                collisions: 0,
                drops_collision: 0,
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
            csma: None,
        }
    }

    /// A LAN with the given medium access (`Mac::Fifo` is [`Lan::new`]).
    pub fn with_mac(members: &[u32], rate: f64, delay: Time, limit: u32, loss: f64, rng: Rng, mac: Mac) -> Lan {
        let mut l = Lan::new(members, rate, delay, limit, loss, rng);
        if let Mac::CsmaCd(p) = mac {
            let bits = |b: f64| ((b * 1e9 / rate).round() as Time).max(1);
            l.csma = Some(CsmaState {
                p,
                slot: bits(p.slot_bits),
                ifg: bits(p.ifg_bits),
                jam: bits(p.jam_bits),
                stations: vec![Station::Empty; members.len()],
                attempts: vec![0; members.len()],
                activity: None,
                gap_end: 0,
                pending: None,
                generation: 0,
            });
        }
        l
    }

    /// Whether the LAN runs CSMA/CD (the engine then drives it with [`Lan::csma_wake`]).
    pub fn is_csma(&self) -> bool {
        self.csma.is_some()
    }

    pub fn tx_time(&self, bytes: u32) -> Time {
        crate::sim::tx_time(bytes, self.rate)
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
        if let Some(c) = &mut self.csma {
            if f.queue.len() == 1 {
                c.stations[i as usize] = Station::At(now);
            }
            return LanEnqueue::Queued;
        }
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
