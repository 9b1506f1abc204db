//! The queue of a link direction: `queue = 100` (DropTail holding at most 100 packets, the
//! fast path) or a table naming a discipline, `queue = {type = "red", min_th = 5, ...}`:
//! `droptail` (the same queue, with its queueing delay measured), `red` (ns-2.35's
//! `Queue/RED`), `codel` (RFC 8289) or `fq_codel` (RFC 8290). docs/scenario.md lists the
//! parameters with their ns-2 / RFC names and defaults.
use super::limits::{boolean, err, int_in, num, queue, time_pos, MAX_PACKET, MAX_QUEUE};
use super::SpecError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A link direction's queue in the normalised spec: a number (plain DropTail) or the
/// discipline's table with every parameter filled in.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum QueueSpec {
    /// DropTail with at most this many packets in the system (waiting + in service).
    DropTail(u32),
    Managed(Discipline),
}

impl QueueSpec {
    /// The most packets the queue holds.
    pub fn limit(&self) -> u32 {
        match self {
            QueueSpec::DropTail(n) => *n,
            QueueSpec::Managed(d) => d.limit(),
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Discipline {
    /// DropTail, on the path that measures queueing delay.
    Droptail {
        limit: u32,
    },
    Red(RedSpec),
    Codel(CodelSpec),
    FqCodel(FqCodelSpec),
}

impl Discipline {
    pub fn limit(&self) -> u32 {
        match self {
            Discipline::Droptail { limit } => *limit,
            Discipline::Red(r) => r.limit,
            Discipline::Codel(c) => c.limit,
            Discipline::FqCodel(f) => f.limit,
        }
    }

    /// The name of its `type`.
    pub fn name(&self) -> &'static str {
        match self {
            Discipline::Droptail { .. } => "droptail",
            Discipline::Red(_) => "red",
            Discipline::Codel(_) => "codel",
            Discipline::FqCodel(_) => "fq_codel",
        }
    }
}

/// RED in packet mode, as ns-2.35's `Queue/RED` with `bytes_ false`, `queue_in_bytes_
/// false`, `use_mark_p_ false`, `drop_tail_ true` (ns-2 names in brackets).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Packets in the system (waiting + in service) beyond which arrivals are dropped.
    pub limit: u32,
    /// [thresh_] Average queue (packets) where early drops start.
    pub min_th: f64,
    /// [maxthresh_] Average queue where the probability reaches max_p.
    pub max_th: f64,
    /// [q_weight_] Weight of the EWMA of the queue length.
    pub q_weight: f64,
    /// [1/linterm_] Drop probability at max_th.
    pub max_p: f64,
    /// [gentle_] Between max_th and 2·max_th the probability rises from max_p to 1 (else
    /// every arrival above max_th is dropped).
    pub gentle: bool,
    /// [wait_] Space drops out more evenly (ns-2's variant of the count-based uniformisation).
    pub wait: bool,
    /// [mean_pktsize_] Bytes; the link's packets per second (ptc) for the idle correction.
    pub mean_pktsize: u32,
    /// [setbit_] Mark ECN-capable packets with CE instead of dropping them early.
    pub ecn: bool,
}

/// CoDel (RFC 8289).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    pub limit: u32,
    /// Seconds: the acceptable standing queueing delay (TARGET).
    pub target: f64,
    /// Seconds: the sliding window over which the delay must stay above target (INTERVAL).
    pub interval: f64,
    pub ecn: bool,
}

/// FQ-CoDel (RFC 8290).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FqCodelSpec {
    /// Packets in all queues together; beyond it the fattest queue loses its head.
    pub limit: u32,
    pub target: f64,
    pub interval: f64,
    pub ecn: bool,
    /// Queues the flows are hashed into.
    pub flows: u32,
    /// Bytes a queue may send per round of the deficit round robin.
    pub quantum: u32,
}

pub const TYPES: &str = "droptail, red, codel, fq_codel";
/// ns-2.35's RED targetdelay_ (for min_th = "auto").
const RED_TARGET_DELAY: f64 = 0.005;
/// Largest queue count of FQ-CoDel.
const MAX_FQ_FLOWS: u64 = 65_536;
/// FQ-CoDel quantum, bytes (below 64 the round robin turns many times per packet).
const MIN_QUANTUM: u64 = 64;
const MAX_QUANTUM: u64 = 1_000_000;

/// The queue field at `path`: a number (DropTail) or a discipline's table. `default_limit`
/// is the limit of a DropTail or RED queue that gives none; `rate` (bit/s) and `delay` (s)
/// are the link's, for RED's automatic parameters.
pub(super) fn queue_field(
    path: &str,
    v: &Value,
    default_limit: u32,
    rate: f64,
    delay: f64,
) -> Result<QueueSpec, SpecError> {
    match v {
        Value::Object(m) => discipline(path, m, default_limit, rate, delay).map(QueueSpec::Managed),
        _ => Ok(QueueSpec::DropTail(queue(path, v)?)),
    }
}

fn allowed_fields(ty: &str) -> &'static [&'static str] {
    match ty {
        "droptail" => &["type", "limit"],
        "red" => &[
            "type",
            "limit",
            "min_th",
            "max_th",
            "q_weight",
            "max_p",
            "gentle",
            "wait",
            "mean_pktsize",
            "ecn",
        ],
        "codel" => &["type", "limit", "target", "interval", "ecn"],
        _ => &["type", "limit", "target", "interval", "ecn", "flows", "quantum"],
    }
}

fn discipline(
    path: &str,
    m: &Map<String, Value>,
    default_limit: u32,
    rate: f64,
    delay: f64,
) -> Result<Discipline, SpecError> {
    let ty = match m.get("type") {
        Some(Value::String(s)) => s.as_str(),
        Some(v) => return err(&format!("{path}.type"), format!("{v} is not allowed; allowed: {TYPES}")),
        None => {
            return err(
                &format!("{path}.type"),
                format!("missing: a queue given as a table names its type; allowed: {TYPES}"),
            )
        }
    };
    if !["droptail", "red", "codel", "fq_codel"].contains(&ty) {
        return err(
            &format!("{path}.type"),
            format!("{ty:?} is not allowed; allowed: {TYPES}"),
        );
    }
    let fields = allowed_fields(ty);
    if let Some(k) = m.keys().find(|k| !fields.contains(&k.as_str())) {
        return err(
            &format!("{path}.{k}"),
            format!("unknown field for a {ty} queue; allowed: {}", fields.join(", ")),
        );
    }
    let field = |name: &str| {
        m.get(name)
            .filter(|v| !v.is_null())
            .map(|v| (format!("{path}.{name}"), v))
    };
    let limit = |default: u32| -> Result<u32, SpecError> {
        match field("limit") {
            Some((p, v)) => queue(&p, v),
            None => Ok(default),
        }
    };
    let flag = |name: &str, default: bool| -> Result<bool, SpecError> {
        match field(name) {
            Some((p, v)) => boolean(&p, v),
            None => Ok(default),
        }
    };
    let time = |name: &str, default: f64| -> Result<f64, SpecError> {
        match field(name) {
            Some((p, v)) => time_pos(&p, v),
            None => Ok(default),
        }
    };
    Ok(match ty {
        "droptail" => Discipline::Droptail {
            limit: limit(default_limit)?,
        },
        "red" => {
            let limit = limit(default_limit)?;
            let mean_pktsize = match field("mean_pktsize") {
                Some((p, v)) => int_in(&p, v, 1, MAX_PACKET)? as u32,
                None => 500,
            };
            // ns-2's packet time constant: packets of mean_pktsize the link sends per second
            let ptc = rate / (8.0 * mean_pktsize as f64);
            let min_th = match threshold(field("min_th"), 5.0)? {
                Some(x) => x,
                None => (RED_TARGET_DELAY * ptc / 2.0).max(5.0),
            };
            let max_th = threshold(field("max_th"), 15.0)?.unwrap_or(3.0 * min_th);
            if max_th <= min_th {
                return err(
                    &format!("{path}.max_th"),
                    format!("{max_th} is not allowed; must be greater than min_th ({min_th})"),
                );
            }
            let q_weight = match field("q_weight") {
                Some((_, Value::String(s))) if s == "auto" => auto_q_weight(ptc, delay),
                Some((p, v)) => {
                    let w = num(&p, v)
                        .map_err(|_| SpecError(format!("{p}: expected a number in (0, 1] or \"auto\", got {v}")))?;
                    if !(w > 0.0 && w <= 1.0) {
                        return err(&p, format!("{w} is not allowed; must be in (0, 1] or \"auto\""));
                    }
                    w
                }
                None => 0.002,
            };
            let max_p = match field("max_p") {
                Some((p, v)) => {
                    let x = num(&p, v)?;
                    if !(x > 0.0 && x <= 1.0) {
                        return err(&p, format!("{x} is not allowed; must be in (0, 1]"));
                    }
                    x
                }
                None => 0.1,
            };
            Discipline::Red(RedSpec {
                limit,
                min_th,
                max_th,
                q_weight,
                max_p,
                gentle: flag("gentle", true)?,
                wait: flag("wait", true)?,
                mean_pktsize,
                ecn: flag("ecn", false)?,
            })
        }
        "codel" => Discipline::Codel(CodelSpec {
            limit: limit(1000)?,
            target: time("target", 0.005)?,
            interval: time("interval", 0.1)?,
            ecn: flag("ecn", false)?,
        }),
        _ => Discipline::FqCodel(FqCodelSpec {
            limit: limit(10240)?,
            target: time("target", 0.005)?,
            interval: time("interval", 0.1)?,
            ecn: flag("ecn", false)?,
            flows: match field("flows") {
                Some((p, v)) => int_in(&p, v, 1, MAX_FQ_FLOWS)? as u32,
                None => 1024,
            },
            quantum: match field("quantum") {
                Some((p, v)) => int_in(&p, v, MIN_QUANTUM, MAX_QUANTUM)? as u32,
                None => 1514,
            },
        }),
    })
}

/// A RED threshold (packets): a positive number, or "auto" (`None`: ns-2's 0).
fn threshold(field: Option<(String, &Value)>, default: f64) -> Result<Option<f64>, SpecError> {
    let Some((p, v)) = field else {
        return Ok(Some(default));
    };
    if v.as_str() == Some("auto") {
        return Ok(None);
    }
    let x = num(&p, v).map_err(|_| SpecError(format!("{p}: expected a number of packets or \"auto\", got {v}")))?;
    if !(x > 0.0 && x <= MAX_QUEUE as f64) {
        return err(
            &p,
            format!("{x} is not allowed; must be > 0 and at most {MAX_QUEUE} packets, or \"auto\""),
        );
    }
    Ok(Some(x))
}

/// ns-2.35's automatic queue weight (`q_weight_ -1`): a time constant of ten round trips,
/// the round trip taken as three times the link's delay plus one packet time, at least 100 ms.
fn auto_q_weight(ptc: f64, delay: f64) -> f64 {
    let rtt = (3.0 * (delay + 1.0 / ptc)).max(0.1);
    1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn q(v: Value) -> Result<QueueSpec, SpecError> {
        queue_field("links[0].queue", &v, 100, 10e6, 0.02)
    }

    fn red(v: Value) -> RedSpec {
        match q(v).unwrap() {
            QueueSpec::Managed(Discipline::Red(r)) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_number_is_droptail_and_a_table_names_its_discipline() {
        assert_eq!(q(json!(50)), Ok(QueueSpec::DropTail(50)));
        assert_eq!(
            q(json!({"type": "droptail"})),
            Ok(QueueSpec::Managed(Discipline::Droptail { limit: 100 }))
        );
        let r = red(json!({"type": "red"}));
        assert_eq!(
            (r.limit, r.min_th, r.max_th, r.q_weight, r.max_p),
            (100, 5.0, 15.0, 0.002, 0.1)
        );
        assert!(r.gentle && r.wait && !r.ecn && r.mean_pktsize == 500);
        match q(json!({"type": "codel", "target": "2ms", "ecn": true})).unwrap() {
            QueueSpec::Managed(Discipline::Codel(c)) => {
                assert_eq!((c.limit, c.target, c.interval, c.ecn), (1000, 0.002, 0.1, true))
            }
            other => panic!("{other:?}"),
        }
        match q(json!({"type": "fq_codel"})).unwrap() {
            QueueSpec::Managed(Discipline::FqCodel(f)) => {
                assert_eq!((f.limit, f.flows, f.quantum, f.target), (10240, 1024, 1514, 0.005))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn red_auto_parameters_are_ns2s() {
        // 10 Mb/s, 500-byte mean packets: ptc = 2500 packets/s; target queue 5 ms = 12.5
        // packets, half of it 6.25 > 5.
        let r = red(json!({"type": "red", "min_th": "auto", "max_th": "auto", "q_weight": "auto"}));
        assert_eq!((r.min_th, r.max_th), (6.25, 18.75));
        // rtt = 3 (0.02 + 1/2500) = 0.0612 -> 0.1 s; w = 1 - exp(-1/(10 * 0.1 * 2500))
        assert!((r.q_weight - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-15);
        let slow = queue_field("q", &json!({"type": "red", "min_th": "auto"}), 100, 1e6, 0.0).unwrap();
        match slow {
            QueueSpec::Managed(Discipline::Red(r)) => assert_eq!(r.min_th, 5.0, "at least 5"),
            _ => unreachable!(),
        }
    }

    #[test]
    fn bad_queues_name_the_field_the_value_and_what_is_allowed() {
        let cases = [
            (
                json!({"type": "sfq"}),
                "links[0].queue.type: \"sfq\" is not allowed; allowed: droptail, red, codel, fq_codel",
            ),
            (json!({"limit": 5}), "links[0].queue.type: missing"),
            (
                json!({"type": "red", "min_th": 20, "max_th": 10}),
                "links[0].queue.max_th: 10 is not allowed; must be greater than min_th (20)",
            ),
            (
                json!({"type": "red", "max_p": 0}),
                "links[0].queue.max_p: 0 is not allowed; must be in (0, 1]",
            ),
            (
                json!({"type": "red", "max_p": 1.5}),
                "links[0].queue.max_p: 1.5 is not allowed",
            ),
            (
                json!({"type": "red", "q_weight": -1}),
                "links[0].queue.q_weight: -1 is not allowed; must be in (0, 1] or \"auto\"",
            ),
            (
                json!({"type": "red", "min_th": 0}),
                "links[0].queue.min_th: 0 is not allowed; must be > 0",
            ),
            (
                json!({"type": "red", "min_th": "lots"}),
                "links[0].queue.min_th: expected a number of packets or \"auto\"",
            ),
            (
                json!({"type": "codel", "target": -0.005}),
                "links[0].queue.target: time",
            ),
            (
                json!({"type": "codel", "interval": 0}),
                "links[0].queue.interval: time 0",
            ),
            (
                json!({"type": "codel", "min_th": 5}),
                "links[0].queue.min_th: unknown field for a codel queue; allowed: type, limit, target, interval, ecn",
            ),
            (
                json!({"type": "fq_codel", "flows": 0}),
                "links[0].queue.flows: 0 is not allowed",
            ),
            (
                json!({"type": "red", "ecn": "yes"}),
                "links[0].queue.ecn: expected true or false",
            ),
            (
                json!({"type": "droptail", "limit": 0}),
                "links[0].queue.limit: 0 is not allowed",
            ),
            (json!("red"), "links[0].queue: expected an integer"),
        ];
        for (v, want) in cases {
            let e = q(v.clone()).unwrap_err().0;
            assert!(e.starts_with(want), "{v}: {e}");
        }
    }

    #[test]
    fn the_normalised_form_reads_back_as_itself() {
        for v in [
            json!(7),
            json!({"type": "red", "min_th": "auto", "ecn": true}),
            json!({"type": "fq_codel", "quantum": 300}),
            json!({"type": "droptail", "limit": 3}),
        ] {
            let once = q(v).unwrap();
            let text = serde_json::to_value(&once).unwrap();
            assert_eq!(q(text.clone()).unwrap(), once, "{text}");
            assert_eq!(serde_json::from_value::<QueueSpec>(text).unwrap(), once);
        }
    }
}
