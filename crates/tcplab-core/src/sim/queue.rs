use super::Time;

/// An event and its place in the order.
#[derive(Clone, Copy)]
struct Entry<E> {
    key: Key,
    ev: E,
}

/// A place in the event order: time in the high 64 bits, insertion sequence in the low ones,
/// so that one integer comparison orders by time and then FIFO; see [`EventQueue::key`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key(u128);

impl Key {
    /// Later than every key a queue hands out (the sequence never reaches 2^64 - 1).
    const LAST: Key = Key(u128::MAX);

    pub fn time(self) -> Time {
        (self.0 >> 64) as Time
    }
}

/// Events further ahead than this go to the far calendar.
const NEAR: Time = 50_000_000;

/// A binary min-heap of entries by key (keys are unique, so the order is total).
struct MinHeap<E> {
    data: Vec<Entry<E>>,
}

impl<E: Copy> MinHeap<E> {
    fn new() -> Self {
        MinHeap { data: Vec::new() }
    }

    #[inline]
    fn push(&mut self, e: Entry<E>) {
        self.data.push(e);
        self.sift_up(self.data.len() - 1);
    }

    /// Put `e` in place of the first entry (whatever it holds) and restore the order.
    #[inline]
    fn replace_first(&mut self, e: Entry<E>) {
        self.data[0] = e;
        self.sift_down(0);
    }

    /// Remove the first entry.
    #[inline]
    fn remove_first(&mut self) {
        let last = self.data.pop().expect("an entry");
        if !self.data.is_empty() {
            self.replace_first(last);
        }
    }

    #[inline]
    fn first_key(&self) -> Key {
        self.data.first().map_or(Key::LAST, |e| e.key)
    }

    #[inline]
    fn sift_up(&mut self, mut pos: usize) {
        let x = self.data[pos];
        while pos > 0 {
            let parent = (pos - 1) / 2;
            let p = self.data[parent];
            if x.key > p.key {
                break;
            }
            self.data[pos] = p;
            pos = parent;
        }
        self.data[pos] = x;
    }

    #[inline]
    fn sift_down(&mut self, mut pos: usize) {
        let n = self.data.len();
        let x = self.data[pos];
        loop {
            let mut child = 2 * pos + 1;
            if child >= n {
                break;
            }
            if child + 1 < n {
                // Without a branch: which child is smaller is a coin toss the predictor
                // cannot learn.
                child += usize::from(self.data[child + 1].key < self.data[child].key);
            }
            let c = self.data[child];
            if x.key < c.key {
                break;
            }
            self.data[pos] = c;
            pos = child;
        }
        self.data[pos] = x;
    }
}

/// A ring buffer of entries sorted by key, earliest at `head`. A new entry is placed by
/// scanning from the back, where it nearly always belongs (an arrival one link delay from
/// now is later than most pending ones), so with a few entries an insertion is a compare or
/// two and a removal moves nothing.
struct SortedRing<E> {
    buf: Vec<Entry<E>>,
    head: usize,
    len: usize,
}

impl<E: Copy> SortedRing<E> {
    fn new() -> Self {
        SortedRing {
            buf: Vec::new(),
            head: 0,
            len: 0,
        }
    }

    #[inline]
    fn insert(&mut self, e: Entry<E>) {
        *self.make_room(e.key, || e) = e;
    }

    /// Shift the entries later than `key` one place back and return the slot freed for it
    /// (the caller writes the entry there: built in place, not copied from the stack, where
    /// a wide load of what narrow stores just wrote stalls the processor).
    /// `fill`: what the new slots hold until written, if the ring grows.
    #[inline(always)]
    fn make_room(&mut self, key: Key, fill: impl FnOnce() -> Entry<E>) -> &mut Entry<E> {
        if self.len == self.buf.len() {
            self.grow(fill());
        }
        let mut i = self.len;
        while i > 0 {
            let prev = self.at(self.head + i - 1);
            if prev.key < key {
                break;
            }
            *self.at_mut(self.head + i) = prev;
            i -= 1;
        }
        self.len += 1;
        self.at_mut(self.head + i)
    }

    /// The slot `i & (capacity - 1)`; the buffer must not be empty (capacity a power of two).
    #[inline(always)]
    fn at(&self, i: usize) -> Entry<E> {
        debug_assert!(!self.buf.is_empty());
        // SAFETY: with a non-empty buffer, `i & (len - 1)` is at most `len - 1`.
        unsafe { *self.buf.get_unchecked(i & (self.buf.len() - 1)) }
    }

    #[inline(always)]
    fn at_mut(&mut self, i: usize) -> &mut Entry<E> {
        debug_assert!(!self.buf.is_empty());
        let mask = self.buf.len() - 1;
        // SAFETY: as in `at`.
        unsafe { self.buf.get_unchecked_mut(i & mask) }
    }

    #[inline]
    fn first(&self) -> Option<Entry<E>> {
        (self.len > 0).then(|| self.at(self.head))
    }

    #[inline]
    fn remove_first(&mut self) {
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
    }

    /// Move every entry, in order, to the end of `out`.
    fn drain_to(&mut self, out: &mut Vec<Entry<E>>) {
        let mask = self.buf.len().wrapping_sub(1);
        out.extend((0..self.len).map(|i| self.buf[(self.head + i) & mask]));
        self.head = 0;
        self.len = 0;
    }

    #[cold]
    fn grow(&mut self, fill: Entry<E>) {
        let cap = (self.buf.len() * 2).max(8);
        let mut buf = Vec::with_capacity(cap);
        self.drain_to(&mut buf);
        self.len = buf.len();
        buf.resize(cap, fill);
        self.buf = buf;
    }
}

/// Far events fall into slots of 2^SLOT_SHIFT ns (about 16.8 ms)...
const SLOT_SHIFT: u32 = 24;
/// ...kept in this many buckets (a horizon of about 4.3 s, beyond a SYN's 3-s timer); later
/// ones wait in a heap.
const BUCKETS: u64 = 256;

/// The far events (mostly retransmission timers, thousands of them with a web load): a
/// calendar of buckets, one per slot of time, whose next slot is sorted into `due` when
/// the simulation reaches it. A push is a `Vec::push` and a pop takes the end of `due`,
/// where a heap of every pending timer cost a sift through a dozen cold levels per pop.
/// The order is the keys' own, as with a heap: `due` is sorted, and a slot is moved only
/// when nothing before its start is left anywhere else.
struct FarCalendar<E> {
    buckets: Vec<Vec<Entry<E>>>,
    /// The first slot whose events have not been moved to `due`.
    next_slot: u64,
    /// Events of the slots before `next_slot`, latest first (pops take the end).
    due: Vec<Entry<E>>,
    /// Events in `buckets`.
    in_buckets: usize,
    /// Events of slots `next_slot + BUCKETS` and later.
    beyond: MinHeap<E>,
}

impl<E: Copy> FarCalendar<E> {
    fn new() -> Self {
        FarCalendar {
            buckets: Vec::new(),
            next_slot: 0,
            due: Vec::new(),
            in_buckets: 0,
            beyond: MinHeap::new(),
        }
    }

    fn len(&self) -> usize {
        self.due.len() + self.in_buckets + self.beyond.data.len()
    }

    #[inline]
    fn push(&mut self, e: Entry<E>) {
        let slot = e.key.time() >> SLOT_SHIFT;
        if slot < self.next_slot {
            // A slot already sorted (the simulation jumped to it over empty slots).
            let at = self.due.partition_point(|d| d.key > e.key);
            self.due.insert(at, e);
        } else if slot - self.next_slot < BUCKETS {
            if self.buckets.is_empty() {
                self.buckets.resize_with(BUCKETS as usize, Vec::new);
            }
            self.buckets[(slot % BUCKETS) as usize].push(e);
            self.in_buckets += 1;
        } else {
            self.beyond.push(e);
        }
    }

    /// The first far event's key if it may come before `bound` (`Key::LAST` otherwise):
    /// slots are sorted in only as far as that takes. `floor` becomes a key no far event
    /// is below. (Not inlined: a pop rarely needs it, and the loop stays small.)
    #[inline(never)]
    fn first_key(&mut self, bound: Key, floor: &mut Key) -> Key {
        loop {
            if let Some(e) = self.due.last() {
                *floor = e.key;
                return e.key;
            }
            if self.in_buckets == 0 && self.beyond.data.is_empty() {
                *floor = Key::LAST;
                return Key::LAST;
            }
            if self.in_buckets == 0 {
                // Nothing in the buckets: straight to the slot of the first later event.
                self.next_slot = self.next_slot.max(self.beyond.first_key().time() >> SLOT_SHIFT);
            }
            // (In u128: the slot after the last one starts beyond the last nanosecond.)
            let start = u128::from(self.next_slot) << SLOT_SHIFT;
            if start > u128::from(bound.time()) {
                *floor = u64::try_from(start).map_or(Key::LAST, |t| Key(u128::from(t) << 64));
                return Key::LAST;
            }
            self.sort_in_next_slot();
        }
    }

    /// Move the events of slot `next_slot` (from its bucket, and from `beyond` those that
    /// were further than the buckets reached when they came) to `due`, in order.
    #[cold]
    fn sort_in_next_slot(&mut self) {
        let slot = self.next_slot;
        if !self.buckets.is_empty() {
            let bucket = &mut self.buckets[(slot % BUCKETS) as usize];
            self.in_buckets -= bucket.len();
            // The bucket's storage becomes `due`'s (both keep their capacity).
            std::mem::swap(&mut self.due, bucket);
        }
        while !self.beyond.data.is_empty() && self.beyond.first_key().time() >> SLOT_SHIFT == slot {
            self.due.push(self.beyond.data[0]);
            self.beyond.remove_first();
        }
        self.due.sort_unstable_by(|a, b| b.key.cmp(&a.key));
        self.next_slot = slot + 1;
    }

    #[inline]
    fn pop(&mut self) -> Entry<E> {
        self.due.pop().expect("a due far event")
    }
}

/// The near events go to the sorted ring while there are at most this many, and to a heap
/// beyond (the ring's insertion costs up to its length).
const RING_MAX: usize = 48;
/// The heap goes back to the ring when it holds fewer than this.
const RING_AGAIN: usize = 16;

/// Events ordered by time, then by insertion sequence (FIFO among equal times).
///
/// Two parts: packets' arrivals within the next 50 ms (a sorted ring, or a heap when they
/// are many), and everything later (mostly the retransmission timer of every flow, in a
/// calendar of time slots). A pop takes the smaller of the two firsts, so the order is
/// exactly that of one heap, but the near part, where nearly every event passes, stays as
/// small as the number of busy links instead of growing with the number of flows.
///
/// Nearly every event handled schedules one new near event (a packet's arrival at its next
/// hop), so a pop from the near heap leaves its first slot empty (`hole`) and the next near
/// event is put there and sifted down: one pass through the heap instead of two (a pop's
/// and a push's).
pub struct EventQueue<E> {
    /// Near events while they are few (`in_heap` false)...
    ring: SortedRing<E>,
    /// ...and in a heap while they are many (`in_heap` true).
    near: MinHeap<E>,
    in_heap: bool,
    /// The near heap's first slot was popped and is to be refilled.
    hole: bool,
    /// No far event's key is below this: while the near events' first is, a pop need not
    /// look into the calendar (one comparison, as with a heap's top).
    far_floor: Key,
    /// (Boxed: what a pop reads stays in the queue's first lines.)
    far: Box<FarCalendar<E>>,
    seq: u64,
    now: Time,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            ring: SortedRing::new(),
            near: MinHeap::new(),
            in_heap: false,
            hole: false,
            far_floor: Key::LAST,
            far: Box::new(FarCalendar::new()),
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
        self.ring.len + self.near.data.len() - usize::from(self.hole) + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    #[inline(always)]
    pub fn schedule_key(&mut self, key: Key, ev: impl Into<E> + Copy) {
        if key.time() < self.now.saturating_add(NEAR) && !self.in_heap && self.ring.len < RING_MAX {
            *self.ring.make_room(key, || Entry { key, ev: ev.into() }) = Entry { key, ev: ev.into() };
            return;
        }
        let entry = Entry { key, ev: ev.into() };
        if key.time() >= self.now.saturating_add(NEAR) {
            self.far_floor = self.far_floor.min(key);
            self.far.push(entry);
        } else if !self.in_heap {
            if self.ring.len == RING_MAX {
                return self.to_heap(entry);
            }
            self.ring.insert(entry);
        } else if std::mem::take(&mut self.hole) {
            self.near.replace_first(entry);
        } else {
            self.near.push(entry);
        }
    }

    /// The ring is full: its entries (sorted, so already in heap order) and `entry` go to
    /// the heap.
    #[cold]
    fn to_heap(&mut self, entry: Entry<E>) {
        self.ring.drain_to(&mut self.near.data);
        self.near.push(entry);
        self.in_heap = true;
    }

    /// Few near events are left in the heap: back to the ring, in order.
    #[cold]
    fn to_ring(&mut self) {
        self.near.data.sort_unstable_by_key(|e| e.key);
        for e in self.near.data.drain(..) {
            self.ring.insert(e);
        }
        self.in_heap = false;
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
        if std::mem::take(&mut self.hole) {
            self.near.remove_first();
            if self.near.data.len() < RING_AGAIN {
                self.to_ring();
            }
        }
        let near = if self.in_heap {
            self.near.data.first().copied()
        } else {
            self.ring.first()
        };
        let e = match near {
            // nearly always: the far events all come later
            Some(e) if e.key < self.far_floor => self.take_near(e, limit)?,
            _ => {
                let far = self
                    .far
                    .first_key(near.map_or(Key::LAST, |e| e.key), &mut self.far_floor);
                match near {
                    Some(e) if e.key < far => self.take_near(e, limit)?,
                    _ if far == Key::LAST || far.time() > limit => return None,
                    _ => self.far.pop(),
                }
            }
        };
        let time = e.key.time();
        self.now = time;
        self.popped += 1;
        Some((time, e.ev))
    }

    /// The near events' first, `e`, is the next event: taken if not later than `limit`.
    #[inline(always)]
    fn take_near(&mut self, e: Entry<E>, limit: Time) -> Option<Entry<E>> {
        if e.key.time() > limit {
            return None;
        }
        if self.in_heap {
            self.hole = true;
        } else {
            self.ring.remove_first();
        }
        Some(e)
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
        use std::collections::BinaryHeap;
        let mut r = Rng::from_seed(9);
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let (mut to_heap, mut to_ring, mut in_heap) = (0, 0, false);
        for step in 0..100_000u64 {
            // Phases that fill the queue and phases that drain it, so that the near events
            // move between the ring and the heap many times.
            let most = if (step / 3_000) % 2 == 0 { 4 } else { 2 };
            for _ in 0..r.next_u64() % most {
                // Around the 50 ms boundary, at the same time, and far timers.
                let dt = match r.next_u64() % 8 {
                    0 => 0,
                    1 => NEAR - 1 + r.next_u64() % 3,
                    2 => 200_000_000 + r.next_u64() % 3_000_000_000,
                    // beyond the calendar's buckets, and exactly on slot boundaries
                    3 if r.next_u64() % 4 == 0 => r.next_u64() % 64_000_000_000,
                    3 => ((1 + r.next_u64() % 2_000) << SLOT_SHIFT) - q.now() % (1 << SLOT_SHIFT),
                    _ => r.next_u64() % 2 * NEAR,
                };
                let at = q.now() + dt;
                seq += 1;
                q.schedule(at, step);
                reference.push(Reverse((at, seq, step)));
            }
            let limit = match r.next_u64() % 50 {
                0 => q.now() + r.next_u64() % 20_000_000_000, // a long jump over empty slots
                _ => q.now() + r.next_u64() % (3 * NEAR),
            };
            let expected = reference
                .peek()
                .filter(|Reverse((t, _, _))| *t <= limit)
                .map(|Reverse((t, _, e))| (*t, *e));
            assert_eq!(q.pop_until(limit), expected, "step {step}");
            if expected.is_some() {
                reference.pop();
            }
            assert_eq!(q.len(), reference.len());
            if q.in_heap != in_heap {
                (to_heap, to_ring) = if q.in_heap {
                    (to_heap + 1, to_ring)
                } else {
                    (to_heap, to_ring + 1)
                };
                in_heap = q.in_heap;
            }
        }
        assert!(to_heap > 5 && to_ring > 5, "{to_heap} {to_ring}");
    }

    #[test]
    fn a_far_timer_pops_before_a_later_near_event_scheduled_after_it() {
        let ms = 1_000_000;
        let mut q = EventQueue::new();
        q.schedule(60 * ms, "timer"); // far: 50 ms or more ahead
        q.schedule(20 * ms, "a");
        assert_eq!(q.pop_until(u64::MAX), Some((20 * ms, "a")));
        q.schedule(65 * ms, "b"); // near now, but after the timer
        assert_eq!(q.pop_until(u64::MAX), Some((60 * ms, "timer")));
        assert_eq!(q.pop_until(u64::MAX), Some((65 * ms, "b")));
        // a timer in a slot already sorted in, before what is due there
        q.schedule(200 * ms, "t2");
        q.schedule(120 * ms, "c");
        assert_eq!(q.pop_until(u64::MAX), Some((120 * ms, "c")));
        q.schedule(180 * ms, "t1");
        assert_eq!(q.pop_until(u64::MAX), Some((180 * ms, "t1")));
        assert_eq!(q.pop_until(u64::MAX), Some((200 * ms, "t2")));
        assert!(q.is_empty());
    }

    #[test]
    fn timers_at_the_end_of_time_pop_in_order() {
        let mut q = EventQueue::new();
        q.schedule(u64::MAX, "last");
        q.schedule(u64::MAX - 1, "before");
        q.schedule(1 << 62, "early");
        assert_eq!(q.pop_until(u64::MAX), Some((1 << 62, "early")));
        assert_eq!(q.pop_until(u64::MAX), Some((u64::MAX - 1, "before")));
        q.schedule(u64::MAX, "again");
        assert_eq!(q.pop_until(u64::MAX), Some((u64::MAX, "last")));
        assert_eq!(q.pop_until(u64::MAX), Some((u64::MAX, "again")));
        assert_eq!(q.pop_until(u64::MAX), None);
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
