//! Flow generators: run-time sources of sized TCP transfers between two nodes, by kind:
//! Poisson arrivals, closed loop (a think time after each completion), WWW sessions
//! (pages, reading times, session gaps). A generator names its flows, checks `stop` and
//! `max_flows`, and adds up what its completed flows did (the generators table).
use super::{Plan, TrafficEv};
use crate::scenario::{FlowSpec, GeneratorSpec};
use crate::sim::{secs, to_secs, Queue, Rng, Time};

/// What a completed flow tells its generator.
#[derive(Debug, Clone, Copy)]
pub struct FlowDone {
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
    rng: Rng,
    pub created: u64,
    pages_left: u64,
    pub totals: GeneratorTotals,
}

pub struct Generators {
    pub list: Vec<Generator>,
    plan: Plan,
}

impl Generators {
    pub fn new() -> Generators {
        Generators {
            list: Vec::new(),
            plan: Plan::default(),
        }
    }

    /// Add a generator whose flows take `route`; `None` if its kind is unknown.
    pub fn add(&mut self, spec: GeneratorSpec, route: u32, seed: u64) -> Option<()> {
        if !["poisson", "closed", "sessions"].contains(&spec.kind.as_str()) {
            return None;
        }
        self.list.push(Generator {
            rng: Rng::stream(seed, &format!("generator:{}", spec.name)),
            spec,
            route,
            created: 0,
            pages_left: 0,
            totals: GeneratorTotals::default(),
        });
        Some(())
    }

    /// Schedule every generator's first wake-up.
    pub fn schedule_first(&mut self, q: &mut Queue) {
        for (g, gen) in self.list.iter_mut().enumerate() {
            let first = match gen.spec.kind.as_str() {
                "poisson" => gen.spec.start + gen.rng.exponential(1.0 / gen.spec.rate.unwrap_or(1.0)),
                _ => gen.spec.start,
            };
            q.at(secs(first), TrafficEv::GenTick(g as u32));
        }
    }

    /// Generator `g` wakes up at `now`: its steps (empty once it has stopped or created
    /// `max_flows` flows). Give the buffer back with [`Generators::done_with`].
    pub fn wake(&mut self, now: Time, g: u32) -> Plan {
        let mut plan = std::mem::take(&mut self.plan);
        let gen = &mut self.list[g as usize];
        if gen.spec.stop.is_some_and(|s| now >= secs(s)) || gen.spec.max_flows.is_some_and(|m| gen.created >= m) {
            return plan;
        }
        if gen.spec.kind == "poisson" {
            let gap = gen.rng.exponential(1.0 / gen.spec.rate.unwrap_or(1.0));
            plan.wake_at(now.saturating_add(secs(gap).max(1)));
        }
        if gen.spec.kind == "sessions" && gen.pages_left == 0 {
            let pages = gen.spec.pages.as_ref().map_or(1.0, |d| d.sample(&mut gen.rng));
            gen.pages_left = pages.round().max(1.0) as u64;
        }
        gen.pages_left = gen.pages_left.saturating_sub(1);
        plan.open_drawn(&gen.spec, &mut gen.rng);
        plan
    }

    pub fn done_with(&mut self, mut plan: Plan) {
        plan.steps.clear();
        self.plan = plan;
    }

    /// The spec of generator `g`'s next flow, of `size` segments, opened at `now`, and the
    /// route it takes.
    pub fn next_flow(&mut self, now: Time, g: u32, size: u64) -> (FlowSpec, u32) {
        let gen = &mut self.list[g as usize];
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
        (spec, gen.route)
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
        let wait = match gen.spec.kind.as_str() {
            "closed" => Some(gen.spec.think.as_ref().map_or(0.0, |d| d.sample(&mut gen.rng))),
            "sessions" if gen.pages_left > 0 => Some(gen.spec.reading.as_ref().map_or(0.0, |d| d.sample(&mut gen.rng))),
            "sessions" => Some(gen.spec.session_gap.as_ref().map_or(0.0, |d| d.sample(&mut gen.rng))),
            _ => None,
        };
        if let Some(wait) = wait {
            q.at(now.saturating_add(secs(wait.max(0.0))), TrafficEv::GenTick(g));
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

impl Default for Generators {
    fn default() -> Self {
        Self::new()
    }
}
