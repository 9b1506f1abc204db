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

/// One link direction on a connection's path: its rate and which active-connection
/// counter is its.
#[derive(Debug, Clone)]
pub struct LinkShare {
    pub rate_bps: f64,
    pub hop: u32,
}

/// What a sender can know about the bottleneck share along its forward path.
#[derive(Debug, Clone, Default)]
pub struct PathShare {
    /// Shared by the connections on one route.
    pub links: Arc<[LinkShare]>,
    /// The active-connection counters, one per hop of the network (one allocation shared
    /// by every sender, not one per hop).
    pub active: Arc<[AtomicU32]>,
    /// Bytes one data packet occupies on the wire (payload + header).
    pub wire_bytes: f64,
}

impl PathShare {
    /// min over the path of (link rate / connections active on it), bit/s.
    pub fn fair_share_bps(&self) -> Option<f64> {
        self.links
            .iter()
            .map(|l| l.rate_bps / self.active[l.hop as usize].load(Ordering::Relaxed).max(1) as f64)
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

    /// The probability of each integer window 2..=W_M (index j − 2) given the share `w`:
    /// the definition `draw` samples from. It allocates W_M − 1 floats, so only tests use it.
    #[cfg(test)]
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
                    *p = triangle((k + 2) as f64, w, dm, dp);
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

    /// Draw the window the sender uses, given the share `w`: the first j in 2..=W_M at
    /// which the running sum of `distribution` (summed in order) exceeds a uniform draw,
    /// or W_M when rounding leaves the sum short of it.
    ///
    /// The distribution is never materialised (W_M is the receiver window, 10^9 segments
    /// by default): BBE touches two entries, TBE the triangle's support around the share,
    /// and NBE's running sum of a constant is followed in jumps (`uniform_pick`). Every
    /// running sum is formed exactly as summing the full vector would form it (adding the
    /// zeros outside the support changes no bit), so the draws are the same.
    pub fn draw(&self, w: f64, max_window: f64, rng: &mut Rng) -> f64 {
        let top = max_window.floor().max(2.0);
        let w = w.clamp(2.0, top);
        let u = rng.uniform();
        let picked = match *self {
            EstimateError::Bbe => rounding_pick(w, u),
            EstimateError::Nbe => {
                let n = top - 1.0;
                uniform_pick(1.0 / n, n as u64, u).map(|k| k as f64 + 2.0)
            }
            EstimateError::Tbe { under, over } => triangle_pick(w, top, under * w, over * w, u),
        };
        picked.unwrap_or(top)
    }
}

/// The unnormalised TBE weight of window `j` for share `w` (zero at w − dm and w + dp).
fn triangle(j: f64, w: f64, dm: f64, dp: f64) -> f64 {
    if j <= w {
        if dm > 0.0 {
            (1.0 - (w - j) / dm).max(0.0)
        } else {
            0.0
        }
    } else if dp > 0.0 {
        (1.0 - (j - w) / dp).max(0.0)
    } else {
        0.0
    }
}

/// BBE: `w` rounded to floor(w) with probability 1 − frac, else to floor(w) + 1.
fn rounding_pick(w: f64, u: f64) -> Option<f64> {
    let lo = w.floor();
    let frac = w - lo;
    let below = 1.0 - frac;
    if u < below {
        return Some(lo);
    }
    (frac > 0.0 && u < below + frac).then_some(lo + 1.0)
}

/// TBE: the weights are monotone on each side of the share (so are their floating-point
/// values), hence the non-zero ones form the run [lo, hi] found by walking out from it.
fn triangle_pick(w: f64, top: f64, dm: f64, dp: f64, u: f64) -> Option<f64> {
    let weight = |j: f64| triangle(j, w, dm, dp);
    let centre = w.floor();
    let mut lo = centre;
    while lo > 2.0 && weight(lo - 1.0) > 0.0 {
        lo -= 1.0;
    }
    let mut hi = centre;
    while hi < top && weight(hi + 1.0) > 0.0 {
        hi += 1.0;
    }
    let mut total = 0.0;
    let mut j = lo;
    while j <= hi {
        total += weight(j);
        j += 1.0;
    }
    if total <= 0.0 {
        // The triangle is narrower than the integer grid: it is BBE.
        return rounding_pick(w, u);
    }
    let mut acc = 0.0;
    let mut j = lo;
    while j <= hi {
        acc += weight(j) / total;
        if u < acc {
            return Some(j);
        }
        j += 1.0;
    }
    None
}

/// The first k in 0..n at which `acc += p` (from 0, k + 1 times, in f64) exceeds `u`, as
/// the plain loop would find it, in O(64) steps rather than O(n).
///
/// Within one binade [2^e, 2^(e+1)) the sum moves on a grid of spacing U (its ulp) and
/// each addition of p rounds to that grid, so the increment is the same at every step,
/// except that a tie (p/U ending in exactly .5) rounds to the even grid point: from an
/// even point the increment is then constant too. So: step literally, and when two
/// literal increments agree inside the binade, jump over all the steps that stay clear of
/// the binade's top, or straight to the step that exceeds `u`.
fn uniform_pick(p: f64, n: u64, u: f64) -> Option<u64> {
    const GRID_TOP: u64 = 1 << 53; // 2^(e+1) in units of U
    let mut acc = 0.0f64;
    let mut k = 0u64; // additions so far
    while k < n {
        acc += p;
        k += 1;
        if u < acc {
            return Some(k - 1);
        }
        let (a1, a2) = (acc + p, acc + p + p);
        let d = a1 - acc;
        if d == 0.0 {
            return None; // p is below half an ulp of the sum: it never grows again
        }
        let ulp = f64::from_bits(((acc.to_bits() >> 52) - 52) << 52);
        let binade_top = ulp * GRID_TOP as f64;
        if acc < p || a2 - a1 != d || a2 >= binade_top {
            continue;
        }
        let (at, step) = ((acc / ulp) as u64, (d / ulp) as u64);
        // Steps i = 0.. (from acc + i·d) whose exact sum stays at or below the binade's top.
        let Some(room) = (GRID_TOP - 1).checked_sub(at + step) else {
            continue;
        };
        let avail = (room / step + 1).min(n - k);
        // The first j >= 1 with acc + j·d > u (exact: all these sums are on the grid).
        let exceeds = |j: u64| (at + j * step) as f64 * ulp > u;
        let guess = ((u / ulp - at as f64) / step as f64).floor() + 1.0;
        if guess > avail as f64 + 1.0 {
            acc += avail as f64 * d;
            k += avail;
            continue;
        }
        let mut j = (guess.max(1.0) as u64).min(avail + 1);
        while j > 1 && exceeds(j - 1) {
            j -= 1;
        }
        while j <= avail && !exceeds(j) {
            j += 1;
        }
        if j <= avail {
            return Some(k + j - 1);
        }
        acc += avail as f64 * d;
        k += avail;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean(pi: &[f64]) -> f64 {
        pi.iter().enumerate().map(|(k, p)| (k + 2) as f64 * p).sum()
    }

    #[test]
    fn share_is_the_tightest_link_divided_by_its_active_connections() {
        let active: Arc<[AtomicU32]> = Arc::new([AtomicU32::new(4), AtomicU32::new(1)]);
        let path = PathShare {
            links: vec![
                LinkShare {
                    rate_bps: 100e6,
                    hop: 1,
                },
                LinkShare { rate_bps: 10e6, hop: 0 },
            ]
            .into(),
            active: active.clone(),
            wire_bytes: 1000.0,
        };
        assert_eq!(path.fair_share_bps(), Some(2.5e6));
        // 2.5 Mb/s × 100 ms / 8000 bit = 31.25 packets, clipped to the maximum window
        assert!((path.window(0.1, 64.0).unwrap() - 31.25).abs() < 1e-12);
        assert_eq!(path.window(0.1, 16.0), Some(16.0));
        active[0].store(1000, Ordering::Relaxed);
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

    /// The draw as it was defined: the running sum over the materialised distribution.
    fn reference_draw(e: &EstimateError, w: f64, max_window: f64, u: f64) -> f64 {
        let pi = e.distribution(w, max_window);
        let mut acc = 0.0;
        for (k, p) in pi.iter().enumerate() {
            acc += p;
            if u < acc {
                return (k + 2) as f64;
            }
        }
        (pi.len() + 1) as f64
    }

    /// The plain running-sum loop `uniform_pick` stands for.
    fn reference_uniform_pick(p: f64, n: u64, u: f64) -> Option<u64> {
        let mut acc = 0.0;
        for k in 0..n {
            acc += p;
            if u < acc {
                return Some(k);
            }
        }
        None
    }

    #[test]
    fn draws_equal_the_running_sum_over_the_whole_distribution() {
        let mut rng = Rng::from_seed(11);
        let errors = [
            EstimateError::Bbe,
            EstimateError::Nbe,
            EstimateError::Tbe {
                under: 0.25,
                over: 0.25,
            },
            EstimateError::Tbe { under: 0.9, over: 3.0 },
            EstimateError::Tbe { under: 0.0, over: 0.5 },
            EstimateError::Tbe { under: 0.3, over: 0.0 },
            EstimateError::Tbe {
                under: 0.01,
                over: 0.01,
            },
        ];
        for i in 0..20_000 {
            let e = &errors[i % errors.len()];
            let max_window = [2.0, 3.0, 7.5, 32.0, 64.0, 100.0, 1000.0, 4097.0][i % 8];
            let w = 1.0 + rng.uniform() * max_window * 1.2;
            let mut a = Rng::from_seed(i as u64);
            let mut b = a.clone();
            let expected = reference_draw(e, w, max_window, b.uniform());
            assert_eq!(e.draw(w, max_window, &mut a), expected, "{e:?} w={w} W_M={max_window}");
        }
        // u right at the running sums' values and just below them
        for n in [1u64, 2, 3, 31, 63, 100, 999] {
            let p = 1.0 / n as f64;
            let mut acc = 0.0f64;
            for _ in 0..n {
                acc += p;
                for u in [
                    acc,
                    f64::from_bits(acc.to_bits() - 1),
                    f64::from_bits(acc.to_bits() + 1),
                ] {
                    if u < 1.0 {
                        assert_eq!(uniform_pick(p, n, u), reference_uniform_pick(p, n, u), "n={n} u={u}");
                    }
                }
            }
        }
    }

    #[test]
    fn uniform_pick_follows_the_running_sum_over_long_supports() {
        let mut rng = Rng::from_seed(5);
        // sizes of every kind: powers of two (exact p), their neighbours, odd multiples
        // (p/ulp ending in .5: ties), random
        let mut sizes: Vec<u64> = vec![
            3,
            5,
            6,
            7,
            12,
            24,
            48,
            96,
            1 << 12,
            (1 << 12) + 1,
            (1 << 12) - 1,
            3 << 10,
        ];
        sizes.extend((0..40).map(|_| 2 + (rng.uniform() * 3e6) as u64));
        for &n in &sizes {
            let p = 1.0 / n as f64;
            for t in 0..30 {
                let u = if t == 0 { 0.999_999_999_999 } else { rng.uniform() };
                assert_eq!(uniform_pick(p, n, u), reference_uniform_pick(p, n, u), "n={n} u={u}");
            }
        }
        // any increment, not only 1/n
        for _ in 0..300 {
            let p = f64::from_bits(rng.next_u64() >> 12 | 0x3f00_0000_0000_0000) * 1e-3;
            let n = (rng.uniform() * 2e5) as u64 + 1;
            let u = rng.uniform();
            assert_eq!(
                uniform_pick(p, n, u),
                reference_uniform_pick(p, n, u),
                "p={p} n={n} u={u}"
            );
        }
    }

    #[test]
    fn draws_with_the_default_receiver_window_need_no_memory() {
        // W_M = 10^9: the old draw allocated 8 GB each time.
        let mut rng = Rng::from_seed(9);
        for e in [
            EstimateError::Bbe,
            EstimateError::Nbe,
            EstimateError::Tbe {
                under: 0.25,
                over: 0.25,
            },
        ] {
            for _ in 0..100 {
                let x = e.draw(40.3, 1e9, &mut rng);
                assert!((2.0..=1e9).contains(&x) && x.fract() == 0.0, "{e:?}: {x}");
                if e != EstimateError::Nbe {
                    assert!((30.0..=51.0).contains(&x), "{e:?}: {x}");
                }
            }
        }
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
