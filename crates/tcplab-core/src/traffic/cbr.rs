//! Constant-bit-rate UDP sources (flows with `transport = "udp"`, and each direction of a
//! `transport = "voip"` call): fixed-size datagrams at a rate that follows a step schedule.
//! The datagrams need no transport machinery: the source hands them to the network itself
//! and counts those delivered (and, for measured flows, their delay: `delay.rs`).
use super::delay::DelayStats;
use super::TrafficEv;
use crate::net::{EcnBits, Network, Packet};
use crate::scenario::{FlowSpec, RateStep};
use crate::sim::{secs, Queue, Time};
use crate::tcp::Kind;

/// A non-adaptive UDP source sending fixed-size packets at a rate that follows a step
/// schedule (rate 0 pauses it).
#[derive(Debug, Clone)]
pub struct CbrSource {
    pub packet: u32,
    /// (absolute time, rate in bit/s)
    pub schedule: Vec<(Time, f64)>,
    pub rate: f64,
    pub next_seq: u64,
    /// Generation of the pending send event; bumped at every rate change.
    pub gen: u32,
    pub received: u64,
    /// One-way delay, jitter and loss of the datagrams received, when measured.
    pub delay: Option<Box<DelayStats>>,
    /// Every datagram's (arrival time, one-way delay), with `delay_trace`.
    pub trace: Option<Box<DelayTrace>>,
}

/// A flow's per-datagram delay trace; `out_of_memory` once a row could not be stored.
#[derive(Debug, Clone, Default)]
pub struct DelayTrace {
    pub rows: Vec<(Time, Time)>,
    pub out_of_memory: bool,
}

impl CbrSource {
    pub fn new(packet: u32, steps: &[RateStep], start: f64) -> CbrSource {
        CbrSource {
            packet,
            schedule: steps.iter().map(|s| (secs(start + s.at), s.rate)).collect(),
            rate: 0.0,
            next_seq: 0,
            gen: 0,
            received: 0,
            delay: None,
            trace: None,
        }
    }

    /// Gap between packets at the current rate, or None when paused.
    pub fn interval(&self) -> Option<Time> {
        (self.rate > 0.0).then(|| crate::sim::tx_time(self.packet, self.rate).max(1))
    }
}

/// The UDP sources, by flow id (the spec's flows come first, so a vector of them suffices;
/// it ends at the last UDP flow).
pub struct Cbr {
    sources: Vec<Option<CbrSource>>,
}

impl Cbr {
    /// A source for every UDP flow of the spec.
    pub fn new(flows: &[std::sync::Arc<FlowSpec>]) -> Cbr {
        let source = |f: &FlowSpec| match (&f.rate_schedule, f.transport.as_str()) {
            (Some(steps), "udp" | "voip") => {
                let mut c = CbrSource::new(f.packet.unwrap_or(1000), steps, f.start);
                c.delay = f.delay_stats.then(Box::default);
                c.trace = f.delay_trace.then(Box::default);
                Some(c)
            }
            _ => None,
        };
        let n = flows.iter().rposition(|f| source(f).is_some()).map_or(0, |i| i + 1);
        let sources = flows[..n].iter().map(|f| source(f)).collect();
        Cbr { sources }
    }

    /// The source of flow `f`, if it is a UDP flow.
    pub fn get(&self, f: usize) -> Option<&CbrSource> {
        self.sources.get(f).and_then(Option::as_ref)
    }

    /// A flow whose delay trace ran out of memory, if any.
    pub fn trace_out_of_memory(&self) -> Option<usize> {
        let full = |c: &CbrSource| c.trace.as_ref().is_some_and(|t| t.out_of_memory);
        self.sources.iter().position(|c| c.as_ref().is_some_and(full))
    }

    /// Flow `f`'s delay trace, taken out of its source (empty without one).
    pub fn take_trace(&mut self, f: usize) -> Vec<(Time, Time)> {
        let source = self.sources.get_mut(f).and_then(Option::as_mut);
        source.and_then(|c| c.trace.take()).map_or_else(Vec::new, |t| t.rows)
    }

    /// Schedule the rate steps of every source, and its stop.
    pub fn schedule_flow(&self, f: usize, stop: Option<f64>, q: &mut Queue) {
        let Some(c) = self.get(f) else { return };
        for (k, (at, _)) in c.schedule.iter().enumerate() {
            q.at(*at, TrafficEv::CbrRate(f as u32, k as u32));
        }
        if let Some(s) = stop {
            q.at(secs(s), TrafficEv::CbrStop(f as u32));
        }
    }

    /// A datagram of flow `f`, numbered `seq` and sent at `sent`, arrived at `now`.
    pub fn received(&mut self, f: u32, now: Time, sent: Time, seq: u64) {
        if let Some(c) = self.sources.get_mut(f as usize).and_then(Option::as_mut) {
            c.received += 1;
            if let Some(d) = c.delay.as_deref_mut() {
                d.arrival(now, sent, seq);
            }
            if let Some(t) = c.trace.as_deref_mut() {
                if t.out_of_memory || t.rows.try_reserve(1).is_err() {
                    t.out_of_memory = true;
                } else {
                    t.rows.push((now, now.saturating_sub(sent)));
                }
            }
        }
    }

    pub fn handle(&mut self, now: Time, ev: TrafficEv, net: &mut Network, q: &mut Queue) {
        match ev {
            TrafficEv::CbrRate(f, k) => {
                let Some(c) = self.sources.get_mut(f as usize).and_then(Option::as_mut) else {
                    return;
                };
                let Some(&(_, rate)) = c.schedule.get(k as usize) else {
                    return;
                };
                let was_paused = c.rate <= 0.0;
                c.rate = rate;
                if was_paused && rate > 0.0 {
                    c.gen += 1;
                    q.at(now, TrafficEv::CbrSend(f, c.gen));
                }
            }
            TrafficEv::CbrSend(f, gen) => {
                let Some(c) = self.sources.get_mut(f as usize).and_then(Option::as_mut) else {
                    return;
                };
                if c.gen != gen {
                    return;
                }
                let Some(gap) = c.interval() else { return };
                let seq = c.next_seq;
                c.next_seq += 1;
                let p = Packet {
                    flow: f,
                    kind: Kind::Datagram,
                    at: 0,
                    size: c.packet,
                    seq,
                    ts: now,
                    ts_echo: 0,
                    sack: 0,
                    ecn: EcnBits::default(),
                };
                net.send(now, p, q);
                q.at(now.saturating_add(gap), TrafficEv::CbrSend(f, gen));
            }
            TrafficEv::CbrStop(f) => {
                if let Some(c) = self.sources.get_mut(f as usize).and_then(Option::as_mut) {
                    c.rate = 0.0;
                    c.schedule.clear();
                    c.gen += 1;
                }
            }
            TrafficEv::GenTick(_) | TrafficEv::GenTimer(..) => unreachable!("generators wake through the world"),
        }
    }
}
