//! IEEE 802.3 CSMA/CD medium access for a [`Lan`]: 1-persistent carrier sense with the
//! inter-frame gap, collisions, jam, truncated binary exponential backoff and the attempt
//! limit, driven by wake-ups the engine schedules.
use super::{Iface, Lan, TxEnd};
use crate::sim::{Rng, Time};

/// IEEE 802.3 CSMA/CD parameters, in bit times of the LAN's rate where they are times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CsmaCd {
    /// Backoff unit: 512 bit times (51.2 µs at 10 Mb/s).
    pub slot_bits: f64,
    /// Inter-frame gap: 96 bit times (9.6 µs at 10 Mb/s).
    pub ifg_bits: f64,
    /// Jam sent after a collision is detected: 32 bit times.
    pub jam_bits: f64,
    /// Transmission attempts of one frame before it is discarded: 16.
    pub attempt_limit: u32,
    /// The backoff exponent stops growing here: 10 (r uniform in 0..2^min(n, 10) − 1).
    pub backoff_limit: u32,
}

impl CsmaCd {
    pub const IEEE_802_3: CsmaCd = CsmaCd {
        slot_bits: 512.0,
        ifg_bits: 96.0,
        jam_bits: 32.0,
        attempt_limit: 16,
        backoff_limit: 10,
    };
}

/// What a CSMA/CD station is doing with its head frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Station {
    /// No frame.
    Empty,
    /// Waits for the channel to fall idle, then for the inter-frame gap (1-persistent).
    Defer,
    /// Senses the channel at this time (after a backoff, a gap, or a new frame).
    At(Time),
    /// On the channel (the current activity).
    Tx,
}

/// The transmission (or collision) on a CSMA/CD channel.
#[derive(Debug, Clone)]
pub(super) struct Activity {
    /// (interface, start) of every station transmitting.
    senders: Vec<(u32, Time)>,
    /// When the channel falls idle.
    end: Time,
}

pub(super) struct CsmaState {
    pub(super) p: CsmaCd,
    pub(super) slot: Time,
    pub(super) ifg: Time,
    pub(super) jam: Time,
    pub(super) stations: Vec<Station>,
    pub(super) attempts: Vec<u32>,
    pub(super) activity: Option<Activity>,
    /// The channel fell idle one inter-frame gap before this (0 before the first frame).
    pub(super) gap_end: Time,
    /// The wake-up the engine holds for this LAN (time, generation).
    pub(super) pending: Option<(Time, u32)>,
    pub(super) generation: u32,
}

impl Lan {
    /// CSMA/CD: the wake-up the engine must schedule, if the LAN needs one earlier than the
    /// one it holds: (time, generation). The engine schedules it and passes the generation
    /// back to [`Lan::csma_wake`]; wake-ups of older generations are stale.
    pub fn csma_schedule(&mut self) -> Option<(Time, u32)> {
        let c = self.csma.as_mut()?;
        let at = c.activity.as_ref().map(|a| a.end).into_iter();
        let next = at
            .chain(c.stations.iter().filter_map(|s| match s {
                Station::At(t) => Some(*t),
                _ => None,
            }))
            .min()?;
        if matches!(c.pending, Some((t, _)) if t <= next) {
            return None;
        }
        c.generation = c.generation.wrapping_add(1);
        c.pending = Some((next, c.generation));
        c.pending
    }

    /// CSMA/CD: the wake-up of generation `gen` at `now`. Ends the activity that ends now
    /// (a frame sent: delivered `delay` later or lost with probability `loss`; a collision:
    /// every sender backs off or, at the attempt limit, discards its frame), then lets every
    /// station whose time has come sense the channel: busy (a transmission that started at
    /// least one propagation delay ago) → defer; idle for less than the inter-frame gap →
    /// wait for the rest of it; otherwise transmit, colliding with every transmission that
    /// started less than one propagation delay before. Frames that left are appended to
    /// `out` (`next_end` is always `None`). Returns false for a stale wake-up.
    pub fn csma_wake(&mut self, now: Time, gen: u32, out: &mut Vec<TxEnd>) -> bool {
        let Some(c) = self.csma.as_mut() else {
            return false;
        };
        if c.pending != Some((now, gen)) {
            return false;
        }
        c.pending = None;
        if c.activity.as_ref().is_some_and(|a| a.end <= now) {
            c.end_activity(now, &mut self.ifaces, &mut self.rng, self.loss, self.delay, out);
        }
        c.sense(now, &self.ifaces, self.delay, self.rate);
        c.extend_collision(self.delay);
        true
    }
}

impl CsmaState {
    /// The activity on the channel ended at `now`: a frame sent (delivered `delay` later or
    /// lost with probability `loss`) or a collision (every sender backs off or, at the
    /// attempt limit, discards its frame); deferring stations sense again after the gap.
    fn end_activity(
        &mut self,
        now: Time,
        ifaces: &mut [Iface],
        rng: &mut Rng,
        loss: f64,
        delay: Time,
        out: &mut Vec<TxEnd>,
    ) {
        let a = self.activity.take().expect("activity");
        self.gap_end = a.end.saturating_add(self.ifg);
        let collided = a.senders.len() > 1;
        for &(i, start) in &a.senders {
            let f = &mut ifaces[i as usize];
            f.busy_ns = f.busy_ns.saturating_add(a.end - start);
            let k = i as usize;
            let done = if collided {
                f.collisions += 1;
                self.attempts[k] += 1;
                if self.attempts[k] >= self.p.attempt_limit {
                    f.drops_collision += 1;
                    f.drops_loss += 1;
                    f.in_system -= 1;
                    let (packet, _) = f.queue.pop_front().expect("head frame");
                    out.push(TxEnd {
                        packet,
                        iface: i,
                        arrives: None,
                        next_end: None,
                    });
                    true
                } else {
                    let e = self.attempts[k].min(self.p.backoff_limit);
                    let r = rng.next_u64() >> (64 - e); // uniform in 0..2^e − 1
                    self.stations[k] = Station::At(now.saturating_add(self.slot.saturating_mul(r)));
                    false
                }
            } else {
                let (packet, _) = f.queue.pop_front().expect("head frame");
                let arrives = if rng.bernoulli(loss) {
                    f.drops_loss += 1;
                    f.in_system -= 1;
                    None
                } else {
                    Some(now.saturating_add(delay))
                };
                out.push(TxEnd {
                    packet,
                    iface: i,
                    arrives,
                    next_end: None,
                });
                true
            };
            if done {
                self.attempts[k] = 0;
                self.stations[k] = if f.queue.is_empty() {
                    Station::Empty
                } else {
                    Station::At(now)
                };
            }
        }
        for s in self.stations.iter_mut() {
            if *s == Station::Defer {
                *s = Station::At(now.saturating_add(self.ifg));
            }
        }
    }

    /// Every station whose time has come senses the channel.
    fn sense(&mut self, now: Time, ifaces: &[Iface], delay: Time, rate: f64) {
        for k in 0..self.stations.len() {
            let Station::At(t) = self.stations[k] else { continue };
            if t > now {
                continue;
            }
            match &mut self.activity {
                // sensed busy: a transmission that started before now, at least one
                // propagation delay ago (with no delay, one that started earlier)
                Some(a) if now > a.senders[0].1 && now >= a.senders[0].1.saturating_add(delay) => {
                    self.stations[k] = Station::Defer
                }
                Some(a) => {
                    // the channel still looks idle here: a collision
                    a.senders.push((k as u32, now));
                    a.end = now.saturating_add(delay).saturating_add(self.jam);
                    self.stations[k] = Station::Tx;
                }
                None if now < self.gap_end => self.stations[k] = Station::At(self.gap_end),
                None => {
                    let bytes = ifaces[k].queue.front().expect("head frame").1;
                    self.activity = Some(Activity {
                        senders: vec![(k as u32, now)],
                        end: now.saturating_add(crate::sim::tx_time(bytes, rate)),
                    });
                    self.stations[k] = Station::Tx;
                }
            }
        }
    }

    fn extend_collision(&mut self, delay: Time) {
        // a collision among transmissions started together lasts one propagation delay
        // and the jam after the last of them started
        if let Some(a) = &mut self.activity {
            if a.senders.len() > 1 {
                let last = a.senders.iter().map(|s| s.1).max().expect("senders");
                a.end = last.saturating_add(delay).saturating_add(self.jam);
            }
        }
    }
}
