//! HighSpeed TCP as Linux 2.6.22's `tcp_highspeed.c`, the module ns-2.35's TCP-Linux runs
//! with `select_ca highspeed`: `highspeed_linux`. The same proposal as `highspeed` (Floyd,
//! RFC 3649), but the kernel works from the RFC's table (Appendix B) instead of its
//! formulas, over an integer window:
//!
//! - the table's rows are the windows w_1 = 38, w_2 = 118, …, w_72 = 89053 at which the
//!   RFC's a(w) reaches 1, 2, …; the kernel keeps the index `ai` of the row with
//!   w_ai < cwnd ≤ w_(ai+1) (0 up to 38), moved one row at a time in congestion avoidance
//!   only;
//! - the increase is a = ai + 1 segments per window: a counter grows by ai + 1 per ACK and
//!   the window by one each time the counter reaches it (cwnd ≤ 38: one segment every cwnd
//!   ACKs; 38 < cwnd ≤ 118 already two — the row above's a, where `highspeed`'s formula
//!   rises from 1 to 2);
//! - the decrease uses the row's md = ⌊256·b(w_(ai+1))⌋ (b of RFC 3649 §5 at the row's
//!   window, in 1/256; 128 = 0.5 up to 38): ssthresh = max(cwnd − ⌊cwnd·md/256⌋, 2), with
//!   the index last set in congestion avoidance (after a timeout and slow start it may be
//!   a lower row's);
//! - nothing unless the window was full before the ACK (`tcp_is_cwnd_limited`, TCP-Linux's
//!   in_flight ≥ cwnd); slow start while cwnd ≤ ssthresh (+1 per ACK), not above the
//!   receiver's window (the kernel's `snd_cwnd_clamp`, which TCP-Linux sets to it);
//! - the module's `min_cwnd` is Reno's ssthresh/2: in SACK recovery cwnd is that floor
//!   (`linux::MinCwnd`), and the sender's TCP-Linux recovery (`tcp_linux`) halves the
//!   rate from the window at the loss down to it, held to what is in flight + 1; recovery
//!   ends at min(ssthresh, in flight + 3), after which the window slow-starts back.
//!
//! `highspeed` follows the RFC's formulas over a float window and differs from this module
//! between the rows (a(w) interpolated instead of the next row's integer), in b (not
//! rounded down to 1/256), and in its recovery (cwnd = ssthresh throughout).
//!
//! No parameters (the kernel's module has none); the table is RFC 3649's with Low_Window
//! 38, High_Window 83000, High_P 10⁻⁷, High_Decrease 0.1 (its last rows go beyond
//! High_Window, where b keeps falling: md 24 ≈ 0.094 at 89053).
use super::linux::{self, snd_cwnd};
use super::vegas::cwnd_limited;
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

/// The window column of RFC 3649's Appendix B table (the kernel's rows).
const ROWS: [u64; 72] = [
    38, 118, 221, 347, 495, 663, 851, 1058, 1284, 1529, 1793, 2076, 2378, 2699, 3039, 3399, 3778, 4177, 4596, 5036,
    5497, 5979, 6483, 7009, 7558, 8130, 8726, 9346, 9991, 10661, 11358, 12082, 12834, 13614, 14424, 15265, 16137,
    17042, 17981, 18955, 19965, 21013, 22101, 23230, 24402, 25618, 26881, 28193, 29557, 30975, 32450, 33986, 35586,
    37253, 38992, 40808, 42707, 44694, 46776, 48961, 51258, 53677, 56230, 58932, 61799, 64851, 68113, 71617, 75401,
    79517, 84035, 89053,
];

/// md of a row: ⌊256·b(w)⌋ with RFC 3649's b(w) = 0.5 − 0.4·ln(w/38)/ln(83000/38).
fn md(w: u64) -> u64 {
    if w <= 38 {
        return 128;
    }
    let f = (w as f64 / 38.0).ln() / (83000.0f64 / 38.0).ln();
    crate::sim::floor(256.0 * (0.5 - 0.4 * f)) as u64
}

#[derive(Debug, Clone)]
pub struct HighSpeedLinux {
    /// The kernel's `ai`: the row index.
    ai: usize,
    md: [u64; 72],
    cwnd_cnt: u64,
    min_cwnd: linux::MinCwnd,
}

impl HighSpeedLinux {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        check_params("highspeed_linux", params, &[])?;
        Ok(Box::new(HighSpeedLinux::new()))
    }

    pub fn new() -> HighSpeedLinux {
        HighSpeedLinux {
            ai: 0,
            md: ROWS.map(md),
            cwnd_cnt: 0,
            min_cwnd: linux::MinCwnd::default(),
        }
    }

    /// Move `ai` so that ROWS[ai − 1] < w ≤ ROWS[ai] (or to the last row).
    fn update_row(&mut self, w: u64) {
        while w > ROWS[self.ai] && self.ai < ROWS.len() - 1 {
            self.ai += 1;
        }
        while self.ai > 0 && w <= ROWS[self.ai - 1] {
            self.ai -= 1;
        }
    }

    /// The module's `ssthresh()`.
    fn ssthresh(&self, w: u64) -> u64 {
        w.saturating_sub(w * self.md[self.ai] / 256).max(2)
    }
}

impl Default for HighSpeedLinux {
    fn default() -> Self {
        Self::new()
    }
}

impl CongestionControl for HighSpeedLinux {
    fn name(&self) -> &'static str {
        "highspeed_linux"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn init(&mut self, st: &mut CcState) {
        st.cwnd = st.init_cwnd;
        st.ssthresh = st.init_ssthresh;
        self.ai = 0;
        self.cwnd_cnt = 0;
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if !cwnd_limited(st, ack.acked) {
            return;
        }
        if linux::in_slow_start(st) {
            linux::slow_start(st);
            return;
        }
        let w = snd_cwnd(st);
        self.update_row(w);
        if (w as f64) < st.rwnd {
            self.cwnd_cnt += self.ai as u64 + 1;
            if self.cwnd_cnt >= w {
                self.cwnd_cnt -= w;
                st.cwnd += 1.0;
            }
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| self.ssthresh(snd_cwnd(st)));
        self.min_cwnd.on_congestion(st, signal);
        linux::apply_loss(st, signal, ssthresh);
        self.cwnd_cnt = 0;
    }

    fn on_recovery_ack(&mut self, st: &mut CcState, _ack: &AckSample) {
        self.min_cwnd.on_ack(st);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        st.cwnd = st.recovery_base;
        self.min_cwnd.stop();
    }

    fn tcp_linux(&self) -> bool {
        true
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("highspeed_linux_a", (self.ai + 1) as f64));
        out.push(("highspeed_linux_md", self.md[self.ai] as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, dup_ack, one_ack, test_state};

    #[test]
    fn the_decrease_column_is_the_kernels() {
        let h = HighSpeedLinux::new();
        // md = ⌊256·b(w)⌋: b(38) = 0.5 → 128; b(118) = 0.5 − 0.4·ln(118/38)/ln(83000/38)
        // = 0.5 − 0.4·1.13306/7.68891 = 0.44106 → 112.9 → 112; b(347) = 0.38493 → 98.5 → 98;
        // b(1058) = 0.32695 → 83.7 → 83; b(89053) = 0.09634 → 24.7 → 24 (the kernel's
        // 128, 112, 98, 83, 24).
        assert_eq!((h.md[0], h.md[1], h.md[3], h.md[7], h.md[71]), (128, 112, 98, 83, 24));
        assert!(h.md.windows(2).all(|p| p[0] >= p[1]));
    }

    #[test]
    fn the_row_follows_the_window_one_row_at_a_time() {
        let mut h = HighSpeedLinux::new();
        h.update_row(38);
        assert_eq!(h.ai, 0);
        h.update_row(39);
        assert_eq!(h.ai, 1, "38 < 39 ≤ 118");
        h.update_row(1058);
        assert_eq!(h.ai, 7);
        h.update_row(1059);
        assert_eq!(h.ai, 8);
        h.update_row(200);
        assert_eq!(h.ai, 2, "118 < 200 ≤ 221");
        h.update_row(1_000_000);
        assert_eq!(h.ai, 71, "the last row");
    }

    #[test]
    fn increase_is_the_rows_a_per_window() {
        let mut h = HighSpeedLinux::new();
        let ack = one_ack(None);
        // 30 segments (row 0, a = 1): one segment after 30 ACKs (the counter reaches cwnd)
        let mut st = test_state(30.0, 10.0);
        for _ in 0..29 {
            st.flight = 30;
            h.on_ack(&mut st, &ack);
        }
        assert_eq!(st.cwnd, 30.0);
        h.on_ack(&mut st, &ack);
        assert_eq!((st.cwnd, h.cwnd_cnt), (31.0, 0));
        // 50 segments (row 1, a = 2): the counter grows by 2: one segment after 25 ACKs,
        // where `highspeed`'s a(50) is 1.1
        let mut st = test_state(50.0, 10.0);
        for _ in 0..24 {
            st.flight = 50;
            h.on_ack(&mut st, &ack);
        }
        assert_eq!((st.cwnd, h.cwnd_cnt), (50.0, 48));
        h.on_ack(&mut st, &ack);
        assert_eq!((st.cwnd, h.cwnd_cnt, h.ai), (51.0, 0, 1));
        // not cwnd-limited: nothing
        st.flight = 10;
        h.on_ack(&mut st, &ack);
        assert_eq!((st.cwnd, h.cwnd_cnt), (51.0, 0));
        // slow start while cwnd ≤ ssthresh (cwnd = ssthresh included)
        let mut st = test_state(20.0, 20.0);
        st.flight = 20;
        h.on_ack(&mut st, &ack);
        assert_eq!(st.cwnd, 21.0);
    }

    #[test]
    fn decrease_uses_the_rows_md() {
        let mut h = HighSpeedLinux::new();
        // 1058 segments, row 7 (md 83): 1058 − ⌊1058·83/256⌋ = 1058 − 343 = 715
        let mut st = test_state(1058.0, 10.0);
        h.update_row(1058);
        h.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (715.0, 715.0));
        // 31 segments, row 0 (md 128): 31 − 15 = 16 (the kernel keeps the odd half)
        let mut h = HighSpeedLinux::new();
        let mut st = test_state(31.0, 10.0);
        h.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (16.0, 16.0));
        // a timeout: the same ssthresh, cwnd 1
        let mut st = test_state(31.0, 10.0);
        h.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.ssthresh, st.cwnd), (16.0, 1.0));
    }

    #[test]
    fn sack_recovery_holds_cwnd_at_half_ssthresh() {
        // row 1 (md 112): ssthresh 100 − 43 = 57; in recovery cwnd is the floor ⌊57/2⌋ (the
        // sender's TCP-Linux recovery halves the rate down to it), which the exit keeps
        let mut h = HighSpeedLinux::new();
        assert!(h.tcp_linux());
        let mut st = test_state(100.0, 10.0);
        h.update_row(100);
        h.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (57.0, 57.0));
        let dup = dup_ack();
        h.on_recovery_ack(&mut st, &dup);
        assert_eq!(st.cwnd, 28.0, "⌊57/2⌋");
        h.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 28.0);
    }

    #[test]
    fn takes_no_parameters() {
        let mut p = Params::new();
        p.insert("low_window".into(), 50.0);
        assert!(create("highspeed_linux", &p).is_err());
        assert!(create("highspeed_linux", &Params::new()).is_ok());
    }
}
