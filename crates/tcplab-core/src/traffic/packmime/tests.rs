use super::*;
use crate::traffic::Step;

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} != {b} (± {tol})");
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn quantile(v: &[f64], q: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[((q * s.len() as f64) as usize).min(s.len() - 1)]
}

/// Binomial check: k successes of n within 4 standard deviations of n·p.
fn binomial(k: usize, n: usize, p: f64) {
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    assert!(
        (k as f64 - n as f64 * p).abs() <= 4.0 * sd,
        "{k} of {n}, expected p = {p}"
    );
}

fn spec(rate: f64, persistent: f64, lrd: bool) -> GeneratorSpec {
    let json = serde_json::json!({"sim": {"duration": 10},
        "nodes": [{"name": "c0"}, {"name": "c1"}, {"name": "s0"}, {"name": "s1"}, {"name": "r"}],
        "links": [{"a": "c0", "b": "r", "rate": "1Gbps", "delay": "5ms"},
                  {"a": "c1", "b": "r", "rate": "1Gbps", "delay": "5ms"},
                  {"a": "s0", "b": "r", "rate": "1Gbps", "delay": "5ms"},
                  {"a": "s1", "b": "r", "rate": "1Gbps", "delay": "5ms"}],
        "generators": [{"kind": "packmime", "rate": rate, "clients": ["c0", "c1"],
                        "servers": ["s0", "s1"], "persistent": persistent, "lrd": lrd}]});
    crate::scenario::parse(&json.to_string()).unwrap().generators[0].clone()
}

#[test]
fn numerical_helpers_by_hand() {
    // Γ(1/2) = √π, Γ(5) = 24, Γ(1.5) = √π/2.
    close(ln_gamma(0.5), std::f64::consts::PI.sqrt().ln(), 1e-12);
    close(ln_gamma(5.0), 24f64.ln(), 1e-12);
    close(ln_gamma(1.5), (std::f64::consts::PI.sqrt() / 2.0).ln(), 1e-12);
    // Φ(0) = 1/2; P(Z > 1.959964) = 0.025; P(Z > −1) = 0.841344746 (to erfc's 1.2e-7).
    close(normal_upper(0.0), 0.5, 1e-7);
    close(normal_upper(1.959_963_984_540_054), 0.025, 0.025 * 2e-7);
    close(normal_upper(-1.0), 0.841_344_746_068_543, 2e-7);
    // Base 2: logit⁻¹(1) = 2/3, logit⁻¹(−2) = 1/5.
    close(logit_inv(0.0), 0.5, 1e-15);
    close(logit_inv(1.0), 2.0 / 3.0, 1e-15);
    close(logit_inv(-2.0), 0.2, 1e-15);
}

#[test]
fn tables_are_read_linearly_and_extended_at_both_ends() {
    // Validation table at 0.5: between (0.495, 140.28) and (0.5051, 141.233).
    close(
        interpolate(tables::RESPONSE_VALIDATION, 0.5),
        140.28 + 0.953 / 0.0101 * 0.005,
        1e-9,
    );
    // On a knot, its value.
    close(interpolate(tables::RESPONSE_VALIDATION, 0.0102), 22.7357, 1e-9);
    // Below the first knot, the first segment extended: at 0, 4.645 − slope·0.0001.
    let slope = (22.7357 - 4.645) / (0.0102 - 0.0001);
    close(
        interpolate(tables::RESPONSE_VALIDATION, 0.0),
        4.645 - slope * 0.0001,
        1e-9,
    );
    // Beyond the last knot, the last segment extended.
    let slope = (8.72795 - 8.75459) / (-0.00827 + 0.18777);
    close(interpolate(tables::REQUEST_TAIL, 0.0), 8.72795 + slope * 0.00827, 1e-9);
    for t in [
        tables::RESPONSE_VALIDATION,
        tables::RESPONSE_DOWNLOAD,
        tables::REQUEST_BODY,
        tables::REQUEST_TAIL,
    ] {
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0), "knots in order");
    }
}

#[test]
fn request_size_quantiles_by_hand() {
    // z = 0: the body table at 2Φ(0) = 1, its last knot: 421.788 bytes.
    assert_eq!(request_quantile(0.0), 421);
    // Φ(z) = 0.25: body at 0.5, between (0.49496, 350.04) and (0.50506, 351.619): 350.83.
    assert_eq!(request_quantile(-0.674_489_750_196_081_7), 350);
    // Φ(z) = 0.75: tail at log₂(2·0.25) = −1, between (−1.08528, 9.05219) and
    // (−0.90578, 8.95525): 9.00613, 2^9.00613 = 514.2.
    assert_eq!(request_quantile(0.674_489_750_196_081_7), 514);
}

#[test]
fn connection_gaps_follow_the_rate_dependent_weibull() {
    // shape = logit⁻¹(0.352 + 0.388·log₂r) = 2^x/(1 + 2^x): r = 1 → 2^0.352 = 1.276393,
    // 1.276393/2.276393 = 0.560696; r = 100 → x = 2.929816, 2^x = 7.620117, 0.883993;
    // r = 3200 → x = 4.869816, 2^x = 29.241780, 0.966930.
    // scale = 1/(r·Γ(1 + 1/shape)): Γ(2.783497) = 1.653493, 0.604780 at r = 1.
    let mut rng = Rng::from_seed(1);
    for (r, shape) in [(1.0, 0.560_696_15), (100.0, 0.883_992_51), (3200.0, 0.966_929_99)] {
        let a = Arrivals::new(r, false, &mut rng);
        close(a.shape, shape, 1e-8);
        close(a.scale * r * ln_gamma(1.0 + 1.0 / shape).exp(), 1.0, 1e-8);
    }
    close(Arrivals::new(1.0, false, &mut rng).scale, 0.604_780_40, 1e-7);
    // Mean 1/r, median scale·(ln 2)^(1/shape), i.i.d. and with the LRD driver (same
    // marginal; its sample mean varies more, hence the looser bound).
    for (r, lrd, tol) in [
        (1.0, false, 0.02),
        (100.0, false, 0.02),
        (3200.0, false, 0.02),
        (15.0, true, 0.08),
    ] {
        let mut a = Arrivals::new(r, lrd, &mut rng);
        let gaps: Vec<f64> = (0..100_000).map(|_| a.next(&mut rng)).collect();
        close(mean(&gaps) * r, 1.0, tol);
        let median = a.scale * 2f64.ln().powf(1.0 / a.shape);
        close(quantile(&gaps, 0.5) / median, 1.0, tol);
    }
}

#[test]
fn the_lrd_driver_is_standard_normal_with_the_model_lag_one_correlation() {
    // y = x_t + x_{t−1} of fractional noise: ρ₁ = d/(1−d), ρ₂ = ρ₁(1+d)/(2−d), so
    // corr(y_t, y_{t+1}) = (1 + 2ρ₁ + ρ₂)/(2 + 2ρ₁); for d = 0.33, ρ₁ = 0.492537,
    // ρ₂ = 0.392260: 2.377335/2.985075 = 0.796407. The driver keeps 1 − ratio of its
    // variance for the series: at r = 1, ratio = logit⁻¹(0.333) = 2^0.333/(1 + 2^0.333) =
    // 0.557450, lag-1 correlation 0.442550 × 0.796407 = 0.352450.
    let mut rng = Rng::from_seed(2);
    let d: f64 = 0.33;
    let r1 = d / (1.0 - d);
    let r2 = r1 * (1.0 + d) / (2.0 - d);
    let corr = (1.0 + 2.0 * r1 + r2) / (2.0 + 2.0 * r1);
    close(corr, 0.796_407, 1e-6);
    close((1.0 - logit_inv(0.333)) * corr, 0.352_450, 1e-6);
    let ratio = logit_inv(0.333);
    let mut drv = Driver::new(d, 1000, ratio, true, &mut rng);
    let z: Vec<f64> = (0..200_000).map(|_| drv.next(&mut rng)).collect();
    let m = mean(&z);
    let var = z.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / z.len() as f64;
    let lag1 = z.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() / (z.len() - 1) as f64 / var;
    close(m, 0.0, 0.05);
    close(var, 1.0, 0.05);
    close(lag1, (1.0 - ratio) * corr, 0.02);
    // At r = 15 the arrivals' ratio is logit⁻¹(0.333 + 0.414·3.906891) = 0.794448: lag-1
    // correlation 0.205552 × 0.796407 = 0.163703; the gaps keep it (rank correlation of
    // a monotone map of the driver, close to the normal one at this level).
    let mut a = Arrivals::new(15.0, true, &mut rng);
    let gaps: Vec<f64> = (0..200_000).map(|_| a.next(&mut rng)).collect();
    let z: Vec<f64> = gaps
        .iter()
        .map(|g| -> f64 {
            // Back to the driver: Φ⁻¹ of the Weibull CDF, by bisection on the upper tail.
            let tail = (-(g / a.scale).powf(a.shape)).exp();
            let (mut lo, mut hi) = (-10.0, 10.0);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if normal_upper(mid) > tail {
                    lo = mid
                } else {
                    hi = mid
                }
            }
            0.5 * (lo + hi)
        })
        .collect();
    let m = mean(&z);
    let var = z.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / z.len() as f64;
    let lag1 = z.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() / (z.len() - 1) as f64 / var;
    close(var, 1.0, 0.05);
    close(lag1, (1.0 - logit_inv(0.333 + 0.414 * 15f64.log2())) * corr, 0.02);
    close((1.0 - logit_inv(0.333 + 0.414 * 15f64.log2())) * corr, 0.163_703, 1e-5);
    // i.i.d. draws: no correlation.
    let mut iid = Driver::new(d, 1000, ratio, false, &mut rng);
    let z: Vec<f64> = (0..200_000).map(|_| iid.next(&mut rng)).collect();
    let lag1 = z.windows(2).map(|w| w[0] * w[1]).sum::<f64>() / (z.len() - 1) as f64;
    close(lag1, 0.0, 0.02);
}

#[test]
fn server_delay_is_at_most_a_tenth_of_a_second_with_the_weibull_floor() {
    // P(delay = 0.1 s) = P(Weibull(0.63, 305) < 10) = 1 − exp(−(10/305)^0.63):
    // (10/305)^0.63 = exp(0.63·(−3.417727)) = 0.116117, 1 − e^−0.116117 = 0.109628.
    let mut rng = Rng::from_seed(3);
    let n = 200_000;
    let delays: Vec<f64> = (0..n).map(|_| server_delay(&mut rng)).collect();
    assert!(delays.iter().all(|&d| d > 0.0 && d <= 0.1));
    let p = 1.0 - (-(10.0f64 / 305.0).powf(0.63)).exp();
    close(p, 0.109_628, 1e-6);
    binomial(delays.iter().filter(|&&d| d == 0.1).count(), n, p);
    // The median: 1/(305·(ln 2)^(1/0.63)) = 1/(305·0.558946) = 5.866 ms.
    close(quantile(&delays, 0.5), 1.0 / (305.0 * 2f64.ln().powf(1.0 / 0.63)), 2e-4);
}

#[test]
fn response_runs_alternate_validations_and_downloads() {
    // The first draw starts a download run; validations are at most 272 bytes (the table's
    // top), downloads at least 2^8.108 = 276 bytes near p = 0 (the tail table's top knot).
    let mut rng = Rng::from_seed(4);
    let mut r = Responses::new(100.0);
    let first = r.next(&mut rng);
    assert!(r.download && first >= 270, "{first}");
    let mut runs = Vec::new();
    let (mut state, mut len) = (r.download, 1);
    for _ in 0..100_000 {
        r.next(&mut rng);
        if r.download == state {
            len += 1;
        } else {
            runs.push((state, len));
            (state, len) = (r.download, 1);
        }
    }
    // Run lengths ⌈Weibull(shape, scale)⌉: E⌈W⌉ = Σ_{k≥0} exp(−(k/scale)^shape).
    for (download, shape, scale) in [
        (false, logit_inv(0.718 + 0.357 * 100f64.log2()), 0.775),
        (true, logit_inv(1.293 + 0.316 * 100f64.log2()), 3.11),
    ] {
        let expected: f64 = (0..200).map(|k| (-(k as f64 / scale).powf(shape)).exp()).sum::<f64>();
        // A run whose draw rounds up to 0 still yields one response.
        let lens: Vec<f64> = runs.iter().filter(|r| r.0 == download).map(|r| r.1 as f64).collect();
        close(mean(&lens), expected, 0.05 * expected);
    }
    // Download sizes at p = 0.5: the tail table at −1, 2^11.1411 = 2258.6 bytes.
    close(interpolate(tables::RESPONSE_DOWNLOAD, -1.0).exp2(), 2258.6, 0.5);
}

/// Drive one connection through the model without a network: every transfer arrives at
/// once. Returns (requests, request sizes, response sizes, whether persistent).
fn run_connection(m: &mut PackMime, g: &GeneratorSpec, rng: &mut Rng) -> (u64, Vec<u64>, Vec<u64>) {
    let mut plan = Plan::default();
    m.on_wake(0, g, rng, &mut plan);
    let (mut reqs, mut rsps) = (Vec::new(), Vec::new());
    let mut now = 0;
    let mut pending: Vec<Step> = plan
        .steps
        .drain(..)
        .filter(|s| matches!(s, Step::Send { .. }))
        .collect();
    let mut first = true;
    while let Some(Step::Send {
        bytes,
        route,
        tag,
        opens,
    }) = pending.pop()
    {
        assert_eq!(opens, first, "only the first request opens the connection");
        first = false;
        if route % 2 == 0 {
            reqs.push(bytes);
        } else {
            rsps.push(bytes);
        }
        now += 1_000_000;
        if let Some(at) = m.on_received(now, g, rng, tag) {
            assert!(at > now);
            now = at;
            m.on_timer(now, g, rng, tag, &mut plan);
            pending.append(&mut plan.steps);
        }
    }
    assert_eq!(reqs.len(), rsps.len());
    (reqs.len() as u64, reqs, rsps)
}

#[test]
fn persistence_pages_and_objects_give_the_hand_computed_requests_per_connection() {
    // P(persistent) = 0.09. Pages: 1 w.p. 0.82, else 1 + ⌈Exp(0.417)⌉ with mean
    // 1 + 1/(1 − e^{−1/0.417}) = 2.09995. Objects: ⌈1 + Exp(1.578)⌉, mean
    // 1 + 1/(1 − e^{−1/1.578}) = 3.13052, always in a one-page connection; in a page of a
    // longer one 0.69·1 + 0.31·3.13052 = 1.66046. Objects per persistent connection:
    // 0.82·3.13052 + 0.18·2.09995·1.66046 = 3.19467; requests per connection:
    // 0.91 + 0.09·3.19467 = 1.19752 (memory::PACKMIME_FLOWS_PER_CONNECTION = 2 × 1.2).
    let g = spec(100.0, 0.09, false);
    let mut rng = Rng::from_seed(5);
    let mut m = PackMime::new(&g, false, &mut rng);
    let n = 100_000;
    let (mut total, mut persistent, mut same_requests) = (0, 0, true);
    for _ in 0..n {
        let (k, reqs, _) = run_connection(&mut m, &g, &mut rng);
        total += k;
        if k > 1 {
            persistent += 1;
            same_requests &= reqs.iter().all(|&r| r == reqs[0]);
        }
    }
    assert!(same_requests, "the requests of a persistent connection share one size");
    // A persistent connection has at least two requests, so k > 1 counts them all.
    binomial(persistent, n, 0.09);
    close(total as f64 / n as f64, 1.19752, 0.01);
    assert_eq!(m.open_connections(), 0, "every connection closed");
    assert_eq!(m.stats.responses, total);
    // HTTP/1.0 only: one request each.
    let g = spec(100.0, 0.0, false);
    let mut m = PackMime::new(&g, false, &mut rng);
    assert!((0..1000).all(|_| run_connection(&mut m, &g, &mut rng).0 == 1));
}

#[test]
fn later_responses_of_a_persistent_download_connection_are_lognormal_around_2_to_the_10_62() {
    // A persistent connection's later responses: 2^(loc + √s²·N·√2.43), loc ~ N(10.62, 0.94):
    // their log₂ has mean 10.62 (over connections), when the first response is a download.
    let g = spec(100.0, 1.0, false);
    let mut rng = Rng::from_seed(6);
    let mut m = PackMime::new(&g, false, &mut rng);
    let mut logs = Vec::new();
    let mut repeats = true;
    for _ in 0..20_000 {
        let (_, _, rsps) = run_connection(&mut m, &g, &mut rng);
        if rsps[0] > VALIDATION_CUTOFF {
            logs.extend(rsps[1..].iter().map(|&b| (b as f64).log2()));
        } else {
            repeats &= rsps.iter().all(|&b| b == rsps[0]);
        }
    }
    assert!(repeats, "after a validation, the responses repeat its size");
    close(mean(&logs), 10.62, 0.1);
}

#[test]
fn the_same_seed_gives_the_same_connections() {
    let g = spec(150.0, 0.09, true);
    let draw = || {
        let mut rng = Rng::from_seed(7);
        let mut m = PackMime::new(&g, false, &mut rng);
        let first = m.first(&g, &mut rng);
        let conns: Vec<_> = (0..300).map(|_| run_connection(&mut m, &g, &mut rng)).collect();
        (first, conns, m.arrivals.next(&mut rng))
    };
    let a = draw();
    assert_eq!(a, draw());
    let mut rng = Rng::from_seed(8);
    let mut m = PackMime::new(&g, false, &mut rng);
    m.first(&g, &mut rng);
    let other: Vec<_> = (0..300).map(|_| run_connection(&mut m, &g, &mut rng)).collect();
    assert_ne!(a.1, other, "another seed, other connections");
}

#[test]
fn response_time_percentiles_come_from_log_bins() {
    let mut s = WebStats::default();
    for i in 1..=100 {
        s.add(100, 1000, i as f64 * 0.01); // 10 ms .. 1 s
    }
    close(s.mean_response_time(), 0.505, 1e-12);
    close(s.response_time_quantile(0.5) / 0.5, 1.0, 0.012);
    close(s.response_time_quantile(0.9) / 0.9, 1.0, 0.012);
    close(s.response_time_quantile(0.99) / 0.99, 1.0, 0.012);
    assert_eq!((s.responses, s.request_bytes, s.response_bytes), (100, 10_000, 100_000));
    assert!(WebStats::default().response_time_quantile(0.5).is_nan());
}

#[test]
fn a_web_run_exchanges_every_logged_byte_and_times_its_responses() {
    // Two clients and two servers behind one router, 10 ms one way to the router each.
    let json = serde_json::json!({"sim": {"duration": 20},
        "nodes": [{"name": "c0"}, {"name": "c1"}, {"name": "s0"}, {"name": "s1"}, {"name": "r"}],
        "links": [{"a": "c0", "b": "r", "rate": "100Mbps", "delay": "10ms"},
                  {"a": "c1", "b": "r", "rate": "100Mbps", "delay": "10ms"},
                  {"a": "s0", "b": "r", "rate": "100Mbps", "delay": "10ms"},
                  {"a": "s1", "b": "r", "rate": "100Mbps", "delay": "10ms"}],
        "generators": [{"name": "web", "kind": "packmime", "rate": 20, "clients": ["c0", "c1"],
                        "servers": ["s0", "s1"], "stop": 15, "log_requests": true,
                        "record": "summary", "tcp": {"mss": 1460}}]});
    let out = crate::api::run(&json.to_string(), 1).unwrap();
    let g = &out.generators;
    let u = |c: &str| g.f64s(c)[0];
    let conns = u("web_connections");
    assert!((200.0..=400.0).contains(&conns), "about 20/s for 15 s: {conns}");
    let (requests, responses) = (u("web_requests"), u("web_responses"));
    assert!(
        responses >= conns && requests >= responses,
        "{conns} {requests} {responses}"
    );
    // The response time is at least two round trips (request, then response: 40 ms each).
    assert!(u("web_response_time_p50") >= 0.08, "{}", u("web_response_time_p50"));
    assert!(u("web_response_time_mean") >= 0.08);
    // The log: one request-bytes and one response-bytes row per request, a response-time
    // row per completed one; its sums are the table's.
    let ev = &out.events;
    let names = match ev.column("event") {
        Some(crate::api::Column::Str(v)) => v.clone(),
        _ => panic!("no event column"),
    };
    let values = ev.f64s("value");
    let rows = |name: &str| -> Vec<usize> { (0..names.len()).filter(|&i| names[i] == name).collect() };
    assert_eq!(rows("web_request_bytes").len() as f64, requests);
    assert_eq!(rows("web_response_time").len() as f64, responses);
    let times: f64 = rows("web_response_time").iter().map(|&i| values[i]).sum();
    close(times / responses, u("web_response_time_mean"), 1e-9);
    // Every byte of the completed exchanges was delivered: data bytes delivered by the
    // generator's flows are at least the logged request + response bytes of completed ones.
    assert!(u("delivered_bytes") > 0.0);
    assert!(u("web_request_bytes") + u("web_response_bytes") > 0.0);
}

#[test]
fn every_packmime_field_is_validated_with_one_line_naming_it() {
    let base = || {
        serde_json::json!({"sim": {"duration": 10},
            "nodes": [{"name": "c0"}, {"name": "s0"}, {"name": "x"}],
            "links": [{"a": "c0", "b": "s0", "rate": "1Gbps", "delay": "5ms"}],
            "generators": [{"kind": "packmime", "rate": 10, "clients": ["c0"], "servers": ["s0"]}]})
    };
    let check = |edit: &dyn Fn(&mut serde_json::Value), expect: &str| {
        let mut v = base();
        edit(&mut v["generators"][0]);
        let e = crate::scenario::parse(&v.to_string()).unwrap_err().0;
        assert!(e.starts_with(expect), "{e:?} does not start with {expect:?}");
        assert!(!e.contains('\n'), "{e:?}");
    };
    assert!(crate::scenario::parse(&base().to_string()).is_ok());
    check(&|g| g["rate"] = serde_json::Value::Null, "generators[0].rate");
    check(
        &|g| {
            g.as_object_mut().unwrap().remove("rate");
        },
        "generators[0].rate: required",
    );
    check(&|g| g["rate"] = 0.into(), "generators[0].rate");
    check(
        &|g| {
            g.as_object_mut().unwrap().remove("clients");
        },
        "generators[0].clients: required",
    );
    check(
        &|g| g["servers"] = serde_json::json!([]),
        "generators[0].servers: 0 hosts is not allowed",
    );
    check(
        &|g| g["clients"] = serde_json::json!(["nowhere"]),
        "generators[0].clients[0]: unknown node \"nowhere\"",
    );
    check(
        &|g| g["clients"] = serde_json::json!(["s0"]),
        "generators[0].clients[0]: \"s0\" is also a server",
    );
    check(
        &|g| g["clients"] = serde_json::json!(["x"]),
        "generators[0].clients[0]: no route",
    );
    check(&|g| g["persistent"] = 1.5.into(), "generators[0].persistent");
    check(
        &|g| g["src"] = "c0".into(),
        "generators[0].src: not used by kind = \"packmime\"",
    );
    check(
        &|g| g["size"] = serde_json::json!({"dist": "constant", "value": 1}),
        "generators[0].size: not used",
    );
    check(
        &|g| g["size_unit"] = "bytes".into(),
        "generators[0].size_unit: not used",
    );
    check(&|g| g["max_flows"] = 5.into(), "generators[0].max_flows: not used");
    check(
        &|g| g["think"] = serde_json::json!({"dist": "constant", "value": 1}),
        "generators[0].think: not used",
    );
    // The web fields on another kind, and src/dst/size still required there.
    check(
        &|g| {
            *g = serde_json::json!({"kind": "poisson", "rate": 1, "src": "c0", "dst": "s0",
                                "size": {"dist": "constant", "value": 1}, "clients": ["c0"]});
        },
        "generators[0].clients: not used by kind = \"poisson\"",
    );
    check(
        &|g| {
            *g = serde_json::json!({"kind": "poisson", "rate": 1, "src": "c0", "size": {"dist": "constant", "value": 1}});
        },
        "generators[0].dst: required",
    );
    check(
        &|g| {
            *g = serde_json::json!({"kind": "poisson", "rate": 1, "src": "c0", "dst": "s0"});
        },
        "generators[0].size: required",
    );
    // The bound on generated flows counts 2.4 flows per connection: 1e9 / 2.4 / 10 s.
    check(
        &|g| g["rate"] = 5e7.into(),
        "generators[0].rate: the generators would create about 1.200e9 flows",
    );
}

#[test]
fn download_sizes_beyond_the_table_follow_its_extended_first_segment() {
    // Past the first knot (x = −18.1793, log₂ size 25.8765) the slope is
    // (25.7274 − 25.8765)/(−17.9957 + 18.1793) = −0.81209: a download reaches 2^26 B when
    // log₂(1 − p) < −18.1793 − 0.1235/0.81209 = −18.3314, probability 2^−18.3314 = 3.01e-6.
    let mut rng = Rng::from_seed(12);
    let mut r = Responses::new(3200.0);
    let (mut downloads, mut big) = (0u64, 0u64);
    for _ in 0..30_000_000 {
        let b = r.next(&mut rng);
        downloads += u64::from(r.download);
        big += u64::from(b >= 1 << 26);
    }
    let expected = downloads as f64 * 2f64.powf(-18.3314);
    assert!(
        (big as f64 - expected).abs() <= 4.0 * expected.sqrt(),
        "{big} vs {expected}"
    );
}

#[test]
fn the_wide_dot_product_is_bit_identical_to_the_portable_one() {
    let mut rng = Rng::from_seed(5);
    for n in [1, 7, 8, 9, 999, 4999] {
        let a: Vec<f64> = (0..n).map(|_| normal(&mut rng)).collect();
        let b: Vec<f64> = (0..n).map(|_| normal(&mut rng) * 1e3).collect();
        let by_hand = dot_portable(&a, &b);
        assert_eq!(dot(&a, &b).to_bits(), by_hand.to_bits(), "n = {n}");
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: checked just above.
            assert_eq!(unsafe { dot_avx2(&a, &b) }.to_bits(), by_hand.to_bits(), "n = {n}");
        }
    }
}
