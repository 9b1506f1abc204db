//! The queueing delay of the packets a managed link direction sends: count, sum, the
//! running mean and squared deviations (Welford's, for the standard deviation: the delay's
//! jitter), maximum, and a log-linear histogram for quantiles (16 buckets per power of two of nanoseconds,
//! so a quantile is within 1/32 of its value; below 16 ns exact).
use crate::sim::{to_secs, Time};

const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
/// Buckets: 16 exact ones below 16 ns, then 16 per octave up to 2^64 ns.
const BUCKETS: usize = SUB + (64 - SUB_BITS as usize) * SUB;

#[derive(Debug, Clone, Default)]
pub struct WaitStats {
    n: u64,
    sum_ns: u128,
    /// Welford's running mean and sum of squared deviations, ns and ns².
    mean_ns: f64,
    m2_ns: f64,
    max_ns: u64,
    /// Allocated at the first sample.
    hist: Vec<u64>,
}

fn bucket(v: u64) -> usize {
    if v < SUB as u64 {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // >= SUB_BITS
    let sub = (v >> (e - SUB_BITS)) as usize & (SUB - 1);
    (e - SUB_BITS + 1) as usize * SUB + sub
}

/// The smallest value of bucket `b` and its width.
fn bucket_range(b: usize) -> (u64, u64) {
    if b < SUB {
        return (b as u64, 1);
    }
    let e = (b / SUB) as u32 + SUB_BITS - 1;
    let sub = (b % SUB) as u64;
    let width = 1u64 << (e - SUB_BITS);
    (((SUB as u64) + sub) << (e - SUB_BITS), width)
}

/// `v as f64`, bit for bit, in one instruction below 2^63 (a signed conversion; x86-64's
/// unsigned one takes about eight). From 2^63: halved keeping the lowest bit (so that it
/// rounds as the whole value would), converted, doubled (exact).
#[inline(always)]
fn to_f64(v: u64) -> f64 {
    if (v as i64) >= 0 {
        v as i64 as f64
    } else {
        ((v >> 1) | (v & 1)) as i64 as f64 * 2.0
    }
}

impl WaitStats {
    /// Once per packet sent on a managed direction: kept to a few instructions (inlined;
    /// the conversions to `f64` through `i64`, which give the same values).
    #[inline(always)]
    pub fn record(&mut self, wait: Time) {
        if self.hist.is_empty() {
            self.first_sample();
        }
        self.n += 1;
        self.sum_ns += u128::from(wait);
        let x = to_f64(wait);
        let d = x - self.mean_ns;
        self.mean_ns += d / to_f64(self.n);
        self.m2_ns += d * (x - self.mean_ns);
        self.max_ns = self.max_ns.max(wait);
        self.hist[bucket(wait)] += 1;
    }

    #[cold]
    #[inline(never)]
    fn first_sample(&mut self) {
        self.hist = vec![0; BUCKETS];
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// Mean seconds; NaN without samples.
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        self.sum_ns as f64 / self.n as f64 * 1e-9
    }

    /// Standard deviation over the packets (divided by n), seconds; NaN without samples.
    pub fn std(&self) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        (self.m2_ns / self.n as f64).sqrt() * 1e-9
    }

    /// Largest, seconds; NaN without samples.
    pub fn max(&self) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        to_secs(self.max_ns)
    }

    /// The `q` quantile (0 < q <= 1), seconds: the middle of the bucket holding the
    /// ceil(q·n)-th smallest wait (at most the maximum; the maximum itself for the largest);
    /// NaN without samples.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        if rank == self.n {
            return to_secs(self.max_ns);
        }
        let mut seen = 0;
        for (b, &c) in self.hist.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, width) = bucket_range(b);
                return to_secs((lo + width / 2).min(self.max_ns));
            }
        }
        to_secs(self.max_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_every_value_in_order() {
        let mut last = 0;
        for v in (0..5000u64).chain([u64::MAX / 3, u64::MAX - 1, u64::MAX]) {
            let b = bucket(v);
            assert!(b < BUCKETS && b >= last, "{v}");
            let (lo, w) = bucket_range(b);
            assert!(lo <= v && v - lo < w, "{v}: bucket {b} = [{lo}, +{w})");
            assert!(w as f64 <= (lo as f64 / SUB as f64).max(1.0), "{v}");
            last = b;
        }
    }

    #[test]
    fn to_f64_is_as_f64() {
        let mut r = crate::sim::Rng::from_seed(1);
        let edges = [
            0,
            1,
            (1 << 53) + 1,
            (1 << 63) - 1,
            1 << 63,
            (1 << 63) + 1,
            (1 << 63) + 1025,
            u64::MAX - 1,
            u64::MAX,
        ];
        for v in edges.into_iter().chain((0..100_000).map(|_| r.next_u64())) {
            assert_eq!(to_f64(v).to_bits(), (v as f64).to_bits(), "{v}");
        }
    }

    #[test]
    fn mean_max_and_quantiles() {
        let mut s = WaitStats::default();
        assert!(s.mean().is_nan() && s.std().is_nan() && s.quantile(0.95).is_nan());
        for ms in 1..=100u64 {
            s.record(ms * 1_000_000);
        }
        assert!((s.mean() - 0.0505).abs() < 1e-12);
        // 1..=100 ms: the population deviation is √((100² − 1)/12) ms = 28.866 ms.
        assert!(
            (s.std() - (9999.0f64 / 12.0).sqrt() * 1e-3).abs() < 1e-12,
            "{}",
            s.std()
        );
        assert_eq!(s.max(), 0.1);
        let p95 = s.quantile(0.95);
        assert!((p95 - 0.095).abs() <= 0.095 / 32.0, "{p95}");
        assert!((s.quantile(0.5) - 0.050).abs() <= 0.05 / 32.0);
        assert_eq!(s.quantile(1.0), 0.1, "at most the maximum");
        let mut z = WaitStats::default();
        for _ in 0..10 {
            z.record(0);
        }
        z.record(5_000_000);
        assert_eq!(z.quantile(0.9), 0.0, "zeros are exact");
        assert_eq!(z.count(), 11);
    }
}
