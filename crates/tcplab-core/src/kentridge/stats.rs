//! DC-TCP's passive path statistics (thesis §4.5.3): what the slices of the backplane
//! record about one connection, read by the classifier (`npc.rs`) every period.
//!
//! The sender keeps them in an `Option<Box<Stats>>`: a connection without KentRidge pays
//! one pointer test at the slots on its ACK path and nothing else.
use crate::cc::{CcState, Phase};
use crate::sim::{to_secs, Time};
use std::collections::VecDeque;

/// Weights of the smoothed loss-interval average, newest interval first (RFC 5348 §5.4,
/// TFRC's n = 8): the thesis names a "smoothed average of loss intervals" without a filter.
pub const LOSS_WEIGHTS: [f64; 8] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

/// Fewest segments a delivery-rate sample spans (the cumulative ACK's advance): enough that
/// a delayed or stretch ACK does not make one sample, and few enough that a slow-start
/// burst of 16 segments already holds a sample taken at the bottleneck's pace.
pub const RATE_SAMPLE_SEGMENTS: u64 = 8;

/// A fast retransmission awaiting Eifel's verdict (RFC 3522): the segment, when it was
/// retransmitted, the duplicate ACKs that triggered it, and whether it was counted as
/// corruption.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pending {
    seq: u64,
    at: Time,
    dupacks: u32,
    corruption: bool,
}

/// Time-stamped events of one kind, pruned to the classifier's window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recent(VecDeque<Time>);

impl Recent {
    pub fn push(&mut self, t: Time) {
        self.0.push_back(t);
    }
    /// Forget the events before `from`; the count that remains.
    pub fn count_since(&mut self, from: Time) -> usize {
        while self.0.front().is_some_and(|&t| t < from) {
            self.0.pop_front();
        }
        self.0.len()
    }
    fn pop_last(&mut self) {
        self.0.pop_back();
    }
}

/// The statistics of one connection.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Small queue delay at loss time below which a loss counts as corruption (rule 8), s.
    small_queue: f64,
    /// The latest RTT sample (s; 0 before the first).
    pub last_rtt: f64,
    /// The smallest RTT sample the statistics saw (s; infinity before the first): the
    /// samples themselves, not the backplane's, which are rounded to `tcp.tick`.
    pub brtt: f64,
    /// Queue delay (latest RTT sample − brtt) at the last loss, s.
    pub qd_at_loss: f64,
    /// The largest queue delay seen since the last classification, s.
    pub period_max_qd: f64,
    /// The largest queue delay and cwnd seen since the connection started or the last
    /// explicit notification (a new path): what the size rules (2-6) read. The buffer and
    /// the window a path holds show when they fill; an algorithm that keeps them small,
    /// or a timeout, must not make the path small (docs/kentridge.md, "Classification").
    pub max_qd: f64,
    pub max_cwnd: f64,
    /// The largest cwnd since the last classification, segments.
    pub period_max_cwnd: f64,
    /// The largest delivery rate seen (segments/s; 0 before the first sample), since the
    /// start or the last explicit notification: the cumulative ACK's advance over at least
    /// [`RATE_SAMPLE_SEGMENTS`] segments divided by the time it took. A path cannot deliver
    /// faster than its bottleneck, whatever window the algorithm keeps, so that
    /// `max_rate × brtt` estimates the path's BDP (`bdp()`), where the window overshoots it
    /// in slow start and is what the running algorithm makes of it afterwards.
    pub max_rate: f64,
    /// Where the running rate sample started: time and cumulative ACK.
    rate_mark: Option<(Time, u64)>,
    /// The highest sequence sent when the last loss event was detected: until the
    /// cumulative ACK passes it no sample ends (see `rate_sample`).
    rate_hold: u64,
    /// The connection has left its initial slow start (since the start or the last explicit
    /// notification): a new ACK found it in congestion avoidance (after a loss's recovery or
    /// an algorithm's own exit), or its window reached the receiver's. Until then the queue
    /// has not been probed.
    pub settled: bool,
    /// A congestion signal (a loss event or an ECN-Echo) since the start or the last
    /// explicit notification: the queue has been probed to its limit at least once.
    pub congested: bool,
    /// ACKs received (new and duplicate), since the start and at the last classification.
    pub acks: u64,
    pub acks_mark: u64,
    /// Data segments sent at the last classification (the sender counts them).
    pub sent_mark: u64,
    /// Per past period: its end, data segments sent and ACKs received in it (for the
    /// data/ACK ratio over the classifier's window).
    periods: VecDeque<(Time, u64, u64)>,
    /// Loss events by kind.
    pub fast_retransmits: Recent,
    pub timeouts: Recent,
    /// Timeouts of a back-off series after its first (the timer expired again before any
    /// new ACK): disconnection.
    pub repeated_timeouts: Recent,
    /// Losses with a small queue delay (rule 8).
    pub corruptions: Recent,
    /// Fast retransmissions Eifel found spurious (rule 1), and the duplicate ACKs of the
    /// last one (the reordering depth the thesis names).
    pub spurious: Recent,
    pub reorder_depth: u32,
    /// Explicit notifications (TCP-HO's Bandwidth option, a lower layer's handoff report).
    pub notifications: Recent,
    /// A notification arrived since the last classification: classify at once.
    pub notified: bool,
    /// Closed loss intervals in segments sent, newest first (at most 8), and where the
    /// open one began.
    intervals: VecDeque<u64>,
    interval_start: u64,
    losses: u64,
    pending: Option<Pending>,
    /// The last fast retransmission, and whether it was found spurious already (by Eifel
    /// here or by the sender's D-SACK detection): one verdict per retransmission.
    last_fr: Option<Pending>,
    last_fr_spurious: bool,
    /// Timeouts the sender found spurious (Eifel on the first ACK after the timeout, or
    /// D-SACK): counted apart, not taken back as losses.
    pub spurious_timeouts: Recent,
    pub total_spurious_timeouts: u64,
    /// A timeout happened and no new ACK since: the next expiry repeats it.
    in_series: bool,
    /// Retransmissions sent (the transmit slice).
    pub retransmits: u64,
    /// Totals for the flows table and tests.
    pub total_spurious: u64,
    pub total_corruptions: u64,
}

impl Stats {
    pub fn new(small_queue: f64) -> Stats {
        Stats {
            small_queue,
            brtt: f64::INFINITY,
            ..Stats::default()
        }
    }

    fn queue_delay(&self, _st: &CcState) -> f64 {
        if self.last_rtt > 0.0 && self.brtt.is_finite() {
            (self.last_rtt - self.brtt).max(0.0)
        } else {
            0.0
        }
    }

    // ---- slices -----------------------------------------------------------------------

    /// establish_handler: the connection is open.
    pub fn on_establish(&mut self, st: &CcState) {
        self.period_max_cwnd = st.cwnd;
    }

    /// newack_handler (with element_rttm's sample, if the ACK gave one) and the options
    /// handler's timestamp echo: counts the ACK, tracks queue delay and cwnd, and gives
    /// Eifel's verdict on a pending fast retransmission.
    pub fn on_new_ack(&mut self, ack: u64, rtt: Option<f64>, ts_echo: Option<Time>, st: &CcState) {
        self.acks += 1;
        self.in_series = false;
        if let Some(r) = rtt {
            self.last_rtt = r;
            self.brtt = self.brtt.min(r);
            self.period_max_qd = self.period_max_qd.max(self.queue_delay(st));
            self.max_qd = self.max_qd.max(self.period_max_qd);
        }
        self.period_max_cwnd = self.period_max_cwnd.max(st.cwnd);
        self.max_cwnd = self.max_cwnd.max(self.period_max_cwnd);
        self.rate_sample(ack, st.now);
        if st.phase == Phase::CongestionAvoidance || st.cwnd >= st.rwnd {
            self.settled = true;
        }
        if let Some(p) = self.pending {
            if ack > p.seq {
                self.pending = None;
                // Eifel: the ACK echoes a timestamp older than the retransmission, so the
                // original reached the receiver: the retransmission was not needed.
                if ts_echo.is_some_and(|e| e < p.at) {
                    self.last_fr_spurious = true;
                    self.on_spurious(st.now, p);
                }
            }
        }
    }

    /// dupack_handler: a duplicate ACK.
    pub fn on_dup_ack(&mut self) {
        self.acks += 1;
    }

    /// dupack_handler at the threshold: fast retransmission of `seq` after `dupacks`
    /// duplicate ACKs, a loss event.
    pub fn on_fast_retransmit(&mut self, seq: u64, dupacks: u32, sent: u64, snd_max: u64, st: &CcState) {
        self.rate_hold = self.rate_hold.max(snd_max);
        self.fast_retransmits.push(st.now);
        let corruption = self.loss(sent, st);
        let p = Pending {
            seq,
            at: st.now,
            dupacks,
            corruption,
        };
        self.pending = Some(p);
        self.last_fr = Some(p);
        self.last_fr_spurious = false;
    }

    /// The sender found its fast retransmission of `seq` spurious (a D-SACK reported every
    /// retransmission of it duplicate, or its own Eifel test): the reordering event Eifel
    /// records here, unless that verdict was given already.
    pub fn on_spurious_fast_retransmit(&mut self, now: Time, seq: u64) {
        let Some(p) = self.last_fr.filter(|p| p.seq == seq && !self.last_fr_spurious) else {
            return;
        };
        self.last_fr_spurious = true;
        if self.pending.is_some_and(|q| q.seq == seq) {
            self.pending = None;
        }
        self.on_spurious(now, p);
    }

    /// The sender found a timeout spurious.
    pub fn on_spurious_timeout(&mut self, now: Time) {
        self.spurious_timeouts.push(now);
        self.total_spurious_timeouts += 1;
    }

    /// timeout_handler: the retransmission timer expired; a second expiry before any new
    /// ACK repeats the first (a disconnection, not a new loss event).
    pub fn on_timeout(&mut self, sent: u64, snd_max: u64, st: &CcState) {
        self.pending = None;
        self.rate_hold = self.rate_hold.max(snd_max);
        if !self.in_series {
            self.in_series = true;
            self.timeouts.push(st.now);
            self.loss(sent, st);
        } else {
            self.repeated_timeouts.push(st.now);
        }
    }

    /// pre/post_transmit_handler: a segment is sent again (new data is counted by the
    /// sender's own `segments_sent`, so the per-packet path has no slot). Each
    /// retransmission fills a hole the cumulative ACK may jump over, not only the first of
    /// a recovery (NewReno's retransmissions on partial ACKs, SACK's later holes): the rate
    /// samples wait for the ACK to pass what had been sent by then.
    pub fn on_retransmit(&mut self, snd_max: u64) {
        self.retransmits += 1;
        self.rate_hold = self.rate_hold.max(snd_max);
    }

    /// flags_handler: an ECN-Echo reduced the window (a congestion signal without loss:
    /// not a loss interval).
    pub fn on_ecn(&mut self, st: &CcState) {
        self.congested = true;
        self.period_max_qd = self.period_max_qd.max(self.queue_delay(st));
        self.max_qd = self.max_qd.max(self.period_max_qd);
    }

    /// options_handler / icmp_handler: an explicit notification (handoff completion).
    pub fn on_notification(&mut self, now: Time) {
        self.notifications.push(now);
        self.notified = true;
        // a handoff: the path's size is learnt anew
        self.max_qd = 0.0;
        self.max_cwnd = 0.0;
        self.brtt = f64::INFINITY;
        self.max_rate = 0.0;
        self.rate_mark = None;
        self.settled = false;
        self.congested = false;
    }

    /// disconnect_handler: the connection closed (nothing pending any more).
    pub fn on_disconnect(&mut self) {
        self.pending = None;
    }

    // ---- derived quantities -----------------------------------------------------------

    /// A new cumulative ACK `ack` at `now`: closes the running rate sample once it spans
    /// [`RATE_SAMPLE_SEGMENTS`] and some time (dupacks do not move the cumulative ACK, so a
    /// sample spans the hole of a loss or a reordering, and what is ACKed at once after it
    /// is spread over that time).
    fn rate_sample(&mut self, ack: u64, now: Time) {
        // A retransmission that fills a hole makes the cumulative ACK jump over what the
        // receiver had held since before the loss (after a timeout, go-back-N retransmits
        // segments it has, and one ACK may cover a dozen), which over the time since the
        // ACK before gave rates several times the bottleneck's. Until the ACK passes what
        // was sent when the loss was found, the sample restarts at each ACK.
        if ack <= self.rate_hold {
            self.rate_mark = Some((now, ack));
            return;
        }
        match self.rate_mark {
            Some((t0, a0)) if ack >= a0 + RATE_SAMPLE_SEGMENTS && now > t0 => {
                let rate = (ack - a0) as f64 / to_secs(now - t0);
                self.max_rate = self.max_rate.max(rate);
                self.rate_mark = Some((now, ack));
            }
            Some(_) => {}
            None => self.rate_mark = Some((now, ack)),
        }
    }

    /// The path's bandwidth-delay product estimated from the largest delivery rate and the
    /// smallest RTT seen, segments; `None` before a rate sample and an RTT sample.
    pub fn bdp(&self) -> Option<f64> {
        (self.max_rate > 0.0 && self.brtt.is_finite()).then(|| self.max_rate * self.brtt)
    }

    /// A loss event at `sent` segments sent: closes a loss interval, records the queue
    /// delay and whether it counts as corruption (rule 8).
    fn loss(&mut self, sent: u64, st: &CcState) -> bool {
        let interval = sent.saturating_sub(self.interval_start);
        if self.losses > 0 {
            self.intervals.push_front(interval.max(1));
            self.intervals.truncate(LOSS_WEIGHTS.len());
        }
        self.losses += 1;
        self.congested = true;
        self.interval_start = sent;
        self.qd_at_loss = self.queue_delay(st);
        let corruption = self.qd_at_loss < self.small_queue;
        if corruption {
            self.corruptions.push(st.now);
            self.total_corruptions += 1;
        }
        corruption
    }

    /// Eifel found the fast retransmission `p` spurious: a reordering event; the loss it
    /// counted is taken back (its interval joins the open one, its corruption is undone).
    fn on_spurious(&mut self, now: Time, p: Pending) {
        self.spurious.push(now);
        self.total_spurious += 1;
        self.reorder_depth = p.dupacks;
        if p.corruption {
            self.corruptions.pop_last();
            self.total_corruptions -= 1;
        }
        if self.losses > 1 {
            if let Some(last) = self.intervals.pop_front() {
                self.interval_start = self.interval_start.saturating_sub(last);
            }
        }
        self.losses = self.losses.saturating_sub(1);
    }

    /// Loss event rate from the smoothed loss intervals (RFC 5348 §5.4): 1 / the weighted
    /// mean of the last 8 intervals, the open interval included when it raises the mean;
    /// 0 before two loss events.
    pub fn loss_rate(&self, sent: u64) -> f64 {
        if self.intervals.is_empty() {
            return 0.0;
        }
        let mean = |xs: &mut dyn Iterator<Item = u64>| {
            let (mut s, mut w) = (0.0, 0.0);
            for (x, wt) in xs.zip(LOSS_WEIGHTS) {
                s += x as f64 * wt;
                w += wt;
            }
            s / w
        };
        let closed = mean(&mut self.intervals.iter().copied());
        let open = sent.saturating_sub(self.interval_start);
        let with_open = mean(&mut std::iter::once(open).chain(self.intervals.iter().copied()));
        1.0 / closed.max(with_open)
    }

    /// Available bandwidth ≈ cwnd / srtt (segments per second; 0 before an RTT sample).
    pub fn available_bandwidth(st: &CcState) -> f64 {
        if st.srtt > 0.0 {
            st.cwnd / st.srtt
        } else {
            0.0
        }
    }

    /// Data segments sent per ACK received since the last classification (0 without ACKs).
    pub fn data_ack_ratio(&self, sent: u64) -> f64 {
        let acks = self.acks - self.acks_mark;
        if acks == 0 {
            0.0
        } else {
            (sent - self.sent_mark) as f64 / acks as f64
        }
    }

    /// Data segments sent per ACK received over the periods that ended at or after `from`
    /// and the current one, with the data segments it counts (0 without ACKs).
    pub fn window_ratio(&mut self, sent: u64, from: Time) -> (f64, u64) {
        while self.periods.front().is_some_and(|&(t, _, _)| t < from) {
            self.periods.pop_front();
        }
        let (mut data, mut acks) = (sent - self.sent_mark, self.acks - self.acks_mark);
        for &(_, d, a) in &self.periods {
            data += d;
            acks += a;
        }
        (if acks == 0 { 0.0 } else { data as f64 / acks as f64 }, data)
    }

    /// The classifier took its reading: the per-period maxima and counters restart.
    pub fn new_period(&mut self, sent: u64, st: &CcState) {
        self.periods
            .push_back((st.now, sent - self.sent_mark, self.acks - self.acks_mark));
        self.period_max_qd = 0.0;
        self.period_max_cwnd = st.cwnd;
        self.acks_mark = self.acks;
        self.sent_mark = sent;
        self.notified = false;
    }

    /// The statistics as time-series columns (`flow_ts`, flows with KentRidge only).
    pub fn samples(&self, st: &CcState, sent: u64, out: &mut Vec<(&'static str, f64)>) {
        out.push(("kr_bandwidth", Stats::available_bandwidth(st)));
        out.push(("kr_queue_delay", self.queue_delay(st)));
        out.push(("kr_loss_rate", self.loss_rate(sent)));
        out.push(("kr_spurious", self.total_spurious as f64));
        out.push(("kr_corruptions", self.total_corruptions as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_state;
    use crate::sim::secs;

    fn st_at(t: f64) -> CcState {
        let mut st = test_state(10.0, 100.0);
        st.now = secs(t);
        st
    }

    #[test]
    fn loss_rate_is_one_over_the_weighted_mean_of_the_last_eight_intervals() {
        let mut s = Stats::new(0.003);
        let st = st_at(1.0);
        // losses after 0, 100, 300, 400, 600 segments sent: intervals 100, 200, 100, 200
        for sent in [0, 100, 300, 400, 600] {
            s.on_fast_retransmit(sent, 3, sent, 0, &st);
        }
        assert_eq!(s.loss_rate(600), 1.0 / 150.0);
        // an open interval longer than the mean raises it: (1000 + 200 + 100 + 200) / 4
        // against the closed mean 150 over the four weights 1
        let with_open = (1000.0 + 200.0 + 100.0 + 200.0 + 100.0 * 0.8) / 4.8;
        assert!((s.loss_rate(1600) - 1.0 / with_open).abs() < 1e-15);
        // nine more intervals of 10: only the last eight count, weighted
        for k in 1..=9 {
            s.on_fast_retransmit(0, 3, 600 + 10 * k, 0, &st);
        }
        assert!((s.loss_rate(690) - 0.1).abs() < 1e-12);
        // no loss rate before two loss events
        let mut s = Stats::new(0.003);
        assert_eq!(s.loss_rate(10), 0.0);
        s.on_fast_retransmit(0, 3, 10, 0, &st);
        assert_eq!(s.loss_rate(10), 0.0);
    }

    #[test]
    fn weights_of_older_intervals_fall() {
        let mut s = Stats::new(0.003);
        let st = st_at(1.0);
        // newest first after the pushes: 10 (newest), then seven of 100
        let mut sent = 0;
        s.on_fast_retransmit(0, 3, sent, 0, &st);
        for _ in 0..7 {
            sent += 100;
            s.on_fast_retransmit(0, 3, sent, 0, &st);
        }
        sent += 10;
        s.on_fast_retransmit(0, 3, sent, 0, &st);
        let w: f64 = LOSS_WEIGHTS.iter().sum();
        let mean = (10.0 + 100.0 * (w - 1.0)) / w;
        assert!((s.loss_rate(sent) - 1.0 / mean).abs() < 1e-15);
    }

    #[test]
    fn eifel_detects_a_spurious_fast_retransmit_and_takes_the_loss_back() {
        let mut s = Stats::new(0.003);
        let mut st = st_at(2.0);
        st.min_rtt = 0.1;
        s.on_new_ack(5, Some(0.1), Some(secs(1.9)), &st);
        // fast retransmit of 5 at 2 s, queue delay 0: counted as corruption
        s.on_fast_retransmit(5, 4, 50, 0, &st);
        assert_eq!((s.total_corruptions, s.corruptions.count_since(0)), (1, 1));
        // the ACK covering 5 echoes a time before the retransmission: spurious
        st.now = secs(2.05);
        s.on_new_ack(9, Some(0.15), Some(secs(1.95)), &st);
        assert_eq!((s.total_spurious, s.reorder_depth), (1, 4));
        assert_eq!((s.total_corruptions, s.corruptions.count_since(0)), (0, 0));
        // a real loss: the ACK echoes the retransmission's own time
        st.now = secs(3.0);
        s.on_fast_retransmit(20, 3, 80, 0, &st);
        st.now = secs(3.1);
        s.on_new_ack(25, Some(0.1), Some(secs(3.0)), &st);
        assert_eq!(s.total_spurious, 1);
        // without timestamps there is no verdict
        st.now = secs(4.0);
        s.on_fast_retransmit(30, 3, 90, 0, &st);
        s.on_new_ack(31, None, None, &st);
        assert_eq!(s.total_spurious, 1);
    }

    #[test]
    fn loss_with_a_queue_is_congestion_and_repeated_timeouts_are_counted_apart() {
        let mut s = Stats::new(0.003);
        let st = st_at(1.0);
        s.on_new_ack(1, Some(0.1), None, &st);
        s.on_new_ack(1, Some(0.15), None, &st);
        assert_eq!(s.brtt, 0.1);
        assert!((s.period_max_qd - 0.05).abs() < 1e-12);
        s.on_timeout(10, 0, &st);
        assert_eq!((s.timeouts.count_since(0), s.total_corruptions), (1, 0));
        s.on_timeout(10, 0, &st);
        s.on_timeout(10, 0, &st);
        assert_eq!((s.timeouts.count_since(0), s.repeated_timeouts.count_since(0)), (1, 2));
        assert_eq!(s.repeated_timeouts.count_since(secs(1.5)), 0);
        // a new ACK ends the series: the next expiry is a new loss event
        s.on_new_ack(2, None, None, &st);
        s.on_timeout(20, 0, &st);
        assert_eq!(s.timeouts.count_since(0), 2);
    }

    #[test]
    fn data_ack_ratio_counts_the_period() {
        let mut s = Stats::new(0.003);
        let st = st_at(1.0);
        for _ in 0..10 {
            s.on_new_ack(1, None, None, &st);
        }
        assert_eq!(s.data_ack_ratio(50), 5.0);
        s.new_period(50, &st);
        assert_eq!(s.data_ack_ratio(60), 0.0);
        s.on_dup_ack();
        assert_eq!(s.data_ack_ratio(60), 10.0);
        // over a window: the periods that ended within it and the current one
        let mut s = Stats::new(0.003);
        let mut st = st_at(1.0);
        for _ in 0..10 {
            s.on_dup_ack();
        }
        s.new_period(20, &st); // period to 1 s: 20 data, 10 ACKs
        st.now = secs(2.0);
        for _ in 0..10 {
            s.on_dup_ack();
        }
        s.new_period(100, &st); // period to 2 s: 80 data, 10 ACKs
        s.on_dup_ack();
        assert_eq!(s.window_ratio(110, secs(0.5)), (110.0 / 21.0, 110));
        assert_eq!(s.window_ratio(110, secs(1.5)), (90.0 / 11.0, 90));
    }

    #[test]
    fn no_rate_sample_ends_before_the_ack_passes_what_was_sent_at_the_loss() {
        let mut s = Stats::new(0.003);
        let mut st = st_at(1.0);
        st.phase = Phase::CongestionAvoidance;
        // 2000 segments/s: 2 segments per ms up to ACK 100
        for k in 0..=50u64 {
            st.now = secs(1.0) + k * 1_000_000;
            s.on_new_ack(2 * k, Some(0.1), None, &st);
        }
        assert!((s.max_rate - 2000.0).abs() < 1e-9);
        // a timeout with 300 segments sent; go-back-N: ACKs that jump 20 segments 1 ms
        // apart over segments the receiver held (20 000 segments/s) are no samples
        s.on_timeout(600, 300, &st);
        for k in 1..=10u64 {
            st.now += 1_000_000;
            s.on_new_ack(100 + 20 * k, Some(0.1), None, &st);
        }
        assert!((s.max_rate - 2000.0).abs() < 1e-9, "{}", s.max_rate);
        // past 300, the samples count again, from the last held ACK
        for k in 1..=10u64 {
            st.now += 1_000_000;
            s.on_new_ack(300 + k, Some(0.1), None, &st);
        }
        assert!((s.max_rate - 2000.0).abs() < 1e-9);
        st.now += 1_000_000;
        s.on_new_ack(330, Some(0.1), None, &st);
        assert!(s.max_rate > 2000.0);
        // a fast retransmission holds likewise, up to its own send point
        let before = s.max_rate;
        s.on_fast_retransmit(330, 3, 700, 500, &st);
        st.now += 1_000_000;
        s.on_new_ack(450, Some(0.1), None, &st);
        assert_eq!(s.max_rate, before);
    }

    #[test]
    fn the_bdp_estimate_is_the_largest_delivery_rate_times_brtt() {
        let mut s = Stats::new(0.003);
        let mut st = st_at(1.0);
        st.phase = Phase::SlowStart;
        assert_eq!(s.bdp(), None);
        // a slow-start burst through a 2000 segment/s bottleneck: an ACK for 2 segments
        // every ms, RTT 0.1 s; the first sample closes after 8 segments
        let mut ack = 0;
        for k in 0..40u64 {
            st.now = secs(1.0) + k * 1_000_000;
            s.on_new_ack(ack, Some(0.1), None, &st);
            ack += 2;
        }
        assert!((s.max_rate - 2000.0).abs() < 1e-9, "{}", s.max_rate);
        assert!((s.bdp().unwrap() - 200.0).abs() < 1e-9);
        // an idle gap and a hole: the cumulative ACK that jumps 40 segments after 50 ms
        // is spread over the 50 ms (800 segments/s), not counted as a burst
        st.now += 50_000_000;
        s.on_new_ack(ack + 40, Some(0.1), None, &st);
        assert!((s.max_rate - 2000.0).abs() < 1e-9);
        // slow start has not ended yet: settled only in congestion avoidance
        assert!(!s.settled && !s.congested);
        st.phase = Phase::CongestionAvoidance;
        s.on_new_ack(ack + 41, Some(0.1), None, &st);
        assert!(s.settled);
        // a loss is a congestion signal; a handoff starts the path afresh
        s.on_fast_retransmit(ack, 3, 500, 0, &st);
        assert!(s.congested);
        s.on_notification(st.now);
        assert_eq!((s.bdp(), s.settled, s.congested), (None, false, false));
        // a window that reaches the receiver's ends slow start too
        let mut s = Stats::new(0.003);
        st.phase = Phase::SlowStart;
        st.rwnd = 10.0;
        st.cwnd = 10.0;
        s.on_new_ack(1, Some(0.1), None, &st);
        assert!(s.settled);
    }
}
