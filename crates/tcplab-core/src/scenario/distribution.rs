//! Random distributions given in a spec (flow sizes, think and reading times, pages), read
//! by their own parameters or by mean and standard deviation.
use super::limits::{err, num};
use super::SpecError;
use crate::sim::Dist;
use serde_json::Value;

/// A distribution from `{dist = ..., <own parameters>}` or `{dist = ..., mean = ..., std = ...}`.
///
/// `max_typical`: for a distribution of times, the largest mean (or, for a Pareto without
/// a mean, the largest scale) allowed.
pub(super) fn distribution(path: &str, v: &Value, max_typical: Option<f64>) -> Result<Dist, SpecError> {
    let Value::Object(m) = v else {
        return err(
            path,
            format!("expected a distribution table like {{dist = \"exponential\", mean = 1.0}}, got {v}"),
        );
    };
    let kind = m.get("dist").and_then(Value::as_str).unwrap_or("");
    let by_moments = m.contains_key("std") || (m.contains_key("mean") && kind != "exponential");
    let d = if by_moments {
        for k in m.keys() {
            if !["dist", "mean", "std"].contains(&k.as_str()) {
                return err(
                    &format!("{path}.{k}"),
                    "give either mean and std, or the distribution's own parameters",
                );
            }
        }
        let mean = num(&format!("{path}.mean"), m.get("mean").unwrap_or(&Value::Null))?;
        let std = match m.get("std") {
            Some(s) => num(&format!("{path}.std"), s)?,
            None => 0.0,
        };
        Dist::from_moments(kind, mean, std).map_err(|e| SpecError(format!("{path}: {e}")))?
    } else {
        serde_json::from_value::<Dist>(v.clone()).map_err(|e| {
            SpecError(format!(
                "{path}: {e}; expected one of {{dist=\"constant\", value}}, {{dist=\"uniform\", low, high}}, \
                 {{dist=\"exponential\", mean}}, {{dist=\"pareto\", shape, scale}}, {{dist=\"lognormal\", mu, sigma}}, \
                 {{dist=\"gamma\", shape, scale}}, or mean and std"
            ))
        })?
    };
    d.validate().map_err(|e| SpecError(format!("{path}: {e}")))?;
    let params = match d {
        Dist::Constant { value } => [value, 0.0],
        Dist::Uniform { low, high } => [low, high],
        Dist::Exponential { mean } => [mean, 0.0],
        Dist::Pareto { shape, scale } | Dist::Gamma { shape, scale } => [shape, scale],
        Dist::Lognormal { mu, sigma } => [mu, sigma],
    };
    if params.iter().any(|x| !x.is_finite()) {
        return err(
            path,
            format!("{d:?} is not allowed; every parameter must be a finite number"),
        );
    }
    if let Some(max) = max_typical {
        let (what, typical) = match d {
            Dist::Pareto { scale, .. } if !d.mean().is_finite() => ("scale", scale),
            _ => ("mean", d.mean()),
        };
        if !(typical <= max) {
            return err(
                path,
                format!("{d:?} has {what} {typical:e} s; at most {max:e} s (the simulated clock's range)"),
            );
        }
    }
    Ok(d)
}
