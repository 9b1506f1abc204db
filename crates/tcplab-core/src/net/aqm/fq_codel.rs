//! FQ-CoDel (RFC 8290): packets hashed by flow into `flows` queues, each a CoDel queue;
//! a deficit round robin with a quantum of bytes serves them, queues that just became
//! active (new) before the others (old); when all queues together hold more than `limit`
//! packets the head of the fattest (most bytes) is dropped. Written from the RFC.
use super::codel::{Codel, CodelQueue};
use super::Item;
use crate::sim::Time;
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Debug, Clone)]
struct FlowQueue {
    q: CodelQueue,
    deficit: i64,
    list: List,
}

#[derive(Debug, Clone)]
pub struct FqCodel {
    queues: Vec<FlowQueue>,
    new: VecDeque<u32>,
    old: VecDeque<u32>,
    quantum: i64,
    limit: u32,
    /// Packets in all queues.
    total: u32,
}

impl FqCodel {
    pub fn new(flows: u32, quantum: u32, limit: u32, codel: Codel) -> FqCodel {
        let fq = FlowQueue {
            q: CodelQueue::new(codel),
            deficit: 0,
            list: List::None,
        };
        FqCodel {
            queues: vec![fq; flows as usize],
            new: VecDeque::new(),
            old: VecDeque::new(),
            quantum: quantum as i64,
            limit,
            total: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.total as usize
    }

    /// A new limit (`[[link_changes]]`): a smaller one drops nothing already queued.
    pub fn set_limit(&mut self, limit: u32) {
        self.limit = limit;
    }

    /// Take every queued packet, queue by queue (a link going down with `queued = "drop"`);
    /// the queues start afresh.
    pub fn drain(&mut self, out: &mut Vec<Item>) {
        for fq in &mut self.queues {
            while let Some(it) = fq.q.pop_head() {
                out.push(it);
            }
            fq.list = List::None;
            fq.deficit = 0;
        }
        self.new.clear();
        self.old.clear();
        self.total = 0;
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The queue of flow id `flow`: a fixed multiplicative hash of the id (deterministic,
    /// the same in every run; consecutive ids spread over the queues).
    pub fn index(&self, flow: u32) -> usize {
        let h = (u64::from(flow) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        (h % self.queues.len() as u64) as usize
    }

    /// Queue `it`; an overflow drop (the head of the fattest queue, possibly `it` itself)
    /// goes to `overflow`.
    pub fn enqueue(&mut self, it: Item, overflow: &mut Vec<Item>) {
        let i = self.index(it.flow);
        let fq = &mut self.queues[i];
        fq.q.push(it);
        self.total += 1;
        if fq.list == List::None {
            fq.list = List::New;
            fq.deficit = self.quantum;
            self.new.push_back(i as u32);
        }
        if self.total > self.limit {
            // the first of the fattest queues
            let fat = (0..self.queues.len())
                .rev()
                .max_by_key(|&k| self.queues[k].q.bytes())
                .expect("a queue");
            if let Some(d) = self.queues[fat].q.pop_head() {
                self.total -= 1;
                overflow.push(d);
            }
        }
    }

    /// The next packet to send and whether to mark it; CoDel's drops go to `dropped`.
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<Item>) -> Option<(Item, bool)> {
        loop {
            let (i, from_new) = match self.new.front() {
                Some(&i) => (i, true),
                None => (*self.old.front()?, false),
            };
            let fq = &mut self.queues[i as usize];
            let list = if from_new { &mut self.new } else { &mut self.old };
            if fq.deficit <= 0 {
                // its quantum is used up: more credit, and to the back of the old queues
                fq.deficit += self.quantum;
                list.pop_front();
                fq.list = List::Old;
                self.old.push_back(i);
                continue;
            }
            let before = dropped.len();
            let r = fq.q.dequeue(now, dropped);
            self.total -= (dropped.len() - before) as u32;
            match r {
                Some((it, mark)) => {
                    fq.deficit -= it.size as i64;
                    self.total -= 1;
                    return Some((it, mark));
                }
                None => {
                    // empty: a new queue goes to the back of the old ones (so that a flow
                    // cannot stay new by emptying its queue), an old one leaves the rotation
                    list.pop_front();
                    if from_new {
                        fq.list = List::Old;
                        self.old.push_back(i);
                    } else {
                        fq.list = List::None;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn fq() -> FqCodel {
        FqCodel::new(1024, 1514, 10240, Codel::new(5 * MS, 100 * MS, false))
    }

    fn item(p: u32, flow: u32, size: u32, enq: Time) -> Item {
        Item {
            p,
            size,
            enq,
            ect: false,
            flow,
        }
    }

    #[test]
    fn drr_gives_backlogged_flows_equal_bytes_whatever_their_packet_sizes() {
        let mut q = fq();
        assert_ne!(q.index(1), q.index(2), "the two flows in different queues");
        let mut p = 0;
        let mut dropped = vec![];
        let mut bytes = [0u64; 2];
        // both queues kept backlogged; sojourns stay 0 (no CoDel drops)
        for round in 0..20_000u64 {
            for (flow, size) in [(1u32, 1500u32), (2, 500)] {
                while q.queues[q.index(flow)].q.len() < 4 {
                    p += 1;
                    q.enqueue(item(p, flow, size, round), &mut dropped);
                }
            }
            let (it, _) = q.dequeue(round, &mut dropped).unwrap();
            bytes[(it.flow - 1) as usize] += it.size as u64;
        }
        assert!(dropped.is_empty());
        let diff = bytes[0].abs_diff(bytes[1]);
        assert!(diff <= 3 * 1514, "{bytes:?}");
        assert!(bytes[0] > 4_000_000, "{bytes:?}");
    }

    #[test]
    fn a_new_flow_goes_before_the_backlogged_ones() {
        let mut q = fq();
        let mut dropped = vec![];
        for k in 0..10 {
            q.enqueue(item(k, 1, 1500, 0), &mut dropped);
        }
        // flow 1 sends its quantum (one 1500-byte packet, then 14 bytes of credit, another)
        assert_eq!(q.dequeue(0, &mut dropped).unwrap().0.flow, 1);
        assert_eq!(q.dequeue(0, &mut dropped).unwrap().0.flow, 1);
        // flow 1 has used its quantum; flow 2's packets arrive and go first, for a quantum
        // (1514 bytes: two packets), then flow 1 (now old) and flow 2 take turns
        for p in 100..103 {
            q.enqueue(item(p, 2, 1000, 0), &mut dropped);
        }
        let order: Vec<u32> = (0..4).map(|_| q.dequeue(0, &mut dropped).unwrap().0.p).collect();
        assert_eq!(order, [100, 101, 2, 102]);
        assert_eq!(q.queues[q.index(1)].q.len(), 7);
        assert_eq!(q.len(), 7);
    }

    #[test]
    fn overflow_drops_from_the_fattest_queue() {
        let mut q = FqCodel::new(1024, 1514, 6, Codel::new(5 * MS, 100 * MS, false));
        let mut dropped = vec![];
        for k in 0..4 {
            q.enqueue(item(k, 1, 1500, 0), &mut dropped);
        }
        q.enqueue(item(10, 2, 100, 0), &mut dropped);
        q.enqueue(item(11, 2, 100, 0), &mut dropped);
        assert!(dropped.is_empty());
        q.enqueue(item(12, 2, 100, 0), &mut dropped);
        assert_eq!(dropped.iter().map(|d| d.p).collect::<Vec<_>>(), [0], "head of flow 1");
        assert_eq!(q.len(), 6);
    }

    #[test]
    fn codel_runs_per_queue() {
        let mut q = fq();
        let mut dropped = vec![];
        // flow 1 has a standing queue of old packets, flow 2 sends fresh ones
        let mut p = 0;
        for t in (0..2000).map(|k| k * MS) {
            for flow in [1, 1, 2] {
                p += 1;
                let enq = if flow == 1 { t.saturating_sub(50 * MS) } else { t };
                q.enqueue(item(p, flow, 1000, enq), &mut dropped);
            }
            q.dequeue(t, &mut dropped);
            q.dequeue(t, &mut dropped);
        }
        assert!(!dropped.is_empty());
        assert!(
            dropped.iter().all(|d| d.flow == 1),
            "only the flow with the standing queue"
        );
    }
}
