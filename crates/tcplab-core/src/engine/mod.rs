//! The world: the components built from a normalised spec (`build.rs`) and wired together
//! (`dispatch.rs`), run by the kernel's loop, and asked for their results.
//!
//! Data flows one way: spec → validated, normalised spec (`scenario/`) → components
//! (`net/`, `tcp/`, `traffic/`, `share/`, `observe/`) → the event loop (`sim/`) →
//! observations → tables (`observe/`).
mod build;
mod dispatch;
mod inspect;

use crate::api::{Error, Table};
use crate::observe;
use crate::scenario::Spec;
use crate::sim::{Kernel, Reporter};
pub use dispatch::Components;
pub use inspect::{intern, sport, DPORT, UNCLASSIFIED};

/// Every table of a run and its packet captures ([`World::into_output`]).
pub struct Output {
    pub flows: Table,
    pub links: Table,
    pub flow_ts: Table,
    pub link_ts: Table,
    pub events: Table,
    pub lans: Table,
    pub parallel_intervals: Table,
    pub generators: Table,
    pub drops: Table,
    pub pcaps: Vec<(String, Vec<u8>)>,
}

pub struct World {
    spec: Spec,
    seed: u64,
    k: Kernel,
    c: Components,
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
        self.k.run(&mut self.c, wall_limit, progress)?;
        if self.c.net.drop_trace.as_ref().is_some_and(|t| t.out_of_memory) {
            return Err("out of memory for the drop trace (sim.drop_trace); trace a shorter run".into());
        }
        if let Some(f) = self.c.traffic.cbr.trace_out_of_memory() {
            let name = &self.c.tcp.flows[f].spec.name;
            return Err(format!(
                "out of memory for the delay trace of flow {name:?} (delay_trace); trace a shorter run or fewer flows"
            ));
        }
        Ok(())
    }

    pub fn events(&self) -> u64 {
        self.k.q.processed()
    }

    /// Check the conservation invariants; returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let c = &self.c;
        let mut in_links = 0;
        for (i, l) in c.net.links.iter().enumerate() {
            let down = l.changing().map_or(0, |ch| ch.drops_down);
            if l.arrivals != l.delivered + l.drops_queue + l.drops_loss + down + l.in_system {
                return Err(format!("link direction {i}: arrivals != delivered + drops + in system"));
            }
            in_links += l.in_system;
        }
        for (k, lan) in c.net.lans.iter().enumerate() {
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
        let live = c.net.pool.live() as u64;
        if in_links + c.tcp.injecting != live {
            return Err(format!(
                "{in_links} packets in links and {} at senders but {live} live in the pool",
                c.tcp.injecting
            ));
        }
        for (i, f) in c.tcp.flows.iter() {
            if let Some(u) = c.traffic.cbr.get(i).filter(|_| f.udp) {
                if u.received > u.next_seq {
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

    /// One row per generator: the flows it created and what its completed flows add up to.
    pub fn output_generators(&self) -> Table {
        observe::generators_table(&self.c.traffic.generators)
    }

    /// Collect the result tables: flows, links, flow_ts, link_ts, events (the time series
    /// and the senders' events are moved out of the world, not copied: call it once).
    pub fn output(&mut self) -> (Table, Table, Table, Table, Table) {
        let c = &mut self.c;
        let flows = observe::flows_table(&c.tcp.flows, &c.traffic, &c.share.tcbi, self.spec.sim.duration);
        let links = observe::links_table(&c.net, &self.spec, self.k.end);
        let (fts, lts) = c.obs.series.take_tables();
        (
            flows,
            links,
            fts,
            lts,
            observe::events_table(
                &mut c.tcp.flows,
                &mut c.traffic.cbr,
                &mut c.traffic.generators,
                (!self.spec.link_changes.is_empty()).then_some(&c.net.change_log[..]),
            ),
        )
    }

    /// Every result table and the packet captures, taking the world apart as they are
    /// built, so that a large run does not hold its state and its tables at once: the
    /// small tables first; then the links table, freeing the link directions once their
    /// counters are copied, then the network and the spec; then the flows table, freeing
    /// each flow after its row (its spec, no longer shared, gives the row its names).
    pub fn into_output(self) -> Output {
        let World { spec, k, mut c, .. } = self;
        let end = k.end;
        drop(k);
        let events = observe::events_table(
            &mut c.tcp.flows,
            &mut c.traffic.cbr,
            &mut c.traffic.generators,
            (!spec.link_changes.is_empty()).then_some(&c.net.change_log[..]),
        );
        let (flow_ts, link_ts) = c.obs.series.take_tables();
        let pcaps = c.obs.capture.take();
        drop(c.obs);
        let lans = observe::lans_table(&c.net, &spec);
        let parallel_intervals = observe::intervals_table(&c.share.tcbi, &c.tcp.flows, &spec, end);
        let generators = observe::generators_table(&c.traffic.generators);
        let drops = observe::drops_table(&c.net, &spec);
        c.net.drop_trace = None;
        let duration = spec.sim.duration;
        let links = observe::links_table_consuming(std::mem::take(&mut c.net.links), spec, end);
        drop(c.net);
        let flows = observe::flows_table_consuming(c.tcp.flows, &c.traffic, &c.share.tcbi, duration);
        Output {
            flows,
            links,
            flow_ts,
            link_ts,
            events,
            lans,
            parallel_intervals,
            generators,
            drops,
            pcaps,
        }
    }

    /// The per-interface LAN counters and the parallel-connection intervals (open
    /// intervals are closed at the end of the run).
    pub fn output_sharing(&self) -> (Table, Table) {
        let c = &self.c;
        let lans = observe::lans_table(&c.net, &self.spec);
        let intervals = observe::intervals_table(&c.share.tcbi, &c.tcp.flows, &self.spec, self.k.end);
        (lans, intervals)
    }

    /// The captured pcap files: (name "a-b", bytes), moved out of the world.
    pub fn pcaps(&mut self) -> Vec<(String, Vec<u8>)> {
        self.c.obs.capture.take()
    }

    pub fn packets_forwarded(&self) -> u64 {
        self.c.net.packets_forwarded()
    }

    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `into_output` (what runs use: it frees the world as it goes and moves names into the
    /// flows table) gives exactly the tables of the borrowing methods.
    #[test]
    fn into_output_gives_the_tables_of_the_borrowing_methods() {
        let json = r#"{"sim": {"duration": "8s", "sample_interval": "500ms"},
            "nodes": [{"name": "tcbi", "address": "10.0.1.1", "tcbi": {"controller": "mv", "prefix": 24}},
                {"name": "bs1", "address": "10.0.1.2"}, {"name": "ra", "kind": "router"},
                {"name": "rb", "kind": "router"}, {"name": "r1", "address": "10.0.2.1"},
                {"name": "r2", "address": "10.0.2.2"}, {"name": "br1"}],
            "links": [{"a": "ra", "b": "rb", "rate": "100Mb/s", "delay": "10ms", "queue": 20, "loss": 0.01},
                {"a": "rb", "b": "br1", "rate": "100Mb/s", "delay": "0.25ms",
                 "queue": {"type": "red", "min_th": 3, "max_th": 9, "limit": 20}}],
            "lans": [{"name": "lan1", "members": ["tcbi", "bs1", "ra"], "rate": "10Mb/s", "delay": 5e-07, "queue": 20},
                {"name": "lan2", "members": ["r1", "r2", "rb"], "rate": "10Mb/s", "delay": 5e-07, "queue": 20}],
            "flows": [{"name": "bulk{i}", "src": "tcbi", "dst": "r2", "count": 2, "start": [0, 1]},
                {"src": "br1", "dst": "bs1", "size": 40, "cc": "rfs", "tcp": {"send_jitter": "1ms"}},
                {"src": "r1", "dst": "br1", "transport": "udp", "rate": "1Mbps"}],
            "generators": [{"name": "pages", "kind": "sessions", "src": "tcbi", "dst": "r1", "record": "summary",
                "size": {"dist": "exponential", "mean": 30}, "pages": {"dist": "constant", "value": 3},
                "reading": {"dist": "exponential", "mean": 0.5}, "session_gap": {"dist": "constant", "value": 2.0}},
                {"name": "web", "kind": "poisson", "src": "bs1", "dst": "br1", "rate": 2,
                "size": {"dist": "constant", "value": 5}}],
            "pcap": [{"a": "ra", "b": "rb"}]}"#;
        let spec = crate::scenario::parse(json).unwrap();
        let (mut a, mut b) = (World::new(spec.clone(), 3).unwrap(), World::new(spec, 3).unwrap());
        a.run();
        b.run();
        let (flows, links, flow_ts, link_ts, events) = a.output();
        let (lans, parallel_intervals) = a.output_sharing();
        let (generators, pcaps) = (a.output_generators(), a.pcaps());
        assert!(flows.rows() > 5 && parallel_intervals.rows() > 0 && pcaps[0].1.len() > 1000);
        let out = b.into_output();
        assert_eq!(out.flows, flows);
        assert_eq!(out.links, links);
        assert_eq!((out.flow_ts, out.link_ts, out.events), (flow_ts, link_ts, events));
        assert_eq!((out.lans, out.parallel_intervals), (lans, parallel_intervals));
        assert_eq!((out.generators, out.pcaps), (generators, pcaps));
    }

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
