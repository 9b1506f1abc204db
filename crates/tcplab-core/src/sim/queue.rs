use super::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An event and its place in the order.
struct Entry<E> {
    key: Key,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // BinaryHeap is a max-heap: invert so the earliest (time, seq) pops first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// A place in the event order: time in the high 64 bits, insertion sequence in the low ones,
/// so that one integer comparison orders by time and then FIFO; see [`EventQueue::key`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key(u128);

impl Key {
    pub fn time(self) -> Time {
        (self.0 >> 64) as Time
    }
}

/// Events further ahead than this go to the far heap.
const NEAR: Time = 50_000_000;

/// Events ordered by time, then by insertion sequence (FIFO among equal times).
///
/// Two heaps: packets' arrivals within the next 50 ms, and everything later (mostly the
/// retransmission timer of every flow). A pop takes the smaller of the two tops, so the
/// order is exactly that of one heap, but the near heap, where nearly every event passes,
/// stays as small as the number of busy links instead of growing with the number of flows.
pub struct EventQueue<E> {
    near: BinaryHeap<Entry<E>>,
    far: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Time,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            near: BinaryHeap::new(),
            far: BinaryHeap::new(),
            seq: 0,
            now: 0,
            popped: 0,
        }
    }

    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.near.len() + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.near.is_empty() && self.far.is_empty()
    }

    /// Schedule `ev` at absolute time `at` (never before now).
    pub fn schedule(&mut self, at: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let key = self.key(at);
        self.schedule_key(key, ev);
    }

    /// Take the place in the order of an event at `at` without scheduling it yet: a
    /// component that keeps its own time-ordered FIFO (a link's packets in transit) stores
    /// the key and puts only its head into the queue with [`EventQueue::schedule_key`].
    /// Events then pop in exactly the order they would have had in the queue itself.
    #[inline]
    pub fn key(&mut self, at: Time) -> Key {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.seq += 1;
        Key((u128::from(at.max(self.now)) << 64) | u128::from(self.seq))
    }

    /// Schedule `ev` at the place `key` took.
    #[inline]
    pub fn schedule_key(&mut self, key: Key, ev: impl Into<E>) {
        let entry = Entry { key, ev: ev.into() };
        if key.time() < self.now.saturating_add(NEAR) {
            self.near.push(entry);
        } else {
            self.far.push(entry);
        }
    }

    /// Schedule a component's own event at `at`; it is wrapped into the queue's event type
    /// (`Ev::Net(..)` for a `NetEv`, and so on).
    #[inline]
    pub fn at(&mut self, at: Time, ev: impl Into<E>) {
        self.schedule(at, ev.into());
    }

    /// Pop the next event if it is not later than `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        let near = self.near.peek().map(|e| e.key);
        let far = self.far.peek().map(|e| e.key);
        let from_far = match (near, far) {
            (Some(n), Some(f)) => f < n,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        let heap = if from_far { &mut self.far } else { &mut self.near };
        if heap.peek()?.key.time() > limit {
            return None;
        }
        let e = heap.pop()?;
        let time = e.key.time();
        self.now = time;
        self.popped += 1;
        Some((time, e.ev))
    }

    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.schedule(20, "c");
        q.schedule(10, "a");
        q.schedule(20, "d");
        q.schedule(10, "b");
        let mut out = vec![];
        while let Some((t, e)) = q.pop_until(u64::MAX) {
            out.push((t, e));
        }
        assert_eq!(out, vec![(10, "a"), (10, "b"), (20, "c"), (20, "d")]);
    }

    #[test]
    fn keys_taken_early_keep_their_place() {
        let mut q = EventQueue::new();
        let k1 = q.key(10);
        q.schedule(10, "b");
        let k2 = q.key(10);
        q.schedule(5, "a");
        q.schedule_key(k2, "c");
        q.schedule_key(k1, "a2");
        let mut out = vec![];
        while let Some((_, e)) = q.pop_until(u64::MAX) {
            out.push(e);
        }
        assert_eq!(out, vec!["a", "a2", "b", "c"]);
        assert_eq!((k1.time(), k1 < k2), (10, true));
    }

    #[test]
    fn near_and_far_events_pop_in_the_order_of_one_heap() {
        use crate::sim::Rng;
        use std::cmp::Reverse;
        let mut r = Rng::from_seed(9);
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        for step in 0..100_000u64 {
            for _ in 0..r.next_u64() % 3 {
                // Around the 50 ms boundary, at the same time, and far timers.
                let dt = match r.next_u64() % 8 {
                    0 => 0,
                    1 => NEAR - 1 + r.next_u64() % 3,
                    2 => 200_000_000 + r.next_u64() % 3_000_000_000,
                    _ => r.next_u64() % 2 * NEAR,
                };
                let at = q.now() + dt;
                seq += 1;
                q.schedule(at, step);
                reference.push(Reverse((at, seq, step)));
            }
            let limit = q.now() + r.next_u64() % (3 * NEAR);
            let expected = reference
                .peek()
                .filter(|Reverse((t, _, _))| *t <= limit)
                .map(|Reverse((t, _, e))| (*t, *e));
            assert_eq!(q.pop_until(limit), expected, "step {step}");
            if expected.is_some() {
                reference.pop();
            }
            assert_eq!(q.len(), reference.len());
        }
    }

    #[test]
    fn pop_until_respects_limit() {
        let mut q = EventQueue::new();
        q.schedule(5, 1);
        q.schedule(15, 2);
        assert_eq!(q.pop_until(10), Some((5, 1)));
        assert_eq!(q.pop_until(10), None);
        assert_eq!(q.now(), 5);
    }
}
