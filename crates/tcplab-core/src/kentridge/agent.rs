//! The intelligent agent (thesis §4.5.1): on a change of pipe type it queries the knowledge
//! base with the peer's capabilities and the application's expectations and picks the
//! adaptation the connection switches to.
use super::expectations::Expectations;
use super::kb::KbRow;
use super::npc::PipeType;
use super::platform::{self, Platform};

/// What the agent decided, with the reason recorded in the events table.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Switch to row `row` of the knowledge base.
    Switch { row: usize, reason: String },
    /// The chosen row's algorithm already runs (same name, parameters and options).
    Keep { row: usize, reason: String },
    /// No row fits (none targets the type, or the peer lacks what they need).
    NoAdaptation { reason: String },
}

/// The types whose rows may serve pipe type `p`, in the order they are tried: `p`, its
/// broader type, `default`.
fn levels(p: PipeType) -> Vec<PipeType> {
    let mut tried = vec![p];
    tried.extend(p.parent());
    if p != PipeType::Default {
        tried.push(PipeType::Default);
    }
    tried
}

fn rows_targeting(kb: &[KbRow], t: PipeType) -> Vec<usize> {
    (0..kb.len()).filter(|&i| kb[i].targets(t)).collect()
}

/// A row's fit to the expectations: +1 per expectation among its advantages, −1 per one
/// among its shortcomings.
pub fn score(row: &KbRow, expectations: &[String]) -> i64 {
    expectations
        .iter()
        .map(|e| i64::from(row.advantages.contains(e)) - i64::from(row.shortcomings.contains(e)))
        .sum()
}

/// What runs now: the algorithm's name and parameters, the options a row turned on.
pub type Running<'a> = (&'a str, &'a crate::cc::Params, &'a [String]);

/// What the agent knows of the connection besides the pipe type (thesis §4.5.1): the peer's
/// capabilities, the application's expectations and the platform.
pub struct Inputs<'a> {
    pub peer: &'a [&'a str],
    pub expectations: &'a Expectations,
    /// `None`: no constraint (the default).
    pub platform: Option<&'a Platform>,
}

impl Inputs<'_> {
    fn total(&self, row: &KbRow) -> i64 {
        score(row, &self.expectations.terms) + platform::penalty(self.platform, &row.shortcomings).0
    }

    fn usable(&self, kb: &[KbRow], rows: &[usize]) -> Vec<usize> {
        rows.iter()
            .copied()
            .filter(|&i| kb[i].capabilities.iter().all(|c| self.peer.contains(&c.as_str())))
            .collect()
    }

    /// The best of `rows` by score (expectations and platform penalty); ties go to the
    /// earlier row.
    fn best(&self, kb: &[KbRow], rows: &[usize]) -> Option<usize> {
        rows.iter()
            .copied()
            .max_by_key(|&i| (self.total(&kb[i]), std::cmp::Reverse(i)))
    }

    fn costs<'k>(&self, row: &'k KbRow) -> Vec<&'k str> {
        platform::penalty(self.platform, &row.shortcomings).1
    }
}

/// Choose for pipe type `p`: the rows that target it, else its broader type's, else the
/// `default` rows; among them, those whose capabilities the peer has; the best score
/// (expectations, platform penalty); ties go to the earlier row. When every such row has a
/// cost the platform is constrained on, the first of the broader and default types with
/// a usable row free of such costs serves instead. `current`: the running algorithm's
/// name and parameters, and the options a row turned on.
pub fn decide(kb: &[KbRow], p: PipeType, inputs: &Inputs, current: Running) -> Decision {
    let tried = levels(p);
    let Some((level, rows)) = tried
        .iter()
        .enumerate()
        .map(|(k, &t)| (k, rows_targeting(kb, t)))
        .find(|(_, rows)| !rows.is_empty())
    else {
        return Decision::NoAdaptation {
            reason: format!("no row targets {} or default", p.name()),
        };
    };
    let mut via = tried[level];
    let usable = inputs.usable(kb, &rows);
    let Some(mut best) = inputs.best(kb, &usable) else {
        let missing: Vec<String> = rows
            .iter()
            .map(|&i| format!("{} needs {}", kb[i].adaptation, kb[i].capabilities.join("+")))
            .collect();
        return Decision::NoAdaptation {
            reason: format!("the peer lacks capabilities: {}", missing.join(", ")),
        };
    };
    // Rows passed over for their platform costs: (row, its cost terms).
    let mut passed_over: Vec<(usize, Vec<&str>)> = Vec::new();
    if usable.iter().all(|&i| !inputs.costs(&kb[i]).is_empty()) {
        let free_elsewhere = tried[level + 1..].iter().find_map(|&t| {
            let free: Vec<usize> = inputs
                .usable(kb, &rows_targeting(kb, t))
                .into_iter()
                .filter(|&i| inputs.costs(&kb[i]).is_empty())
                .collect();
            inputs.best(kb, &free).map(|b| (t, b))
        });
        if let Some((t, b)) = free_elsewhere {
            passed_over = usable.iter().map(|&i| (i, inputs.costs(&kb[i]))).collect();
            (via, best) = (t, b);
        }
    } else {
        // Within the type: a row the expectations alone would have chosen may lose to
        // its platform costs.
        let unconstrained = Inputs {
            platform: None,
            ..*inputs
        };
        if let Some(b) = unconstrained.best(kb, &usable).filter(|&b| b != best) {
            passed_over.push((b, inputs.costs(&kb[b])));
        }
    }
    let r = &kb[best];
    let mut reason = format!(
        "pipe {} (rule {}): kb row {} {}",
        p.name(),
        p.rule(),
        best + 1,
        r.label()
    );
    if via != p {
        reason.push_str(&format!(" (targets {})", via.name()));
    }
    let expectations = inputs.expectations;
    if !expectations.terms.is_empty() {
        reason.push_str(&format!(", score {}", score(r, &expectations.terms)));
        if let Some(what) = expectations.describe() {
            reason.push_str(&format!(" ({what})"));
        }
    }
    if let Some(pf) = inputs.platform {
        let constrained: Vec<String> = pf.constraints().iter().map(|(i, v, _)| format!("{i} = {v}")).collect();
        let own = inputs.costs(r);
        if !own.is_empty() {
            reason.push_str(&format!(
                ", platform {}: cost {} ({})",
                constrained.join(", "),
                -(own.len() as i64),
                own.join("+")
            ));
        }
        if !passed_over.is_empty() {
            let over: Vec<String> = passed_over
                .iter()
                .map(|(i, c)| format!("kb row {} {} ({})", i + 1, kb[*i].adaptation, c.join("+")))
                .collect();
            reason.push_str(&format!(
                ", platform {} passes over {}",
                constrained.join(", "),
                over.join(", ")
            ));
        }
    }
    if usable.len() < rows.len() {
        reason.push_str(&format!(
            ", {} row(s) lack peer capabilities",
            rows.len() - usable.len()
        ));
    }
    if r.adaptation == current.0 && &r.cc_params == current.1 && r.options == current.2 {
        Decision::Keep { row: best, reason }
    } else {
        Decision::Switch { row: best, reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Params;
    use crate::kentridge::expectations::{self, Source};
    use crate::kentridge::{kb, KentRidgeSpec};

    fn want(w: &[&str]) -> Expectations {
        Expectations::given(&w.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn pick(rows: &[KbRow], p: PipeType, peer: &[&str], e: &Expectations, pf: Option<&Platform>) -> Decision {
        let none = Params::new();
        let inputs = Inputs {
            peer,
            expectations: e,
            platform: pf,
        };
        decide(rows, p, &inputs, ("newreno", &none, &[]))
    }

    fn adaptation(rows: &[KbRow], d: &Decision) -> String {
        match d {
            Decision::Switch { row, .. } | Decision::Keep { row, .. } => rows[*row].adaptation.clone(),
            Decision::NoAdaptation { .. } => "none".into(),
        }
    }

    fn reason(d: &Decision) -> &str {
        match d {
            Decision::Switch { reason, .. } | Decision::Keep { reason, .. } | Decision::NoAdaptation { reason } => {
                reason
            }
        }
    }

    #[test]
    fn picks_by_pipe_capability_and_expectation() {
        let rows = kb::parse(kb::BUILTIN).unwrap();
        let none = want(&[]);
        let d = pick(&rows, PipeType::LfnLargeQueue, &[], &none, None);
        assert!(
            matches!(&d, Decision::Switch { row: 0, reason } if reason == "pipe lfn_large_queue (rule 4): kb row 1 sync_tcp"),
            "{d:?}"
        );
        // lossy: two rows; expectations decide, ties to the first
        let d = pick(&rows, PipeType::Lossy, &[], &none, None);
        assert_eq!(adaptation(&rows, &d), "westwood_be");
        // reordering and asymmetry have rows of their own, not the default's
        assert_eq!(
            adaptation(&rows, &pick(&rows, PipeType::Reorder, &[], &none, None)),
            "westwood_be"
        );
        assert_eq!(
            adaptation(&rows, &pick(&rows, PipeType::Asymmetry, &[], &none, None)),
            "hybla"
        );
        // mobile needs TCP-HO at the peer: without it no adaptation
        let d = pick(&rows, PipeType::Mobile, &[], &none, None);
        assert!(
            matches!(&d, Decision::NoAdaptation { reason } if reason.contains("tcp_ho needs tcp_ho")),
            "{d:?}"
        );
        let d = pick(&rows, PipeType::Mobile, &["tcp_ho"], &none, None);
        assert_eq!(adaptation(&rows, &d), "tcp_ho");
        // the default type keeps NewReno running
        assert!(matches!(
            pick(&rows, PipeType::Default, &[], &none, None),
            Decision::Keep { .. }
        ));
        // high speed: cubic first; an application that wants low delay gets the row whose
        // shortcomings do not list it
        let d = pick(&rows, PipeType::HighSpeed, &[], &want(&["scalability"]), None);
        assert_eq!(adaptation(&rows, &d), "cubic");
        let d = pick(&rows, PipeType::HighSpeed, &[], &want(&["low_delay"]), None);
        assert!(
            matches!(&d, Decision::Switch { row, reason } if rows[*row].adaptation == "highspeed" && reason.ends_with("score 0")),
            "{d:?}"
        );
    }

    fn spec(port_expectations: Option<Vec<(u16, Vec<String>)>>) -> KentRidgeSpec {
        KentRidgeSpec {
            interval: 1.0,
            thresholds: Default::default(),
            precedence: Vec::new(),
            expectations: Vec::new(),
            port_expectations: port_expectations.map(|m| m.into_iter().collect()),
            platform: None,
            kb_source: "builtin".into(),
            kb: kb::parse(kb::BUILTIN).unwrap(),
        }
    }

    #[test]
    fn expectations_inferred_from_the_port_choose_the_row_and_show_in_the_reason() {
        let s = spec(None);
        let rows = &s.kb;
        // a web server's connection (port 80) on a high-speed pipe: low delay is wanted,
        // CUBIC lists it among its shortcomings, HighSpeed wins
        let web = expectations::for_connection(&s, 80);
        assert_eq!(web.source, Source::Port(80));
        let d = pick(rows, PipeType::HighSpeed, &[], &web, None);
        assert_eq!(
            reason(&d),
            "pipe high_speed (rule 5): kb row 3 highspeed, score 0 (expectations low_delay inferred from port 80)"
        );
        // the default port infers nothing: the row and the reason of a spec without
        // expectations
        let plain = expectations::for_connection(&s, 5001);
        let d = pick(rows, PipeType::HighSpeed, &[], &plain, None);
        assert_eq!(reason(&d), "pipe high_speed (rule 5): kb row 2 cubic");
        // a bulk transfer (port 22) wants utilisation: CUBIC, listed first, keeps the tie
        let bulk = expectations::for_connection(&s, 22);
        let d = pick(rows, PipeType::HighSpeed, &[], &bulk, None);
        assert_eq!(
            reason(&d),
            "pipe high_speed (rule 5): kb row 2 cubic, score 1 (expectations utilisation inferred from port 22)"
        );
        // the spec's expectations win over the port: no "inferred" in the reason
        let mut explicit = spec(None);
        explicit.expectations = vec!["scalability".into()];
        let e = expectations::for_connection(&explicit, 80);
        let d = pick(rows, PipeType::HighSpeed, &[], &e, None);
        assert_eq!(reason(&d), "pipe high_speed (rule 5): kb row 2 cubic, score 1");
        // a spec's own port map
        let own = spec(Some(vec![(9000, vec!["friendliness".into()])]));
        let e = expectations::for_connection(&own, 9000);
        let d = pick(rows, PipeType::HighSpeed, &[], &e, None);
        assert_eq!(
            reason(&d),
            "pipe high_speed (rule 5): kb row 2 cubic, score -1 (expectations friendliness inferred from port 9000)"
        );
    }

    fn platform(pairs: &[(&str, &str)]) -> Platform {
        let mut p = Platform::default();
        for (k, v) in pairs {
            p.set(k, v);
        }
        p
    }

    #[test]
    fn a_constrained_platform_passes_over_rows_with_its_costs() {
        let rows = kb::parse(kb::BUILTIN).unwrap();
        let none = want(&[]);
        // the built-in Sync-TCP row costs CPU and energy (pacing timers)
        let sync = rows.iter().find(|r| r.adaptation == "sync_tcp").unwrap();
        assert!(sync.shortcomings.contains(&"cpu_cost".to_string()));
        assert!(sync.shortcomings.contains(&"energy_cost".to_string()));
        // without a platform, or with an unconstrained one: Sync-TCP on a large-queue LFN
        for pf in [None, Some(&Platform::default())] {
            let d = pick(&rows, PipeType::LfnLargeQueue, &[], &none, pf);
            assert_eq!(reason(&d), "pipe lfn_large_queue (rule 4): kb row 1 sync_tcp");
        }
        // a low-CPU host: every lfn_large_queue row costs CPU, so the broader type's row
        let low_cpu = platform(&[("cpu", "low")]);
        let d = pick(&rows, PipeType::LfnLargeQueue, &[], &none, Some(&low_cpu));
        assert_eq!(
            reason(&d),
            "pipe lfn_large_queue (rule 4): kb row 2 cubic (targets lfn), platform cpu = low passes over kb row 1 sync_tcp (cpu_cost)"
        );
        // on battery: the same for energy; a long thin pipe has no broader type: NewReno
        let battery = platform(&[("power", "battery")]);
        let d = pick(&rows, PipeType::LongThin, &[], &none, Some(&battery));
        assert_eq!(
            reason(&d),
            "pipe long_thin (rule 6): kb row 10 newreno (targets default), platform power = battery passes over kb row 1 sync_tcp (energy_cost)"
        );
        assert!(matches!(d, Decision::Keep { .. }));
        // low memory: no built-in row lists memory_cost, nothing changes
        let low_mem = platform(&[("memory", "low")]);
        let d = pick(&rows, PipeType::LfnLargeQueue, &[], &none, Some(&low_mem));
        assert_eq!(reason(&d), "pipe lfn_large_queue (rule 4): kb row 1 sync_tcp");
    }

    #[test]
    fn within_a_pipe_type_the_platform_penalty_weighs_against_the_expectations() {
        let head = "adaptation,pipe_types,capabilities,advantages,shortcomings,cc_params\n";
        let rows = kb::parse(&format!(
            "{head}sync_tcp,lossy,,low_delay;fairness,cpu_cost,\nwestwood_be,lossy,,loss_tolerance,,\nnewreno,default,,,cpu_cost,\n"
        ))
        .unwrap();
        let low_cpu = platform(&[("cpu", "low")]);
        // no expectations: the costly first row loses to the free second one
        let d = pick(&rows, PipeType::Lossy, &[], &want(&[]), Some(&low_cpu));
        assert_eq!(
            reason(&d),
            "pipe lossy (rule 9): kb row 2 westwood_be, platform cpu = low passes over kb row 1 sync_tcp (cpu_cost)"
        );
        // one expectation it meets: a tie (1 − 1 = 0 against 0), the earlier row wins
        let d = pick(&rows, PipeType::Lossy, &[], &want(&["low_delay"]), Some(&low_cpu));
        assert_eq!(
            reason(&d),
            "pipe lossy (rule 9): kb row 1 sync_tcp, score 1, platform cpu = low: cost -1 (cpu_cost)"
        );
        // two: the expectations outweigh the cost
        let d = pick(
            &rows,
            PipeType::Lossy,
            &[],
            &want(&["low_delay", "fairness"]),
            Some(&low_cpu),
        );
        assert_eq!(adaptation(&rows, &d), "sync_tcp");
        // every row of the type and the default cost CPU: the pipe type's best stays
        let costly = kb::parse(&format!(
            "{head}sync_tcp,lossy,,,cpu_cost,\nnewreno,default,,,cpu_cost,\n"
        ))
        .unwrap();
        let d = pick(&costly, PipeType::Lossy, &[], &want(&[]), Some(&low_cpu));
        assert_eq!(
            reason(&d),
            "pipe lossy (rule 9): kb row 1 sync_tcp, platform cpu = low: cost -1 (cpu_cost)"
        );
    }
}
