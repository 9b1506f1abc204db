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
    /// Large cwnd: the path's size (`bdp_size`: the BDP estimate, else the largest cwnd
    /// seen) above this (segments).
    pub large_cwnd: f64,
    /// Small cwnd: the path's size below this (segments).
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
    /// What the size rules (2, 5, 6: `large_cwnd`, `small_cwnd`) compare: `true`, the
    /// path's BDP estimated as the largest delivery rate × brtt (`Stats::bdp`), which
    /// neither slow start's overshoot nor the running algorithm's window moves; `false`, the
    /// largest cwnd seen (the thesis's "cwnd"); `thresholds.bdp_size` in a scenario.
    #[serde(default = "yes")]
    pub bdp_size: bool,
    /// The LFN refinements wait for what the initial slow start has not yet shown
    /// (`true`): rule 3 (small queue) until the queue has been probed (the first congestion
    /// signal, `Stats::congested`, or the end of slow start without one), since before that
    /// the largest queue delay seen is only a lower bound of the buffer; and neither rule
    /// fires between the first congestion signal and the end of the initial slow start
    /// (`Stats::settled`), so that the agent does not hand the overshoot's window and
    /// ssthresh to the new algorithm in the middle of its recovery. Rule 4 (large queue)
    /// may fire before the first congestion signal: a queue delay above `large_queue`
    /// already shows a large buffer, and an early switch can spare the overshoot.
    /// `false`: rules 3 and 4 read the queue at once (the thesis's reading);
    /// `thresholds.lfn_after_slow_start` in a scenario.
    #[serde(default = "yes")]
    pub lfn_after_slow_start: bool,
    /// Rule 7 (reliable wireless: large jitter and frequent timeouts) also reads frequent
    /// spurious timeouts (found by Eifel or D-SACK) as large jitter: each is a delay spike
    /// longer than the RTO, which is what the jitter test stands for, even when rttvar has
    /// shrunk back by the time of the classification. Off by default (the thesis's rule);
    /// `thresholds.spurious_timeout_jitter` in a scenario.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spurious_timeout_jitter: bool,
}

fn yes() -> bool {
    true
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
            bdp_size: true,
            lfn_after_slow_start: true,
            spurious_timeout_jitter: false,
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
    /// Timeouts found spurious, over `window`.
    pub spurious_timeouts: usize,
    pub repeated_timeouts: usize,
    pub corruptions: usize,
    pub notifications: usize,
    pub data_per_ack: f64,
    /// Data segments the ratio counts, over `window` (it means nothing over a handful).
    pub sent: u64,
    /// The BDP estimate (segments; `None` before the first delivery-rate sample).
    pub bdp: Option<f64>,
    /// The connection has left its initial slow start.
    pub settled: bool,
    /// The connection has seen a congestion signal.
    pub congested: bool,
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
            spurious_timeouts: stats.spurious_timeouts.count_since(from),
            repeated_timeouts: stats.repeated_timeouts.count_since(from),
            corruptions: stats.corruptions.count_since(from),
            notifications: stats.notifications.count_since(from),
            data_per_ack,
            sent: data,
            bdp: stats.bdp(),
            settled: stats.settled,
            congested: stats.congested,
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
    /// What the last `classify` returned.
    last: PipeType,
    long_rtt: Latch,
    large_cwnd: Latch,
    small_cwnd: Latch,
    large_queue: Latch,
    large_jitter: Latch,
    spurious_timeouts: Latch,
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
            last: PipeType::Default,
            long_rtt: Latch::default(),
            large_cwnd: Latch::default(),
            small_cwnd: Latch::default(),
            large_queue: Latch::default(),
            large_jitter: Latch::default(),
            spurious_timeouts: Latch::default(),
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
        // the size the rules compare: the BDP estimate (no size before its first sample:
        // the latches keep what they had) or the largest cwnd
        let size = if th.bdp_size { r.bdp } else { Some(r.cwnd) };
        let (large_cwnd, small_cwnd) = match size {
            Some(x) => (
                self.large_cwnd.above(x, th.large_cwnd, th.large_cwnd * lo),
                self.small_cwnd.below(x, th.small_cwnd, th.small_cwnd * hi),
            ),
            None => (self.large_cwnd.on, self.small_cwnd.on),
        };
        // when the LFN refinements may be read (`lfn_after_slow_start`): a small queue once
        // the queue was probed (a congestion signal, or slow start ended without one); a
        // large queue at once, but not between the first congestion signal and the end of
        // the initial slow start (its overshoot's recovery)
        let wait = th.lfn_after_slow_start;
        let small_queue_known = !wait || r.congested || r.settled;
        let large_queue_known = !wait || !r.congested || r.settled;
        let large_queue = self
            .large_queue
            .above(r.queue_delay, th.large_queue, th.large_queue * lo);
        let spiky = th.spurious_timeout_jitter
            && self
                .spurious_timeouts
                .count(r.spurious_timeouts, th.frequent, th.frequent_off);
        let large_jitter = self.large_jitter.above(r.jitter, th.large_jitter, th.large_jitter * lo) || spiky;
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
            let known = if large_queue {
                large_queue_known
            } else {
                small_queue_known
            };
            if known {
                m.push(if large_queue {
                    PipeType::LfnLargeQueue
                } else {
                    PipeType::LfnSmallQueue
                });
            } else if matches!(self.last, PipeType::LfnLargeQueue | PipeType::LfnSmallQueue) {
                // not readable now: the LFN type decided before stands (no switch back to
                // the default row during the overshoot's recovery)
                m.push(self.last);
            }
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
        let p = self
            .precedence
            .iter()
            .find_map(|p| m.iter().find(|x| *x == p || x.parent() == Some(*p)).copied())
            .unwrap_or(PipeType::Default);
        self.last = p;
        p
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
            bdp: Some(20.0),
            settled: true,
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
                    bdp: Some(500.0),
                    queue_delay: 0.05,
                    ..quiet()
                },
                PipeType::LfnLargeQueue,
            ),
            (
                Reading {
                    brtt: 0.2,
                    cwnd: 500.0,
                    bdp: Some(500.0),
                    queue_delay: 0.002,
                    ..quiet()
                },
                PipeType::LfnSmallQueue,
            ),
            (
                Reading {
                    brtt: 0.01,
                    cwnd: 500.0,
                    bdp: Some(500.0),
                    ..quiet()
                },
                PipeType::HighSpeed,
            ),
            (
                Reading {
                    brtt: 0.3,
                    cwnd: 5.0,
                    bdp: Some(5.0),
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
                bdp: Some(50.0),
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
            bdp: Some(500.0),
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
            bdp: Some(500.0),
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

    fn thesis_sizes() -> Thresholds {
        Thresholds {
            bdp_size: false,
            ..Thresholds::default()
        }
    }

    #[test]
    fn the_size_rules_read_the_bdp_estimate_not_the_overshooting_window() {
        // a short path of BDP 20 whose slow start overshot to a window of 500: the BDP
        // estimate keeps it out of "high speed"; the largest cwnd (the thesis's reading) not
        let overshoot = Reading {
            cwnd: 500.0,
            bdp: Some(20.0),
            ..quiet()
        };
        assert_eq!(npc().classify(&overshoot), PipeType::Default);
        let mut n = Npc::new(thesis_sizes(), DEFAULT_PRECEDENCE.to_vec());
        assert_eq!(n.classify(&overshoot), PipeType::HighSpeed);
        // a fast path is high speed from its BDP estimate whatever the window
        let fast = Reading {
            cwnd: 50.0,
            bdp: Some(300.0),
            ..quiet()
        };
        assert_eq!(npc().classify(&fast), PipeType::HighSpeed);
        // no estimate yet (no rate sample): no size rule fires
        let young = Reading {
            brtt: 0.5,
            cwnd: 2.0,
            bdp: None,
            ..quiet()
        };
        assert_eq!(npc().classify(&young), PipeType::Default);
        let mut n = Npc::new(thesis_sizes(), DEFAULT_PRECEDENCE.to_vec());
        assert_eq!(n.classify(&young), PipeType::LongThin);
    }

    #[test]
    fn a_long_thin_pipe_stays_long_thin_when_the_chosen_algorithm_grows_its_window() {
        // 128 kb/s, RTT 0.6 s: BDP ≈ 6.4 segments. The agent's algorithm (Hybla was the
        // KB's first choice) grows cwnd past the small-cwnd watermarks; the delivery rate
        // cannot grow past the link's, so the BDP estimate stays below 8
        let thin = |cwnd: f64, bdp: f64| Reading {
            brtt: 0.6,
            cwnd,
            bdp: Some(bdp),
            ..quiet()
        };
        let steps = [(4.0, 5.0), (12.0, 6.4), (16.0, 6.6), (16.0, 6.6), (30.0, 7.0)];
        let mut n = npc();
        for (k, &(c, b)) in steps.iter().enumerate() {
            assert_eq!(n.classify(&thin(c, b)), PipeType::LongThin, "step {k}");
        }
        // the same run read from the window: long thin at first, default once cwnd > 9.6
        let mut n = Npc::new(thesis_sizes(), DEFAULT_PRECEDENCE.to_vec());
        let got: Vec<_> = steps.iter().map(|&(c, b)| n.classify(&thin(c, b))).collect();
        assert_eq!(got[0], PipeType::LongThin);
        assert_eq!(got[1..], [PipeType::Default; 4]);
        // and the estimate's own watermarks: off only above 8 × 1.2
        let mut n = npc();
        assert_eq!(n.classify(&thin(4.0, 7.9)), PipeType::LongThin);
        assert_eq!(n.classify(&thin(4.0, 9.5)), PipeType::LongThin);
        assert_eq!(n.classify(&thin(4.0, 9.7)), PipeType::Default);
    }

    /// An LFN's readings: BDP estimate 500, RTT 124 ms, the queue delay and whether a
    /// congestion signal came and the initial slow start ended.
    fn lfn(queue_delay: f64, congested: bool, settled: bool) -> Reading {
        Reading {
            brtt: 0.124,
            cwnd: 500.0,
            bdp: Some(500.0),
            queue_delay,
            congested,
            settled,
            ..quiet()
        }
    }

    #[test]
    fn a_small_queue_is_not_read_before_the_queue_was_probed() {
        // slow start at a window past 100 and no queue yet: not "small queue" (the thesis's
        // reading says so, and the agent switched to CUBIC for a period)
        let mut n = npc();
        assert_eq!(n.classify(&lfn(0.001, false, false)), PipeType::Default);
        let mut t = Npc::new(
            Thresholds {
                lfn_after_slow_start: false,
                ..Thresholds::default()
            },
            DEFAULT_PRECEDENCE.to_vec(),
        );
        assert_eq!(t.classify(&lfn(0.001, false, false)), PipeType::LfnSmallQueue);
        // the buffer overflowed at 4 ms of queue (a loss): small queue, in the recovery too
        assert_eq!(n.classify(&lfn(0.004, true, false)), PipeType::LfnSmallQueue);
        assert_eq!(n.classify(&lfn(0.004, true, true)), PipeType::LfnSmallQueue);
        // a delay-based algorithm's own exit from slow start probes the queue as well
        assert_eq!(npc().classify(&lfn(0.004, false, true)), PipeType::LfnSmallQueue);
    }

    #[test]
    fn a_large_queue_is_read_before_the_first_loss_or_after_the_recovery_not_between() {
        // seen in slow start before any loss: at once (the switch may spare the overshoot)
        assert_eq!(npc().classify(&lfn(0.05, false, false)), PipeType::LfnLargeQueue);
        // first seen after the overshoot's loss: not before slow start has ended
        let mut n = npc();
        assert_eq!(n.classify(&lfn(0.002, false, false)), PipeType::Default);
        assert_eq!(n.classify(&lfn(0.08, true, false)), PipeType::Default);
        assert_eq!(n.classify(&lfn(0.08, true, false)), PipeType::Default);
        assert_eq!(n.classify(&lfn(0.08, true, true)), PipeType::LfnLargeQueue);
        // the thesis's reading: at once, in the recovery
        let mut t = Npc::new(
            Thresholds {
                lfn_after_slow_start: false,
                ..Thresholds::default()
            },
            DEFAULT_PRECEDENCE.to_vec(),
        );
        assert_eq!(t.classify(&lfn(0.08, true, false)), PipeType::LfnLargeQueue);
        // an LFN type decided before the first loss stands through the recovery (no
        // switch back to the default row)
        let mut n = npc();
        assert_eq!(n.classify(&lfn(0.05, false, false)), PipeType::LfnLargeQueue);
        assert_eq!(n.classify(&lfn(0.05, true, false)), PipeType::LfnLargeQueue);
        assert_eq!(n.classify(&lfn(0.05, true, true)), PipeType::LfnLargeQueue);
    }

    #[test]
    fn frequent_spurious_timeouts_stand_for_large_jitter_only_when_asked() {
        // three timeouts in the window, all found spurious, with rttvar back to a tenth of
        // srtt by the classification: the thesis's rule 7 does not fire
        let spikes = Reading {
            brtt: 0.05,
            bdp: Some(20.0),
            timeouts: 3,
            spurious_timeouts: 3,
            jitter: 0.1,
            ..quiet()
        };
        assert_eq!(npc().classify(&spikes), PipeType::Default);
        let on = || {
            Npc::new(
                Thresholds {
                    spurious_timeout_jitter: true,
                    ..Thresholds::default()
                },
                DEFAULT_PRECEDENCE.to_vec(),
            )
        };
        let mut n = on();
        assert_eq!(n.classify(&spikes), PipeType::ReliableWireless);
        // the count keeps its watermarks: two is still frequent, one is not
        let two = Reading {
            timeouts: 2,
            spurious_timeouts: 2,
            ..spikes
        };
        assert_eq!(n.classify(&two), PipeType::ReliableWireless);
        let one = Reading {
            timeouts: 1,
            spurious_timeouts: 1,
            ..spikes
        };
        assert_eq!(n.classify(&one), PipeType::Default);
        // spurious timeouts without frequent timeouts (they are timeouts too, but the
        // window may have pruned them differently): the timeout test still decides
        let few = Reading { timeouts: 0, ..spikes };
        assert_eq!(on().classify(&few), PipeType::Default);
        // off, the setting is not written into the normalised spec (hashes unchanged)
        let json = serde_json::to_value(Thresholds::default()).unwrap();
        assert!(json.get("spurious_timeout_jitter").is_none());
        let json = serde_json::to_value(Thresholds {
            spurious_timeout_jitter: true,
            ..Thresholds::default()
        })
        .unwrap();
        assert_eq!(json["spurious_timeout_jitter"], true);
    }
}
