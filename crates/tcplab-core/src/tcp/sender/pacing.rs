//! Sender-side pacing: a token bucket filled at the pacing rate and emptied by new data
//! segments. With a timer granularity (`tcp.pacing_tick`, 5 ms by default: the leaky-bucket
//! pacing of Kulik et al. that the thesis uses for Sync-TCP and FAST) a backlogged sender is
//! woken every tick and the bucket holds at most one tick's worth of segments and one; with a
//! granularity of 0 each segment leaves exactly 1/rate after the one before (per-packet
//! pacing). ACK arrivals refill the bucket too, so a tick is only needed while the window
//! has room and the bucket is empty. Retransmissions are not paced.
use super::Sender;
use crate::cc::Pacing;
use crate::sim::{secs, to_secs, Time};

#[derive(Debug, Clone)]
pub struct Pacer {
    /// Timer granularity; 0 = per packet.
    tick: Time,
    /// Segments that may leave now.
    tokens: f64,
    /// When the bucket was last filled.
    filled: Time,
    /// When the sender wants to be woken to send more, if it waits for the pacer.
    pub deadline: Option<Time>,
    /// The time of the pending pacing event, if one is scheduled.
    pub scheduled: Option<Time>,
}

impl Pacer {
    pub fn new(tick: Time) -> Pacer {
        Pacer {
            tick,
            tokens: 1.0,
            filled: 0,
            deadline: None,
            scheduled: None,
        }
    }

    /// Add what `rate` (segments per second) earned since the last fill, up to one tick's
    /// worth and one segment (so that a tick's fraction of a segment carries over).
    fn fill(&mut self, now: Time, rate: f64) {
        let cap = rate * to_secs(self.tick) + 1.0;
        self.tokens = (self.tokens + rate * to_secs(now.saturating_sub(self.filled))).min(cap);
        self.filled = now;
    }

    /// Take a segment's token if there is one.
    fn take(&mut self) -> bool {
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// The bucket is empty and the window has room: wake at the next tick, or when the
    /// next token is earned.
    fn wait(&mut self, now: Time, rate: f64) {
        let wait = if self.tick > 0 {
            self.tick
        } else {
            secs((1.0 - self.tokens) / rate).max(1)
        };
        self.deadline = Some(now.saturating_add(wait));
    }
}

impl Sender {
    /// The rate new segments are paced at now (segments per second), if they are.
    pub(super) fn pacing_rate(&self) -> Option<f64> {
        match self.st.pacing {
            Pacing::Off => None,
            Pacing::Window => (self.st.srtt > 0.0).then(|| self.st.cwnd.max(1.0) / self.st.srtt),
            Pacing::Rate(r) => Some(r),
        }
    }

    #[cfg(test)]
    pub(super) fn pacer_tokens(&self) -> f64 {
        self.pacer.as_ref().map_or(0.0, |p| p.tokens)
    }

    /// The sender waits for its pacer.
    #[inline]
    pub fn pacer_waiting(&self) -> bool {
        self.pacer.as_ref().is_some_and(|p| p.deadline.is_some())
    }

    fn pacer(&mut self) -> &mut Pacer {
        let tick = self.cfg.pacing_tick;
        self.pacer.get_or_insert_with(|| Box::new(Pacer::new(tick)))
    }

    /// Before a window's worth of sending: fill the bucket (when pacing).
    #[inline]
    pub(super) fn pace_start(&mut self, now: Time) -> Option<f64> {
        let rate = self.pacing_rate()?;
        let p = self.pacer();
        p.fill(now, rate);
        p.deadline = None;
        Some(rate)
    }

    /// May the next new segment leave now? If not, the sender waits for the pacer.
    #[inline]
    pub(super) fn pace_take(&mut self, now: Time, rate: f64) -> bool {
        let p = self.pacer();
        if p.take() {
            return true;
        }
        p.wait(now, rate);
        false
    }

    /// The pacing event the transport should schedule now, if any: the sender waits for
    /// the pacer and no event at or before that time is pending.
    pub fn pace_event_due(&mut self) -> Option<Time> {
        let p = self.pacer.as_mut()?;
        let d = p.deadline?;
        if p.scheduled.is_some_and(|s| s <= d) {
            return None;
        }
        p.scheduled = Some(d);
        Some(d)
    }

    /// The pacing event scheduled for `now` fires: send what the bucket allows. False if
    /// the event is stale (a later one superseded it, or the sender no longer waits).
    pub fn on_pace_event(&mut self, now: Time, out: &mut Vec<crate::tcp::Tx>) -> bool {
        let Some(p) = self.pacer.as_mut() else {
            return false;
        };
        if p.scheduled != Some(now) {
            return false;
        }
        p.scheduled = None;
        if p.deadline.is_none_or(|d| d > now) {
            return false;
        }
        // Only a new wait for the pacer sets it again: a sender that cannot send now
        // (handshake, closing) must not be woken at this instant over and over.
        p.deadline = None;
        self.sync(now);
        self.try_send(now, out);
        true
    }
}
