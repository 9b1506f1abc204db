//! The components of a world and the dispatcher that hands each event to the component
//! that scheduled it. This is the only place that knows every component; what happens
//! where one component's work continues in another (a packet delivered to its endpoint, a
//! generator's new flow) is written out here.
use crate::net::{NetEv, Network};
use crate::observe::Observer;
use crate::share::Share;
use crate::sim::{Dispatch, Ev, Kernel, Time};
use crate::tcp::{Env, Kind, Transport};
use crate::traffic::{Plan, Step, Traffic, TrafficEv};

pub struct Components {
    pub net: Network,
    pub tcp: Transport,
    pub traffic: Traffic,
    pub share: Share,
    pub obs: Observer,
}

/// The transport's view of the other components (disjoint borrows of `Components` fields
/// and the kernel's queue).
macro_rules! env {
    ($c:ident, $k:ident) => {
        Env {
            q: &mut $k.q,
            net: &mut $c.net,
            share: &mut $c.share,
            apps: &mut $c.traffic.generators,
        }
    };
}

impl Dispatch for Components {
    #[inline]
    fn dispatch(&mut self, k: &mut Kernel, now: Time, ev: Ev) {
        match ev {
            Ev::Net(e) => self.on_net(k, now, e),
            Ev::Tcp(e) => self.tcp.handle(now, e, &mut env!(self, k)),
            Ev::Traffic(e) => self.on_traffic(k, now, e),
            Ev::Observe(e) => self.obs.handle(now, e, k, &self.tcp.flows, &mut self.net.links),
        }
        self.after_event(k);
    }
}

impl Components {
    /// What follows every event (and a manual switch, `inspect.rs`): packets offered to
    /// hops captured at their entry go into their captures; quiet flows retire.
    #[inline(always)]
    pub(super) fn after_event(&mut self, k: &mut Kernel) {
        if self.net.entry_tap.as_ref().is_some_and(|t| !t.offered.is_empty()) {
            self.record_entries(k);
        }
        if self.tcp.retiring() {
            self.tcp.retire_quiet_flows(&self.net, &mut self.traffic.generators);
        }
    }
}

impl Components {
    /// A packet crossed a hop: a capture on that hop records it; at the end of its path its
    /// endpoint gets it (a datagram its application, a segment the transport).
    #[inline]
    fn on_net(&mut self, k: &mut Kernel, now: Time, e: NetEv) {
        let Some(c) = self.net.handle(now, e, &mut k.q) else {
            return;
        };
        if let Some(file) = self.obs.capture.tap(c.hop) {
            let packet = self.net.packet(c.p);
            let f = packet.flow;
            let (ends, tcp) = (self.net.route_ends(f), &self.tcp.flows[f as usize].spec.tcp);
            if let Err(why) = self.obs.capture.record(file, now, packet, ends, tcp) {
                k.fail(now, &why);
            }
        }
        if !c.delivered {
            return;
        }
        let packet = self.net.take_delivered(c.p);
        match packet.kind {
            Kind::Datagram => self.traffic.cbr.received(packet.flow, now, packet.ts, packet.seq),
            _ => self.tcp.deliver(now, packet, &mut env!(self, k)),
        }
    }

    /// The packets offered to hops captured at their entry go into their capture files.
    #[cold]
    #[inline(never)]
    fn record_entries(&mut self, k: &mut Kernel) {
        let Some(tap) = self.net.entry_tap.as_deref_mut() else {
            return;
        };
        let mut offered = std::mem::take(&mut tap.offered);
        for &(time, hop, pkt) in &offered {
            if let Some(file) = self.obs.capture.entry_tap(hop) {
                let f = pkt.flow;
                let (ends, tcp) = (self.net.route_ends(f), &self.tcp.flows[f as usize].spec.tcp);
                if let Err(why) = self.obs.capture.record(file, time, &pkt, ends, tcp) {
                    k.fail(time, &why);
                }
            }
        }
        offered.clear();
        if let Some(tap) = self.net.entry_tap.as_deref_mut() {
            tap.offered = offered;
        }
    }

    fn on_traffic(&mut self, k: &mut Kernel, now: Time, e: TrafficEv) {
        match e {
            TrafficEv::GenTick(g) => {
                let plan = self.traffic.generators.wake(now, g);
                self.generator_steps(k, now, g, plan);
            }
            TrafficEv::GenTimer(g, tag) => {
                let plan = self.traffic.generators.timer(now, g, tag);
                self.generator_steps(k, now, g, plan);
            }
            e => self.traffic.cbr.handle(now, e, &mut self.net, &mut k.q),
        }
    }

    /// Carry out the steps generator `g`'s model asks for, in order.
    fn generator_steps(&mut self, k: &mut Kernel, now: Time, g: u32, plan: Plan) {
        for &step in &plan.steps {
            match step {
                Step::WakeAt(t) => k.q.at(t, TrafficEv::GenTick(g)),
                Step::Open(size) => {
                    let (spec, route) = self.traffic.generators.next_flow(now, g, size);
                    let sampled = !self.traffic.generators.summary_only(g);
                    let f = self
                        .tcp
                        .open(spec, route, Some(g), sampled, &mut self.net, &mut self.share)
                        .expect("generator spec validated");
                    self.tcp.start(now, f, &mut env!(self, k));
                }
                Step::Send {
                    bytes,
                    route,
                    tag,
                    opens,
                } => {
                    let (spec, route) = self.traffic.generators.next_transfer(now, g, bytes, route, opens);
                    let sampled = !self.traffic.generators.summary_only(g);
                    let f = self
                        .tcp
                        .open(spec, route, Some(g), sampled, &mut self.net, &mut self.share)
                        .expect("generator spec validated");
                    self.tcp.flows[f as usize].tag = Some(tag);
                    self.tcp.start(now, f, &mut env!(self, k));
                }
            }
        }
        self.traffic.generators.done_with(plan);
    }
}
