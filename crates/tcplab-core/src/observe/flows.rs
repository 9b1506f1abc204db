//! The `flows` table (one row per flow, except those of summary generators) and the
//! `events` table (what the senders and their algorithms noted, time-stamped).
use super::table::{Col, TableBuilder};
use crate::api::Table;
use crate::net::ChangeRecord;
use crate::share::Sharing;
use crate::sim::{to_secs, Time};
use crate::tcp::{Flow, FlowTable};
use crate::traffic::{Cbr, Generators, RequestRecord, Traffic};
use std::sync::Arc;

const FLOW_COLUMNS: &[(&str, Col)] = &[
    ("flow", Col::U),
    ("name", Col::S),
    ("src", Col::S),
    ("dst", Col::S),
    ("transport", Col::S),
    ("generator", Col::S),
    ("cc", Col::S),
    ("cc_final", Col::S),
    ("start", Col::F),
    ("stop", Col::F),
    ("size", Col::F),
    ("segments_sent", Col::U),
    ("bytes_sent", Col::U),
    ("retransmits", Col::U),
    ("fast_retransmits", Col::U),
    ("timeouts", Col::U),
    ("delivered_segments", Col::U),
    ("delivered_bytes", Col::U),
    ("duplicate_segments", Col::U),
    ("acked_segments", Col::U),
    ("completion_time", Col::F),
    ("goodput_bps", Col::F),
    ("final_cwnd", Col::F),
    ("final_ssthresh", Col::F),
    ("srtt", Col::F),
    ("min_rtt", Col::F),
    ("rto", Col::F),
    ("init_cwnd", Col::F),
    ("init_ssthresh", Col::F),
    ("init_srtt", Col::F),
    ("init_rttvar", Col::F),
    ("tcbi_parallel", Col::F),
    ("tcbi_set", Col::S),
    ("tcbi_source", Col::S),
];

/// Columns added when some flow uses ECN (`tcp.ecn`): data segments its receiver got marked
/// Congestion Experienced, and its sender's window reductions in response to ECN-Echo.
const ECN_COLUMNS: &[(&str, Col)] = &[("ecn_ce_received", Col::U), ("ecn_reductions", Col::U)];

/// Columns added when some flow uses D-SACK or undo (`tcp.dsack`, `tcp.undo`): fast
/// retransmits and timeouts (series) its sender found spurious (`tcp/sender/spurious.rs`),
/// the reductions it took back, and the D-SACK blocks it received.
const SPURIOUS_COLUMNS: &[(&str, Col)] = &[
    ("spurious_retransmits", Col::U),
    ("spurious_timeouts", Col::U),
    ("undos", Col::U),
    ("dsacks_received", Col::U),
];

/// Columns added when some flow's datagrams are measured (`transport = "voip"`, or "udp"
/// with `delay_stats = true`): the half of the call ("forward", "reverse"; "" for other
/// flows), datagrams lost (RFC 3550's count: expected up to the highest number received,
/// minus received), and the one-way delay's mean, standard deviation, minimum and maximum
/// and RFC 3550 interarrival jitter, in seconds (NaN for flows not measured or that
/// received nothing). `traffic/delay.rs` says how each is computed.
const DELAY_COLUMNS: &[(&str, Col)] = &[
    ("direction", Col::S),
    ("datagrams_lost", Col::U),
    ("delay_mean", Col::F),
    ("delay_std", Col::F),
    ("delay_min", Col::F),
    ("delay_max", Col::F),
    ("jitter_rfc3550", Col::F),
];

/// In the events table: no flow (a link change's row), no link (a flow's row).
pub const NO_ID: u64 = u64::MAX;

const EVENT_COLUMNS: &[(&str, Col)] = &[("time", Col::F), ("flow", Col::U), ("event", Col::S), ("value", Col::F)];

/// One row per flow; `duration` is the run's (flows that did not complete are measured
/// to the end of the run).
pub fn flows_table(flows: &FlowTable, traffic: &Traffic, tcbi: &Sharing, duration: f64) -> Table {
    let extra = Extra::of(flows);
    let mut t = TableBuilder::with_capacity(&columns(extra), rows(flows, traffic));
    for (i, f) in flows.iter() {
        row(&mut t, i, f, None, traffic, tcbi, duration, extra);
    }
    t.build()
}

/// The flows table, freeing each flow once its row is written (the table grows while the
/// flows shrink: a large run does not hold both). A flow whose spec is no longer shared
/// (the world's spec is gone) gives its name to the table instead of a copy.
pub fn flows_table_consuming(flows: FlowTable, traffic: &Traffic, tcbi: &Sharing, duration: f64) -> Table {
    let extra = Extra::of(&flows);
    let mut t = TableBuilder::with_capacity(&columns(extra), rows(&flows, traffic));
    for (i, mut f) in flows.into_flows() {
        let names =
            Arc::get_mut(&mut f.spec).map(|s| [std::mem::take(&mut s.name), s.src.to_string(), s.dst.to_string()]);
        row(&mut t, i, &f, names, traffic, tcbi, duration, extra);
    }
    t.build()
}

/// Which optional column groups the table has.
#[derive(Clone, Copy)]
struct Extra {
    ecn: bool,
    spurious: bool,
    delay: bool,
}

impl Extra {
    fn of(flows: &FlowTable) -> Extra {
        Extra {
            ecn: flows.iter().any(|(_, f)| f.spec.tcp.ecn),
            spurious: flows.iter().any(|(_, f)| f.spec.tcp.dsack || f.spec.tcp.undo),
            delay: flows.iter().any(|(_, f)| f.udp && f.spec.delay_stats),
        }
    }
}

fn columns(extra: Extra) -> Vec<(&'static str, Col)> {
    let mut c = FLOW_COLUMNS.to_vec();
    if extra.ecn {
        c.extend_from_slice(ECN_COLUMNS);
    }
    if extra.spurious {
        c.extend_from_slice(SPURIOUS_COLUMNS);
    }
    if extra.delay {
        c.extend_from_slice(DELAY_COLUMNS);
    }
    c
}

/// Flows with a row (all but those of summary generators).
fn rows(flows: &FlowTable, traffic: &Traffic) -> usize {
    flows.iter().filter(|(_, f)| has_row(f, traffic)).count()
}

fn has_row(f: &Flow, traffic: &Traffic) -> bool {
    !f.generator.is_some_and(|g| traffic.generators.summary_only(g))
}

/// Flow `i`'s row; `names`: its name, source and destination, when they were taken out of
/// its spec (else they are copied from it).
#[allow(clippy::too_many_arguments)]
fn row(
    t: &mut TableBuilder,
    i: usize,
    f: &Flow,
    names: Option<[String; 3]>,
    traffic: &Traffic,
    tcbi: &Sharing,
    duration: f64,
    extra: Extra,
) {
    if has_row(f, traffic) {
        identity_columns(t, i, f, names, traffic);
        transfer_columns(t, i, f, traffic, duration);
        control_block_columns(t, f, tcbi);
        if extra.ecn {
            t.u("ecn_ce_received", f.receiver.ce_received);
            t.u("ecn_reductions", f.sender.stats.ecn_reductions);
        }
        if extra.spurious {
            let sp = f.sender.spur.as_deref();
            t.u("spurious_retransmits", sp.map_or(0, |s| s.fast_retransmits));
            t.u("spurious_timeouts", sp.map_or(0, |s| s.timeouts));
            t.u("undos", sp.map_or(0, |s| s.undos));
            t.u("dsacks_received", sp.map_or(0, |s| s.dsacks));
        }
        if extra.delay {
            delay_columns(t, i, f, traffic);
        }
    }
}

/// The one-way delay, jitter and loss of a measured datagram flow (NaN and 0 for others).
fn delay_columns(t: &mut TableBuilder, i: usize, f: &Flow, traffic: &Traffic) {
    let d = traffic.cbr.get(i).filter(|_| f.udp).and_then(|c| c.delay.as_deref());
    t.s("direction", f.spec.direction.as_deref().unwrap_or(""));
    t.u("datagrams_lost", d.map_or(0, |d| d.lost()));
    t.f("delay_mean", d.map_or(f64::NAN, |d| d.mean()));
    t.f("delay_std", d.map_or(f64::NAN, |d| d.std()));
    t.f("delay_min", d.map_or(f64::NAN, |d| d.min()));
    t.f("delay_max", d.map_or(f64::NAN, |d| d.max()));
    t.f("jitter_rfc3550", d.map_or(f64::NAN, |d| d.jitter()));
}

/// Which flow it is: id, name, ends, transport, generator, algorithms, schedule.
fn identity_columns(t: &mut TableBuilder, i: usize, f: &Flow, names: Option<[String; 3]>, traffic: &Traffic) {
    let udp = f.udp;
    t.u("flow", i as u64);
    let [name, src, dst] =
        names.unwrap_or_else(|| [f.spec.name.clone(), f.spec.src.to_string(), f.spec.dst.to_string()]);
    t.string("name", name);
    t.string("src", src);
    t.string("dst", dst);
    t.s("transport", &f.spec.transport);
    let generator = f
        .generator
        .map_or("", |g| traffic.generators.list[g as usize].spec.name.as_str());
    t.s("generator", generator);
    t.s("cc", if udp { "" } else { &f.spec.cc });
    t.s("cc_final", if udp { "" } else { f.sender.cc.name() });
    t.f("start", f.spec.start);
    t.f("stop", f.spec.stop.unwrap_or(f64::NAN));
    t.f("size", f.spec.size.map_or(f64::NAN, |x| x as f64));
}

/// What it sent and delivered, and how fast.
fn transfer_columns(t: &mut TableBuilder, i: usize, f: &Flow, traffic: &Traffic, duration: f64) {
    let s = &f.sender;
    let (mss, delivered, sent) = match traffic.cbr.get(i) {
        Some(c) if f.udp => (c.packet as u64, c.received, c.next_seq),
        _ => (f.spec.tcp.mss as u64, f.receiver.delivered(), s.stats.segments_sent),
    };
    let start = f.spec.start;
    let completion = s.stats.completion.map(to_secs);
    let end = completion.unwrap_or(duration);
    let goodput = if end > start {
        (delivered * mss * 8) as f64 / (end - start)
    } else {
        0.0
    };
    t.u("segments_sent", sent);
    t.u(
        "bytes_sent",
        if f.udp { sent * mss } else { sent * f.data_bytes as u64 },
    );
    t.u("retransmits", s.stats.retransmits);
    t.u("fast_retransmits", s.stats.fast_retransmits);
    t.u("timeouts", s.stats.timeouts);
    t.u("delivered_segments", delivered);
    t.u("delivered_bytes", delivered * mss);
    t.u("duplicate_segments", f.receiver.duplicates);
    t.u("acked_segments", s.snd_una);
    t.f("completion_time", completion.map_or(f64::NAN, |c| c - start));
    t.f("goodput_bps", goodput);
}

/// The control block at the end and at the start, and the sharing it took part in.
fn control_block_columns(t: &mut TableBuilder, f: &Flow, tcbi: &Sharing) {
    let s = &f.sender;
    t.f("final_cwnd", s.st.cwnd);
    t.f("final_ssthresh", s.st.ssthresh);
    t.f("srtt", s.st.srtt);
    t.f(
        "min_rtt",
        if s.st.min_rtt.is_finite() {
            s.st.min_rtt
        } else {
            f64::NAN
        },
    );
    t.f("rto", s.current_rto());
    let init = f.stats.init.filter(|_| !f.udp);
    t.f("init_cwnd", init.map_or(f64::NAN, |i| i.cwnd));
    t.f("init_ssthresh", init.map_or(f64::NAN, |i| i.ssthresh));
    t.f("init_srtt", init.map_or(f64::NAN, |i| i.srtt));
    t.f("init_rttvar", init.map_or(f64::NAN, |i| i.rttvar));
    t.f("tcbi_parallel", f.share.parallel.map_or(f64::NAN, |n| n as f64));
    t.s(
        "tcbi_set",
        f.share.set.map_or("", |s| tcbi.sets[s as usize].key.as_str()),
    );
    t.s("tcbi_source", f.share.source.name());
}

/// Every flow's noted events, flow by flow; for a datagram flow with `delay_trace`, one
/// `datagram_delay` event per datagram received (time of arrival, one-way delay in
/// seconds). The events are moved out of the senders and sources, so that a run with many
/// events does not hold them twice while its table is built.
///
/// With `[[link_changes]]` (`changes`: `Some`, the changes applied) the table has a `link`
/// column, and each change applied is a row after the flows' rows: `link` the direction's
/// row in the links table, `flow` [`NO_ID`], `event` `link_delay` (value in s),
/// `link_rate` (bit/s), `link_queue` (packets), `link_loss`, `link_down` (1 with
/// `queued = "keep"`, 0 with `"drop"`) or `link_up` (the packets kept that start now);
/// flow rows have `link` [`NO_ID`].
pub fn events_table(
    flows: &mut FlowTable,
    cbr: &mut Cbr,
    generators: &mut Generators,
    changes: Option<&[ChangeRecord]>,
) -> Table {
    let ids: Vec<usize> = flows.iter().map(|(i, _)| i).collect();
    let traced = |i: usize| cbr.get(i).and_then(|c| c.trace.as_ref()).map_or(0, |t| t.rows.len());
    let logs: Vec<Vec<RequestRecord>> = generators.list.iter_mut().map(|g| g.model.take_request_log()).collect();
    let rows = flows
        .iter()
        .map(|(i, f)| f.sender.events.len() + traced(i))
        .sum::<usize>()
        + changes.map_or(0, |c| c.len())
        + logs.iter().map(|l| 3 * l.len()).sum::<usize>();
    let mut columns = EVENT_COLUMNS.to_vec();
    if changes.is_some() {
        columns.push(("link", Col::U));
    }
    // TCP KentRidge's rows say why (pipe type, rule, old and new algorithm).
    let detail = flows.iter().any(|(_, f)| f.kr.is_some());
    if detail {
        columns.push(("detail", Col::S));
    }
    let rows = rows
        + flows
            .iter()
            .map(|(_, f)| f.kr.as_ref().map_or(0, |k| k.events.len()))
            .sum::<usize>();
    let mut t = TableBuilder::with_capacity(&columns, rows);
    // One row of the table: the `link` column only with link changes, `detail` only with
    // KentRidge.
    let row = |t: &mut TableBuilder, time: Time, flow: u64, event: &str, value: f64, link: u64, text: &str| {
        t.f("time", to_secs(time));
        t.u("flow", flow);
        t.s("event", event);
        t.f("value", value);
        if changes.is_some() {
            t.u("link", link);
        }
        if detail {
            t.s("detail", text);
        }
    };
    for i in ids {
        let mut kr = flows[i]
            .kr
            .as_mut()
            .map(|k| std::mem::take(&mut k.events))
            .unwrap_or_default()
            .into_iter()
            .peekable();
        for e in std::mem::take(&mut flows[i].sender.events) {
            // KentRidge's rows in time order among the sender's (first at equal times)
            while let Some(k) = kr.next_if(|k| k.time <= e.time) {
                row(&mut t, k.time, i as u64, k.name, k.value, NO_ID, &k.detail);
            }
            row(&mut t, e.time, i as u64, e.name, e.value, NO_ID, "");
        }
        for k in kr {
            row(&mut t, k.time, i as u64, k.name, k.value, NO_ID, &k.detail);
        }
        for (at, delay) in cbr.take_trace(i) {
            row(&mut t, at, i as u64, "datagram_delay", to_secs(delay), NO_ID, "");
        }
    }
    for c in changes.unwrap_or(&[]) {
        row(&mut t, c.time, NO_ID, c.name, c.value, u64::from(c.hop), "");
    }
    // Per request of a packmime generator with `log_requests` (`flow` is the connection's
    // number): at the request's start its size and its response's size, and at the
    // response's arrival the response time.
    for r in logs.into_iter().flatten() {
        row(
            &mut t,
            r.sent,
            r.connection,
            "web_request_bytes",
            r.request as f64,
            NO_ID,
            "",
        );
        row(
            &mut t,
            r.sent,
            r.connection,
            "web_response_bytes",
            r.response as f64,
            NO_ID,
            "",
        );
        if let Some(done) = r.done {
            row(
                &mut t,
                done,
                r.connection,
                "web_response_time",
                to_secs(done - r.sent),
                NO_ID,
                "",
            );
        }
    }
    t.build()
}
