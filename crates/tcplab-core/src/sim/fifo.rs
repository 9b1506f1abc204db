//! A first-in first-out ring buffer for the per-packet queues of the hot path.
//!
//! `VecDeque` does the same, but its index arithmetic (a compare and a subtraction per
//! access, for any capacity) showed up as one of the larger costs per packet; with a
//! power-of-two capacity an index wraps with one `and`.

/// A FIFO of `Copy` values whose capacity is a power of two (it doubles when full).
#[derive(Debug, Clone, Default)]
pub struct Fifo<T> {
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Fifo<T> {
    pub fn new() -> Self {
        Fifo {
            buf: Vec::new(),
            head: 0,
            len: 0,
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value at `i & (capacity - 1)`; the buffer must not be empty.
    #[inline(always)]
    fn at(&self, i: usize) -> T {
        debug_assert!(!self.buf.is_empty());
        // SAFETY: with a non-empty buffer, `i & (len - 1)` is at most `len - 1`.
        unsafe { *self.buf.get_unchecked(i & (self.buf.len() - 1)) }
    }

    #[inline]
    pub fn push_back(&mut self, x: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) & (self.buf.len() - 1);
        // SAFETY: the buffer is not empty (it grew), and the index is masked to its length.
        unsafe { *self.buf.get_unchecked_mut(i) = x };
        self.len += 1;
    }

    #[inline]
    pub fn front(&self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        Some(self.at(self.head))
    }

    #[inline]
    pub fn back(&self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        Some(self.at(self.head + self.len - 1))
    }

    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let x = self.at(self.head);
        self.head = (self.head + 1) & (self.buf.len() - 1);
        self.len -= 1;
        Some(x)
    }

    /// Drop values from the front while `pred` holds for them.
    #[inline]
    pub fn pop_front_while(&mut self, pred: impl Fn(T) -> bool) {
        let mask = self.buf.len().wrapping_sub(1);
        while self.len > 0 && pred(self.at(self.head)) {
            self.head = (self.head + 1) & mask;
            self.len -= 1;
        }
    }

    #[cold]
    fn grow(&mut self) {
        let cap = (self.buf.len() * 2).max(4);
        let mut buf = Vec::with_capacity(cap);
        buf.extend((0..self.len).map(|i| self.buf[(self.head + i) & (self.buf.len().max(1) - 1)]));
        buf.resize(cap, T::default());
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_like_a_vecdeque_across_wraps_and_growth() {
        let mut f = Fifo::new();
        let mut d = VecDeque::new();
        let mut r = crate::sim::Rng::from_seed(4);
        for i in 0..50_000u64 {
            if r.next_u64() % 5 < 3 {
                f.push_back(i);
                d.push_back(i);
            } else if i % 7 == 0 {
                let limit = i.saturating_sub(r.next_u64() % 8);
                f.pop_front_while(|x| x <= limit);
                while d.front().is_some_and(|&x| x <= limit) {
                    d.pop_front();
                }
            } else {
                assert_eq!(f.pop_front(), d.pop_front());
            }
            assert_eq!(
                (f.front(), f.back(), f.len()),
                (d.front().copied(), d.back().copied(), d.len())
            );
        }
        while let Some(x) = d.pop_front() {
            assert_eq!(f.pop_front(), Some(x));
        }
        assert!(f.is_empty() && f.pop_front().is_none());
    }
}
