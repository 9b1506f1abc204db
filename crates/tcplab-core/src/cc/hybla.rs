//! TCP Hybla as Linux 2.6.22's `tcp_hybla.c` (ns-2.35 TCP-Linux): `hybla` (Caini,
//! Firrincieli: "TCP Hybla: a TCP enhancement for heterogeneous networks", International
//! Journal of Satellite Communications and Networking, 2004).
//!
//! A connection with a long RTT grows as fast in time as one with the reference RTT0 = 25 ms:
//! ρ = max(srtt/RTT0, 1) (kept in eighths: ρ₈ = max(⌊8·srtt/RTT0⌋, 8), recomputed when srtt
//! reaches a new minimum), and per ACK cwnd += 2^ρ − 1 in slow start (2^⌊ρ⌋ times a table of
//! 2^(k/8) in 1/128, clamped to ssthresh) and ρ²/cwnd in congestion avoidance, in 1/128
//! of a segment with the fractions carried over (the kernel's `snd_cwnd_cents`). Loss: Reno's
//! ssthresh = max(⌊cwnd/2⌋, 2), cwnd = ssthresh (1 after a timeout); outside the open state
//! (the Loss state after a timeout, until what was outstanding then is acknowledged) the
//! increase is Reno's.
//!
//! Parameters (`cc_params`): `rtt0` = 0.025 s.
//!
//! In SACK recovery cwnd is the module's `min_cwnd` = ssthresh/2 (`tcp_reno_min_cwnd`), the
//! floor of Linux 2.6.22's rate halving (`linux::MinCwnd`); the sender's TCP-Linux recovery
//! (`tcp_linux`) halves the rate from the window at the loss down to it, held to what is in
//! flight + 1, and ends recovery at min(ssthresh, in flight + 3) when the floor is lower.
//!
//! The module's `init` runs at the first ACK with an srtt (where ns-2.35's TCP-Linux calls
//! it; the kernel takes the srtt of the handshake): ρ from that srtt, and cwnd = ρ segments
//! (the kernel's `snd_cwnd = rho`). Nothing grows unless the window was full before the ACK
//! (`tcp_is_cwnd_limited`, TCP-Linux's in_flight ≥ cwnd).
//!
//! ρ comes from the srtt the backplane keeps, whose samples are rounded to the flow's
//! `tcp.tick`: ns-2.35's TCP-Linux sets its tick to 1 ms when `select_ca` installs the first
//! module (whatever `tcpTick_` the script set), so for parity run hybla with
//! `tcp.tick = 0.001` (with 10 ms an 84 ms path gives srtt 80 ms and ρ₈ = 25 instead of 26).
//!
//! The module's `init` sets the window clamp to 65535 segments (`snd_cwnd_clamp`), and its
//! increase never takes cwnd beyond it: with a large ρ (a long srtt, or one rounded up to a
//! coarse `tcp.tick`) slow start adds 2^ρ segments per ACK, and without the clamp one ACK could
//! open the window by a million segments.
use super::linux::{self, param_in, snd_cwnd};
use super::vegas::cwnd_limited;
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

/// The window clamp the module's `init` sets (segments).
const CWND_CLAMP: f64 = 65535.0;

/// 2^(k/8) in 1/128 for k = 0..7 (the kernel's table).
const FRACTIONS: [u64; 8] = [128, 139, 152, 165, 181, 197, 215, 234];

#[derive(Debug, Clone)]
pub struct Hybla {
    rtt0: f64,
    rho: u64,
    rho_3ls: u64,
    rho2_7ls: u64,
    cents: u64,
    /// smallest srtt seen (seconds)
    min_srtt: f64,
    cwnd_cnt: u64,
    min_cwnd: linux::MinCwnd,
    loss: linux::LossState,
    /// the module's init has run (at the first ACK with an srtt)
    started: bool,
}

impl Hybla {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "hybla";
        check_params(N, params, &["rtt0"])?;
        let rtt0 = param_in(N, params, "rtt0", 0.025, 0.0, 1e3)?;
        if rtt0 < 1e-6 {
            return Err(format!(
                "{N}: rtt0 = {rtt0} is not allowed; must be >= 0.000001 s (1 µs)"
            ));
        }
        Ok(Box::new(Hybla::new(rtt0)))
    }

    pub fn new(rtt0: f64) -> Hybla {
        let mut h = Hybla {
            rtt0,
            rho: 0,
            rho_3ls: 0,
            rho2_7ls: 0,
            cents: 0,
            min_srtt: f64::INFINITY,
            cwnd_cnt: 0,
            min_cwnd: linux::MinCwnd::default(),
            loss: linux::LossState::default(),
            started: false,
        };
        h.recalc(0.0);
        h
    }

    fn recalc(&mut self, srtt: f64) {
        // (ρ capped at 2^20 so that 2^ρ and ρ² stay representable; the 1e-9 keeps exact
        // ratios such as 0.1/0.025 from rounding down)
        self.rho_3ls = (crate::sim::floor(8.0 * srtt / self.rtt0 + 1e-9).min(8.0 * 1048576.0) as u64).max(8);
        self.rho = self.rho_3ls >> 3;
        self.rho2_7ls = (self.rho_3ls * self.rho_3ls) << 1;
    }
}

impl CongestionControl for Hybla {
    fn name(&self) -> &'static str {
        "hybla"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        self.loss.on_ack(ack.acked);
        if !self.started && st.srtt > 0.0 {
            // the module's init, where TCP-Linux calls it (the first ACK): ρ from this srtt,
            // and the window becomes ρ segments
            self.started = true;
            self.recalc(st.srtt);
            self.min_srtt = st.srtt;
            st.cwnd = self.rho as f64;
        }
        if st.srtt > 0.0 && st.srtt < self.min_srtt {
            self.recalc(st.srtt);
            self.min_srtt = st.srtt;
        }
        if !cwnd_limited(st, ack.acked) {
            return;
        }
        if self.loss.active() {
            if linux::in_slow_start(st) {
                linux::slow_start(st);
            } else {
                linux::reno_ai(st, &mut self.cwnd_cnt);
            }
            return;
        }
        let fraction = self.rho_3ls - (self.rho << 3);
        let slow_start = st.cwnd < st.ssthresh;
        let increment = if slow_start {
            (1u64 << self.rho.min(40)) * FRACTIONS[fraction as usize] - 128
        } else {
            self.rho2_7ls / snd_cwnd(st)
        };
        st.cwnd += (increment >> 7) as f64;
        self.cents += increment % 128;
        while self.cents >= 128 {
            st.cwnd += 1.0;
            self.cents -= 128;
        }
        if slow_start {
            st.cwnd = st.cwnd.min(st.ssthresh);
        }
        st.cwnd = st.cwnd.min(CWND_CLAMP);
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| (snd_cwnd(st) / 2).max(2));
        self.min_cwnd.on_congestion(st, signal);
        linux::apply_loss(st, signal, ssthresh);
        self.cwnd_cnt = 0;
        self.loss.on_signal(st, signal);
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
        out.push(("hybla_rho", self.rho_3ls as f64 / 8.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state};

    fn ack() -> AckSample {
        AckSample {
            acked: 1,
            duplicate: false,
            rtt: None,
            rate: None,
        }
    }

    #[test]
    fn the_window_stops_at_the_modules_clamp() {
        // srtt 0.5 s: ρ = 20, slow start adds 2^20 − 1 segments per ACK; the kernel's
        // snd_cwnd_clamp (65535, set by hybla_init) holds it.
        let mut h = Hybla::new(0.025);
        h.started = true;
        let mut st = test_state(2.0, 1e9);
        st.srtt = 0.5;
        h.on_ack(&mut st, &ack());
        assert_eq!((h.rho, st.cwnd), (20, 65535.0));
        h.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 65535.0);
    }

    #[test]
    fn rho_scales_slow_start_and_congestion_avoidance() {
        // srtt 100 ms: ρ = 4 (ρ₈ = 32). Slow start: +2^4 − 1 = 15 per ACK.
        let mut h = Hybla::new(0.025);
        h.started = true;
        let mut st = test_state(2.0, 1e9);
        st.srtt = 0.1;
        h.on_ack(&mut st, &ack());
        assert_eq!((h.rho, st.cwnd), (4, 17.0));
        // Congestion avoidance at w = 100: ρ²/w = 16/100 per ACK = 20/128 (⌊2048/100⌋) per
        // ACK: after 7 ACKs 140/128 → +1 with 12/128 carried.
        let mut st = test_state(100.0, 50.0);
        st.srtt = 0.1;
        for _ in 0..6 {
            h.on_ack(&mut st, &ack());
        }
        assert_eq!(st.cwnd, 100.0);
        h.on_ack(&mut st, &ack());
        assert_eq!((st.cwnd, h.cents), (101.0, 12));
    }

    #[test]
    fn fractional_rho_uses_the_table_and_short_rtts_are_reno() {
        // srtt = 1.5·RTT0: ρ₈ = 12 (ρ = 1.5): 2·181 − 128 = 234/128 = 1.83 per ACK ≈ 2^1.5 − 1.
        let mut h = Hybla::new(0.25);
        h.started = true;
        let mut st = test_state(2.0, 1e9);
        st.srtt = 0.375;
        h.on_ack(&mut st, &ack());
        assert_eq!((st.cwnd, h.cents), (3.0, 106));
        // srtt 10 ms < RTT0: ρ = 1, Reno: +1 per ACK in slow start, 1/w in CA.
        let mut h = Hybla::new(0.025);
        h.started = true;
        let mut st = test_state(2.0, 1e9);
        st.srtt = 0.01;
        h.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 3.0);
        // slow start is clamped to ssthresh
        let mut h = Hybla::new(0.025);
        h.started = true;
        let mut st = test_state(2.0, 10.0);
        st.srtt = 0.1;
        h.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 10.0);
    }

    #[test]
    fn the_first_ack_sets_the_window_to_rho_and_only_a_full_window_grows() {
        // TCP-Linux on an 84 ms path: srtt 84 ms, ρ₈ = ⌊8·84/25⌋ = 26 (ρ = 3, fraction 2):
        // slow start +8·152 − 128 = 1088/128 = 8.5 per ACK. The first ACK (1 segment out,
        // none left) runs the module's init: cwnd = ρ = 3, and 0 + 1 in flight < 3: no
        // increase. The next three ACKs each find the window full: 3 → 11 (64/128 carried)
        // → 20 → 28 (64/128), as TCP-Linux's cwnd_ at 0.25 s on that path.
        let mut h = Hybla::new(0.025);
        let mut st = test_state(1.0, 1e9);
        st.srtt = 0.084;
        st.flight = 0;
        h.on_ack(&mut st, &ack());
        assert_eq!((h.rho_3ls, st.cwnd), (26, 3.0));
        for want in [11.0, 20.0, 28.0] {
            st.flight = snd_cwnd(&st) - 1;
            h.on_ack(&mut st, &ack());
            assert_eq!(st.cwnd, want);
        }
        assert_eq!(h.cents, 64);
        // a window not full before the ACK (tcp_is_cwnd_limited): nothing
        st.flight = 10;
        h.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 28.0);
    }

    #[test]
    fn loss_halves_and_rtt0_is_a_parameter() {
        let mut h = Hybla::new(0.025);
        let mut st = test_state(41.0, 1e9);
        h.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (20.0, 20.0));
        let mut p = Params::new();
        p.insert("rtt0".into(), 0.05);
        let mut cc = create("hybla", &p).unwrap();
        let mut st = test_state(2.0, 1e9);
        st.srtt = 0.1;
        cc.on_ack(&mut st, &ack());
        assert_eq!(st.cwnd, 5.0, "ρ = 2: the window becomes 2 at the first ACK, then +3");
        p.insert("rtt0".into(), 0.0);
        assert_eq!(
            create("hybla", &p).err().unwrap(),
            "hybla: rtt0 = 0 is not allowed; must be >= 0.000001 s (1 µs)"
        );
    }
}
