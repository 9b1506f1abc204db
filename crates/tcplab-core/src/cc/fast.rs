//! FAST TCP as the thesis states it (SEED-NOTES §2.2 E) after Jin, Wei, Low: "FAST TCP:
//! Motivation, Architecture, Algorithms, Performance", INFOCOM 2004: `fast`. There is no
//! FAST in ns-2.35.
//!
//! - Pacing always: the algorithm sets the sender's pacing to cwnd/srtt (`Pacing::Window`,
//!   the leaky bucket of Kulik et al. with the flow's `pacing_tick`) at the start and when
//!   it is switched in, whatever `tcp.pacing` says.
//! - An RTT per ACK: baseRTT = the smallest sample; avgRTT ← (1 − μ)·avgRTT + μ·RTT with
//!   μ = min(3/cwnd, 1/4) per sample (so that it spans about one RTT).
//! - Every other round trip (a round ends when the data outstanding at its start is
//!   acknowledged), in congestion avoidance:
//!   cwnd ← min(2·cwnd, (1 − η)·cwnd + η·(baseRTT/avgRTT·cwnd + α)), α = 100 packets,
//!   η = 0.5; between updates the window does not change; an update below ssthresh
//!   lowers ssthresh to the window (FAST's rule, not slow start, goes on). In equilibrium each flow keeps
//!   cwnd·(1 − baseRTT/avgRTT) = α of its packets queued: N flows queue N·α.
//! - Slow start is the standard one (+1 per ACK while cwnd < ssthresh); a loss halves the
//!   window (ns-2's halving, `cc::halve`; after a timeout cwnd = 1); NewReno recovery.
//! - Without FAST's α(cwnd) scaling mode.
//!
//! FAST needs an RTT per ACK: run it with `tcp.timestamps = true`. Without timestamps
//! avgRTT follows the one sample per window and lags by a round trip or more (one flow,
//! 10 Mb/s, 100-packet buffer, 60 s: 43 timeouts and 6.0 Mb/s against 1 and 9.4 with them).
//!
//! Parameters (`cc_params`): `alpha` = 100 (packets), `eta` = 0.5 (in (0, 1]).
//!
//! Departures from the paper's implementation: no per-ACK spreading of the update (the pacer
//! spreads the window's segments instead), no slow-start exit on queueing delay, the window
//! is capped at the receiver window.
use super::linux::{param_in, Rounds};
use super::{check_params, halve, AckSample, CcState, CongestionControl, Pacing, Params, Recovery, Signal};

#[derive(Debug, Clone)]
pub struct Fast {
    alpha: f64,
    eta: f64,
    base_rtt: f64,
    /// 0 before the first sample
    avg_rtt: f64,
    rounds: Rounds,
    /// update at the end of this round (flips every round)
    update_now: bool,
    /// the window the last update aimed at (NaN before any)
    target: f64,
    /// cwnd after the last event (for the backlog series)
    last_cwnd: f64,
}

impl Fast {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "fast";
        check_params(N, params, &["alpha", "eta"])?;
        let alpha = param_in(N, params, "alpha", 100.0, 0.0, 1e9)?;
        let eta = param_in(N, params, "eta", 0.5, 1e-9, 1.0)?;
        Ok(Box::new(Fast::new(alpha, eta)))
    }

    pub fn new(alpha: f64, eta: f64) -> Fast {
        Fast {
            alpha,
            eta,
            base_rtt: f64::INFINITY,
            avg_rtt: 0.0,
            rounds: Rounds::default(),
            update_now: false,
            target: f64::NAN,
            last_cwnd: f64::NAN,
        }
    }

    /// The flow's own backlog estimate cwnd·(1 − baseRTT/avgRTT) (segments).
    fn backlog(&self, cwnd: f64) -> f64 {
        if self.avg_rtt > 0.0 {
            cwnd * (1.0 - self.base_rtt / self.avg_rtt)
        } else {
            f64::NAN
        }
    }

    /// The update rule (one step).
    fn update(&mut self, st: &mut CcState) {
        let w = st.cwnd;
        let aim = self.base_rtt / self.avg_rtt * w + self.alpha;
        let next = ((1.0 - self.eta) * w + self.eta * aim).min(2.0 * w);
        self.target = aim;
        st.cwnd = next.min(st.rwnd.max(w)).max(1.0);
        // A decrease must not send the flow back into slow start.
        st.ssthresh = st.ssthresh.min(st.cwnd);
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn init(&mut self, st: &mut CcState) {
        st.cwnd = st.init_cwnd;
        st.ssthresh = st.init_ssthresh;
        st.pacing = Pacing::Window;
    }

    fn on_switch_in(&mut self, st: &mut CcState) {
        st.pacing = Pacing::Window;
        if st.srtt > 0.0 {
            self.avg_rtt = st.srtt;
        }
        if st.min_rtt.is_finite() {
            self.base_rtt = st.min_rtt;
        }
    }

    fn on_ack_arrival(&mut self, st: &CcState, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.base_rtt = self.base_rtt.min(rtt);
            if self.avg_rtt == 0.0 {
                self.avg_rtt = rtt;
            } else {
                let mu = (3.0 / st.cwnd.max(1.0)).min(0.25);
                self.avg_rtt = (1.0 - mu) * self.avg_rtt + mu * rtt;
            }
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let slow_start = st.cwnd < st.ssthresh;
        if slow_start {
            st.cwnd += 1.0;
        }
        if self.rounds.on_ack(st, ack.acked, false) {
            self.update_now = !self.update_now;
            if self.update_now && !slow_start && self.avg_rtt > 0.0 {
                self.update(st);
            }
        }
        self.last_cwnd = st.cwnd;
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        halve(st, signal);
        self.last_cwnd = st.cwnd;
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("fast_base_rtt", self.base_rtt));
        out.push(("fast_avg_rtt", if self.avg_rtt > 0.0 { self.avg_rtt } else { f64::NAN }));
        out.push(("fast_target", self.target));
        out.push(("fast_backlog", self.backlog(self.last_cwnd)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, one_ack, test_state};

    fn ack(f: &mut Fast, st: &mut CcState, rtt: f64) {
        let a = one_ack(Some(rtt));
        f.on_ack_arrival(st, &a);
        f.on_ack(st, &a);
    }

    #[test]
    fn the_average_rtt_weight_is_min_of_3_over_cwnd_and_a_quarter() {
        let mut f = Fast::new(100.0, 0.5);
        let mut st = test_state(60.0, 10.0);
        f.on_ack_arrival(&st, &one_ack(Some(0.1)));
        assert_eq!(f.avg_rtt, 0.1);
        // μ = 3/60 = 0.05: 0.95·0.1 + 0.05·0.2 = 0.105
        f.on_ack_arrival(&st, &one_ack(Some(0.2)));
        assert!((f.avg_rtt - 0.105).abs() < 1e-12);
        // small window: μ = 1/4: 0.75·0.105 + 0.25·0.2 = 0.12875
        st.cwnd = 4.0;
        f.on_ack_arrival(&st, &one_ack(Some(0.2)));
        assert!((f.avg_rtt - 0.12875).abs() < 1e-12);
        assert_eq!(f.base_rtt, 0.1);
    }

    #[test]
    fn the_window_moves_every_other_round_with_weight_eta() {
        let mut f = Fast::new(100.0, 0.5);
        let mut st = test_state(100.0, 10.0);
        st.flight = 100;
        // baseRTT 100 ms, then every sample 125 ms with cwnd ≥ 12 (μ small): pin avgRTT
        ack(&mut f, &mut st, 0.1); // the first ACK begins round 1 (an odd one: update_now)
        assert!(f.update_now);
        assert_eq!(st.cwnd, 100.0 * 0.5 + 0.5 * (100.0 + 100.0), "Diff 0: w + ηα");
        // = 150; the next update comes at the end of the round after next
        f.avg_rtt = 0.125;
        st.flight = 150;
        let w = st.cwnd;
        for _ in 0..150 {
            f.avg_rtt = 0.125;
            f.on_ack(&mut st, &one_ack(None));
        }
        assert_eq!(st.cwnd, w, "round 2: no update");
        for _ in 0..150 {
            f.avg_rtt = 0.125;
            f.on_ack(&mut st, &one_ack(None));
        }
        // round 3: 0.5·150 + 0.5·(0.8·150 + 100) = 75 + 110 = 185
        assert_eq!(st.cwnd, 185.0);
        assert_eq!(f.target, 220.0);
        // equilibrium: backlog α keeps the window: w(1 − base/avg) = 100 at w = 500, avg = 0.125
        st.cwnd = 500.0;
        f.update(&mut st);
        assert_eq!(st.cwnd, 500.0);
        assert!((f.backlog(500.0) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn the_update_is_capped_at_doubling() {
        let mut f = Fast::new(100.0, 1.0);
        let mut st = test_state(20.0, 10.0);
        f.base_rtt = 0.1;
        f.avg_rtt = 0.1;
        // η = 1: aim 20 + 100 = 120 > 2·20
        f.update(&mut st);
        assert_eq!(st.cwnd, 40.0);
        // η = 0.5 from 40: 20 + 0.5·140 = 90 ≤ 80? no: capped at 80
        f.eta = 0.5;
        f.update(&mut st);
        assert_eq!(st.cwnd, 80.0);
        f.update(&mut st);
        assert_eq!(st.cwnd, 130.0, "0.5·80 + 0.5·180");
        // the receiver window caps it
        st.rwnd = 100.0;
        st.cwnd = 90.0;
        f.update(&mut st);
        assert_eq!(st.cwnd, 100.0);
    }

    #[test]
    fn slow_start_is_standard_and_loss_halves() {
        let mut f = Fast::new(100.0, 0.5);
        let mut st = test_state(2.0, 1e9);
        st.phase = crate::cc::Phase::SlowStart;
        f.init(&mut st);
        assert_eq!(st.pacing, Pacing::Window);
        st.flight = 1;
        for _ in 0..5 {
            ack(&mut f, &mut st, 0.1);
        }
        assert_eq!(st.cwnd, 6.0, "+1 per ACK, no FAST update in slow start");
        st.cwnd = 41.0;
        f.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.cwnd, st.ssthresh), (20.5, 20.0));
        f.on_congestion(&mut st, Signal::Timeout);
        assert_eq!(st.cwnd, 1.0);
        let mut p = Params::new();
        p.insert("eta".into(), 0.0);
        assert_eq!(
            create("fast", &p).err().unwrap(),
            "fast: eta = 0 is not allowed; must be in [0.000000001, 1]"
        );
    }
}
