//! The knowledge base (thesis Fig. 4.3): one row per adaptation with the pipe types it
//! targets, the peer capabilities it needs, its advantages and its shortcomings. Kept as a
//! CSV file users read and edit (`data/kentridge-kb.csv` is the built-in one); the
//! adaptations are algorithm names of the registry (`cc::REGISTRY`), with their parameters.
use super::npc::PipeType;
use crate::cc;
use serde::{Deserialize, Serialize};

/// The built-in knowledge base.
pub const BUILTIN: &str = include_str!("../../data/kentridge-kb.csv");

/// The capabilities a row may require of the peer.
pub const CAPABILITIES: &[&str] = &["sack", "timestamps", "ecn", "tcp_ho", "dsack"];

/// The sender responses a row may turn on with its adaptation (the `options` column):
/// `undo` takes back a window reduction found spurious (`tcp.undo`: Eifel with timestamps,
/// RFC 3708 with D-SACK), the thesis's §4.2 remedy for reordering. A row with `undo` must
/// need `timestamps` or `dsack`, without which nothing is found spurious.
pub const OPTIONS: &[&str] = &["undo"];

/// The columns, in order.
pub const COLUMNS: &[&str] = &[
    "adaptation",
    "pipe_types",
    "capabilities",
    "advantages",
    "shortcomings",
    "cc_params",
];

/// The optional last column (a file without it has no options).
pub const OPTIONS_COLUMN: &str = "options";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KbRow {
    pub adaptation: String,
    pub pipe_types: Vec<String>,
    #[serde(default)]
    pub capabilities: Vec<String>,
    #[serde(default)]
    pub advantages: Vec<String>,
    #[serde(default)]
    pub shortcomings: Vec<String>,
    #[serde(default)]
    pub cc_params: cc::Params,
    /// Sender responses turned on with the adaptation ([`OPTIONS`]); not written when empty,
    /// so that knowledge bases without them normalise as before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

impl KbRow {
    pub fn targets(&self, p: PipeType) -> bool {
        self.pipe_types.iter().any(|t| t == p.name())
    }

    pub fn undo(&self) -> bool {
        self.options.iter().any(|o| o == "undo")
    }

    /// The adaptation with its options, as the events table names it (`newreno+undo`).
    pub fn label(&self) -> String {
        std::iter::once(self.adaptation.as_str())
            .chain(self.options.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("+")
    }

    /// Check the row against the registry and the vocabularies; the error names the field.
    pub fn check(&self) -> Result<(), String> {
        if let Err(e) = cc::create(&self.adaptation, &self.cc_params) {
            return Err(format!("adaptation {:?}: {e}", self.adaptation));
        }
        if self.pipe_types.is_empty() {
            return Err(format!(
                "pipe_types: empty; allowed: {}",
                super::npc::names().join(", ")
            ));
        }
        for t in &self.pipe_types {
            PipeType::parse(t).map_err(|e| format!("pipe_types: {e}"))?;
        }
        if let Some(t) = self.advantages.iter().find(|t| super::platform::is_cost_term(t)) {
            return Err(format!(
                "advantages: {t:?} is a platform cost; list it among the shortcomings"
            ));
        }
        for c in &self.capabilities {
            if !CAPABILITIES.contains(&c.as_str()) {
                return Err(format!(
                    "capabilities: {c:?} is not a capability; allowed: {}",
                    CAPABILITIES.join(", ")
                ));
            }
        }
        for o in &self.options {
            if !OPTIONS.contains(&o.as_str()) {
                return Err(format!(
                    "options: {o:?} is not an option; allowed: {}",
                    OPTIONS.join(", ")
                ));
            }
        }
        let detects = |c: &str| self.capabilities.iter().any(|x| x == c);
        if self.undo() && !detects("timestamps") && !detects("dsack") {
            return Err(format!(
                "options: \"undo\" with capabilities {:?}; allowed: undo on a row that needs timestamps or dsack \
                 (without either no retransmission is found spurious)",
                self.capabilities.join(";")
            ));
        }
        Ok(())
    }
}

/// Split one CSV line into fields (double quotes around a field allow commas; "" is a quote).
fn fields(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if cur.trim().is_empty() => {
                cur.clear();
                quoted = true;
            }
            (',', false) => out.push(std::mem::take(&mut cur).trim().to_string()),
            (c, _) => cur.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    out.push(cur.trim().to_string());
    Ok(out)
}

fn list(s: &str) -> Vec<String> {
    s.split(';')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(String::from)
        .collect()
}

fn params(s: &str) -> Result<cc::Params, String> {
    let mut p = cc::Params::new();
    for kv in list(s) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("cc_params: {kv:?} is not name=value"))?;
        let x: f64 = v
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| format!("cc_params: {}: expected a number, got {:?}", k.trim(), v.trim()))?;
        p.insert(k.trim().to_string(), x);
    }
    Ok(p)
}

/// Parse a knowledge base from CSV text: '#' lines and blank lines are skipped, the first
/// other line is the header (the columns of [`COLUMNS`], in that order, optionally followed
/// by [`OPTIONS_COLUMN`]). Errors say the line, the field, the value and what is allowed.
pub fn parse(text: &str) -> Result<Vec<KbRow>, String> {
    let mut rows = Vec::new();
    let mut header = false;
    let mut width = COLUMNS.len();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |e: String| format!("line {}: {e}", i + 1);
        let f = fields(line).map_err(at)?;
        if !header {
            let with_options = f.len() == COLUMNS.len() + 1 && f[COLUMNS.len()] == OPTIONS_COLUMN;
            if f[..f.len().min(COLUMNS.len())] != *COLUMNS || (f.len() != COLUMNS.len() && !with_options) {
                return Err(at(format!(
                    "the header must be {:?} (optionally followed by \",{OPTIONS_COLUMN}\"), got {:?}",
                    COLUMNS.join(","),
                    line
                )));
            }
            width = f.len();
            header = true;
            continue;
        }
        if f.len() != width {
            return Err(at(format!(
                "{} fields, expected {width} ({})",
                f.len(),
                if width > COLUMNS.len() {
                    format!("{},{OPTIONS_COLUMN}", COLUMNS.join(","))
                } else {
                    COLUMNS.join(",")
                }
            )));
        }
        let row = KbRow {
            adaptation: f[0].clone(),
            pipe_types: list(&f[1]),
            capabilities: list(&f[2]),
            advantages: list(&f[3]),
            shortcomings: list(&f[4]),
            cc_params: params(&f[5]).map_err(at)?,
            options: f.get(6).map(|o| list(o)).unwrap_or_default(),
        };
        row.check().map_err(at)?;
        rows.push(row);
    }
    if rows.is_empty() {
        return Err("no rows (a header line and at least one adaptation are needed)".into());
    }
    Ok(rows)
}

/// Every advantage and shortcoming term of the rows but the platform costs (the vocabulary
/// of `expectations`).
pub fn terms(rows: &[KbRow]) -> Vec<&str> {
    let mut t: Vec<&str> = rows
        .iter()
        .flat_map(|r| r.advantages.iter().chain(&r.shortcomings))
        .map(String::as_str)
        .filter(|t| !super::platform::is_cost_term(t))
        .collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// The rows without their platform-cost shortcomings, for a flow without a `platform`
/// table: nothing reads them then, and its normalised spec stays what it was before the
/// built-in rows had any.
pub fn without_platform_costs(rows: &mut [KbRow]) {
    for r in rows {
        r.shortcomings.retain(|t| !super::platform::is_cost_term(t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "adaptation,pipe_types,capabilities,advantages,shortcomings,cc_params\n";

    #[test]
    fn the_builtin_kb_parses_and_seeds_the_thesis_choices() {
        let rows = parse(BUILTIN).unwrap();
        let first = |p: PipeType| rows.iter().find(|r| r.targets(p)).map(|r| r.adaptation.as_str());
        assert_eq!(first(PipeType::LfnLargeQueue), Some("sync_tcp"));
        assert_eq!(first(PipeType::LfnSmallQueue), Some("cubic"));
        assert_eq!(first(PipeType::Lossy), Some("westwood_be"));
        assert_eq!(first(PipeType::ReliableWireless), Some("westwood_be"));
        assert_eq!(first(PipeType::Mobile), Some("tcp_ho"));
        assert_eq!(first(PipeType::Default), Some("newreno"));
        // the rows chosen on the benchmark's tuning instances (the CSV's comments)
        assert_eq!(first(PipeType::LongThin), Some("sync_tcp"));
        // reordering: NewReno with undo for a peer that can detect (timestamps, or D-SACK);
        // Westwood BE for one that cannot
        let reorder: Vec<_> = rows.iter().filter(|r| r.targets(PipeType::Reorder)).collect();
        let labels: Vec<_> = reorder.iter().map(|r| (r.label(), r.capabilities.join(";"))).collect();
        assert_eq!(
            labels,
            [
                ("newreno+undo", "timestamps"),
                ("newreno+undo", "sack;dsack"),
                ("westwood_be", "")
            ]
            .map(|(a, c)| (a.to_string(), c.to_string()))
        );
        assert_eq!(first(PipeType::Asymmetry), Some("hybla"));
    }

    #[test]
    fn bad_rows_name_the_line_field_value_and_what_is_allowed() {
        let e = parse(&format!("{HEAD}vegas2,lossy,,,,\n")).unwrap_err();
        assert!(
            e.starts_with("line 2: adaptation \"vegas2\": unknown congestion-control algorithm"),
            "{e}"
        );
        let e = parse(&format!("{HEAD}reno,wifi,,,,\n")).unwrap_err();
        assert!(
            e.starts_with("line 2: pipe_types: \"wifi\" is not a pipe type; allowed: default, reorder"),
            "{e}"
        );
        let e = parse(&format!("{HEAD}reno,lossy,sctp,,,\n")).unwrap_err();
        assert_eq!(
            e,
            "line 2: capabilities: \"sctp\" is not a capability; allowed: sack, timestamps, ecn, tcp_ho, dsack"
        );
        let e = parse(&format!("{HEAD}reno,lossy,,,,beta=0.5\n")).unwrap_err();
        assert!(e.contains("reno has no parameter \"beta\""), "{e}");
        let e = parse(&format!("{HEAD}cubic,lossy,,,,beta=x\n")).unwrap_err();
        assert_eq!(e, "line 2: cc_params: beta: expected a number, got \"x\"");
        let e = parse("adaptation,pipes\n").unwrap_err();
        assert!(e.starts_with("line 1: the header must be"), "{e}");
        let e = parse(&format!("# c\n{HEAD}reno,lossy\n")).unwrap_err();
        assert!(e.starts_with("line 3: 2 fields, expected 6"), "{e}");
        assert!(parse(HEAD).unwrap_err().starts_with("no rows"));
        let e = parse(&format!("{HEAD}reno,lossy,,cpu_cost,,\n")).unwrap_err();
        assert_eq!(
            e,
            "line 2: advantages: \"cpu_cost\" is a platform cost; list it among the shortcomings"
        );
    }

    #[test]
    fn quoted_fields_and_parameters() {
        let rows = parse(&format!(
            "{HEAD}\"cubic\",\"lfn; high_speed\",sack,\"a, b\",,beta=0.7;c=0.4\n"
        ))
        .unwrap();
        assert_eq!(rows[0].pipe_types, vec!["lfn", "high_speed"]);
        assert_eq!(rows[0].advantages, vec!["a, b"]);
        assert_eq!(rows[0].cc_params.get("beta"), Some(&0.7));
        assert_eq!(terms(&rows), vec!["a, b"]);
    }

    #[test]
    fn platform_costs_are_not_expectations_and_go_without_a_platform() {
        let mut rows = parse(BUILTIN).unwrap();
        assert!(!terms(&rows).contains(&"cpu_cost"));
        assert!(rows[0].shortcomings.contains(&"cpu_cost".to_string()));
        without_platform_costs(&mut rows);
        assert_eq!(
            rows[0].shortcomings,
            vec!["unfair_on_multiple_bottlenecks", "starved_by_loss_based"]
        );
    }

    #[test]
    fn an_options_column_turns_undo_on_with_a_row_that_can_detect() {
        let head = "adaptation,pipe_types,capabilities,advantages,shortcomings,cc_params,options\n";
        let rows = parse(&format!(
            "{head}newreno,reorder,timestamps,,,,undo\nreno,reorder,sack;dsack,,,,\n"
        ))
        .unwrap();
        assert!(rows[0].undo() && !rows[1].undo());
        assert_eq!(
            (rows[0].label(), rows[1].label()),
            ("newreno+undo".into(), "reno".into())
        );
        // without the column: no options, and the inline form leaves them out when empty
        let plain = parse(&format!("{HEAD}newreno,reorder,timestamps,,,\n")).unwrap();
        assert!(plain[0].options.is_empty());
        let json = serde_json::to_value(&plain[0]).unwrap();
        assert!(json.get("options").is_none(), "{json}");
        assert_eq!(
            serde_json::to_value(&rows[0]).unwrap()["options"],
            serde_json::json!(["undo"])
        );
        let e = parse(&format!("{head}newreno,reorder,,,,,undo\n")).unwrap_err();
        assert!(
            e.starts_with("line 2: options: \"undo\" with capabilities \"\"; allowed: undo on a row that needs timestamps or dsack"),
            "{e}"
        );
        let e = parse(&format!("{head}newreno,reorder,timestamps,,,,eifel\n")).unwrap_err();
        assert_eq!(e, "line 2: options: \"eifel\" is not an option; allowed: undo");
        let e = parse(&format!("{head}newreno,reorder,timestamps,,,\n")).unwrap_err();
        assert!(e.starts_with("line 2: 6 fields, expected 7 (adaptation,"), "{e}");
        let e = parse("adaptation,pipe_types,capabilities,advantages,shortcomings,cc_params,extra\n").unwrap_err();
        assert!(e.starts_with("line 1: the header must be"), "{e}");
    }
}
