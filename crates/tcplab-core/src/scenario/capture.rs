//! `[[pcap]]`: the link and LAN directions whose packets are captured into pcap files.
use super::limits::err;
use super::{LanSpec, LinkSpec, SpecError};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Capture the packets on the link from `a` to `b`: at its far end (`at = "exit"`, the
/// packets that crossed it) or where they enter it (`at = "entry"`, every packet offered to
/// it, those its queue or loss model then drops included).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    pub a: String,
    pub b: String,
    #[serde(default = "exit")]
    pub at: String,
}

pub const CAPTURE_POINTS: &[&str] = &["exit", "entry"];

fn exit() -> String {
    "exit".to_string()
}

/// Every `[[pcap]]` entry names the two ends of a link, or two members of one LAN.
pub(super) fn check_pcap(pcap: &[PcapSpec], links: &[LinkSpec], lans: &[LanSpec]) -> Result<(), SpecError> {
    if pcap.is_empty() {
        return Ok(());
    }
    let linked: HashSet<(&str, &str)> = links
        .iter()
        .flat_map(|l| [(l.a.as_str(), l.b.as_str()), (l.b.as_str(), l.a.as_str())])
        .collect();
    let mut lans_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, l) in lans.iter().enumerate() {
        for m in &l.members {
            lans_of.entry(m.as_str()).or_default().push(k);
        }
    }
    for (i, c) in pcap.iter().enumerate() {
        if !CAPTURE_POINTS.contains(&c.at.as_str()) {
            return err(
                &format!("pcap[{i}].at"),
                format!("{:?} is not allowed; allowed: {}", c.at, CAPTURE_POINTS.join(", ")),
            );
        }
        let on_link = linked.contains(&(c.a.as_str(), c.b.as_str()));
        let on_lan = c.a != c.b
            && match (lans_of.get(c.a.as_str()), lans_of.get(c.b.as_str())) {
                (Some(x), Some(y)) => x.iter().any(|k| y.contains(k)),
                _ => false,
            };
        if !on_link && !on_lan {
            return err(
                &format!("pcap[{i}]"),
                format!("there is no link or LAN between {:?} and {:?}", c.a, c.b),
            );
        }
    }
    Ok(())
}
