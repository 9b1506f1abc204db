//! `[[link_changes]]`: changes of a link direction's rate, delay, queue limit or loss rate,
//! and outages, at given times (semantics in `net/change.rs` and docs/scenario.md).
//!
//! A change names its link by its two ends (`a`, `b`, or `link = "a-b"`), which may be a
//! `[[links]]` entry or a dumbbell link (`r1-r2`, `s{i}-r1`, `r2-d{i}`), in either order;
//! `direction` is relative to the order given: "ab" from the first end to the second.
use super::limits::{err, prob, queue, rate_pos, time_nonneg};
use super::{LanSpec, LinkSpec, SpecError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLinkChange {
    #[serde(default)]
    link: Option<String>,
    #[serde(default)]
    a: Option<String>,
    #[serde(default)]
    b: Option<String>,
    #[serde(default)]
    direction: Option<String>,
    at: Value,
    #[serde(default)]
    delay: Option<Value>,
    #[serde(default)]
    rate: Option<Value>,
    #[serde(default)]
    queue: Option<Value>,
    #[serde(default)]
    loss: Option<Value>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    queued: Option<String>,
}

/// One change, normalised: the link's ends as given (`a`, `b`), the direction(s), the time
/// (s) and what changes.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkChangeSpec {
    pub a: String,
    pub b: String,
    /// "ab", "ba" or "both".
    pub direction: String,
    pub at: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<f64>,
    /// "down" or "up".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// With `state = "down"`: "keep" (the default) or "drop".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued: Option<String>,
}

pub const DIRECTIONS: &[&str] = &["ab", "ba", "both"];
pub const STATES: &[&str] = &["down", "up"];
pub const QUEUED: &[&str] = &["keep", "drop"];

impl LinkChangeSpec {
    /// The link directions it changes as (from, to) node names.
    pub fn directions(&self) -> Vec<(&str, &str)> {
        let (a, b) = (self.a.as_str(), self.b.as_str());
        match self.direction.as_str() {
            "ab" => vec![(a, b)],
            "ba" => vec![(b, a)],
            _ => vec![(a, b), (b, a)],
        }
    }
}

/// The link between `a` and `b` (either order), if there is one.
fn find_link<'a>(links: &'a [LinkSpec], a: &str, b: &str) -> Option<&'a LinkSpec> {
    links.iter().find(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
}

fn on_lan(lans: &[LanSpec], a: &str, b: &str) -> bool {
    lans.iter()
        .any(|l| l.members.iter().any(|m| m == a) && l.members.iter().any(|m| m == b))
}

pub(super) fn normalise_link_changes(
    raw: &[RawLinkChange],
    links: &[LinkSpec],
    lans: &[LanSpec],
    duration: f64,
) -> Result<Vec<LinkChangeSpec>, SpecError> {
    raw.iter()
        .enumerate()
        .map(|(i, c)| normalise_one(i, c, links, lans, duration))
        .collect()
}

fn ends(p: &str, c: &RawLinkChange, links: &[LinkSpec], lans: &[LanSpec]) -> Result<(String, String), SpecError> {
    match (&c.link, &c.a, &c.b) {
        (Some(name), None, None) => {
            // Node names may hold '-': every split that names a link is a candidate.
            let found: Vec<(String, String)> = name
                .match_indices('-')
                .map(|(k, _)| (&name[..k], &name[k + 1..]))
                .filter(|(a, b)| find_link(links, a, b).is_some())
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            match found.len() {
                1 => Ok(found.into_iter().next().unwrap()),
                0 => err(
                    &format!("{p}.link"),
                    format!("{name:?} names no link; write the two ends as \"a-b\" (e.g. \"r2-d0\") or give a and b"),
                ),
                _ => err(
                    &format!("{p}.link"),
                    format!("{name:?} is ambiguous (node names with '-'); give a and b instead"),
                ),
            }
        }
        (None, Some(a), Some(b)) => {
            if find_link(links, a, b).is_some() {
                return Ok((a.clone(), b.clone()));
            }
            if a != b && on_lan(lans, a, b) {
                return err(
                    p,
                    format!("{a:?} and {b:?} are joined by a LAN, not a link; changes to LAN hops are not supported"),
                );
            }
            err(p, format!("there is no link between {a:?} and {b:?}"))
        }
        (Some(_), _, _) => err(&format!("{p}.link"), "give either link or a and b, not both"),
        _ => err(p, "name the link: link = \"a-b\", or a and b"),
    }
}

fn one_of(path: &str, v: &str, allowed: &[&str]) -> Result<String, SpecError> {
    if allowed.contains(&v) {
        return Ok(v.to_string());
    }
    err(path, format!("{v:?} is not allowed; allowed: {}", allowed.join(", ")))
}

fn normalise_one(
    i: usize,
    c: &RawLinkChange,
    links: &[LinkSpec],
    lans: &[LanSpec],
    duration: f64,
) -> Result<LinkChangeSpec, SpecError> {
    let p = format!("link_changes[{i}]");
    let (a, b) = ends(&p, c, links, lans)?;
    let direction = match &c.direction {
        Some(d) => one_of(&format!("{p}.direction"), d, DIRECTIONS)?,
        None => "both".to_string(),
    };
    let at = time_nonneg(&format!("{p}.at"), &c.at)?;
    if at >= duration {
        return err(
            &format!("{p}.at"),
            format!("{at} s is not within the run; must be < sim.duration ({duration} s)"),
        );
    }
    let delay = c
        .delay
        .as_ref()
        .map(|v| time_nonneg(&format!("{p}.delay"), v))
        .transpose()?;
    let rate = c.rate.as_ref().map(|v| rate_pos(&format!("{p}.rate"), v)).transpose()?;
    let queue = c.queue.as_ref().map(|v| queue(&format!("{p}.queue"), v)).transpose()?;
    let loss = c.loss.as_ref().map(|v| prob(&format!("{p}.loss"), v)).transpose()?;
    let state = c
        .state
        .as_deref()
        .map(|s| one_of(&format!("{p}.state"), s, STATES))
        .transpose()?;
    let queued = match (&c.queued, state.as_deref()) {
        (Some(q), Some("down")) => Some(one_of(&format!("{p}.queued"), q, QUEUED)?),
        (Some(q), _) => {
            return err(
                &format!("{p}.queued"),
                format!("{q:?} is only allowed with state = \"down\""),
            )
        }
        (None, Some("down")) => Some("keep".to_string()),
        (None, _) => None,
    };
    if delay.is_none() && rate.is_none() && queue.is_none() && loss.is_none() && state.is_none() {
        return err(
            &p,
            "changes nothing; give at least one of delay, rate, queue, loss, state",
        );
    }
    Ok(LinkChangeSpec {
        a,
        b,
        direction,
        at,
        delay,
        rate,
        queue,
        loss,
        state,
        queued,
    })
}

/// With its changes a queue must still drain within the clock's range: each new rate
/// against the largest limit the direction ever has, each new limit against its smallest
/// rate (`bits`: the largest packet).
pub(super) fn check_drain(changes: &[LinkChangeSpec], links: &[LinkSpec], bits: f64) -> Result<(), SpecError> {
    for (i, c) in changes.iter().enumerate() {
        let l = find_link(links, &c.a, &c.b).expect("checked");
        let same = |d: &LinkChangeSpec| find_link(links, &d.a, &d.b).is_some_and(|m| std::ptr::eq(m, l));
        let others = changes.iter().filter(|d| same(d));
        let max_queue = others
            .clone()
            .filter_map(|d| d.queue)
            .map(f64::from)
            .fold(l.queue_ab.limit().max(l.queue_ba.limit()) as f64, f64::max);
        let min_rate = others.filter_map(|d| d.rate).fold(l.rate, f64::min);
        let t = max_queue * bits / min_rate;
        if (c.rate.is_some() || c.queue.is_some()) && t > super::limits::MAX_TIME {
            let field = if c.rate.is_some() { "rate" } else { "queue" };
            return err(
                &format!("link_changes[{i}].{field}"),
                format!(
                    "a full queue of {max_queue} packets takes {t:.3e} s to send at {min_rate} bit/s; \
                     at most {:e} s (the simulated clock's range)",
                    super::limits::MAX_TIME
                ),
            );
        }
    }
    Ok(())
}
