//! A flow's `kentridge` table (docs/kentridge.md): TCP KentRidge's classification period,
//! thresholds, order of precedence, the application's expectations (given, or inferred from
//! the destination port by a port map), the platform's constraints and the knowledge base
//! (built in, a CSV file by path, or rows given inline). Absent: KentRidge is off.
use super::limits::{err, int_in, num, time_pos};
use super::SpecError;
use crate::kentridge::{kb, npc, platform, KbRow, KentRidgeSpec, PipeType, Platform, Thresholds};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

const FIELDS: &[&str] = &[
    "interval",
    "kb",
    "thresholds",
    "precedence",
    "expectations",
    "port_expectations",
    "platform",
    "kb_source",
];
const THRESHOLDS: &[&str] = &[
    "long_rtt",
    "large_cwnd",
    "small_cwnd",
    "large_queue",
    "small_queue",
    "large_jitter",
    "frequent",
    "frequent_off",
    "window",
    "asymmetry",
    "hysteresis",
    "bdp_size",
    "lfn_after_slow_start",
    "spurious_timeout_jitter",
];

fn strings(path: &str, v: &Value) -> Result<Vec<String>, SpecError> {
    let Some(xs) = v.as_array() else {
        return err(path, format!("expected a list of names, got {v}"));
    };
    xs.iter()
        .enumerate()
        .map(|(k, x)| match x.as_str() {
            Some(s) => Ok(s.to_string()),
            None => err(&format!("{path}[{k}]"), format!("expected a name, got {x}")),
        })
        .collect()
}

/// A positive number with no upper bound but finiteness.
fn positive(path: &str, v: &Value) -> Result<f64, SpecError> {
    let x = num(path, v)?;
    if x <= 0.0 {
        return err(path, format!("{x} is not allowed; must be > 0"));
    }
    Ok(x)
}

fn thresholds(p: &str, v: Option<&Value>) -> Result<Thresholds, SpecError> {
    let mut th = Thresholds::default();
    let Some(v) = v else {
        return Ok(th);
    };
    let Some(m) = v.as_object() else {
        return err(p, format!("expected a table, got {v}"));
    };
    for (k, x) in m {
        let q = format!("{p}.{k}");
        match k.as_str() {
            "long_rtt" => th.long_rtt = time_pos(&q, x)?,
            "large_queue" => th.large_queue = time_pos(&q, x)?,
            "small_queue" => th.small_queue = time_pos(&q, x)?,
            "window" => th.window = time_pos(&q, x)?,
            "large_cwnd" => th.large_cwnd = positive(&q, x)?,
            "small_cwnd" => th.small_cwnd = positive(&q, x)?,
            "large_jitter" => th.large_jitter = positive(&q, x)?,
            "asymmetry" => th.asymmetry = positive(&q, x)?,
            "frequent" => th.frequent = int_in(&q, x, 1, 1_000_000)? as u32,
            "frequent_off" => th.frequent_off = int_in(&q, x, 0, 1_000_000)? as u32,
            "hysteresis" => {
                let h = num(&q, x)?;
                if !(0.0..1.0).contains(&h) {
                    return err(&q, format!("{h} is not allowed; must be in [0, 1)"));
                }
                th.hysteresis = h;
            }
            "bdp_size" | "lfn_after_slow_start" | "spurious_timeout_jitter" => {
                let Some(b) = x.as_bool() else {
                    return err(&q, format!("expected true or false, got {x}"));
                };
                match k.as_str() {
                    "bdp_size" => th.bdp_size = b,
                    "lfn_after_slow_start" => th.lfn_after_slow_start = b,
                    _ => th.spurious_timeout_jitter = b,
                }
            }
            _ => return err(&q, format!("unknown threshold; allowed: {}", THRESHOLDS.join(", "))),
        }
    }
    if th.frequent_off >= th.frequent {
        return err(
            &format!("{p}.frequent_off"),
            format!(
                "{} is not allowed; must be below frequent ({})",
                th.frequent_off, th.frequent
            ),
        );
    }
    if th.small_cwnd >= th.large_cwnd {
        return err(
            &format!("{p}.small_cwnd"),
            format!(
                "{} is not allowed; must be below large_cwnd ({})",
                th.small_cwnd, th.large_cwnd
            ),
        );
    }
    Ok(th)
}

/// The knowledge base: absent or "builtin", a path to a CSV file, or a list of row tables.
fn knowledge_base(p: &str, v: Option<&Value>) -> Result<(String, Vec<KbRow>), SpecError> {
    match v {
        None => Ok((
            "builtin".into(),
            kb::parse(kb::BUILTIN).map_err(|e| SpecError(format!("{p}: builtin: {e}")))?,
        )),
        Some(Value::String(s)) if s == "builtin" => knowledge_base(p, None),
        Some(Value::String(path)) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| SpecError(format!("{p}: cannot read {path:?}: {e}")))?;
            let rows = kb::parse(&text).map_err(|e| SpecError(format!("{p}: {path}: {e}")))?;
            Ok((path.clone(), rows))
        }
        Some(Value::Array(xs)) => {
            let mut rows = Vec::new();
            for (k, x) in xs.iter().enumerate() {
                let q = format!("{p}[{k}]");
                let row: KbRow = serde_json::from_value(x.clone()).map_err(|e| {
                    SpecError(format!(
                        "{q}: {e}; a row has {}, {}",
                        kb::COLUMNS.join(", "),
                        kb::OPTIONS_COLUMN
                    ))
                })?;
                row.check().map_err(|e| SpecError(format!("{q}: {e}")))?;
                rows.push(row);
            }
            if rows.is_empty() {
                return err(
                    p,
                    "an empty knowledge base; give rows, a CSV file's path or \"builtin\"",
                );
            }
            Ok(("inline".into(), rows))
        }
        Some(v) => err(
            p,
            format!("expected \"builtin\", a CSV file's path or a list of rows, got {v}"),
        ),
    }
}

/// Expectation terms at `p`: each one a term of the knowledge base's advantages or
/// shortcomings (`terms`).
fn expectation_terms(p: &str, v: &Value, terms: &[&str]) -> Result<Vec<String>, SpecError> {
    let names = strings(p, v)?;
    for (k, e) in names.iter().enumerate() {
        if terms.contains(&e.as_str()) {
            continue;
        }
        let why = if platform::is_cost_term(e) {
            format!("{e:?} is a platform cost, not an expectation; constrain the platform instead (kentridge.platform)")
        } else {
            format!(
                "{e:?} is not a term of the knowledge base's advantages or shortcomings; allowed: {}",
                terms.join(", ")
            )
        };
        return err(&format!("{p}[{k}]"), why);
    }
    Ok(names)
}

/// `port_expectations`: a table of destination port → expectation terms.
fn port_expectations(p: &str, v: &Value, terms: &[&str]) -> Result<BTreeMap<u16, Vec<String>>, SpecError> {
    let Some(m) = v.as_object() else {
        return err(
            p,
            format!("expected a table of port = [expectations], e.g. {{ 80 = [\"low_delay\"] }}, got {v}"),
        );
    };
    let mut map = BTreeMap::new();
    for (key, x) in m {
        let q = format!("{p}.{key}");
        let digits = !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit());
        let port = match key.parse::<u16>() {
            Ok(port) if digits && port >= 1 => port,
            _ => {
                return err(
                    &q,
                    format!("{key:?} is not a port; allowed: a port number from 1 to 65535"),
                )
            }
        };
        if map.insert(port, expectation_terms(&q, x, terms)?).is_some() {
            return err(&q, format!("port {port} is listed twice"));
        }
    }
    Ok(map)
}

/// `platform`: each input (cpu, memory, power) one of its values.
fn platform_table(p: &str, v: &Value) -> Result<Platform, SpecError> {
    let Some(m) = v.as_object() else {
        return err(
            p,
            format!("expected a table such as {{ cpu = \"low\", power = \"battery\" }}, got {v}"),
        );
    };
    let mut pf = Platform::default();
    for (k, x) in m {
        let q = format!("{p}.{k}");
        let Some(input) = platform::INPUTS.iter().find(|i| i.name == k) else {
            let names: Vec<&str> = platform::INPUTS.iter().map(|i| i.name).collect();
            return err(&q, format!("unknown platform input; allowed: {}", names.join(", ")));
        };
        match x.as_str() {
            Some(value) if input.values.contains(&value) => pf.set(input.name, value),
            _ => return err(&q, format!("{x} is not allowed; allowed: {}", input.values.join(", "))),
        }
    }
    Ok(pf)
}

/// Validate `flows[i].kentridge` (`p` is its path).
pub(super) fn kentridge_spec(p: &str, v: Option<&Map<String, Value>>) -> Result<Option<KentRidgeSpec>, SpecError> {
    let Some(m) = v else {
        return Ok(None);
    };
    for k in m.keys() {
        if !FIELDS.contains(&k.as_str()) {
            return err(
                &format!("{p}.{k}"),
                format!("unknown field; allowed: {}", FIELDS.join(", ")),
            );
        }
    }
    let interval = match m.get("interval") {
        Some(v) => time_pos(&format!("{p}.interval"), v)?,
        None => 1.0,
    };
    let th = thresholds(&format!("{p}.thresholds"), m.get("thresholds"))?;
    let precedence = match m.get("precedence") {
        None => npc::DEFAULT_PRECEDENCE.iter().map(|t| t.name().to_string()).collect(),
        Some(v) => {
            let names = strings(&format!("{p}.precedence"), v)?;
            for (k, n) in names.iter().enumerate() {
                let q = format!("{p}.precedence[{k}]");
                match PipeType::parse(n) {
                    Ok(PipeType::Default) => {
                        return err(&q, "\"default\" is what remains when no rule holds; leave it out")
                    }
                    Ok(_) => {}
                    Err(e) => return err(&q, e),
                }
                if names[..k].contains(n) {
                    return err(&q, format!("{n:?} is listed twice"));
                }
            }
            names
        }
    };
    let (mut kb_source, mut rows) = knowledge_base(&format!("{p}.kb"), m.get("kb"))?;
    // The normalised spec keeps where inline rows came from.
    if let (Some(Value::Array(_)), Some(src)) = (m.get("kb"), m.get("kb_source")) {
        match src.as_str() {
            Some(s) => kb_source = s.to_string(),
            None => return err(&format!("{p}.kb_source"), format!("expected a string, got {src}")),
        }
    }
    let terms = kb::terms(&rows);
    let expectations = match m.get("expectations") {
        None => Vec::new(),
        Some(v) => expectation_terms(&format!("{p}.expectations"), v, &terms)?,
    };
    let port_expectations = match m.get("port_expectations") {
        None => None,
        Some(v) => Some(port_expectations(&format!("{p}.port_expectations"), v, &terms)?),
    };
    let platform = match m.get("platform") {
        None => None,
        Some(v) => Some(platform_table(&format!("{p}.platform"), v)?),
    };
    if platform.is_none() {
        kb::without_platform_costs(&mut rows);
    }
    Ok(Some(KentRidgeSpec {
        interval,
        thresholds: th,
        precedence,
        expectations,
        port_expectations,
        platform,
        kb_source,
        kb: rows,
    }))
}
