//! Validation under hostile input: every field of the bases mutated to hostile values, and
//! malformed documents, never panic and are refused with a field path or accepted within the
//! simulator's limits.
use serde_json::{json, Value};
use tcplab_core::scenario::limits::*;
use tcplab_core::scenario::{default_memory_limit, memory, parse, Spec, SpecError};

mod common;
use common::*;

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
        let queues = [l.queue_ab.limit(), l.queue_ba.limit()];
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
