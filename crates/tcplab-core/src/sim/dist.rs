//! Random variates for traffic models. A distribution is given either by its own
//! parameters or by mean and standard deviation, converted here (the papers state means
//! and deviations; see `from_moments`).
use super::Rng;
use serde::{Deserialize, Serialize};

/// A distribution in its own parameters (the normalised form).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "dist", rename_all = "lowercase", deny_unknown_fields)]
pub enum Dist {
    Constant {
        value: f64,
    },
    Uniform {
        low: f64,
        high: f64,
    },
    Exponential {
        mean: f64,
    },
    /// Pareto with shape `shape` (α) and scale `scale` (x_m, the minimum).
    Pareto {
        shape: f64,
        scale: f64,
    },
    /// exp(N(mu, sigma²)).
    Lognormal {
        mu: f64,
        sigma: f64,
    },
    /// Gamma with shape k and scale θ (mean kθ).
    Gamma {
        shape: f64,
        scale: f64,
    },
}

impl Dist {
    /// Convert mean and standard deviation into the distribution's own parameters.
    pub fn from_moments(kind: &str, mean: f64, std: f64) -> Result<Dist, String> {
        if !(mean > 0.0 && mean.is_finite()) {
            return Err(format!("mean {mean} is not allowed; must be > 0"));
        }
        if !(std >= 0.0 && std.is_finite()) {
            return Err(format!("std {std} is not allowed; must be >= 0"));
        }
        match kind {
            "constant" => Ok(Dist::Constant { value: mean }),
            "exponential" => Ok(Dist::Exponential { mean }),
            "lognormal" => {
                let s2 = (1.0 + (std * std) / (mean * mean)).ln();
                Ok(Dist::Lognormal {
                    mu: mean.ln() - s2 / 2.0,
                    sigma: s2.sqrt(),
                })
            }
            "gamma" => {
                if std <= 0.0 {
                    return Err("gamma needs std > 0".into());
                }
                Ok(Dist::Gamma {
                    shape: mean * mean / (std * std),
                    scale: std * std / mean,
                })
            }
            "pareto" => {
                if std <= 0.0 {
                    return Err("pareto needs std > 0".into());
                }
                // mean = a·x/(a−1), var/mean² = 1/(a(a−2))  ⇒  a = 1 + sqrt(1 + mean²/std²).
                let a = 1.0 + (1.0 + (mean * mean) / (std * std)).sqrt();
                Ok(Dist::Pareto {
                    shape: a,
                    scale: mean * (a - 1.0) / a,
                })
            }
            "uniform" => {
                // mean ± sqrt(3)·std
                let h = 3f64.sqrt() * std;
                Ok(Dist::Uniform {
                    low: mean - h,
                    high: mean + h,
                })
            }
            _ => Err(format!(
                "unknown distribution {kind:?}; allowed: constant, uniform, exponential, pareto, lognormal, gamma"
            )),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        let ok = match *self {
            Dist::Constant { value } => value.is_finite(),
            Dist::Uniform { low, high } => low.is_finite() && high.is_finite() && low <= high,
            Dist::Exponential { mean } => mean > 0.0 && mean.is_finite(),
            Dist::Pareto { shape, scale } => shape > 0.0 && scale > 0.0,
            Dist::Lognormal { mu, sigma } => mu.is_finite() && sigma >= 0.0 && sigma.is_finite(),
            Dist::Gamma { shape, scale } => shape > 0.0 && scale > 0.0,
        };
        if ok {
            Ok(())
        } else {
            Err(format!("invalid parameters {self:?}"))
        }
    }

    /// The distribution's mean (infinite for Pareto with shape ≤ 1).
    pub fn mean(&self) -> f64 {
        match *self {
            Dist::Constant { value } => value,
            Dist::Uniform { low, high } => (low + high) / 2.0,
            Dist::Exponential { mean } => mean,
            Dist::Pareto { shape, scale } => {
                if shape > 1.0 {
                    shape * scale / (shape - 1.0)
                } else {
                    f64::INFINITY
                }
            }
            Dist::Lognormal { mu, sigma } => (mu + sigma * sigma / 2.0).exp(),
            Dist::Gamma { shape, scale } => shape * scale,
        }
    }

    pub fn sample(&self, r: &mut Rng) -> f64 {
        match *self {
            Dist::Constant { value } => value,
            Dist::Uniform { low, high } => low + (high - low) * r.uniform(),
            Dist::Exponential { mean } => r.exponential(mean),
            Dist::Pareto { shape, scale } => scale / (1.0 - r.uniform()).powf(1.0 / shape),
            Dist::Lognormal { mu, sigma } => (mu + sigma * normal(r)).exp(),
            Dist::Gamma { shape, scale } => gamma(r, shape) * scale,
        }
    }
}

/// Standard normal by Box–Muller.
pub fn normal(r: &mut Rng) -> f64 {
    let u1 = 1.0 - r.uniform();
    let u2 = r.uniform();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Gamma(shape, 1) by Marsaglia and Tsang (with the shape < 1 boost).
fn gamma(r: &mut Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        let u = r.uniform().max(f64::MIN_POSITIVE);
        return gamma(r, shape + 1.0) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(r);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = r.uniform();
        if u < 1.0 - 0.0331 * x.powi(4) || u.max(f64::MIN_POSITIVE).ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(d: &Dist, n: usize) -> (f64, f64) {
        let mut r = Rng::from_seed(99);
        let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut r)).collect();
        let m = xs.iter().sum::<f64>() / n as f64;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64;
        (m, v.sqrt())
    }

    #[test]
    fn moment_conversions_reproduce_mean_and_std_by_sampling() {
        for kind in ["exponential", "lognormal", "gamma", "uniform"] {
            let (mean, std) = if kind == "exponential" { (2.0, 2.0) } else { (3.0, 1.5) };
            let d = Dist::from_moments(kind, mean, std).unwrap();
            let (m, s) = moments(&d, 400_000);
            assert!((m - mean).abs() / mean < 0.01, "{kind}: mean {m}");
            assert!((s - std).abs() / std < 0.02, "{kind}: std {s}");
        }
        // Pareto with finite variance (shape > 2 when std is finite): the mean converges;
        // the sample std of a heavy tail converges slowly, so check the mean and the shape.
        let d = Dist::from_moments("pareto", 5.0, 5.0).unwrap();
        let Dist::Pareto { shape, scale } = d else { panic!() };
        assert!((shape - (1.0 + 2f64.sqrt())).abs() < 1e-12);
        assert!((d.mean() - 5.0).abs() < 1e-12 && scale > 0.0);
        let (m, _) = moments(&d, 1_000_000);
        assert!((m - 5.0).abs() / 5.0 < 0.03, "pareto mean {m}");
    }

    #[test]
    fn bad_parameters_are_reported() {
        assert!(Dist::from_moments("weibull", 1.0, 1.0).unwrap_err().contains("allowed"));
        assert!(Dist::from_moments("gamma", -1.0, 1.0).is_err());
        assert!(Dist::Uniform { low: 2.0, high: 1.0 }.validate().is_err());
    }
}
