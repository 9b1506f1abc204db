//! Whole-spec tests: normalisation, fixed points and error paths across sections.
use super::*;
use crate::sim::Dist;

fn base() -> serde_json::Value {
    serde_json::json!({
        "sim": {"duration": "10s"},
        "dumbbell": {"pairs": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 50},
            "access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": 2}]
    })
}

fn parse_v(v: &serde_json::Value) -> Result<Spec, SpecError> {
    parse(&v.to_string())
}

#[test]
fn dumbbell_expands() {
    let s = parse_v(&base()).unwrap();
    assert_eq!(s.nodes.len(), 6);
    assert_eq!(s.links.len(), 5);
    assert_eq!(s.flows.len(), 2);
    assert_eq!(&*s.flows[1].src, "s1");
    assert_eq!(s.links[0].rate, 10e6);
    assert_eq!(s.flows[0].tcp, TcpSpec::default());
}

#[test]
fn normalised_spec_is_a_fixed_point() {
    let s = parse_v(&base()).unwrap();
    let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(s, again);
}

#[test]
fn combined_algorithms_are_named_in_one_order() {
    let mut v = base();
    v["flows"][0]["cc"] = "esse+rfs".into();
    v["flows"][0]["switch"] = serde_json::json!([{"at": "5s", "cc": "esse+wpp+rfs"}]);
    v["generators"] = serde_json::json!([{"kind": "poisson", "src": "s0", "dst": "d0", "rate": 1, "cc": "wpp+rfs",
                                          "size": {"dist": "constant", "value": 5}}]);
    let s = parse_v(&v).unwrap();
    assert_eq!(s.flows[0].cc, "rfs+esse");
    assert_eq!(s.flows[0].switch[0].cc, "rfs+wpp+esse");
    assert_eq!(s.generators[0].cc, "rfs+wpp");
    assert_eq!(s.flows[1].cc, "rfs+esse", "every instance of the entry");
}

#[test]
fn errors_name_the_field() {
    let mut v = base();
    v["flows"][0]["cc"] = "nosuch".into();
    let e = parse_v(&v).unwrap_err().0;
    assert!(
        e.starts_with("flows[0].cc: unknown congestion-control algorithm"),
        "{e}"
    );
    assert!(e.contains("newreno"), "{e}");

    let mut v = base();
    v["dumbbell"]["bottleneck"]["rate"] = (-5.0).into();
    let e = parse_v(&v).unwrap_err().0;
    assert!(e.starts_with("dumbbell.bottleneck.rate:"), "{e}");

    let mut v = base();
    v["dumbbell"]["bottleneck"]["queue"] = 0.into();
    assert!(parse_v(&v).unwrap_err().0.starts_with("dumbbell.bottleneck.queue:"));

    let mut v = base();
    v["flows"][0]["tcp"] = serde_json::json!({"mss": 1000, "bogus": 1});
    assert!(parse_v(&v)
        .unwrap_err()
        .0
        .starts_with("flows[0].tcp.bogus: unknown TCP option"));

    let mut v = base();
    v["flows"][0]["colour"] = "red".into();
    let e = parse_v(&v).unwrap_err().0;
    assert!(e.contains("flows[0]") && e.contains("colour"), "{e}");
}

#[test]
fn udp_flows_normalise_to_a_rate_schedule() {
    let mut v = base();
    v["flows"] = serde_json::json!([
        {"src": "s0", "dst": "d0", "transport": "udp", "rate": "2Mbps", "start": 1.0},
        {"src": "s1", "dst": "d1", "transport": "udp", "packet": 500,
         "rate_schedule": [{"at": 0, "rate": 0}, {"at": "20s", "rate": "1Mbps"}]}
    ]);
    let s = parse_v(&v).unwrap();
    assert_eq!(s.flows[0].rate_schedule, Some(vec![RateStep { at: 0.0, rate: 2e6 }]));
    assert_eq!(s.flows[1].packet, Some(500));
    let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(s, again);
    v["flows"][1]["rate_schedule"][1]["at"] = 0.into();
    let e = parse_v(&v).unwrap_err().0;
    assert!(e.starts_with("flows[1].rate_schedule[1].at:"), "{e}");
    v["flows"][1]["transport"] = "sctp".into();
    assert!(parse_v(&v).unwrap_err().0.starts_with("flows[1].transport:"));
}

#[test]
fn udp_on_off_normalises_to_alternating_steps_up_to_the_flow_stop() {
    let mut v = base();
    v["flows"] = serde_json::json!([
        {"src": "s0", "dst": "d0", "transport": "udp", "rate": "240Mbps", "start": 2.0, "stop": 9.5,
         "on_off": {"on": "2s", "off": "1s"}, "delay_stats": true}
    ]);
    let s = parse_v(&v).unwrap();
    let steps: Vec<(f64, f64)> = s.flows[0]
        .rate_schedule
        .as_ref()
        .unwrap()
        .iter()
        .map(|r| (r.at, r.rate))
        .collect();
    // The flow runs 7.5 s: on [0, 2), off [2, 3), on [3, 5), off [5, 6), on [6, 8) (cut at 7.5).
    assert_eq!(
        steps,
        [(0.0, 240e6), (2.0, 0.0), (3.0, 240e6), (5.0, 0.0), (6.0, 240e6)]
    );
    assert!(s.flows[0].delay_stats);
    let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(s, again);
    v["flows"][0]["on_off"]["start_on"] = 1.into();
    assert!(parse_v(&v).unwrap_err().0.starts_with("flows[0].on_off.start_on:"));
    v["flows"][0]["transport"] = "tcp".into();
    assert!(parse_v(&v).unwrap_err().0.starts_with("flows[0].rate:"));
}

#[test]
fn a_voip_call_expands_into_both_directions_and_normalises_to_a_fixed_point() {
    let mut v = base();
    v["flows"] = serde_json::json!([
        {"name": "call{i}", "src": "s{i}", "dst": "d{i}", "count": 2, "transport": "voip", "start": 1.0},
        {"name": "one", "src": "s0", "dst": "d0", "transport": "voip", "direction": "forward",
         "packet": 160, "interval": "30ms", "delay_trace": true}
    ]);
    let s = parse_v(&v).unwrap();
    let ends: Vec<(&str, &str, &str, Option<&str>)> = s
        .flows
        .iter()
        .map(|f| (f.name.as_str(), &*f.src, &*f.dst, f.direction.as_deref()))
        .collect();
    assert_eq!(
        ends,
        [
            ("call0", "s0", "d0", Some("forward")),
            ("call0.back", "d0", "s0", Some("reverse")),
            ("call1", "s1", "d1", Some("forward")),
            ("call1.back", "d1", "s1", Some("reverse")),
            ("one", "s0", "d0", Some("forward")),
        ]
    );
    for f in &s.flows[..4] {
        assert_eq!((f.packet, f.interval, f.start), (Some(200), Some(0.020), 1.0));
        assert_eq!(f.rate_schedule, Some(vec![RateStep { at: 0.0, rate: 80e3 }]));
        assert!(f.delay_stats && f.transport == "voip");
    }
    assert_eq!(
        s.flows[4].rate_schedule,
        Some(vec![RateStep {
            at: 0.0,
            rate: 160.0 * 8.0 / 0.030
        }])
    );
    let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(s, again);
    for (field, value, path) in [
        ("rate", serde_json::json!("1Mbps"), "flows[1].rate:"),
        ("interval", serde_json::json!(-1), "flows[1].interval:"),
        ("direction", serde_json::json!("up"), "flows[1].direction:"),
        ("size", serde_json::json!(10), "flows[1].transport:"),
    ] {
        let mut w = v.clone();
        w["flows"][1][field] = value;
        let e = parse_v(&w).unwrap_err().0;
        assert!(e.starts_with(path), "{field}: {e}");
    }
    let mut w = v.clone();
    w["flows"][0]["transport"] = "tcp".into();
    w["flows"][0]["interval"] = "20ms".into();
    assert!(parse_v(&w).unwrap_err().0.starts_with("flows[0].interval:"));
    assert!(s.flows[4].delay_trace && !s.flows[0].delay_trace);
    let mut w = base();
    w["flows"][0]["delay_trace"] = true.into();
    assert!(parse_v(&w).unwrap_err().0.starts_with("flows[0].delay_trace:"));
}

#[test]
fn generators_normalise_distributions_and_check_their_kind() {
    let mut v = base();
    v["generators"] = serde_json::json!([
        {"kind": "sessions", "src": "s0", "dst": "d0",
         "size": {"dist": "pareto", "mean": 5000, "std": 8000}, "size_unit": "bytes",
         "session_gap": {"dist": "exponential", "mean": 30},
         "pages": {"dist": "lognormal", "mean": 5, "std": 3},
         "reading": {"dist": "gamma", "mean": 10, "std": 20}},
        {"kind": "poisson", "src": "s1", "dst": "d1", "rate": 5, "size": {"dist": "constant", "value": 100}}
    ]);
    let s = parse_v(&v).unwrap();
    assert_eq!(s.generators.len(), 2);
    assert!(matches!(s.generators[0].pages, Some(Dist::Lognormal { .. })));
    let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(s, again);
    v["generators"][1]["rate"] = serde_json::Value::Null;
    let e = parse_v(&v).unwrap_err().0;
    assert_eq!(e, "generators[1].rate: required for kind = \"poisson\"");
    v["generators"][1]["rate"] = 5.into();
    v["generators"][1]["size"] = serde_json::json!({"dist": "weibull", "mean": 1});
    let e = parse_v(&v).unwrap_err().0;
    assert!(e.starts_with("generators[1].size: unknown distribution"), "{e}");
}

fn lan_spec() -> serde_json::Value {
    serde_json::json!({
        "sim": {"duration": 5},
        "nodes": [{"name": "h", "address": "10.0.2.1", "tcbi": {"controller": "mv", "prefix": 24}},
                  {"name": "r", "kind": "router"}, {"name": "x"}, {"name": "y", "address": "10.0.0.3"}],
        "links": [{"a": "r", "b": "y", "rate": 1e6, "delay": 0.01}],
        "lans": [{"name": "lan1", "members": ["h", "r", "x"], "rate": "10Mb/s", "delay": 0.5e-6, "queue": 20}],
        "flows": [{"src": "h", "dst": "y"}]
    })
}

#[test]
fn addresses_tcbi_and_lans_normalise() {
    let s = parse_v(&lan_spec()).unwrap();
    let addr: Vec<&str> = s.nodes.iter().map(|n| n.address.as_str()).collect();
    // defaults: 10.0.0.(i+1), skipping 10.0.0.3 which y holds
    assert_eq!(addr, ["10.0.2.1", "10.0.0.2", "10.0.0.4", "10.0.0.3"]);
    let t = s.nodes[0].tcbi.as_ref().unwrap();
    assert_eq!((t.controller.as_str(), t.prefix, &t.temporal), ("mv", 24, &None));
    assert_eq!(s.lans[0].queue, 20);
    assert_eq!(s.lans[0].rate, 10e6);
    let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(s, again);
    let mut v = lan_spec();
    v["nodes"][0]["tcbi"]["temporal"] = serde_json::json!({});
    let s = parse_v(&v).unwrap();
    let tmp = s.nodes[0].tcbi.as_ref().unwrap().temporal.clone().unwrap();
    assert_eq!((tmp.lifetime, tmp.ageing.as_str()), (600.0, "linear"));
}

#[test]
fn lan_mac_defaults_to_fifo_and_stays_out_of_the_normalised_spec() {
    let s = parse_v(&lan_spec()).unwrap();
    assert_eq!(s.lans[0].mac, "fifo");
    let text = serde_json::to_string(&s).unwrap();
    assert!(
        !text.contains("\"mac\""),
        "specs without a mac keep their normalised form (and store keys)"
    );
    let mut v = lan_spec();
    v["lans"][0]["mac"] = "csma_cd".into();
    let s = parse_v(&v).unwrap();
    assert_eq!(s.lans[0].mac, "csma_cd");
    let again = parse(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(s, again);
    v["lans"][0]["mac"] = "aloha".into();
    assert!(parse_v(&v).unwrap_err().0.starts_with("lans[0].mac:"));
}

#[test]
fn address_tcbi_and_lan_errors_name_the_field() {
    let cases: Vec<(&str, serde_json::Value, &str)> = vec![
        ("/nodes/2/address", "10.0.2.300".into(), "nodes[2].address:"),
        ("/nodes/2/address", "10.0.2.1".into(), "nodes[2].address:"),
        ("/nodes/0/tcbi/controller", "xx".into(), "nodes[0].tcbi.controller:"),
        ("/nodes/0/tcbi/prefix", 33.into(), "nodes[0].tcbi.prefix:"),
        ("/nodes/0/tcbi/colour", 1.into(), "nodes[0].tcbi.colour:"),
        (
            "/nodes/1/tcbi",
            serde_json::json!({"controller": "mv"}),
            "nodes[1].tcbi:",
        ),
        ("/lans/0/members/2", "nosuch".into(), "lans[0].members[2]:"),
        ("/lans/0/members/2", "h".into(), "lans[0].members[2]:"),
        ("/lans/0/loss", 1.5.into(), "lans[0].loss:"),
        ("/lans/0/queue", 0.into(), "lans[0].queue:"),
    ];
    for (ptr, val, want) in cases {
        let mut v = lan_spec();
        let (parent, key) = ptr.rsplit_once('/').unwrap();
        match v.pointer_mut(parent).unwrap() {
            serde_json::Value::Array(xs) => xs[key.parse::<usize>().unwrap()] = val,
            o => o[key] = val,
        }
        let e = parse_v(&v).unwrap_err().0;
        assert!(e.starts_with(want), "{ptr}: {e}");
    }
}

#[test]
fn unreachable_destination_is_rejected() {
    let v = serde_json::json!({
        "sim": {"duration": 5},
        "nodes": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
        "links": [{"a": "a", "b": "b", "rate": 1e6, "delay": 0.01}],
        "flows": [{"src": "a", "dst": "c"}]
    });
    let e = parse_v(&v).unwrap_err().0;
    assert_eq!(e, "flows[0].dst: no route from \"a\" to \"c\"");
}

#[test]
fn receive_window_in_bytes_becomes_whole_segments() {
    let mut v = base();
    v["flows"][0]["tcp"] = serde_json::json!({"mss": 1460, "rwnd_bytes": "64KiB"});
    let s = parse_v(&v).unwrap();
    assert_eq!(s.flows[0].tcp.rwnd, 44.0, "65536 / 1460 = 44.9");
    // the mss may come after the window
    v["flows"][0]["tcp"] = serde_json::json!({"rwnd_bytes": 100, "mss": 1000});
    assert_eq!(parse_v(&v).unwrap().flows[0].tcp.rwnd, 1.0, "at least one segment");
    v["flows"][0]["tcp"] = serde_json::json!({"rwnd_bytes": 65536, "rwnd": 10});
    let e = parse_v(&v).unwrap_err().0;
    assert!(
        e.starts_with("flows[0].tcp.rwnd_bytes: is not allowed together with rwnd"),
        "{e}"
    );
    for bad in [serde_json::json!(0), serde_json::json!("64KB"), serde_json::json!(-5)] {
        v["flows"][0]["tcp"] = serde_json::json!({ "rwnd_bytes": bad });
        let e = parse_v(&v).unwrap_err().0;
        assert!(e.starts_with("flows[0].tcp.rwnd_bytes: "), "{e}");
    }
    v["flows"][0]["tcp"] = serde_json::json!({"rtt_sample_interval": "10ms"});
    assert_eq!(parse_v(&v).unwrap().flows[0].tcp.rtt_sample_interval, 0.01);
    v["flows"][0]["tcp"] = serde_json::json!({"rtt_sample_interval": -1});
    assert!(parse_v(&v)
        .unwrap_err()
        .0
        .starts_with("flows[0].tcp.rtt_sample_interval: "));
}
