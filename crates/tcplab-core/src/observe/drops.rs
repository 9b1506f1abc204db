//! The `drops` table (`sim.drop_trace`): one row per dropped packet, in the order of the
//! drops, with the hop, the reason and what the packet carried.
use super::table::{Col, TableBuilder};
use crate::api::Table;
use crate::net::Network;
use crate::scenario::Spec;
use crate::sim::to_secs;
use crate::tcp::Kind;

const DROP_COLUMNS: &[(&str, Col)] = &[
    ("time", Col::F),
    ("hop", Col::U),
    ("src", Col::S),
    ("dst", Col::S),
    ("reason", Col::S),
    ("flow", Col::U),
    ("kind", Col::S),
    ("seq", Col::U),
    ("size", Col::U),
    ("ecn", Col::S),
];

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Data => "data",
        Kind::Ack => "ack",
        Kind::Syn => "syn",
        Kind::SynAck => "synack",
        Kind::Fin => "fin",
        Kind::FinAck => "finack",
        Kind::Datagram => "datagram",
    }
}

fn codepoint_name(e: crate::net::Ecn) -> &'static str {
    use crate::net::Ecn;
    match e {
        Ecn::NotEct => "not-ect",
        Ecn::Ect0 => "ect0",
        Ecn::Ect1 => "ect1",
        Ecn::Ce => "ce",
    }
}

/// The drops the network traced (empty without `sim.drop_trace`). `hop` is the link
/// direction's row in the links table, or for a LAN hop its id after the link directions;
/// `src`/`dst` name its two ends; `seq` is the segment number (data) or the cumulative ACK.
pub fn drops_table(net: &Network, spec: &Spec) -> Table {
    let drops = net.drop_trace.as_ref().map_or(&[][..], |t| &t.drops[..]);
    let mut t = TableBuilder::with_capacity(DROP_COLUMNS, drops.len());
    for d in drops {
        let (a, b) = net.hop_ends(d.hop);
        t.f("time", to_secs(d.time));
        t.u("hop", u64::from(d.hop));
        t.s("src", &spec.nodes[a as usize].name);
        t.s("dst", &spec.nodes[b as usize].name);
        t.s("reason", d.reason.name());
        t.u("flow", u64::from(d.packet.flow));
        t.s("kind", kind_name(d.packet.kind));
        t.u("seq", d.packet.seq);
        t.u("size", u64::from(d.packet.size));
        t.s("ecn", codepoint_name(d.packet.ecn.codepoint()));
    }
    t.build()
}
