//! The `links` table (one row per link direction) and the `lans` table (one row per LAN
//! member interface).
use super::table::{Col, TableBuilder};
use crate::api::{Column, Table};
use crate::net::{LinkDir, Network};
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

/// Columns added when some link direction has a queue discipline (`queue = {type = ...}`):
/// its type, ECN marks, the drops it decided (part of drops_queue), and the queueing delay
/// of the packets it sent (seconds; NaN on plain DropTail links, which do not measure it).
const AQM_COLUMNS: &[(&str, Col)] = &[
    ("queue_type", Col::S),
    ("marks", Col::U),
    ("drops_aqm", Col::U),
    ("qdelay_mean", Col::F),
    ("qdelay_std", Col::F),
    ("qdelay_p95", Col::F),
    ("qdelay_max", Col::F),
];

/// With link changes (`[[link_changes]]`): the packets dropped because the direction was
/// down.
const CHANGE_COLUMNS: &[(&str, Col)] = &[("drops_down", Col::U)];

/// With a reordering model on some link direction: packets it held back.
const REORDER_COLUMNS: &[(&str, Col)] = &[("reordered", Col::U)];

fn reordering(spec: &Spec) -> bool {
    spec.links
        .iter()
        .any(|l| l.reorder_ab.is_some() || l.reorder_ba.is_some())
}

/// Counters of every link direction at the end of the run (`end`).
pub fn links_table(net: &Network, spec: &Spec, end: Time) -> Table {
    let dur = spec.sim.duration;
    let managed = net.links.iter().any(|l| l.aqm().is_some());
    let changing = !spec.link_changes.is_empty();
    let reorder = reordering(spec);
    let mut columns = LINK_COLUMNS.to_vec();
    if managed {
        columns.extend_from_slice(AQM_COLUMNS);
    }
    if changing {
        columns.extend_from_slice(CHANGE_COLUMNS);
    }
    if reorder {
        columns.extend_from_slice(REORDER_COLUMNS);
    }
    let mut t = TableBuilder::with_capacity(&columns, net.links.len());
    for (i, l) in net.links.iter().enumerate() {
        let ls = &spec.links[l.link as usize];
        t.u("link", i as u64);
        t.s("src", &spec.nodes[l.from as usize].name);
        t.s("dst", &spec.nodes[l.to as usize].name);
        t.f("rate_bps", ls.rate);
        t.f("delay", ls.delay);
        t.u("queue_limit", l.queue_limit() as u64);
        t.f("loss", l.loss);
        t.u("arrivals", l.arrivals);
        t.u("departures", l.delivered);
        t.u("drops_queue", l.drops_queue);
        t.u("drops_loss", l.drops_loss);
        t.u("in_system", l.in_system);
        let busy = to_secs(l.busy_until_end(end));
        t.f("busy_time", busy);
        t.f("utilisation", (busy / dur).min(1.0));
        if managed {
            let a = l.aqm();
            t.s("queue_type", a.map_or("droptail", |a| a.name));
            t.u("marks", a.map_or(0, |a| a.marks));
            t.u("drops_aqm", a.map_or(0, |a| a.drops_aqm));
            t.f("qdelay_mean", a.map_or(f64::NAN, |a| a.stats.mean()));
            t.f("qdelay_std", a.map_or(f64::NAN, |a| a.stats.std()));
            t.f("qdelay_p95", a.map_or(f64::NAN, |a| a.stats.quantile(0.95)));
            t.f("qdelay_max", a.map_or(f64::NAN, |a| a.stats.max()));
        }
        if changing {
            t.u("drops_down", l.changing().map_or(0, |c| c.drops_down));
        }
        if reorder {
            t.u("reordered", l.reordered());
        }
    }
    t.build()
}

/// The links table from the link directions taken out of the network and the spec, freeing
/// them as it goes (a large network does not hold its links, its spec and the whole table
/// at once): what the table needs of the spec is kept and the spec dropped, then the
/// counters are copied and the link directions dropped, then the names of the ends are
/// written. Values and columns as [`links_table`].
pub fn links_table_consuming(links: Vec<LinkDir>, mut spec: Spec, end: Time) -> Table {
    let dur = spec.sim.duration;
    let changing = !spec.link_changes.is_empty();
    let reorder = reordering(&spec);
    let rate_delay: Vec<(f64, f64)> = spec.links.iter().map(|l| (l.rate, l.delay)).collect();
    let nodes = std::mem::take(&mut spec.nodes);
    drop(spec);
    let mut node_names = Vec::with_capacity(nodes.len());
    for node in nodes {
        node_names.push(node.name);
    }
    let n = links.len();
    let managed = links.iter().any(|l| l.aqm().is_some());
    let (mut qtype, mut marks, mut drops_aqm) = (Vec::new(), Vec::new(), Vec::new());
    let (mut qd_mean, mut qd_std, mut qd_p95, mut qd_max) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut drops_down = Vec::new();
    let mut reordered = Vec::new();
    let mut ends = Vec::with_capacity(n);
    let (mut rate, mut delay, mut loss) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut busy, mut util) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut u64s: [Vec<u64>; 7] = std::array::from_fn(|_| Vec::with_capacity(n));
    for (i, l) in links.iter().enumerate() {
        let (r, d) = rate_delay[l.link as usize];
        ends.push((l.from, l.to));
        rate.push(r);
        delay.push(d);
        loss.push(l.loss);
        let counts = [
            i as u64,
            l.queue_limit() as u64,
            l.arrivals,
            l.delivered,
            l.drops_queue,
            l.drops_loss,
            l.in_system,
        ];
        for (c, v) in u64s.iter_mut().zip(counts) {
            c.push(v);
        }
        let b = to_secs(l.busy_until_end(end));
        busy.push(b);
        util.push((b / dur).min(1.0));
        if managed {
            let a = l.aqm();
            qtype.push(a.map_or("droptail", |a| a.name).to_string());
            marks.push(a.map_or(0, |a| a.marks));
            drops_aqm.push(a.map_or(0, |a| a.drops_aqm));
            qd_mean.push(a.map_or(f64::NAN, |a| a.stats.mean()));
            qd_std.push(a.map_or(f64::NAN, |a| a.stats.std()));
            qd_p95.push(a.map_or(f64::NAN, |a| a.stats.quantile(0.95)));
            qd_max.push(a.map_or(f64::NAN, |a| a.stats.max()));
        }
        if changing {
            drops_down.push(l.changing().map_or(0, |c| c.drops_down));
        }
        if reorder {
            reordered.push(l.reordered());
        }
    }
    drop(links);
    let name = |k: u32| node_names[k as usize].clone();
    let src = ends.iter().map(|&(a, _)| name(a)).collect();
    let dst = ends.iter().map(|&(_, b)| name(b)).collect();
    drop(ends);
    let [link, limit, arrivals, departures, drops_queue, drops_loss, in_system] = u64s;
    let mut columns = vec![
        ("link", Column::U64(link)),
        ("src", Column::Str(src)),
        ("dst", Column::Str(dst)),
        ("rate_bps", Column::F64(rate)),
        ("delay", Column::F64(delay)),
        ("queue_limit", Column::U64(limit)),
        ("loss", Column::F64(loss)),
        ("arrivals", Column::U64(arrivals)),
        ("departures", Column::U64(departures)),
        ("drops_queue", Column::U64(drops_queue)),
        ("drops_loss", Column::U64(drops_loss)),
        ("in_system", Column::U64(in_system)),
        ("busy_time", Column::F64(busy)),
        ("utilisation", Column::F64(util)),
    ];
    if managed {
        columns.extend([
            ("queue_type", Column::Str(qtype)),
            ("marks", Column::U64(marks)),
            ("drops_aqm", Column::U64(drops_aqm)),
            ("qdelay_mean", Column::F64(qd_mean)),
            ("qdelay_std", Column::F64(qd_std)),
            ("qdelay_p95", Column::F64(qd_p95)),
            ("qdelay_max", Column::F64(qd_max)),
        ]);
    }
    if changing {
        columns.push(("drops_down", Column::U64(drops_down)));
    }
    if reorder {
        columns.push(("reordered", Column::U64(reordered)));
    }
    debug_assert!(columns.iter().map(|(n, _)| *n).eq(LINK_COLUMNS
        .iter()
        .chain(if managed { AQM_COLUMNS } else { &[] })
        .chain(if changing { CHANGE_COLUMNS } else { &[] })
        .chain(if reorder { REORDER_COLUMNS } else { &[] })
        .map(|(n, _)| *n)));
    Table {
        columns: columns.into_iter().map(|(n, c)| (n.to_string(), c)).collect(),
    }
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
