//! TCP Westwood+ (Mascolo, Grieco, Ferorelli, Camarda, Piscitelli: "Performance evaluation
//! of Westwood+ TCP congestion control", Performance Evaluation 2004; Grieco, Mascolo, CCR
//! 2004) as Linux 2.6.22's `tcp_westwood.c` (ns-2.35 TCP-Linux): `westwood_plus`. Not the
//! same algorithm as tcplab's `westwood_be`/`westwood_re`/`westwood_crb` (the UCLA ns-2
//! module of Gerla et al., with a per-ACK Tustin filter).
//!
//! The bandwidth estimate is built once per RTT: the segments acknowledged (duplicate ACKs
//! count one segment each, a later cumulative ACK is credited only with what they did not
//! cover) are summed over an interval of at least max(RTT, 50 ms), and the sample b_k =
//! segments / interval is filtered twice with gain 1/8: b̂'ₖ = (7 b̂'ₖ₋₁ + b_k)/8,
//! BWE = (7 BWE + b̂'ₖ)/8 (the first sample fills both). Time is counted in jiffies as the
//! kernel does: RTT is the kernel's srtt in whole jiffies (`srtt >> 3`), kept here from the
//! flow's RTT samples with the kernel's estimator (samples rounded to the jiffy, at least
//! one; srtt ← srtt + (m − srtt)/8 in fixed point with 3 fractional bits), not the
//! backplane's srtt, whose samples are rounded to the flow's `tick` (10 ms by default: a
//! 45 ms path read as 50 ms made BWE·RTTmin 11 % too large); the interval runs from jiffy
//! to jiffy. RTTmin is the smallest such RTT. Growth is Reno's (`tcp_reno_cong_avoid`, only
//! when the window was full before the ACK, `tcp_is_cwnd_limited`) with the Appropriate Byte
//! Counting ns-2.35's TCP-Linux runs it with (`sysctl_tcp_abc` = 1 there, `linux::ByteCount`):
//! +1 once cwnd segments are acknowledged, counting those acknowledged during a recovery, so
//! the window grows faster right after one; `abc = 0` is the 2.6.22 kernel's default (+1 per
//! cwnd + 1 ACKs). On duplicate ACKs ssthresh = max(⌊cwnd/2⌋, 2)
//! during recovery, and when recovery ends cwnd = ssthresh = max(⌊BWE·RTTmin⌋, 2) (the
//! kernel's `CA_EVENT_COMPLETE_CWR`). In SACK recovery cwnd
//! follows Linux's rate halving (`tcp_cwnd_down`) toward the module's `min_cwnd` =
//! BWE·RTTmin, not below it (`linux::MinCwnd`, capped at max(ssthresh, BWE·RTTmin)
//! since our recovery starts at ssthresh): after random losses, when BWE·RTTmin is above
//! Reno's ssthresh, the window hardly falls. After a timeout the
//! kernel keeps Reno's ssthresh = max(⌊cwnd/2⌋, 2) and cwnd = 1; the paper sets ssthresh =
//! BWE·RTTmin there too: `timeout_bwe = 1`.
//!
//! `tcp_linux_exit = 1` reproduces ns-2.35 TCP-Linux's glue instead of the kernel at the
//! end of fast recovery: the glue never sends `CA_EVENT_COMPLETE_CWR`; it sets cwnd to
//! `min_cwnd` (BWE·RTTmin taken at the loss) when recovery starts, keeps Reno's ssthresh,
//! and when recovery ends raises a cwnd below ssthresh to min(ssthresh, in flight + 3),
//! from where slow start goes on to ssthresh. The window after a loss is then
//! max(BWE·RTTmin, Reno's), never the kernel's BWE·RTTmin below Reno's half. Not
//! reproduced: the glue's rate-halving window during recovery, which follows the packets
//! in flight + 1 down (one segment per two ACKs) and is only floored at `min_cwnd`; here
//! the window during SACK recovery is the one above (that needs the sender's pipe).
//!
//! Parameters (`cc_params`): `timeout_bwe` = 0, `min_interval` = 0.05 s (the kernel's
//! TCP_WESTWOOD_RTT_MIN), `hz` = 1000 (jiffies per second: ns-2's TCP-Linux, and the
//! kernel's HZ), `tcp_linux_exit` = 0, `abc` = 1 (TCP-Linux's byte counting; 0: the
//! kernel's default).
//!
//! Departures from the kernel: byte counting by default (TCP-Linux's setting, above); a
//! float estimate (segments per second, not bytes per jiffy);
//! RTT samples only from ACKs of new data that carry one (with timestamps, every such ACK;
//! ns-2's glue also feeds the duplicate ACKs' echoes to srtt); the kernel's fast path
//! (in-order ACKs counted without the duplicate-ACK bookkeeping) is the same count here;
//! the first ACK is credited (the kernel's `first_ack` credits it nothing).
use super::linux::{self, param_flag, param_in, param_int, snd_cwnd};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

#[derive(Debug, Clone)]
pub struct WestwoodPlus {
    timeout_bwe: bool,
    min_interval: f64,
    bw_ns_est: f64,
    bw_est: f64,
    hz: f64,
    tcp_linux_exit: bool,
    /// Start of the sampling interval, in jiffies.
    rtt_win_sx: Option<u64>,
    bk: f64,
    accounted: u64,
    /// The kernel's srtt: jiffies with 3 fractional bits (0 = no sample yet).
    srtt8: u64,
    /// srtt >> 3 and the smallest of it, in jiffies.
    rtt: u64,
    rtt_min: Option<u64>,
    /// BWE·RTTmin when the last recovery started (the glue's `min_cwnd` call).
    loss_min_cwnd: f64,
    cwnd_cnt: u64,
    min_cwnd: linux::MinCwnd,
    /// TCP-Linux's `tcp_abc = 1` (`abc`), else the kernel's default 0.
    abc: Option<linux::ByteCount>,
}

impl WestwoodPlus {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "westwood_plus";
        check_params(
            N,
            params,
            &["timeout_bwe", "min_interval", "hz", "tcp_linux_exit", "abc"],
        )?;
        let min_interval = param_in(N, params, "min_interval", 0.05, 0.0, 1e3)?;
        if min_interval < 1e-6 {
            return Err(format!(
                "{N}: min_interval = {min_interval} is not allowed; must be >= 0.000001 s (1 µs)"
            ));
        }
        let mut w = WestwoodPlus::new(param_flag(N, params, "timeout_bwe", false)?, min_interval);
        w.hz = param_int(N, params, "hz", 1000, 10, 1_000_000)? as f64;
        w.tcp_linux_exit = param_flag(N, params, "tcp_linux_exit", false)?;
        w.abc = param_flag(N, params, "abc", true)?.then(linux::ByteCount::default);
        Ok(Box::new(w))
    }

    pub fn new(timeout_bwe: bool, min_interval: f64) -> WestwoodPlus {
        WestwoodPlus {
            timeout_bwe,
            min_interval,
            bw_ns_est: 0.0,
            bw_est: 0.0,
            hz: 1000.0,
            tcp_linux_exit: false,
            rtt_win_sx: None,
            bk: 0.0,
            accounted: 0,
            srtt8: 0,
            rtt: 0,
            rtt_min: None,
            loss_min_cwnd: 0.0,
            cwnd_cnt: 0,
            min_cwnd: linux::MinCwnd::default(),
            abc: Some(linux::ByteCount::default()),
        }
    }

    /// The kernel's `tcp_time_stamp`: whole jiffies.
    fn jiffies(&self, st: &CcState) -> u64 {
        crate::sim::floor(linux::now_secs(st) * self.hz) as u64
    }

    /// The kernel's `tcp_rtt_estimator` for srtt: a sample of `rtt` seconds, in whole
    /// jiffies (at least one).
    fn rtt_sample(&mut self, rtt: f64) {
        let m = ((rtt * self.hz).round() as u64).max(1);
        if self.srtt8 == 0 {
            self.srtt8 = m << 3;
        } else {
            self.srtt8 = (self.srtt8 + m).saturating_sub(self.srtt8 >> 3).max(1);
        }
        self.rtt = self.srtt8 >> 3;
    }

    fn filter(&mut self, delta: f64) {
        let sample = self.bk / delta;
        if self.bw_ns_est == 0.0 && self.bw_est == 0.0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }

    /// RTTmin in seconds (0 before the first sample).
    fn rtt_min_secs(&self) -> f64 {
        self.rtt_min.map_or(0.0, |r| r as f64 / self.hz)
    }

    /// The kernel's `westwood_acked_count`, in segments.
    fn acked_count(&mut self, ack: &AckSample) -> u64 {
        let mut cumul = ack.acked;
        if cumul == 0 {
            self.accounted += 1;
            cumul = 1;
        }
        if cumul > 1 {
            if self.accounted >= cumul {
                self.accounted -= cumul;
                cumul = 1;
            } else {
                cumul -= self.accounted;
                self.accounted = 0;
            }
        }
        cumul
    }

    /// BWE·RTTmin in whole segments, at least 2.
    fn bw_rttmin(&self) -> f64 {
        crate::sim::floor(self.bw_est * self.rtt_min_secs()).max(2.0)
    }
}

impl CongestionControl for WestwoodPlus {
    fn name(&self) -> &'static str {
        "westwood_plus"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack_arrival(&mut self, st: &CcState, ack: &AckSample) {
        if let (false, Some(r)) = (ack.duplicate, ack.rtt) {
            self.rtt_sample(r);
        }
        if let Some(abc) = &mut self.abc {
            abc.add(ack.acked);
        }
        let now = self.jiffies(st);
        let start = *self.rtt_win_sx.get_or_insert(now);
        let delta = now - start;
        // TCP_WESTWOOD_RTT_MIN is HZ/20 jiffies: min_interval in whole jiffies
        let min_interval = crate::sim::floor(self.min_interval * self.hz) as u64;
        if self.rtt > 0 && delta > self.rtt.max(min_interval) {
            self.filter(delta as f64 / self.hz);
            self.bk = 0.0;
            self.rtt_win_sx = Some(now);
        }
        self.bk += self.acked_count(ack) as f64;
        if self.rtt > 0 {
            self.rtt_min = Some(self.rtt_min.map_or(self.rtt, |m| m.min(self.rtt)));
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        // `tcp_reno_cong_avoid`: nothing unless the window was full before the ACK
        if !super::vegas::cwnd_limited(st, ack.acked) {
            return;
        }
        match (&mut self.abc, linux::in_slow_start(st)) {
            (Some(abc), true) => abc.slow_start(st),
            (Some(abc), false) => abc.reno_ai(st),
            (None, true) => linux::slow_start(st),
            (None, false) => linux::reno_ai(st, &mut self.cwnd_cnt),
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| {
            if signal == Signal::Timeout && self.timeout_bwe {
                self.bw_rttmin() as u64
            } else {
                (snd_cwnd(st) / 2).max(2)
            }
        });
        self.loss_min_cwnd = self.bw_rttmin();
        self.min_cwnd.on_congestion(st, signal);
        linux::apply_loss(st, signal, ssthresh);
        self.cwnd_cnt = 0;
        if let Some(abc) = &mut self.abc {
            abc.reset();
        }
    }

    fn on_recovery_ack(&mut self, st: &mut CcState, _ack: &AckSample) {
        // the kernel's min_cwnd is BWE·RTTmin: the rate halving stops there, above Reno's
        // ssthresh when the estimate is larger (random losses); TCP-Linux's glue asks for
        // it once, at the loss
        let m = if self.tcp_linux_exit {
            self.loss_min_cwnd
        } else {
            self.bw_rttmin()
        };
        self.min_cwnd.on_ack_to(st, m as u64);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        self.min_cwnd.stop();
        if self.tcp_linux_exit {
            let m = self.loss_min_cwnd;
            st.cwnd = if m < st.ssthresh {
                st.ssthresh.min(st.flight as f64 + 3.0)
            } else {
                m
            };
            return;
        }
        let w = self.bw_rttmin();
        st.log.push(("westwood_bw_rttmin", w));
        st.cwnd = w;
        st.ssthresh = w;
    }

    fn tcp_linux(&self) -> bool {
        true
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("wplus_bwe", self.bw_est));
        out.push(("wplus_rtt_min", self.rtt_min.map_or(f64::NAN, |_| self.rtt_min_secs())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state};
    use crate::sim::secs;

    fn ack(n: u64) -> AckSample {
        AckSample {
            acked: n,
            duplicate: n == 0,
            rtt: None,
            rate: None,
        }
    }

    fn timed(n: u64, rtt: f64) -> AckSample {
        AckSample {
            rtt: Some(rtt),
            ..ack(n)
        }
    }

    #[test]
    fn two_stage_filter_with_gain_one_eighth() {
        let mut w = WestwoodPlus::new(false, 0.05);
        w.bk = 10.0;
        w.filter(0.1); // first sample 100 seg/s fills both
        assert_eq!((w.bw_ns_est, w.bw_est), (100.0, 100.0));
        w.bk = 20.0;
        w.filter(0.1); // 200: b̂' = (700 + 200)/8 = 112.5, BWE = (700 + 112.5)/8 = 101.5625
        assert_eq!((w.bw_ns_est, w.bw_est), (112.5, 101.5625));
    }

    #[test]
    fn samples_are_taken_once_per_rtt_but_not_under_50_ms() {
        let mut w = WestwoodPlus::new(false, 0.05);
        let mut st = test_state(10.0, 5.0);
        // one segment per 3 ms: the first interval > max(20 ms, 50 ms) ends at 1.051 s
        for i in 0..17 {
            st.now = secs(1.0 + i as f64 * 0.003);
            w.on_ack_arrival(&st, &timed(1, 0.02));
        }
        assert_eq!(w.bw_est, 0.0, "48 ms: no sample yet");
        st.now = secs(1.0505);
        w.on_ack_arrival(&st, &timed(1, 0.02));
        assert_eq!(w.bw_est, 0.0, "jiffy 1050: 50 jiffies, not more than 50");
        st.now = secs(1.051);
        w.on_ack_arrival(&st, &timed(1, 0.02));
        // 18 segments (1.000 .. 1.0505) over 51 jiffies
        assert!((w.bw_est - 18.0 / 0.051).abs() < 1e-6, "{}", w.bw_est);
        assert_eq!(w.bk, 1.0, "the ACK that closed the interval opens the next");
        assert_eq!(w.rtt_min, Some(20));
    }

    #[test]
    fn rtt_is_the_kernels_srtt_in_whole_jiffies_not_the_flows_tick() {
        // ns-2's TCP-Linux (HZ 1000): samples 45.4, 52.6, 44.9 ms are 45, 53, 45 jiffies;
        // srtt·8 = 360, then 360 + 53 − 45 = 368 (srtt 46), then 368 + 45 − 46 = 367 (45).
        // The backplane's srtt with a 10 ms tick reads 50 ms here; it must not be used.
        let mut w = WestwoodPlus::new(false, 0.05);
        let mut st = test_state(10.0, 5.0);
        st.srtt = 0.05;
        w.on_ack_arrival(&st, &timed(1, 0.0454));
        assert_eq!((w.srtt8, w.rtt, w.rtt_min), (360, 45, Some(45)));
        w.on_ack_arrival(&st, &timed(1, 0.0526));
        assert_eq!((w.srtt8, w.rtt, w.rtt_min), (368, 46, Some(45)));
        w.on_ack_arrival(&st, &ack(0));
        assert_eq!(w.srtt8, 368, "a duplicate ACK gives no sample");
        w.on_ack_arrival(&st, &timed(1, 0.0449));
        assert_eq!((w.srtt8, w.rtt, w.rtt_min), (367, 45, Some(45)));
        // BWE·RTTmin with 1000 segments/s: 45 segments (50 with the backplane's srtt)
        w.bw_est = 1000.0;
        assert_eq!(w.bw_rttmin(), 45.0);
        // a sample under half a jiffy counts one; HZ 250: 45.4 ms is 11 jiffies (44 ms)
        let mut w = WestwoodPlus::new(false, 0.05);
        w.rtt_sample(0.0004);
        assert_eq!(w.rtt, 1);
        let mut p = Params::new();
        p.insert("hz".into(), 250.0);
        let mut cc = create("westwood_plus", &p).unwrap();
        cc.on_ack_arrival(&st, &timed(1, 0.0454));
        let mut out = Vec::new();
        cc.samples(&mut out);
        assert_eq!(out[1], ("wplus_rtt_min", 0.044));
        p.insert("hz".into(), 0.5);
        let e = WestwoodPlus::create(&p).err().expect("hz 0.5 is refused");
        assert!(e.contains("westwood_plus: hz = 0.5"), "{e}");
    }

    #[test]
    fn in_sack_recovery_cwnd_is_the_floor_bwe_times_rtt_min() {
        // Linux 2.6.22: min_cwnd = BWE·RTTmin, the floor of the recovery window (the sender's
        // rate halving keeps the sending rate above it), even above Reno's ssthresh; the end
        // of recovery sets cwnd = ssthresh = BWE·RTTmin.
        let mut w = WestwoodPlus::new(false, 0.05);
        w.bw_est = 600.0;
        w.rtt_min = Some(50);
        let mut st = test_state(40.0, 1e9);
        w.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (20.0, 20.0));
        w.on_recovery_ack(&mut st, &ack(0));
        assert_eq!(st.cwnd, 30.0, "600 segments/s × 50 ms");
        w.on_recovery_exit(&mut st);
        assert_eq!((st.cwnd, st.ssthresh), (30.0, 30.0));
        // an estimate below Reno's ssthresh: the floor is 10
        w.bw_est = 200.0;
        let mut st = test_state(40.0, 1e9);
        w.on_congestion(&mut st, Signal::DupAcks);
        w.on_recovery_ack(&mut st, &ack(0));
        assert_eq!((st.cwnd, st.ssthresh), (10.0, 20.0));
    }

    #[test]
    fn the_segments_acknowledged_in_recovery_count_toward_the_growth_after_it() {
        // ns-2.35's TCP-Linux runs tcp_reno_cong_avoid with tcp_abc = 1. With its exit
        // (tcp_linux_exit): cwnd 64 with 64 in flight, BWE·RTTmin = 700 segments/s × 50 ms
        // = 35 above Reno's ssthresh 32; the recovery's ACKs acknowledge 64 segments (10
        // partial, then 54) and it ends at cwnd 35. Then ACKs of one segment each with the
        // window full: 65 counted ≥ 35 → 36 (30 left); 31..35 < 36; 36 ≥ 36 → 37 (0 left);
        // 1 < 37. Without ABC (the kernel's default) the counter starts at the loss and the
        // window grows after 36 ACKs.
        let grow = |abc: bool| {
            let mut w = WestwoodPlus::new(false, 0.05);
            w.tcp_linux_exit = true;
            if !abc {
                w.abc = None;
            }
            w.bw_est = 700.0;
            w.rtt_min = Some(50);
            w.rtt = 50;
            let mut st = test_state(64.0, 1e9);
            st.flight = 64;
            w.on_congestion(&mut st, Signal::DupAcks);
            for n in [10, 54] {
                w.on_ack_arrival(&st, &ack(n));
            }
            w.on_recovery_exit(&mut st);
            assert_eq!((st.cwnd, st.ssthresh), (35.0, 32.0));
            st.flight = 35;
            let mut after = vec![];
            for _ in 0..8 {
                w.on_ack_arrival(&st, &ack(1));
                w.on_ack(&mut st, &ack(1));
                after.push(st.cwnd);
            }
            // a window not full before the ACK (tcp_is_cwnd_limited) does not grow
            st.flight = 5;
            for _ in 0..40 {
                w.on_ack_arrival(&st, &ack(1));
                w.on_ack(&mut st, &ack(1));
            }
            after.push(st.cwnd);
            after
        };
        assert_eq!(grow(true), vec![36.0, 36.0, 36.0, 36.0, 36.0, 36.0, 37.0, 37.0, 37.0]);
        assert_eq!(grow(false), vec![35.0; 9]);
        let mut p = Params::new();
        assert!(WestwoodPlus::create(&p).is_ok());
        p.insert("abc".into(), 0.0);
        assert!(WestwoodPlus::create(&p).is_ok());
        p.insert("abc".into(), 0.5);
        let e = WestwoodPlus::create(&p).err().expect("abc 0.5 is refused");
        assert!(e.contains("westwood_plus: abc = 0.5"), "{e}");
    }

    #[test]
    fn duplicate_acks_are_credited_once() {
        let mut w = WestwoodPlus::new(false, 0.05);
        assert_eq!(w.acked_count(&ack(0)), 1);
        assert_eq!(w.acked_count(&ack(0)), 1);
        assert_eq!(w.acked_count(&ack(0)), 1);
        // the cumulative ACK after the retransmission covers 4: 3 were credited → 1 new
        assert_eq!(w.acked_count(&ack(4)), 1);
        assert_eq!(w.accounted, 0);
        // a delayed ACK of 2 with nothing accounted: 2
        assert_eq!(w.acked_count(&ack(2)), 2);
        // accounted ≥ cumulative: credited 1, the rest stays accounted
        w.accounted = 5;
        assert_eq!(w.acked_count(&ack(3)), 1);
        assert_eq!(w.accounted, 2);
    }

    #[test]
    fn recovery_ends_at_bwe_times_rtt_min() {
        let mut w = WestwoodPlus::new(false, 0.05);
        w.bw_est = 500.0;
        w.rtt_min = Some(100);
        let mut st = test_state(80.0, 1e9);
        w.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (40.0, 40.0));
        w.on_recovery_exit(&mut st);
        assert_eq!((st.ssthresh, st.cwnd), (50.0, 50.0));
        // timeout: Reno's ssthresh (kernel) or BWE·RTTmin (paper)
        let mut st = test_state(80.0, 1e9);
        w.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.ssthresh, st.cwnd), (40.0, 1.0));
        let mut p = Params::new();
        p.insert("timeout_bwe".into(), 1.0);
        let mut cc = create("westwood_plus", &p).unwrap();
        let mut st = test_state(80.0, 1e9);
        cc.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.ssthresh, st.cwnd), (2.0, 1.0), "no estimate yet: the floor of 2");
    }

    #[test]
    fn tcp_linux_exit_keeps_renos_ssthresh_and_the_larger_window() {
        // ns-2's glue: cwnd = min_cwnd (BWE·RTTmin at the loss) from the loss on, Reno's
        // ssthresh kept; at the end a window below ssthresh is raised to min(ssthresh, in
        // flight + 3).
        let mut p = Params::new();
        p.insert("tcp_linux_exit".into(), 1.0);
        assert!(WestwoodPlus::create(&p).is_ok());
        p.insert("tcp_linux_exit".into(), 2.0);
        assert!(WestwoodPlus::create(&p).is_err());
        let mut w = WestwoodPlus::new(false, 0.05);
        w.tcp_linux_exit = true;
        w.bw_est = 500.0;
        w.rtt_min = Some(100);
        // BWE·RTTmin = 500 · 0.1 = 50 above Reno's 80/2: cwnd stays 50
        let mut st = test_state(80.0, 1e9);
        w.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(st.ssthresh, 40.0);
        for _ in 0..100 {
            w.on_recovery_ack(&mut st, &ack(0));
        }
        assert_eq!(st.cwnd, 50.0);
        w.on_recovery_exit(&mut st);
        assert_eq!((st.cwnd, st.ssthresh), (50.0, 40.0), "the kernel: 50, 50");
        // from 120: Reno's 60 above 50; the window halves to 50 and is raised at the end
        // to min(60, 20 in flight + 3)
        let mut st = test_state(120.0, 1e9);
        w.on_congestion(&mut st, Signal::DupAcks);
        for _ in 0..200 {
            w.on_recovery_ack(&mut st, &ack(0));
        }
        assert_eq!((st.cwnd, st.ssthresh), (50.0, 60.0));
        st.flight = 20;
        w.on_recovery_exit(&mut st);
        assert_eq!((st.cwnd, st.ssthresh), (23.0, 60.0), "the kernel: 50, 50");
    }
}
