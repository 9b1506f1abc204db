//! RED (Floyd & Jacobson 1993) as ns-2.35's `Queue/RED` behaves in packet mode
//! (`bytes_ false`, `queue_in_bytes_ false`, `use_mark_p_ false`, `drop_tail_ true`): an
//! EWMA of the number of packets waiting, corrected for idle time; between the thresholds a
//! drop (or ECN mark) probability rising linearly to max_p, in gentle mode on to 1 at twice
//! max_th; the count of packets since the last drop spreads drops out evenly.
//!
//! It decides when a packet arrives, so it runs on the link's fast-path model (departure
//! times fixed at admission).
use crate::scenario::RedSpec;
use crate::sim::Rng;

/// What RED does with an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedVerdict {
    Enqueue,
    /// Enqueue with CE set (ECN on, the packet ECN-capable, an early drop decided).
    Mark,
    /// A random ("unforced") drop.
    DropEarly,
    /// The average above the drop region, or the queue full.
    DropForced,
}

#[derive(Debug, Clone)]
pub struct Red {
    min_th: f64,
    max_th: f64,
    max_p: f64,
    w: f64,
    gentle: bool,
    wait: bool,
    ecn: bool,
    /// Packets of the mean size the link sends per second (ns-2's ptc).
    ptc: f64,
    /// The average queue (packets).
    pub avg: f64,
    /// Packets since the last drop or mark (ns-2's count).
    count: u64,
    /// The average was already in the drop region at the last arrival (ns-2's old).
    old: bool,
}

impl Red {
    pub fn new(s: &RedSpec, rate: f64) -> Red {
        Red {
            min_th: s.min_th,
            max_th: s.max_th,
            max_p: s.max_p,
            w: s.q_weight,
            gentle: s.gentle,
            wait: s.wait,
            ecn: s.ecn,
            ptc: rate / (8.0 * s.mean_pktsize as f64),
            avg: 0.0,
            count: 0,
            old: false,
        }
    }

    /// The average after an arrival that finds `qlen` packets waiting; `idle`: seconds the
    /// link had been idle (nothing waiting or in service), if it was. The idle period counts
    /// as `floor(ptc · idle)` arrivals to an empty queue, as in ns-2.
    pub fn update_avg(&mut self, qlen: usize, idle: Option<f64>) {
        if let Some(t) = idle {
            let m = (self.ptc * t).floor();
            if m >= 1.0 {
                self.avg *= (1.0 - self.w).powf(m);
            }
        }
        self.avg = (1.0 - self.w) * self.avg + self.w * qlen as f64;
    }

    /// The probability p_b at the current average (ns-2's calculate_p_new): 0 to max_p
    /// between min_th and max_th; gentle: max_p to 1 between max_th and 2·max_th.
    pub fn p_b(&self) -> f64 {
        let a = self.avg;
        let p = if a >= self.max_th {
            if !self.gentle {
                1.0
            } else {
                (1.0 - self.max_p) / self.max_th * a + (2.0 * self.max_p - 1.0)
            }
        } else {
            (a - self.min_th) / (self.max_th - self.min_th) * self.max_p
        };
        p.min(1.0)
    }

    /// The probability applied to this arrival, `count` packets after the last drop (ns-2's
    /// modify_p): p_b / (1 - count·p_b), or with `wait` 0 until count·p_b reaches 1 and
    /// then p_b / (2 - count·p_b).
    pub fn p_a(&self, p_b: f64) -> f64 {
        let cp = self.count as f64 * p_b;
        let p = if self.wait {
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p_b / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            p_b / (1.0 - cp)
        } else {
            1.0
        };
        p.min(1.0)
    }

    /// A packet arrives and finds `qlen` packets waiting (not counting the one being
    /// sent); `idle` as for [`Red::update_avg`]; `full`: the queue's limit is reached;
    /// `ect`: the packet is ECN-capable.
    pub fn arrive(&mut self, qlen: usize, idle: Option<f64>, ect: bool, full: bool, rng: &mut Rng) -> RedVerdict {
        self.update_avg(qlen, idle);
        self.count += 1;
        let mut verdict = RedVerdict::Enqueue;
        if self.avg >= self.min_th && qlen > 1 {
            let limit = if self.gentle { 2.0 * self.max_th } else { self.max_th };
            if self.avg >= limit {
                verdict = RedVerdict::DropForced;
            } else if !self.old {
                // just entered the drop region: start counting
                self.count = 1;
                self.old = true;
            } else {
                let p = self.p_a(self.p_b());
                if rng.uniform() <= p {
                    self.count = 0;
                    verdict = if self.ecn && ect {
                        RedVerdict::Mark
                    } else {
                        RedVerdict::DropEarly
                    };
                }
            }
        } else {
            self.old = false;
        }
        if full {
            verdict = RedVerdict::DropForced;
        }
        if verdict == RedVerdict::DropForced {
            self.count = 0;
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> RedSpec {
        RedSpec {
            limit: 100,
            min_th: 5.0,
            max_th: 15.0,
            q_weight: 0.002,
            max_p: 0.1,
            gentle: true,
            wait: true,
            mean_pktsize: 500,
            ecn: false,
        }
    }

    #[test]
    fn the_average_is_an_ewma_with_the_idle_correction() {
        // 10 Mb/s with 500-byte mean packets: ptc = 2500 packets per second.
        let mut r = Red::new(&spec(), 10e6);
        r.update_avg(10, None);
        assert!((r.avg - 0.02).abs() < 1e-15, "w·q from 0");
        r.update_avg(10, None);
        assert!((r.avg - (0.998 * 0.02 + 0.02)).abs() < 1e-15);
        // 0.1 s idle: m = 250 arrivals to an empty queue, then this one (qlen 0)
        let before = r.avg;
        r.update_avg(0, Some(0.1));
        let expected = 0.998f64.powi(250) * before * 0.998;
        assert!((r.avg - expected).abs() < 1e-15, "{} {expected}", r.avg);
        // less than one packet time idle: no correction
        let before = r.avg;
        r.update_avg(0, Some(0.0003));
        assert!((r.avg - 0.998 * before).abs() < 1e-18);
        // converges to a constant queue
        for _ in 0..20_000 {
            r.update_avg(7, None);
        }
        assert!((r.avg - 7.0).abs() < 1e-9);
    }

    fn at(avg: f64, gentle: bool) -> f64 {
        let mut r = Red::new(&RedSpec { gentle, ..spec() }, 10e6);
        r.avg = avg;
        r.p_b()
    }

    #[test]
    fn p_b_is_linear_between_the_thresholds_and_gentle_above() {
        assert_eq!(at(5.0, true), 0.0);
        assert!((at(10.0, true) - 0.05).abs() < 1e-15);
        assert!((at(14.999, true) - 0.1 * 9.999 / 10.0).abs() < 1e-12);
        assert!((at(15.0, true) - 0.1).abs() < 1e-15, "max_p at max_th");
        assert!((at(22.5, true) - 0.55).abs() < 1e-12, "half way to 1");
        assert!((at(30.0, true) - 1.0).abs() < 1e-12);
        assert_eq!(at(45.0, true), 1.0);
        assert_eq!(at(15.0, false), 1.0, "not gentle: 1 from max_th");
    }

    #[test]
    fn the_count_spreads_drops_uniformly() {
        let mut r = Red::new(&RedSpec { wait: false, ..spec() }, 10e6);
        let p_b = 0.02;
        for (count, want) in [
            (0, 0.02),
            (1, 0.02 / 0.98),
            (25, 0.02 / 0.5),
            (49, 0.02 / 0.02),
            (50, 1.0),
        ] {
            r.count = count;
            assert!((r.p_a(p_b) - want).abs() < 1e-12, "count {count}: {}", r.p_a(p_b));
        }
        // ns-2's wait_: no drop before count·p_b reaches 1, then p_b / (2 - count·p_b)
        let mut r = Red::new(&spec(), 10e6);
        for (count, want) in [(10, 0.0), (49, 0.0), (50, 0.02), (75, 0.04), (100, 1.0)] {
            r.count = count;
            assert!((r.p_a(p_b) - want).abs() < 1e-12, "wait, count {count}: {}", r.p_a(p_b));
        }
        // With wait, drops at a constant p_b are 1/p_b to 2/p_b - 1 packets apart, each gap
        // equally likely (mean 29.5 packets at p_b = 0.05).
        let mut r = Red::new(&spec(), 10e6);
        r.avg = 10.0; // p_b = 0.05
        r.old = true;
        let mut rng = Rng::from_seed(5);
        let (mut gaps, mut since) = (vec![], 0);
        for _ in 0..200_000 {
            r.avg = 10.0;
            r.w = 0.0;
            since += 1;
            if r.arrive(10, None, false, false, &mut rng) == RedVerdict::DropEarly {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.iter().all(|&g| (20..=39).contains(&g)), "{:?}", &gaps[..10]);
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        assert!((mean - 29.5).abs() < 0.3, "{mean}");
    }

    #[test]
    fn forced_drops_marks_and_the_first_crossing() {
        let mut rng = Rng::from_seed(1);
        let mut r = Red::new(&RedSpec { ecn: true, ..spec() }, 10e6);
        r.w = 1.0; // the average is the queue
        assert_eq!(r.arrive(3, None, true, false, &mut rng), RedVerdict::Enqueue);
        assert_eq!(
            r.arrive(10, None, false, false, &mut rng),
            RedVerdict::Enqueue,
            "crossing min_th only starts the count"
        );
        assert!(r.old && r.count == 1);
        assert_eq!(
            r.arrive(30, None, false, false, &mut rng),
            RedVerdict::DropForced,
            "2·max_th"
        );
        assert_eq!(r.count, 0);
        assert_eq!(r.arrive(1, None, true, true, &mut rng), RedVerdict::DropForced, "full");
        // p_b = 1 in the gentle region's top: with ECN an ECT packet is marked, not dropped
        let mut marks = 0;
        for _ in 0..100 {
            match r.arrive(29, None, true, false, &mut rng) {
                RedVerdict::Mark => marks += 1,
                RedVerdict::Enqueue => {}
                v => panic!("{v:?}"),
            }
        }
        assert!(marks > 40, "{marks}");
        let verdict = (0..10)
            .map(|_| r.arrive(29, None, false, false, &mut rng))
            .find(|v| *v != RedVerdict::Enqueue);
        assert_eq!(verdict, Some(RedVerdict::DropEarly), "Not-ECT");
        // an empty (or one-packet) queue is never dropped from early
        assert_eq!(r.arrive(1, None, false, false, &mut rng), RedVerdict::Enqueue);
    }
}
