//! Temporal TCBI (RFC 2140 temporal sharing). The paper describes it without evaluating
//! it; everything here is **our design**:
//!
//! - one cache entry per connection set, overwritten when a member closes with that
//!   connection's cwnd, ssthresh, srtt and rttvar (srtt/rttvar only if it had an RTT
//!   sample) and the time;
//! - it initialises a new connection only when the set has no open member;
//! - an entry of age ≥ `lifetime` is ignored;
//! - ageing `linear`: with f = age / lifetime, cwnd and ssthresh move linearly from the
//!   cached values toward the standard ones (`v + f·(std − v)`); srtt is kept and rttvar
//!   moves linearly toward `max(rttvar, (initial_rto − srtt)/4)`, so that the derived RTO
//!   srtt + 4·rttvar approaches the fixed initial RTO (it never shrinks with age).
//!   Ageing `none`: the cached values are used unchanged until the lifetime ends.
use super::controller::{Initial, Rtt, Window};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CacheEntry {
    /// When the entry was written (seconds).
    pub time: f64,
    pub window: Window,
    pub rtt: Option<Rtt>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Temporal {
    pub lifetime: f64,
    pub linear: bool,
}

impl Temporal {
    /// The initial values an entry gives at `now`, or `None` if it has expired.
    pub fn lookup(&self, e: &CacheEntry, now: f64, standard: Window, initial_rto: f64) -> Option<Initial> {
        let age = now - e.time;
        if !(age >= 0.0 && age < self.lifetime) {
            return None;
        }
        let f = if self.linear { age / self.lifetime } else { 0.0 };
        let toward = |v: f64, target: f64| v + f * (target - v);
        Some(Initial {
            window: Window {
                cwnd: toward(e.window.cwnd, standard.cwnd),
                ssthresh: toward(e.window.ssthresh, standard.ssthresh),
            },
            rtt: e.rtt.map(|r| Rtt {
                srtt: r.srtt,
                rttvar: toward(r.rttvar, r.rttvar.max((initial_rto - r.srtt) / 4.0)),
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STD: Window = Window {
        cwnd: 2.0,
        ssthresh: 64.0,
    };

    fn entry() -> CacheEntry {
        CacheEntry {
            time: 100.0,
            window: Window {
                cwnd: 22.0,
                ssthresh: 24.0,
            },
            rtt: Some(Rtt {
                srtt: 0.2,
                rttvar: 0.05,
            }),
        }
    }

    #[test]
    fn hit_expiry_and_linear_ageing() {
        let t = Temporal {
            lifetime: 600.0,
            linear: true,
        };
        let e = entry();
        let fresh = t.lookup(&e, 100.0, STD, 3.0).unwrap();
        assert_eq!(fresh.window, e.window);
        assert_eq!(fresh.rtt, e.rtt);
        // a quarter of the lifetime: 22 → 2 by 1/4 = 17; 24 → 64 by 1/4 = 34;
        // rttvar 0.05 → (3 − 0.2)/4 = 0.7 by 1/4 = 0.2125
        let q = t.lookup(&e, 250.0, STD, 3.0).unwrap();
        assert!((q.window.cwnd - 17.0).abs() < 1e-12);
        assert!((q.window.ssthresh - 34.0).abs() < 1e-12);
        let r = q.rtt.unwrap();
        assert_eq!(r.srtt, 0.2);
        assert!((r.rttvar - 0.2125).abs() < 1e-12);
        assert!(t.lookup(&e, 699.9, STD, 3.0).is_some());
        assert!(t.lookup(&e, 700.0, STD, 3.0).is_none(), "expired at the lifetime");
        assert!(t.lookup(&e, 5000.0, STD, 3.0).is_none());
    }

    #[test]
    fn no_ageing_keeps_the_values() {
        let t = Temporal {
            lifetime: 10.0,
            linear: false,
        };
        let e = entry();
        let v = t.lookup(&e, 109.0, STD, 3.0).unwrap();
        assert_eq!(v.window, e.window);
        assert_eq!(v.rtt, e.rtt);
        assert!(t.lookup(&e, 110.0, STD, 3.0).is_none());
    }
}
