//! Flow generators: run-time sources of sized TCP transfers between two nodes. The
//! generator's traffic [`Model`] says when to open flows and how large; the generator
//! names them, checks `stop` and `max_flows`, and adds up what its completed flows did
//! (the generators table).
use super::{Model, Plan, TrafficEv};
use crate::scenario::{FlowCommon, FlowSpec, GeneratorSpec};
use crate::sim::{secs, to_secs, Queue, Rng, Time};
use std::collections::HashMap;
use std::sync::Arc;

/// What a completed flow tells its generator.
#[derive(Debug, Clone, Copy)]
pub struct FlowDone {
    /// The model's tag of the flow, if it tagged it.
    pub tag: Option<u32>,
    pub segments: u64,
    /// Completion time (s).
    pub duration: f64,
    pub delivered_bytes: u64,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
}

/// What a generator's completed flows add up to (the generators table).
#[derive(Debug, Default)]
pub struct GeneratorTotals {
    pub completed: u64,
    pub segments: u64,
    /// Σ completion time (s)
    pub duration: f64,
    /// Σ size/completion time (segments/s)
    pub rate: f64,
    pub delivered_bytes: u64,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    /// Completed flows whose state was freed (summary generators).
    pub retired: u64,
}

pub struct Generator {
    pub spec: GeneratorSpec,
    /// The network route its flows take.
    pub route: u32,
    /// The routes a model picks by index (`Step::Send`): packmime's per (client, server)
    /// pair, requests then responses. Empty for the other kinds.
    pub routes: Vec<u32>,
    /// The (source, destination) nodes of its flows: first its own (`next_flow`), then
    /// those of every route `routes` lists, in that order (`next_transfer`).
    ends: Vec<(Arc<str>, Arc<str>)>,
    rng: Rng,
    pub model: Box<dyn Model>,
    pub created: u64,
    pub totals: GeneratorTotals,
    /// The options of its flows by shape (segments, segment size, handshake), shared by
    /// the flows of one shape: a web model opens millions of transfers but draws few
    /// shapes (the full web background about 13 000 in 10 s, 20 000 in 60 s), and building
    /// each transfer's options and freeing them cost more than the rest of its set-up.
    shapes: HashMap<(u64, u32, bool), Arc<FlowCommon>>,
}

/// Shapes a generator keeps (about 600 bytes each); it forgets them all when it has this
/// many, so that a size distribution with a long tail cannot grow them without bound.
const SHAPES: usize = 1 << 14;

pub struct Generators {
    pub list: Vec<Generator>,
    plan: Plan,
}

impl Generator {
    /// The options of its flows of `shape` (segments, segment size, handshake).
    fn options(&mut self, shape: (u64, u32, bool)) -> Arc<FlowCommon> {
        if let Some(common) = self.shapes.get(&shape) {
            return Arc::clone(common);
        }
        if self.shapes.len() >= SHAPES {
            self.shapes.clear();
        }
        let (size, mss, handshake) = shape;
        let mut tcp = self.spec.tcp.clone();
        tcp.mss = mss;
        tcp.handshake = handshake;
        let common = Arc::new(FlowCommon {
            cc: self.spec.cc.clone(),
            cc_params: self.spec.cc_params.clone(),
            stop: None,
            size: Some(size),
            switch: Vec::new(),
            tcp,
            transport: "tcp".into(),
            packet: None,
            rate_schedule: None,
            interval: None,
            direction: None,
            delay_stats: false,
            delay_trace: false,
            handoff: None,
            kentridge: self.spec.kentridge.clone(),
        });
        self.shapes.insert(shape, Arc::clone(&common));
        common
    }
}

impl Generators {
    pub fn new() -> Generators {
        Generators {
            list: Vec::new(),
            plan: Plan::default(),
        }
    }

    /// Add a generator whose flows take `route` (or, for a model that picks, one of
    /// `routes`); `None` if its kind has no model.
    pub fn add(&mut self, spec: GeneratorSpec, route: u32, routes: Vec<u32>, seed: u64) -> Option<()> {
        let mut ends = vec![(spec.src.as_str().into(), spec.dst.as_str().into())];
        if let Some(web) = &spec.web {
            ends.extend((0..routes.len()).map(|route| {
                let (pair, response) = (route / 2, route % 2 == 1);
                let servers = web.servers.len();
                let client: Arc<str> = web.clients[pair / servers].as_str().into();
                let server: Arc<str> = web.servers[pair % servers].as_str().into();
                if response {
                    (server, client)
                } else {
                    (client, server)
                }
            }));
        }
        self.list.push(Generator {
            rng: Rng::stream(seed, &format!("generator:{}", spec.name)),
            ends,
            model: super::model(&spec)?,
            spec,
            route,
            routes,
            created: 0,
            totals: GeneratorTotals::default(),
            shapes: HashMap::new(),
        });
        Some(())
    }

    /// Schedule every generator's first wake-up.
    pub fn schedule_first(&mut self, q: &mut Queue) {
        for (g, gen) in self.list.iter_mut().enumerate() {
            let first = gen.model.first(&gen.spec, &mut gen.rng);
            q.at(secs(first), TrafficEv::GenTick(g as u32));
        }
    }

    /// Generator `g` wakes up at `now`: the steps its model asks for (empty once it has
    /// stopped or created `max_flows` flows). Give the buffer back with [`Generators::done_with`].
    pub fn wake(&mut self, now: Time, g: u32) -> Plan {
        let mut plan = std::mem::take(&mut self.plan);
        let gen = &mut self.list[g as usize];
        let stopped = gen.spec.stop.is_some_and(|s| now >= secs(s));
        if !stopped && gen.spec.max_flows.is_none_or(|m| gen.created < m) {
            gen.model.on_wake(now, &gen.spec, &mut gen.rng, &mut plan);
        }
        plan
    }

    /// Generator `g`'s timer for `tag` fired: the steps its model asks for (whether or not
    /// the generator has stopped: a connection under way goes on).
    pub fn timer(&mut self, now: Time, g: u32, tag: u32) -> Plan {
        let mut plan = std::mem::take(&mut self.plan);
        let gen = &mut self.list[g as usize];
        gen.model.on_timer(now, &gen.spec, &mut gen.rng, tag, &mut plan);
        plan
    }

    pub fn done_with(&mut self, mut plan: Plan) {
        plan.steps.clear();
        self.plan = plan;
    }

    /// The spec of generator `g`'s next flow, of `size` segments, opened at `now`, and the
    /// route it takes.
    pub fn next_flow(&mut self, now: Time, g: u32, size: u64) -> (Arc<FlowSpec>, u32) {
        let gen = &self.list[g as usize];
        let (mss, handshake, route) = (gen.spec.tcp.mss, gen.spec.tcp.handshake, gen.route);
        (self.flow_spec(now, g, 0, (size, mss, handshake)), route)
    }

    /// The spec of a transfer of exactly `bytes` bytes of generator `g` on its route number
    /// `route`, opened at `now`, and the network route: ⌈bytes/mss⌉ segments of equal size;
    /// the handshake only if the transfer `opens` its connection.
    pub fn next_transfer(&mut self, now: Time, g: u32, bytes: u64, route: u32, opens: bool) -> (Arc<FlowSpec>, u32) {
        let gen = &self.list[g as usize];
        assert!(gen.spec.web.is_some(), "only web generators send tagged transfers");
        let handshake = gen.spec.tcp.handshake && opens;
        let bytes = bytes.max(1);
        let segments = bytes.div_ceil(gen.spec.tcp.mss as u64);
        let mss = bytes.div_ceil(segments) as u32;
        let net_route = gen.routes[route as usize];
        (
            self.flow_spec(now, g, 1 + route as usize, (segments, mss, handshake)),
            net_route,
        )
    }

    /// The spec of generator `g`'s next flow, between its `ends`-th pair of nodes, of
    /// `shape` (segments, segment size, handshake).
    fn flow_spec(&mut self, now: Time, g: u32, ends: usize, shape: (u64, u32, bool)) -> Arc<FlowSpec> {
        let gen = &mut self.list[g as usize];
        let (src, dst) = &gen.ends[ends];
        let spec = FlowSpec {
            name: instance_name(&gen.spec.name, gen.created),
            src: Arc::clone(src),
            dst: Arc::clone(dst),
            start: to_secs(now),
            common: gen.options(shape),
        };
        gen.created += 1;
        Arc::new(spec)
    }

    /// The whole of generator `g`'s flow tagged `tag` reached its receiver at `now`: the
    /// model hears it (and may set a timer).
    pub fn flow_received(&mut self, now: Time, g: u32, tag: u32, q: &mut Queue) {
        let gen = &mut self.list[g as usize];
        if let Some(at) = gen.model.on_received(now, &gen.spec, &mut gen.rng, tag) {
            q.at(at, TrafficEv::GenTimer(g, tag));
        }
    }

    /// A flow of generator `g` completed at `now`: add it to the totals and let the model
    /// schedule the next wake-up. Returns true if the flow's state may be freed once its
    /// last packets left (`record = "summary"`).
    pub fn flow_done(&mut self, now: Time, g: u32, d: &FlowDone, q: &mut Queue) -> bool {
        let gen = &mut self.list[g as usize];
        let t = &mut gen.totals;
        t.completed += 1;
        t.segments += d.segments;
        t.duration += d.duration;
        if d.duration > 0.0 {
            t.rate += d.segments as f64 / d.duration;
        }
        t.delivered_bytes += d.delivered_bytes;
        t.segments_sent += d.segments_sent;
        t.retransmits += d.retransmits;
        t.timeouts += d.timeouts;
        if d.tag.is_some() {
            return gen.spec.record == "summary";
        }
        if let Some(at) = gen.model.on_flow_done(now, &gen.spec, &mut gen.rng) {
            q.at(at, TrafficEv::GenTick(g));
        }
        gen.spec.record == "summary"
    }

    /// A completed flow of generator `g` was freed.
    pub fn flow_retired(&mut self, g: u32) {
        self.list[g as usize].totals.retired += 1;
    }

    /// Whether generator `g` keeps only totals (its flows get no rows in the flows table).
    pub fn summary_only(&self, g: u32) -> bool {
        self.list[g as usize].spec.record == "summary"
    }
}

/// `"{generator}:{k}"`, the name of a generator's k-th flow, written into one allocation
/// (`format!` costs several times more, and a web model names millions of them).
fn instance_name(generator: &str, k: u64) -> String {
    use std::fmt::Write;
    let mut name = String::with_capacity(generator.len() + 21);
    name.push_str(generator);
    let _ = write!(name, ":{k}");
    name
}

impl Default for Generators {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn instance_names_are_the_generator_colon_the_count() {
        for k in [0, 7, 10, 123_456, u64::MAX] {
            assert_eq!(super::instance_name("web_fwd0", k), format!("web_fwd0:{k}"));
        }
        assert_eq!(super::instance_name("", 42), ":42");
    }
}
