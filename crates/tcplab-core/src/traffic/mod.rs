//! Applications that are not TCP's own: the constant-bit-rate UDP source.
use crate::scenario::RateStep;
use crate::sim::{secs, Time};

/// A non-adaptive UDP source sending fixed-size packets at a rate that follows a step
/// schedule (rate 0 pauses it).
#[derive(Debug, Clone)]
pub struct CbrSource {
    pub packet: u32,
    /// (absolute time, rate in bit/s)
    pub schedule: Vec<(Time, f64)>,
    pub rate: f64,
    pub next_seq: u64,
    /// Generation of the pending send event; bumped at every rate change.
    pub gen: u32,
    pub received: u64,
}

impl CbrSource {
    pub fn new(packet: u32, steps: &[RateStep], start: f64) -> CbrSource {
        CbrSource {
            packet,
            schedule: steps.iter().map(|s| (secs(start + s.at), s.rate)).collect(),
            rate: 0.0,
            next_seq: 0,
            gen: 0,
            received: 0,
        }
    }

    /// Gap between packets at the current rate, or None when paused.
    pub fn interval(&self) -> Option<Time> {
        (self.rate > 0.0).then(|| ((self.packet as f64 * 8.0) * 1e9 / self.rate).round().max(1.0) as Time)
    }
}
