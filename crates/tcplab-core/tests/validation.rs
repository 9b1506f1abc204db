//! Validation is where bad input stops: every value out of range is one error naming the
//! field, nothing panics, set-up is near-linear, and a spec that passes holds only values
//! the simulator can represent.
use serde_json::{json, Value};
use std::time::Instant;
use tcplab_core::scenario::{default_memory_limit, memory, parse};

mod common;
use common::*;

#[test]
fn the_bases_are_valid() {
    parse_v(&base()).unwrap();
    parse_v(&lan_base()).unwrap();
}

#[test]
fn times_that_cannot_be_represented_are_refused() {
    // 2e10 s used to saturate and wrap to 0 s; a sub-nanosecond time used to become 0
    assert_refused(
        &with("/dumbbell/bottleneck/delay", json!(2e10)),
        "dumbbell.bottleneck.delay",
        &["1e9 s"],
    );
    assert_refused(
        &with("/dumbbell/access/delay/1", json!("0.1ns")),
        "dumbbell.access.delay[1]",
        &["1 ns"],
    );
    assert_refused(&with("/sim/duration", json!(1e10)), "sim.duration", &["at most 1e9 s"]);
    assert_refused(
        &with("/sim/sample_interval", json!(1e-12)),
        "sim.sample_interval",
        &["1 ns"],
    );
    assert_refused(&with("/flows/0/stop", json!("2e10s")), "flows[0].stop", &["1e9 s"]);
    assert_refused(
        &with("/flows/0/switch/0/at", json!(1e12)),
        "flows[0].switch[0].at",
        &["1e9 s"],
    );
    assert_refused(
        &with("/flows/2/rate_schedule/1/at", json!(1e300)),
        "flows[2].rate_schedule[1].at",
        &["1e9 s"],
    );
    for key in [
        "delack_timeout",
        "min_rto",
        "max_rto",
        "initial_rto",
        "tick",
        "send_jitter",
    ] {
        assert_refused(
            &with(&format!("/flows/0/tcp/{key}"), json!(5e9)),
            &format!("flows[0].tcp.{key}"),
            &["1e9 s"],
        );
    }
    assert_refused(
        &with("/generators/0/stop", json!(1e11)),
        "generators[0].stop",
        &["1e9 s"],
    );
    assert_refused(
        &with(
            "/generators/1/session_gap",
            json!({"dist": "exponential", "mean": 1e12}),
        ),
        "generators[1].session_gap",
        &["at most 1e9 s"],
    );
    let mut v = lan_base();
    set(&mut v, "/nodes/0/tcbi/temporal/lifetime", json!(1e10));
    assert_refused(&v, "nodes[0].tcbi.temporal.lifetime", &["1e9 s"]);
}

#[test]
fn rates_that_cannot_be_represented_are_refused() {
    // a 1e-300 bit/s link used to carry 59 Mb/s (its transmission time saturated and wrapped)
    assert_refused(
        &with("/dumbbell/bottleneck/rate", json!(1e-300)),
        "dumbbell.bottleneck.rate",
        &["1 bit/s"],
    );
    assert_refused(
        &with("/dumbbell/access/rate", json!("100Tbps")),
        "dumbbell.access.rate",
        &["1e13 bit/s"],
    );
    // a UDP step of 1e-300 bit/s used to loop forever with the clock stuck; 0 still pauses
    assert_refused(
        &with("/flows/2/rate_schedule/1/rate", json!(1e-300)),
        "flows[2].rate_schedule[1].rate",
        &["0 (a pause)"],
    );
    assert_refused(
        &with("/generators/0/rate", json!(1e-300)),
        "generators[0].rate",
        &["flows/s"],
    );
    assert_refused(
        &with("/generators/0/rate", json!(1e300)),
        "generators[0].rate",
        &["flows/s"],
    );
    let mut v = lan_base();
    set(&mut v, "/lans/0/rate", json!("0.5bps"));
    assert_refused(&v, "lans[0].rate", &["1 bit/s"]);
}

#[test]
fn allocations_sized_by_the_spec_are_bounded() {
    // count = 1e19 used to panic with "capacity overflow" deep inside
    assert_refused(&with("/flows/0/count", json!(1e19)), "flows[0].count", &["10000000"]);
    assert_refused(
        &with("/flows/0/count", json!(20_000_000)),
        "flows[0].count",
        &["10000000"],
    );
    let mut v = base();
    set(&mut v, "/flows/0/start", json!(0));
    set(&mut v, "/flows/0/name", json!("f{i}"));
    set(&mut v, "/flows/0/count", json!(6_000_000));
    set(&mut v, "/flows/1/count", json!(6_000_000));
    set(&mut v, "/sim/sample_interval", json!(0));
    assert_refused(&v, "flows[1].count", &["at most 10000000 flows"]);
    assert_refused(
        &with("/dumbbell/pairs", json!(2_000_000)),
        "dumbbell.pairs",
        &["1000000"],
    );
    assert_refused(
        &with("/generators/0/count", json!(1e7)),
        "generators[0].count",
        &["1000000"],
    );
    assert_refused(
        &with("/flows/0/tcp/init_cwnd", json!(1e7)),
        "flows[0].tcp.init_cwnd",
        &["1e6"],
    );
    assert_refused(&with("/flows/0/tcp/rwnd", json!(1e12)), "flows[0].tcp.rwnd", &["1e9"]);
    assert_refused(
        &with("/dumbbell/bottleneck/queue", json!(5e9)),
        "dumbbell.bottleneck.queue",
        &["1000000000"],
    );
    assert_refused(&with("/flows/1/size", json!(1e15)), "flows[1].size", &["1000000000000"]);
    // a Poisson generator expected to create more flows than flow ids allow
    let mut v = with("/generators/0/rate", json!(1e9));
    set(&mut v, "/generators/0/max_flows", Value::Null);
    set(&mut v, "/sim/sample_interval", json!(0));
    assert_refused(&v, "generators[0].rate", &["1e9", "max_flows"]);
    // samples: duration / sample_interval x (flows + generators + link directions)
    let mut v = with("/sim/duration", json!(1e6));
    set(&mut v, "/sim/sample_interval", json!(1e-6));
    assert_refused(&v, "sim.sample_interval", &["rows", "1e10"]);
    // a full queue must drain within the clock's range
    let mut v = with("/dumbbell/bottleneck/rate", json!(1));
    set(&mut v, "/dumbbell/bottleneck/queue", json!(1_000_000));
    assert_refused(&v, "dumbbell.bottleneck.queue", &["1040 bytes", "1e9 s"]);
}

#[test]
fn a_spec_estimated_above_the_memory_limit_is_refused_with_the_estimate() {
    // 100 s sampled every millisecond with 200 flows and 402 link directions
    let mut v = with("/dumbbell/pairs", json!(200));
    set(&mut v, "/dumbbell/access/delay", json!("1ms"));
    set(&mut v, "/flows/0/count", json!(200));
    set(&mut v, "/flows/0/start", json!(0));
    set(&mut v, "/sim/duration", json!(100));
    set(&mut v, "/sim/sample_interval", json!("1ms"));
    set(&mut v, "/sim/memory_limit", json!("16GiB"));
    let e = error(&v);
    assert!(e.starts_with("sim.memory_limit: this run needs an estimated "), "{e}");
    assert!(
        e.contains("samples") && e.contains("limit of 16.0 GiB") && e.contains("memory_limit = \""),
        "{e}"
    );
    // Without a limit in the spec, the machine's physical memory is the limit.
    let mut huge = v.clone();
    huge["sim"].as_object_mut().unwrap().remove("memory_limit");
    set(&mut huge, "/sim/sample_interval", json!("20us"));
    let e = error(&huge);
    let limit = memory::human(default_memory_limit() as f64);
    assert!(e.contains(&format!("limit of {limit};")), "{e}");
    if let Ok(text) = std::fs::read_to_string("/proc/meminfo") {
        let kib: u64 = text
            .lines()
            .next()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(default_memory_limit(), kib * 1024, "MemTotal is the default");
    }
    // the limit can be raised, as the message says; the estimate is what refused it
    let spec = {
        set(&mut v, "/sim/memory_limit", json!("1TiB"));
        parse_v(&v).unwrap()
    };
    let estimate = memory::estimate(&spec).bytes;
    assert!(estimate > (16u64 << 30) as f64 && estimate < (1u64 << 40) as f64);
    assert_eq!(spec.sim.memory_limit, Some(1 << 40));
    set(&mut v, "/sim/memory_limit", json!(16e12));
    assert_eq!(parse_v(&v).unwrap().sim.memory_limit, Some(16_000_000_000_000));
    // and lowered
    let v = with("/sim/memory_limit", json!("1MB"));
    assert!(error(&v).starts_with("sim.memory_limit: this run needs an estimated "));
    assert_refused(&with("/sim/memory_limit", json!("16Gb")), "sim.memory_limit", &["GiB"]);
    assert_refused(&with("/sim/memory_limit", json!(-1)), "sim.memory_limit", &["1 byte"]);
}

#[test]
fn the_memory_limit_appears_in_the_normalised_spec_only_when_set() {
    let s = serde_json::to_value(parse_v(&base()).unwrap()).unwrap();
    assert!(s["sim"].get("memory_limit").is_none(), "{}", s["sim"]);
    let spec = parse_v(&with("/sim/memory_limit", json!("32GiB"))).unwrap();
    let s = serde_json::to_string(&spec).unwrap();
    assert!(s.contains("\"memory_limit\":34359738368"), "{s}");
    assert_eq!(parse(&s).unwrap(), spec, "the normalised form is a fixed point");
}

#[test]
fn a_list_where_a_table_is_expected_is_refused() {
    // serde reads a list positionally into a struct: [1, 2] was rate 1, delay 2
    assert_refused(
        &with("/dumbbell/bottleneck", json!([1, 2])),
        "dumbbell.bottleneck",
        &["expected a table"],
    );
    assert_refused(&with("/sim", json!(["10s"])), "sim", &["expected a table"]);
    assert_refused(
        &with("/flows", json!([["s0", "d0"]])),
        "flows[0]",
        &["expected a table"],
    );
    assert_refused(
        &with("/flows/0/switch", json!([["5s", "reno"]])),
        "flows[0].switch[0]",
        &["expected a table"],
    );
    assert_refused(
        &with("/flows/2/rate_schedule", json!([[0, 1e6]])),
        "flows[2].rate_schedule[0]",
        &["expected a table"],
    );
    assert_refused(&with("/pcap/0", json!(["r1", "r2"])), "pcap[0]", &["expected a table"]);
    assert_refused(
        &with("/generators/0/tcp", json!([1000])),
        "generators[0].tcp",
        &["expected a table"],
    );
    let mut v = lan_base();
    set(&mut v, "/nodes/1", json!(["r", "router"]));
    assert_refused(&v, "nodes[1]", &["expected a table"]);
    let mut v = lan_base();
    set(&mut v, "/lans/0", json!(["lan1", ["h", "r"], 1e6]));
    assert_refused(&v, "lans[0]", &["expected a table"]);
    let mut v = lan_base();
    set(&mut v, "/links/0", json!(["r", "y", 1e6, 0.01]));
    assert_refused(&v, "links[0]", &["expected a table"]);
}

#[test]
fn upper_case_b_in_a_rate_is_bytes() {
    // "10MB/s" used to mean 10 megabits/s
    let s = parse_v(&with("/dumbbell/bottleneck/rate", json!("10MB/s"))).unwrap();
    assert_eq!(s.links[0].rate, 80e6);
    for spelling in ["10Mbps", "10Mb/s", "10Mbit/s", "10000kbps", "0.01Gbps"] {
        let s = parse_v(&with("/dumbbell/bottleneck/rate", json!(spelling))).unwrap();
        assert!((s.links[0].rate - 10e6).abs() < 1e-6, "{spelling}");
    }
    for ambiguous in ["10MBPS", "10mbps", "10mb/s", "10 mbit"] {
        assert_refused(
            &with("/dumbbell/bottleneck/rate", json!(ambiguous)),
            "dumbbell.bottleneck.rate",
            &["unknown rate unit", "(bits)", "(bytes)"],
        );
    }
}

#[test]
fn clamped_values_are_errors_naming_the_range() {
    // each of these used to be clamped silently with .min(65535) or .min(1000)
    for (ptr, field, val, range) in [
        ("/flows/0/tcp/mss", "flows[0].tcp.mss", 70000, "from 1 to 65535"),
        ("/flows/0/tcp/header", "flows[0].tcp.header", 70000, "from 0 to 65535"),
        (
            "/flows/0/tcp/ack_size",
            "flows[0].tcp.ack_size",
            70000,
            "from 1 to 65535",
        ),
        (
            "/flows/0/tcp/delack_count",
            "flows[0].tcp.delack_count",
            5000,
            "from 1 to 1000",
        ),
        (
            "/flows/0/tcp/dupthresh",
            "flows[0].tcp.dupthresh",
            5000,
            "from 1 to 1000",
        ),
        ("/flows/2/packet", "flows[2].packet", 70000, "from 1 to 65535"),
    ] {
        assert_refused(&with(ptr, json!(val)), field, &[&val.to_string(), range]);
    }
}

#[test]
fn integers_given_as_floats_must_be_exact() {
    assert_refused(&with("/flows/0/count", json!(2.5)), "flows[0].count", &["integer"]);
    assert_refused(&with("/dumbbell/pairs", json!(1.5)), "dumbbell.pairs", &["integer"]);
    assert_refused(&with("/sim/seed", json!(-1)), "sim.seed", &["integer"]);
    assert_refused(&with("/sim/seed", json!(0.5)), "sim.seed", &["integer"]);
    let s = parse_v(&with("/flows/0/count", json!(2.0))).unwrap();
    assert_eq!(s.flows.len(), 4);
    // NaN and infinities cannot be written in JSON; a number too large for a double is a
    // syntax error, never an infinity
    let e = parse(r#"{"sim": {"duration": 1e400}}"#).unwrap_err().0;
    assert!(e.starts_with("spec: "), "{e}");
    let e = parse(r#"{"sim": {"duration": NaN}}"#).unwrap_err().0;
    assert!(e.starts_with("spec: "), "{e}");
    // a distribution whose moments overflow to an infinite parameter
    assert_refused(
        &with(
            "/generators/0/size",
            json!({"dist": "gamma", "mean": 1e160, "std": 1e-10}),
        ),
        "generators[0].size",
        &["finite"],
    );
}

#[test]
fn names_are_bounded_and_printable() {
    let long = "n".repeat(256);
    let mut v = lan_base();
    set(&mut v, "/nodes/2/name", json!(long));
    assert_refused(&v, "nodes[2].name", &["256 bytes", "printable"]);
    let mut v = lan_base();
    set(&mut v, "/nodes/2/name", json!("x\u{0}y"));
    assert_refused(&v, "nodes[2].name", &["control character"]);
    let mut v = lan_base();
    set(&mut v, "/nodes/2/name", json!(""));
    assert_refused(&v, "nodes[2].name", &["must not be empty"]);
    let mut v = lan_base();
    set(&mut v, "/lans/0/name", json!("lan\n1"));
    assert_refused(&v, "lans[0].name", &["control character"]);
    assert_refused(
        &with("/flows/0/name", json!("tab\there")),
        "flows[0].name",
        &["control character"],
    );
    assert_refused(
        &with("/generators/0/name", json!(long)),
        "generators[0].name",
        &["256 bytes"],
    );
    // a name within the limit that grows past it by the {i} expansion
    assert_refused(
        &with("/flows/0/name", json!("n".repeat(255))),
        "flows[0].name",
        &["256 bytes"],
    );
}

/// A dumbbell of `pairs` pairs with one flow per pair, as JSON.
fn big_dumbbell(pairs: u64) -> String {
    json!({
        "sim": {"duration": 0.01},
        "dumbbell": {"pairs": pairs,
            "bottleneck": {"rate": "10Gbps", "delay": "20ms", "queue": 100},
            "access": {"rate": "100Mbps", "delay": "1ms", "queue": 100}},
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": pairs}],
        "generators": [{"name": "g{i}", "count": 1000, "kind": "closed", "src": "s{i}", "dst": "d{i}",
                        "size": {"dist": "constant", "value": 10}, "record": "summary"}],
        "pcap": (0..1000).map(|i| json!({"a": format!("s{i}"), "b": "r1"})).collect::<Vec<_>>()
    })
    .to_string()
}

#[test]
fn set_up_is_near_linear() {
    // 100 000 pairs: 200 002 nodes, 200 001 links, 100 000 flows. A check per flow over all
    // nodes (the former BFS) or per generator over all generators would take minutes.
    let text = big_dumbbell(100_000);
    let t = Instant::now();
    let spec = parse(&text).unwrap();
    let elapsed = t.elapsed().as_secs_f64();
    assert_eq!((spec.nodes.len(), spec.flows.len()), (200_002, 100_000));
    assert!(elapsed < 10.0, "validating 100 000 pairs took {elapsed:.2} s");
    eprintln!("100 000 pairs validated in {elapsed:.2} s");
    // a LAN of 20 000 members and many default addresses behind explicit ones
    let n = 20_000;
    let mut nodes: Vec<Value> = (0..n).map(|i| json!({"name": format!("h{i}")})).collect();
    for (i, node) in nodes.iter_mut().enumerate().skip(n / 2) {
        node["address"] = json!(format!("10.0.{}.{}", (i - n / 2 + 1) / 256, (i - n / 2 + 1) % 256));
    }
    let members: Vec<String> = (0..n).map(|i| format!("h{i}")).collect();
    let v = json!({"sim": {"duration": 1, "memory_limit": "1TiB"}, "nodes": nodes,
                   "lans": [{"name": "big", "members": members, "rate": "1Gbps"}],
                   "flows": [{"src": "h{i}", "dst": "h19999", "count": 1000, "start": 0}]});
    let t = Instant::now();
    let spec = parse_v(&v).unwrap_or_else(|e| panic!("{}", e.0));
    let elapsed = t.elapsed().as_secs_f64();
    assert_eq!(
        spec.nodes[0].address,
        format!("10.0.{}.{}", (n / 2 + 1) / 256, (n / 2 + 1) % 256)
    );
    assert!(elapsed < 10.0, "validating a LAN of {n} members took {elapsed:.2} s");
}
