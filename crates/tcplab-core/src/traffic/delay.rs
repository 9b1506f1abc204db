//! What the receiving end of a measured datagram flow (`transport = "voip"`, or "udp" with
//! `delay_stats = true`) keeps: streaming statistics of the one-way delay (now − the
//! packet's send time) and loss, nothing per packet.
//!
//! - mean and standard deviation by Welford's update (the population deviation: divided by
//!   the number of packets, not one less);
//! - interarrival jitter as RFC 3550 §6.4.1 estimates it: for consecutive arrivals i−1, i,
//!   D = (R_i − R_{i−1}) − (S_i − S_{i−1}) = transit_i − transit_{i−1}, and
//!   J += (|D| − J)/16. The RFC works in RTP timestamp units; here in seconds, in floating
//!   point (the RFC's integer form `J += |D| - ((J + 8) >> 4)` on a scaled J only differs by
//!   rounding). "Consecutive" is in arrival order, as in the RFC's reference code;
//! - loss as RFC 3550 §6.4.1 counts it: packets expected (one more than the highest
//!   sequence number received; the source numbers from 0) minus packets received. Packets
//!   sent after the last one received are not counted lost (at the end of a run they may still be in flight); a
//!   flow that stops before the end of the run has them all accounted for.
use crate::sim::{to_secs, Time};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DelayStats {
    pub received: u64,
    /// Highest sequence number received + 1.
    pub expected: u64,
    mean: f64,
    /// Sum of squared deviations from the mean (Welford).
    m2: f64,
    min: f64,
    max: f64,
    /// RFC 3550 interarrival jitter (seconds).
    jitter: f64,
    /// The previous arrival's transit time (now − send time).
    last_transit: Option<Time>,
}

impl DelayStats {
    /// A datagram numbered `seq` sent at `sent` arrived at `now`.
    pub fn arrival(&mut self, now: Time, sent: Time, seq: u64) {
        let transit = now.saturating_sub(sent);
        let d = to_secs(transit);
        self.received += 1;
        self.expected = self.expected.max(seq + 1);
        let delta = d - self.mean;
        self.mean += delta / self.received as f64;
        self.m2 += delta * (d - self.mean);
        if self.received == 1 {
            (self.min, self.max) = (d, d);
        } else {
            self.min = self.min.min(d);
            self.max = self.max.max(d);
        }
        if let Some(last) = self.last_transit {
            // Differences of integer nanoseconds: exact before the conversion.
            let diff = to_secs(transit.abs_diff(last));
            self.jitter += (diff - self.jitter) / 16.0;
        }
        self.last_transit = Some(transit);
    }

    /// Packets expected but not received (RFC 3550's cumulative number lost).
    pub fn lost(&self) -> u64 {
        self.expected - self.received
    }

    /// Mean one-way delay (seconds; NaN before the first arrival).
    pub fn mean(&self) -> f64 {
        self.nan_if_empty(self.mean)
    }

    /// Standard deviation of the one-way delay (seconds; population form).
    pub fn std(&self) -> f64 {
        self.nan_if_empty((self.m2 / self.received as f64).max(0.0).sqrt())
    }

    pub fn min(&self) -> f64 {
        self.nan_if_empty(self.min)
    }

    pub fn max(&self) -> f64 {
        self.nan_if_empty(self.max)
    }

    /// RFC 3550 interarrival jitter (seconds; NaN before the first arrival, 0 after one).
    pub fn jitter(&self) -> f64 {
        self.nan_if_empty(self.jitter)
    }

    fn nan_if_empty(&self, x: f64) -> f64 {
        if self.received == 0 {
            f64::NAN
        } else {
            x
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// Packets sent every 20 ms; `transits` in ms, arriving in order.
    fn run(transits: &[(u64, u64)]) -> DelayStats {
        let mut s = DelayStats::default();
        for &(seq, t) in transits {
            let sent = seq * 20 * MS;
            s.arrival(sent + t * MS, sent, seq);
        }
        s
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    #[test]
    fn empty_statistics_are_nan_and_nothing_is_lost() {
        let s = DelayStats::default();
        assert!(s.mean().is_nan() && s.std().is_nan() && s.min().is_nan() && s.max().is_nan());
        assert!(s.jitter().is_nan());
        assert_eq!(s.lost(), 0);
    }

    #[test]
    fn constant_delay_has_no_deviation_and_no_jitter() {
        let s = run(&[(0, 30), (1, 30), (2, 30), (3, 30)]);
        close(s.mean(), 0.030);
        close(s.std(), 0.0);
        close(s.min(), 0.030);
        close(s.max(), 0.030);
        close(s.jitter(), 0.0);
    }

    #[test]
    fn delay_moments_and_rfc3550_jitter_by_hand() {
        // Transits 30, 34, 30, 38 ms. Mean 33 ms; deviations -3, 1, -3, 5: squares 9 + 1 +
        // 9 + 25 = 44, / 4 = 11 ms², std = sqrt(11) ms.
        // Jitter: |D| = 4, 4, 8 ms: J = 4/16 = 0.25; J = 0.25 + (4 - 0.25)/16 = 0.484375;
        // J = 0.484375 + (8 - 0.484375)/16 = 0.9541015625 ms.
        let s = run(&[(0, 30), (1, 34), (2, 30), (3, 38)]);
        close(s.mean(), 0.033);
        close(s.std(), 11f64.sqrt() * 1e-3);
        close(s.min(), 0.030);
        close(s.max(), 0.038);
        close(s.jitter(), 0.954_101_562_5e-3);
        assert_eq!((s.received, s.lost()), (4, 0));
    }

    #[test]
    fn loss_counts_the_gaps_below_the_highest_sequence_number() {
        // 0, 2, 3, 6 of 0..=6 arrive: 1, 4, 5 lost; 7 and 8 (sent later, never received)
        // are not counted.
        let s = run(&[(0, 30), (2, 30), (3, 31), (6, 30)]);
        assert_eq!((s.received, s.expected, s.lost()), (4, 7, 3));
        // Jitter only over consecutive arrivals: |D| = 0, 1, 1 ms.
        let j1 = 0.0;
        let j2 = j1 + (1.0 - j1) / 16.0;
        let j3 = j2 + (1.0 - j2) / 16.0;
        close(s.jitter(), j3 * 1e-3);
    }
}
