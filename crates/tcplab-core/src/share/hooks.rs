//! The sharing component as the transport sees it: hooks called when a connection is
//! attached to its path, starts, closes, and when its RTT estimates change. It holds the
//! TCBI service ([`Sharing`]) and the per-hop counts of active connections that the
//! fair-share estimators read (`cc::PathShare`).
use super::{Rtt, Sharing, Source, Window};
use crate::cc;
use crate::net::Network;
use crate::scenario::NodeSpec;
use crate::sim::{to_secs, Time};
use crate::tcp::{Flow, FlowTable, Preset};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// A connection's sharing state (kept in its flow record).
#[derive(Debug, Clone, Copy)]
pub struct ConnShare {
    /// The TCBI connection set, if the source host has a TCBI configuration.
    pub set: Option<u32>,
    /// Other open connections of the set when this one started.
    pub parallel: Option<usize>,
    /// Where its initial values came from.
    pub source: Source,
    /// Counted in the active-connection counters of its forward path (started, not finished).
    active: bool,
}

impl Default for ConnShare {
    fn default() -> Self {
        ConnShare {
            set: None,
            parallel: None,
            source: Source::None,
            active: false,
        }
    }
}

pub struct Share {
    pub tcbi: Sharing,
    /// Per hop: connections started and not finished whose path crosses it (shared with
    /// the senders' fair-share estimators).
    active_on_hop: Arc<[AtomicU32]>,
    /// Per network route, the rates and counters of its forward path as the last flow that
    /// took it got them (a flow gets the rates of the time it attaches: a link may change).
    route_links: Vec<Option<Arc<[cc::fair_share::LinkShare]>>>,
    /// Node positions by name and node addresses, for TCBI (empty when no host shares).
    node_index: HashMap<String, u32>,
    addresses: Vec<String>,
}

fn acked_bytes(fl: &Flow) -> u64 {
    fl.sender.snd_una * fl.spec.tcp.mss as u64
}

impl Share {
    pub fn new(nodes: &[NodeSpec], hops: usize) -> Share {
        let tcbi = Sharing::new(nodes);
        let (node_index, addresses) = if tcbi.enabled() {
            let index = nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.name.clone(), i as u32))
                .collect();
            (index, nodes.iter().map(|n| n.address.clone()).collect())
        } else {
            (HashMap::new(), Vec::new())
        };
        Share {
            tcbi,
            active_on_hop: (0..hops).map(|_| AtomicU32::new(0)).collect(),
            route_links: Vec::new(),
            node_index,
            addresses,
        }
    }

    /// Bytes acknowledged so far on flow `f`, as the parallel-interval rows count them.
    pub fn acked_bytes(flows: &FlowTable, f: u32) -> u64 {
        acked_bytes(&flows[f as usize])
    }

    /// A new flow `f`: give its sender the rates and active-connection counters of its
    /// forward path, and put it into its TCBI connection set (if its source host shares).
    pub fn on_attach(&mut self, f: u32, fl: &mut Flow, net: &Network) {
        let route = net.route_id(f) as usize;
        if self.route_links.len() <= route {
            self.route_links.resize(route + 1, None);
        }
        let links = match &self.route_links[route] {
            Some(links) if links.iter().all(|l| l.rate_bps == net.hop_rate(l.hop)) => Arc::clone(links),
            _ => {
                let links: Arc<[cc::fair_share::LinkShare]> = net
                    .route(f)
                    .fwd
                    .iter()
                    .map(|&l| cc::fair_share::LinkShare {
                        rate_bps: net.hop_rate(l),
                        hop: l,
                    })
                    .collect();
                self.route_links[route] = Some(Arc::clone(&links));
                links
            }
        };
        fl.sender.st.path = cc::PathShare {
            links,
            active: self.active_on_hop.clone(),
            wire_bytes: fl.data_bytes as f64,
        };
        if !self.tcbi.enabled() || fl.udp {
            return;
        }
        let host = self.node_index[&*fl.spec.src];
        let dst = &self.addresses[self.node_index[&*fl.spec.dst] as usize];
        fl.share.set = self.tcbi.set_for(host, dst);
    }

    /// Count flow `fl` in (or out of) the active connections of the hops on `path`.
    pub fn set_active(&mut self, fl: &mut Flow, path: &[u32], active: bool) {
        if fl.share.active == active || fl.udp {
            return;
        }
        fl.share.active = active;
        for &l in path {
            let c = &self.active_on_hop[l as usize];
            if active {
                c.fetch_add(1, Ordering::Relaxed);
            } else {
                c.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }

    /// Flow `f` starts: consult the sharing service of its host. Returns the existing
    /// members whose windows the FS controller overwrote.
    pub fn join(&mut self, now: Time, f: u32, flows: &mut FlowTable) -> Vec<u32> {
        let Some(set) = flows[f as usize].share.set else {
            return Vec::new();
        };
        let members: Vec<u32> = self.tcbi.members(set).to_vec();
        let existing: Vec<Window> = members
            .iter()
            .map(|&m| {
                let st = &flows[m as usize].sender.st;
                Window {
                    cwnd: st.cwnd,
                    ssthresh: st.ssthresh,
                }
            })
            .collect();
        for (&m, w) in members.iter().zip(&existing) {
            let s = &mut flows[m as usize].sender;
            s.note(now, "tcbi_peer_cwnd", w.cwnd);
            s.note(now, "tcbi_peer_ssthresh", w.ssthresh);
        }
        let tcp = &flows[f as usize].spec.tcp;
        let standard = Window {
            cwnd: tcp.init_cwnd,
            ssthresh: tcp.init_ssthresh,
        };
        let d = self
            .tcbi
            .on_start(to_secs(now), set, f, &existing, standard, tcp.initial_rto);
        let fl = &mut flows[f as usize];
        fl.share.parallel = Some(d.parallel);
        fl.share.source = d.source;
        if let Some(i) = d.initial {
            fl.sender.preset(Preset {
                cwnd: i.window.cwnd,
                ssthresh: i.window.ssthresh,
                rtt: i.rtt.map(|r| (r.srtt, r.rttvar)),
            });
        }
        let now_members: Vec<u32> = self.tcbi.members(set).to_vec();
        let fl_ref: &FlowTable = flows;
        self.tcbi
            .intervals
            .change(to_secs(now), set, &now_members, |g| acked_bytes(&fl_ref[g as usize]));
        let Some(e) = d.existing else {
            return Vec::new();
        };
        for &m in &members {
            let s = &mut flows[m as usize].sender;
            s.overwrite_window(e.window.cwnd, e.window.ssthresh);
            if let Some(r) = e.rtt {
                s.assign_rtt(r.srtt, r.rttvar);
            }
            s.note(now, "tcbi_fs_cwnd", e.window.cwnd);
        }
        members
    }

    /// Flow `f` closed (completed, or its application stopped): it leaves its set.
    pub fn leave(&mut self, now: Time, f: u32, flows: &FlowTable) {
        let fl = &flows[f as usize];
        let Some(set) = fl.share.set else {
            return;
        };
        let s = &fl.sender;
        let w = Window {
            cwnd: s.st.cwnd,
            ssthresh: s.st.ssthresh,
        };
        let rtt = s.has_rtt().then_some(Rtt {
            srtt: s.st.srtt,
            rttvar: s.st.rttvar,
        });
        if self.tcbi.on_close(to_secs(now), set, f, w, rtt) {
            let members: Vec<u32> = self.tcbi.members(set).to_vec();
            self.tcbi
                .intervals
                .change(to_secs(now), set, &members, |g| acked_bytes(&flows[g as usize]));
        }
    }

    /// An ACK moved flow `f`'s RTT estimates from `before` to `after` (srtt, rttvar):
    /// inform its TCBI set.
    #[inline]
    pub fn on_rtt(&mut self, f: u32, cs: &ConnShare, before: (f64, f64), after: (f64, f64)) {
        let Some(set) = cs.set else {
            return;
        };
        let (srtt, rttvar) = after;
        if srtt != before.0 || rttvar != before.1 {
            self.tcbi.on_rtt_change(
                set,
                f,
                (srtt != before.0).then_some(srtt),
                (rttvar != before.1).then_some(rttvar),
            );
        }
    }
}
