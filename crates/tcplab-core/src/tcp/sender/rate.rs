//! Delivery-rate sampling (draft-cheng-iccrg-delivery-rate-estimation, as Linux 4.9's
//! tcp_rate.c does it), for algorithms that ask for it (`wants_rate_samples`): each
//! transmission records the connection's delivered count, the time of the last delivery
//! and the send time of the last delivered segment; each ACK gives a sample from the most
//! recently sent segment it delivers: rate = delivered / max(send interval, ACK interval).
//!
//! Counted in segments. Without SACK, a duplicate ACK counts one segment delivered and the
//! cumulative ACK that follows counts what was acknowledged beyond those, at least one (as
//! Linux's Reno emulation does). The application is "limited" when it has nothing more to
//! send while the window has room: segments sent until the data then outstanding is
//! delivered are marked, and their samples may understate the path.
//!
//! Losses (Linux's `tp->lost` and `rs->losses`): the sender marks segments lost where its
//! loss detection finds them (the SACK scoreboard's IsLost boundary and its lost
//! retransmissions, NewReno's fast retransmit and partial ACKs, a timeout's whole window);
//! each transmission of a segment counts once. A sample reports the segments marked since
//! the previous sample, so marks made after an ACK's sample (a fast retransmit decided by
//! that ACK) come with the next one.
use super::Sender;
use crate::cc::RateSample;
use crate::sim::{to_secs, Time};
use crate::tcp::SackBlocks;
use std::collections::VecDeque;

/// What a transmission of a segment recorded.
#[derive(Debug, Clone, Copy, Default)]
struct TxInfo {
    sent: Time,
    /// The send time of the most recently delivered segment when this one was sent.
    first_sent: Time,
    /// The connection's delivered count and the time it last grew, when sent.
    delivered: u64,
    delivered_time: Time,
    app_limited: bool,
    retransmitted: bool,
    /// Recorded and not yet delivered.
    live: bool,
    /// Delivered (SACKed) already: a retransmission of it (go-back-N after a timeout)
    /// delivers nothing new and is not recorded again.
    done: bool,
    /// This transmission was marked lost.
    lost: bool,
}

#[derive(Debug, Clone, Default)]
pub struct RateSampler {
    /// Segments delivered so far, and when the count last grew.
    delivered: u64,
    delivered_time: Time,
    /// Send time of the most recently delivered segment (the start of a send phase).
    first_sent_time: Time,
    /// 0, or the delivered count up to which the application limits the samples.
    app_limited: u64,
    /// Per segment `base`, `base + 1`, ... up to the highest one sent.
    segs: VecDeque<TxInfo>,
    base: u64,
    /// Segments delivered (SACKed, or counted by duplicate ACKs) above the cumulative ACK.
    sacked_out: u64,
    /// This ACK's newly delivered segments so far, and the one giving the sample.
    pending: u64,
    best: Option<TxInfo>,
    /// The latest send time of a newly delivered segment that was not retransmitted.
    newest_sent: Option<Time>,
    /// Segments marked lost so far, and how many of them samples reported.
    lost: u64,
    lost_reported: u64,
    /// Segments below this were looked at against the SACK scoreboard's lost boundary.
    lost_scan: u64,
}

impl RateSampler {
    /// Segment `seq` leaves; `outstanding` segments are sent and not cumulatively ACKed.
    pub fn sent(&mut self, seq: u64, now: Time, outstanding: u64, retransmission: bool) {
        if outstanding == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        if seq < self.base {
            return;
        }
        let k = (seq - self.base) as usize;
        if self.segs.len() <= k {
            self.segs.resize(k + 1, TxInfo::default());
        }
        if self.segs[k].done {
            return;
        }
        self.segs[k] = TxInfo {
            sent: now,
            first_sent: self.first_sent_time,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            app_limited: self.app_limited != 0,
            retransmitted: retransmission,
            live: true,
            done: false,
            lost: false,
        };
    }

    /// Segment `seq`'s latest transmission is lost, if it is neither delivered nor marked.
    pub fn mark_lost(&mut self, seq: u64) {
        if let Some(i) = seq.checked_sub(self.base).and_then(|k| self.segs.get_mut(k as usize)) {
            if i.live && !i.lost {
                i.lost = true;
                self.lost += 1;
            }
        }
    }

    /// With SACK: the segments below the scoreboard's lost boundary (RFC 6675 IsLost: the
    /// `dupthresh`-th highest SACKed segment) that are not SACKed are lost. Each segment is
    /// looked at once; a retransmission found lost again comes through `lost_again`.
    pub fn lost_below(&mut self, boundary: u64) {
        let from = self.lost_scan.max(self.base);
        for seq in from..boundary {
            self.mark_lost(seq);
        }
        self.lost_scan = self.lost_scan.max(boundary);
    }

    /// Retransmissions the scoreboard found lost (each counts once more, as Linux counts a
    /// lost retransmission).
    pub fn lost_again(&mut self, n: u64) {
        self.lost += n;
    }

    /// A retransmission timeout: every segment sent and not delivered is lost. Returns the
    /// connection's delivered and lost counts; the marks are reported now (to the
    /// algorithm, by the caller), not with the next sample.
    pub fn timeout(&mut self, snd_max: u64) -> (u64, u64) {
        for seq in self.base..snd_max {
            self.mark_lost(seq);
        }
        self.lost_reported = self.lost;
        (self.delivered, self.lost)
    }

    /// The application limit is in force (`app_limited` was called and the data then
    /// outstanding is not all delivered beyond it): Linux's `tp->app_limited`.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// The application has nothing more to send while the window has room.
    pub fn app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    fn deliver(&mut self, seq: u64) {
        let Some(info) = seq.checked_sub(self.base).and_then(|k| self.segs.get_mut(k as usize)) else {
            return;
        };
        if !info.live {
            return;
        }
        info.live = false;
        info.done = true;
        let info = *info;
        self.pending += 1;
        if !info.retransmitted {
            self.newest_sent = Some(self.newest_sent.map_or(info.sent, |t| t.max(info.sent)));
        }
        // The most recently sent segment by delivered count; the first of equals wins.
        if self.best.is_none_or(|b| info.delivered > b.delivered) {
            self.best = Some(info);
            self.first_sent_time = info.sent;
        }
    }

    /// Segments the receiver SACKed.
    pub fn sacked(&mut self, blocks: &SackBlocks, snd_max: u64) {
        for (start, end) in blocks.iter() {
            for seq in start.max(self.base)..end.min(snd_max) {
                if self.segs.get((seq - self.base) as usize).is_some_and(|i| i.live) {
                    self.deliver(seq);
                    self.sacked_out += 1;
                }
            }
        }
    }

    /// An ACK arrives: the cumulative ACK moves from `una` to `ack` (equal for a duplicate
    /// ACK), `outstanding` = segments sent and not cumulatively ACKed before it.
    pub fn on_ack(&mut self, now: Time, una: u64, ack: u64, outstanding: u64, sack: bool, min_rtt: f64) -> RateSample {
        // `pending` holds the segments this ACK's SACK blocks delivered already.
        let prior_in_flight = outstanding.saturating_sub(self.sacked_out - self.pending);
        let mut cum_sacked = 0;
        for seq in una.max(self.base)..ack {
            let was_sacked = self.segs.get((seq - self.base) as usize).is_some_and(|i| i.done);
            cum_sacked += u64::from(was_sacked);
            self.deliver(seq);
        }
        while self.base < ack {
            self.segs.pop_front();
            self.base += 1;
        }
        let acked = ack - una;
        let newly;
        if sack {
            newly = self.pending;
            self.sacked_out = self.sacked_out.saturating_sub(cum_sacked.min(acked));
        } else if acked == 0 {
            // Reno emulation: a duplicate ACK reports one segment delivered.
            newly = u64::from(self.sacked_out + 1 < outstanding);
            self.sacked_out += newly;
        } else {
            newly = acked.saturating_sub(self.sacked_out).max(1);
            self.sacked_out = self.sacked_out.saturating_sub(acked - 1);
        }
        self.pending = 0;
        self.delivered += newly;
        if newly > 0 {
            self.delivered_time = now;
        }
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let in_flight = (outstanding - acked).saturating_sub(self.sacked_out);
        let mut rs = RateSample {
            total_delivered: self.delivered,
            prior_in_flight,
            in_flight,
            newly_delivered: newly,
            rtt: self.newest_sent.take().map(|t| to_secs(now - t)),
            losses: self.lost - self.lost_reported,
            total_lost: self.lost,
            delivered_time: self.delivered_time,
            ..RateSample::default()
        };
        self.lost_reported = self.lost;
        if let Some(p) = self.best.take() {
            rs.prior_delivered = p.delivered;
            rs.is_app_limited = p.app_limited;
            rs.delivered = self.delivered - p.delivered;
            let send = to_secs(p.sent - p.first_sent);
            let ack_interval = to_secs(now - p.delivered_time);
            let interval = send.max(ack_interval);
            // A shorter interval than the minimum RTT means a misattributed delivery
            // (e.g. a spurious retransmission ACKed): no sample.
            if interval > 0.0 && interval >= min_rtt.min(f64::MAX) * (1.0 - 1e-9) {
                rs.interval = interval;
                rs.delivery_rate = rs.delivered as f64 / interval;
            }
        }
        rs
    }
}

impl Sender {
    /// The rate sample of an ACK that moves the cumulative ACK to `ack` (before `snd_una`
    /// moves, after the scoreboard took the ACK), if the algorithm asks for rate samples.
    pub(super) fn rate_sample(&mut self, now: Time, ack: u64) -> Option<RateSample> {
        let (una, outstanding, sack) = (self.snd_una, self.snd_max - self.snd_una, self.cfg.sack);
        let min_rtt = self.st.min_rtt;
        let r = self.rate.as_deref_mut()?;
        let mut rs = r.on_ack(now, una, ack, outstanding, sack, min_rtt);
        if let Some(sb) = self.scoreboard.as_deref() {
            // With SACK, what is in flight leaves out the lost segments too: RFC 6675's
            // pipe, as the kernel's packets_in_flight.
            rs.in_flight = sb.pipe(self.snd_max, self.cfg.dupthresh);
        }
        Some(rs)
    }

    /// After the scoreboard took an ACK's SACK blocks: its lost segments and lost
    /// retransmissions, for the rate sample's loss count.
    pub(super) fn rate_sack_losses(&mut self, lost_retransmissions: u64) {
        let (Some(r), Some(sb)) = (self.rate.as_deref_mut(), self.scoreboard.as_deref()) else {
            return;
        };
        if let Some(b) = sb.lost_boundary() {
            r.lost_below(b);
        }
        r.lost_again(lost_retransmissions);
    }

    /// The segment at the cumulative ACK is retransmitted as lost (NewReno's fast
    /// retransmit and partial ACKs; Linux marks the head lost there).
    pub(super) fn rate_head_lost(&mut self) {
        if let Some(r) = self.rate.as_deref_mut() {
            r.mark_lost(self.snd_una);
        }
    }

    /// A retransmission timeout marks everything outstanding lost; the algorithm learns the
    /// counts before its response to the timeout.
    pub(super) fn rate_timeout_losses(&mut self) {
        if let Some(r) = self.rate.as_deref_mut() {
            let (delivered, lost) = r.timeout(self.snd_max);
            self.cc.on_losses_marked(delivered, lost);
        }
    }

    /// The connection restarts from idle: nothing in flight, the application limited the
    /// last sending, and new data is about to leave (Linux's CA_EVENT_TX_START with
    /// `tp->app_limited`).
    pub(super) fn restarts_from_idle(&self) -> bool {
        self.snd_una == self.snd_max
            && self.snd_nxt < self.limit()
            && self.rate.as_ref().is_some_and(|r| r.is_app_limited())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::secs;

    fn ms(t: f64) -> Time {
        secs(t / 1000.0)
    }

    #[test]
    fn rate_is_delivered_over_the_longer_of_the_send_and_ack_intervals() {
        let mut r = RateSampler::default();
        // 0..4 leave at 0, 1, 2, 3 ms (nothing in flight at the first one).
        for s in 0..4 {
            r.sent(s, ms(s as f64), s, false);
        }
        // ACK of 0 at 100 ms: P = seg 0 (delivered 0 at send, delivered_time 0, first_sent 0):
        // send interval 0, ACK interval 100 ms -> 1 / 0.1 = 10 segments/s.
        let a = r.on_ack(ms(100.0), 0, 1, 4, false, 0.1);
        assert_eq!((a.delivered, a.total_delivered, a.newly_delivered), (1, 1, 1));
        assert!((a.interval - 0.1).abs() < 1e-12, "{}", a.interval);
        assert!((a.delivery_rate - 10.0).abs() < 1e-9);
        assert!((a.rtt.unwrap() - 0.1).abs() < 1e-12);
        assert_eq!((a.prior_in_flight, a.in_flight), (4, 3));
        // seg 4 leaves at 100 ms (delivered 1, delivered_time 100, first_sent 0 = seg 0's).
        r.sent(4, ms(100.0), 3, false);
        // ACK of 1..3 at 103 ms: P = seg 1 (delivered 0 at send): 3 delivered since, send
        // interval 1 ms, ACK interval 103 ms -> 3 / 0.103.
        let a = r.on_ack(ms(103.0), 1, 3, 4, false, 0.1);
        assert_eq!(a.delivered, 3);
        assert!((a.interval - 0.103).abs() < 1e-12);
        assert!((a.delivery_rate - 3.0 / 0.103).abs() < 1e-9);
        // ACK of 3, 4 at 200 ms: P = seg 4 (delivered 1 at send, delivered_time 100 ms,
        // first_sent 0 = seg 0's send time, the latest delivered when it left): send
        // interval 100 - 0 ms, ACK interval 200 - 100 ms, 5 - 1 delivered: 4 / 0.1 = 40.
        let a = r.on_ack(ms(200.0), 3, 5, 2, false, 0.1);
        assert_eq!((a.delivered, a.prior_delivered, a.total_delivered), (4, 1, 5));
        assert!((a.interval - 0.1).abs() < 1e-12, "{}", a.interval);
        assert!((a.delivery_rate - 40.0).abs() < 1e-9);
        assert!((a.rtt.unwrap() - 0.1).abs() < 1e-12, "newest delivered: seg 4");
    }

    #[test]
    fn the_send_interval_counts_when_it_is_longer_and_short_intervals_give_no_rate() {
        let mut r = RateSampler::default();
        r.sent(0, ms(0.0), 0, false);
        let a = r.on_ack(ms(50.0), 0, 1, 1, false, 0.05);
        assert!((a.delivery_rate - 20.0).abs() < 1e-9);
        // seg 1 at 50 ms with nothing in flight (first_sent = delivered_time = 50 ms), seg 2
        // at 90 ms; the ACK of seg 1 at 100 ms: send interval 0, ACK interval 50 ms: 20/s.
        r.sent(1, ms(50.0), 0, false);
        r.sent(2, ms(90.0), 1, false);
        let a = r.on_ack(ms(100.0), 1, 2, 2, false, 0.05);
        assert_eq!(a.delivered, 1);
        assert!((a.delivery_rate - 20.0).abs() < 1e-9, "{}", a.delivery_rate);
        // seg 3 at 180 ms (first_sent = seg 1's 50 ms, delivered 2 at 100 ms); segs 2 and 3
        // ACKed at 190 ms: P = seg 3 (the higher delivered count at send): send interval
        // 180 - 50 = 130 ms > ACK interval 190 - 100 = 90 ms; 4 - 2 delivered: 2 / 0.13.
        r.sent(3, ms(180.0), 1, false);
        let a = r.on_ack(ms(190.0), 2, 4, 2, false, 0.05);
        assert_eq!((a.delivered, a.prior_delivered), (2, 2));
        assert!((a.interval - 0.13).abs() < 1e-12, "{}", a.interval);
        assert!((a.delivery_rate - 2.0 / 0.13).abs() < 1e-9);
        // An interval below the minimum RTT gives no rate.
        r.sent(4, ms(190.0), 0, false);
        let a = r.on_ack(ms(200.0), 4, 5, 1, false, 0.05);
        assert!(!a.valid() && a.delivery_rate == 0.0);
        assert_eq!(a.total_delivered, 5);
    }

    #[test]
    fn duplicate_acks_and_sacks_count_deliveries_once() {
        let mut r = RateSampler::default();
        for s in 0..5 {
            r.sent(s, ms(0.0), s, false);
        }
        // Without SACK: two duplicate ACKs count 2, the ACK of 0..5 counts the other 3.
        let a = r.on_ack(ms(10.0), 0, 0, 5, false, 0.0);
        assert_eq!((a.newly_delivered, a.total_delivered, a.valid()), (1, 1, false));
        r.on_ack(ms(11.0), 0, 0, 5, false, 0.0);
        let a = r.on_ack(ms(12.0), 0, 5, 5, false, 0.0);
        assert_eq!((a.newly_delivered, a.total_delivered, a.prior_in_flight), (3, 5, 3));
        // With SACK: 6..8 SACKed, then the ACK of 5..9 delivers 5 and 8 only.
        for s in 5..9 {
            r.sent(s, ms(20.0), s - 5, false);
        }
        let mut b = SackBlocks::default();
        b.blocks[0] = (6, 8);
        b.n = 1;
        r.sacked(&b, 9);
        let a = r.on_ack(ms(30.0), 5, 5, 4, true, 0.0);
        assert_eq!((a.newly_delivered, a.total_delivered), (2, 7));
        assert_eq!((a.prior_in_flight, a.in_flight), (4, 2));
        // Go-back-N after a timeout sends 5..9 again: the SACKed 6 and 7 stay delivered.
        for s in 5..9 {
            r.sent(s, ms(30.5), 4, true);
        }
        let a = r.on_ack(ms(31.0), 5, 9, 4, true, 0.0);
        assert_eq!((a.newly_delivered, a.total_delivered, a.prior_in_flight), (2, 9, 2));
        assert_eq!(a.in_flight, 0);
    }

    #[test]
    fn app_limited_marks_last_until_the_outstanding_data_is_delivered() {
        let mut r = RateSampler::default();
        r.sent(0, ms(0.0), 0, false);
        r.app_limited(1);
        r.sent(1, ms(1.0), 1, false);
        let a = r.on_ack(ms(50.0), 0, 1, 2, false, 0.0);
        assert!(!a.is_app_limited, "sent before the mark");
        r.sent(2, ms(50.0), 1, false);
        let a = r.on_ack(ms(51.0), 1, 2, 2, false, 0.0);
        assert!(a.is_app_limited);
        // delivered 2 > mark 1: the mark is gone; seg 2 was sent while it held, seg 3 not.
        r.sent(3, ms(51.0), 1, false);
        assert!(r.on_ack(ms(100.0), 2, 3, 2, false, 0.0).is_app_limited);
        assert!(!r.on_ack(ms(101.0), 3, 4, 1, false, 0.0).is_app_limited);
    }

    #[test]
    fn losses_count_each_transmission_once_and_samples_report_them_once() {
        let mut r = RateSampler::default();
        for s in 0..8 {
            r.sent(s, ms(0.0), s, false);
        }
        // 3..6 SACKed: with dupthresh 3 the boundary is 3, so 0, 1, 2 are lost
        let mut b = SackBlocks::default();
        b.blocks[0] = (3, 6);
        b.n = 1;
        r.sacked(&b, 8);
        r.lost_below(3);
        let a = r.on_ack(ms(10.0), 0, 0, 8, true, 0.0);
        assert_eq!((a.losses, a.total_lost), (3, 3));
        // nothing new: no losses reported again; a mark of a marked segment counts nothing
        r.lost_below(3);
        r.mark_lost(1);
        let a = r.on_ack(ms(11.0), 0, 0, 8, true, 0.0);
        assert_eq!((a.losses, a.total_lost), (0, 3));
        // 1 is retransmitted and found lost again (by the scoreboard's count): one more;
        // the SACKed 4 and the delivered-nothing 9 are not segments that can be lost
        r.sent(1, ms(12.0), 8, true);
        r.lost_again(1);
        r.mark_lost(4);
        r.mark_lost(9);
        let a = r.on_ack(ms(13.0), 0, 0, 8, true, 0.0);
        assert_eq!((a.losses, a.total_lost), (1, 4));
        // a timeout: every outstanding segment not delivered and not yet marked since its
        // last transmission: 1 (retransmitted at 12 ms), 6, 7; reported with the counts at
        // once, not by the next sample
        assert_eq!(r.timeout(8), (3, 7));
        r.sent(0, ms(20.0), 8, true);
        let a = r.on_ack(ms(30.0), 0, 1, 8, true, 0.0);
        assert_eq!((a.losses, a.total_lost, a.delivered_time), (0, 7, ms(30.0)));
        // without SACK the sender marks the head at a fast retransmit
        r.sent(8, ms(31.0), 7, false);
        r.mark_lost(8);
        assert_eq!(r.on_ack(ms(32.0), 1, 1, 7, true, 0.0).losses, 1);
    }

    /// An algorithm that only counts the sender's idle-restart calls.
    struct Restarts(std::sync::Arc<std::sync::atomic::AtomicU32>);

    impl crate::cc::CongestionControl for Restarts {
        fn name(&self) -> &'static str {
            "restarts"
        }
        fn wants_rate_samples(&self) -> bool {
            true
        }
        fn on_idle_restart(&mut self, st: &mut crate::cc::CcState) {
            assert_eq!(st.flight, 0);
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    #[test]
    fn the_sender_restarts_from_idle_when_an_app_limited_connection_gets_new_data() {
        use crate::scenario::TcpSpec;
        use crate::tcp::sender::SenderConfig;
        use crate::tcp::Kind;
        use std::sync::atomic::Ordering::Relaxed;
        let make = |w: f64| {
            let tcp = TcpSpec {
                init_cwnd: w,
                init_ssthresh: 1e9,
                tick: 0.0,
                ..TcpSpec::default()
            };
            let n = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
            let cfg = SenderConfig::from_spec(&tcp, None);
            (Sender::new(cfg, &tcp, Box::new(Restarts(n.clone()))), n)
        };
        // a bulk transfer whose window is all acknowledged (cwnd 1) sends on: no restart
        let (mut s, n) = make(1.0);
        let mut out = vec![];
        s.start(0, &mut out);
        s.on_ack(ms(40.0), Kind::Ack, 1, 0, &mut out);
        assert_eq!((out.len(), n.load(Relaxed)), (3, 0));
        // the application offers 2 segments (window 4): they leave, are acknowledged, the
        // connection is idle; nothing to send is no restart either
        let (mut s, n) = make(4.0);
        s.app_limit = Some(2);
        let mut out = vec![];
        s.start(0, &mut out);
        s.on_ack(ms(40.0), Kind::Ack, 2, 0, &mut out);
        assert_eq!((out.len(), s.snd_una, n.load(Relaxed)), (2, 2, 0));
        // it offers 3 more at 1 s: one restart, then the window is not empty any more
        s.app_limit = Some(5);
        s.try_send(ms(1000.0), &mut out);
        s.try_send(ms(1000.0), &mut out);
        assert_eq!((out.len(), n.load(Relaxed)), (5, 1));
    }

    #[test]
    fn only_algorithms_that_ask_get_a_sampler() {
        use crate::scenario::TcpSpec;
        use crate::tcp::sender::SenderConfig;
        use crate::tcp::Kind;
        let make = |cc: &str| {
            let tcp = TcpSpec {
                init_cwnd: 4.0,
                tick: 0.0,
                ..TcpSpec::default()
            };
            let cfg = SenderConfig::from_spec(&tcp, None);
            Sender::new(cfg, &tcp, crate::cc::create(cc, &crate::cc::Params::new()).unwrap())
        };
        for cc in ["newreno", "cubic", "fast", "veno"] {
            assert!(make(cc).rate.is_none(), "{cc}");
        }
        let mut s = make("bbr");
        let mut out = vec![];
        s.start(0, &mut out);
        // BBR paces (at 2.885 · 4 / 1 ms): the rest of the first window at the pacer's events
        while let Some(t) = s.pace_event_due() {
            s.on_pace_event(t, &mut out);
        }
        assert_eq!(out.len(), 4);
        s.on_ack(ms(40.0), Kind::Ack, 2, 0, &mut out);
        s.on_ack(ms(41.0), Kind::Ack, 2, 0, &mut out);
        let r = s.rate.as_deref().unwrap();
        assert_eq!((r.delivered, r.sacked_out, r.base), (3, 1, 2));
        // switching a running connection to BBR starts the sampler there
        let mut s = make("newreno");
        s.start(0, &mut out);
        s.switch_cc(
            ms(1.0),
            crate::cc::create("bbr", &crate::cc::Params::new()).unwrap(),
            &mut out,
        );
        assert!(s.rate.is_some());
    }
}
