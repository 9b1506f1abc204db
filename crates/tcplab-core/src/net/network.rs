//! The network as one component: the packet pool, the link directions and LANs (the hops),
//! the routes, and the packets each flow has in the network. It moves packets hop by hop
//! and hands a packet that reached the end of its path back to the caller; it knows nothing
//! of what the packets carry.
//!
//! Link behaviour over time (rate, delay, queue, loss and outage schedules) is here: a
//! hop's state is only read and changed through this file and `link.rs` / `lan.rs` /
//! `change.rs`, and each scheduled change is a `NetEv::LinkChange` handled in
//! [`Network::handle`] (semantics in `change.rs`).
use super::change::{Admitted, Change, ChangeRecord};
use super::{Ecn, Enqueue, Hop, Lan, LanEnqueue, LinkDir, Packet, PacketPool, Started, Verdict};
use crate::sim::{Queue, Time};

/// The network's own events.
#[derive(Debug, Clone, Copy)]
pub enum NetEv {
    /// The first packet in transit on link direction `.0`, packet `.1`, reaches the far end
    /// (the packet rides in the event, so that handling it need not wait for the link's FIFO).
    LinkArrive(u32, u32),
    /// A packet reaches the far end of the LAN hop it is crossing.
    Arrive(u32),
    /// The frame on LAN `.0`'s channel finished its transmission.
    LanTxEnd(u32),
    /// A CSMA/CD LAN's wake-up (LAN, generation; see `Lan::csma_schedule`).
    LanMac(u32, u32),
    /// The transmission on scheduled link direction `.0` (codel, fq_codel) ends.
    LinkTxEnd(u32),
    /// As `LinkArrive`, on a direction with scheduled changes (the event may have been
    /// made stale by a re-timing).
    LinkArriveC(u32, u32),
    /// The scheduled change `.0` (`Network::changes`) happens.
    LinkChange(u32),
}

/// One hop across a LAN: from member interface `iface` to node `to`. Hop ids after the
/// link directions' ids refer to these.
#[derive(Debug, Clone, Copy)]
pub struct LanHop {
    pub lan: u32,
    pub iface: u32,
    pub from: u32,
    pub to: u32,
}

/// Both directions of a path between two nodes, as hop ids.
#[derive(Debug, Clone, Default)]
pub struct Route {
    pub fwd: Vec<u32>,
    pub rev: Vec<u32>,
}

/// A flow's place in the network: its route, where the route's two paths start in
/// `Network::paths`, and its packets allocated and not yet freed.
#[derive(Debug, Clone, Copy)]
struct Attachment {
    route: u32,
    in_flight: u32,
    /// Indexed by `Kind::forward() as usize`: [reverse, forward].
    paths: [u32; 2],
}

/// Follows each path's last hop in `Network::paths`.
const END_OF_PATH: u32 = u32::MAX;

/// Packet `p` crossed a hop (`hop`); `delivered`: that was the last hop of its path, and
/// the caller takes it out of the network with [`Network::take_delivered`].
#[derive(Debug, Clone, Copy)]
pub struct Crossed {
    pub hop: u32,
    pub p: u32,
    pub delivered: bool,
}

pub struct Network {
    pub pool: PacketPool,
    pub links: Vec<LinkDir>,
    pub lans: Vec<Lan>,
    /// Hop id `links.len() + k` is `lan_hops[k]`.
    pub lan_hops: Vec<LanHop>,
    routes: Vec<Route>,
    /// Every route's two paths, each followed by `END_OF_PATH`: a packet carries where the
    /// hop it is crossing is (`Packet::at`), so its next hop is the next entry, with no
    /// look-up through its flow and route on the way.
    paths: Vec<u32>,
    /// Per route: where its paths start in `paths`, [reverse, forward].
    route_paths: Vec<[u32; 2]>,
    /// Per flow id.
    attached: Vec<Attachment>,
    /// Scratch: packets a queue discipline dropped, to free (and whether it decided the
    /// drop itself: counted in `drops_aqm`).
    dropped: Vec<(u32, bool)>,
    /// Packets offered to the hops captured at their entry, for the capture to take.
    pub entry_tap: Option<Box<EntryTap>>,
    /// With `sim.drop_trace`: every packet dropped, in order.
    pub drop_trace: Option<DropTrace>,
    /// The scheduled link changes: (time, link direction, change), by `NetEv::LinkChange`
    /// index.
    pub changes: Vec<(Time, u32, Change)>,
    /// The changes applied so far, in order (for the events table).
    pub change_log: Vec<ChangeRecord>,
}

/// Why a hop dropped a packet (the links table's counters it is part of).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// No room in the queue (`drops_queue`).
    Queue,
    /// The queue discipline decided: RED's drops, CoDel's (`drops_aqm`, part of `drops_queue`).
    Aqm,
    /// The hop's loss model, or a LAN frame lost to loss or collisions (`drops_loss`).
    Loss,
    /// The link direction was down (`drops_down`, `[[link_changes]]`).
    Down,
}

impl DropReason {
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Queue => "queue",
            DropReason::Aqm => "aqm",
            DropReason::Loss => "loss",
            DropReason::Down => "down",
        }
    }
}

/// A dropped packet: when, at which hop, why, and the packet as it was.
#[derive(Debug, Clone, Copy)]
pub struct DroppedPacket {
    pub time: Time,
    pub hop: u32,
    pub reason: DropReason,
    pub packet: Packet,
}

/// The drop trace; `out_of_memory` once a record could not be stored (the run then fails
/// saying so rather than return a trace with holes).
#[derive(Debug, Default)]
pub struct DropTrace {
    pub drops: Vec<DroppedPacket>,
    pub out_of_memory: bool,
}

/// The packets offered to some hops (before their queue or loss model decides), kept until
/// the capture takes them.
pub struct EntryTap {
    /// Per hop id: whether it is tapped.
    pub hops: Vec<bool>,
    /// (time, hop, packet as offered)
    pub offered: Vec<(Time, u32, Packet)>,
}

impl Network {
    pub fn new(links: Vec<LinkDir>, lans: Vec<Lan>, lan_hops: Vec<LanHop>) -> Network {
        Network {
            pool: PacketPool::default(),
            links,
            lans,
            lan_hops,
            routes: Vec::new(),
            paths: Vec::new(),
            route_paths: Vec::new(),
            attached: Vec::new(),
            dropped: Vec::new(),
            entry_tap: None,
            drop_trace: None,
            changes: Vec::new(),
            change_log: Vec::new(),
        }
    }

    /// Link directions and LAN hops.
    pub fn hops(&self) -> usize {
        self.links.len() + self.lan_hops.len()
    }

    /// The nodes at the two ends of a hop (link direction or LAN hop).
    pub fn hop_ends(&self, hop: u32) -> (u32, u32) {
        match self.links.get(hop as usize) {
            Some(l) => (l.from, l.to),
            None => {
                let h = self.lan_hops[hop as usize - self.links.len()];
                (h.from, h.to)
            }
        }
    }

    /// The rate of a hop (bit/s).
    pub fn hop_rate(&self, hop: u32) -> f64 {
        match self.links.get(hop as usize) {
            Some(link) => link.rate,
            None => self.lans[self.lan_hops[hop as usize - self.links.len()].lan as usize].rate,
        }
    }

    /// The hop from node `a` to node `b`: a link direction, or else the frames member `a`
    /// sends to member `b` on a shared LAN.
    pub fn find_hop(&self, a: u32, b: u32) -> Option<u32> {
        let hop = self.links.iter().position(|l| l.from == a && l.to == b).or_else(|| {
            self.lan_hops
                .iter()
                .position(|h| h.from == a && h.to == b)
                .map(|h| self.links.len() + h)
        });
        hop.map(|h| h as u32)
    }

    pub fn add_route(&mut self, route: Route) -> u32 {
        let mut place = |hops: &[u32]| {
            let start = self.paths.len() as u32;
            self.paths.extend_from_slice(hops);
            self.paths.push(END_OF_PATH);
            start
        };
        let refs = [place(&route.rev), place(&route.fwd)];
        self.route_paths.push(refs);
        self.routes.push(route);
        (self.routes.len() - 1) as u32
    }

    /// Flow `f` (the next flow id) sends along route `route`.
    pub fn attach(&mut self, f: u32, route: u32) {
        debug_assert_eq!(f as usize, self.attached.len(), "flows attach in id order");
        self.attached.push(Attachment {
            route,
            in_flight: 0,
            paths: self.route_paths[route as usize],
        });
    }

    /// The number of flow `f`'s route.
    pub fn route_id(&self, f: u32) -> u32 {
        self.attached[f as usize].route
    }

    /// The route of flow `f`.
    pub fn route(&self, f: u32) -> &Route {
        &self.routes[self.attached[f as usize].route as usize]
    }

    /// The nodes flow `f` sends from and to.
    pub fn route_ends(&self, f: u32) -> (u32, u32) {
        let fwd = &self.route(f).fwd;
        (self.hop_ends(fwd[0]).0, self.hop_ends(*fwd.last().unwrap()).1)
    }

    /// Packets of flow `f` in the network (allocated, not yet freed).
    pub fn in_flight(&self, f: u32) -> u32 {
        self.attached[f as usize].in_flight
    }

    /// Put a new packet into the pool (it counts as its flow's from now on); it leaves on
    /// its first hop with [`Network::depart`].
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        self.attached[p.flow as usize].in_flight += 1;
        self.pool.alloc(p)
    }

    /// Offer packet `p` to the first hop of its path.
    #[inline]
    pub fn depart(&mut self, now: Time, p: u32, q: &mut Queue) {
        let pkt = self.pool.get(p);
        let start = self.attached[pkt.flow as usize].paths[pkt.kind.forward() as usize];
        self.pool.get_mut(p).at = start;
        let first = self.paths[start as usize];
        self.offer(now, first, p, q);
    }

    /// A packet leaves its sender now.
    #[inline]
    pub fn send(&mut self, now: Time, p: Packet, q: &mut Queue) {
        let p = self.alloc(p);
        self.depart(now, p, q);
    }

    /// Drop packet `p` at hop `hop` (traced if the run traces drops) and free it.
    fn drop_packet(&mut self, now: Time, hop: u32, p: u32, reason: DropReason) {
        if self.drop_trace.is_some() {
            self.trace_drop(now, hop, p, reason);
        }
        self.release(p);
    }

    #[cold]
    #[inline(never)]
    fn trace_drop(&mut self, now: Time, hop: u32, p: u32, reason: DropReason) {
        let packet = *self.pool.get(p);
        let Some(t) = self.drop_trace.as_mut() else {
            return;
        };
        if t.out_of_memory || t.drops.try_reserve(1).is_err() {
            t.out_of_memory = true;
            return;
        }
        t.drops.push(DroppedPacket {
            time: now,
            hop,
            reason,
            packet,
        });
    }

    /// The hop packet `p` is at on its path.
    fn hop_of(&self, p: u32) -> u32 {
        self.paths[self.pool.get(p).at as usize]
    }

    /// Free a packet, and count it out of its flow.
    fn release(&mut self, p: u32) {
        let f = self.pool.get(p).flow;
        self.pool.free(p);
        self.attached[f as usize].in_flight -= 1;
    }

    #[inline(always)]
    fn offer(&mut self, now: Time, hop: u32, p: u32, q: &mut Queue) {
        let pkt = self.pool.get(p);
        let path = Hop {
            at: pkt.at,
            size: pkt.size,
        };
        self.offer_at(now, hop, p, path, q);
    }

    /// Offer packet `p` to `hop`, where it is at `path` on its path (`Packet::at` and size
    /// as the caller knows them).
    #[inline(always)]
    fn offer_at(&mut self, now: Time, hop: u32, p: u32, path: Hop, q: &mut Queue) {
        if self.entry_tap.is_some() {
            self.tap_entry(now, hop, p);
        }
        let size = path.size;
        let Some(l) = self.links.get_mut(hop as usize) else {
            return self.offer_lan(now, hop, p, size, q);
        };
        match l.enqueue(now, size) {
            Enqueue::Arrives(at) => {
                let key = q.key(at);
                if l.push_transit(key, p, path) {
                    q.schedule_key(key, NetEv::LinkArrive(hop, p));
                }
            }
            Enqueue::QueueDrop => self.drop_packet(now, hop, p, DropReason::Queue),
            Enqueue::Lost => self.drop_packet(now, hop, p, DropReason::Loss),
            Enqueue::Managed => self.offer_managed(now, hop, p, q),
        }
    }

    #[cold]
    #[inline(never)]
    fn tap_entry(&mut self, now: Time, hop: u32, p: u32) {
        let pkt = *self.pool.get(p);
        if let Some(t) = self.entry_tap.as_deref_mut() {
            if t.hops.get(hop as usize).copied().unwrap_or(false) {
                t.offered.push((now, hop, pkt));
            }
        }
    }

    /// A packet arrives at a managed link direction (the one branch per link of the hot
    /// path sends it here): an arrival-time discipline decides and the packet is admitted
    /// as on a plain link, or a scheduled queue takes it.
    #[inline(never)]
    fn offer_managed(&mut self, now: Time, hop: u32, p: u32, q: &mut Queue) {
        let pkt = *self.pool.get(p);
        let l = &mut self.links[hop as usize];
        if l.changing().is_some() {
            if l.down_dropping() {
                l.count_down_drop();
                return self.drop_packet(now, hop, p, DropReason::Down);
            }
            if !l.is_scheduled() {
                return self.offer_changing(now, hop, p, pkt, q);
            }
        }
        if l.is_scheduled() {
            let mut dropped = std::mem::take(&mut self.dropped);
            if let Some(s) = l.sched_arrive(now, p, pkt.size, pkt.flow, pkt.ecn.is_ect(), &mut dropped) {
                self.start_tx(hop, s, q);
            }
            self.release_dropped(now, hop, dropped);
            return;
        }
        match l.managed_verdict(now, pkt.ecn.is_ect()) {
            Verdict::Drop { early: true } => self.drop_packet(now, hop, p, DropReason::Aqm),
            Verdict::Drop { early: false } => self.drop_packet(now, hop, p, DropReason::Queue),
            Verdict::Accept { mark } => {
                if mark {
                    self.pool.get_mut(p).ecn.set_codepoint(Ecn::Ce);
                }
                let l = &mut self.links[hop as usize];
                match l.admit(now, pkt.size) {
                    Enqueue::Arrives(at) => {
                        if let Some(late) = l.held_back(at) {
                            // overtaken by what follows: an event of its own, off the FIFO
                            q.at(late, NetEv::Arrive(p));
                            return;
                        }
                        let key = q.key(at);
                        let path = Hop {
                            at: pkt.at,
                            size: pkt.size,
                        };
                        if l.push_transit(key, p, path) {
                            q.schedule_key(key, NetEv::LinkArrive(hop, p));
                        }
                    }
                    Enqueue::Lost => self.drop_packet(now, hop, p, DropReason::Loss),
                    _ => self.drop_packet(now, hop, p, DropReason::Queue),
                }
            }
        }
    }

    /// A packet arrives at a changing direction that is not scheduled (plain, droptail or
    /// red): the queue test or the discipline, then admission on the changing path.
    fn offer_changing(&mut self, now: Time, hop: u32, p: u32, pkt: Packet, q: &mut Queue) {
        let l = &mut self.links[hop as usize];
        if l.aqm().is_some() {
            match l.managed_verdict(now, pkt.ecn.is_ect()) {
                Verdict::Drop { early: true } => return self.drop_packet(now, hop, p, DropReason::Aqm),
                Verdict::Drop { early: false } => return self.drop_packet(now, hop, p, DropReason::Queue),
                Verdict::Accept { mark } => {
                    if mark {
                        self.pool.get_mut(p).ecn.set_codepoint(Ecn::Ce);
                    }
                }
            }
        } else if l.changing_full(now) {
            l.drops_queue += 1;
            return self.drop_packet(now, hop, p, DropReason::Queue);
        }
        let l = &mut self.links[hop as usize];
        if l.admit_changing(now, hop, p, pkt.size, q) == Admitted::Lost {
            self.drop_packet(now, hop, p, DropReason::Loss);
        }
    }

    /// Scheduled change `i` happens: applied to its link direction, recorded.
    #[cold]
    #[inline(never)]
    fn link_change(&mut self, now: Time, i: u32, q: &mut Queue) {
        let (_, hop, c) = self.changes[i as usize];
        let mut dropped = Vec::new();
        let l = &mut self.links[hop as usize];
        let held = l.waiting_while_down();
        let started = l.apply_change(now, hop, c, q, &mut dropped);
        if let Some(s) = started {
            self.start_tx(hop, s, q);
        }
        let value = match c {
            Change::Delay(d) => crate::sim::to_secs(d),
            Change::Rate(r) => r,
            Change::Queue(n) => n as f64,
            Change::Loss(x) => x,
            Change::Down { keep } => keep as u8 as f64,
            Change::Up => held as f64,
        };
        self.change_log.push(ChangeRecord {
            time: now,
            hop,
            name: c.event_name(),
            value,
        });
        for (p, why) in dropped {
            self.drop_packet(now, hop, p, why);
        }
    }

    /// A scheduled link starts sending a packet.
    fn start_tx(&mut self, hop: u32, s: Started, q: &mut Queue) {
        if s.mark {
            self.pool.get_mut(s.p).ecn.set_codepoint(Ecn::Ce);
        }
        q.at(s.end, NetEv::LinkTxEnd(hop));
    }

    /// The transmission on scheduled link `hop` ends: the packet travels to the far end
    /// (or is lost), and the next one starts.
    #[inline(never)]
    fn link_tx_end(&mut self, now: Time, hop: u32, q: &mut Queue) {
        let mut dropped = std::mem::take(&mut self.dropped);
        let l = &mut self.links[hop as usize];
        let (done, arrives, next) = l.sched_tx_end(now, &mut dropped);
        match arrives {
            Some(at) => {
                if let Some(late) = l.held_back(at) {
                    // handed to the wire after the discipline's drops and the loss draw:
                    // held back, an event of its own, off the FIFO (as in `offer_managed`)
                    q.at(late, NetEv::Arrive(done));
                } else {
                    let key = q.key(at);
                    let pkt = self.pool.get(done);
                    let path = Hop {
                        at: pkt.at,
                        size: pkt.size,
                    };
                    let l = &mut self.links[hop as usize];
                    if l.push_transit(key, done, path) {
                        q.schedule_key(key, NetEv::LinkArrive(hop, done));
                    }
                }
            }
            None => self.drop_packet(now, hop, done, DropReason::Loss),
        }
        if let Some(s) = next {
            self.start_tx(hop, s, q);
        }
        self.release_dropped(now, hop, dropped);
    }

    fn release_dropped(&mut self, now: Time, hop: u32, mut dropped: Vec<(u32, bool)>) {
        for &(d, aqm) in &dropped {
            let reason = if aqm { DropReason::Aqm } else { DropReason::Queue };
            self.drop_packet(now, hop, d, reason);
        }
        dropped.clear();
        self.dropped = dropped;
    }

    // Out of line: links are the hot path, and inlining this made every offer slower.
    #[inline(never)]
    fn offer_lan(&mut self, now: Time, hop: u32, p: u32, size: u32, q: &mut Queue) {
        let h = self.lan_hops[hop as usize - self.links.len()];
        match self.lans[h.lan as usize].enqueue(now, h.iface, p, size) {
            LanEnqueue::Transmitting(end) => q.at(end, NetEv::LanTxEnd(h.lan)),
            LanEnqueue::Queued => {}
            LanEnqueue::QueueDrop => self.drop_packet(now, hop, p, DropReason::Queue),
        }
        if let Some((t, g)) = self.lans[h.lan as usize].csma_schedule() {
            q.at(t, NetEv::LanMac(h.lan, g));
        }
    }

    /// Handle a network event; a packet that crossed a hop is returned for the taps and,
    /// once delivered, for its endpoint.
    #[inline]
    pub fn handle(&mut self, now: Time, ev: NetEv, q: &mut Queue) -> Option<Crossed> {
        match ev {
            NetEv::LinkArrive(l, p) => {
                let (path, next) = self.links[l as usize].pop_transit(p);
                if let Some((key, next)) = next {
                    q.schedule_key(key, NetEv::LinkArrive(l, next));
                }
                return Some(self.arrive_at(now, p, path, q));
            }
            NetEv::Arrive(p) => return Some(self.arrive(now, p, q)),
            NetEv::LanTxEnd(l) => {
                let r = self.lans[l as usize].tx_end(now);
                match r.arrives {
                    Some(at) => q.at(at, NetEv::Arrive(r.packet)),
                    None => {
                        let hop = self.hop_of(r.packet);
                        self.drop_packet(now, hop, r.packet, DropReason::Loss);
                    }
                }
                if let Some(end) = r.next_end {
                    q.at(end, NetEv::LanTxEnd(l));
                }
            }
            NetEv::LanMac(l, gen) => self.lan_wake(now, l, gen, q),
            NetEv::LinkTxEnd(l) => self.link_tx_end(now, l, q),
            NetEv::LinkArriveC(l, p) => return self.link_arrive_changing(now, l, p, q),
            NetEv::LinkChange(i) => self.link_change(now, i, q),
        }
        None
    }

    #[inline(never)]
    fn link_arrive_changing(&mut self, now: Time, l: u32, p: u32, q: &mut Queue) -> Option<Crossed> {
        let link = &mut self.links[l as usize];
        if link.stale_arrival(now, p) {
            return None;
        }
        if let (_, Some((key, next))) = link.pop_transit(p) {
            q.schedule_key(key, NetEv::LinkArriveC(l, next));
        }
        if let Some(late) = link.held_back(now) {
            // its normal arrival, which no change can move any more: held back, it leaves
            // the FIFO for an event of its own (as in `offer_managed`), and no later change
            // touches it
            q.at(late, NetEv::Arrive(p));
            return None;
        }
        Some(self.arrive(now, p, q))
    }

    fn lan_wake(&mut self, now: Time, l: u32, gen: u32, q: &mut Queue) {
        let mut out = Vec::new();
        let lan = &mut self.lans[l as usize];
        if !lan.csma_wake(now, gen, &mut out) {
            return;
        }
        if let Some((t, g)) = lan.csma_schedule() {
            q.at(t, NetEv::LanMac(l, g));
        }
        for r in out {
            match r.arrives {
                Some(at) => q.at(at, NetEv::Arrive(r.packet)),
                None => {
                    let hop = self.hop_of(r.packet);
                    self.drop_packet(now, hop, r.packet, DropReason::Loss);
                }
            }
        }
    }

    /// Packet `p` reaches the far end of its hop: on to the next hop, or delivered.
    #[inline]
    fn arrive(&mut self, now: Time, p: u32, q: &mut Queue) -> Crossed {
        let pkt = self.pool.get(p);
        let path = Hop {
            at: pkt.at,
            size: pkt.size,
        };
        self.arrive_at(now, p, path, q)
    }

    /// As [`Network::arrive`], with the packet's place on its path and size given (a plain
    /// link keeps them with its packets in transit): an intermediate hop writes the packet's
    /// slot but does not read it.
    #[inline(always)]
    fn arrive_at(&mut self, now: Time, p: u32, path: Hop, q: &mut Queue) -> Crossed {
        let at = path.at as usize;
        let hop = self.paths[at];
        let next = self.paths[at + 1];
        match self.links.get_mut(hop as usize) {
            Some(l) => l.on_delivered(),
            None => self.lan_delivered(hop),
        }
        let delivered = next == END_OF_PATH;
        if !delivered {
            let path = Hop {
                at: path.at + 1,
                size: path.size,
            };
            self.pool.get_mut(p).at = path.at;
            self.offer_at(now, next, p, path, q);
        }
        Crossed { hop, p, delivered }
    }

    /// A packet in the network (allocated, not yet freed).
    pub fn packet(&self, p: u32) -> &Packet {
        self.pool.get(p)
    }

    /// Packet `p` reached the end of its path: it leaves the network (freed), and its copy
    /// goes to its endpoint.
    #[inline]
    pub fn take_delivered(&mut self, p: u32) -> Packet {
        let pkt = *self.pool.get(p);
        self.release(p);
        pkt
    }

    #[inline(never)]
    fn lan_delivered(&mut self, hop: u32) {
        let h = self.lan_hops[hop as usize - self.links.len()];
        self.lans[h.lan as usize].on_delivered(h.iface);
    }

    /// Packets that reached the far end of a link direction or left a LAN interface.
    pub fn packets_forwarded(&self) -> u64 {
        self.links.iter().map(|l| l.delivered).sum::<u64>()
            + self
                .lans
                .iter()
                .flat_map(|l| l.ifaces.iter())
                .map(|f| f.departures)
                .sum::<u64>()
    }
}
