//! A link direction's reordering model (`reorder = {prob, delay}`): each packet the queue
//! admits and the link does not lose is, with probability `prob`, held back by `delay`
//! after its normal arrival time, so that packets sent after it may overtake it. The draws
//! come from the direction's own stream (`link:a:b:dir:reorder`): adding reordering to a
//! link changes no other draw. A reordering direction runs on the managed path (as a
//! droptail discipline when it has none), so plain links keep their fast path.
//!
//! A packet is drawn for when its arrival time is fixed, and a held-back one gets a
//! `NetEv::Arrive` of its own, off the direction's in-order transit list (`net/network.rs`):
//! droptail/red directions draw at admission (`offer_managed`), codel/fq_codel when the
//! transmission ends (`link_tx_end`, after their drops and the loss draw), directions with
//! `[[link_changes]]` at the packet's in-order arrival (`link_arrive_changing`), which no
//! change moves any more. Once held back a packet is on the wire: no outage or delay
//! change recalls or moves it (docs/kentridge.md, "Link reordering").
use crate::sim::{Rng, Time};

pub struct Reorder {
    pub prob: f64,
    /// The extra delay of a held-back packet.
    pub delay: Time,
    pub rng: Rng,
    /// Packets held back so far (the links table's `reordered`).
    pub held: u64,
}

impl Reorder {
    pub fn new(prob: f64, delay: Time, rng: Rng) -> Reorder {
        Reorder {
            prob,
            delay,
            rng,
            held: 0,
        }
    }

    /// The arrival time of a packet due at `at`: later by `delay` if it is held back.
    pub fn arrival(&mut self, at: Time) -> Option<Time> {
        if self.rng.bernoulli(self.prob) {
            self.held += 1;
            Some(at.saturating_add(self.delay))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_back_the_drawn_share_by_the_delay() {
        let mut r = Reorder::new(0.1, 5, Rng::from_seed(7));
        let held = (0..100_000).filter_map(|_| r.arrival(10)).collect::<Vec<_>>();
        assert!(held.iter().all(|&t| t == 15));
        assert_eq!(r.held, held.len() as u64);
        assert!((held.len() as f64 / 1e5 - 0.1).abs() < 0.005, "{}", held.len());
        let mut never = Reorder::new(0.0, 5, Rng::from_seed(7));
        assert!((0..1000).all(|_| never.arrival(10).is_none()));
    }
}
