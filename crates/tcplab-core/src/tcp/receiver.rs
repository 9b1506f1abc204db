use super::{Kind, Tx};
use crate::sim::Time;
use std::collections::VecDeque;

/// The data receiver: in-order delivery, out-of-order buffering, cumulative ACKs,
/// optional delayed ACKs (every `delack_count`-th in-order segment or after a timeout;
/// out-of-order and hole-filling segments are acknowledged at once).
#[derive(Debug, Clone)]
pub struct Receiver {
    /// Next segment expected = segments delivered in order to the application.
    rcv_nxt: u64,
    /// `ooo[k]` is true when segment `rcv_nxt + k` has arrived (k = 0 never holds).
    ooo: VecDeque<bool>,
    delayed_ack: bool,
    delack_count: u32,
    delack_timeout: Time,
    pending: u32,
    pending_ts: Time,
    /// When the delayed-ACK timer must fire, if armed.
    pub delack_deadline: Option<Time>,
    pub duplicates: u64,
    pub arrivals: u64,
}

impl Receiver {
    pub fn new(delayed_ack: bool, delack_count: u32, delack_timeout: Time) -> Receiver {
        Receiver {
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            delayed_ack,
            delack_count: delack_count.max(1),
            delack_timeout,
            pending: 0,
            pending_ts: 0,
            delack_deadline: None,
            duplicates: 0,
            arrivals: 0,
        }
    }

    /// Segments delivered to the application, in order, each exactly once.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    fn ack(&mut self, kind: Kind, ts_echo: Time, now: Time, out: &mut Vec<Tx>) {
        self.pending = 0;
        self.delack_deadline = None;
        out.push(Tx {
            kind,
            seq: self.rcv_nxt,
            ts: now,
            ts_echo,
            retransmission: false,
        });
    }

    pub fn on_syn(&mut self, now: Time, ts: Time, out: &mut Vec<Tx>) {
        self.ack(Kind::SynAck, ts, now, out);
    }

    pub fn on_fin(&mut self, now: Time, ts: Time, out: &mut Vec<Tx>) {
        self.ack(Kind::FinAck, ts, now, out);
    }

    /// A data segment `seq` sent at `ts` arrives.
    pub fn on_data(&mut self, now: Time, seq: u64, ts: Time, out: &mut Vec<Tx>) {
        self.arrivals += 1;
        if seq < self.rcv_nxt {
            self.duplicates += 1;
            self.ack(Kind::Ack, ts, now, out);
            return;
        }
        if seq == self.rcv_nxt && self.ooo.is_empty() {
            // In order with nothing buffered: the common case, without the buffer's work.
            self.rcv_nxt += 1;
            return self.in_order(now, ts, out);
        }
        let k = (seq - self.rcv_nxt) as usize;
        if self.ooo.len() <= k {
            self.ooo.resize(k + 1, false);
        }
        if self.ooo[k] {
            self.duplicates += 1;
            self.ack(Kind::Ack, ts, now, out);
            return;
        }
        self.ooo[k] = true;
        let had_gap = self.ooo.len() > 1;
        while self.ooo.front() == Some(&true) {
            self.ooo.pop_front();
            self.rcv_nxt += 1;
        }
        if k > 0 || had_gap || !self.delayed_ack {
            // Out of order, filling a hole, or no delayed ACKs: acknowledge at once.
            let echo = if self.pending > 0 { self.pending_ts } else { ts };
            self.ack(Kind::Ack, echo, now, out);
            return;
        }
        self.in_order(now, ts, out);
    }

    /// An in-order segment that left no gap: acknowledge it, or delay the ACK.
    #[inline]
    fn in_order(&mut self, now: Time, ts: Time, out: &mut Vec<Tx>) {
        if !self.delayed_ack {
            return self.ack(Kind::Ack, ts, now, out);
        }
        if self.pending == 0 {
            self.pending_ts = ts;
        }
        self.pending += 1;
        if self.pending >= self.delack_count {
            let echo = self.pending_ts;
            self.ack(Kind::Ack, echo, now, out);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now.saturating_add(self.delack_timeout));
        }
    }

    /// The delayed-ACK timer fires.
    pub fn on_delack_timer(&mut self, now: Time, out: &mut Vec<Tx>) {
        self.delack_deadline = None;
        if self.pending > 0 {
            let echo = self.pending_ts;
            self.ack(Kind::Ack, echo, now, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    fn acks(out: &[Tx]) -> Vec<u64> {
        out.iter().map(|t| t.seq).collect()
    }

    #[test]
    fn in_order_and_out_of_order() {
        let mut r = Receiver::new(false, 2, 100);
        let mut out = vec![];
        r.on_data(1, 0, 0, &mut out);
        r.on_data(2, 2, 0, &mut out); // hole at 1
        r.on_data(3, 3, 0, &mut out);
        r.on_data(4, 1, 0, &mut out); // fills the hole
        r.on_data(5, 1, 0, &mut out); // duplicate
        assert_eq!(acks(&out), vec![1, 1, 1, 4, 4]);
        assert_eq!(r.delivered(), 4);
        assert_eq!(r.duplicates, 1);
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timeout() {
        let mut r = Receiver::new(true, 2, 100);
        let mut out = vec![];
        r.on_data(10, 0, 7, &mut out);
        assert!(out.is_empty());
        assert_eq!(r.delack_deadline, Some(110));
        r.on_data(20, 1, 8, &mut out);
        assert_eq!(acks(&out), vec![2]);
        assert_eq!(out[0].ts_echo, 7, "echoes the earliest unacknowledged timestamp");
        assert_eq!(r.delack_deadline, None);
        r.on_data(30, 2, 9, &mut out);
        r.on_delack_timer(130, &mut out);
        assert_eq!(acks(&out), vec![2, 3]);
        // out-of-order: immediate
        r.on_data(140, 5, 10, &mut out);
        assert_eq!(acks(&out), vec![2, 3, 3]);
    }

    #[test]
    fn every_segment_delivered_once_in_order_under_any_arrival_order() {
        let mut rng = Rng::from_seed(42);
        for _ in 0..50 {
            // 200 segments, shuffled, with random duplicates.
            let mut seqs: Vec<u64> = (0..200).collect();
            for _ in 0..40 {
                seqs.push((rng.uniform() * 200.0) as u64);
            }
            for i in (1..seqs.len()).rev() {
                let j = (rng.uniform() * (i + 1) as f64) as usize;
                seqs.swap(i, j);
            }
            let mut r = Receiver::new(rng.bernoulli(0.5), 2, 100);
            let mut out = vec![];
            let mut last = 0;
            for (t, s) in seqs.iter().enumerate() {
                r.on_data(t as u64, *s, 0, &mut out);
                assert!(r.delivered() >= last, "delivery never goes back");
                last = r.delivered();
            }
            assert_eq!(r.delivered(), 200);
            assert_eq!(r.duplicates, 40);
            assert_eq!(r.arrivals, 240);
        }
    }
}
