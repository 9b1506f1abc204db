//! The `links` table (one row per link direction) and the `lans` table (one row per LAN
//! member interface).
use super::table::{Col, TableBuilder};
use crate::api::{Column, Table};
use crate::net::Network;
use crate::scenario::Spec;
use crate::sim::{to_secs, Time};

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

/// Counters of every link direction at the end of the run (`end`).
pub fn links_table(net: &Network, spec: &Spec, end: Time) -> Table {
    let dur = spec.sim.duration;
    let mut t = TableBuilder::with_capacity(LINK_COLUMNS, net.links.len());
    for (i, l) in net.links.iter().enumerate() {
        let ls = &spec.links[l.link as usize];
        t.u("link", i as u64);
        t.s("src", &spec.nodes[l.from as usize].name);
        t.s("dst", &spec.nodes[l.to as usize].name);
        t.f("rate_bps", ls.rate);
        t.f("delay", ls.delay);
        t.u("queue_limit", l.limit as u64);
        t.f("loss", l.loss);
        t.u("arrivals", l.arrivals);
        t.u("departures", l.delivered);
        t.u("drops_queue", l.drops_queue);
        t.u("drops_loss", l.drops_loss);
        t.u("in_system", l.in_system);
        let busy = to_secs(l.busy_until_end(end));
        t.f("busy_time", busy);
        t.f("utilisation", (busy / dur).min(1.0));
    }
    t.build()
}

/// The per-interface LAN counters.
pub fn lans_table(net: &Network, spec: &Spec) -> Table {
    let dur = spec.sim.duration;
    let (mut lan, mut member, mut address) = (vec![], vec![], vec![]);
    let (mut rate, mut delay, mut limit, mut loss) = (vec![], vec![], vec![], vec![]);
    let (mut arr, mut dep, mut dq, mut dl, mut ins) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut busy, mut util) = (vec![], vec![]);
    let (mut coll, mut dcoll) = (vec![], vec![]);
    for (k, l) in net.lans.iter().enumerate() {
        let ls = &spec.lans[k];
        for f in &l.ifaces {
            lan.push(ls.name.clone());
            let node = &spec.nodes[f.node as usize];
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
    Table {
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
    }
}
