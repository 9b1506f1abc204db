//! PackMime-HTTP web traffic: the connection-level HTTP model of Cao, Cleveland, Gao, Jeffay,
//! Smith and Weigle ("Stochastic models for generating synthetic HTTP source traffic", IEEE
//! INFOCOM 2004), with the parameters as distributed with ns-2.35's PackMime-HTTP
//! (`packmime_ranvar.cc`, read for the numbers; the code here is our own).
//!
//! The driver is `rate`, r new connections per second, between a cloud of clients and a
//! cloud of servers (each connection picks one of each uniformly). logit⁻¹ is the model's
//! base-2 form, logit⁻¹(x) = 2^x/(1 + 2^x) (ns-2's `logitinv`; the model is fitted on log₂
//! scales throughout). Per connection:
//!
//! - gap to the next connection: Weibull with shape logit⁻¹(0.352 + 0.388·log₂r) and scale
//!   1/(r·Γ(1 + 1/shape)) (mean 1/r), its uniform driven by a long-range-dependent Gaussian
//!   series (below) with noise-variance ratio logit⁻¹(0.333 + 0.414·log₂r), d = 0.33;
//! - persistent (HTTP/1.1) with probability `persistent` (0.09). A non-persistent connection
//!   carries one request and one response; a persistent one carries pages: one page with
//!   probability 0.82, else ⌈1 + Weibull(1, 0.417)⌉ (at least 2); objects per page: in a
//!   connection of several pages, one with probability 0.69, otherwise (and always in a
//!   one-page connection) ⌈1 + Weibull(1, 1.578)⌉ (at least 2);
//! - request size: a 50/50 mixture of two inverse-CDF tables (the upper half on a log₂
//!   scale), its uniform driven by a long-range-dependent series with d = 0.31 and
//!   noise-variance ratio logit⁻¹(0.123 + 0.494·log₂r). All requests of a persistent
//!   connection have the first one's size;
//! - response size ("fsize0"): alternating runs of cache-validation responses and
//!   downloads; run lengths ⌈Weibull⌉ with shapes logit⁻¹(0.718 + 0.357·log₂r) and
//!   logit⁻¹(1.293 + 0.316·log₂r), scales 0.775 and 3.11; sizes from the two tables. In a
//!   persistent connection whose first response is above 275 bytes, the later responses are
//!   2^(loc + √s²·N(0,1)·√2.43) with per-connection loc ~ N(10.62, 0.94) and
//!   s² ~ Gamma(3.22, rate 3.22); otherwise they repeat the first size;
//! - server delay: 1/max(10, Weibull(0.63, 305)) seconds (so at most 0.1 s);
//! - time from a response to the next request: the first object of a new page after
//!   2^(loc + √s²·N·√1.21) s, loc ~ N(3.22, 0.73), s² ~ Gamma(1.85, 1.85); another object of
//!   the same page after 2^(loc + √s²·N·√1.57) s, loc ~ N(−4.15, 3.12), s² ~ Gamma(2.35, 2.35).
//!
//! An HTTP exchange: the request is sent client→server, the server waits its delay once the
//! whole request has arrived, then the response goes server→client; the response time is
//! from the request's start to the last response byte at the client. Sizes are whole bytes
//! (truncated, at least 1, at most 2³¹ − 1), as in ns-2.
//!
//! The long-range-dependent driver is the model's: a fractional ARIMA(0, d, 0) series
//! drawn by Hosking's method (Durbin–Levinson), truncated to a predictor of order N − 1
//! after N steps (N = 1000 for arrivals, 5000 for request sizes; the first N + 1 values are
//! discarded as a warm-up), summed over two neighbours (x_t + x_{t−1}), scaled to variance
//! 1 − ratio, plus white noise of variance `ratio`, mapped through the normal CDF to a
//! uniform. Cost: O(N) per draw (about 6000 multiply-adds per connection). `lrd = false`
//! draws those uniforms i.i.d. instead (same marginals, no correlation).
//!
//! Departures:
//! - ns-2 draws the location and scale of the between-page and between-object times once
//!   per simulation (in the random variables' constructors); we draw them per connection,
//!   as ns-2 does for the persistent response sizes (our reading of the model's
//!   per-connection random effects);
//! - every transfer is its own TCP flow (one per request, one per response): the sender has
//!   no way to be handed more data once it completed, so a persistent connection does not
//!   carry its window or RTT estimate over from one object to the next, and a response
//!   starts from the initial window of a fresh sender. With `tcp.handshake`, only a
//!   connection's first request makes the handshake (the connection is then open). Each
//!   flow carries exactly its bytes: a transfer of b bytes is ⌈b/mss⌉ segments of equal size
//!   ⌈b/segments⌉ (a TCP stack would send full segments and one short one: same packet
//!   count, payload within one byte per segment);
//! - objects of a persistent connection are drawn page by page as the connection goes on
//!   rather than all at its start (same distribution);
//! - the normal upper tail is computed directly (not as 1 − Φ), so the far tails of the
//!   log-scale tables are reached without rounding.
use super::packmime_tables as tables;
use super::{Model, Plan};
use crate::scenario::GeneratorSpec;
use crate::sim::{normal, secs, to_secs, Rng, Time};

// ---------------------------------------------------------------- numerical helpers

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; relative error about 1e-15).
pub fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The model's inverse logit, on the base-2 scale of all its fits: 2^x/(1 + 2^x).
pub fn logit_inv(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp2())
}

/// erfc(x) (Chebyshev fit; fractional error below 1.2e-7 everywhere).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * (-z * z + poly).exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// P(Z > x) for a standard normal Z.
pub fn normal_upper(x: f64) -> f64 {
    0.5 * erfc(x / std::f64::consts::SQRT_2)
}

/// Weibull(shape, scale) by inversion.
pub fn weibull(rng: &mut Rng, shape: f64, scale: f64) -> f64 {
    scale * (-(1.0 - rng.uniform()).ln()).powf(1.0 / shape)
}

/// Gamma(shape ≥ 1, scale) (Marsaglia and Tsang 2000).
pub fn gamma(rng: &mut Rng, shape: f64, scale: f64) -> f64 {
    debug_assert!(shape >= 1.0);
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let z = normal(rng);
        let v = (1.0 + c * z).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = 1.0 - rng.uniform();
        if u.ln() < 0.5 * z * z + d - d * v + d * v.ln() {
            return d * v * scale;
        }
    }
}

/// The table read at `x`: linear between knots, the end segments extended beyond them.
pub fn interpolate(table: &[(f64, f64)], x: f64) -> f64 {
    let i = table[1..table.len() - 1].partition_point(|&(k, _)| k <= x);
    let ((x0, y0), (x1, y1)) = (table[i], table[i + 1]);
    y0 + (y1 - y0) / (x1 - x0) * (x - x0)
}

// ------------------------------------------------- the long-range-dependent driver

/// FARIMA(0, d, 0) by Hosking's method, its one-step predictor frozen at order n − 1,
/// returned as the sum of two neighbouring values (the model's MA(1) term).
pub struct Farima {
    /// Predictor coefficients, oldest lag first: `coef[m - j]` multiplies x_{t−j}.
    coef: Vec<f64>,
    /// Standard deviation of the predictor's innovation.
    sd: f64,
    /// The last m values twice over (a ring whose window `[pos, pos + m)` is contiguous,
    /// oldest first).
    ring: Vec<f64>,
    pos: usize,
    prev: f64,
}

impl Farima {
    pub fn new(d: f64, n: usize, rng: &mut Rng) -> Farima {
        assert!(n >= 2 && d > 0.0 && d < 0.5);
        let m = n - 1;
        // phi[j - 1] = φ_{t,j} for the current order t (Durbin–Levinson recursion on the
        // partial autocorrelations φ_{t,t} = d/(t − d) of fractional noise).
        let mut phi = vec![0.0; m];
        let mut var = (ln_gamma(1.0 - 2.0 * d) - 2.0 * ln_gamma(1.0 - d)).exp();
        let mut xs = Vec::with_capacity(n + 1);
        xs.push(var.sqrt() * normal(rng));
        for t in 1..=n {
            if t <= m {
                let k = d / (t as f64 - d);
                for j in 1..=t / 2 {
                    let (a, b) = (phi[j - 1], phi[t - j - 1]);
                    phi[j - 1] = a - k * b;
                    if t - j != j {
                        phi[t - j - 1] = b - k * a;
                    }
                }
                phi[t - 1] = k;
                var *= 1.0 - k * k;
            }
            let order = t.min(m);
            let mean: f64 = (1..=order).map(|j| phi[j - 1] * xs[t - j]).sum();
            xs.push(mean + var.sqrt() * normal(rng));
        }
        let coef: Vec<f64> = phi.iter().rev().copied().collect();
        let mut ring = vec![0.0; 2 * m];
        let last = &xs[xs.len() - m..];
        ring[..m].copy_from_slice(last);
        ring[m..].copy_from_slice(last);
        Farima {
            coef,
            sd: var.sqrt(),
            ring,
            pos: 0,
            prev: xs[xs.len() - 2],
        }
    }

    pub fn next(&mut self, rng: &mut Rng) -> f64 {
        let m = self.coef.len();
        let window = &self.ring[self.pos..self.pos + m];
        let mean = dot(&self.coef, window);
        let x = mean + self.sd * normal(rng);
        self.ring[self.pos] = x;
        self.ring[self.pos + m] = x;
        self.pos = (self.pos + 1) % m;
        let y = x + self.prev;
        self.prev = x;
        y
    }
}

/// Σ aᵢbᵢ in eight interleaved partial sums (the compiler keeps them in vector registers:
/// this dot product is most of the model's cost). With AVX2 the same sums run four lanes
/// wide: each lane does the same multiplications and additions in the same order (no fused
/// multiply-add), so the result is bit-identical on every x86-64.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (checked just above).
        return unsafe { dot_avx2(a, b) };
    }
    dot_portable(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_avx2(a: &[f64], b: &[f64]) -> f64 {
    dot_portable(a, b)
}

#[inline(always)]
fn dot_portable(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f64>() + tail
}

/// Standard normal draws whose sequence is long-range dependent (FARIMA part of variance
/// 1 − ratio plus white noise of variance `ratio`), or i.i.d. without `lrd`.
pub struct Driver {
    farima: Option<Farima>,
    sd_series: f64,
    sd_noise: f64,
}

impl Driver {
    pub fn new(d: f64, n: usize, ratio: f64, lrd: bool, rng: &mut Rng) -> Driver {
        // Var(x_t + x_{t−1}) = 2γ₀(1 + ρ₁), γ₀ = Γ(1−2d)/Γ(1−d)², ρ₁ = d/(1−d).
        let gamma0 = (ln_gamma(1.0 - 2.0 * d) - 2.0 * ln_gamma(1.0 - d)).exp();
        let var_sum = gamma0 * (2.0 + 2.0 * d / (1.0 - d));
        Driver {
            farima: lrd.then(|| Farima::new(d, n, rng)),
            sd_series: ((1.0 - ratio) / var_sum).sqrt(),
            sd_noise: ratio.sqrt(),
        }
    }

    pub fn next(&mut self, rng: &mut Rng) -> f64 {
        match &mut self.farima {
            Some(f) => f.next(rng) * self.sd_series + normal(rng) * self.sd_noise,
            None => normal(rng),
        }
    }
}

// ------------------------------------------------------------ the distributions

/// Connection inter-arrival times (seconds).
pub struct Arrivals {
    driver: Driver,
    pub shape: f64,
    pub scale: f64,
}

impl Arrivals {
    pub fn new(rate: f64, lrd: bool, rng: &mut Rng) -> Arrivals {
        let l = rate.log2();
        let shape = logit_inv(0.352 + 0.388 * l);
        Arrivals {
            driver: Driver::new(0.33, 1000, logit_inv(0.333 + 0.414 * l), lrd, rng),
            shape,
            scale: 1.0 / (rate * ln_gamma(1.0 + 1.0 / shape).exp()),
        }
    }

    /// The Weibull quantile at Φ(z), from the upper tail: scale·(−ln(1 − Φ(z)))^(1/shape).
    pub fn next(&mut self, rng: &mut Rng) -> f64 {
        let z = self.driver.next(rng);
        self.scale * (-normal_upper(z).ln()).powf(1.0 / self.shape)
    }
}

/// Request sizes (bytes).
pub struct Requests {
    driver: Driver,
}

impl Requests {
    pub fn new(rate: f64, lrd: bool, rng: &mut Rng) -> Requests {
        let ratio = logit_inv(0.123 + 0.494 * rate.log2());
        Requests {
            driver: Driver::new(0.31, 5000, ratio, lrd, rng),
        }
    }

    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        request_quantile(self.driver.next(rng))
    }
}

/// The request size at Φ(z): below the median the body table at 2Φ(z); above it the tail
/// table at log₂(2·P(Z > z)).
pub fn request_quantile(z: f64) -> u64 {
    let bytes = if z > 0.0 {
        let x = 1.0 + normal_upper(z).log2();
        interpolate(tables::REQUEST_TAIL, x).exp2()
    } else {
        interpolate(tables::REQUEST_BODY, 2.0 * normal_upper(-z))
    };
    whole_bytes(bytes)
}

/// ns-2's truncation to whole bytes, at least one and at most 2³¹ − 1 (ns-2 keeps sizes in
/// an `int`; the extended table tails get there with probability about 4e-8 per download
/// response and far less per request).
fn whole_bytes(b: f64) -> u64 {
    (b.min(i32::MAX as f64) as u64).max(1)
}

/// Response sizes of the generator's connections in order: alternating runs of
/// cache-validation responses and downloads.
pub struct Responses {
    download: bool,
    run_left: i64,
    shape: [f64; 2],
}

impl Responses {
    const SCALE: [f64; 2] = [0.775, 3.11];

    pub fn new(rate: f64) -> Responses {
        let l = rate.log2();
        Responses {
            download: false,
            run_left: 0,
            shape: [logit_inv(0.718 + 0.357 * l), logit_inv(1.293 + 0.316 * l)],
        }
    }

    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        if self.run_left <= 0 {
            self.download = !self.download;
            let k = usize::from(self.download);
            self.run_left = weibull(rng, self.shape[k], Self::SCALE[k]).ceil() as i64;
        }
        self.run_left -= 1;
        let p = rng.uniform();
        let bytes = if self.download {
            interpolate(tables::RESPONSE_DOWNLOAD, (1.0 - p).log2()).exp2()
        } else {
            interpolate(tables::RESPONSE_VALIDATION, p)
        };
        whole_bytes(bytes)
    }
}

/// Responses at most this large are cache validations: a persistent connection whose first
/// response is one repeats its size.
const VALIDATION_CUTOFF: u64 = 275;

pub fn server_delay(rng: &mut Rng) -> f64 {
    1.0 / weibull(rng, 0.63, 305.0).max(10.0)
}

/// Pages of a persistent connection.
pub fn pages(rng: &mut Rng) -> u64 {
    if rng.uniform() <= 0.82 {
        1
    } else {
        (weibull(rng, 1.0, 0.417) + 1.0).ceil().max(2.0) as u64
    }
}

/// Objects of one page of a persistent connection of `pages` pages.
pub fn objects(rng: &mut Rng, pages: u64) -> u64 {
    if pages > 1 && rng.uniform() <= 0.69 {
        1
    } else {
        (weibull(rng, 1.0, 1.578) + 1.0).ceil().max(2.0) as u64
    }
}

/// The per-connection random effects of a log₂-scale quantity 2^(loc + √s²·N·√error).
#[derive(Debug, Clone, Copy)]
pub struct Effects {
    loc: f64,
    sd: f64,
}

impl Effects {
    pub fn draw(rng: &mut Rng, mean: f64, var: f64, gamma_shape: f64, error: f64) -> Effects {
        let loc = mean + var.sqrt() * normal(rng);
        let s2 = gamma(rng, gamma_shape, 1.0 / gamma_shape);
        Effects {
            loc,
            sd: (s2 * error).sqrt(),
        }
    }

    pub fn next(&self, rng: &mut Rng) -> f64 {
        (self.loc + self.sd * normal(rng)).exp2()
    }
}

pub fn page_gaps(rng: &mut Rng) -> Effects {
    Effects::draw(rng, 3.22, 0.73, 1.85, 1.21)
}

pub fn object_gaps(rng: &mut Rng) -> Effects {
    Effects::draw(rng, -4.15, 3.12, 2.35, 1.57)
}

pub fn persistent_responses(rng: &mut Rng) -> Effects {
    Effects::draw(rng, 10.62, 0.94, 3.22, 2.43)
}

// ------------------------------------------------------------------- the model

/// What a packmime generator's requests add up to (the web columns of the generators table).
#[derive(Debug, Clone)]
pub struct WebStats {
    pub connections: u64,
    pub requests: u64,
    pub responses: u64,
    /// Bytes of the completed exchanges, each way.
    pub request_bytes: u64,
    pub response_bytes: u64,
    pub response_time_sum: f64,
    /// Response times in logarithmic bins (see [`WebStats::bin`]).
    hist: Vec<u64>,
}

impl Default for WebStats {
    fn default() -> Self {
        WebStats {
            connections: 0,
            requests: 0,
            responses: 0,
            request_bytes: 0,
            response_bytes: 0,
            response_time_sum: 0.0,
            hist: vec![0; HIST_BINS],
        }
    }
}

/// Response-time bins: 100 per decade from 1 µs to 10⁴ s (a percentile is read to within
/// 1.2 %).
const HIST_PER_DECADE: f64 = 100.0;
const HIST_MIN_LOG: f64 = -6.0;
const HIST_BINS: usize = 1000;

impl WebStats {
    fn bin(t: f64) -> usize {
        let b = ((t.max(1e-9).log10() - HIST_MIN_LOG) * HIST_PER_DECADE).floor();
        b.clamp(0.0, (HIST_BINS - 1) as f64) as usize
    }

    fn add(&mut self, request: u64, response: u64, time: f64) {
        self.responses += 1;
        self.request_bytes += request;
        self.response_bytes += response;
        self.response_time_sum += time;
        self.hist[Self::bin(time)] += 1;
    }

    pub fn mean_response_time(&self) -> f64 {
        if self.responses == 0 {
            f64::NAN
        } else {
            self.response_time_sum / self.responses as f64
        }
    }

    /// The q-quantile of the response time (0 < q < 1): the geometric middle of its bin.
    pub fn response_time_quantile(&self, q: f64) -> f64 {
        if self.responses == 0 {
            return f64::NAN;
        }
        let rank = (q * self.responses as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, &n) in self.hist.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return 10f64.powf(HIST_MIN_LOG + (i as f64 + 0.5) / HIST_PER_DECADE);
            }
        }
        f64::NAN
    }
}

/// One request of a generator with `log_requests`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestRecord {
    pub connection: u64,
    pub sent: Time,
    pub request: u64,
    pub response: u64,
    /// When the response was fully received, if it was.
    pub done: Option<Time>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Opened, its first request not yet sent.
    New,
    Request,
    ServerDelay,
    Response,
    Gap,
}

/// The later objects of a persistent connection.
#[derive(Debug, Clone)]
struct Persistent {
    pages: u64,
    /// Pages after the current one, and objects of the current page after the current one.
    pages_left: u64,
    objects_left: u64,
    page_gaps: Effects,
    object_gaps: Effects,
    /// The later responses' sizes, when the first one was a download.
    responses: Option<Effects>,
}

#[derive(Debug, Clone)]
struct Conn {
    id: u64,
    pair: u32,
    phase: Phase,
    request: u64,
    response: u64,
    first_response: u64,
    sent: Time,
    log_row: Option<usize>,
    persistent: Option<Box<Persistent>>,
}

/// Transfers ask for a route by index: 2·pair for requests (client → server), 2·pair + 1
/// for responses, pair = client·servers + server.
pub struct PackMime {
    clients: u32,
    servers: u32,
    persistent: f64,
    arrivals: Arrivals,
    requests: Requests,
    responses: Responses,
    conns: Vec<Option<Conn>>,
    free: Vec<u32>,
    pub stats: WebStats,
    log: Option<Vec<RequestRecord>>,
}

impl PackMime {
    pub fn create(g: &GeneratorSpec) -> Box<dyn Model> {
        // The series are drawn from the generator's stream in `first`; until then, i.i.d.
        // placeholders (no warm-up to pay twice).
        Box::new(PackMime::new(g, false, &mut Rng::from_seed(0)))
    }

    pub fn new(g: &GeneratorSpec, lrd: bool, rng: &mut Rng) -> PackMime {
        let rate = g.rate.unwrap_or(1.0);
        let web = g.web.as_ref().expect("packmime generators have web fields");
        let lrd = lrd && web.lrd;
        PackMime {
            clients: web.clients.len().max(1) as u32,
            servers: web.servers.len().max(1) as u32,
            persistent: web.persistent,
            arrivals: Arrivals::new(rate, lrd, rng),
            requests: Requests::new(rate, lrd, rng),
            responses: Responses::new(rate),
            conns: Vec::new(),
            free: Vec::new(),
            stats: WebStats::default(),
            log: web.log_requests.then(Vec::new),
        }
    }

    /// A new connection: its sizes and shape drawn now; returns its slot.
    fn open(&mut self, now: Time, rng: &mut Rng) -> u32 {
        self.stats.connections += 1;
        let client = (rng.uniform() * self.clients as f64) as u32 % self.clients;
        let server = (rng.uniform() * self.servers as f64) as u32 % self.servers;
        let request = self.requests.next(rng);
        let response = self.responses.next(rng);
        let persistent = (rng.uniform() <= self.persistent).then(|| {
            let pages = pages(rng);
            let objects = objects(rng, pages);
            Box::new(Persistent {
                pages,
                pages_left: pages - 1,
                objects_left: objects - 1,
                page_gaps: page_gaps(rng),
                object_gaps: object_gaps(rng),
                responses: (response > VALIDATION_CUTOFF).then(|| persistent_responses(rng)),
            })
        });
        let conn = Conn {
            id: self.stats.connections - 1,
            pair: client * self.servers + server,
            phase: Phase::New,
            request,
            response,
            first_response: response,
            sent: now,
            log_row: None,
            persistent,
        };
        match self.free.pop() {
            Some(slot) => {
                self.conns[slot as usize] = Some(conn);
                slot
            }
            None => {
                self.conns.push(Some(conn));
                (self.conns.len() - 1) as u32
            }
        }
    }

    fn send_request(&mut self, now: Time, slot: u32, plan: &mut Plan) {
        let Some(c) = self.conns[slot as usize].as_mut() else {
            return;
        };
        let opens = c.phase == Phase::New;
        c.phase = Phase::Request;
        c.sent = now;
        self.stats.requests += 1;
        if let Some(log) = self.log.as_mut() {
            c.log_row = Some(log.len());
            log.push(RequestRecord {
                connection: c.id,
                sent: now,
                request: c.request,
                response: c.response,
                done: None,
            });
        }
        plan.send(c.request, 2 * c.pair, slot, opens);
    }

    /// The request of connection `slot` has fully arrived at the server: when to respond.
    fn request_arrived(&mut self, now: Time, slot: u32, rng: &mut Rng) -> Option<Time> {
        let c = self.conns.get_mut(slot as usize)?.as_mut()?;
        if c.phase != Phase::Request {
            return None;
        }
        c.phase = Phase::ServerDelay;
        Some(now.saturating_add(secs(server_delay(rng)).max(1)))
    }

    /// The response of connection `slot` has fully arrived at the client: when to send the
    /// next request, or None when the connection is over.
    fn response_arrived(&mut self, now: Time, slot: u32, rng: &mut Rng) -> Option<Time> {
        let c = self.conns.get_mut(slot as usize)?.as_mut()?;
        if c.phase != Phase::Response {
            return None;
        }
        let time = to_secs(now.saturating_sub(c.sent));
        self.stats.add(c.request, c.response, time);
        if let (Some(log), Some(row)) = (self.log.as_mut(), c.log_row) {
            log[row].done = Some(now);
        }
        let gap = match c.persistent.as_deref_mut() {
            Some(p) if p.objects_left > 0 => {
                p.objects_left -= 1;
                Some(p.object_gaps.next(rng))
            }
            Some(p) if p.pages_left > 0 => {
                p.pages_left -= 1;
                p.objects_left = objects(rng, p.pages) - 1;
                Some(p.page_gaps.next(rng))
            }
            _ => None,
        };
        let Some(gap) = gap else {
            self.conns[slot as usize] = None;
            self.free.push(slot);
            return None;
        };
        let p = c.persistent.as_deref().expect("only persistent connections go on");
        c.response = match p.responses {
            Some(e) => whole_bytes(e.next(rng)),
            None => c.first_response,
        };
        c.phase = Phase::Gap;
        Some(now.saturating_add(secs(gap).max(1)))
    }

    /// Connections still open (for tests).
    pub fn open_connections(&self) -> usize {
        self.conns.len() - self.free.len()
    }
}

impl Model for PackMime {
    fn first(&mut self, g: &GeneratorSpec, rng: &mut Rng) -> f64 {
        *self = PackMime::new(g, true, rng);
        g.start + self.arrivals.next(rng)
    }

    fn on_wake(&mut self, now: Time, _g: &GeneratorSpec, rng: &mut Rng, plan: &mut Plan) {
        let slot = self.open(now, rng);
        self.send_request(now, slot, plan);
        plan.wake_at(now.saturating_add(secs(self.arrivals.next(rng)).max(1)));
    }

    fn on_timer(&mut self, now: Time, _g: &GeneratorSpec, _rng: &mut Rng, tag: u32, plan: &mut Plan) {
        let Some(c) = self.conns.get_mut(tag as usize).and_then(Option::as_mut) else {
            return;
        };
        match c.phase {
            Phase::ServerDelay => {
                c.phase = Phase::Response;
                plan.send(c.response, 2 * c.pair + 1, tag, false);
            }
            Phase::Gap => self.send_request(now, tag, plan),
            _ => {}
        }
    }

    fn on_received(&mut self, now: Time, _g: &GeneratorSpec, rng: &mut Rng, tag: u32) -> Option<Time> {
        match self.conns.get(tag as usize)?.as_ref()?.phase {
            Phase::Request => self.request_arrived(now, tag, rng),
            Phase::Response => self.response_arrived(now, tag, rng),
            _ => None,
        }
    }

    fn web_stats(&self) -> Option<&WebStats> {
        Some(&self.stats)
    }

    fn take_request_log(&mut self) -> Vec<RequestRecord> {
        self.log.as_mut().map(std::mem::take).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
