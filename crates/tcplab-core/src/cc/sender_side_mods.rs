//! NewReno with the sender-side modifications of Lo Cigno, Procissi, Gerla ("Sender-side TCP
//! modifications: an analytical study"): RFS, WpP and ESSE, each alone or combined
//! (`cc = "rfs+wpp+esse"`, any subset, any order). The fair share comes from
//! [`super::fair_share`], wrapped by the estimation error chosen with the `error` parameter.
//!
//! Parameters: `wpp_p` (WpP's probability, default 0.5), `error` (bbe | nbe | tbe, default
//! bbe), `error_under` / `error_over` (TBE's maximum relative under- and over-estimation,
//! default 0.25 each), `esse_min_window` (default 5 segments).
use super::esse::EarlyExit;
use super::fair_share::EstimateError;
use super::rfs::restart_from_fair_share;
use super::wpp::wpp_increase;
use super::{check_params, reno_increase, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

pub const MODIFICATIONS: &[&str] = &["rfs", "wpp", "esse"];
const NAMES: [&str; 8] = [
    "newreno",
    "rfs",
    "wpp",
    "rfs+wpp",
    "esse",
    "rfs+esse",
    "wpp+esse",
    "rfs+wpp+esse",
];
const PARAMS: &[&str] = &["wpp_p", "error", "error_under", "error_over", "esse_min_window"];

pub struct SenderSideMods {
    rfs: bool,
    wpp: Option<f64>,
    esse: Option<EarlyExit>,
    error: EstimateError,
}

impl SenderSideMods {
    /// `name` is a '+'-separated subset of rfs, wpp, esse.
    pub fn create(name: &str, params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        let mut mask = 0usize;
        for part in name.split('+') {
            let Some(bit) = MODIFICATIONS.iter().position(|m| *m == part) else {
                return Err(format!(
                    "unknown modification {part:?} in {name:?}; combine any of: {}",
                    MODIFICATIONS.join(", ")
                ));
            };
            if mask & (1 << bit) != 0 {
                return Err(format!("{name:?} names {part} twice"));
            }
            mask |= 1 << bit;
        }
        check_params(name, params, PARAMS)?;
        let get = |k: &str, d: f64| params.get(k).copied().unwrap_or(d);
        let p = get("wpp_p", 0.5);
        if !(p > 0.0 && p <= 1.0) {
            return Err(format!("wpp_p = {p} is not allowed; must be in (0, 1]"));
        }
        let min_window = get("esse_min_window", 5.0);
        if !(min_window >= 1.0 && min_window.is_finite()) {
            return Err(format!("esse_min_window = {min_window} is not allowed; must be >= 1"));
        }
        let error = EstimateError::from_params(get("error", 0.0), get("error_under", 0.25), get("error_over", 0.25))?;
        Ok(Box::new(SenderSideMods {
            rfs: mask & 1 != 0,
            wpp: (mask & 2 != 0).then_some(p),
            esse: (mask & 4 != 0).then(|| EarlyExit::new(min_window)),
            error,
        }))
    }

    pub fn create_rfs(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Self::create("rfs", params)
    }
    pub fn create_wpp(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Self::create("wpp", params)
    }
    pub fn create_esse(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Self::create("esse", params)
    }
}

impl CongestionControl for SenderSideMods {
    fn name(&self) -> &'static str {
        NAMES[self.rfs as usize | (self.wpp.is_some() as usize) << 1 | (self.esse.is_some() as usize) << 2]
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        match self.wpp {
            Some(p) => wpp_increase(st, ack, p),
            None => reno_increase(st, ack),
        }
        if let Some(e) = &mut self.esse {
            e.after_slow_start_ack(st, &self.error);
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        if let Some(e) = &mut self.esse {
            e.reset();
        }
        super::halve(st, signal);
    }

    fn on_recovery_exit(&mut self, st: &mut CcState) {
        if !(self.rfs && restart_from_fair_share(st, &self.error)) {
            st.cwnd = st.recovery_base;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::fair_share::{LinkShare, PathShare};
    use crate::cc::test_state;
    use std::sync::atomic::AtomicU32;
    use std::sync::Arc;

    const ACK: AckSample = AckSample {
        acked: 1,
        duplicate: false,
        rtt: None,
        rate: None,
    };

    /// 10 Mb/s shared by `n` connections, 1000-byte packets, 100 ms minimum RTT:
    /// the fair share is 125/n packets.
    fn with_path(st: &mut CcState, n: u32) {
        st.path = PathShare {
            links: vec![LinkShare { rate_bps: 10e6, hop: 0 }].into(),
            active: Arc::new([AtomicU32::new(n)]),
            wire_bytes: 1000.0,
        };
        st.min_rtt = 0.1;
    }

    fn make(name: &str) -> Box<dyn CongestionControl> {
        SenderSideMods::create(name, &Params::new()).unwrap()
    }

    #[test]
    fn names_combine_in_any_order_and_bad_ones_are_refused() {
        assert_eq!(make("esse+rfs").name(), "rfs+esse");
        assert_eq!(make("wpp+esse+rfs").name(), "rfs+wpp+esse");
        assert!(SenderSideMods::create("rfs+vegas", &Params::new())
            .err()
            .unwrap()
            .contains("combine any of"));
        assert!(SenderSideMods::create("rfs+rfs", &Params::new())
            .err()
            .unwrap()
            .contains("twice"));
        let mut p = Params::new();
        p.insert("wpp_p".into(), 0.0);
        assert!(SenderSideMods::create("wpp", &p).err().unwrap().contains("wpp_p"));
    }

    #[test]
    fn rfs_restarts_from_the_fair_share_not_from_half_the_window() {
        let mut cc = make("rfs");
        let mut st = test_state(40.0, 1e9);
        with_path(&mut st, 5); // share 25 packets
        cc.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!(st.ssthresh, 20.0, "entering recovery is NewReno's");
        cc.on_recovery_exit(&mut st);
        assert_eq!((st.cwnd, st.ssthresh), (25.0, 25.0));
        // without an RTT sample there is no estimate: NewReno's exit
        let mut st = test_state(40.0, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        cc.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 20.0);
    }

    #[test]
    fn wpp_grows_half_as_fast_in_congestion_avoidance_only() {
        let mut cc = make("wpp");
        let mut st = test_state(1.0, 4.0);
        for expected in [2.0, 3.0, 4.0] {
            cc.on_ack(&mut st, &ACK);
            assert_eq!(st.cwnd, expected, "slow start unchanged");
        }
        cc.on_ack(&mut st, &ACK);
        assert!((st.cwnd - 4.125).abs() < 1e-12);
        // one RTT of ACKs at window 20 adds about half a segment
        let mut st = test_state(20.0, 10.0);
        for _ in 0..20 {
            cc.on_ack(&mut st, &ACK);
        }
        assert!((st.cwnd - 20.5).abs() < 0.02, "{}", st.cwnd);
    }

    #[test]
    fn esse_leaves_slow_start_at_the_share_once_the_window_reached_five() {
        let mut cc = make("esse");
        let mut st = test_state(1.0, 1e9);
        with_path(&mut st, 10); // share 12.5 → BBE draws 12 or 13
        let mut exited_at = None;
        for _ in 0..40 {
            cc.on_ack(&mut st, &ACK);
            if st.cwnd >= st.ssthresh {
                exited_at = Some(st.cwnd);
                break;
            }
        }
        let w = exited_at.expect("slow start ended without a loss");
        assert!(w == 12.0 || w == 13.0, "{w}");
        assert_eq!(st.ssthresh, w);
        // a share below 5 cannot end slow start before the window reaches 5
        let mut st = test_state(1.0, 1e9);
        with_path(&mut st, 100); // share 1.25 → 2
        for _ in 0..3 {
            cc.on_ack(&mut st, &ACK);
            assert!(st.cwnd < st.ssthresh);
        }
        cc.on_ack(&mut st, &ACK);
        assert_eq!((st.cwnd, st.ssthresh), (5.0, 5.0));
    }

    #[test]
    fn nbe_restarts_anywhere_between_2_and_the_maximum_window() {
        let mut p = Params::new();
        p.insert("error".into(), 1.0);
        let mut cc = SenderSideMods::create("rfs", &p).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        let mut rng = crate::sim::Rng::from_seed(1);
        for _ in 0..2000 {
            let mut st = test_state(40.0, 1e9);
            st.rwnd = 32.0;
            with_path(&mut st, 5);
            st.rng = rng.clone();
            cc.on_congestion(&mut st, Signal::DupAcks);
            cc.on_recovery_exit(&mut st);
            rng = st.rng.clone();
            seen.insert(st.cwnd as u64);
            if seen.len() == 31 {
                break;
            }
        }
        assert_eq!(seen.iter().copied().collect::<Vec<_>>(), (2..=32).collect::<Vec<u64>>());
    }
}
