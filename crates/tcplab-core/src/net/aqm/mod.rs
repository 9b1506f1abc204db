//! Queue disciplines beside the plain DropTail of the fast path, one per link direction
//! that asks for one (`queue = {type = ...}`), behind one branch per link
//! ([`super::LinkDir::enqueue`] sends every arrival of a managed link here):
//!
//! - `droptail` and `red` decide when a packet arrives, on the link's fast-path model
//!   (departure times fixed at admission);
//! - `codel` and `fq_codel` decide when a packet leaves the queue and may reorder packets,
//!   so they keep their packets in their own queue and the link schedules an event at the
//!   end of each transmission (`NetEv::LinkTxEnd`): the scheduled path.
//!
//! Every one measures the queueing delay of the packets it sends ([`WaitStats`]) and counts
//! its ECN marks and its own drops (beside overflow drops).
mod codel;
mod fq_codel;
mod red;
mod stats;
#[cfg(test)]
mod tests;

pub use codel::{Codel, CodelQueue};
pub use fq_codel::FqCodel;
pub use red::{Red, RedVerdict};
pub use stats::WaitStats;

use crate::scenario::Discipline;
use crate::sim::{secs, Rng, Time};

/// A packet in a scheduled queue.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Item {
    /// The packet (pool index).
    pub p: u32,
    pub size: u32,
    /// When it entered the queue.
    pub enq: Time,
    /// ECN-capable: marked rather than dropped when the discipline has ECN on.
    pub ect: bool,
    pub flow: u32,
}

/// The queue of a scheduled link direction.
pub enum Sched {
    Codel(CodelQueue),
    FqCodel(FqCodel),
}

impl Sched {
    /// Packets waiting (not the one being sent).
    pub fn len(&self) -> usize {
        match self {
            Sched::Codel(q) => q.len(),
            Sched::FqCodel(q) => q.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub enum Kind {
    DropTail,
    Red(Red),
    Sched {
        queue: Sched,
        /// The packet being transmitted.
        current: Option<u32>,
    },
}

/// A managed link direction's discipline, its statistics and its random stream.
pub struct Aqm {
    pub name: &'static str,
    /// The most packets it holds: in the system (waiting + in service) for droptail and
    /// red, as a link's DropTail queue; waiting for codel and fq_codel, as Linux counts.
    pub limit: u32,
    pub kind: Kind,
    pub stats: WaitStats,
    pub marks: u64,
    /// Drops the discipline decided (RED's early drops, CoDel's drops), a part of the link's
    /// `drops_queue`; the rest are overflows.
    pub drops_aqm: u64,
    pub rng: Rng,
    /// Scratch for the items a scheduled queue drops.
    pub scratch: Vec<Item>,
    /// The direction's reordering model, if any (`net/reorder.rs`).
    pub reorder: Option<super::reorder::Reorder>,
    /// Droptail without reordering on a direction without changes: decided in
    /// `LinkDir::enqueue`'s full branch, as on the plain path, plus the wait recorded.
    pub plain_droptail: bool,
}

impl Aqm {
    /// The discipline `d` of a link direction of `rate` bit/s.
    pub fn new(d: &Discipline, rate: f64, rng: Rng) -> Aqm {
        let codel = |target: f64, interval: f64, ecn: bool| Codel::new(secs(target).max(1), secs(interval).max(1), ecn);
        let kind = match d {
            Discipline::Droptail { .. } => Kind::DropTail,
            Discipline::Red(r) => Kind::Red(Red::new(r, rate)),
            Discipline::Codel(c) => Kind::Sched {
                queue: Sched::Codel(CodelQueue::new(codel(c.target, c.interval, c.ecn))),
                current: None,
            },
            Discipline::FqCodel(f) => Kind::Sched {
                queue: Sched::FqCodel(FqCodel::new(
                    f.flows,
                    f.quantum,
                    f.limit,
                    codel(f.target, f.interval, f.ecn),
                )),
                current: None,
            },
        };
        let plain_droptail = matches!(kind, Kind::DropTail);
        Aqm {
            name: d.name(),
            limit: d.limit(),
            kind,
            stats: WaitStats::default(),
            marks: 0,
            drops_aqm: 0,
            rng,
            scratch: Vec::new(),
            reorder: None,
            plain_droptail,
        }
    }

    pub fn is_scheduled(&self) -> bool {
        matches!(self.kind, Kind::Sched { .. })
    }

    /// RED's average queue, if it is RED.
    pub fn red_avg(&self) -> Option<f64> {
        match &self.kind {
            Kind::Red(r) => Some(r.avg),
            _ => None,
        }
    }
}
