//! TCP control block interdependence (TCBI; Savorić, Karl, Wolisz; RFC 2140): a per-host
//! sharing service. The transport consults it through the hooks of [`Share`] (`hooks.rs`)
//! when a connection starts and informs it when a connection's srtt/rttvar change and when
//! it closes; the congestion-control algorithms know nothing about it, so it works with all
//! of them.
//!
//! - `hooks.rs`: the component the transport calls (TCBI, and the per-hop counts of active
//!   connections for the fair-share estimators);
//! - `controller.rs`: the MV and FS rules (pure functions);
//! - `aggregate.rs`: the aggregated srtt / rttvar of a set;
//! - `temporal.rs`: the cache of closed connections (our design);
//! - `intervals.rs`: the parallel-connection intervals reported in the results.
pub mod aggregate;
pub mod controller;
mod hooks;
pub mod intervals;
pub mod temporal;

use crate::scenario::{format_ipv4, parse_ipv4, NodeSpec};
use aggregate::Aggregate;
pub use controller::{Controller, Initial, Rtt, Window};
pub use hooks::{ConnShare, Share};
use std::collections::HashMap;
use temporal::{CacheEntry, Temporal};

/// Where a new connection's initial values came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Standard initialisation.
    None,
    /// From connections open in parallel (ensemble TCBI).
    Ensemble,
    /// From the cache of closed connections (temporal TCBI).
    Temporal,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::None => "none",
            Source::Ensemble => "ensemble",
            Source::Temporal => "temporal",
        }
    }
}

/// The TCBI configuration of one host.
#[derive(Debug, Clone)]
pub struct HostShare {
    pub controller: Controller,
    pub prefix: u8,
    pub temporal: Option<Temporal>,
    /// Masked destination address → set id.
    sets: HashMap<u32, u32>,
}

/// A connection set: one host's connections to one destination prefix.
#[derive(Debug, Clone)]
pub struct ConnSet {
    pub host: u32,
    /// "a.b.c.d/p"
    pub key: String,
    /// Open connections (flow ids) in the order they joined.
    pub members: Vec<u32>,
    pub srtt: Aggregate,
    pub rttvar: Aggregate,
    pub cache: Option<CacheEntry>,
}

impl ConnSet {
    fn aggregate(&self) -> Option<Rtt> {
        match (self.srtt.value, self.rttvar.value) {
            (Some(srtt), Some(rttvar)) => Some(Rtt { srtt, rttvar }),
            _ => None,
        }
    }
}

/// What the backplane does when a connection joins its set.
#[derive(Debug, Clone, PartialEq)]
pub struct StartDecision {
    /// Open connections of the set other than the new one (before it joined).
    pub parallel: usize,
    /// Initial values for the new connection; `None` = standard.
    pub initial: Option<Initial>,
    /// FS: cwnd/ssthresh (and srtt/rttvar) to assign to every existing member.
    pub existing: Option<Initial>,
    pub source: Source,
}

/// The sharing service of a world: the hosts' configurations and all connection sets.
#[derive(Debug, Default)]
pub struct Sharing {
    hosts: Vec<Option<HostShare>>,
    enabled: bool,
    pub sets: Vec<ConnSet>,
    pub intervals: intervals::Intervals,
}

/// `addr` with all but the first `prefix` bits cleared.
pub fn mask(addr: u32, prefix: u8) -> u32 {
    if prefix == 0 {
        0
    } else {
        addr & (u32::MAX << (32 - u32::from(prefix.min(32))))
    }
}

impl Sharing {
    pub fn new(nodes: &[NodeSpec]) -> Sharing {
        let hosts: Vec<Option<HostShare>> = nodes
            .iter()
            .map(|n| {
                n.tcbi.as_ref().map(|t| HostShare {
                    controller: Controller::from_name(&t.controller).expect("validated controller"),
                    prefix: t.prefix,
                    temporal: t.temporal.as_ref().map(|x| Temporal {
                        lifetime: x.lifetime,
                        linear: x.ageing == "linear",
                    }),
                    sets: HashMap::new(),
                })
            })
            .collect();
        let enabled = hosts.iter().any(Option::is_some);
        Sharing {
            enabled,
            // Without a sharing host, no per-node entries (`set_for` finds none).
            hosts: if enabled { hosts } else { Vec::new() },
            ..Default::default()
        }
    }

    /// A host with one configured controller for every node (tests).
    pub fn with_host(controller: Controller, prefix: u8, temporal: Option<Temporal>) -> Sharing {
        Sharing {
            hosts: vec![Some(HostShare {
                controller,
                prefix,
                temporal,
                sets: HashMap::new(),
            })],
            enabled: true,
            ..Default::default()
        }
    }

    /// Whether any host shares (asked for every flow that starts: kept, not recomputed).
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The set of a connection from `host` to the node with address `dst` (dotted quad),
    /// created on first use; `None` if the host has no TCBI configuration.
    pub fn set_for(&mut self, host: u32, dst: &str) -> Option<u32> {
        let h = self.hosts.get_mut(host as usize)?.as_mut()?;
        let net = mask(parse_ipv4(dst).expect("validated address"), h.prefix);
        if let Some(&s) = h.sets.get(&net) {
            return Some(s);
        }
        let id = self.sets.len() as u32;
        h.sets.insert(net, id);
        self.sets.push(ConnSet {
            host,
            key: format!("{}/{}", format_ipv4(net), h.prefix),
            members: Vec::new(),
            srtt: Aggregate::default(),
            rttvar: Aggregate::default(),
            cache: None,
        });
        Some(id)
    }

    fn host(&self, set: u32) -> &HostShare {
        let h = self.sets[set as usize].host;
        self.hosts[h as usize].as_ref().expect("sets belong to TCBI hosts")
    }

    pub fn members(&self, set: u32) -> &[u32] {
        &self.sets[set as usize].members
    }

    /// Connection `flow` starts in `set` at `now`. `existing` holds the current windows of
    /// the set's members (in `members` order); `standard` is the new connection's standard
    /// initial window. The connection joins the set.
    pub fn on_start(
        &mut self,
        now: f64,
        set: u32,
        flow: u32,
        existing: &[Window],
        standard: Window,
        initial_rto: f64,
    ) -> StartDecision {
        let h = self.host(set);
        let (controller, temporal) = (h.controller, h.temporal);
        let s = &mut self.sets[set as usize];
        debug_assert_eq!(existing.len(), s.members.len());
        let parallel = s.members.len();
        let mut d = StartDecision {
            parallel,
            initial: None,
            existing: None,
            source: Source::None,
        };
        match controller {
            Controller::None => {}
            _ if parallel > 0 => {
                let agg = s.aggregate();
                d.source = Source::Ensemble;
                if controller == Controller::MeanValue {
                    d.initial = Some(controller::mean_value(existing, agg, standard));
                } else {
                    let fs = controller::fair_share(existing, agg, standard);
                    d.initial = Some(fs);
                    d.existing = Some(fs);
                }
            }
            _ => {
                if let (Some(t), Some(e)) = (temporal, s.cache.as_ref()) {
                    if let Some(init) = t.lookup(e, now, standard, initial_rto) {
                        d.initial = Some(init);
                        d.source = Source::Temporal;
                    }
                }
            }
        }
        s.members.push(flow);
        d
    }

    /// A member's srtt and/or rttvar changed (`None`: that one did not). Only open members
    /// update the aggregates; n counts the updater.
    pub fn on_rtt_change(&mut self, set: u32, flow: u32, srtt: Option<f64>, rttvar: Option<f64>) {
        let s = &mut self.sets[set as usize];
        if !s.members.contains(&flow) {
            return;
        }
        let n = s.members.len();
        if let Some(v) = srtt {
            s.srtt.update(n, v);
        }
        if let Some(v) = rttvar {
            s.rttvar.update(n, v);
        }
    }

    /// Connection `flow` closes at `now` with its final window and RTT estimates (`None`
    /// if it never had a sample). It leaves the set; with temporal sharing its values are
    /// cached; an emptied set forgets its aggregates. Returns false if it was no member.
    pub fn on_close(&mut self, now: f64, set: u32, flow: u32, window: Window, rtt: Option<Rtt>) -> bool {
        let temporal = self.host(set).temporal.is_some();
        let s = &mut self.sets[set as usize];
        let Some(i) = s.members.iter().position(|&f| f == flow) else {
            return false;
        };
        s.members.remove(i);
        if temporal {
            s.cache = Some(CacheEntry { time: now, window, rtt });
        }
        if s.members.is_empty() {
            s.srtt.reset();
            s.rttvar.reset();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STD: Window = Window {
        cwnd: 2.0,
        ssthresh: 64.0,
    };

    fn w(cwnd: f64, ssthresh: f64) -> Window {
        Window { cwnd, ssthresh }
    }

    #[test]
    fn masks_and_set_keys() {
        assert_eq!(
            mask(parse_ipv4("10.0.2.77").unwrap(), 24),
            parse_ipv4("10.0.2.0").unwrap()
        );
        assert_eq!(mask(0xffff_ffff, 0), 0);
        assert_eq!(mask(0x0a00_0201, 32), 0x0a00_0201);
        let mut s = Sharing::with_host(Controller::MeanValue, 24, None);
        let a = s.set_for(0, "10.0.2.1").unwrap();
        let b = s.set_for(0, "10.0.2.9").unwrap();
        let c = s.set_for(0, "10.0.3.1").unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(s.sets[a as usize].key, "10.0.2.0/24");
        assert_eq!(s.set_for(1, "10.0.2.1"), None, "node without tcbi");
    }

    #[test]
    fn mv_start_uses_means_and_aggregates() {
        let mut s = Sharing::with_host(Controller::MeanValue, 32, None);
        let set = s.set_for(0, "10.0.0.5").unwrap();
        let d = s.on_start(0.0, set, 0, &[], STD, 3.0);
        assert_eq!((d.parallel, d.initial, d.source), (0, None, Source::None));
        s.on_rtt_change(set, 0, Some(0.1), Some(0.05));
        let d = s.on_start(1.0, set, 1, &[w(10.0, 64.0)], STD, 3.0);
        assert_eq!(d.parallel, 1);
        assert_eq!(d.source, Source::Ensemble);
        let i = d.initial.unwrap();
        assert_eq!(i.window, w(10.0, 64.0));
        assert_eq!(
            i.rtt,
            Some(Rtt {
                srtt: 0.1,
                rttvar: 0.05
            })
        );
        assert_eq!(d.existing, None, "MV leaves existing members alone");
        // n = 2 now: agg = 1/2·0.1 + 1/2·0.3
        s.on_rtt_change(set, 1, Some(0.3), None);
        assert!((s.sets[set as usize].srtt.value.unwrap() - 0.2).abs() < 1e-15);
        assert_eq!(s.sets[set as usize].rttvar.value, Some(0.05));
        // a closed connection no longer updates; an emptied set resets
        assert!(s.on_close(2.0, set, 0, w(12.0, 30.0), None));
        s.on_rtt_change(set, 0, Some(9.0), Some(9.0));
        assert!((s.sets[set as usize].srtt.value.unwrap() - 0.2).abs() < 1e-15);
        assert!(s.on_close(3.0, set, 1, w(12.0, 30.0), None));
        assert_eq!(s.sets[set as usize].srtt.value, None);
        let d = s.on_start(4.0, set, 2, &[], STD, 3.0);
        assert_eq!(
            (d.initial, d.source),
            (None, Source::None),
            "no temporal cache configured"
        );
    }

    #[test]
    fn fs_start_assigns_everyone() {
        let mut s = Sharing::with_host(Controller::FairShare, 32, None);
        let set = s.set_for(0, "10.0.0.5").unwrap();
        s.on_start(0.0, set, 0, &[], STD, 3.0);
        s.on_start(0.0, set, 1, &[STD], STD, 3.0);
        let d = s.on_start(1.0, set, 2, &[w(8.0, 64.0), w(14.0, 20.0)], STD, 3.0);
        let i = d.initial.unwrap();
        assert_eq!(i.window, w(8.0, (64.0 + 20.0 + 64.0) / 3.0));
        assert_eq!(d.existing, Some(i));
        assert_eq!(s.members(set), &[0, 1, 2]);
    }

    #[test]
    fn controller_none_counts_but_does_not_share() {
        let mut s = Sharing::with_host(
            Controller::None,
            32,
            Some(Temporal {
                lifetime: 600.0,
                linear: true,
            }),
        );
        let set = s.set_for(0, "10.0.0.5").unwrap();
        s.on_start(0.0, set, 0, &[], STD, 3.0);
        let d = s.on_start(1.0, set, 1, &[w(9.0, 9.0)], STD, 3.0);
        assert_eq!((d.parallel, d.initial, d.source), (1, None, Source::None));
    }

    #[test]
    fn temporal_cache_only_without_parallel_members() {
        let t = Temporal {
            lifetime: 100.0,
            linear: false,
        };
        let mut s = Sharing::with_host(Controller::MeanValue, 32, Some(t));
        let set = s.set_for(0, "10.0.0.5").unwrap();
        s.on_start(0.0, set, 0, &[], STD, 3.0);
        s.on_start(0.0, set, 1, &[STD], STD, 3.0);
        let r = Rtt {
            srtt: 0.1,
            rttvar: 0.02,
        };
        s.on_close(10.0, set, 0, w(20.0, 30.0), Some(r));
        // member 1 still open: ensemble, not the cache
        let d = s.on_start(11.0, set, 2, &[w(6.0, 64.0)], STD, 3.0);
        assert_eq!(d.source, Source::Ensemble);
        assert_eq!(d.initial.unwrap().window, w(6.0, 64.0));
        s.on_close(12.0, set, 1, w(7.0, 40.0), Some(r));
        s.on_close(13.0, set, 2, w(8.0, 50.0), None);
        let d = s.on_start(50.0, set, 3, &[], STD, 3.0);
        assert_eq!(d.source, Source::Temporal);
        assert_eq!(
            d.initial.unwrap().window,
            w(8.0, 50.0),
            "the last close wrote the cache"
        );
        assert_eq!(d.initial.unwrap().rtt, None);
        s.on_close(60.0, set, 3, w(4.0, 10.0), Some(r));
        let d = s.on_start(160.0, set, 4, &[], STD, 3.0);
        assert_eq!((d.initial, d.source), (None, Source::None), "expired");
    }
}
