//! The application's expectations the agent scores knowledge-base rows with: the spec's
//! `expectations` (the thesis's `commands_handler`: socket options), else what the
//! connection's destination port suggests (its `establish_handler` "may deduce
//! application's expectations based on the port used by a connection", thesis §4.5.2).
use super::KentRidgeSpec;

/// The port map used when the `kentridge` table has no `port_expectations`: well-known
/// server ports and what their applications want, in the built-in knowledge base's terms.
/// Port 5001, every connection's port unless `tcp.dport` says otherwise, is not in it.
pub const BUILTIN_PORT_EXPECTATIONS: &[(u16, &[&str])] = &[
    // Bulk transfers: FTP data and control, SSH (scp, sftp), rsync.
    (20, &["utilisation"]),
    (21, &["utilisation"]),
    (22, &["utilisation"]),
    (873, &["utilisation"]),
    // Web pages: short, interactive transfers.
    (80, &["low_delay"]),
    (443, &["low_delay"]),
    (8080, &["low_delay"]),
    // Real-time media: RTP (RFC 3551's default port) and SIP, plain and over TLS.
    (5004, &["low_delay"]),
    (5060, &["low_delay"]),
    (5061, &["low_delay"]),
];

/// Where a connection's expectations came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The spec's `expectations`; also when there are none (the spec gives none and the
    /// port map has no entry for the port).
    Spec,
    /// Inferred from this destination port.
    Port(u16),
}

/// A connection's expectations and their source.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectations {
    pub terms: Vec<String>,
    pub source: Source,
}

impl Expectations {
    /// Given directly (the spec's, or a test's).
    pub fn given(terms: &[String]) -> Expectations {
        Expectations {
            terms: terms.to_vec(),
            source: Source::Spec,
        }
    }

    /// What the agent's event detail says about them: nothing for the spec's (the score
    /// says enough), the terms and the port for inferred ones.
    pub fn describe(&self) -> Option<String> {
        match self.source {
            Source::Spec => None,
            Source::Port(port) => Some(format!(
                "expectations {} inferred from port {port}",
                self.terms.join("+")
            )),
        }
    }
}

/// The expectations of a connection to destination port `dport`: the spec's when it gives
/// any; else the port map's entry for `dport` (the spec's `port_expectations`, or the
/// built-in map); else none.
pub fn for_connection(spec: &KentRidgeSpec, dport: u16) -> Expectations {
    if !spec.expectations.is_empty() {
        return Expectations::given(&spec.expectations);
    }
    let inferred: Option<Vec<String>> = match &spec.port_expectations {
        Some(map) => map.get(&dport).cloned(),
        None => BUILTIN_PORT_EXPECTATIONS
            .iter()
            .find(|(p, _)| *p == dport)
            .map(|(_, terms)| terms.iter().map(|t| t.to_string()).collect()),
    };
    match inferred {
        Some(terms) if !terms.is_empty() => Expectations {
            terms,
            source: Source::Port(dport),
        },
        _ => Expectations::given(&[]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kentridge::kb;

    fn spec(expectations: &[&str], port_map: Option<&[(u16, &[&str])]>) -> KentRidgeSpec {
        KentRidgeSpec {
            interval: 1.0,
            thresholds: Default::default(),
            precedence: Vec::new(),
            expectations: expectations.iter().map(|s| s.to_string()).collect(),
            port_expectations: port_map.map(|m| {
                m.iter()
                    .map(|(p, t)| (*p, t.iter().map(|s| s.to_string()).collect()))
                    .collect()
            }),
            platform: None,
            kb_source: "builtin".into(),
            kb: kb::parse(kb::BUILTIN).unwrap(),
        }
    }

    #[test]
    fn the_spec_wins_then_the_port_map_then_nothing() {
        let e = for_connection(&spec(&["friendliness"], None), 80);
        assert_eq!((e.terms, e.source), (vec!["friendliness".to_string()], Source::Spec));
        let e = for_connection(&spec(&[], None), 80);
        assert_eq!(
            (e.terms.clone(), e.source),
            (vec!["low_delay".to_string()], Source::Port(80))
        );
        assert_eq!(
            e.describe().as_deref(),
            Some("expectations low_delay inferred from port 80")
        );
        let e = for_connection(&spec(&[], None), 22);
        assert_eq!(e.terms, vec!["utilisation"]);
        // the default port maps to nothing: no existing result changes
        let e = for_connection(&spec(&[], None), crate::scenario::DEFAULT_DPORT);
        assert_eq!((e.terms.len(), e.source, e.describe()), (0, Source::Spec, None));
        // a spec's map replaces the built-in one; an empty one turns inference off
        let custom: &[(u16, &[&str])] = &[(9000, &["fairness", "friendliness"])];
        let e = for_connection(&spec(&[], Some(custom)), 9000);
        assert_eq!(e.terms, vec!["fairness", "friendliness"]);
        assert!(for_connection(&spec(&[], Some(custom)), 80).terms.is_empty());
        assert!(for_connection(&spec(&[], Some(&[])), 80).terms.is_empty());
    }

    #[test]
    fn the_builtin_map_uses_terms_of_the_builtin_knowledge_base() {
        let rows = kb::parse(kb::BUILTIN).unwrap();
        let terms = kb::terms(&rows);
        for (port, ts) in BUILTIN_PORT_EXPECTATIONS {
            for t in *ts {
                assert!(terms.contains(t), "port {port}: {t} is not a term of the built-in KB");
            }
        }
        assert!(BUILTIN_PORT_EXPECTATIONS
            .iter()
            .all(|(p, _)| *p != crate::scenario::DEFAULT_DPORT));
    }
}
