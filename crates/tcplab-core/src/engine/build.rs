//! Building a world from a normalised spec: the network, the routes, the flows and
//! generators, the observers, and the first events, component by component.
use super::{Components, World};
use crate::api::Error;
use crate::net::{topology, Change, DropTrace, EntryTap, NetEv, Network, Route, Router};
use crate::observe::{Capture, Observer};
use crate::scenario::Spec;
use crate::share::Share;
use crate::sim::{secs, Kernel, Reporter, NEVER};
use crate::tcp::{TcpEv, Transport};
use crate::traffic::{Cbr, Generators, Traffic};
use std::collections::HashMap;

fn interrupted() -> Error {
    Error::Simulation("interrupted during the set-up".into())
}

impl World {
    pub(super) fn build(spec: Spec, seed: u64, reporter: &mut Reporter) -> Result<World, Error> {
        let node_index: HashMap<&str, u32> = spec
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), i as u32))
            .collect();
        let (mut net, graph) = topology::build(&spec, seed, &node_index);
        link_changes(&spec, &node_index, &mut net);
        let end_secs = spec.sim.duration;
        let mut tick = || reporter.tick(0.0, end_secs, 0);
        let mut routes = routes(&spec, &node_index, &graph, &mut tick)?.into_iter();
        // The set-up's temporaries go before the flows are built (their memory is reused).
        drop(graph);
        let capture = Capture::new(&spec, &node_index, &net);
        if spec.sim.drop_trace {
            net.drop_trace = Some(DropTrace::default());
        }
        if let Some(hops) = capture.entry_hops() {
            net.entry_tap = Some(Box::new(EntryTap {
                hops,
                offered: Vec::new(),
            }));
        }
        drop(node_index);
        let mut route = |what: &str| -> Result<Route, Error> {
            let (fwd, rev) = (routes.next().flatten(), routes.next().flatten());
            let fwd = fwd.ok_or_else(|| Error::Scenario(format!("{what}: no route")))?;
            let rev = rev.ok_or_else(|| Error::Scenario(format!("{what}: no route back")))?;
            if fwd.len() > u16::MAX as usize || rev.len() > u16::MAX as usize {
                return Err(Error::Scenario(format!("{what}: path too long")));
            }
            Ok(Route { fwd, rev })
        };
        let mut share = Share::new(&spec.nodes, net.hops());
        let mut tcp = Transport::new(spec.flows.len(), seed);
        for (i, f) in spec.flows.iter().enumerate() {
            let r = net.add_route(route(&format!("flows[{i}]"))?);
            tcp.open(f.clone(), r, None, true, &mut net, &mut share)
                .map_err(Error::Scenario)?;
            if i % 4096 == 4095 && !tick() {
                return Err(interrupted());
            }
        }
        let mut generators = Generators::new();
        for (i, g) in spec.generators.iter().enumerate() {
            let r = net.add_route(route(&format!("generators[{i}]"))?);
            let mut pair_routes = Vec::new();
            if let Some(w) = &g.web {
                // Per (client, server) pair: the request's route, then the response's.
                for _ in 0..w.clients.len() * w.servers.len() {
                    let response = route(&format!("generators[{i}]"))?;
                    let request = Route {
                        fwd: response.rev.clone(),
                        rev: response.fwd.clone(),
                    };
                    pair_routes.push(net.add_route(request));
                    pair_routes.push(net.add_route(response));
                }
            }
            generators
                .add(g.clone(), r, pair_routes, seed)
                .ok_or_else(|| Error::Scenario(format!("generators[{i}]: no traffic model of kind {}", g.kind)))?;
        }
        drop(routes);
        let obs = Observer::new(capture, spec.sim.sample_interval);
        let traffic = Traffic {
            cbr: Cbr::new(&spec.flows),
            generators,
        };
        // An event at NEVER stays beyond the end even when the duration is not representable.
        let k = Kernel::new(secs(spec.sim.duration).min(NEVER - 1));
        let c = Components {
            net,
            tcp,
            traffic,
            share,
            obs,
        };
        let mut w = World { spec, seed, k, c };
        w.schedule_first_events();
        Ok(w)
    }

    /// The link changes; generators' first wake-ups; every flow's start, stop and algorithm switches (a UDP
    /// source's rate steps and stop); the first sample.
    fn schedule_first_events(&mut self) {
        let (k, c) = (&mut self.k, &mut self.c);
        // First: a link change at time t applies before anything else at t.
        for (i, &(t, _, _)) in c.net.changes.iter().enumerate() {
            k.q.at(t, NetEv::LinkChange(i as u32));
        }
        c.traffic.generators.schedule_first(&mut k.q);
        for (i, f) in c.tcp.flows.iter() {
            if f.udp {
                c.traffic.cbr.schedule_flow(i, f.spec.stop, &mut k.q);
                continue;
            }
            let i = i as u32;
            k.q.at(secs(f.spec.start), TcpEv::Start(i));
            if let Some(s) = f.spec.stop {
                k.q.at(secs(s), TcpEv::Stop(i));
            }
            for (n, s) in f.spec.switch.iter().enumerate() {
                k.q.at(secs(s.at), TcpEv::Switch(i, n as u32));
            }
            if let Some(h) = &f.spec.handoff {
                let freeze = f.sender.cc.handoff() == crate::cc::Handoff::Freeze;
                for (n, e) in h.events.iter().enumerate() {
                    k.q.at(secs(e.at), TcpEv::Handoff(i, n as u32));
                    if let (true, Some(d)) = (freeze, e.disconnect) {
                        // The mobile host first looks max_rto ahead; from there it follows
                        // the connection's RTT estimate to the zero-window time.
                        let first = (d + h.freeze_offset - f.spec.tcp.max_rto).max(0.0);
                        k.q.at(secs(first), TcpEv::Freeze(i, n as u32));
                    }
                }
            }
        }
        c.obs.schedule_first(k);
    }
}

/// The spec's link changes as (direction, change) in `net.changes` (one per direction and
/// field, in spec order: changes at one time apply in that order), their directions made
/// changing.
fn link_changes(spec: &Spec, node_index: &HashMap<&str, u32>, net: &mut Network) {
    for c in &spec.link_changes {
        for (from, to) in c.directions() {
            let hop = net
                .links
                .iter()
                .position(|l| l.from == node_index[from] && l.to == node_index[to])
                .expect("a validated link") as u32;
            net.links[hop as usize].make_changing();
            let mut push = |ch: Change| {
                net.changes.push((secs(c.at), hop, ch));
            };
            if let Some(d) = c.delay {
                push(Change::Delay(secs(d)));
            }
            if let Some(r) = c.rate {
                push(Change::Rate(r));
            }
            if let Some(n) = c.queue {
                push(Change::Queue(n));
            }
            if let Some(x) = c.loss {
                push(Change::Loss(x));
            }
            match c.state.as_deref() {
                Some("down") => push(Change::Down {
                    keep: c.queued.as_deref() != Some("drop"),
                }),
                Some("up") => push(Change::Up),
                _ => {}
            }
        }
    }
}

/// Both directions of every flow's and generator's path, found together: forward and
/// back for each, in spec order.
fn routes(
    spec: &Spec,
    node_index: &HashMap<&str, u32>,
    graph: &topology::Graph,
    tick: &mut dyn FnMut() -> bool,
) -> Result<Vec<Option<Vec<u32>>>, Error> {
    let ends = spec
        .flows
        .iter()
        .map(|f| (&*f.src, &*f.dst))
        .chain(spec.generators.iter().flat_map(|g| {
            // A web generator's (server, client) pairs follow its own ends, client-major.
            let clouds = g.web.iter().flat_map(|w| {
                w.clients
                    .iter()
                    .flat_map(|c| w.servers.iter().map(move |s| (s.as_str(), c.as_str())))
            });
            std::iter::once((g.src.as_str(), g.dst.as_str())).chain(clouds)
        }));
    let mut pairs = Vec::new();
    for (a, b) in ends {
        let (src, dst) = (node_index[a], node_index[b]);
        pairs.push((src, dst));
        pairs.push((dst, src));
    }
    Router::new(&graph.adj, &graph.cost)
        .routes(&pairs, tick)
        .map_err(|_| interrupted())
}
