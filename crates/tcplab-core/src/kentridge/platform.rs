//! The platform the connection runs on (thesis §4.5.1: the agent's inputs include "platform
//! information"; hosts differ in CPU, memory and power supply, §4.3): a constrained input
//! penalises the knowledge-base rows whose shortcomings name its cost term. Which
//! adaptation costs what is the knowledge base's data (`data/kentridge-kb.csv`), not code.
use serde::{Deserialize, Serialize};

/// One platform input: its values (the unconstrained one first), the constrained value and
/// the shortcoming term it penalises.
pub struct Input {
    pub name: &'static str,
    pub values: &'static [&'static str],
    pub constrained: &'static str,
    pub term: &'static str,
}

pub const INPUTS: &[Input] = &[
    Input {
        name: "cpu",
        values: &["normal", "low"],
        constrained: "low",
        term: "cpu_cost",
    },
    Input {
        name: "memory",
        values: &["normal", "low"],
        constrained: "low",
        term: "memory_cost",
    },
    Input {
        name: "power",
        values: &["mains", "battery"],
        constrained: "battery",
        term: "energy_cost",
    },
];

/// The cost terms platform inputs penalise. They are read only under a `platform` table:
/// they are not application expectations.
pub fn cost_terms() -> impl Iterator<Item = &'static str> {
    INPUTS.iter().map(|i| i.term)
}

pub fn is_cost_term(t: &str) -> bool {
    cost_terms().any(|c| c == t)
}

/// A flow's `platform` table, validated: each input's value (the unconstrained one when
/// not given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Platform {
    pub cpu: String,
    pub memory: String,
    pub power: String,
}

impl Default for Platform {
    fn default() -> Platform {
        Platform {
            cpu: INPUTS[0].values[0].into(),
            memory: INPUTS[1].values[0].into(),
            power: INPUTS[2].values[0].into(),
        }
    }
}

impl Platform {
    pub fn value(&self, input: &str) -> &str {
        match input {
            "cpu" => &self.cpu,
            "memory" => &self.memory,
            _ => &self.power,
        }
    }

    pub fn set(&mut self, input: &str, value: &str) {
        match input {
            "cpu" => self.cpu = value.into(),
            "memory" => self.memory = value.into(),
            _ => self.power = value.into(),
        }
    }

    /// The constrained inputs, as (input, value, penalised term).
    pub fn constraints(&self) -> Vec<(&'static str, &str, &'static str)> {
        INPUTS
            .iter()
            .filter(|i| self.value(i.name) == i.constrained)
            .map(|i| (i.name, self.value(i.name), i.term))
            .collect()
    }
}

/// A row's platform penalty: −1 per constrained input whose cost term is among the row's
/// shortcomings; and those terms.
pub fn penalty<'a>(platform: Option<&Platform>, shortcomings: &'a [String]) -> (i64, Vec<&'a str>) {
    let Some(p) = platform else {
        return (0, Vec::new());
    };
    let hit: Vec<&str> = p
        .constraints()
        .into_iter()
        .filter_map(|(_, _, term)| shortcomings.iter().find(|s| s.as_str() == term).map(String::as_str))
        .collect();
    (-(hit.len() as i64), hit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constrained_inputs_penalise_their_cost_terms() {
        let short = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let sync = short(&["unfair_on_multiple_bottlenecks", "cpu_cost", "energy_cost"]);
        assert_eq!(penalty(None, &sync), (0, vec![]));
        let normal = Platform::default();
        assert!(normal.constraints().is_empty());
        assert_eq!(penalty(Some(&normal), &sync), (0, vec![]));
        let mut phone = Platform::default();
        phone.set("cpu", "low");
        assert_eq!(penalty(Some(&phone), &sync), (-1, vec!["cpu_cost"]));
        phone.set("power", "battery");
        assert_eq!(penalty(Some(&phone), &sync), (-2, vec!["cpu_cost", "energy_cost"]));
        phone.set("memory", "low");
        assert_eq!(phone.constraints().len(), 3);
        assert_eq!(penalty(Some(&phone), &short(&["friendliness"])), (0, vec![]));
        assert!(is_cost_term("memory_cost") && !is_cost_term("low_delay"));
    }
}
