//! Tables where tables are expected. serde's derived struct deserialisers also accept a
//! list, read positionally (`bottleneck = [1, 2]` would be rate 1, delay 2); the spec is
//! checked against this outline before it is deserialised, so that a list given for a
//! table is an error naming the field.
use super::limits::err;
use super::SpecError;
use serde_json::Value;

/// What a field holds: a table (with these sub-fields to check) or a list of such tables.
enum Shape {
    Table(&'static [(&'static str, Shape)]),
    ListOf(&'static [(&'static str, Shape)]),
}
use Shape::{ListOf, Table};

const SPEC: &[(&str, Shape)] = &[
    ("sim", Table(&[])),
    ("nodes", ListOf(&[])),
    ("links", ListOf(&[])),
    ("dumbbell", Table(&[("bottleneck", Table(&[])), ("access", Table(&[]))])),
    (
        "flows",
        ListOf(&[
            ("tcp", Table(&[])),
            ("cc_params", Table(&[])),
            ("switch", ListOf(&[])),
            ("rate_schedule", ListOf(&[])),
        ]),
    ),
    ("pcap", ListOf(&[])),
    ("generators", ListOf(&[("tcp", Table(&[])), ("cc_params", Table(&[]))])),
    ("lans", ListOf(&[])),
    ("link_changes", ListOf(&[])),
];

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a table",
    }
}

fn table(path: &str, v: &Value, fields: &[(&str, Shape)]) -> Result<(), SpecError> {
    let Value::Object(m) = v else {
        return err(path, format!("expected a table, got {}", kind(v)));
    };
    for (name, shape) in fields {
        // An absent or null field is left to the deserialiser (a default, or its error).
        let Some(sub) = m.get(*name).filter(|s| !s.is_null()) else {
            continue;
        };
        let p = if path == "spec" {
            name.to_string()
        } else {
            format!("{path}.{name}")
        };
        match shape {
            Table(inner) => table(&p, sub, inner)?,
            ListOf(inner) => {
                // A table given for a list is reported by the deserialiser.
                if let Value::Array(items) = sub {
                    for (i, item) in items.iter().enumerate() {
                        table(&format!("{p}[{i}]"), item, inner)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Check that every table of the spec is a table (not a list).
pub fn check(spec: &Value) -> Result<(), SpecError> {
    table("spec", spec, SPEC)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_for_tables_are_refused_with_the_field() {
        let cases = [
            (json!({"sim": [10]}), "sim: expected a table, got a list"),
            (json!([1]), "spec: expected a table, got a list"),
            (
                json!({"sim": {}, "dumbbell": {"bottleneck": [1, 2]}}),
                "dumbbell.bottleneck: expected a table",
            ),
            (json!({"sim": {}, "flows": [[1]]}), "flows[0]: expected a table"),
            (
                json!({"sim": {}, "flows": [{"switch": [["1s", "reno"]]}]}),
                "flows[0].switch[0]: expected a table",
            ),
            (
                json!({"sim": {}, "generators": [{}, {"tcp": [1]}]}),
                "generators[1].tcp: expected a table",
            ),
        ];
        for (v, want) in cases {
            let e = check(&v).unwrap_err().0;
            assert!(e.starts_with(want), "{v}: {e}");
        }
        assert!(check(&json!({"sim": {}, "flows": [{"src": "a"}], "dumbbell": null})).is_ok());
    }
}
