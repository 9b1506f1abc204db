//! The two TCBI controllers of Savorić, Karl and Wolisz (section 3): what a new connection
//! starts with, computed from the current windows of the existing members of its set and
//! the set's aggregated RTT estimates. Pure functions, independent of any congestion
//! control algorithm.

/// Which controller a host runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Controller {
    /// Sets are tracked (for the analysis) but nothing is shared.
    None,
    /// MV-TCBI: the new connection gets the means; existing ones are left alone.
    MeanValue,
    /// FS-TCBI: every member of the set, old and new, gets the fair share.
    FairShare,
}

impl Controller {
    pub fn from_name(name: &str) -> Option<Controller> {
        match name {
            "none" => Some(Controller::None),
            "mv" => Some(Controller::MeanValue),
            "fs" => Some(Controller::FairShare),
            _ => None,
        }
    }
}

/// Congestion window and slow-start threshold, in segments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

/// RTT estimates (seconds) a connection starts with instead of the fixed initial RTO.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rtt {
    pub srtt: f64,
    pub rttvar: f64,
}

/// The initial control block of a new connection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Initial {
    pub window: Window,
    /// `None`: standard initialisation (fixed initial RTO).
    pub rtt: Option<Rtt>,
}

/// MV-TCBI: cwnd and ssthresh are the arithmetic means over the existing members, srtt and
/// rttvar the set's aggregates. An empty set gives the standard values.
pub fn mean_value(existing: &[Window], aggregate: Option<Rtt>, standard: Window) -> Initial {
    if existing.is_empty() {
        return Initial {
            window: standard,
            rtt: None,
        };
    }
    let n = existing.len() as f64;
    Initial {
        window: Window {
            cwnd: existing.iter().map(|w| w.cwnd).sum::<f64>() / n,
            ssthresh: existing.iter().map(|w| w.ssthresh).sum::<f64>() / n,
        },
        rtt: aggregate,
    }
}

/// FS-TCBI: (Σ existing + standard) / (n + 1) for cwnd and for ssthresh; the result is
/// assigned to all n + 1 members (the caller overwrites the existing ones). srtt and rttvar
/// are the set's aggregates, also assigned to every member. An empty set gives the
/// standard values.
pub fn fair_share(existing: &[Window], aggregate: Option<Rtt>, standard: Window) -> Initial {
    if existing.is_empty() {
        return Initial {
            window: standard,
            rtt: None,
        };
    }
    let n1 = existing.len() as f64 + 1.0;
    Initial {
        window: Window {
            cwnd: (existing.iter().map(|w| w.cwnd).sum::<f64>() + standard.cwnd) / n1,
            ssthresh: (existing.iter().map(|w| w.ssthresh).sum::<f64>() + standard.ssthresh) / n1,
        },
        rtt: aggregate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STD: Window = Window {
        cwnd: 2.0,
        ssthresh: 64.0,
    };

    fn set() -> Vec<Window> {
        vec![
            Window {
                cwnd: 10.0,
                ssthresh: 64.0,
            },
            Window {
                cwnd: 4.0,
                ssthresh: 20.0,
            },
            Window {
                cwnd: 7.5,
                ssthresh: 30.0,
            },
        ]
    }

    #[test]
    fn mean_value_from_a_hand_built_set() {
        let agg = Some(Rtt {
            srtt: 0.05,
            rttvar: 0.01,
        });
        let i = mean_value(&set(), agg, STD);
        // (10 + 4 + 7.5) / 3 = 7.1666..., (64 + 20 + 30) / 3 = 38
        assert!((i.window.cwnd - 21.5 / 3.0).abs() < 1e-12);
        assert_eq!(i.window.ssthresh, 38.0);
        assert_eq!(i.rtt, agg);
    }

    #[test]
    fn fair_share_from_a_hand_built_set() {
        let i = fair_share(&set(), None, STD);
        // (10 + 4 + 7.5 + 2) / 4 = 5.875, (64 + 20 + 30 + 64) / 4 = 44.5
        assert_eq!(i.window.cwnd, 5.875);
        assert_eq!(i.window.ssthresh, 44.5);
        assert_eq!(i.rtt, None, "no aggregate yet: standard RTO");
    }

    #[test]
    fn fair_share_adds_exactly_one_standard_connection() {
        // Property: Σcwnd and Σssthresh over the set grow by exactly the standard values.
        let mut rng = crate::sim::Rng::from_seed(7);
        for n in 1..12 {
            let existing: Vec<Window> = (0..n)
                .map(|_| Window {
                    cwnd: 1.0 + 50.0 * rng.uniform(),
                    ssthresh: 2.0 + 100.0 * rng.uniform(),
                })
                .collect();
            let i = fair_share(&existing, None, STD);
            let before_c: f64 = existing.iter().map(|w| w.cwnd).sum();
            let before_s: f64 = existing.iter().map(|w| w.ssthresh).sum();
            let after_c = i.window.cwnd * (n as f64 + 1.0);
            let after_s = i.window.ssthresh * (n as f64 + 1.0);
            assert!((after_c - before_c - STD.cwnd).abs() < 1e-9, "n={n}");
            assert!((after_s - before_s - STD.ssthresh).abs() < 1e-9, "n={n}");
        }
    }

    #[test]
    fn empty_set_gives_the_standard_values() {
        let agg = Some(Rtt {
            srtt: 0.05,
            rttvar: 0.01,
        });
        for i in [mean_value(&[], agg, STD), fair_share(&[], agg, STD)] {
            assert_eq!(i.window, STD);
            assert_eq!(i.rtt, None);
        }
    }
}
