//! The `generators` table: one row per flow generator, with the flows it created and what
//! its completed flows add up to (T̄1 = segments / duration, T̄2 = rate / completed, in
//! segments per second); with a packmime generator, request-level web columns.
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

/// With a packmime generator, every row also has these (NaN or 0 for the other kinds):
/// connections opened, requests sent, responses completed, the bytes of the completed
/// exchanges each way, and the response time (request start to the last response byte at
/// the client): mean and percentiles (read from logarithmic bins, within 1.2 %).
const WEB_COLUMNS: &[(&str, Col)] = &[
    ("web_connections", Col::U),
    ("web_requests", Col::U),
    ("web_responses", Col::U),
    ("web_request_bytes", Col::U),
    ("web_response_bytes", Col::U),
    ("web_response_time_mean", Col::F),
    ("web_response_time_p50", Col::F),
    ("web_response_time_p90", Col::F),
    ("web_response_time_p99", Col::F),
];

pub fn generators_table(generators: &Generators) -> Table {
    let web = generators.list.iter().any(|g| g.model.web_stats().is_some());
    let columns: Vec<(&str, Col)> = if web {
        GENERATOR_COLUMNS.iter().chain(WEB_COLUMNS).copied().collect()
    } else {
        GENERATOR_COLUMNS.to_vec()
    };
    let mut t = TableBuilder::new(&columns);
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
        if web {
            let w = g.model.web_stats().cloned().unwrap_or_default();
            t.u("web_connections", w.connections);
            t.u("web_requests", w.requests);
            t.u("web_responses", w.responses);
            t.u("web_request_bytes", w.request_bytes);
            t.u("web_response_bytes", w.response_bytes);
            let present = g.model.web_stats().is_some();
            let f = |v: f64| if present { v } else { f64::NAN };
            t.f("web_response_time_mean", f(w.mean_response_time()));
            t.f("web_response_time_p50", f(w.response_time_quantile(0.5)));
            t.f("web_response_time_p90", f(w.response_time_quantile(0.9)));
            t.f("web_response_time_p99", f(w.response_time_quantile(0.99)));
        }
    }
    t.build()
}
