//! Network Pipe Classification (thesis §4.5.3, Fig. 4.5): the eleven rules over the
//! passive statistics, each quantity behind a watermark pair (Sudame and Badrinath's
//! watermark violation) so that a value wandering about one threshold does not flip the
//! pipe type, and a fixed order of precedence for pipes that match several rules.
use super::stats::Stats;
use crate::cc::CcState;
use crate::sim::{secs, Time};
use serde::{Deserialize, Serialize};

/// The pipe types of Fig. 4.5 (rule 8, packet corruption, labels losses, not pipes) and
/// `Default` when no rule holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PipeType {
    Default,
    Reorder,
    Lfn,
    LfnSmallQueue,
    LfnLargeQueue,
    HighSpeed,
    LongThin,
    ReliableWireless,
    Lossy,
    Mobile,
    Asymmetry,
}

impl PipeType {
    pub const ALL: [PipeType; 11] = [
        PipeType::Default,
        PipeType::Reorder,
        PipeType::Lfn,
        PipeType::LfnSmallQueue,
        PipeType::LfnLargeQueue,
        PipeType::HighSpeed,
        PipeType::LongThin,
        PipeType::ReliableWireless,
        PipeType::Lossy,
        PipeType::Mobile,
        PipeType::Asymmetry,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PipeType::Default => "default",
            PipeType::Reorder => "reorder",
            PipeType::Lfn => "lfn",
            PipeType::LfnSmallQueue => "lfn_small_queue",
            PipeType::LfnLargeQueue => "lfn_large_queue",
            PipeType::HighSpeed => "high_speed",
            PipeType::LongThin => "long_thin",
            PipeType::ReliableWireless => "reliable_wireless",
            PipeType::Lossy => "lossy",
            PipeType::Mobile => "mobile",
            PipeType::Asymmetry => "asymmetry",
        }
    }

    /// The number of the rule of Fig. 4.5 that yields this type (0: none holds).
    pub fn rule(self) -> u32 {
        match self {
            PipeType::Default => 0,
            PipeType::Reorder => 1,
            PipeType::Lfn => 2,
            PipeType::LfnSmallQueue => 3,
            PipeType::LfnLargeQueue => 4,
            PipeType::HighSpeed => 5,
            PipeType::LongThin => 6,
            PipeType::ReliableWireless => 7,
            PipeType::Lossy => 9,
            PipeType::Mobile => 10,
            PipeType::Asymmetry => 11,
        }
    }

    /// The code in the `pipe_type` time-series column: the position in [`PipeType::ALL`].
    pub fn code(self) -> f64 {
        PipeType::ALL.iter().position(|p| *p == self).unwrap_or(0) as f64
    }

    /// The broader type a knowledge base row may target instead (LFN for both LFN kinds).
    pub fn parent(self) -> Option<PipeType> {
        match self {
            PipeType::LfnSmallQueue | PipeType::LfnLargeQueue => Some(PipeType::Lfn),
            _ => None,
        }
    }

    pub fn parse(s: &str) -> Result<PipeType, String> {
        PipeType::ALL
            .iter()
            .copied()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("{s:?} is not a pipe type; allowed: {}", names().join(", ")))
    }
}

pub fn names() -> Vec<&'static str> {
    PipeType::ALL.iter().map(|p| p.name()).collect()
}

/// The order in which matching rules win, first to last (docs/kentridge.md says why).
pub const DEFAULT_PRECEDENCE: [PipeType; 9] = [
    PipeType::Mobile,
    PipeType::ReliableWireless,
    PipeType::Reorder,
    PipeType::Lossy,
    PipeType::Asymmetry,
    PipeType::LfnLargeQueue,
    PipeType::LfnSmallQueue,
    PipeType::HighSpeed,
    PipeType::LongThin,
];

/// The classifier's thresholds (high watermarks; the low ones follow from `hysteresis`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// Long RTT: brtt above this (s).
    pub long_rtt: f64,
    /// Large cwnd: the period's largest cwnd above this (segments).
    pub large_cwnd: f64,
    /// Small cwnd: the period's largest cwnd below this (segments).
    pub small_cwnd: f64,
    /// Large queue: the period's largest queue delay above this (s; Sync-TCP's Th_qd).
    pub large_queue: f64,
    /// Small queue delay at loss time: a loss below it counts as corruption (s).
    pub small_queue: f64,
    /// Large jitter: rttvar / srtt above this.
    pub large_jitter: f64,
    /// "Frequent": at least this many events within `window`.
    pub frequent: u32,
    /// ... and no longer frequent at this many or fewer.
    pub frequent_off: u32,
    /// The window over which events are counted (s).
    pub window: f64,
    /// Asymmetry: data segments per ACK over the period above this.
    pub asymmetry: f64,
    /// Relative distance of the low watermark from the high one: a "greater than" test
    /// turns on above x and off below x·(1 − h); a "less than" test turns on below x and
    /// off above x·(1 + h).
    pub hysteresis: f64,
}

impl Default for Thresholds {
    fn default() -> Thresholds {
        Thresholds {
            long_rtt: 0.1,
            large_cwnd: 100.0,
            small_cwnd: 8.0,
            large_queue: 0.012,
            small_queue: 0.003,
            large_jitter: 0.5,
            frequent: 3,
            frequent_off: 1,
            window: 10.0,
            asymmetry: 4.0,
            hysteresis: 0.2,
        }
    }
}

/// One quantity's test with watermarks: `on` changes only when the value crosses the
/// watermark on the far side.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Latch {
    pub on: bool,
}

impl Latch {
    /// On above `high`, off below `low` (`low` ≤ `high`).
    pub fn above(&mut self, v: f64, high: f64, low: f64) -> bool {
        if !self.on && v > high {
            self.on = true;
        } else if self.on && v < low {
            self.on = false;
        }
        self.on
    }
    /// On below `low`, off above `high`.
    pub fn below(&mut self, v: f64, low: f64, high: f64) -> bool {
        if !self.on && v < low {
            self.on = true;
        } else if self.on && v > high {
            self.on = false;
        }
        self.on
    }
    /// Counts: on at `on_at` or more, off at `off_at` or fewer.
    pub fn count(&mut self, n: usize, on_at: u32, off_at: u32) -> bool {
        if !self.on && n >= on_at as usize {
            self.on = true;
        } else if self.on && n <= off_at as usize {
            self.on = false;
        }
        self.on
    }
}

/// The readings of one classification (what the rules look at).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Reading {
    pub brtt: f64,
    pub cwnd: f64,
    pub queue_delay: f64,
    pub jitter: f64,
    pub spurious: usize,
    pub timeouts: usize,
    pub repeated_timeouts: usize,
    pub corruptions: usize,
    pub notifications: usize,
    pub data_per_ack: f64,
    /// Data segments the ratio counts, over `window` (it means nothing over a handful).
    pub sent: u64,
}

impl Reading {
    /// Read the statistics at `now` (prunes their event windows).
    pub fn take(stats: &mut Stats, st: &CcState, sent: u64, th: &Thresholds) -> Reading {
        let from = st.now.saturating_sub(secs(th.window));
        let (data_per_ack, data) = stats.window_ratio(sent, from);
        Reading {
            brtt: if stats.brtt.is_finite() {
                stats.brtt
            } else if st.min_rtt.is_finite() {
                st.min_rtt
            } else {
                0.0
            },
            cwnd: stats.max_cwnd.max(st.cwnd),
            queue_delay: stats.max_qd,
            jitter: if st.srtt > 0.0 { st.rttvar / st.srtt } else { 0.0 },
            spurious: stats.spurious.count_since(from),
            timeouts: stats.timeouts.count_since(from),
            repeated_timeouts: stats.repeated_timeouts.count_since(from),
            corruptions: stats.corruptions.count_since(from),
            notifications: stats.notifications.count_since(from),
            data_per_ack,
            sent: data,
        }
    }
}

/// Fewest data segments in a period for the asymmetry rule to read its ratio.
pub const MIN_ASYMMETRY_SEGMENTS: u64 = 20;

/// The classifier of one connection: its latches and the current pipe type.
#[derive(Debug, Clone)]
pub struct Npc {
    pub th: Thresholds,
    pub precedence: Vec<PipeType>,
    pub current: PipeType,
    long_rtt: Latch,
    large_cwnd: Latch,
    small_cwnd: Latch,
    large_queue: Latch,
    large_jitter: Latch,
    reorder: Latch,
    timeouts: Latch,
    corruption: Latch,
    repeated: Latch,
    asymmetry: Latch,
}

impl Npc {
    pub fn new(th: Thresholds, precedence: Vec<PipeType>) -> Npc {
        Npc {
            th,
            precedence,
            current: PipeType::Default,
            long_rtt: Latch::default(),
            large_cwnd: Latch::default(),
            small_cwnd: Latch::default(),
            large_queue: Latch::default(),
            large_jitter: Latch::default(),
            reorder: Latch::default(),
            timeouts: Latch::default(),
            corruption: Latch::default(),
            repeated: Latch::default(),
            asymmetry: Latch::default(),
        }
    }

    /// The pipe types whose rules hold for reading `r` (every latch updated).
    pub fn matches(&mut self, r: &Reading) -> Vec<PipeType> {
        let th = &self.th;
        let (lo, hi) = (1.0 - th.hysteresis, 1.0 + th.hysteresis);
        let long_rtt = self.long_rtt.above(r.brtt, th.long_rtt, th.long_rtt * lo);
        let large_cwnd = self.large_cwnd.above(r.cwnd, th.large_cwnd, th.large_cwnd * lo);
        let small_cwnd = self.small_cwnd.below(r.cwnd, th.small_cwnd, th.small_cwnd * hi);
        let large_queue = self
            .large_queue
            .above(r.queue_delay, th.large_queue, th.large_queue * lo);
        let large_jitter = self.large_jitter.above(r.jitter, th.large_jitter, th.large_jitter * lo);
        let reorder = self.reorder.count(r.spurious, th.frequent, th.frequent_off);
        let frequent_timeout = self.timeouts.count(r.timeouts, th.frequent, th.frequent_off);
        let lossy = self.corruption.count(r.corruptions, th.frequent, th.frequent_off);
        // An explicit handoff notification is a mobility event as much as a disconnection.
        let mobile = self
            .repeated
            .count(r.repeated_timeouts + r.notifications, th.frequent, th.frequent_off)
            || r.notifications > 0;
        let asym = r.sent >= MIN_ASYMMETRY_SEGMENTS || self.asymmetry.on;
        let asymmetric = asym && self.asymmetry.above(r.data_per_ack, th.asymmetry, th.asymmetry * lo);
        let mut m = Vec::new();
        if reorder {
            m.push(PipeType::Reorder); // rule 1
        }
        if large_cwnd && long_rtt {
            // rule 2, refined by rules 3 and 4
            m.push(if large_queue {
                PipeType::LfnLargeQueue
            } else {
                PipeType::LfnSmallQueue
            });
        }
        if large_cwnd && !long_rtt {
            m.push(PipeType::HighSpeed); // rule 5
        }
        if small_cwnd && long_rtt {
            m.push(PipeType::LongThin); // rule 6
        }
        if large_jitter && frequent_timeout {
            m.push(PipeType::ReliableWireless); // rule 7
        }
        if lossy {
            m.push(PipeType::Lossy); // rule 9 (over rule 8's corruption label)
        }
        if mobile {
            m.push(PipeType::Mobile); // rule 10
        }
        if asymmetric {
            m.push(PipeType::Asymmetry); // rule 11
        }
        m
    }

    /// The pipe type for reading `r`: the first matching type in the order of precedence,
    /// `Default` when none matches.
    pub fn classify(&mut self, r: &Reading) -> PipeType {
        let m = self.matches(r);
        for p in &self.precedence {
            if let Some(x) = m.iter().find(|x| *x == p || x.parent() == Some(*p)) {
                return *x;
            }
        }
        PipeType::Default
    }
}

/// When the next periodic classification is due.
pub fn next_due(now: Time, interval: f64) -> Time {
    now.saturating_add(secs(interval).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npc() -> Npc {
        Npc::new(Thresholds::default(), DEFAULT_PRECEDENCE.to_vec())
    }

    fn quiet() -> Reading {
        Reading {
            brtt: 0.02,
            cwnd: 20.0,
            queue_delay: 0.001,
            jitter: 0.1,
            data_per_ack: 2.0,
            sent: 1000,
            ..Reading::default()
        }
    }

    #[test]
    fn a_quiet_pipe_is_default() {
        assert_eq!(npc().classify(&quiet()), PipeType::Default);
    }

    #[test]
    fn each_rule_fires_from_its_statistics() {
        let cases: Vec<(Reading, PipeType)> = vec![
            (Reading { spurious: 3, ..quiet() }, PipeType::Reorder),
            (
                Reading {
                    brtt: 0.2,
                    cwnd: 500.0,
                    queue_delay: 0.05,
                    ..quiet()
                },
                PipeType::LfnLargeQueue,
            ),
            (
                Reading {
                    brtt: 0.2,
                    cwnd: 500.0,
                    queue_delay: 0.002,
                    ..quiet()
                },
                PipeType::LfnSmallQueue,
            ),
            (
                Reading {
                    brtt: 0.01,
                    cwnd: 500.0,
                    ..quiet()
                },
                PipeType::HighSpeed,
            ),
            (
                Reading {
                    brtt: 0.3,
                    cwnd: 5.0,
                    ..quiet()
                },
                PipeType::LongThin,
            ),
            (
                Reading {
                    jitter: 0.8,
                    timeouts: 3,
                    ..quiet()
                },
                PipeType::ReliableWireless,
            ),
            (
                Reading {
                    corruptions: 4,
                    ..quiet()
                },
                PipeType::Lossy,
            ),
            (
                Reading {
                    repeated_timeouts: 3,
                    ..quiet()
                },
                PipeType::Mobile,
            ),
            (
                Reading {
                    notifications: 1,
                    ..quiet()
                },
                PipeType::Mobile,
            ),
            (
                Reading {
                    data_per_ack: 6.0,
                    ..quiet()
                },
                PipeType::Asymmetry,
            ),
        ];
        for (r, want) in cases {
            assert_eq!(npc().classify(&r), want, "{r:?}");
        }
        // the rules need both halves: jitter without timeouts, timeouts without jitter,
        // a large cwnd on a long RTT without the cwnd, too few spurious retransmits
        for r in [
            Reading { jitter: 0.8, ..quiet() },
            Reading { timeouts: 5, ..quiet() },
            Reading {
                brtt: 0.2,
                cwnd: 50.0,
                ..quiet()
            },
            Reading { spurious: 2, ..quiet() },
            Reading {
                data_per_ack: 6.0,
                sent: 5,
                ..quiet()
            },
        ] {
            assert_eq!(npc().classify(&r), PipeType::Default, "{r:?}");
        }
    }

    #[test]
    fn a_value_oscillating_between_the_watermarks_does_not_flap() {
        let mut n = npc();
        let lfn = |qd| Reading {
            brtt: 0.2,
            cwnd: 500.0,
            queue_delay: qd,
            ..quiet()
        };
        assert_eq!(n.classify(&lfn(0.002)), PipeType::LfnSmallQueue);
        // 12 ms is the high watermark, 9.6 ms the low one
        assert_eq!(n.classify(&lfn(0.013)), PipeType::LfnLargeQueue);
        for k in 0..20 {
            let qd = if k % 2 == 0 { 0.0100 } else { 0.0119 };
            assert_eq!(n.classify(&lfn(qd)), PipeType::LfnLargeQueue, "step {k}");
        }
        assert_eq!(n.classify(&lfn(0.009)), PipeType::LfnSmallQueue);
        for k in 0..20 {
            let qd = if k % 2 == 0 { 0.0100 } else { 0.0119 };
            assert_eq!(n.classify(&lfn(qd)), PipeType::LfnSmallQueue, "step {k}");
        }
        // without hysteresis the same sequence flaps
        let mut n = Npc::new(
            Thresholds {
                hysteresis: 0.0,
                ..Thresholds::default()
            },
            DEFAULT_PRECEDENCE.to_vec(),
        );
        let mut changes = 0;
        let mut last = n.classify(&lfn(0.013));
        for k in 0..20 {
            let p = n.classify(&lfn(if k % 2 == 0 { 0.011 } else { 0.0125 }));
            changes += (p != last) as u32;
            last = p;
        }
        assert_eq!(changes, 20);
        // counts: on at 3, off only at 1 or fewer
        let mut n = npc();
        let lossy = |c| Reading {
            corruptions: c,
            ..quiet()
        };
        assert_eq!(n.classify(&lossy(3)), PipeType::Lossy);
        assert_eq!(n.classify(&lossy(2)), PipeType::Lossy);
        assert_eq!(n.classify(&lossy(1)), PipeType::Default);
        assert_eq!(n.classify(&lossy(2)), PipeType::Default);
    }

    #[test]
    fn precedence_decides_between_matching_rules() {
        let all = Reading {
            spurious: 3,
            corruptions: 3,
            brtt: 0.2,
            cwnd: 500.0,
            queue_delay: 0.05,
            repeated_timeouts: 3,
            ..quiet()
        };
        let mut n = npc();
        let m = n.matches(&all);
        assert!(m.contains(&PipeType::Reorder) && m.contains(&PipeType::Lossy) && m.contains(&PipeType::Mobile));
        assert_eq!(npc().classify(&all), PipeType::Mobile);
        assert_eq!(
            npc().classify(&Reading {
                repeated_timeouts: 0,
                ..all
            }),
            PipeType::Reorder
        );
        assert_eq!(
            npc().classify(&Reading {
                repeated_timeouts: 0,
                spurious: 0,
                ..all
            }),
            PipeType::Lossy
        );
        assert_eq!(
            npc().classify(&Reading {
                repeated_timeouts: 0,
                spurious: 0,
                corruptions: 0,
                ..all
            }),
            PipeType::LfnLargeQueue
        );
        // a user's order: LFN before the loss rules; "lfn" stands for both LFN kinds
        let mut n = Npc::new(Thresholds::default(), vec![PipeType::Lfn, PipeType::Lossy]);
        assert_eq!(
            n.classify(&Reading {
                repeated_timeouts: 0,
                ..all
            }),
            PipeType::LfnLargeQueue
        );
        // a type left out of the order is never chosen
        let mut n = Npc::new(Thresholds::default(), vec![PipeType::Lossy]);
        assert_eq!(n.classify(&Reading { corruptions: 0, ..all }), PipeType::Default);
    }
}
