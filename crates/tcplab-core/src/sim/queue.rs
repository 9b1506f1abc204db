use super::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Time,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
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
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// Events ordered by time, then by insertion sequence (FIFO among equal times).
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
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
            heap: BinaryHeap::new(),
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
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedule `ev` at absolute time `at` (never before now).
    pub fn schedule(&mut self, at: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let at = at.max(self.now);
        self.seq += 1;
        self.heap.push(Entry {
            time: at,
            seq: self.seq,
            ev,
        });
    }

    /// Schedule a component's own event at `at`; it is wrapped into the queue's event type
    /// (`Ev::Net(..)` for a `NetEv`, and so on).
    #[inline]
    pub fn at(&mut self, at: Time, ev: impl Into<E>) {
        self.schedule(at, ev.into());
    }

    /// Pop the next event if it is not later than `limit`.
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        if self.heap.peek()?.time > limit {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.ev))
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
    fn pop_until_respects_limit() {
        let mut q = EventQueue::new();
        q.schedule(5, 1);
        q.schedule(15, 2);
        assert_eq!(q.pop_until(10), Some((5, 1)));
        assert_eq!(q.pop_until(10), None);
        assert_eq!(q.now(), 5);
    }
}
