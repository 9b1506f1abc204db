//! The fair-share estimate used by RFS and ESSE (Lo Cigno, Procissi, Gerla §4.2): the
//! bottleneck share from the number of simultaneously active connections, turned into a
//! window, and the estimation-error distributions BBE, NBE and TBE of their §3.1 that wrap it.
//!
//! The engine counts, per link direction, the connections that have started and not yet
//! finished (last ACK, or stopped) and shares those counters with every sender whose path
//! crosses the link; the estimate is `min over the path of rate / active`, times the
//! connection's minimum RTT, in packets on the wire, clipped to [2, W_M] (W_M = rwnd).
use crate::sim::Rng;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// One link direction on a connection's path: its rate and its active-connection counter.
#[derive(Debug, Clone)]
pub struct LinkShare {
    pub rate_bps: f64,
    pub active: Arc<AtomicU32>,
}

/// What a sender can know about the bottleneck share along its forward path.
#[derive(Debug, Clone, Default)]
pub struct PathShare {
    pub links: Vec<LinkShare>,
    /// Bytes one data packet occupies on the wire (payload + header).
    pub wire_bytes: f64,
}

impl PathShare {
    /// min over the path of (link rate / connections active on it), bit/s.
    pub fn fair_share_bps(&self) -> Option<f64> {
        self.links
            .iter()
            .map(|l| l.rate_bps / l.active.load(Ordering::Relaxed).max(1) as f64)
            .min_by(|a, b| a.total_cmp(b))
    }

    /// The fair-share window in packets for round-trip time `rtt`, before any error,
    /// clipped to [2, max_window]. None without a path or an RTT sample.
    pub fn window(&self, rtt: f64, max_window: f64) -> Option<f64> {
        if !rtt.is_finite() || rtt <= 0.0 || self.wire_bytes <= 0.0 {
            return None;
        }
        let w = self.fair_share_bps()? * rtt / (8.0 * self.wire_bytes);
        Some(w.clamp(2.0, max_window.max(2.0)))
    }
}

/// How far the estimate the sender uses is from the true fair share (paper §3.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EstimateError {
    /// Best estimate: the share itself, rounded to a neighbouring integer with the
    /// probabilities that keep its mean exact.
    Bbe,
    /// No estimate: uniform over the integers 2..=W_M.
    Nbe,
    /// Triangular around the share, reaching zero at (1 − under)·W and (1 + over)·W.
    Tbe { under: f64, over: f64 },
}

/// Codes of the `error` cc parameter (the scenario accepts the names).
pub const ERROR_NAMES: &[&str] = &["bbe", "nbe", "tbe"];

impl EstimateError {
    pub fn from_params(code: f64, under: f64, over: f64) -> Result<EstimateError, String> {
        if !(0.0..1.0).contains(&under) {
            return Err(format!("error_under = {under} is not allowed; must be in [0, 1)"));
        }
        if !(over >= 0.0 && over.is_finite()) {
            return Err(format!("error_over = {over} is not allowed; must be >= 0"));
        }
        match code as i64 {
            0 if code == 0.0 => Ok(EstimateError::Bbe),
            1 if code == 1.0 => Ok(EstimateError::Nbe),
            2 if code == 2.0 => Ok(EstimateError::Tbe { under, over }),
            _ => Err(format!(
                "error = {code} is not allowed; allowed: {}",
                ERROR_NAMES.join(", ")
            )),
        }
    }

    /// The probability of each integer window 2..=W_M (index j − 2) given the share `w`.
    pub fn distribution(&self, w: f64, max_window: f64) -> Vec<f64> {
        let top = max_window.floor().max(2.0) as usize;
        let w = w.clamp(2.0, top as f64);
        let mut pi = vec![0.0; top - 1];
        let rounding = |pi: &mut Vec<f64>| {
            let lo = w.floor();
            let frac = w - lo;
            pi[lo as usize - 2] += 1.0 - frac;
            if frac > 0.0 {
                pi[lo as usize - 1] += frac;
            }
        };
        match *self {
            EstimateError::Bbe => rounding(&mut pi),
            EstimateError::Nbe => pi.iter_mut().for_each(|p| *p = 1.0 / (top - 1) as f64),
            EstimateError::Tbe { under, over } => {
                let (dm, dp) = (under * w, over * w);
                for (k, p) in pi.iter_mut().enumerate() {
                    let j = (k + 2) as f64;
                    *p = if j <= w {
                        if dm > 0.0 {
                            (1.0 - (w - j) / dm).max(0.0)
                        } else {
                            0.0
                        }
                    } else if dp > 0.0 {
                        (1.0 - (j - w) / dp).max(0.0)
                    } else {
                        0.0
                    };
                }
                let total: f64 = pi.iter().sum();
                if total > 0.0 {
                    pi.iter_mut().for_each(|p| *p /= total);
                } else {
                    // The triangle is narrower than the integer grid: it is BBE.
                    rounding(&mut pi);
                }
            }
        }
        pi
    }

    /// Draw the window the sender uses, given the share `w`.
    pub fn draw(&self, w: f64, max_window: f64, rng: &mut Rng) -> f64 {
        let pi = self.distribution(w, max_window);
        let u = rng.uniform();
        let mut acc = 0.0;
        for (k, p) in pi.iter().enumerate() {
            acc += p;
            if u < acc {
                return (k + 2) as f64;
            }
        }
        (pi.len() + 1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean(pi: &[f64]) -> f64 {
        pi.iter().enumerate().map(|(k, p)| (k + 2) as f64 * p).sum()
    }

    #[test]
    fn share_is_the_tightest_link_divided_by_its_active_connections() {
        let a = Arc::new(AtomicU32::new(4));
        let b = Arc::new(AtomicU32::new(1));
        let path = PathShare {
            links: vec![
                LinkShare {
                    rate_bps: 100e6,
                    active: b.clone(),
                },
                LinkShare {
                    rate_bps: 10e6,
                    active: a.clone(),
                },
            ],
            wire_bytes: 1000.0,
        };
        assert_eq!(path.fair_share_bps(), Some(2.5e6));
        // 2.5 Mb/s × 100 ms / 8000 bit = 31.25 packets, clipped to the maximum window
        assert!((path.window(0.1, 64.0).unwrap() - 31.25).abs() < 1e-12);
        assert_eq!(path.window(0.1, 16.0), Some(16.0));
        a.store(1000, Ordering::Relaxed);
        assert_eq!(path.window(0.1, 64.0), Some(2.0), "never below 2");
        assert_eq!(path.window(f64::INFINITY, 64.0), None, "no RTT sample yet");
        assert_eq!(PathShare::default().window(0.1, 64.0), None);
    }

    #[test]
    fn bbe_keeps_the_mean_exact() {
        let pi = EstimateError::Bbe.distribution(7.3, 32.0);
        assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((mean(&pi) - 7.3).abs() < 1e-12);
        assert!((pi[5] - 0.7).abs() < 1e-12 && (pi[6] - 0.3).abs() < 1e-12);
        assert_eq!(EstimateError::Bbe.distribution(9.0, 32.0)[7], 1.0);
    }

    #[test]
    fn nbe_is_uniform_over_2_to_wm() {
        let pi = EstimateError::Nbe.distribution(7.3, 32.0);
        assert_eq!(pi.len(), 31);
        assert!(pi.iter().all(|p| (p - 1.0 / 31.0).abs() < 1e-15));
        assert!((mean(&pi) - 17.0).abs() < 1e-9);
    }

    #[test]
    fn tbe_is_a_triangle_around_the_share() {
        let sym = EstimateError::Tbe {
            under: 0.25,
            over: 0.25,
        }
        .distribution(20.0, 64.0);
        assert!((sym.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((mean(&sym) - 20.0).abs() < 1e-9, "symmetric: mean = share");
        // support (15, 25): zero at 15 and 25, peak at 20, linear in between
        assert_eq!(sym[15 - 2], 0.0);
        assert_eq!(sym[25 - 2], 0.0);
        assert!(sym[16 - 2] > 0.0 && sym[24 - 2] > 0.0);
        assert!((sym[18 - 2] / sym[20 - 2] - 0.6).abs() < 1e-12);
        let over = EstimateError::Tbe { under: 0.1, over: 0.5 }.distribution(20.0, 64.0);
        assert!(
            mean(&over) > 21.0,
            "over-estimation shifts the mean up: {}",
            mean(&over)
        );
        let narrow = EstimateError::Tbe {
            under: 0.01,
            over: 0.01,
        }
        .distribution(20.5, 64.0);
        assert!((mean(&narrow) - 20.5).abs() < 1e-12, "narrower than the grid: rounding");
    }

    #[test]
    fn draws_follow_the_distribution() {
        let mut rng = Rng::from_seed(3);
        let e = EstimateError::Tbe {
            under: 0.25,
            over: 0.25,
        };
        let n = 100_000;
        let m: f64 = (0..n).map(|_| e.draw(12.0, 32.0, &mut rng)).sum::<f64>() / n as f64;
        assert!((m - 12.0).abs() < 0.03, "{m}");
        let m: f64 = (0..n)
            .map(|_| EstimateError::Bbe.draw(5.25, 32.0, &mut rng))
            .sum::<f64>()
            / n as f64;
        assert!((m - 5.25).abs() < 0.01, "{m}");
    }

    #[test]
    fn bad_parameters_are_named() {
        assert!(EstimateError::from_params(3.0, 0.25, 0.25)
            .unwrap_err()
            .contains("allowed: bbe, nbe, tbe"));
        assert!(EstimateError::from_params(2.0, 1.5, 0.25)
            .unwrap_err()
            .contains("error_under"));
        assert_eq!(
            EstimateError::from_params(2.0, 0.2, 0.3).unwrap(),
            EstimateError::Tbe { under: 0.2, over: 0.3 }
        );
    }
}
