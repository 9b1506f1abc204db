//! A host's `tcbi` table: TCP control block interdependence (which connections share
//! their state, and how).
use super::limits::{err, int_in, time_pos};
use super::SpecError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// TCP control block interdependence of one host (Savorić, Karl, Wolisz; RFC 2140).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TcbiSpec {
    /// "none" (sets are tracked, nothing is shared), "mv" (mean value), "fs" (fair share).
    pub controller: String,
    /// Connections whose destination addresses agree in the first `prefix` bits form a set.
    pub prefix: u8,
    /// Temporal sharing (our design): reuse the values of closed connections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temporal: Option<TemporalSpec>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TemporalSpec {
    /// Seconds after which a cached entry is ignored.
    pub lifetime: f64,
    /// "linear" (values decay linearly toward the standard ones over the lifetime) or "none".
    pub ageing: String,
}

pub(super) fn tcbi_options(path: &str, v: &Value) -> Result<TcbiSpec, SpecError> {
    let Value::Object(m) = v else {
        return err(path, format!("expected a table like {{controller = \"mv\"}}, got {v}"));
    };
    let mut t = TcbiSpec {
        controller: "none".into(),
        prefix: 32,
        temporal: None,
    };
    for (k, v) in m {
        let p = format!("{path}.{k}");
        match k.as_str() {
            "controller" => match v.as_str() {
                Some(c @ ("none" | "mv" | "fs")) => t.controller = c.into(),
                _ => return err(&p, format!("{v} is not allowed; allowed: \"none\", \"mv\", \"fs\"")),
            },
            "prefix" => t.prefix = int_in(&p, v, 0, 32)? as u8,
            "temporal" => {
                if v.is_null() {
                    continue;
                }
                t.temporal = Some(temporal_options(&p, v)?);
            }
            _ => return err(&p, "unknown field; allowed: controller, prefix, temporal"),
        }
    }
    Ok(t)
}

fn temporal_options(p: &str, v: &Value) -> Result<TemporalSpec, SpecError> {
    let Value::Object(tm) = v else {
        return err(p, format!("expected a table like {{lifetime = 600}}, got {v}"));
    };
    let mut temporal = TemporalSpec {
        lifetime: 600.0,
        ageing: "linear".into(),
    };
    for (tk, tv) in tm {
        let tp = format!("{p}.{tk}");
        match tk.as_str() {
            "lifetime" => temporal.lifetime = time_pos(&tp, tv)?,
            "ageing" => match tv.as_str() {
                Some(a @ ("linear" | "none")) => temporal.ageing = a.into(),
                _ => return err(&tp, format!("{tv} is not allowed; allowed: \"linear\", \"none\"")),
            },
            _ => return err(&tp, "unknown field; allowed: lifetime, ageing"),
        }
    }
    Ok(temporal)
}
