//! TCP-LP, TCP Low Priority (Kuzmanovic, Knightly: "TCP-LP: A Distributed Algorithm for Low
//! Priority Data Transfer", INFOCOM 2003), as Linux 2.6.22's `tcp_lp.c`, which ns-2.35's
//! TCP-Linux runs with `select_ca lp`: `lp`.
//!
//! TCP-LP uses only the bandwidth that TCP flows leave: it takes a rise of the one-way delay
//! (OWD) as an early congestion indication and backs off before the queue overflows. Its
//! increase and loss response are Reno's (Linux 2.6.22's `tcp_reno_cong_avoid`: +1 per ACK
//! while cwnd ≤ ssthresh, then +1 once cwnd segments are acknowledged with the Appropriate
//! Byte Counting ns-2.35's TCP-Linux runs it with, `sysctl_tcp_abc` = 1 there, or every
//! cwnd + 1 ACKs with the kernel's default 0, `abc = 0`; ssthresh = max(cwnd/2, 2) on a
//! loss). On every ACK that
//! acknowledges new data:
//! - the OWD is measured from the timestamp option, in milliseconds (ns-2's and the kernel's
//!   1000 Hz clock; TSval and TSecr rounded to ms, the local clock truncated): the module
//!   estimates the receiver's clock rate (remote HZ: 1000·ΔTSval/ΔTSecr between successive
//!   ACKs, integer, filtered with gain 1/64) and takes OWD = TSval·⌊1000/remoteHZ⌋ − TSecr,
//!   in the module's unsigned arithmetic (a remote HZ estimate above 1000 makes
//!   ⌊1000/remoteHZ⌋ = 0 and the "OWD" 0 − TSecr: reproduced, not repaired). The module's
//!   `u32` is 32 bits in the kernel (the OWD is then 2³² − TSecr) but `unsigned long` in
//!   ns-2.35's TCP-Linux, 64 bits on its hosts (the s64 OWD is −TSecr, made positive:
//!   TSecr); `word_bits` chooses, 64 by default for parity with ns-2;
//! - it keeps the minimum and the maximum OWD (the maximum one sample behind the largest)
//!   and a smoothed OWD (gain 1/8);
//! - the inference time is 3 × (now − TSecr), three RTTs;
//! - if the smoothed OWD exceeds min + 15 % · (max − min) (the early congestion indication),
//!   cwnd is halved (at least 1) or, within the inference time of the previous such cut, set
//!   to 1; ssthresh is not changed (so cwnd ≤ ssthresh slow-starts back); min and max restart
//!   from the smoothed OWD (min = sowd, max = 2·sowd);
//! - within the inference time after a cut, cwnd does not grow.
//!
//! The one-way delay needs the timestamps of each ACK: the backplane hands them to
//! [`CongestionControl::on_ack_timestamps`] when the flow has `tcp.timestamps = true` (ns-2's
//! TCP-Linux always uses them). Without timestamps the kernel module sees TSval = TSecr = 0:
//! no OWD, never an early congestion indication, and TCP-LP is Reno (so it is here).
//!
//! Parameters (`cc_params`): `threshold` = 15 (percent of the OWD range), `inference` = 3
//! (the inference time in multiples of the RTT), `word_bits` = 64 (or 32), `abc` = 1 (or 0,
//! above); the OWD resolution (1000) is the module's.
//!
//! In SACK recovery cwnd is the module's `min_cwnd` = ssthresh/2 (`tcp_reno_min_cwnd`), the
//! floor of Linux 2.6.22's rate halving (`linux::MinCwnd`); the sender's TCP-Linux recovery
//! (`tcp_linux`) halves the rate from the window at the loss down to it, held to what is in
//! flight + 1, and ends recovery at min(ssthresh, in flight + 3) when the floor is lower.
//!
//! Departures: byte counting by default (TCP-Linux's setting, not the kernel's); the kernel
//! runs the detection also on ACKs during fast recovery; here a cut
//! decided then is not applied (its bookkeeping is: min/max restart, the cut's time), since
//! TCP-Linux's recovery exit sets cwnd back to ssthresh anyway when it is lower. Reno's
//! increase needs a full window before the ACK (`tcp_is_cwnd_limited`, TCP-Linux's in flight
//! ≥ cwnd).
use super::linux::{self, param_flag, param_int, snd_cwnd};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Phase, Recovery, Signal};
use crate::sim::Time;

const PARAMS: &[&str] = &["threshold", "inference", "word_bits", "abc"];
/// The module's OWD resolution (units per second) and the local clock rate (HZ).
const LP_RESOL: u64 = 1000;
const HZ: u64 = 1000;
const NS_PER_MS: u64 = 1_000_000;

#[derive(Debug, Clone, Default)]
pub struct Lp {
    threshold: u64,
    inference_mult: u64,
    /// The module's `u32` arithmetic: 2^32 − 1 (the kernel) or 2^64 − 1 (ns-2's TCP-Linux,
    /// whose `u32` is `unsigned long`).
    mask: u64,
    /// The last ACK's TSval and TSecr in ms (the kernel's `rx_opt`; 0 before any).
    tsval: u64,
    tsecr: u64,
    valid_rhz: bool,
    valid_owd: bool,
    within_thr: bool,
    within_inf: bool,
    /// Smoothed OWD × 8.
    sowd: u64,
    owd_min: u64,
    owd_max: u64,
    owd_max_rsv: u64,
    remote_hz: u64,
    remote_ref_time: u64,
    local_ref_time: u64,
    last_drop: u64,
    inference: u64,
    /// A cut decided on this ACK, applied by `on_ack`: true = to 1, false = halve.
    pending_cut: Option<bool>,
    cwnd_cnt: u64,
    /// TCP-Linux's `tcp_abc = 1` (`abc`), else the kernel's default 0.
    abc: Option<linux::ByteCount>,
    min_cwnd: linux::MinCwnd,
    cuts: u64,
}

impl Lp {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "lp";
        check_params(N, params, PARAMS)?;
        let threshold = param_int(N, params, "threshold", 15, 0, 100)?;
        let inference = param_int(N, params, "inference", 3, 0, 1000)?;
        let bits = param_int(N, params, "word_bits", 64, 32, 64)?;
        if bits != 32 && bits != 64 {
            return Err(format!("{N}: word_bits = {bits} is not allowed; must be 32 or 64"));
        }
        let mut lp = Lp::new(threshold, inference, bits == 64);
        lp.abc = param_flag(N, params, "abc", true)?.then(linux::ByteCount::default);
        Ok(Box::new(lp))
    }

    pub fn new(threshold: u64, inference_mult: u64, wide: bool) -> Lp {
        Lp {
            threshold,
            inference_mult,
            mask: if wide { u64::MAX } else { u32::MAX as u64 },
            owd_min: u32::MAX as u64,
            abc: Some(linux::ByteCount::default()),
            ..Lp::default()
        }
    }

    fn sub(&self, a: u64, b: u64) -> u64 {
        a.wrapping_sub(b) & self.mask
    }

    fn mul(&self, a: u64, b: u64) -> u64 {
        a.wrapping_mul(b) & self.mask
    }

    /// A module value converted to the kernel's s64 (the 64-bit word may turn negative).
    fn signed(&self, v: u64) -> i64 {
        v as i64
    }

    /// The kernel's remote HZ estimator (also records the reference timestamps).
    fn remote_hz_estimator(&mut self) -> u64 {
        let mut rhz = (self.remote_hz as i64) << 6;
        let no_ref = self.remote_ref_time == 0 || self.local_ref_time == 0;
        if !no_ref && self.tsval != self.remote_ref_time && self.tsecr != self.local_ref_time {
            let num = self.mul(HZ, self.sub(self.tsval, self.remote_ref_time));
            let mut m = self.signed(num / self.sub(self.tsecr, self.local_ref_time));
            if m < 0 {
                m = m.wrapping_neg();
            }
            if rhz > 0 {
                m -= rhz >> 6;
                rhz += m;
            } else {
                rhz = m << 6;
            }
        }
        self.valid_rhz = (rhz >> 6) > 0;
        self.remote_ref_time = self.tsval;
        self.local_ref_time = self.tsecr;
        ((rhz >> 6) as u64) & self.mask
    }

    /// The kernel's OWD (0 = none): TSval·⌊1000/remoteHZ⌋ − TSecr in the module's unsigned
    /// word, taken as s64 and made positive.
    fn owd(&mut self) -> i64 {
        self.remote_hz = self.remote_hz_estimator();
        let mut owd = 0i64;
        if self.valid_rhz {
            let remote = self.mul(self.tsval, LP_RESOL / self.remote_hz);
            let local = self.mul(self.tsecr, LP_RESOL / HZ);
            owd = self.signed(self.sub(remote, local));
            if owd < 0 {
                owd = owd.wrapping_neg();
            }
        }
        self.valid_owd = owd > 0;
        owd
    }

    /// `tcp_lp_rtt_sample`: min, max and smoothed OWD.
    fn owd_sample(&mut self) {
        let mut m = self.owd();
        if !self.valid_rhz || !self.valid_owd {
            return;
        }
        let word = |v: i64| (v as u64) & self.mask;
        if m < self.signed(self.owd_min) {
            self.owd_min = word(m);
        }
        if m > self.signed(self.owd_max) {
            if m > self.signed(self.owd_max_rsv) {
                self.owd_max = if self.owd_max_rsv == 0 {
                    word(m)
                } else {
                    self.owd_max_rsv
                };
                self.owd_max_rsv = word(m);
            } else {
                self.owd_max = word(m);
            }
        }
        if self.sowd != 0 {
            m = m.wrapping_sub((self.sowd >> 3) as i64);
            self.sowd = word((self.sowd as i64).wrapping_add(m));
        } else {
            self.sowd = word(m.wrapping_shl(3));
        }
    }

    /// `tcp_lp_pkts_acked`: the early congestion indication; true if a cut is due.
    fn detect(&mut self, now_ms: u64) -> bool {
        self.owd_sample();
        if now_ms > self.tsecr {
            self.inference = self.mul(self.inference_mult, now_ms - self.tsecr);
        }
        self.within_inf = self.last_drop != 0 && self.sub(now_ms, self.last_drop) < self.inference;
        let range = self.sub(self.owd_max, self.owd_min);
        let limit = self.owd_min.wrapping_add(self.mul(self.threshold, range) / 100) & self.mask;
        self.within_thr = (self.sowd >> 3) < limit;
        if self.within_thr {
            return false;
        }
        self.owd_min = self.sowd >> 3;
        self.owd_max = self.sowd >> 2;
        self.owd_max_rsv = self.sowd >> 2;
        self.last_drop = now_ms;
        true
    }
}

/// A simulation time in ms, rounded (ns-2 TCP-Linux's `rcv_tsval`/`rcv_tsecr`).
fn round_ms(t: Time) -> u64 {
    (t + NS_PER_MS / 2) / NS_PER_MS
}

impl CongestionControl for Lp {
    fn name(&self) -> &'static str {
        "lp"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack_timestamps(&mut self, ts_val: Time, ts_echo: Time) {
        self.tsval = round_ms(ts_val);
        self.tsecr = round_ms(ts_echo);
    }

    fn on_ack_arrival(&mut self, st: &CcState, ack: &AckSample) {
        if let Some(abc) = &mut self.abc {
            abc.add(ack.acked);
        }
        if ack.duplicate || ack.acked == 0 {
            return;
        }
        // the kernel's tcp_time_stamp: the clock in ms, truncated
        let now_ms = st.now / NS_PER_MS;
        let cut = self.detect(now_ms);
        self.pending_cut = (cut && st.phase != Phase::FastRecovery).then_some(self.within_inf);
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if let Some(to_one) = self.pending_cut.take() {
            let w = snd_cwnd(st);
            st.cwnd = if to_one { 1.0 } else { (w >> 1).max(1) as f64 };
            self.cuts += 1;
            st.log.push(("lp_early_congestion", st.cwnd));
        }
        // Reno's increase (`tcp_reno_cong_avoid`) needs a full window before the ACK
        // (`tcp_is_cwnd_limited`), judged against the window after the cut
        if !self.within_inf && super::vegas::cwnd_limited(st, ack.acked) {
            match (&mut self.abc, linux::in_slow_start(st)) {
                (Some(abc), true) => abc.slow_start(st),
                (Some(abc), false) => abc.reno_ai(st),
                (None, true) => linux::slow_start(st),
                (None, false) => linux::reno_ai(st, &mut self.cwnd_cnt),
            }
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| (snd_cwnd(st) >> 1).max(2));
        self.min_cwnd.on_congestion(st, signal);
        linux::apply_loss(st, signal, ssthresh);
        self.cwnd_cnt = 0;
        if let Some(abc) = &mut self.abc {
            abc.reset();
        }
        self.pending_cut = None;
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
        let nan_unless = |ok: bool, v: u64| if ok { v as f64 } else { f64::NAN };
        out.push(("lp_owd", nan_unless(self.sowd != 0, self.sowd >> 3)));
        out.push(("lp_owd_min", nan_unless(self.owd_min != u32::MAX as u64, self.owd_min)));
        out.push(("lp_owd_max", self.owd_max as f64));
        out.push(("lp_remote_hz", self.remote_hz as f64));
        out.push(("lp_inference", self.inference as f64));
        out.push(("lp_within_inference", if self.within_inf { 1.0 } else { 0.0 }));
        out.push(("lp_cuts", self.cuts as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, dup_ack, one_ack, test_state};

    const MS: Time = NS_PER_MS;

    /// A new ACK of one segment with timestamps (ms): TSecr `e`, TSval `v`, arriving at `now`.
    fn ack(lp: &mut Lp, st: &mut CcState, e: Time, v: Time, now: Time) {
        st.now = now * MS;
        // a full window before the ACK (window-limited)
        st.flight = snd_cwnd(st) - 1;
        lp.on_ack_timestamps(v * MS, e * MS);
        let a = one_ack(Some((now - e) as f64 / 1e3));
        lp.on_ack_arrival(st, &a);
        lp.on_ack(st, &a);
    }

    #[test]
    fn a_rising_one_way_delay_halves_the_window_and_again_within_inference_cuts_it_to_one() {
        let mut lp = Lp::new(15, 3, true);
        let mut st = test_state(40.0, 10.0);
        // the first ACK only records the reference timestamps
        ack(&mut lp, &mut st, 1000, 1020, 1040);
        assert!(!lp.valid_rhz);
        assert_eq!(st.cwnd, 40.0);
        // remote HZ = 1000·10/10; OWD = 1030 − 1010 = 20 = min = max = smoothed: not below
        // min + 15 % of a zero range, so the very first sample cuts (the kernel does), 40 → 20,
        // then Reno's increase counts the ACK
        ack(&mut lp, &mut st, 1010, 1030, 1050);
        assert_eq!((lp.remote_hz, lp.sowd, lp.owd_min, lp.owd_max), (1000, 160, 20, 40));
        assert_eq!(
            (st.cwnd, st.ssthresh, lp.last_drop, lp.inference),
            (20.0, 10.0, 1050, 120)
        );
        // ΔTSval/ΔTSecr = 1010/1000: the estimate stays 1000 (+10/64 truncated); OWD 30,
        // sowd = 160 + 30 − 20 = 170 (21 < 20 + 15·20/100 = 23)
        ack(&mut lp, &mut st, 2010, 2040, 2050);
        assert_eq!((lp.remote_hz, lp.sowd, lp.cuts), (1000, 170, 1));
        // OWD 40: sowd = 170 + 40 − 21 = 189, 23 ≥ 23: a cut, 2000 ms after the last one
        // (inference 3·40 ms): halve 20 → 10, min = 23, max = 189/4 = 47; then slow start
        // (10 ≤ ssthresh 10) adds one
        ack(&mut lp, &mut st, 3010, 3050, 3050);
        assert_eq!((lp.sowd, lp.owd_min, lp.owd_max, lp.cuts), (189, 23, 47, 2));
        assert_eq!((st.cwnd, st.ssthresh), (11.0, 10.0));
        // 100 ms later (< 120 ms of inference), OWD 46 (m = 1060: still 1000 Hz):
        // sowd = 189 + 46 − 23 = 212, 26 ≥ 23 + 15·24/100 = 26: cut to 1, no increase
        ack(&mut lp, &mut st, 3110, 3156, 3150);
        assert_eq!((lp.remote_hz, lp.sowd, lp.owd_min, lp.owd_max), (1000, 212, 26, 53));
        assert_eq!((st.cwnd, lp.cuts), (1.0, 3));
        assert!(lp.within_inf);
        // within the inference time the window does not grow
        ack(&mut lp, &mut st, 3120, 3166, 3160);
        assert_eq!((lp.sowd, lp.cuts, st.cwnd), (232, 3, 1.0));
        assert!(lp.within_thr && lp.within_inf);
        assert!(st.log.iter().filter(|(n, _)| *n == "lp_early_congestion").count() == 3);
    }

    #[test]
    fn a_remote_hz_estimate_above_1000_makes_the_owd_minus_tsecr_in_the_modules_word() {
        for (wide, owd) in [(false, (1u64 << 32) as i64 - 1020), (true, 1020)] {
            let mut lp = Lp::new(15, 3, wide);
            let mut st = test_state(40.0, 10.0);
            ack(&mut lp, &mut st, 1000, 1020, 1040);
            ack(&mut lp, &mut st, 1010, 1030, 1050);
            // m = 1000·11/10 = 1100: 1000 + ⌊100/64⌋ = 1001; ⌊1000/1001⌋ = 0 and the OWD is
            // 0 − 1020 in the unsigned word: 2³² − 1020 in the kernel's u32; in ns-2's
            // (unsigned long, 64 bits) the s64 is −1020, made positive
            lp.on_ack_timestamps(1041 * MS, 1020 * MS);
            assert_eq!(lp.owd(), owd);
            assert_eq!(lp.remote_hz, 1001);
        }
        let mut p = Params::new();
        p.insert("word_bits".into(), 48.0);
        assert_eq!(
            create("lp", &p).err().unwrap(),
            "lp: word_bits = 48 is not allowed; must be 32 or 64"
        );
    }

    #[test]
    fn sack_recovery_holds_cwnd_at_half_ssthresh() {
        // Reno's ssthresh 20 from 40; in recovery cwnd is the floor 10 (the sender's
        // TCP-Linux recovery halves the rate down to it), which the exit keeps
        let mut lp = Lp::new(15, 3, true);
        assert!(lp.tcp_linux());
        let mut st = test_state(40.0, 100.0);
        lp.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (20.0, 20.0));
        let dup = dup_ack();
        lp.on_recovery_ack(&mut st, &dup);
        assert_eq!((st.cwnd, st.recovery_base), (10.0, 10.0));
        lp.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 10.0);
    }

    #[test]
    fn without_timestamps_lp_is_reno() {
        let reno = |abc: bool| {
            let mut lp = Lp::new(15, 3, true);
            if !abc {
                lp.abc = None;
            }
            let mut st = test_state(5.0, 10.0);
            let a = one_ack(None);
            for i in 0..190u64 {
                st.now = i * 10 * MS;
                st.flight = snd_cwnd(&st) - 1;
                lp.on_ack_arrival(&st, &a);
                lp.on_ack(&mut st, &a);
            }
            (lp, st)
        };
        // slow start 5 → 11 in 6 ACKs (cwnd ≤ ssthresh = 10 grows), then Reno's increase
        // over the 184 ACKs left: with TCP-Linux's byte counting (tcp_abc = 1) +1 per cwnd
        // segments, 11 + 12 + … + 21 = 176 buy 11 segments; with the kernel's default
        // (abc = 0) +1 per cwnd + 1 ACKs, 12 + … + 21 = 165 buy 10 (the 11th needs 187)
        let (_, st) = reno(false);
        assert_eq!(st.cwnd, 21.0);
        let (mut lp, mut st) = reno(true);
        let a = one_ack(None);
        assert_eq!(st.cwnd, 22.0);
        assert_eq!(lp.cuts, 0);
        // not window-limited (8 of 22 out before the ACK): no growth
        st.flight = 7;
        lp.on_ack(&mut st, &a);
        assert_eq!(st.cwnd, 22.0);
        lp.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (11.0, 11.0));
        let mut p = Params::new();
        p.insert("threshold".into(), 101.0);
        assert_eq!(
            create("lp", &p).err().unwrap(),
            "lp: threshold = 101 is not allowed; must be an integer in [0, 100]"
        );
        let mut p = Params::new();
        p.insert("abc".into(), 2.0);
        assert_eq!(
            create("lp", &p).err().unwrap(),
            "lp: abc = 2 is not allowed; must be 0 or 1"
        );
    }
}
