//! The simulation world: builds nodes, links, routes and flows from a normalised spec and
//! runs the event loop, connecting the TCP endpoints to the network.
use crate::api::{Column, Error, Table};
use crate::cc;
use crate::net::{CsmaCd, Enqueue, Lan, LanEnqueue, LinkDir, Mac, Packet, PacketPool, Router};
use crate::scenario::{FlowSpec, GeneratorSpec, Spec};
use crate::share::{Rtt, Sharing, Source, Window};
use crate::sim::{secs, to_secs, EventQueue, Rng, Time, NEVER};
use crate::tcp::{Kind, Preset, Receiver, Sender, SenderConfig, Tx};
use crate::trace::{CapturedPacket, PcapWriter};
use crate::traffic::CbrSource;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

#[derive(Debug, Clone, Copy)]
enum Ev {
    /// A packet reaches the far end of the link it is crossing.
    Arrive(u32),
    Start(u32),
    Stop(u32),
    Rto(u32),
    DelAck(u32),
    /// Switch flow `.0` to its `.1`-th scheduled algorithm.
    Switch(u32, u32),
    CcTimer(u32, u32),
    /// A UDP source sends its next packet (flow, generation).
    CbrSend(u32, u32),
    /// A UDP source moves to the `.1`-th step of its rate schedule.
    CbrRate(u32, u32),
    /// A flow generator creates its next flow.
    GenTick(u32),
    /// A data packet leaves its sender after the random processing time.
    Inject(u32),
    /// The frame on LAN `.0`'s channel finished its transmission.
    LanTxEnd(u32),
    /// A CSMA/CD LAN's wake-up (LAN, generation; see `Lan::csma_schedule`).
    LanMac(u32, u32),
    Sample,
}

/// One hop across a LAN: from member interface `iface` to node `to`. Hop ids after the
/// link directions' ids refer to these.
#[derive(Debug, Clone, Copy)]
struct LanHop {
    lan: u32,
    iface: u32,
    from: u32,
    to: u32,
}

/// A connection's initial control block as it started (for the flows table).
#[derive(Debug, Clone, Copy)]
struct InitRecord {
    cwnd: f64,
    ssthresh: f64,
    srtt: f64,
    rttvar: f64,
}

/// A run-time source of flows (see `GeneratorSpec`).
struct Generator {
    spec: GeneratorSpec,
    fwd: Vec<u32>,
    rev: Vec<u32>,
    rng: Rng,
    created: u64,
    pages_left: u64,
    totals: GeneratorTotals,
}

/// What a generator's completed flows add up to (the generators table).
#[derive(Default)]
struct GeneratorTotals {
    completed: u64,
    segments: u64,
    /// Σ completion time (s)
    duration: f64,
    /// Σ size/completion time (segments/s)
    rate: f64,
    delivered_bytes: u64,
    segments_sent: u64,
    retransmits: u64,
    timeouts: u64,
    /// Completed flows whose state was freed (summary generators).
    retired: u64,
}

/// The flows, indexed by flow id. A completed flow of a `record = "summary"` generator is
/// retired once none of its packets is in the network: its slot then holds nothing and
/// events that still name it (lazy timers) are ignored.
struct FlowTable {
    slots: Vec<Option<Box<Flow>>>,
    /// Names of retired flows that belonged to a TCBI set: the parallel-interval rows
    /// written while they were open still name them.
    retired_names: HashMap<u32, String>,
}

impl FlowTable {
    fn with_capacity(n: usize) -> FlowTable {
        FlowTable {
            slots: Vec::with_capacity(n),
            retired_names: HashMap::new(),
        }
    }
    fn push(&mut self, f: Flow) {
        self.slots.push(Some(Box::new(f)));
    }
    fn len(&self) -> usize {
        self.slots.len()
    }
    fn is_live(&self, f: u32) -> bool {
        self.slots.get(f as usize).is_some_and(Option::is_some)
    }
    fn retire(&mut self, f: u32) {
        if let Some(fl) = self.slots[f as usize].take() {
            if fl.tcbi_set.is_some() {
                self.retired_names.insert(f, fl.spec.name);
            }
        }
    }
    /// The name of flow `f`, live or retired from a TCBI set.
    fn name(&self, f: u32) -> &str {
        match &self.slots[f as usize] {
            Some(fl) => &fl.spec.name,
            None => &self.retired_names[&f],
        }
    }
    /// The live flows with their ids.
    fn iter(&self) -> impl Iterator<Item = (usize, &Flow)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.as_deref().map(|f| (i, f)))
    }
}

impl std::ops::Index<usize> for FlowTable {
    type Output = Flow;
    fn index(&self, i: usize) -> &Flow {
        self.slots[i].as_deref().expect("flow retired")
    }
}

impl std::ops::IndexMut<usize> for FlowTable {
    fn index_mut(&mut self, i: usize) -> &mut Flow {
        self.slots[i].as_deref_mut().expect("flow retired")
    }
}

struct Flow {
    spec: FlowSpec,
    fwd: Vec<u32>,
    rev: Vec<u32>,
    data_bytes: u32,
    ctrl_bytes: u32,
    ack_bytes: u32,
    sender: Sender,
    receiver: Receiver,
    /// Time of the pending RTO event, if one is scheduled (the deadline may be later).
    rto_event: Option<Time>,
    delack_event: Option<Time>,
    cc_timer_gen: u32,
    /// Set for UDP flows; the TCP endpoints are then never started.
    cbr: Option<CbrSource>,
    /// The generator that created this flow.
    generator: Option<u32>,
    completion_seen: bool,
    /// Packets of this flow in the network (allocated, not yet freed).
    in_flight: u32,
    /// Counted in the active-connection counters of its forward path (started, not finished).
    active: bool,
    /// Random per-packet processing time at the sender: (maximum, stream, time the last
    /// data packet left). Packets keep their order.
    processing: Option<(Time, Rng, Time)>,
    /// The TCBI connection set of the flow, if its source host has a TCBI configuration.
    tcbi_set: Option<u32>,
    /// Other open connections of the set when this one started.
    tcbi_parallel: Option<usize>,
    tcbi_source: Source,
    init: Option<InitRecord>,
}

/// Calls a progress callback (simulated now, simulated end, events) about once per
/// wall-clock second, during the set-up and the run.
struct Reporter<'p> {
    progress: Option<&'p mut dyn FnMut(f64, f64, u64) -> bool>,
    start: std::time::Instant,
    last: f64,
    /// Seconds between reports.
    interval: f64,
}

impl<'p> Reporter<'p> {
    fn new(progress: Option<&'p mut dyn FnMut(f64, f64, u64) -> bool>) -> Reporter<'p> {
        Reporter {
            progress,
            start: std::time::Instant::now(),
            last: 0.0,
            interval: 1.0,
        }
    }

    /// Report if a second has passed since the last report; false when the callback asks
    /// to stop.
    fn tick(&mut self, now: f64, end: f64, events: u64) -> bool {
        let Some(report) = self.progress.as_mut() else {
            return true;
        };
        let elapsed = self.start.elapsed().as_secs_f64();
        if elapsed - self.last < self.interval {
            return true;
        }
        self.last = elapsed;
        report(now, end, events)
    }
}

fn interrupted() -> Error {
    Error::Simulation("interrupted during the set-up".into())
}

/// Sampled time series, stored column-wise.
#[derive(Default)]
struct Series {
    time: Vec<f64>,
    flow: Vec<u64>,
    cwnd: Vec<f64>,
    ssthresh: Vec<f64>,
    srtt: Vec<f64>,
    rto: Vec<f64>,
    rto_base: Vec<f64>,
    flight: Vec<f64>,
    delivered: Vec<u64>,
    extra: Vec<(&'static str, Vec<f64>)>,
    link_time: Vec<f64>,
    link: Vec<u64>,
    queue: Vec<f64>,
}

pub struct World {
    spec: Spec,
    seed: u64,
    q: EventQueue<Ev>,
    pool: PacketPool,
    links: Vec<LinkDir>,
    flows: FlowTable,
    /// Completed flows of summary generators waiting for their last packets to leave.
    retiring: Vec<u32>,
    scratch: Vec<Tx>,
    series: Series,
    sample_extra: Vec<(&'static str, f64)>,
    end: Time,
    /// Events up to this time are processed: `end`, or 0 once the run failed.
    horizon: Time,
    /// Why the run stopped early (memory for its results ran out).
    failure: Option<String>,
    /// Per link direction: index into `pcaps` if captured.
    capture: Vec<Option<u32>>,
    pcaps: Vec<(String, PcapWriter)>,
    generators: Vec<Generator>,
    /// Packets waiting out their sender's processing time.
    injecting: u64,
    /// Per link direction: connections started and not finished whose path crosses it
    /// (shared with the senders' fair-share estimators).
    active_on_link: Vec<Arc<AtomicU32>>,
    lans: Vec<Lan>,
    /// Hop id `links.len() + k` is `lan_hops[k]`.
    lan_hops: Vec<LanHop>,
    sharing: Sharing,
    node_index: HashMap<String, u32>,
}

impl Flow {
    fn new(spec: FlowSpec, fwd: Vec<u32>, rev: Vec<u32>, generator: Option<u32>, seed: u64) -> Result<Flow, String> {
        let algo = cc::create(&spec.cc, &spec.cc_params).map_err(|e| format!("flow {}: {e}", spec.name))?;
        let mut sender = Sender::new(SenderConfig::from_spec(&spec.tcp, spec.size), &spec.tcp, algo);
        sender.st.rng = Rng::stream(seed, &format!("flow:{}:cc", spec.name));
        let receiver = Receiver::new(
            spec.tcp.delayed_ack,
            spec.tcp.delack_count,
            secs(spec.tcp.delack_timeout),
        );
        let cbr = match (&spec.rate_schedule, spec.transport.as_str()) {
            (Some(steps), "udp") => Some(CbrSource::new(spec.packet.unwrap_or(1000), steps, spec.start)),
            _ => None,
        };
        let processing = (spec.tcp.send_jitter > 0.0).then(|| {
            (
                secs(spec.tcp.send_jitter),
                Rng::stream(seed, &format!("flow:{}:processing", spec.name)),
                0,
            )
        });
        Ok(Flow {
            processing,
            data_bytes: spec.tcp.mss + spec.tcp.header,
            ctrl_bytes: spec.tcp.header,
            ack_bytes: spec.tcp.ack_size,
            spec,
            fwd,
            rev,
            sender,
            receiver,
            rto_event: None,
            delack_event: None,
            cc_timer_gen: 0,
            cbr,
            generator,
            completion_seen: false,
            in_flight: 0,
            active: false,
            tcbi_set: None,
            tcbi_parallel: None,
            tcbi_source: Source::None,
            init: None,
        })
    }
}

impl World {
    /// Build the world; the spec must be a validated [`Spec`].
    pub fn new(spec: Spec, seed: u64) -> Result<World, String> {
        World::new_observed(spec, seed, None).map_err(|e| match e {
            Error::Scenario(m) | Error::Simulation(m) => m,
        })
    }

    /// Build the world, calling `progress` (as `run_observed` does, at simulated time 0)
    /// about once per wall-clock second; when it returns false the set-up stops with a
    /// `Simulation` error (an interrupt). A spec the world cannot be built from (no route,
    /// an algorithm's parameters) is a `Scenario` error.
    pub fn new_observed(
        spec: Spec,
        seed: u64,
        progress: Option<&mut dyn FnMut(f64, f64, u64) -> bool>,
    ) -> Result<World, Error> {
        World::build(spec, seed, &mut Reporter::new(progress))
    }

    fn build(spec: Spec, seed: u64, reporter: &mut Reporter) -> Result<World, Error> {
        let node_index: HashMap<&str, u32> = spec
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), i as u32))
            .collect();
        let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); spec.nodes.len()];
        let mut links = Vec::with_capacity(spec.links.len() * 2);
        let mut cost = Vec::with_capacity(spec.links.len() * 2);
        for (i, l) in spec.links.iter().enumerate() {
            let a = node_index[l.a.as_str()];
            let b = node_index[l.b.as_str()];
            let delay = secs(l.delay);
            for (from, to, queue, loss, c, dir) in [
                (a, b, l.queue_ab, l.loss_ab, l.cost_ab, "ab"),
                (b, a, l.queue_ba, l.loss_ba, l.cost_ba, "ba"),
            ] {
                cost.push(c);
                let id = links.len() as u32;
                let rng = crate::net::link_rng(seed, &l.a, &l.b, dir);
                links.push(LinkDir::new(i as u32, from, to, l.rate, delay, queue, loss, rng));
                adj[from as usize].push((to, id));
            }
        }
        let mut lans = Vec::with_capacity(spec.lans.len());
        let mut lan_hops = Vec::new();
        for (k, l) in spec.lans.iter().enumerate() {
            let members: Vec<u32> = l.members.iter().map(|m| node_index[m.as_str()]).collect();
            let rng = Rng::stream(seed, &format!("lan:{}", l.name));
            let mac = match l.mac.as_str() {
                "csma_cd" => Mac::CsmaCd(CsmaCd::IEEE_802_3),
                _ => Mac::Fifo,
            };
            lans.push(Lan::with_mac(
                &members,
                l.rate,
                secs(l.delay),
                l.queue,
                l.loss,
                rng,
                mac,
            ));
            for (i, &a) in members.iter().enumerate() {
                for &b in &members {
                    if a != b {
                        let id = (links.len() + lan_hops.len()) as u32;
                        adj[a as usize].push((b, id));
                        cost.push(1.0);
                        lan_hops.push(LanHop {
                            lan: k as u32,
                            iface: i as u32,
                            from: a,
                            to: b,
                        });
                    }
                }
            }
        }
        let hops = links.len() + lan_hops.len();
        let end_secs = spec.sim.duration;
        let mut tick = || reporter.tick(0.0, end_secs, 0);
        // Both directions of every flow's and generator's path, found together.
        let ends = spec
            .flows
            .iter()
            .map(|f| (f.src.as_str(), f.dst.as_str()))
            .chain(spec.generators.iter().map(|g| (g.src.as_str(), g.dst.as_str())));
        let mut pairs = Vec::new();
        for (a, b) in ends {
            let (src, dst) = (node_index[a], node_index[b]);
            pairs.push((src, dst));
            pairs.push((dst, src));
        }
        let mut routes = Router::new(&adj, &cost)
            .routes(&pairs, &mut tick)
            .map_err(|_| interrupted())?
            .into_iter();
        let mut route = |what: &str| -> Result<(Vec<u32>, Vec<u32>), Error> {
            let (fwd, rev) = (routes.next().flatten(), routes.next().flatten());
            let fwd = fwd.ok_or_else(|| Error::Scenario(format!("{what}: no route")))?;
            let rev = rev.ok_or_else(|| Error::Scenario(format!("{what}: no route back")))?;
            if fwd.len() > u16::MAX as usize || rev.len() > u16::MAX as usize {
                return Err(Error::Scenario(format!("{what}: path too long")));
            }
            Ok((fwd, rev))
        };
        let mut flows = FlowTable::with_capacity(spec.flows.len());
        for (i, f) in spec.flows.iter().enumerate() {
            let (fwd, rev) = route(&format!("flows[{i}]"))?;
            flows.push(Flow::new(f.clone(), fwd, rev, None, seed).map_err(Error::Scenario)?);
            if i % 4096 == 4095 && !tick() {
                return Err(interrupted());
            }
        }
        let mut generators = Vec::with_capacity(spec.generators.len());
        for (i, g) in spec.generators.iter().enumerate() {
            let (fwd, rev) = route(&format!("generators[{i}]"))?;
            generators.push(Generator {
                rng: Rng::stream(seed, &format!("generator:{}", g.name)),
                spec: g.clone(),
                fwd,
                rev,
                created: 0,
                pages_left: 0,
                totals: GeneratorTotals::default(),
            });
        }
        let mut capture = vec![None; hops];
        let mut pcaps = Vec::new();
        for c in &spec.pcap {
            let (a, b) = (node_index[c.a.as_str()], node_index[c.b.as_str()]);
            // a link direction, or else the frames member a sends to member b on a shared LAN
            let hop = links.iter().position(|l| l.from == a && l.to == b).or_else(|| {
                lan_hops
                    .iter()
                    .position(|h| h.from == a && h.to == b)
                    .map(|h| links.len() + h)
            });
            if let Some(d) = hop {
                capture[d] = Some(pcaps.len() as u32);
                pcaps.push((format!("{}-{}", c.a, c.b), PcapWriter::new()));
            }
        }
        // An event at NEVER stays beyond the end even when the duration is not representable.
        let end = secs(spec.sim.duration).min(NEVER - 1);
        let sharing = Sharing::new(&spec.nodes);
        let node_index: HashMap<String, u32> = node_index.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let mut w = World {
            spec,
            seed,
            q: EventQueue::new(),
            pool: PacketPool::default(),
            links,
            flows,
            retiring: Vec::new(),
            scratch: Vec::with_capacity(64),
            series: Series::default(),
            sample_extra: Vec::new(),
            end,
            horizon: end,
            failure: None,
            capture,
            pcaps,
            generators,
            injecting: 0,
            active_on_link: Vec::new(),
            lans,
            lan_hops,
            sharing,
            node_index,
        };
        w.active_on_link = (0..hops).map(|_| Arc::new(AtomicU32::new(0))).collect();
        for f in 0..w.flows.len() {
            w.attach_path_share(f);
            w.attach_tcbi(f);
        }
        for (g, gen) in w.generators.iter_mut().enumerate() {
            let first = match gen.spec.kind.as_str() {
                "poisson" => gen.spec.start + gen.rng.exponential(1.0 / gen.spec.rate.unwrap_or(1.0)),
                _ => gen.spec.start,
            };
            w.q.schedule(secs(first), Ev::GenTick(g as u32));
        }
        for (i, f) in w.flows.iter() {
            if let Some(c) = &f.cbr {
                for (k, (at, _)) in c.schedule.iter().enumerate() {
                    w.q.schedule(*at, Ev::CbrRate(i as u32, k as u32));
                }
                if let Some(s) = f.spec.stop {
                    w.q.schedule(secs(s), Ev::Stop(i as u32));
                }
                continue;
            }
            w.q.schedule(secs(f.spec.start), Ev::Start(i as u32));
            if let Some(s) = f.spec.stop {
                w.q.schedule(secs(s), Ev::Stop(i as u32));
            }
            for (k, s) in f.spec.switch.iter().enumerate() {
                w.q.schedule(secs(s.at), Ev::Switch(i as u32, k as u32));
            }
        }
        if w.spec.sim.sample_interval > 0.0 {
            w.q.schedule(0, Ev::Sample);
        }
        Ok(w)
    }

    /// Run to the end of the simulation.
    pub fn run(&mut self) {
        self.run_observed(None, None).expect("no limit, no observer");
    }

    /// Run to the end, giving up when `wall_limit` (seconds of wall-clock time) is exceeded.
    pub fn run_with_limit(&mut self, wall_limit: f64) -> Result<(), String> {
        self.run_observed(Some(wall_limit), None)
    }

    /// Run to the end. `progress(simulated now, simulated end, events)` is called about once
    /// per wall-clock second; it returns false to stop the run (an interrupt). The run also
    /// stops once `wall_limit` seconds of wall-clock time have passed.
    pub fn run_observed(
        &mut self,
        wall_limit: Option<f64>,
        progress: Option<&mut dyn FnMut(f64, f64, u64) -> bool>,
    ) -> Result<(), String> {
        let mut reporter = Reporter::new(progress);
        let start = reporter.start;
        let mut n: u32 = 0;
        while let Some((now, ev)) = self.q.pop_until(self.horizon) {
            self.handle(now, ev);
            if !self.retiring.is_empty() {
                self.retire_quiet_flows();
            }
            n = n.wrapping_add(1);
            if n % 65_536 != 0 || (wall_limit.is_none() && reporter.progress.is_none()) {
                continue;
            }
            let elapsed = start.elapsed().as_secs_f64();
            if wall_limit.is_some_and(|limit| elapsed > limit) {
                return Err(format!(
                    "wall-clock limit of {} s exceeded at simulated time {:.3} s",
                    wall_limit.unwrap(),
                    to_secs(now)
                ));
            }
            if !reporter.tick(to_secs(now), to_secs(self.end), self.q.processed()) {
                return Err(format!("interrupted at simulated time {:.3} s", to_secs(now)));
            }
        }
        if let Some(why) = self.failure.take() {
            return Err(why);
        }
        self.q.advance_to(self.end);
        Ok(())
    }

    pub fn events(&self) -> u64 {
        self.q.processed()
    }

    fn handle(&mut self, now: Time, ev: Ev) {
        if let Ev::Start(f) | Ev::Stop(f) | Ev::Rto(f) | Ev::DelAck(f) | Ev::Switch(f, _) | Ev::CcTimer(f, _) = ev {
            if !self.flows.is_live(f) {
                return; // a lazy timer of a retired flow
            }
        }
        match ev {
            Ev::Arrive(p) => self.arrive(now, p),
            Ev::Start(f) => {
                self.set_active(f, true);
                let overwritten = self.tcbi_join(now, f);
                let mut out = std::mem::take(&mut self.scratch);
                let fl = &mut self.flows[f as usize];
                fl.sender.start(now, &mut out);
                let st = &fl.sender.st;
                let seeded = fl.sender.has_rtt();
                fl.init = Some(InitRecord {
                    cwnd: st.cwnd,
                    ssthresh: st.ssthresh,
                    srtt: if seeded { st.srtt } else { f64::NAN },
                    rttvar: if seeded { st.rttvar } else { f64::NAN },
                });
                self.emit(now, f, &mut out);
                // FS: the existing members' windows changed; let them send what they may.
                for m in overwritten {
                    self.flows[m as usize].sender.try_send(now, &mut out);
                    self.emit(now, m, &mut out);
                }
                self.scratch = out;
                self.arm_cc_timer(now, f);
            }
            Ev::Stop(f) => {
                let fl = &mut self.flows[f as usize];
                match &mut fl.cbr {
                    Some(c) => {
                        c.rate = 0.0;
                        c.schedule.clear();
                        c.gen += 1;
                    }
                    None => {
                        fl.sender.stop();
                        self.set_active(f, false);
                        self.tcbi_leave(now, f);
                    }
                }
            }
            Ev::CbrRate(f, k) => {
                let Some(c) = &mut self.flows[f as usize].cbr else {
                    return;
                };
                let Some(&(_, rate)) = c.schedule.get(k as usize) else {
                    return;
                };
                let was_paused = c.rate <= 0.0;
                c.rate = rate;
                if was_paused && rate > 0.0 {
                    c.gen += 1;
                    let gen = c.gen;
                    self.q.schedule(now, Ev::CbrSend(f, gen));
                }
            }
            Ev::CbrSend(f, gen) => {
                let fl = &mut self.flows[f as usize];
                let Some(c) = &mut fl.cbr else { return };
                if c.gen != gen {
                    return;
                }
                let Some(gap) = c.interval() else { return };
                let seq = c.next_seq;
                c.next_seq += 1;
                let size = c.packet;
                let first = fl.fwd[0];
                fl.in_flight += 1;
                let p = self.pool.alloc(Packet {
                    flow: f,
                    kind: Kind::Datagram,
                    hop: 0,
                    size,
                    seq,
                    ts: now,
                    ts_echo: 0,
                });
                self.offer(now, first, p);
                self.q.schedule(now.saturating_add(gap), Ev::CbrSend(f, gen));
            }
            Ev::Rto(f) => {
                let fl = &mut self.flows[f as usize];
                if fl.rto_event != Some(now) {
                    return; // superseded by an earlier-scheduled event
                }
                fl.rto_event = None;
                match fl.sender.rto_deadline {
                    Some(d) if d > now => {
                        fl.rto_event = Some(d);
                        self.q.schedule(d, Ev::Rto(f));
                    }
                    Some(_) => {
                        let mut out = std::mem::take(&mut self.scratch);
                        self.flows[f as usize].sender.on_timeout(now, &mut out);
                        self.emit(now, f, &mut out);
                        self.scratch = out;
                    }
                    None => {}
                }
            }
            Ev::DelAck(f) => {
                let fl = &mut self.flows[f as usize];
                if fl.delack_event != Some(now) {
                    return;
                }
                fl.delack_event = None;
                match fl.receiver.delack_deadline {
                    Some(d) if d > now => {
                        fl.delack_event = Some(d);
                        self.q.schedule(d, Ev::DelAck(f));
                    }
                    Some(_) => {
                        let mut out = std::mem::take(&mut self.scratch);
                        self.flows[f as usize].receiver.on_delack_timer(now, &mut out);
                        self.emit(now, f, &mut out);
                        self.scratch = out;
                    }
                    None => {}
                }
            }
            Ev::Switch(f, k) => {
                let fl = &self.flows[f as usize];
                let name = fl.spec.switch[k as usize].cc.clone();
                // Validated when the spec was parsed.
                let algo = cc::create(&name, &fl.spec.cc_params).expect("validated algorithm");
                let mut out = std::mem::take(&mut self.scratch);
                self.flows[f as usize].sender.switch_cc(now, algo, &mut out);
                self.emit(now, f, &mut out);
                self.scratch = out;
                self.flows[f as usize].cc_timer_gen += 1;
                self.arm_cc_timer(now, f);
            }
            Ev::CcTimer(f, gen) => {
                if self.flows[f as usize].cc_timer_gen != gen {
                    return;
                }
                let mut out = std::mem::take(&mut self.scratch);
                self.flows[f as usize].sender.on_cc_timer(now, &mut out);
                self.emit(now, f, &mut out);
                self.scratch = out;
                self.arm_cc_timer(now, f);
            }
            Ev::GenTick(g) => self.generator_tick(now, g),
            Ev::Inject(p) => {
                self.injecting -= 1;
                let first = self.flows[self.pool.get(p).flow as usize].fwd[0];
                self.offer(now, first, p);
            }
            Ev::LanTxEnd(l) => {
                let r = self.lans[l as usize].tx_end(now);
                match r.arrives {
                    Some(at) => self.q.schedule(at, Ev::Arrive(r.packet)),
                    None => self.release(r.packet),
                }
                if let Some(end) = r.next_end {
                    self.q.schedule(end, Ev::LanTxEnd(l));
                }
            }
            Ev::LanMac(l, gen) => {
                let mut out = Vec::new();
                let lan = &mut self.lans[l as usize];
                if !lan.csma_wake(now, gen, &mut out) {
                    return;
                }
                if let Some((t, g)) = lan.csma_schedule() {
                    self.q.schedule(t, Ev::LanMac(l, g));
                }
                for r in out {
                    match r.arrives {
                        Some(at) => self.q.schedule(at, Ev::Arrive(r.packet)),
                        None => self.release(r.packet),
                    }
                }
            }
            Ev::Sample => {
                self.sample(now);
                let next = now.saturating_add(secs(self.spec.sim.sample_interval).max(1));
                if next <= self.end {
                    self.q.schedule(next, Ev::Sample);
                }
            }
        }
    }

    /// A generator's timer fired: create its next flow (and, for Poisson, schedule the next
    /// arrival).
    fn generator_tick(&mut self, now: Time, g: u32) {
        let gen = &mut self.generators[g as usize];
        if gen.spec.stop.is_some_and(|s| now >= secs(s)) || gen.spec.max_flows.is_some_and(|m| gen.created >= m) {
            return;
        }
        if gen.spec.kind == "poisson" {
            let gap = gen.rng.exponential(1.0 / gen.spec.rate.unwrap_or(1.0));
            self.q.schedule(now.saturating_add(secs(gap).max(1)), Ev::GenTick(g));
        }
        if gen.spec.kind == "sessions" && gen.pages_left == 0 {
            let pages = gen.spec.pages.as_ref().map_or(1.0, |d| d.sample(&mut gen.rng));
            gen.pages_left = pages.round().max(1.0) as u64;
        }
        gen.pages_left = gen.pages_left.saturating_sub(1);
        let drawn = gen.spec.size.sample(&mut gen.rng);
        let segments = if gen.spec.size_unit == "bytes" {
            drawn / gen.spec.tcp.mss as f64
        } else {
            drawn
        };
        let size = segments.ceil().max(1.0) as u64;
        let spec = FlowSpec {
            name: format!("{}:{}", gen.spec.name, gen.created),
            src: gen.spec.src.clone(),
            dst: gen.spec.dst.clone(),
            cc: gen.spec.cc.clone(),
            cc_params: gen.spec.cc_params.clone(),
            start: to_secs(now),
            stop: None,
            size: Some(size),
            switch: Vec::new(),
            tcp: gen.spec.tcp.clone(),
            transport: "tcp".into(),
            packet: None,
            rate_schedule: None,
        };
        gen.created += 1;
        let (fwd, rev) = (gen.fwd.clone(), gen.rev.clone());
        let flow = Flow::new(spec, fwd, rev, Some(g), self.seed).expect("generator spec validated");
        let f = self.flows.len() as u32;
        self.flows.push(flow);
        self.attach_path_share(f as usize);
        self.attach_tcbi(f as usize);
        self.handle(now, Ev::Start(f));
    }

    /// Free a packet, and count it out of its flow.
    fn release(&mut self, p: u32) {
        let f = self.pool.get(p).flow;
        self.pool.free(p);
        let fl = &mut self.flows[f as usize];
        fl.in_flight -= 1;
    }

    /// Add a completed generated flow to its generator's totals; a summary generator's flow
    /// is queued for retirement.
    fn count_generated_flow(&mut self, f: u32, g: u32) {
        let fl = &self.flows[f as usize];
        let s = &fl.sender;
        let size = fl.spec.size.unwrap_or(0);
        let d = s.stats.completion.map_or(0.0, |c| to_secs(c) - fl.spec.start);
        let delivered = fl.receiver.delivered() * fl.spec.tcp.mss as u64;
        let gen = &mut self.generators[g as usize];
        let t = &mut gen.totals;
        t.completed += 1;
        t.segments += size;
        t.duration += d;
        if d > 0.0 {
            t.rate += size as f64 / d;
        }
        t.delivered_bytes += delivered;
        t.segments_sent += s.stats.segments_sent;
        t.retransmits += s.stats.retransmits;
        t.timeouts += s.stats.timeouts;
        if gen.spec.record == "summary" {
            self.retiring.push(f);
        }
    }

    /// Retire the queued flows that have no packet left in the network.
    fn retire_quiet_flows(&mut self) {
        let mut i = 0;
        while i < self.retiring.len() {
            let f = self.retiring[i];
            let fl = &self.flows[f as usize];
            if fl.in_flight == 0 {
                if let Some(g) = fl.generator {
                    self.generators[g as usize].totals.retired += 1;
                }
                self.flows.retire(f);
                self.retiring.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// A generated flow completed: closed-loop generators schedule their next flow.
    fn generated_flow_done(&mut self, now: Time, g: u32) {
        let gen = &mut self.generators[g as usize];
        let wait = match gen.spec.kind.as_str() {
            "closed" => gen.spec.think.as_ref().map_or(0.0, |d| d.sample(&mut gen.rng)),
            "sessions" if gen.pages_left > 0 => gen.spec.reading.as_ref().map_or(0.0, |d| d.sample(&mut gen.rng)),
            "sessions" => gen.spec.session_gap.as_ref().map_or(0.0, |d| d.sample(&mut gen.rng)),
            _ => return,
        };
        self.q.schedule(now.saturating_add(secs(wait.max(0.0))), Ev::GenTick(g));
    }

    /// Give flow `f`'s sender the rates and active-connection counters of its forward path.
    fn attach_path_share(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        let links = fl
            .fwd
            .iter()
            .map(|&l| cc::fair_share::LinkShare {
                rate_bps: match self.links.get(l as usize) {
                    Some(link) => link.rate,
                    None => self.lans[self.lan_hops[l as usize - self.links.len()].lan as usize].rate,
                },
                active: self.active_on_link[l as usize].clone(),
            })
            .collect();
        fl.sender.st.path = cc::PathShare {
            links,
            wire_bytes: fl.data_bytes as f64,
        };
    }

    /// Put flow `f` into its TCBI connection set (if its source host shares).
    fn attach_tcbi(&mut self, f: usize) {
        if !self.sharing.enabled() || self.flows[f].cbr.is_some() {
            return;
        }
        let spec = &self.flows[f].spec;
        let host = self.node_index[spec.src.as_str()];
        let dst = &self.spec.nodes[self.node_index[spec.dst.as_str()] as usize].address;
        self.flows[f].tcbi_set = self.sharing.set_for(host, dst);
    }

    fn acked_bytes(fl: &Flow) -> u64 {
        fl.sender.snd_una * fl.spec.tcp.mss as u64
    }

    /// Flow `f` starts: consult the sharing service of its host. Returns the existing
    /// members whose windows the FS controller overwrote.
    fn tcbi_join(&mut self, now: Time, f: u32) -> Vec<u32> {
        let Some(set) = self.flows[f as usize].tcbi_set else {
            return Vec::new();
        };
        let members: Vec<u32> = self.sharing.members(set).to_vec();
        let existing: Vec<Window> = members
            .iter()
            .map(|&m| {
                let st = &self.flows[m as usize].sender.st;
                Window {
                    cwnd: st.cwnd,
                    ssthresh: st.ssthresh,
                }
            })
            .collect();
        for (&m, w) in members.iter().zip(&existing) {
            let s = &mut self.flows[m as usize].sender;
            s.note(now, "tcbi_peer_cwnd", w.cwnd);
            s.note(now, "tcbi_peer_ssthresh", w.ssthresh);
        }
        let tcp = &self.flows[f as usize].spec.tcp;
        let standard = Window {
            cwnd: tcp.init_cwnd,
            ssthresh: tcp.init_ssthresh,
        };
        let d = self
            .sharing
            .on_start(to_secs(now), set, f, &existing, standard, tcp.initial_rto);
        let fl = &mut self.flows[f as usize];
        fl.tcbi_parallel = Some(d.parallel);
        fl.tcbi_source = d.source;
        if let Some(i) = d.initial {
            fl.sender.preset(Preset {
                cwnd: i.window.cwnd,
                ssthresh: i.window.ssthresh,
                rtt: i.rtt.map(|r| (r.srtt, r.rttvar)),
            });
        }
        let now_members: Vec<u32> = self.sharing.members(set).to_vec();
        let flows = &self.flows;
        self.sharing.intervals.change(to_secs(now), set, &now_members, |g| {
            Self::acked_bytes(&flows[g as usize])
        });
        let Some(e) = d.existing else {
            return Vec::new();
        };
        for &m in &members {
            let s = &mut self.flows[m as usize].sender;
            s.overwrite_window(e.window.cwnd, e.window.ssthresh);
            if let Some(r) = e.rtt {
                s.assign_rtt(r.srtt, r.rttvar);
            }
            s.note(now, "tcbi_fs_cwnd", e.window.cwnd);
        }
        members
    }

    /// Flow `f` closed (completed, or its application stopped): it leaves its set.
    fn tcbi_leave(&mut self, now: Time, f: u32) {
        let Some(set) = self.flows[f as usize].tcbi_set else {
            return;
        };
        let s = &self.flows[f as usize].sender;
        let w = Window {
            cwnd: s.st.cwnd,
            ssthresh: s.st.ssthresh,
        };
        let rtt = s.has_rtt().then(|| Rtt {
            srtt: s.st.srtt,
            rttvar: s.st.rttvar,
        });
        if self.sharing.on_close(to_secs(now), set, f, w, rtt) {
            let members: Vec<u32> = self.sharing.members(set).to_vec();
            let flows = &self.flows;
            self.sharing
                .intervals
                .change(to_secs(now), set, &members, |g| Self::acked_bytes(&flows[g as usize]));
        }
    }

    fn set_active(&mut self, f: u32, active: bool) {
        let fl = &mut self.flows[f as usize];
        if fl.active == active || fl.cbr.is_some() {
            return;
        }
        fl.active = active;
        for &l in &fl.fwd {
            let c = &self.active_on_link[l as usize];
            if active {
                c.fetch_add(1, Ordering::Relaxed);
            } else {
                c.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }

    fn arm_cc_timer(&mut self, now: Time, f: u32) {
        let fl = &self.flows[f as usize];
        if let Some(iv) = fl.sender.cc.timer_interval() {
            let at = now.saturating_add(secs(iv).max(1));
            self.q.schedule(at, Ev::CcTimer(f, fl.cc_timer_gen));
        }
    }

    /// Put the segments an endpoint of flow `f` produced onto the network, then make sure
    /// the flow's timers have events.
    fn emit(&mut self, now: Time, f: u32, out: &mut Vec<Tx>) {
        loop {
            self.inject(now, f, out);
            let sender = &mut self.flows[f as usize].sender;
            if !std::mem::take(&mut sender.burst_pending) {
                break;
            }
            sender.try_send(now, out);
        }
        let fl = &mut self.flows[f as usize];
        if !fl.completion_seen && fl.sender.stats.completion.is_some() {
            fl.completion_seen = true;
            self.set_active(f, false);
            self.tcbi_leave(now, f);
            let fl = &mut self.flows[f as usize];
            if let Some(g) = fl.generator {
                self.count_generated_flow(f, g);
                self.generated_flow_done(now, g);
            }
        }
        let fl = &mut self.flows[f as usize];
        if let Some(d) = fl.sender.rto_deadline {
            if fl.rto_event.is_none_or(|e| e > d) {
                fl.rto_event = Some(d);
                self.q.schedule(d, Ev::Rto(f));
            }
        }
        if let Some(d) = fl.receiver.delack_deadline {
            if fl.delack_event.is_none_or(|e| e > d) {
                fl.delack_event = Some(d);
                self.q.schedule(d, Ev::DelAck(f));
            }
        }
    }

    /// Turn the segments in `out` into packets on their first hop.
    fn inject(&mut self, now: Time, f: u32, out: &mut Vec<Tx>) {
        for tx in out.drain(..) {
            let fl = &self.flows[f as usize];
            let size = match tx.kind {
                Kind::Data => fl.data_bytes,
                Kind::Syn | Kind::Fin => fl.ctrl_bytes,
                _ => fl.ack_bytes,
            };
            let first = if tx.kind.forward() { fl.fwd[0] } else { fl.rev[0] };
            self.flows[f as usize].in_flight += 1;
            let p = self.pool.alloc(Packet {
                flow: f,
                kind: tx.kind,
                hop: 0,
                size,
                seq: tx.seq,
                ts: tx.ts,
                ts_echo: tx.ts_echo,
            });
            let fl = &mut self.flows[f as usize];
            if let (Kind::Data, Some((max, rng, last))) = (tx.kind, fl.processing.as_mut()) {
                let leave = now.saturating_add((rng.uniform() * *max as f64) as Time).max(*last);
                *last = leave;
                self.injecting += 1;
                self.q.schedule(leave, Ev::Inject(p));
                continue;
            }
            self.offer(now, first, p);
        }
    }

    fn offer(&mut self, now: Time, link: u32, p: u32) {
        let size = self.pool.get(p).size;
        if let Some(l) = self.links.get_mut(link as usize) {
            match l.enqueue(now, size) {
                Enqueue::Arrives(at) => self.q.schedule(at, Ev::Arrive(p)),
                Enqueue::QueueDrop | Enqueue::Lost => self.release(p),
            }
            return;
        }
        let h = self.lan_hops[link as usize - self.links.len()];
        match self.lans[h.lan as usize].enqueue(now, h.iface, p, size) {
            LanEnqueue::Transmitting(end) => self.q.schedule(end, Ev::LanTxEnd(h.lan)),
            LanEnqueue::Queued => {}
            LanEnqueue::QueueDrop => self.release(p),
        }
        if let Some((t, g)) = self.lans[h.lan as usize].csma_schedule() {
            self.q.schedule(t, Ev::LanMac(h.lan, g));
        }
    }

    /// The nodes at the two ends of a hop (link direction or LAN hop).
    fn hop_ends(&self, hop: u32) -> (u32, u32) {
        match self.links.get(hop as usize) {
            Some(l) => (l.from, l.to),
            None => {
                let h = self.lan_hops[hop as usize - self.links.len()];
                (h.from, h.to)
            }
        }
    }

    fn arrive(&mut self, now: Time, p: u32) {
        let pkt = *self.pool.get(p);
        let fl = &self.flows[pkt.flow as usize];
        let path = if pkt.kind.forward() { &fl.fwd } else { &fl.rev };
        let link = path[pkt.hop as usize];
        let next_hop = pkt.hop as usize + 1;
        let next_link = path.get(next_hop).copied();
        match self.links.get_mut(link as usize) {
            Some(l) => l.on_delivered(),
            None => {
                let h = self.lan_hops[link as usize - self.links.len()];
                self.lans[h.lan as usize].on_delivered(h.iface);
            }
        }
        if let Some(c) = self.capture[link as usize] {
            self.record(c, now, &pkt);
        }
        if let Some(next) = next_link {
            self.pool.get_mut(p).hop = next_hop as u16;
            self.offer(now, next, p);
            return;
        }
        self.release(p);
        let mut out = std::mem::take(&mut self.scratch);
        let fl = &mut self.flows[pkt.flow as usize];
        match pkt.kind {
            Kind::Data => fl.receiver.on_data(now, pkt.seq, pkt.ts, &mut out),
            Kind::Syn => fl.receiver.on_syn(now, pkt.ts, &mut out),
            Kind::Fin => fl.receiver.on_fin(now, pkt.ts, &mut out),
            Kind::Ack | Kind::SynAck | Kind::FinAck => {
                let before = (fl.sender.st.srtt, fl.sender.st.rttvar);
                fl.sender.on_ack(now, pkt.kind, pkt.seq, pkt.ts_echo, &mut out);
                if let Some(set) = fl.tcbi_set {
                    // Inform the sharing service of changed RTT estimates.
                    let (srtt, rttvar) = (fl.sender.st.srtt, fl.sender.st.rttvar);
                    if srtt != before.0 || rttvar != before.1 {
                        self.sharing.on_rtt_change(
                            set,
                            pkt.flow,
                            (srtt != before.0).then_some(srtt),
                            (rttvar != before.1).then_some(rttvar),
                        );
                    }
                }
            }
            Kind::Datagram => {
                if let Some(c) = &mut fl.cbr {
                    c.received += 1;
                }
            }
        }
        self.emit(now, pkt.flow, &mut out);
        self.scratch = out;
    }

    /// Stop the run at the end of the current instant; `run_observed` returns `why`.
    fn fail(&mut self, now: Time, why: &str) {
        if self.failure.is_none() {
            self.failure = Some(format!("{why} (at simulated time {:.3} s)", to_secs(now)));
        }
        self.horizon = 0;
    }

    fn record(&mut self, c: u32, now: Time, pkt: &Packet) {
        let fl = &self.flows[pkt.flow as usize];
        let (src, dst) = (self.hop_ends(fl.fwd[0]).0, self.hop_ends(*fl.fwd.last().unwrap()).1);
        let (sport, dport) = (1024 + (pkt.flow % 60000) as u16, 5001);
        let fwd = pkt.kind.forward();
        let recorded = self.pcaps[c as usize].1.record(&CapturedPacket {
            time: now,
            src_node: if fwd { src } else { dst },
            dst_node: if fwd { dst } else { src },
            src_port: if fwd { sport } else { dport },
            dst_port: if fwd { dport } else { sport },
            kind: pkt.kind,
            seq: pkt.seq,
            mss: fl.spec.tcp.mss,
            wire_bytes: pkt.size,
        });
        if !recorded {
            let why = format!(
                "out of memory for the packet capture {}; capture a shorter run or fewer links",
                self.pcaps[c as usize].0
            );
            self.fail(now, &why);
        }
    }

    /// The captured pcap files: (name "a-b", bytes), moved out of the world.
    pub fn pcaps(&mut self) -> Vec<(String, Vec<u8>)> {
        self.pcaps
            .iter_mut()
            .map(|(n, w)| (n.clone(), std::mem::take(&mut w.buf)))
            .collect()
    }

    /// Room for one more round of samples (columns grow without aborting on a failed
    /// allocation).
    fn reserve_samples(&mut self) -> Result<(), std::collections::TryReserveError> {
        let rows = self.flows.iter().filter(|(_, f)| f.cbr.is_none()).count();
        let s = &mut self.series;
        let target = s.time.len() + rows;
        s.flow.try_reserve(rows)?;
        s.delivered.try_reserve(rows)?;
        for v in [
            &mut s.time,
            &mut s.cwnd,
            &mut s.ssthresh,
            &mut s.srtt,
            &mut s.rto,
            &mut s.rto_base,
            &mut s.flight,
        ] {
            v.try_reserve(rows)?;
        }
        for (_, v) in &mut s.extra {
            v.try_reserve(target - v.len())?;
        }
        let links = self.links.len();
        s.link_time.try_reserve(links)?;
        s.link.try_reserve(links)?;
        s.queue.try_reserve(links)?;
        Ok(())
    }

    fn sample(&mut self, now: Time) {
        const OOM: &str = "out of memory for the time series (flow_ts, link_ts); \
                           sample less often (sim.sample_interval) or not at all (0)";
        if self.reserve_samples().is_err() {
            self.fail(now, OOM);
            return;
        }
        let t = to_secs(now);
        let s = &mut self.series;
        let mut out_of_memory = false;
        for (i, f) in self.flows.iter() {
            if f.cbr.is_some() {
                continue;
            }
            let st = &f.sender.st;
            s.time.push(t);
            s.flow.push(i as u64);
            s.cwnd.push(st.cwnd);
            s.ssthresh.push(st.ssthresh);
            s.srtt.push(st.srtt);
            s.rto.push(f.sender.current_rto());
            s.rto_base.push(f.sender.rto);
            s.flight.push((f.sender.snd_max - f.sender.snd_una) as f64);
            s.delivered.push(f.receiver.delivered());
            self.sample_extra.clear();
            f.sender.cc.samples(&mut self.sample_extra);
            let row = s.time.len() - 1;
            for (name, v) in self.sample_extra.drain(..) {
                let col = match s.extra.iter().position(|(n, _)| *n == name) {
                    Some(c) => c,
                    None => {
                        // a column that appears late is filled with NaN up to this row
                        let mut v = Vec::new();
                        if v.try_reserve(row + 1).is_err() {
                            out_of_memory = true;
                            continue;
                        }
                        s.extra.push((name, v));
                        s.extra.len() - 1
                    }
                };
                let c = &mut s.extra[col].1;
                c.resize(row, f64::NAN);
                c.push(v);
            }
        }
        for (i, l) in self.links.iter_mut().enumerate() {
            s.link_time.push(t);
            s.link.push(i as u64);
            s.queue.push(l.occupancy(now) as f64);
        }
        if out_of_memory {
            self.fail(now, OOM);
        }
    }

    /// Check the conservation invariants; returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut in_links = 0;
        for (i, l) in self.links.iter().enumerate() {
            if l.arrivals != l.delivered + l.drops_queue + l.drops_loss + l.in_system {
                return Err(format!("link direction {i}: arrivals != delivered + drops + in system"));
            }
            in_links += l.in_system;
        }
        for (k, lan) in self.lans.iter().enumerate() {
            for (i, f) in lan.ifaces.iter().enumerate() {
                if f.arrivals != f.departures + f.drops_queue + f.drops_loss + f.in_system {
                    return Err(format!(
                        "LAN {} interface {i}: arrivals != departures + drops + in system",
                        self.spec.lans[k].name
                    ));
                }
                in_links += f.in_system;
            }
        }
        if in_links + self.injecting != self.pool.live() as u64 {
            return Err(format!(
                "{} packets in links and {} at senders but {} live in the pool",
                in_links,
                self.injecting,
                self.pool.live()
            ));
        }
        for (i, f) in self.flows.iter() {
            if let Some(c) = &f.cbr {
                if c.received > c.next_seq {
                    return Err(format!("flow {i}: UDP received more than sent"));
                }
                continue;
            }
            if f.sender.snd_una > f.receiver.delivered() {
                return Err(format!("flow {i}: acknowledged more than delivered"));
            }
            if f.receiver.delivered() > f.sender.snd_max {
                return Err(format!("flow {i}: delivered more than sent"));
            }
        }
        Ok(())
    }

    /// One row per generator: the flows it created and what its completed flows add up to
    /// (T̄1 = segments / duration, T̄2 = rate / completed, in segments per second).
    pub fn output_generators(&self) -> Table {
        let mut t = TableBuilder::new(GENERATOR_COLUMNS);
        for g in &self.generators {
            let x = &g.totals;
            t.s("generator", &g.spec.name);
            t.s("kind", &g.spec.kind);
            t.s("record", &g.spec.record);
            t.s("src", &g.spec.src);
            t.s("dst", &g.spec.dst);
            t.u("created", g.created);
            t.u("completed", x.completed);
            t.u("completed_segments", x.segments);
            t.f("completed_duration", x.duration);
            t.f("sum_rate", x.rate);
            t.u("delivered_bytes", x.delivered_bytes);
            t.u("segments_sent", x.segments_sent);
            t.u("retransmits", x.retransmits);
            t.u("timeouts", x.timeouts);
            t.u("retired", x.retired);
        }
        t.build()
    }

    /// Collect the result tables (the time series are moved out of the world, not copied).
    pub fn output(&mut self) -> (Table, Table, Table, Table, Table) {
        let dur = self.spec.sim.duration;
        let mut flows = TableBuilder::new(FLOW_COLUMNS);
        for (i, f) in self.flows.iter() {
            if f.generator
                .is_some_and(|g| self.generators[g as usize].spec.record == "summary")
            {
                continue;
            }
            let s = &f.sender;
            let (mss, delivered, sent) = match &f.cbr {
                Some(c) => (c.packet as u64, c.received, c.next_seq),
                None => (f.spec.tcp.mss as u64, f.receiver.delivered(), s.stats.segments_sent),
            };
            let start = f.spec.start;
            let completion = s.stats.completion.map(to_secs);
            let end = completion.unwrap_or(dur);
            let goodput = if end > start {
                (delivered * mss * 8) as f64 / (end - start)
            } else {
                0.0
            };
            flows.u("flow", i as u64);
            flows.s("name", &f.spec.name);
            flows.s("src", &f.spec.src);
            flows.s("dst", &f.spec.dst);
            let udp = f.cbr.is_some();
            flows.s("transport", &f.spec.transport);
            flows.s(
                "generator",
                f.generator
                    .map_or("", |g| self.generators[g as usize].spec.name.as_str()),
            );
            flows.s("cc", if udp { "" } else { &f.spec.cc });
            flows.s("cc_final", if udp { "" } else { s.cc.name() });
            flows.f("start", start);
            flows.f("stop", f.spec.stop.unwrap_or(f64::NAN));
            flows.f("size", f.spec.size.map_or(f64::NAN, |x| x as f64));
            flows.u("segments_sent", sent);
            flows.u("bytes_sent", if udp { sent * mss } else { sent * f.data_bytes as u64 });
            flows.u("retransmits", s.stats.retransmits);
            flows.u("fast_retransmits", s.stats.fast_retransmits);
            flows.u("timeouts", s.stats.timeouts);
            flows.u("delivered_segments", delivered);
            flows.u("delivered_bytes", delivered * mss);
            flows.u("duplicate_segments", f.receiver.duplicates);
            flows.u("acked_segments", s.snd_una);
            flows.f("completion_time", completion.map_or(f64::NAN, |c| c - start));
            flows.f("goodput_bps", goodput);
            flows.f("final_cwnd", s.st.cwnd);
            flows.f("final_ssthresh", s.st.ssthresh);
            flows.f("srtt", s.st.srtt);
            flows.f(
                "min_rtt",
                if s.st.min_rtt.is_finite() {
                    s.st.min_rtt
                } else {
                    f64::NAN
                },
            );
            flows.f("rto", s.current_rto());
            let init = f.init.filter(|_| !udp);
            flows.f("init_cwnd", init.map_or(f64::NAN, |i| i.cwnd));
            flows.f("init_ssthresh", init.map_or(f64::NAN, |i| i.ssthresh));
            flows.f("init_srtt", init.map_or(f64::NAN, |i| i.srtt));
            flows.f("init_rttvar", init.map_or(f64::NAN, |i| i.rttvar));
            flows.f("tcbi_parallel", f.tcbi_parallel.map_or(f64::NAN, |n| n as f64));
            flows.s(
                "tcbi_set",
                f.tcbi_set.map_or("", |s| self.sharing.sets[s as usize].key.as_str()),
            );
            flows.s("tcbi_source", f.tcbi_source.name());
        }
        let mut links = TableBuilder::new(LINK_COLUMNS);
        for (i, l) in self.links.iter().enumerate() {
            let ls = &self.spec.links[l.link as usize];
            links.u("link", i as u64);
            links.s("src", &self.spec.nodes[l.from as usize].name);
            links.s("dst", &self.spec.nodes[l.to as usize].name);
            links.f("rate_bps", ls.rate);
            links.f("delay", ls.delay);
            links.u("queue_limit", l.limit as u64);
            links.f("loss", l.loss);
            links.u("arrivals", l.arrivals);
            links.u("departures", l.delivered);
            links.u("drops_queue", l.drops_queue);
            links.u("drops_loss", l.drops_loss);
            links.u("in_system", l.in_system);
            let busy = to_secs(l.busy_until_end(self.end));
            links.f("busy_time", busy);
            links.f("utilisation", (busy / dur).min(1.0));
        }
        let s = std::mem::take(&mut self.series);
        let n = s.time.len();
        let mut fts = Table {
            columns: vec![
                ("time".into(), Column::F64(s.time)),
                ("flow".into(), Column::U64(s.flow)),
                ("cwnd".into(), Column::F64(s.cwnd)),
                ("ssthresh".into(), Column::F64(s.ssthresh)),
                ("srtt".into(), Column::F64(s.srtt)),
                ("rto".into(), Column::F64(s.rto)),
                ("rto_base".into(), Column::F64(s.rto_base)),
                ("flight".into(), Column::F64(s.flight)),
                ("delivered".into(), Column::U64(s.delivered)),
            ],
        };
        for (name, mut v) in s.extra {
            v.resize(n, f64::NAN);
            fts.columns.push((name.to_string(), Column::F64(v)));
        }
        let lts = Table {
            columns: vec![
                ("time".into(), Column::F64(s.link_time)),
                ("link".into(), Column::U64(s.link)),
                ("queue".into(), Column::F64(s.queue)),
            ],
        };
        let mut events = TableBuilder::new(EVENT_COLUMNS);
        for (i, f) in self.flows.iter() {
            for e in &f.sender.events {
                events.f("time", to_secs(e.time));
                events.u("flow", i as u64);
                events.s("event", e.name);
                events.f("value", e.value);
            }
        }
        (flows.build(), links.build(), fts, lts, events.build())
    }

    /// The per-interface LAN counters and the parallel-connection intervals (open
    /// intervals are closed at the end of the run).
    pub fn output_sharing(&self) -> (Table, Table) {
        let dur = self.spec.sim.duration;
        let (mut lan, mut member, mut address) = (vec![], vec![], vec![]);
        let (mut rate, mut delay, mut limit, mut loss) = (vec![], vec![], vec![], vec![]);
        let (mut arr, mut dep, mut dq, mut dl, mut ins) = (vec![], vec![], vec![], vec![], vec![]);
        let (mut busy, mut util) = (vec![], vec![]);
        let (mut coll, mut dcoll) = (vec![], vec![]);
        for (k, l) in self.lans.iter().enumerate() {
            let ls = &self.spec.lans[k];
            for f in &l.ifaces {
                lan.push(ls.name.clone());
                let node = &self.spec.nodes[f.node as usize];
                member.push(node.name.clone());
                address.push(node.address.clone());
                rate.push(ls.rate);
                delay.push(ls.delay);
                limit.push(ls.queue as u64);
                loss.push(ls.loss);
                arr.push(f.arrivals);
                dep.push(f.departures);
                dq.push(f.drops_queue);
                dl.push(f.drops_loss);
                ins.push(f.in_system);
                let b = to_secs(f.busy_ns);
                busy.push(b);
                util.push((b / dur).min(1.0));
                coll.push(f.collisions);
                dcoll.push(f.drops_collision);
            }
        }
        let lans = Table {
            columns: vec![
                ("lan".into(), Column::Str(lan)),
                ("member".into(), Column::Str(member)),
                ("address".into(), Column::Str(address)),
                ("rate_bps".into(), Column::F64(rate)),
                ("delay".into(), Column::F64(delay)),
                ("queue_limit".into(), Column::U64(limit)),
                ("loss".into(), Column::F64(loss)),
                ("arrivals".into(), Column::U64(arr)),
                ("departures".into(), Column::U64(dep)),
                ("drops_queue".into(), Column::U64(dq)),
                ("drops_loss".into(), Column::U64(dl)),
                ("in_system".into(), Column::U64(ins)),
                ("busy_time".into(), Column::F64(busy)),
                ("utilisation".into(), Column::F64(util)),
                ("collisions".into(), Column::U64(coll)),
                ("drops_collision".into(), Column::U64(dcoll)),
            ],
        };
        let mut iv = self.sharing.intervals.clone();
        let flows = &self.flows;
        iv.close_all(to_secs(self.end), |g| Self::acked_bytes(&flows[g as usize]));
        let sets = &self.sharing.sets;
        let col_s = |f: &dyn Fn(&crate::share::intervals::IntervalRow) -> String| iv.rows.iter().map(f).collect();
        let intervals = Table {
            columns: vec![
                (
                    "host".into(),
                    Column::Str(col_s(&|r| {
                        self.spec.nodes[sets[r.set as usize].host as usize].name.clone()
                    })),
                ),
                ("set".into(), Column::Str(col_s(&|r| sets[r.set as usize].key.clone()))),
                (
                    "interval".into(),
                    Column::U64(iv.rows.iter().map(|r| r.interval).collect()),
                ),
                ("t0".into(), Column::F64(iv.rows.iter().map(|r| r.t0).collect())),
                ("t1".into(), Column::F64(iv.rows.iter().map(|r| r.t1).collect())),
                ("n".into(), Column::U64(iv.rows.iter().map(|r| r.n as u64).collect())),
                (
                    "flow".into(),
                    Column::U64(iv.rows.iter().map(|r| r.flow as u64).collect()),
                ),
                ("name".into(), Column::Str(col_s(&|r| flows.name(r.flow).to_string()))),
                (
                    "acked_bytes".into(),
                    Column::U64(iv.rows.iter().map(|r| r.acked_bytes).collect()),
                ),
            ],
        };
        (lans, intervals)
    }

    pub fn packets_forwarded(&self) -> u64 {
        self.links.iter().map(|l| l.delivered).sum::<u64>()
            + self
                .lans
                .iter()
                .flat_map(|l| l.ifaces.iter())
                .map(|f| f.departures)
                .sum::<u64>()
    }

    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// The type of a declared column.
#[derive(Clone, Copy)]
enum Col {
    F,
    U,
    S,
}

const FLOW_COLUMNS: &[(&str, Col)] = &[
    ("flow", Col::U),
    ("name", Col::S),
    ("src", Col::S),
    ("dst", Col::S),
    ("transport", Col::S),
    ("generator", Col::S),
    ("cc", Col::S),
    ("cc_final", Col::S),
    ("start", Col::F),
    ("stop", Col::F),
    ("size", Col::F),
    ("segments_sent", Col::U),
    ("bytes_sent", Col::U),
    ("retransmits", Col::U),
    ("fast_retransmits", Col::U),
    ("timeouts", Col::U),
    ("delivered_segments", Col::U),
    ("delivered_bytes", Col::U),
    ("duplicate_segments", Col::U),
    ("acked_segments", Col::U),
    ("completion_time", Col::F),
    ("goodput_bps", Col::F),
    ("final_cwnd", Col::F),
    ("final_ssthresh", Col::F),
    ("srtt", Col::F),
    ("min_rtt", Col::F),
    ("rto", Col::F),
    ("init_cwnd", Col::F),
    ("init_ssthresh", Col::F),
    ("init_srtt", Col::F),
    ("init_rttvar", Col::F),
    ("tcbi_parallel", Col::F),
    ("tcbi_set", Col::S),
    ("tcbi_source", Col::S),
];

const LINK_COLUMNS: &[(&str, Col)] = &[
    ("link", Col::U),
    ("src", Col::S),
    ("dst", Col::S),
    ("rate_bps", Col::F),
    ("delay", Col::F),
    ("queue_limit", Col::U),
    ("loss", Col::F),
    ("arrivals", Col::U),
    ("departures", Col::U),
    ("drops_queue", Col::U),
    ("drops_loss", Col::U),
    ("in_system", Col::U),
    ("busy_time", Col::F),
    ("utilisation", Col::F),
];

const EVENT_COLUMNS: &[(&str, Col)] = &[("time", Col::F), ("flow", Col::U), ("event", Col::S), ("value", Col::F)];

const GENERATOR_COLUMNS: &[(&str, Col)] = &[
    ("generator", Col::S),
    ("kind", Col::S),
    ("record", Col::S),
    ("src", Col::S),
    ("dst", Col::S),
    ("created", Col::U),
    ("completed", Col::U),
    ("completed_segments", Col::U),
    ("completed_duration", Col::F),
    ("sum_rate", Col::F),
    ("delivered_bytes", Col::U),
    ("segments_sent", Col::U),
    ("retransmits", Col::U),
    ("timeouts", Col::U),
    ("retired", Col::U),
];

/// Builds a table row by row. The columns are declared up front, so a table without rows
/// still has them all; each row fills them by name.
struct TableBuilder {
    cols: Vec<(String, Column)>,
    next: usize,
}

impl TableBuilder {
    fn new(schema: &[(&str, Col)]) -> TableBuilder {
        let cols = schema
            .iter()
            .map(|&(name, col)| {
                let empty = match col {
                    Col::F => Column::F64(Vec::new()),
                    Col::U => Column::U64(Vec::new()),
                    Col::S => Column::Str(Vec::new()),
                };
                (name.to_string(), empty)
            })
            .collect();
        TableBuilder { cols, next: 0 }
    }

    fn slot(&mut self, name: &str) -> &mut Column {
        let i = if self.cols.get(self.next).is_some_and(|(n, _)| n == name) {
            self.next
        } else {
            let found = self.cols.iter().position(|(n, _)| n == name);
            found.unwrap_or_else(|| panic!("column {name} is not declared"))
        };
        self.next = i + 1;
        &mut self.cols[i].1
    }

    fn f(&mut self, name: &str, v: f64) {
        match self.slot(name) {
            Column::F64(c) => c.push(v),
            _ => panic!("column {name} is not f64"),
        }
    }
    fn u(&mut self, name: &str, v: u64) {
        match self.slot(name) {
            Column::U64(c) => c.push(v),
            _ => panic!("column {name} is not u64"),
        }
    }
    fn s(&mut self, name: &str, v: &str) {
        match self.slot(name) {
            Column::Str(c) => c.push(v.to_string()),
            _ => panic!("column {name} is not str"),
        }
    }
    fn build(self) -> Table {
        Table { columns: self.cols }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupt_during_the_set_up_stops_it_with_a_simulation_error() {
        let json = r#"{"sim": {"duration": 1},
            "dumbbell": {"pairs": 10, "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
                         "access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [{"src": "s{i}", "dst": "d{i}", "count": 10}]}"#;
        let spec = crate::scenario::parse(json).unwrap();
        let mut calls = 0;
        let mut stop = |_: f64, _: f64, _: u64| {
            calls += 1;
            false
        };
        let mut reporter = Reporter::new(Some(&mut stop));
        reporter.interval = 0.0; // report at every opportunity
        let r = World::build(spec.clone(), 1, &mut reporter);
        assert_eq!(r.err(), Some(Error::Simulation("interrupted during the set-up".into())));
        assert_eq!(calls, 1, "stopped at the first report");
        let mut go_on = |now: f64, end: f64, events: u64| {
            assert_eq!((now, end, events), (0.0, 1.0, 0));
            true
        };
        let mut reporter = Reporter::new(Some(&mut go_on));
        reporter.interval = 0.0;
        assert!(World::build(spec, 1, &mut reporter).is_ok());
    }
}
