//! YeAH-TCP ("Yet Another Highspeed TCP", Baiocchi, Castellani, Vacirca, PFLDnet 2007) as
//! Linux 2.6.22's `tcp_yeah.c`, which ns-2.35's TCP-Linux runs with `select_ca yeah`: `yeah`.
//!
//! YeAH switches between a fast mode (Scalable's increase: one segment per min(cwnd, 100) + 1
//! acknowledged segments) and a slow mode (Reno's: one segment every cwnd ACKs) on a
//! Vegas-style estimate of its own backlog in the bottleneck queue, computed once per round
//! trip from the kernel's Vegas state: baseRTT (the smallest RTT ever), minRTT (the smallest
//! of the round) and cntRTT (samples in the round). At the end of a round with more than 2
//! samples, Q = ⌊cwnd·(minRTT − baseRTT)/minRTT⌋ (RTTs in µs). If Q > α = 80 or the queueing
//! delay minRTT − baseRTT exceeds ⌊baseRTT/φ⌋ (φ = 8), the round counts as congested: slow
//! mode (`doing_reno_now` counts such rounds) and, if Q > α and cwnd > reno_count, a
//! "precautionary decongestion": cwnd −= min(Q/γ, cwnd >> ε), not below reno_count, and
//! ssthresh = cwnd. reno_count (an estimate of a competing Reno flow's window) is set to
//! max(cwnd/2, 2) on the first congested round and grows by one per further one; more than
//! ζ = 50 uncongested rounds reset it to 2. On a loss, ssthresh = cwnd − reduction with
//! reduction = max(min(lastQ, max(cwnd/2, 2)), cwnd >> δ) (δ = 3) when fewer than ρ = 16
//! consecutive rounds were congested (the loss is not taken for Reno competition: only the
//! own queue is drained), otherwise max(cwnd/2, 2); reno_count halves (at least 2). Slow
//! start (+1 per ACK) while cwnd ≤ ssthresh.
//!
//! YeAH needs an RTT per ACK (the kernel times every segment; its Vegas state counts
//! samples): run it with `tcp.timestamps = true`. Without timestamps there is one sample per
//! window, cntRTT stays ≤ 2, Q is never computed and YeAH stays in its fast mode: Scalable
//! with a period of min(cwnd, 100) + 1 ACKs and ssthresh = cwnd − cwnd >> 3 on a loss.
//!
//! Parameters (`cc_params`, the module's constants): `alpha` = 80 (segments), `gamma` = 1,
//! `delta` = 3, `epsilon` = 1 (shifts), `phy` = 8, `rho` = 16, `zeta` = 50 (rounds),
//! `ai_cnt` = 100 (Scalable's cap on the increase period).
//!
//! The round ends when a segment sent after its start is acknowledged (the kernel's
//! `after(ack, beg_snd_nxt)`); the Vegas state restarts (new round, minRTT and cntRTT cleared)
//! when the connection returns to the open state, i.e. at the end of fast recovery and of the
//! timeout's loss state (`tcp_vegas_state`). The Scalable counter adds the segments an ACK
//! acknowledged in the open state, 1 otherwise (`pkts_acked`).
//!
//! In SACK recovery the window follows Linux's rate halving toward the module's `min_cwnd`
//! = ssthresh/2 (`tcp_reno_min_cwnd`; see `linux::MinCwnd`).
//!
//! Nothing happens on an ACK unless the window was full before it (`tcp_is_cwnd_limited`,
//! TCP-Linux's in flight ≥ cwnd), not even the end of a round.
//!
//! Departures: RTT samples come
//! from the timestamp echo (the kernel's from the send time of the newest acknowledged
//! segment: the same without delayed ACKs); a loss never sets ssthresh below 2 (the kernel
//! would return 0 at cwnd = 2 with a queue estimate of 2 or more).
use super::linux::{self, param_int, snd_cwnd};
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

const PARAMS: &[&str] = &["alpha", "gamma", "delta", "epsilon", "phy", "rho", "zeta", "ai_cnt"];

#[derive(Debug, Clone)]
pub struct Yeah {
    alpha: u64,
    gamma: u64,
    delta: u32,
    epsilon: u32,
    phy: u64,
    rho: u64,
    zeta: u64,
    ai_cnt: u64,
    /// Vegas state, RTTs in µs (+1, as the kernel: never zero); u64::MAX = none yet.
    base_rtt: u64,
    min_rtt: u64,
    cnt_rtt: u64,
    round: linux::Rounds,
    last_q: u64,
    doing_reno_now: u64,
    reno_count: u64,
    fast_count: u64,
    pkts_acked: u64,
    cwnd_cnt: u64,
    min_cwnd: linux::MinCwnd,
    loss: linux::LossState,
}

impl Yeah {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        const N: &str = "yeah";
        check_params(N, params, PARAMS)?;
        let mut y = Yeah::new();
        y.alpha = param_int(N, params, "alpha", 80, 0, 1_000_000_000)?;
        y.gamma = param_int(N, params, "gamma", 1, 1, 1_000_000_000)?;
        y.delta = param_int(N, params, "delta", 3, 0, 31)? as u32;
        y.epsilon = param_int(N, params, "epsilon", 1, 0, 31)? as u32;
        y.phy = param_int(N, params, "phy", 8, 1, 1_000_000_000)?;
        y.rho = param_int(N, params, "rho", 16, 0, 1_000_000_000)?;
        y.zeta = param_int(N, params, "zeta", 50, 0, 1_000_000_000)?;
        y.ai_cnt = param_int(N, params, "ai_cnt", 100, 1, 1_000_000_000)?;
        Ok(Box::new(y))
    }

    pub fn new() -> Yeah {
        Yeah {
            alpha: 80,
            gamma: 1,
            delta: 3,
            epsilon: 1,
            phy: 8,
            rho: 16,
            zeta: 50,
            ai_cnt: 100,
            base_rtt: u64::MAX,
            min_rtt: u64::MAX,
            cnt_rtt: 0,
            round: linux::Rounds::default(),
            last_q: 0,
            doing_reno_now: 0,
            reno_count: 2,
            fast_count: 0,
            pkts_acked: 1,
            cwnd_cnt: 0,
            min_cwnd: linux::MinCwnd::default(),
            loss: linux::LossState::default(),
        }
    }

    /// `tcp_vegas_state(Open)`: a new round begins now, without samples.
    fn vegas_enable(&mut self, st: &CcState) {
        self.round.restart(st);
        self.cnt_rtt = 0;
        self.min_rtt = u64::MAX;
    }

    /// The once-per-round decision at the end of a round (window already increased).
    fn end_of_round(&mut self, st: &mut CcState) {
        if self.cnt_rtt > 2 {
            let rtt = self.min_rtt;
            let base = self.base_rtt;
            let w = snd_cwnd(st);
            let queue = w * (rtt - base) / rtt;
            if queue > self.alpha || rtt - base > base / self.phy {
                if queue > self.alpha && w > self.reno_count {
                    let reduction = (queue / self.gamma).min(w >> self.epsilon);
                    let cwnd = (w - reduction).max(self.reno_count);
                    st.cwnd = cwnd as f64;
                    st.ssthresh = cwnd as f64;
                    st.log.push(("yeah_decongestion", reduction as f64));
                }
                if self.reno_count <= 2 {
                    self.reno_count = (snd_cwnd(st) >> 1).max(2);
                } else {
                    self.reno_count += 1;
                }
                self.doing_reno_now = (self.doing_reno_now + 1).min(0xff_ffff);
            } else {
                self.fast_count += 1;
                if self.fast_count > self.zeta {
                    self.reno_count = 2;
                    self.fast_count = 0;
                }
                self.doing_reno_now = 0;
            }
            self.last_q = queue;
        }
        self.cnt_rtt = 0;
        self.min_rtt = u64::MAX;
    }

    /// The module's `ssthresh()`.
    fn ssthresh(&mut self, st: &CcState) -> u64 {
        let w = snd_cwnd(st);
        let half = (w >> 1).max(2);
        let reduction = if self.doing_reno_now < self.rho {
            self.last_q.min(half).max(w >> self.delta)
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        w.saturating_sub(reduction).max(2)
    }
}

impl Default for Yeah {
    fn default() -> Self {
        Yeah::new()
    }
}

impl CongestionControl for Yeah {
    fn name(&self) -> &'static str {
        "yeah"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack_arrival(&mut self, st: &CcState, ack: &AckSample) {
        if ack.duplicate || ack.acked == 0 {
            return;
        }
        if !self.loss.active() && st.phase != super::Phase::FastRecovery {
            self.pkts_acked = ack.acked;
        }
        if let Some(rtt) = ack.rtt {
            let v = crate::sim::floor(rtt * 1e6) as u64 + 1;
            self.base_rtt = self.base_rtt.min(v);
            self.min_rtt = self.min_rtt.min(v);
            self.cnt_rtt += 1;
        }
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        if self.loss.on_ack(ack.acked) && !self.loss.active() {
            // the timeout's loss state ends with this ACK: open again
            self.vegas_enable(st);
        }
        if !super::vegas::cwnd_limited(st, ack.acked) {
            return;
        }
        let w = snd_cwnd(st);
        if linux::in_slow_start(st) {
            linux::slow_start(st);
        } else if self.doing_reno_now == 0 {
            self.cwnd_cnt += self.pkts_acked;
            if self.cwnd_cnt > w.min(self.ai_cnt) {
                st.cwnd += 1.0;
                self.cwnd_cnt = 0;
            }
            self.pkts_acked = 1;
        } else {
            if self.cwnd_cnt < w {
                self.cwnd_cnt += 1;
            }
            if self.cwnd_cnt >= w {
                st.cwnd += 1.0;
                self.cwnd_cnt = 0;
            }
        }
        if self.round.on_ack(st, ack.acked, true) {
            self.end_of_round(st);
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let ssthresh = linux::recomputes_ssthresh(st, signal).then(|| self.ssthresh(st));
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
        self.vegas_enable(st);
    }

    fn tcp_linux(&self) -> bool {
        true
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        let us = |v: u64| if v == u64::MAX { f64::NAN } else { v as f64 * 1e-6 };
        out.push(("yeah_base_rtt", us(self.base_rtt)));
        out.push(("yeah_queue", self.last_q as f64));
        out.push(("yeah_reno_count", self.reno_count as f64));
        out.push(("yeah_doing_reno", self.doing_reno_now as f64));
        out.push(("yeah_fast_count", self.fast_count as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, one_ack, test_state};

    /// A new ACK of one segment with a full window before it (window-limited).
    fn feed(y: &mut Yeah, st: &mut CcState, rtt: Option<f64>) {
        st.flight = snd_cwnd(st) - 1;
        let a = AckSample {
            acked: 1,
            duplicate: false,
            rtt,
            rate: None,
        };
        y.on_ack_arrival(st, &a);
        y.on_ack(st, &a);
    }

    /// ACKs with RTT `rtt` until a round ends.
    fn round(y: &mut Yeah, st: &mut CcState, rtt: f64) {
        let n = y.round.count;
        while y.round.count == n {
            feed(y, st, Some(rtt));
        }
    }

    #[test]
    fn fast_mode_is_scalable_capped_at_100_and_slow_mode_is_reno() {
        let mut y = Yeah::new();
        let mut st = test_state(300.0, 10.0);
        // without RTT samples no round decides anything: fast mode, one segment per 101 ACKs
        for _ in 0..100 {
            feed(&mut y, &mut st, None);
        }
        assert_eq!(st.cwnd, 300.0);
        feed(&mut y, &mut st, None);
        assert_eq!(st.cwnd, 301.0);
        // below 100 the period is cwnd + 1 ACKs
        let mut st = test_state(30.0, 10.0);
        y.cwnd_cnt = 0;
        for _ in 0..31 {
            feed(&mut y, &mut st, None);
        }
        assert_eq!(st.cwnd, 31.0);
        // slow mode: one segment every cwnd ACKs
        y.doing_reno_now = 1;
        y.cwnd_cnt = 0;
        for _ in 0..30 {
            feed(&mut y, &mut st, None);
        }
        assert_eq!(st.cwnd, 31.0);
        feed(&mut y, &mut st, None);
        assert_eq!(st.cwnd, 32.0);
        // slow start while cwnd ≤ ssthresh, whatever the mode
        let mut st = test_state(10.0, 10.0);
        feed(&mut y, &mut st, None);
        assert_eq!(st.cwnd, 11.0);
        // not window-limited (5 of 11 out before the ACK): nothing
        st.flight = 4;
        let a = one_ack(None);
        y.on_ack(&mut st, &a);
        assert_eq!(st.cwnd, 11.0);
    }

    #[test]
    fn a_queue_above_alpha_drains_it_and_a_loss_removes_only_the_queue() {
        let mut y = Yeah::new();
        let mut st = test_state(300.0, 10.0);
        // the first ACK starts a round (to 299 outstanding); base RTT 100 ms (100 001 µs)
        feed(&mut y, &mut st, Some(0.1));
        // 300 ACKs at 150 ms end it; Scalable's +1 at the 101st and 202nd ACK: cwnd 302;
        // Q = ⌊302·(150 001 − 100 001)/150 001⌋ = 100 > 80 → cwnd −= min(100, 151) = 202,
        // ssthresh = 202, reno_count = 202 >> 1 = 101, one congested round
        round(&mut y, &mut st, 0.15);
        assert_eq!((y.base_rtt, y.last_q), (100_001, 100));
        assert_eq!((st.cwnd, st.ssthresh), (202.0, 202.0));
        assert_eq!((y.reno_count, y.doing_reno_now), (101, 1));
        assert!(st.log.contains(&("yeah_decongestion", 100.0)));
        // fewer than ρ congested rounds: the loss removes lastQ = 100 (between cwnd/8 = 25 and
        // cwnd/2 = 101): ssthresh = 102; reno_count halves to 50
        y.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd, y.reno_count), (102.0, 102.0, 50));
    }

    #[test]
    fn congested_rounds_count_and_an_uncongested_path_resets_reno_count() {
        let mut y = Yeah::new();
        let mut st = test_state(100.0, 10.0);
        feed(&mut y, &mut st, Some(0.1));
        // delay 20 ms > 100 001/8 µs with Q = ⌊cwnd·20 000/120 001⌋ ≤ 80: congested without
        // decongestion; reno_count = cwnd/2 = 101/2 at the first (Scalable's +1 came on its
        // 101st ACK), +1 on each further round
        round(&mut y, &mut st, 0.12);
        assert_eq!((y.doing_reno_now, y.reno_count, y.last_q), (1, 50, 16));
        for _ in 0..15 {
            round(&mut y, &mut st, 0.12);
        }
        let w = snd_cwnd(&st);
        assert_eq!((y.doing_reno_now, y.reno_count), (16, 65));
        assert_eq!(y.last_q, w * 20_000 / 120_001);
        // ρ = 16 congested rounds: competition with Reno assumed, the loss halves
        let mut s2 = st.clone();
        let mut y2 = y.clone();
        y2.on_congestion(&mut s2, Signal::DupAcks);
        assert_eq!(s2.ssthresh, (w - w / 2) as f64);
        // rounds at the base RTT: fast mode; after ζ + 1 = 51 of them reno_count is 2 again
        for _ in 0..50 {
            round(&mut y, &mut st, 0.1);
        }
        assert_eq!((y.doing_reno_now, y.fast_count, y.reno_count), (0, 50, 65));
        round(&mut y, &mut st, 0.1);
        assert_eq!((y.fast_count, y.reno_count), (0, 2));
        let mut p = Params::new();
        p.insert("gamma".into(), 0.0);
        assert_eq!(
            create("yeah", &p).err().unwrap(),
            "yeah: gamma = 0 is not allowed; must be an integer in [1, 1000000000]"
        );
    }
}
