//! Validation is where bad input stops: every value out of range is one error naming the
//! field, nothing panics, set-up is near-linear, and a spec that passes holds only values
//! the simulator can represent.
use serde_json::{json, Value};
use std::time::Instant;
use tcplab_core::scenario::limits::*;
use tcplab_core::scenario::{default_memory_limit, memory, parse, Spec, SpecError};

fn base() -> Value {
    json!({
        "sim": {"duration": "10s", "sample_interval": "100ms", "seed": 3},
        "dumbbell": {"pairs": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 50, "loss": 0.01},
            "access": {"rate": "100Mbps", "delay": ["1ms", "2ms"], "queue": 1000}},
        "flows": [
            {"name": "bulk", "src": "s{i}", "dst": "d{i}", "count": 2, "cc": "newreno",
             "start": [0, "1s"], "stop": "9s", "switch": [{"at": "5s", "cc": "reno"}],
             "tcp": {"mss": 1000, "header": 40, "ack_size": 40, "init_cwnd": 2, "init_ssthresh": 64,
                     "rwnd": 1000, "delayed_ack": true, "delack_timeout": "100ms", "delack_count": 2,
                     "dupthresh": 3, "min_rto": "200ms", "max_rto": "64s", "initial_rto": "3s",
                     "tick": "10ms", "send_jitter": "1ms"}},
            {"src": "s0", "dst": "d1", "size": 100, "cc": "rfs+esse", "cc_params": {"error": "tbe"}},
            {"src": "s1", "dst": "d0", "transport": "udp", "packet": 500,
             "rate_schedule": [{"at": 0, "rate": 0}, {"at": "2s", "rate": "1Mbps"}]}
        ],
        "generators": [
            {"name": "web", "kind": "poisson", "src": "s0", "dst": "d0", "rate": 5, "stop": "8s",
             "size": {"dist": "pareto", "mean": 5000, "std": 8000}, "size_unit": "bytes", "max_flows": 100},
            {"kind": "sessions", "src": "s1", "dst": "d1", "record": "summary",
             "size": {"dist": "constant", "value": 10},
             "session_gap": {"dist": "exponential", "mean": 3},
             "pages": {"dist": "lognormal", "mean": 5, "std": 3},
             "reading": {"dist": "gamma", "shape": 0.5, "scale": 2}}
        ],
        "pcap": [{"a": "r1", "b": "r2"}]
    })
}

fn lan_base() -> Value {
    json!({
        "sim": {"duration": 5, "memory_limit": "1GiB"},
        "nodes": [{"name": "h", "address": "10.0.2.1",
                   "tcbi": {"controller": "fs", "prefix": 24, "temporal": {"lifetime": "600s", "ageing": "linear"}}},
                  {"name": "r", "kind": "router"}, {"name": "x"}, {"name": "y", "address": "10.0.0.3"}],
        "links": [{"a": "r", "b": "y", "rate": 1e6, "delay": 0.01, "queue_ab": 10, "queue_ba": 20,
                   "loss_ab": 0.01, "cost": 2, "cost_ba": 3}],
        "lans": [{"name": "lan1", "members": ["h", "r", "x"], "rate": "10Mb/s", "delay": 0.5e-6,
                  "queue": 20, "loss": 0.001}],
        "flows": [{"src": "h", "dst": "y", "tcp": {"timestamps": true, "handshake": true}}],
        "generators": [{"kind": "closed", "src": "x", "dst": "y", "think": {"dist": "uniform", "low": 0, "high": 2},
                        "size": {"dist": "exponential", "mean": 20}}],
        "pcap": [{"a": "h", "b": "x"}]
    })
}

fn parse_v(v: &Value) -> Result<Spec, SpecError> {
    parse(&v.to_string())
}

fn error(v: &Value) -> String {
    parse_v(v).expect_err("the spec should be refused").0
}

/// Set the value at a JSON pointer (creating the last key).
fn set(v: &mut Value, ptr: &str, val: Value) {
    let (parent, key) = ptr.rsplit_once('/').unwrap();
    match v.pointer_mut(parent).unwrap() {
        Value::Array(xs) => xs[key.parse::<usize>().unwrap()] = val,
        Value::Object(o) => {
            o.insert(key.to_string(), val);
        }
        _ => panic!("{ptr}: parent is not a container"),
    }
}

fn with(ptr: &str, val: Value) -> Value {
    let mut v = base();
    set(&mut v, ptr, val);
    v
}

fn assert_refused(v: &Value, field: &str, words: &[&str]) {
    let e = error(v);
    assert!(
        e.starts_with(&format!("{field}: ")),
        "expected an error on {field}, got: {e}"
    );
    for w in words {
        assert!(e.contains(w), "{field}: {e:?} does not say {w:?}");
    }
}

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

// ------------------------------------------------------------------ mutation test

/// Values substituted for every field of the bases.
fn hostile_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(1),
        json!(-1),
        json!(2.5),
        json!(-0.0),
        json!(1e-300),
        json!(1e-10),
        json!(1e9),
        json!(1e10),
        json!(1e19),
        json!(1e300),
        json!(-1e300),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(4_294_967_296u64),
        json!(65_536),
        json!(""),
        json!("x"),
        json!("s{i}"),
        json!("NaN"),
        json!("inf"),
        json!("1e400"),
        json!("-5ms"),
        json!("1e20s"),
        json!("0.5ns"),
        json!("10MB/s"),
        json!("1e-300bps"),
        json!("\u{0}"),
        json!("n".repeat(300)),
        json!([]),
        json!([1, 2]),
        json!([[1]]),
        json!([{"x": 1}]),
        json!({}),
        json!({"x": 1}),
        json!({"dist": "constant", "value": 1e300}),
        json!({"dist": "pareto", "shape": 0.1, "scale": 1e10}),
        json!({"dist": "gamma", "mean": 1e200, "std": 1e-200}),
    ]
}

/// Every JSON pointer of `v` (containers and leaves), in document order.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{k}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        Value::Array(xs) => {
            for (i, x) in xs.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        _ => {}
    }
}

/// An error message starts with a field path: `sim.duration: `, `flows[2].tcp.mss: `, ...
fn names_a_field(msg: &str) -> bool {
    let Some((path, _)) = msg.split_once(": ") else {
        return false;
    };
    let top = path.split(['.', '[']).next().unwrap_or("");
    [
        "spec",
        "sim",
        "nodes",
        "links",
        "dumbbell",
        "flows",
        "pcap",
        "generators",
        "lans",
    ]
    .contains(&top)
        && path.chars().all(|c| c.is_ascii_alphanumeric() || "_.[]".contains(c))
}

fn time_ok(t: f64) -> bool {
    t == 0.0 || (MIN_POSITIVE_TIME..=MAX_TIME).contains(&t)
}

fn rate_ok(r: f64) -> bool {
    (MIN_RATE..=MAX_RATE).contains(&r)
}

fn name_ok(n: &str) -> bool {
    !n.is_empty() && n.len() <= MAX_NAME_BYTES && !n.chars().any(char::is_control)
}

/// What every accepted spec guarantees the simulator.
fn check_limits(s: &Spec) -> Result<(), String> {
    let fail = |what: String| Err(what);
    if !(time_ok(s.sim.duration) && s.sim.duration > 0.0 && time_ok(s.sim.sample_interval)) {
        return fail(format!("sim {:?}", s.sim));
    }
    if memory::estimate(s).bytes > s.sim.memory_limit.unwrap_or_else(default_memory_limit) as f64 {
        return fail("estimate above the limit".into());
    }
    for n in &s.nodes {
        if !name_ok(&n.name) {
            return fail(format!("node name {:?}", n.name));
        }
        if let Some(t) = n.tcbi.as_ref().and_then(|t| t.temporal.as_ref()) {
            if !(time_ok(t.lifetime) && t.lifetime > 0.0) {
                return fail(format!("lifetime {}", t.lifetime));
            }
        }
    }
    for l in &s.links {
        let queues = [l.queue_ab, l.queue_ba];
        if !(rate_ok(l.rate) && time_ok(l.delay) && queues.iter().all(|q| (1..=MAX_QUEUE).contains(&(*q as u64)))) {
            return fail(format!("link {l:?}"));
        }
        if queues
            .iter()
            .any(|q| *q as f64 * 131_070.0 * 8.0 / l.rate > 1e3 * MAX_TIME)
        {
            return fail(format!("link queue drain {l:?}"));
        }
    }
    for l in &s.lans {
        if !(rate_ok(l.rate) && time_ok(l.delay) && name_ok(&l.name) && l.queue >= 1) {
            return fail(format!("lan {l:?}"));
        }
    }
    if s.flows.len() as u64 > MAX_FLOWS || s.generators.len() as u64 > MAX_GENERATORS {
        return fail("too many flows or generators".into());
    }
    let tcp_ok = |t: &tcplab_core::scenario::TcpSpec| {
        (1..=MAX_PACKET).contains(&(t.mss as u64))
            && (t.header as u64) <= MAX_PACKET
            && (1..=MAX_PACKET).contains(&(t.ack_size as u64))
            && (1.0..=MAX_INIT_CWND).contains(&t.init_cwnd)
            && (1.0..=MAX_WINDOW).contains(&t.rwnd)
            && t.init_ssthresh.is_finite()
            && (1..=MAX_ACK_COUNT).contains(&(t.delack_count as u64))
            && (1..=MAX_ACK_COUNT).contains(&(t.dupthresh as u64))
            && [t.delack_timeout, t.min_rto, t.max_rto, t.initial_rto]
                .iter()
                .all(|x| time_ok(*x) && *x > 0.0)
            && time_ok(t.tick)
            && time_ok(t.send_jitter)
            && t.min_rto <= t.max_rto
    };
    for f in &s.flows {
        let steps_ok = f
            .rate_schedule
            .iter()
            .flatten()
            .all(|r| time_ok(r.at) && (r.rate == 0.0 || rate_ok(r.rate)));
        if !(name_ok(&f.name)
            && time_ok(f.start)
            && f.start < s.sim.duration
            && f.stop.is_none_or(time_ok)
            && f.switch.iter().all(|w| time_ok(w.at))
            && f.size.is_none_or(|x| (1..=MAX_FLOW_SIZE).contains(&x))
            && f.packet.is_none_or(|p| (1..=MAX_PACKET).contains(&(p as u64)))
            && steps_ok
            && tcp_ok(&f.tcp))
        {
            return fail(format!("flow {f:?}"));
        }
    }
    for g in &s.generators {
        let rate_ok = g.rate.is_none_or(|r| (MIN_FLOW_RATE..=MAX_FLOW_RATE).contains(&r));
        let times = [&g.think, &g.reading, &g.session_gap];
        let dist_ok = times.iter().all(|d| {
            d.as_ref()
                .is_none_or(|d| d.mean().is_finite() || matches!(d, tcplab_core::sim::Dist::Pareto { .. }))
        });
        if !(name_ok(&g.name)
            && time_ok(g.start)
            && g.start < s.sim.duration
            && g.stop.is_none_or(time_ok)
            && rate_ok
            && dist_ok
            && tcp_ok(&g.tcp))
        {
            return fail(format!("generator {g:?}"));
        }
    }
    Ok(())
}

/// Validate one mutated spec: it must not panic, must fail with a field path or pass with
/// every value within the limits, and a passing spec's normalised form must pass again.
/// (Not necessarily bit for bit: serde_json's default float parsing may be one unit in the
/// last place off for numbers printed with 17 digits, such as converted distribution
/// parameters.)
fn try_spec(v: &Value, what: &str) -> Result<bool, String> {
    let text = v.to_string();
    let outcome = std::panic::catch_unwind(|| parse(&text)).map_err(|_| format!("{what}: panicked"))?;
    match outcome {
        Err(SpecError(msg)) if names_a_field(&msg) => Ok(false),
        Err(SpecError(msg)) => Err(format!("{what}: the error does not start with a field path: {msg}")),
        Ok(spec) => {
            check_limits(&spec).map_err(|e| format!("{what}: accepted a value out of range: {e}"))?;
            let again = parse(&serde_json::to_string(&spec).unwrap())
                .map_err(|e| format!("{what}: the normalised form is refused: {}", e.0))?;
            check_limits(&again).map_err(|e| format!("{what}: normalised again, out of range: {e}"))?;
            if (again.flows.len(), again.generators.len()) != (spec.flows.len(), spec.generators.len()) {
                return Err(format!("{what}: the normalised form expands differently"));
            }
            Ok(true)
        }
    }
}

#[test]
fn mutated_specs_never_panic_and_are_refused_with_a_field_path() {
    let values = hostile_values();
    let (mut tried, mut accepted, mut failures) = (0, 0, Vec::new());
    for (b, base) in [base(), lan_base()].into_iter().enumerate() {
        let mut ptrs = Vec::new();
        pointers(&base, String::new(), &mut ptrs);
        // one field replaced by each hostile value, and each field removed
        for p in &ptrs {
            for (k, val) in values.iter().enumerate() {
                let mut v = base.clone();
                set(&mut v, p, val.clone());
                tried += 1;
                match try_spec(&v, &format!("base {b}, {p} = value {k} ({val})")) {
                    Ok(ok) => accepted += ok as usize,
                    Err(e) => failures.push(e),
                }
            }
            let mut v = base.clone();
            let (parent, key) = p.rsplit_once('/').unwrap();
            match v.pointer_mut(parent) {
                Some(Value::Object(o)) => {
                    o.remove(key);
                }
                Some(Value::Array(xs)) => {
                    xs.remove(key.parse::<usize>().unwrap());
                }
                _ => {}
            }
            tried += 1;
            match try_spec(&v, &format!("base {b}, {p} removed")) {
                Ok(ok) => accepted += ok as usize,
                Err(e) => failures.push(e),
            }
        }
        // pairs of mutations chosen by a fixed linear congruential sequence
        let mut x: u64 = 12345;
        let mut next = |n: usize| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) as usize % n
        };
        for _ in 0..3000 {
            let mut v = base.clone();
            let mut what = format!("base {b}");
            for _ in 0..2 {
                let p = &ptrs[next(ptrs.len())];
                let k = next(values.len());
                if v.pointer(p).is_some() {
                    set(&mut v, p, values[k].clone());
                    what += &format!(", {p} = value {k}");
                }
            }
            tried += 1;
            match try_spec(&v, &what) {
                Ok(ok) => accepted += ok as usize,
                Err(e) => failures.push(e),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {tried} failed:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    // the mutations must not all be trivially refused
    assert!(accepted > 200, "only {accepted} of {tried} accepted");
    eprintln!("{tried} mutated specs, {accepted} accepted");
}

#[test]
fn deeply_nested_or_malformed_input_is_an_error_not_a_crash() {
    let deep = format!("{{\"sim\": {}{}}}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(parse(&deep).unwrap_err().0.starts_with("spec: "));
    for text in [
        "",
        "null",
        "[]",
        "\"sim\"",
        "{\"sim\": \"x\"}",
        "{\"sim\": {\"duration\": 1}",
        "\u{0}",
    ] {
        let e = parse(text).unwrap_err().0;
        assert!(names_a_field(&e), "{text:?}: {e}");
    }
}
