//! The intelligent agent (thesis §4.5.1): on a change of pipe type it queries the knowledge
//! base with the peer's capabilities and the application's expectations and picks the
//! adaptation the connection switches to.
use super::kb::KbRow;
use super::npc::PipeType;

/// What the agent decided, with the reason recorded in the events table.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Switch to row `row` of the knowledge base.
    Switch { row: usize, reason: String },
    /// The chosen row's algorithm already runs (same name and parameters).
    Keep { row: usize, reason: String },
    /// No row fits (none targets the type, or the peer lacks what they need).
    NoAdaptation { reason: String },
}

/// The rows that may serve pipe type `p`: those that target it, else those that target
/// its broader type, else the `default` rows.
fn targeted(kb: &[KbRow], p: PipeType) -> (Vec<usize>, PipeType) {
    let mut tried = vec![p];
    tried.extend(p.parent());
    tried.push(PipeType::Default);
    for t in tried {
        let rows: Vec<usize> = (0..kb.len()).filter(|&i| kb[i].targets(t)).collect();
        if !rows.is_empty() {
            return (rows, t);
        }
    }
    (Vec::new(), p)
}

/// A row's fit to the expectations: +1 per expectation among its advantages, −1 per one
/// among its shortcomings.
pub fn score(row: &KbRow, expectations: &[String]) -> i64 {
    expectations
        .iter()
        .map(|e| i64::from(row.advantages.contains(e)) - i64::from(row.shortcomings.contains(e)))
        .sum()
}

/// Choose for pipe type `p`: among the rows serving it whose capabilities the peer has,
/// the best score; ties go to the earlier row. `current`: the running algorithm's name and
/// parameters.
pub fn decide(
    kb: &[KbRow],
    p: PipeType,
    peer: &[&str],
    expectations: &[String],
    current: (&str, &crate::cc::Params),
) -> Decision {
    let (rows, via) = targeted(kb, p);
    if rows.is_empty() {
        return Decision::NoAdaptation {
            reason: format!("no row targets {} or default", p.name()),
        };
    }
    let usable: Vec<usize> = rows
        .iter()
        .copied()
        .filter(|&i| kb[i].capabilities.iter().all(|c| peer.contains(&c.as_str())))
        .collect();
    let Some(&best) = usable
        .iter()
        .max_by_key(|&&i| (score(&kb[i], expectations), std::cmp::Reverse(i)))
    else {
        let missing: Vec<String> = rows
            .iter()
            .map(|&i| format!("{} needs {}", kb[i].adaptation, kb[i].capabilities.join("+")))
            .collect();
        return Decision::NoAdaptation {
            reason: format!("the peer lacks capabilities: {}", missing.join(", ")),
        };
    };
    let r = &kb[best];
    let mut reason = format!(
        "pipe {} (rule {}): kb row {} {}",
        p.name(),
        p.rule(),
        best + 1,
        r.adaptation
    );
    if via != p {
        reason.push_str(&format!(" (targets {})", via.name()));
    }
    if !expectations.is_empty() {
        reason.push_str(&format!(", score {}", score(r, expectations)));
    }
    if usable.len() < rows.len() {
        reason.push_str(&format!(
            ", {} row(s) lack peer capabilities",
            rows.len() - usable.len()
        ));
    }
    if r.adaptation == current.0 && &r.cc_params == current.1 {
        Decision::Keep { row: best, reason }
    } else {
        Decision::Switch { row: best, reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::Params;
    use crate::kentridge::kb;

    #[test]
    fn picks_by_pipe_capability_and_expectation() {
        let rows = kb::parse(kb::BUILTIN).unwrap();
        let none = Params::new();
        let d = decide(&rows, PipeType::LfnLargeQueue, &[], &[], ("newreno", &none));
        assert!(
            matches!(&d, Decision::Switch { row: 0, reason } if reason == "pipe lfn_large_queue (rule 4): kb row 1 sync_tcp"),
            "{d:?}"
        );
        // lossy: two rows; expectations decide, ties to the first
        let d = decide(&rows, PipeType::Lossy, &[], &[], ("newreno", &none));
        assert!(matches!(d, Decision::Switch { row, .. } if rows[row].adaptation == "westwood_be"));
        // reordering and asymmetry have rows of their own, not the default's
        let d = decide(&rows, PipeType::Reorder, &[], &[], ("newreno", &none));
        assert!(matches!(d, Decision::Switch { row, .. } if rows[row].adaptation == "westwood_be"));
        let d = decide(&rows, PipeType::Asymmetry, &[], &[], ("newreno", &none));
        assert!(matches!(d, Decision::Switch { row, .. } if rows[row].adaptation == "hybla"));
        // mobile needs TCP-HO at the peer: without it the default row
        let d = decide(&rows, PipeType::Mobile, &[], &[], ("newreno", &none));
        assert!(
            matches!(&d, Decision::NoAdaptation { reason } if reason.contains("tcp_ho needs tcp_ho")),
            "{d:?}"
        );
        let d = decide(&rows, PipeType::Mobile, &["tcp_ho"], &[], ("newreno", &none));
        assert!(matches!(d, Decision::Switch { row, .. } if rows[row].adaptation == "tcp_ho"));
        // the default type keeps NewReno running
        let d = decide(&rows, PipeType::Default, &[], &[], ("newreno", &none));
        assert!(matches!(d, Decision::Keep { .. }));
        // high speed: cubic first, but an application that wants rtt_fairness... and one
        // that wants friendliness gets the row whose shortcomings do not list it
        let want = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let d = decide(
            &rows,
            PipeType::HighSpeed,
            &[],
            &want(&["scalability"]),
            ("newreno", &none),
        );
        assert!(matches!(d, Decision::Switch { row, .. } if rows[row].adaptation == "cubic"));
        let d = decide(
            &rows,
            PipeType::HighSpeed,
            &[],
            &want(&["low_delay"]),
            ("newreno", &none),
        );
        assert!(
            matches!(&d, Decision::Switch { row, reason } if rows[*row].adaptation == "highspeed" && reason.ends_with("score 0")),
            "{d:?}"
        );
    }
}
