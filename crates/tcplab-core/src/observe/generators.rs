//! The `generators` table: one row per flow generator, with the flows it created and what
//! its completed flows add up to (T̄1 = segments / duration, T̄2 = rate / completed, in
//! segments per second).
use super::table::{Col, TableBuilder};
use crate::api::Table;
use crate::traffic::Generators;

const GENERATOR_COLUMNS: &[(&str, Col)] = &[
    ("generator", Col::S),
    ("kind", Col::S),
    ("record", Col::S),
    ("src", Col::S),
    ("dst", Col::S),
    ("created", Col::U),
    ("completed", Col::U),
    ("completed_segments", Col::U),
    ("completed_duration", Col::F),
    ("sum_rate", Col::F),
    ("delivered_bytes", Col::U),
    ("segments_sent", Col::U),
    ("retransmits", Col::U),
    ("timeouts", Col::U),
    ("retired", Col::U),
];

pub fn generators_table(generators: &Generators) -> Table {
    let mut t = TableBuilder::new(GENERATOR_COLUMNS);
    for g in &generators.list {
        let x = &g.totals;
        t.s("generator", &g.spec.name);
        t.s("kind", &g.spec.kind);
        t.s("record", &g.spec.record);
        t.s("src", &g.spec.src);
        t.s("dst", &g.spec.dst);
        t.u("created", g.created);
        t.u("completed", x.completed);
        t.u("completed_segments", x.segments);
        t.f("completed_duration", x.duration);
        t.f("sum_rate", x.rate);
        t.u("delivered_bytes", x.delivered_bytes);
        t.u("segments_sent", x.segments_sent);
        t.u("retransmits", x.retransmits);
        t.u("timeouts", x.timeouts);
        t.u("retired", x.retired);
    }
    t.build()
}
