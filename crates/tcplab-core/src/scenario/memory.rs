//! An estimate of the memory a run needs, computed from the normalised spec, so that a
//! spec that cannot fit is refused before anything is allocated.
//!
//! The constants are per item and deliberately generous: they count the core's own
//! structures, the result tables, and the copies the Python layer makes of them (numpy
//! arrays, data frames, the summary's normalised spec). What the spec does not determine
//! (how many packets TCP actually keeps in flight, how many closed-loop flows complete) is
//! bounded from the topology, as described at each term.
use super::limits::{err, MAX_GENERATED_FLOWS};
use super::{default_memory_limit, Discipline, GeneratorSpec, LinkSpec, QueueSpec, Spec, SpecError};
use crate::sim::Dist;
use std::collections::HashMap;

/// Interpreter, libraries and fixed tables.
pub const BASE: f64 = 64.0 * MIB;
pub const PER_NODE: f64 = 1024.0;
/// A link: both directions, routing entries, its rows and its spec.
pub const PER_LINK: f64 = 2048.0;
/// A link direction with a queue discipline: its state and its histogram of waiting times.
pub const PER_DISCIPLINE: f64 = 16.0 * 1024.0;
/// One of an FQ-CoDel direction's `flows` queues (a CoDel queue, its deficit and list).
pub const PER_FQ_QUEUE: f64 = 160.0;
/// A LAN member interface, and a hop between two members (the engine keeps one per
/// ordered pair of members).
pub const PER_LAN_MEMBER: f64 = 1024.0;
pub const PER_LAN_HOP: f64 = 128.0;
/// A flow: sender, receiver, paths, its row in the flows table and in the summary.
pub const PER_FLOW: f64 = 8192.0;
pub const PER_GENERATOR: f64 = 4096.0;
/// A generated flow kept in the flows table (`record = "flows"`), and one whose state is
/// freed when it completes (`record = "summary"`: a slot remains).
pub const PER_RECORDED_FLOW: f64 = 8192.0;
pub const PER_SUMMARY_FLOW: f64 = 16.0;
/// A packet in the network: pool entry, queue entry, pending event.
pub const PER_PACKET: f64 = 96.0;
/// One sampled row: a flow's (cwnd, ssthresh, ... and algorithm columns) and a link's.
pub const PER_FLOW_SAMPLE: f64 = 512.0;
pub const PER_LINK_SAMPLE: f64 = 96.0;
/// A datagram in a flow's delay trace (`delay_trace`): its (arrival, delay) in the core,
/// then an events-table row (time, flow, event name, value) and its Python copies.
pub const PER_TRACED_DATAGRAM: f64 = 256.0;
/// A request of a packmime generator with `log_requests`: its record in the core, then three
/// events-table rows and their Python copies.
pub const PER_LOGGED_REQUEST: f64 = 3.0 * 256.0;
/// A captured packet: record header and IP/TCP headers, kept three times (core, result,
/// file buffer).
pub const PER_CAPTURED_PACKET: f64 = 3.0 * (16.0 + 40.0);
/// TCP KentRidge (a flow with a `kentridge` table), beyond its two boxes (the classifier
/// and agent's `KentRidge`, the sender's `Stats`, counted by their size):
/// - the knowledge base's rows in the flow's copy of the normalised spec: each flow carries
///   its whole table in the summary's JSON text (about 125 bytes a row) and in the Python
///   dict made of it (the core holds one copy per `[[flows]]` entry; measured: 5000 flows
///   with the built-in table of 17 rows that end before their first classification need
///   3.1 KB more each, boxes included);
pub const PER_KB_ROW_COPY: f64 = 512.0;
/// - a row of the classifier's events (`pipe_type`, then the agent's `kr_switch`, `kr_keep`
///   or `kr_no_adaptation`): the core's record and its `detail` text, then an events-table
///   row and its Python copies. Counted as the bound, two per classification: with the
///   watermarks a flow changes far less often (500 bulk flows classified every 100 ms for
///   20 s: 18 rows each, 9 KB more per flow than without KentRidge), but a path whose type
///   flips every period is not refused a run it cannot hold;
pub const PER_KR_EVENT: f64 = 128.0 + 256.0;
/// - a past period of the data/ACK ratio (end, data segments, ACKs), with the deque's
///   spare capacity;
pub const PER_KR_PERIOD: f64 = 2.0 * 24.0;
/// - the six deques of time-stamped events (fast retransmissions, timeouts, repeated
///   timeouts, corruptions, spurious retransmissions, notifications), pruned to the window:
///   room for 64 events each (a typical window's; they are not bounded by the spec);
pub const PER_KR_RECENT: f64 = 6.0 * 64.0 * 8.0;
/// - the time-series columns a run with KentRidge has on every flow row (`pipe_type` and the
///   five `kr_` statistics), in the core and the Python copies.
pub const PER_KR_SAMPLE: f64 = 6.0 * 8.0 * 3.0;

const MIB: f64 = 1024.0 * 1024.0;

/// The estimate and its largest parts, for the message.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub bytes: f64,
    pub parts: Vec<(&'static str, f64)>,
}

impl Estimate {
    /// "flows 1.2 GB, samples 300 MB" (the largest parts first, the small ones left out).
    pub fn largest_parts(&self) -> String {
        let mut parts: Vec<_> = self.parts.iter().filter(|(_, b)| *b >= self.bytes * 0.05).collect();
        parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        parts
            .iter()
            .map(|(n, b)| format!("{n} {}", human(*b)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Bytes as "16.0 GiB", "512 MiB", "4 KiB".
pub fn human(bytes: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut x = bytes;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < units.len() {
        x /= 1024.0;
        u += 1;
    }
    if x >= 100.0 || u == 0 {
        format!("{x:.0} {}", units[u])
    } else {
        format!("{x:.1} {}", units[u])
    }
}

/// Typical value of a distribution: its mean, or its scale for a Pareto without one.
fn typical(d: &Dist) -> f64 {
    match *d {
        Dist::Pareto { scale, .. } if !d.mean().is_finite() => scale,
        _ => d.mean().max(0.0),
    }
}

fn active_time(g: &GeneratorSpec, duration: f64) -> f64 {
    (g.stop.unwrap_or(duration).min(duration) - g.start).max(0.0)
}

/// The flows of one PackMime-HTTP connection on average: a request and a response per
/// exchange, 1.2 exchanges per connection (0.91 × 1 + 0.09 × 3.19 objects of a persistent
/// connection, from the model's page and object counts; checked in `traffic::packmime`).
pub const PACKMIME_FLOWS_PER_CONNECTION: f64 = 2.4;

/// The flows a Poisson generator is expected to create: rate x active time, at most
/// `max_flows` (0 for other kinds); for packmime, rate x active time x the flows of a
/// connection.
pub fn poisson_flows(g: &GeneratorSpec, duration: f64) -> f64 {
    let per_arrival = if g.kind == "packmime" {
        PACKMIME_FLOWS_PER_CONNECTION
    } else {
        1.0
    };
    let n = g.rate.unwrap_or(0.0) * active_time(g, duration) * per_arrival;
    n.min(g.max_flows.map_or(f64::INFINITY, |m| m as f64))
}

/// The flows a generator is expected to create. Poisson: rate × active time. Closed and
/// sessions: the active time over the shortest a flow and its pause can take (one round trip
/// over the shortest link delay plus the mean size sent at the fastest rate). Both capped
/// by `max_flows` and by MAX_GENERATED_FLOWS.
pub fn generated_flows(g: &GeneratorSpec, duration: f64, min_delay: f64, max_rate: f64) -> f64 {
    if g.kind == "poisson" || g.kind == "packmime" {
        return poisson_flows(g, duration).min(MAX_GENERATED_FLOWS);
    }
    let active = active_time(g, duration);
    let size = g.size.as_ref().map_or(1.0, typical);
    let segments = match g.size_unit.as_str() {
        "bytes" => size / g.tcp.mss as f64,
        _ => size,
    }
    .max(1.0);
    let flow_time = 2.0 * min_delay + segments * (g.tcp.mss + g.tcp.header) as f64 * 8.0 / max_rate;
    let mean = |d: &Option<Dist>| d.as_ref().map_or(0.0, typical);
    let n = match g.kind.as_str() {
        "closed" => active / (mean(&g.think) + flow_time),
        _ => {
            let pages = mean(&g.pages).max(1.0);
            let session = pages * (flow_time + mean(&g.reading)) + mean(&g.session_gap);
            active * pages / session
        }
    };
    let n = match n {
        _ if active <= 0.0 => 0.0,
        n if n.is_finite() => n,
        _ => MAX_GENERATED_FLOWS,
    };
    n.min(g.max_flows.map_or(f64::INFINITY, |m| m as f64))
        .min(MAX_GENERATED_FLOWS)
}

/// The estimated peak memory of a run of `spec`, in bytes.
pub fn estimate(spec: &Spec) -> Estimate {
    let duration = spec.sim.duration;
    let link_dirs = 2.0 * spec.links.len() as f64;
    let lan_members: f64 = spec.lans.iter().map(|l| l.members.len() as f64).sum();
    let lan_hops: f64 = spec
        .lans
        .iter()
        .map(|l| (l.members.len() as f64) * (l.members.len() as f64 - 1.0))
        .sum();
    let (min_packet_bits, min_any_bits) = smallest_packet_bits(spec);
    let packets = packets_in_network(spec, min_packet_bits);
    let (recorded, summarised) = generated_flow_totals(spec);

    // Samples: every live TCP flow and every link direction at each sampling instant.
    // Recorded generated flows stay in the table once created (half the run on average);
    // a summary generator has about one live flow at a time.
    let samples = if spec.sim.sample_interval > 0.0 {
        (duration / spec.sim.sample_interval).floor() + 1.0
    } else {
        0.0
    };
    let tcp_flows = spec.flows.iter().filter(|f| f.transport == "tcp").count() as f64;
    let flow_rows = samples * (tcp_flows + recorded / 2.0 + spec.generators.len() as f64);
    let link_rows = samples * link_dirs;
    let captured = captured_packets(spec, min_any_bits);

    let parts = vec![
        ("base", BASE),
        ("nodes", spec.nodes.len() as f64 * PER_NODE),
        ("links", spec.links.len() as f64 * PER_LINK),
        ("queue disciplines", disciplines(spec)),
        ("LANs", lan_members * PER_LAN_MEMBER + lan_hops * PER_LAN_HOP),
        ("flows", spec.flows.len() as f64 * PER_FLOW),
        ("generators", spec.generators.len() as f64 * PER_GENERATOR),
        (
            "generated flows",
            recorded * PER_RECORDED_FLOW + summarised * PER_SUMMARY_FLOW,
        ),
        ("packets", packets * PER_PACKET),
        ("samples", flow_rows * PER_FLOW_SAMPLE + link_rows * PER_LINK_SAMPLE),
        ("pcap", captured * PER_CAPTURED_PACKET),
        ("delay traces", traced_datagrams(spec) * PER_TRACED_DATAGRAM),
        ("web request logs", logged_requests(spec) * PER_LOGGED_REQUEST),
        ("KentRidge", kentridge(spec, flow_rows)),
        ("spurious-retransmission detection", spurious_detection(spec)),
    ];
    Estimate {
        bytes: parts.iter().map(|(_, b)| b).sum(),
        parts,
    }
}

/// The memory of one flow's TCP KentRidge (`kentridge` table) over a run of `duration`
/// seconds: its two boxes, its buffers (past periods, event deques), its classifier's
/// events and its copy of the knowledge base in the normalised spec.
pub fn kentridge_flow(k: &crate::kentridge::KentRidgeSpec, duration: f64) -> f64 {
    use std::mem::size_of;
    let boxes = (size_of::<crate::kentridge::KentRidge>() + size_of::<crate::kentridge::Stats>()) as f64;
    let classifications = (duration / k.interval).floor() + 1.0;
    let periods = (k.thresholds.window / k.interval).ceil() + 1.0;
    let events = 2.0 * classifications * (size_of::<crate::kentridge::KrEvent>() as f64 + PER_KR_EVENT);
    boxes + periods.min(classifications) * PER_KR_PERIOD + PER_KR_RECENT + events + k.kb.len() as f64 * PER_KB_ROW_COPY
}

/// The classification periods a generated KentRidge flow is counted for.
const GENERATED_KR_PERIODS: f64 = 8.0;

/// TCP KentRidge's state over the flows that run it, and, when any does, its time-series
/// columns on every one of the `flow_rows` sampled flow rows.
fn kentridge(spec: &Spec, flow_rows: f64) -> f64 {
    let mut per_flow: f64 = spec
        .flows
        .iter()
        .filter_map(|f| f.kentridge.as_ref())
        .map(|k| kentridge_flow(k, spec.sim.duration))
        .sum();
    // A generator's flows (all kept: `record = "flows"`) are short transfers: each is
    // counted as living GENERATED_KR_PERIODS classification periods (a longer one's further
    // events are not counted).
    for (g, n) in spec.generators.iter().zip(generated_flow_counts(spec)) {
        if let Some(k) = &g.kentridge {
            let life = (k.interval * GENERATED_KR_PERIODS).min(spec.sim.duration);
            per_flow += n * kentridge_flow(k, life);
        }
    }
    if per_flow == 0.0 {
        return 0.0;
    }
    per_flow + flow_rows * PER_KR_SAMPLE
}

/// The senders' boxes of spurious-retransmission detection (`Sender::spur`: `tcp.dsack`,
/// `tcp.undo`, or KentRidge with timestamps). A generator's recorded flows each keep theirs;
/// a summary generator's are freed with the flow (about one live at a time).
fn spurious_detection(spec: &Spec) -> f64 {
    use crate::tcp::Sender;
    let per = Sender::spurious_state_bytes() as f64;
    let flows = spec
        .flows
        .iter()
        .filter(|f| f.transport == "tcp" && Sender::has_spurious_state(&f.tcp, f.kentridge.is_some()))
        .count() as f64;
    let generated: f64 = spec
        .generators
        .iter()
        .zip(generated_flow_counts(spec))
        .filter(|(g, _)| Sender::has_spurious_state(&g.tcp, g.kentridge.is_some()))
        .map(|(g, n)| if g.record == "summary" { n.min(1.0) } else { n })
        .sum();
    (flows + generated) * per
}

/// Requests the packmime generators with `log_requests` make: half their expected flows
/// (a request and a response each).
fn logged_requests(spec: &Spec) -> f64 {
    spec.generators
        .iter()
        .filter(|g| g.web.as_ref().is_some_and(|w| w.log_requests))
        .map(|g| poisson_flows(g, spec.sim.duration) / 2.0)
        .sum()
}

/// Datagrams the flows with `delay_trace` send (at most that many are received): each rate
/// step's rate over its packet size, for as long as the step lasts before the flow's stop
/// or the end of the run.
fn traced_datagrams(spec: &Spec) -> f64 {
    let mut n = 0.0;
    for f in spec.flows.iter().filter(|f| f.delay_trace) {
        let (Some(steps), Some(packet)) = (&f.rate_schedule, f.packet) else {
            continue;
        };
        let end = f.stop.unwrap_or(spec.sim.duration).min(spec.sim.duration) - f.start;
        for (k, st) in steps.iter().enumerate() {
            let until = steps.get(k + 1).map_or(end, |next| next.at.min(end));
            n += st.rate / (8.0 * packet as f64) * (until - st.at).max(0.0);
        }
    }
    n
}

/// The state of the link directions' queue disciplines.
fn disciplines(spec: &Spec) -> f64 {
    let one = |q: &QueueSpec| match q {
        QueueSpec::DropTail(_) => 0.0,
        QueueSpec::Managed(Discipline::FqCodel(f)) => PER_DISCIPLINE + f.flows as f64 * PER_FQ_QUEUE,
        QueueSpec::Managed(_) => PER_DISCIPLINE,
    };
    spec.links.iter().map(|l| one(&l.queue_ab) + one(&l.queue_ba)).sum()
}

/// Packet sizes on the wire, in bits: the smallest data packet (it gives the most packets
/// per bit), and the smallest packet of any kind (data or ACK).
fn smallest_packet_bits(spec: &Spec) -> (f64, f64) {
    let tcp_sizes = spec
        .flows
        .iter()
        .filter(|f| f.transport == "tcp")
        .map(|f| &f.tcp)
        .chain(spec.generators.iter().map(|g| &g.tcp));
    let mut min_packet = f64::INFINITY;
    let mut min_ack = f64::INFINITY;
    for t in tcp_sizes {
        min_packet = min_packet.min((t.mss + t.header) as f64);
        min_ack = min_ack.min(t.ack_size as f64);
    }
    for f in &spec.flows {
        if let Some(p) = f.packet {
            min_packet = min_packet.min(p as f64);
        }
    }
    let min_packet_bits = if min_packet.is_finite() {
        min_packet * 8.0
    } else {
        8.0 * 1040.0
    };
    let min_any_bits = min_packet_bits.min(min_ack * 8.0);
    (min_packet_bits, min_any_bits)
}

/// The largest rate, delay and queue limit link `l` has over the run: its own, or one its
/// `[[link_changes]]` set (either direction; queue 0 when none sets one).
fn largest_over_changes(spec: &Spec, l: &LinkSpec) -> (f64, f64, u32) {
    let mut m = (l.rate, l.delay, 0);
    for c in &spec.link_changes {
        if (c.a == l.a && c.b == l.b) || (c.a == l.b && c.b == l.a) {
            m.0 = m.0.max(c.rate.unwrap_or(0.0));
            m.1 = m.1.max(c.delay.unwrap_or(0.0));
            m.2 = m.2.max(c.queue.unwrap_or(0));
        }
    }
    m
}

/// Packets: what the queues and the wires can hold (queue + bandwidth-delay product per
/// direction, with the largest values link changes set), and at most what the senders can
/// have in flight: a window bounded by the largest such direction (beyond it TCP loses
/// packets and backs off).
fn packets_in_network(spec: &Spec, min_packet_bits: f64) -> f64 {
    let mut capacity = 0.0;
    let mut largest_dir: f64 = 0.0;
    for l in &spec.links {
        let (rate, delay, changed_queue) = largest_over_changes(spec, l);
        let bdp = rate * delay / min_packet_bits + 1.0;
        for q in [l.queue_ab.limit(), l.queue_ba.limit()] {
            let q = q.max(changed_queue);
            capacity += q as f64 + bdp;
            largest_dir = largest_dir.max(q as f64 + bdp);
        }
    }
    for l in &spec.lans {
        let bdp = l.rate * l.delay / min_packet_bits + 1.0;
        let q = l.queue as f64 * l.members.len() as f64;
        capacity += q + bdp;
        largest_dir = largest_dir.max(q + bdp);
    }
    let in_flight: f64 = spec
        .flows
        .iter()
        .map(|f| match f.transport.as_str() {
            "tcp" => f.tcp.rwnd.min(largest_dir),
            _ => largest_dir,
        })
        .chain(spec.generators.iter().map(|g| g.tcp.rwnd.min(largest_dir)))
        .sum();
    capacity.min(in_flight)
}

/// The flows all generators are expected to create: (kept in the flows table, summarised).
fn generated_flow_totals(spec: &Spec) -> (f64, f64) {
    let (mut recorded, mut summarised) = (0.0, 0.0);
    for (g, n) in spec.generators.iter().zip(generated_flow_counts(spec)) {
        if g.record == "summary" {
            summarised += n;
        } else {
            recorded += n;
        }
    }
    (recorded, summarised)
}

/// The flows each generator is expected to create.
fn generated_flow_counts(spec: &Spec) -> Vec<f64> {
    let min_delay = spec
        .links
        .iter()
        .map(|l| l.delay)
        .chain(spec.lans.iter().map(|l| l.delay))
        .fold(f64::INFINITY, f64::min);
    let max_rate = spec
        .links
        .iter()
        .map(|l| l.rate)
        .chain(spec.lans.iter().map(|l| l.rate))
        .fold(0.0, f64::max);
    let (min_delay, max_rate) = if max_rate > 0.0 {
        (min_delay, max_rate)
    } else {
        (0.0, 1.0)
    };
    spec.generators
        .iter()
        .map(|g| generated_flows(g, spec.sim.duration, min_delay, max_rate))
        .collect()
}

/// Captures: a direction carries at most its rate in its smallest packets.
fn captured_packets(spec: &Spec, min_any_bits: f64) -> f64 {
    let mut captured = 0.0;
    if !spec.pcap.is_empty() {
        let mut rate_between: HashMap<(&str, &str), f64> = HashMap::new();
        for l in &spec.links {
            let rate = largest_over_changes(spec, l).0;
            rate_between.insert((&l.a, &l.b), rate);
            rate_between.insert((&l.b, &l.a), rate);
        }
        let mut lan_rate: HashMap<&str, Vec<(usize, f64)>> = HashMap::new();
        for (k, l) in spec.lans.iter().enumerate() {
            for m in &l.members {
                lan_rate.entry(m).or_default().push((k, l.rate));
            }
        }
        for c in &spec.pcap {
            let on_lan = || {
                let (a, b) = (lan_rate.get(c.a.as_str())?, lan_rate.get(c.b.as_str())?);
                a.iter().find(|(k, _)| b.iter().any(|(j, _)| j == k)).map(|(_, r)| *r)
            };
            let rate = rate_between
                .get(&(c.a.as_str(), c.b.as_str()))
                .copied()
                .or_else(on_lan)
                .unwrap_or(0.0);
            // Packets enter a direction at most as fast as the links into its near end
            // bring them, plus what the near end's own senders offer (taken as the
            // direction's own rate: more waits in their windows or is dropped).
            let offered = if c.at == "entry" {
                rate + spec
                    .links
                    .iter()
                    .filter(|l| l.a == c.a || l.b == c.a)
                    .map(|l| l.rate)
                    .sum::<f64>()
            } else {
                rate
            };
            captured += offered * spec.sim.duration / min_any_bits;
        }
    }
    captured
}

/// Refuse a spec whose estimated memory exceeds `sim.memory_limit`.
pub(super) fn check_limit(spec: &Spec) -> Result<(), SpecError> {
    let e = estimate(spec);
    let limit = spec.sim.memory_limit.unwrap_or_else(default_memory_limit) as f64;
    if e.bytes <= limit {
        return Ok(());
    }
    err(
        "sim.memory_limit",
        format!(
            "this run needs an estimated {} ({}), more than the limit of {}; reduce the scenario, \
             or raise the limit if the machine has the memory (e.g. memory_limit = \"{}\" in [sim])",
            human(e.bytes),
            e.largest_parts(),
            human(limit),
            suggested_limit(e.bytes),
        ),
    )
}

/// The estimate rounded up to whole GiB, as a value for `sim.memory_limit`.
fn suggested_limit(bytes: f64) -> String {
    format!("{}GiB", (bytes / (1u64 << 30) as f64).ceil().max(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse;
    use serde_json::json;

    fn spec(v: serde_json::Value) -> Spec {
        parse(&v.to_string()).unwrap()
    }

    fn dumbbell(pairs: u64, flows: u64, sample_interval: f64) -> Spec {
        spec(json!({
            "sim": {"duration": 100, "sample_interval": sample_interval},
            "dumbbell": {"pairs": pairs,
                "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 50},
                "access": {"rate": "100Mbps", "delay": "1ms", "queue": 100}},
            "flows": [{"src": "s{i}", "dst": "d{i}", "count": flows}]
        }))
    }

    fn part(e: &Estimate, name: &str) -> f64 {
        e.parts.iter().find(|(n, _)| *n == name).unwrap().1
    }

    #[test]
    fn delay_traces_count_the_datagrams_of_traced_flows_only() {
        let s = spec(serde_json::json!({"sim": {"duration": 100},
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms"}],
            "flows": [
                {"src": "a", "dst": "b", "transport": "voip", "start": 10, "delay_trace": true},
                {"src": "a", "dst": "b", "transport": "udp", "rate": "8kbps", "packet": 100,
                 "on_off": {"on": "10s", "off": "30s"}, "delay_trace": true},
                {"src": "a", "dst": "b", "transport": "voip"}]}));
        // The call: 50 datagrams/s for 90 s, both halves; the UDP flow: 10 datagrams/s,
        // on in [0, 10), [40, 50) and [80, 90).
        let e = estimate(&s);
        assert_eq!(
            part(&e, "delay traces"),
            (2.0 * 50.0 * 90.0 + 10.0 * 30.0) * PER_TRACED_DATAGRAM
        );
    }

    #[test]
    fn items_are_counted_per_node_link_flow_and_sample() {
        let e = estimate(&dumbbell(10, 10, 0.0));
        assert_eq!(part(&e, "nodes"), 22.0 * PER_NODE);
        assert_eq!(part(&e, "links"), 21.0 * PER_LINK);
        assert_eq!(part(&e, "flows"), 10.0 * PER_FLOW);
        assert_eq!(part(&e, "samples"), 0.0);
        assert_eq!(e.bytes, e.parts.iter().map(|p| p.1).sum::<f64>());
        // 100 s sampled every second: 101 instants x (10 flows, 42 link directions)
        let e = estimate(&dumbbell(10, 10, 1.0));
        assert_eq!(
            part(&e, "samples"),
            101.0 * (10.0 * PER_FLOW_SAMPLE + 42.0 * PER_LINK_SAMPLE)
        );
    }

    #[test]
    fn queue_disciplines_count_per_direction_and_fq_codel_per_queue() {
        assert_eq!(part(&estimate(&dumbbell(2, 2, 0.0)), "queue disciplines"), 0.0);
        let s = spec(json!({
            "sim": {"duration": 10},
            "dumbbell": {"pairs": 3,
                "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": {"type": "red"}},
                "access": {"rate": "100Mbps", "delay": "1ms", "queue": {"type": "fq_codel", "flows": 4096}}},
            "flows": [{"src": "s{i}", "dst": "d{i}", "count": 3}]
        }));
        // 2 RED directions, 12 FQ-CoDel directions of 4096 queues
        let want = 14.0 * PER_DISCIPLINE + 12.0 * 4096.0 * PER_FQ_QUEUE;
        assert_eq!(part(&estimate(&s), "queue disciplines"), want);
    }

    #[test]
    fn packets_are_bounded_by_queues_and_by_windows() {
        // one flow: at most the largest direction (queue 100 + its bandwidth-delay product)
        let e = estimate(&dumbbell(10, 1, 0.0));
        let bdp = 100e6 * 1e-3 / (1040.0 * 8.0) + 1.0;
        assert!((part(&e, "packets") - (100.0 + bdp) * PER_PACKET).abs() < 1e-6);
        // many flows: at most what all queues and wires hold
        let e = estimate(&dumbbell(2, 2, 0.0));
        let s = dumbbell(2, 2, 0.0);
        let capacity: f64 = s
            .links
            .iter()
            .map(|l| 2.0 * (l.queue_ab.limit() as f64 + l.rate * l.delay / (1040.0 * 8.0) + 1.0))
            .sum();
        assert!(part(&e, "packets") <= capacity * PER_PACKET + 1e-6);
    }

    #[test]
    fn link_changes_count_with_their_largest_queue_delay_and_rate() {
        let base = json!({
            "sim": {"duration": 100},
            "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms", "queue": 50}],
            "nodes": [{"name": "a"}, {"name": "b"}],
            "flows": [{"src": "a", "dst": "b", "count": 4}]
        });
        let plain = part(&estimate(&spec(base.clone())), "packets");
        let mut changed = base.clone();
        changed["link_changes"] = json!([{"link": "a-b", "at": 1, "queue": 500, "delay": "20ms"}]);
        let more = part(&estimate(&spec(changed)), "packets");
        // per direction: 50 + bdp before; 500 + twice the bdp after
        let bdp = 10e6 * 0.01 / (1040.0 * 8.0);
        assert!(
            (more - plain - 2.0 * (450.0 + bdp) * PER_PACKET).abs() < 1e-6,
            "{plain} {more}"
        );
    }

    #[test]
    fn generated_flows_follow_the_generator_kind() {
        let s = spec(json!({
            "sim": {"duration": 1000},
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"a": "a", "b": "b", "rate": "8Mbps", "delay": "10ms"}],
            "generators": [
                {"kind": "poisson", "src": "a", "dst": "b", "rate": 2, "start": 100, "stop": 600,
                 "size": {"dist": "constant", "value": 10}},
                {"kind": "poisson", "src": "a", "dst": "b", "rate": 2, "max_flows": 7,
                 "size": {"dist": "constant", "value": 10}},
                {"kind": "closed", "src": "a", "dst": "b", "think": {"dist": "constant", "value": 0.98},
                 "size": {"dist": "constant", "value": 1}, "record": "summary"}
            ]
        }));
        let g = |i: usize| generated_flows(&s.generators[i], 1000.0, 0.01, 8e6);
        assert_eq!(g(0), 1000.0); // 2 flows/s for 500 s
        assert_eq!(g(1), 7.0);
        // think 0.98 s + a round trip of 20 ms + one 1040-byte packet at 8 Mb/s (1.04 ms)
        assert!((g(2) - 1000.0 / (0.98 + 0.02 + 0.00104)).abs() < 1e-6, "{}", g(2));
        let e = estimate(&s);
        assert!((part(&e, "generated flows") - (1007.0 * PER_RECORDED_FLOW + g(2) * PER_SUMMARY_FLOW)).abs() < 1e-3);
    }

    fn kentridge_flows(
        count: u64,
        kentridge: Option<serde_json::Value>,
        memory_limit: Option<u64>,
    ) -> serde_json::Value {
        let mut flow = json!({"src": "a", "dst": "b", "count": count, "tcp": {"timestamps": true}});
        if let Some(k) = kentridge {
            flow["kentridge"] = k;
        }
        let mut s = json!({
            "sim": {"duration": 100, "sample_interval": 1},
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "10ms"}],
            "flows": [flow]
        });
        if let Some(m) = memory_limit {
            s["sim"]["memory_limit"] = json!(m);
        }
        s
    }

    #[test]
    fn kentridge_counts_its_boxes_buffers_events_and_knowledge_base_per_flow() {
        use crate::kentridge::{KentRidge, KrEvent, Stats};
        use std::mem::size_of;
        assert_eq!(
            part(&estimate(&spec(kentridge_flows(10, None, None))), "KentRidge"),
            0.0
        );
        let s = spec(kentridge_flows(
            10,
            Some(json!({"interval": "500ms", "thresholds": {"window": "5s"}})),
            None,
        ));
        let k = s.flows[0].kentridge.as_ref().unwrap();
        assert!(!k.kb.is_empty());
        // 100 s at 0.5 s: 201 classifications, at most two events each; 11 past periods
        // in a 5 s window; the built-in knowledge base's rows in the flow's spec.
        let one = (size_of::<KentRidge>() + size_of::<Stats>()) as f64
            + 11.0 * PER_KR_PERIOD
            + PER_KR_RECENT
            + 2.0 * 201.0 * (size_of::<KrEvent>() as f64 + PER_KR_EVENT)
            + k.kb.len() as f64 * PER_KB_ROW_COPY;
        assert_eq!(kentridge_flow(k, 100.0), one);
        // 101 samples of 10 flows, each row with the six KentRidge columns
        let e = estimate(&s);
        assert_eq!(part(&e, "KentRidge"), 10.0 * one + 101.0 * 10.0 * PER_KR_SAMPLE);
        assert_eq!(e.bytes, e.parts.iter().map(|p| p.1).sum::<f64>());
        // a knowledge base of one row costs less than the built-in one
        let small = spec(kentridge_flows(
            10,
            Some(json!({"kb": [{"adaptation": "newreno", "pipe_types": ["default"]}]})),
            None,
        ));
        assert!(
            part(&estimate(&small), "KentRidge")
                < part(
                    &estimate(&spec(kentridge_flows(10, Some(json!({})), None))),
                    "KentRidge"
                )
        );
    }

    #[test]
    fn a_generators_kentridge_flows_count_eight_periods_each() {
        let mut v = json!({
            "sim": {"duration": 1000, "sample_interval": 0},
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"a": "a", "b": "b", "rate": "8Mbps", "delay": "10ms"}],
            "generators": [{"kind": "poisson", "src": "a", "dst": "b", "rate": 2, "start": 100, "stop": 600,
                            "size": {"dist": "constant", "value": 10}, "kentridge": {"interval": "1s"}}]
        });
        let s = spec(v.clone());
        let k = s.generators[0].kentridge.as_ref().unwrap();
        // 1000 flows (2 flows/s for 500 s), each as a flow of 8 s
        assert_eq!(part(&estimate(&s), "KentRidge"), 1000.0 * kentridge_flow(k, 8.0));
        v["generators"][0].as_object_mut().unwrap().remove("kentridge");
        assert_eq!(part(&estimate(&spec(v)), "KentRidge"), 0.0);
    }

    #[test]
    fn a_run_that_fits_without_kentridge_is_refused_when_its_kentridge_state_does_not() {
        let plain = spec(kentridge_flows(2000, None, None));
        let with = spec(kentridge_flows(2000, Some(json!({"interval": "100ms"})), None));
        let (a, b) = (estimate(&plain).bytes, estimate(&with).bytes);
        assert!(b > a + 2000.0 * 1000.0 * 2.0 * PER_KR_EVENT, "{a} {b}");
        let limit = Some(((a + b) / 2.0) as u64);
        assert!(parse(&kentridge_flows(2000, None, limit).to_string()).is_ok());
        let e = parse(&kentridge_flows(2000, Some(json!({"interval": "100ms"})), limit).to_string())
            .unwrap_err()
            .0;
        assert!(e.starts_with("sim.memory_limit: this run needs an estimated "), "{e}");
        assert!(e.contains("KentRidge "), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }

    #[test]
    fn dsack_undo_and_kentridge_with_timestamps_count_the_senders_detection_box() {
        use crate::tcp::Sender;
        let per = Sender::spurious_state_bytes() as f64;
        assert!(per >= 512.0, "{per}"); // the episode's 64 retransmissions alone
        let with = |tcp: serde_json::Value, kentridge: Option<serde_json::Value>| {
            let mut v = kentridge_flows(100, kentridge, None);
            v["flows"][0]["tcp"] = tcp;
            estimate(&spec(v))
        };
        let plain = with(json!({"sack": true}), None);
        assert_eq!(part(&plain, "spurious-retransmission detection"), 0.0);
        let dsack = with(json!({"sack": true, "dsack": true}), None);
        assert_eq!(part(&dsack, "spurious-retransmission detection"), 100.0 * per);
        assert_eq!(dsack.bytes - plain.bytes, 100.0 * per);
        let undo = with(json!({"timestamps": true, "undo": true}), None);
        assert_eq!(part(&undo, "spurious-retransmission detection"), 100.0 * per);
        // KentRidge keeps the box with timestamps (Eifel on timeouts), not without
        let kr = with(json!({"timestamps": true}), Some(json!({})));
        assert_eq!(part(&kr, "spurious-retransmission detection"), 100.0 * per);
        let kr = with(json!({"timestamps": false}), Some(json!({})));
        assert_eq!(part(&kr, "spurious-retransmission detection"), 0.0);
        // a generator's recorded flows each keep one; a summary generator about one
        let mut g = json!({
            "sim": {"duration": 1000, "sample_interval": 0},
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"a": "a", "b": "b", "rate": "8Mbps", "delay": "10ms"}],
            "generators": [{"kind": "poisson", "src": "a", "dst": "b", "rate": 2, "start": 100, "stop": 600,
                            "size": {"dist": "constant", "value": 10}, "tcp": {"sack": true, "dsack": true}}]
        });
        assert_eq!(
            part(&estimate(&spec(g.clone())), "spurious-retransmission detection"),
            1000.0 * per
        );
        g["generators"][0]["record"] = json!("summary");
        assert_eq!(part(&estimate(&spec(g)), "spurious-retransmission detection"), per);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(512.0), "512 B");
        assert_eq!(human(16.0 * (1u64 << 30) as f64), "16.0 GiB");
        assert_eq!(human(1.5 * 1024.0 * 1024.0), "1.5 MiB");
    }
}
