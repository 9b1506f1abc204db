//! Building the network from the spec's nodes, links and LANs, with the graph that routing
//! searches.
use super::{link_rng, Aqm, CsmaCd, Lan, LanHop, LinkDir, Mac, Network};
use crate::scenario::{QueueSpec, Spec};
use crate::sim::{secs, Rng};
use std::collections::HashMap;

/// The graph routing searches: per node its (neighbour, hop id) pairs; per hop its cost.
pub struct Graph {
    pub adj: Vec<Vec<(u32, u32)>>,
    pub cost: Vec<f64>,
}

/// The link directions (two per link, "ab" then "ba"), the LANs and their member-to-member
/// hops (cost 1), and the graph over them.
pub fn build(spec: &Spec, seed: u64, node_index: &HashMap<&str, u32>) -> (Network, Graph) {
    let mut g = Graph {
        adj: vec![Vec::new(); spec.nodes.len()],
        cost: Vec::with_capacity(spec.links.len() * 2),
    };
    let mut links = Vec::with_capacity(spec.links.len() * 2);
    for (i, l) in spec.links.iter().enumerate() {
        let a = node_index[l.a.as_str()];
        let b = node_index[l.b.as_str()];
        let delay = secs(l.delay);
        for (from, to, queue, loss, c, dir, reorder) in [
            (a, b, &l.queue_ab, l.loss_ab, l.cost_ab, "ab", l.reorder_ab),
            (b, a, &l.queue_ba, l.loss_ba, l.cost_ba, "ba", l.reorder_ba),
        ] {
            g.cost.push(c);
            let id = links.len() as u32;
            let rng = link_rng(seed, &l.a, &l.b, dir);
            let mut link = LinkDir::new(i as u32, from, to, l.rate, delay, queue.limit(), loss, rng);
            if let QueueSpec::Managed(d) = queue {
                // its own stream: adding a discipline changes no other draw
                let rng = Rng::stream(seed, &format!("link:{}:{}:{dir}:{}", l.a, l.b, d.name()));
                link.manage(Aqm::new(d, l.rate, rng));
            }
            if let Some(r) = reorder {
                if link.aqm().is_none() {
                    // the managed path's droptail: the same queue, no draw of its own
                    let d = crate::scenario::Discipline::Droptail { limit: queue.limit() };
                    link.manage(Aqm::new(&d, l.rate, Rng::from_seed(0)));
                }
                let rng = Rng::stream(seed, &format!("link:{}:{}:{dir}:reorder", l.a, l.b));
                link.set_reorder(super::reorder::Reorder::new(r.prob, secs(r.delay), rng));
            }
            links.push(link);
            g.adj[from as usize].push((to, id));
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
                    g.adj[a as usize].push((b, id));
                    g.cost.push(1.0);
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
    (Network::new(links, lans, lan_hops), g)
}
