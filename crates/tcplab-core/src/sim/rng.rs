//! xoshiro256** streams derived from one master seed by SplitMix64.
//!
//! Every component (a link direction, a flow, ...) derives its own stream from the master
//! seed and a stable name, so adding a component never changes what the others draw.

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a hash of a component name given in parts (the hash of their concatenation, without
/// building it; stable across platforms and versions).
fn name_hash_parts(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn from_seed(seed: u64) -> Rng {
        let mut st = seed;
        let s = [
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
        ];
        Rng { s }
    }

    /// The stream of the component called `name` under master seed `seed`.
    pub fn stream(seed: u64, name: &str) -> Rng {
        Rng::stream_of(seed, &[name])
    }

    /// The stream named by the concatenation of `parts` (the same as [`Rng::stream`] of the
    /// joined name, without allocating it: a web model opens millions of flows).
    pub fn stream_of(seed: u64, parts: &[&str]) -> Rng {
        let h = name_hash_parts(parts);
        let mut st = seed ^ h.rotate_left(17);
        let mixed = splitmix64(&mut st) ^ h;
        Rng::from_seed(mixed)
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability p.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_named_in_parts_is_the_stream_of_the_joined_name() {
        let mut parts = Rng::stream_of(7, &["flow:", "web:12", ":cc"]);
        let mut joined = Rng::stream(7, "flow:web:12:cc");
        for _ in 0..5 {
            assert_eq!(parts.next_u64(), joined.next_u64());
        }
        assert_ne!(
            Rng::stream_of(7, &["flow:", "web:13", ":cc"]).next_u64(),
            Rng::stream(7, "flow:web:12:cc").next_u64()
        );
    }

    #[test]
    fn streams_are_independent_of_other_names() {
        let mut a1 = Rng::stream(7, "link:0:ab");
        let mut a2 = Rng::stream(7, "link:0:ab");
        let mut b = Rng::stream(7, "link:1:ab");
        let x: Vec<u64> = (0..5).map(|_| a1.next_u64()).collect();
        let y: Vec<u64> = (0..5).map(|_| a2.next_u64()).collect();
        let z: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(x, y);
        assert_ne!(x, z);
        assert_ne!(Rng::stream(8, "link:0:ab").next_u64(), x[0]);
    }

    #[test]
    fn uniform_mean_and_bernoulli_rate() {
        let mut r = Rng::from_seed(1);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.005, "mean {m}");
        let hits = (0..n).filter(|_| r.bernoulli(0.01)).count() as f64 / n as f64;
        assert!((hits - 0.01).abs() < 0.001, "rate {hits}");
        assert!(!r.bernoulli(0.0));
    }
}
