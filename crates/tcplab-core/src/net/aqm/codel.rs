//! CoDel (RFC 8289): a FIFO that drops (or ECN-marks) at dequeue when the sojourn time of
//! the packets it sends has stayed above `target` for at least `interval`; in its dropping
//! state the next drop comes interval/sqrt(count) after the last one, and it leaves that
//! state as soon as a packet's sojourn is below target (or the queue holds at most one
//! packet's worth of bytes). Written from the RFC's description and pseudocode, with the
//! re-entry rule it takes from Linux (start from the previous cycle's count when the queue
//! comes back within 16 intervals).
use super::Item;
use crate::sim::{Fifo, Time};

/// CoDel's parameters and state.
#[derive(Debug, Clone)]
pub struct Codel {
    pub target: Time,
    pub interval: Time,
    pub ecn: bool,
    /// When the sojourn will have been above target for an interval (0: it is below).
    first_above: Time,
    /// When the next drop is due in the dropping state.
    drop_next: Time,
    /// Drops (and marks) since entering the dropping state.
    pub count: u32,
    lastcount: u32,
    pub dropping: bool,
}

impl Codel {
    pub fn new(target: Time, interval: Time, ecn: bool) -> Codel {
        Codel {
            target,
            interval,
            ecn,
            first_above: 0,
            drop_next: 0,
            count: 0,
            lastcount: 0,
            dropping: false,
        }
    }

    /// The control law: `t + interval / sqrt(count)`.
    pub fn control_law(&self, t: Time, count: u32) -> Time {
        let gap = self.interval as f64 / (count.max(1) as f64).sqrt();
        t.saturating_add(gap.round() as Time)
    }

    /// When the next drop is due (meaningful in the dropping state).
    pub fn drop_next(&self) -> Time {
        self.drop_next
    }
}

/// One CoDel queue: a FIFO of items with their bytes, and CoDel's state.
#[derive(Debug, Clone)]
pub struct CodelQueue {
    items: Fifo<Item>,
    bytes: u64,
    /// The largest packet seen (the RFC's MAXPACKET: with no more than this many bytes
    /// left, CoDel does not drop).
    maxpacket: u32,
    pub st: Codel,
}

impl CodelQueue {
    pub fn new(st: Codel) -> CodelQueue {
        CodelQueue {
            items: Fifo::new(),
            bytes: 0,
            maxpacket: 0,
            st,
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn push(&mut self, it: Item) {
        self.bytes += it.size as u64;
        self.maxpacket = self.maxpacket.max(it.size);
        self.items.push_back(it);
    }

    /// Take the head without CoDel's logic (an overflow drop).
    pub fn pop_head(&mut self) -> Option<Item> {
        let it = self.items.pop_front()?;
        self.bytes -= it.size as u64;
        Some(it)
    }

    /// The RFC's dodequeue: the head, and whether its sojourn has been above target for
    /// an interval.
    fn head(&mut self, now: Time) -> Option<(Item, bool)> {
        let Some(it) = self.pop_head() else {
            self.st.first_above = 0;
            return None;
        };
        let sojourn = now.saturating_sub(it.enq);
        if sojourn < self.st.target || self.bytes <= self.maxpacket as u64 {
            self.st.first_above = 0;
            return Some((it, false));
        }
        if self.st.first_above == 0 {
            self.st.first_above = now.saturating_add(self.st.interval);
            return Some((it, false));
        }
        Some((it, now >= self.st.first_above))
    }

    /// The packet to send at `now`, and whether to mark it CE; the packets CoDel drops on
    /// the way go to `dropped`.
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<Item>) -> Option<(Item, bool)> {
        let mut r = self.head(now);
        let mut mark = false;
        if self.st.dropping {
            if !r.is_some_and(|(_, ok)| ok) {
                self.st.dropping = false;
            }
            while self.st.dropping && now >= self.st.drop_next {
                let (it, _) = r.expect("dropping with a packet");
                self.st.count += 1;
                if self.st.ecn && it.ect {
                    mark = true;
                    self.st.drop_next = self.st.control_law(self.st.drop_next, self.st.count);
                    break;
                }
                dropped.push(it);
                r = self.head(now);
                if r.is_some_and(|(_, ok)| ok) {
                    self.st.drop_next = self.st.control_law(self.st.drop_next, self.st.count);
                } else {
                    self.st.dropping = false;
                }
            }
        } else if let Some((it, true)) = r {
            if self.st.ecn && it.ect {
                mark = true;
            } else {
                dropped.push(it);
                r = self.head(now);
            }
            self.st.dropping = true;
            // Back within 16 intervals of the last dropping state: resume near its rate.
            let delta = self.st.count.wrapping_sub(self.st.lastcount);
            let since = now as i128 - self.st.drop_next as i128;
            self.st.count = if delta > 1 && since < 16 * self.st.interval as i128 {
                delta
            } else {
                1
            };
            self.st.drop_next = self.st.control_law(now, self.st.count);
            self.st.lastcount = self.st.count;
        }
        r.map(|(it, _)| (it, mark))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn item(p: u32, enq: Time, ect: bool) -> Item {
        Item {
            p,
            size: 1000,
            enq,
            ect,
            flow: 0,
        }
    }

    /// A queue whose every packet has waited exactly `sojourn` when it is dequeued at the
    /// scripted times: each dequeue at `t` finds at its head a packet enqueued at
    /// `t - sojourn`, with enough packets behind it that CoDel may drop.
    struct Script {
        q: CodelQueue,
        next: u32,
    }

    impl Script {
        fn new(ecn: bool) -> Script {
            Script {
                q: CodelQueue::new(Codel::new(5 * MS, 100 * MS, ecn)),
                next: 0,
            }
        }

        /// Dequeue at `now` with the head (and all behind it) having waited `sojourn`:
        /// (packets dropped, marked?).
        fn step(&mut self, now: Time, sojourn: Time, ect: bool) -> (usize, bool) {
            while self.q.pop_head().is_some() {}
            for _ in 0..50 {
                self.next += 1;
                self.q.push(item(self.next, now - sojourn, ect));
            }
            let mut dropped = vec![];
            let (_, mark) = self.q.dequeue(now, &mut dropped).expect("a packet");
            (dropped.len(), mark)
        }
    }

    #[test]
    fn enters_the_dropping_state_after_an_interval_above_target() {
        let mut s = Script::new(false);
        let t0 = 1000 * MS;
        // below target: nothing happens
        assert_eq!(s.step(t0, 4 * MS, false), (0, false));
        // above target from t0 + 10 ms: first_above = t0 + 110 ms
        assert_eq!(s.step(t0 + 10 * MS, 6 * MS, false), (0, false));
        assert_eq!(s.step(t0 + 50 * MS, 20 * MS, false), (0, false));
        assert_eq!(s.step(t0 + 109 * MS, 20 * MS, false), (0, false), "not yet an interval");
        assert!(!s.q.st.dropping);
        assert_eq!(
            s.step(t0 + 110 * MS, 20 * MS, false),
            (1, false),
            "an interval: drop one"
        );
        assert!(s.q.st.dropping && s.q.st.count == 1);
        assert_eq!(s.q.st.drop_next(), t0 + 210 * MS, "next drop interval/sqrt(1) later");
        // the following drops come interval/sqrt(count) apart
        let mut t = t0 + 210 * MS;
        for count in 2..=6u32 {
            assert_eq!(s.step(t - MS, 20 * MS, false), (0, false), "before drop_next");
            assert_eq!(s.step(t, 20 * MS, false), (1, false), "at drop_next");
            assert_eq!(s.q.st.count, count);
            let gap = (100.0 * MS as f64 / (count as f64).sqrt()).round() as Time;
            assert_eq!(s.q.st.drop_next(), t + gap);
            t += gap;
        }
        // a sojourn below target ends the dropping state
        assert_eq!(s.step(t, 3 * MS, false), (0, false));
        assert!(!s.q.st.dropping);
    }

    #[test]
    fn re_entering_soon_resumes_the_previous_drop_rate() {
        let mut s = Script::new(false);
        let mut t = 1000 * MS;
        s.step(t, 20 * MS, false);
        t += 100 * MS;
        s.step(t, 20 * MS, false); // drop 1, count 1
        for _ in 0..5 {
            t = s.q.st.drop_next();
            s.step(t, 20 * MS, false);
        }
        assert_eq!(s.q.st.count, 6);
        s.step(t + MS, MS, false); // leaves the dropping state
        assert!(!s.q.st.dropping);
        // above target again at once: an interval later, count = 6 - lastcount(1) = 5
        let t1 = t + 2 * MS;
        s.step(t1, 20 * MS, false);
        assert_eq!(s.step(t1 + 100 * MS, 20 * MS, false), (1, false));
        assert_eq!(s.q.st.count, 5);
        let gap = (100.0 * MS as f64 / 5f64.sqrt()).round() as Time;
        assert_eq!(s.q.st.drop_next(), t1 + 100 * MS + gap);
    }

    #[test]
    fn a_large_backlog_drops_several_at_once_and_ecn_marks_instead() {
        let mut s = Script::new(false);
        let t = 1000 * MS;
        s.step(t, 20 * MS, false);
        s.step(t + 100 * MS, 20 * MS, false);
        // long after drop_next: the loop drops until drop_next passes now
        let (dropped, _) = s.step(t + 400 * MS, 20 * MS, false);
        // drop_next starts at t+200; gaps 70.7, 57.7, 50, 44.7 ms: 200, 270.7, 328.4, 378.4
        // are due by t+400 (the fifth, 423.1, is not)
        assert_eq!(dropped, 4);
        let mut e = Script::new(true);
        e.step(t, 20 * MS, true);
        assert_eq!(e.step(t + 100 * MS, 20 * MS, true), (0, true), "marked, not dropped");
        assert!(e.q.st.dropping);
        assert_eq!(e.step(t + 400 * MS, 20 * MS, true), (0, true), "one mark per dequeue");
        // Not-ECT: dropped, at drop_next 270.7, 328.4 and 378.4 ms
        assert_eq!(e.step(t + 400 * MS, 20 * MS, false), (3, false));
    }

    #[test]
    fn no_drop_with_at_most_one_packet_left() {
        let mut q = CodelQueue::new(Codel::new(5 * MS, 100 * MS, false));
        let mut dropped = vec![];
        for k in 0..20u64 {
            q.push(item(k as u32, 0, false));
            q.push(item(k as u32 + 100, 0, false));
            // two packets, 1 s old: after the dequeue one packet's bytes remain
            let now = 1000 * MS + k * 200 * MS;
            assert!(q.dequeue(now, &mut dropped).is_some());
            assert!(q.dequeue(now, &mut dropped).is_some());
        }
        assert!(dropped.is_empty());
    }
}
