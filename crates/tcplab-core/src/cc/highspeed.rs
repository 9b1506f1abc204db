//! HighSpeed TCP (Floyd, RFC 3649): `highspeed`. Above Low_Window the increase per RTT a(w)
//! grows and the decrease b(w) shrinks with the window, so that the response function is
//! w = W_0·(p/P_0)^S through (Low_P, Low_Window) and (High_P, High_Window) (w ≈ 0.12/p^0.835
//! for the defaults) instead of Reno's w = 1.2/√p. With f = (ln w − ln Low_Window)/
//! (ln High_Window − ln Low_Window) (RFC 3649 §5):
//! - b(w) = (High_Decrease − 0.5)·f + 0.5;
//! - p(w) = exp(f·(ln High_P − ln Low_P) + ln Low_P), Low_P = 10⁻³ (Reno's drop rate at
//!   Low_Window = 38: 1.5/38² ≈ 10⁻³);
//! - a(w) = w²·p(w)·2·b(w)/(2 − b(w));
//! - w ≤ Low_Window: a = 1, b = 0.5 (Reno).
//! These give the RFC's table (Appendix B) before its rounding: a(1058) = 8.14 (table 8,
//! b 0.33), a(10661) = 30.6 (table 30), a(83000) = 72.5 with b = 0.1 (table 72).
//!
//! Per new ACK in congestion avoidance cwnd += a(cwnd)/cwnd; on a loss ssthresh =
//! max((1 − b(cwnd))·cwnd, 2) and cwnd = ssthresh (1 after a timeout). Slow start is the
//! standard one (RFC 3742's limited slow start is not part of this algorithm).
//!
//! Parameters (`cc_params`): `low_window` = 38, `high_window` = 83000, `high_p` = 1e-7,
//! `high_decrease` = 0.1, `low_p` = 0.001.
//!
//! Departures: Linux 2.6.22's `tcp_highspeed.c` (ns-2.35 TCP-Linux) uses the table itself,
//! with integer a(w) (the table's row, so a = 8 from w = 1058 to 1283) and b(w) rounded down
//! to 1/256, over an integer window with a counter; we use the formulas over a float window,
//! which grows up to a segment per RTT faster between rows. Above High_Window b(w) stays
//! at High_Decrease (the formula would go on falling and reach 0 at w ≈ 10⁶) and p(w)
//! continues the power law.
use super::linux::param;
use super::{check_params, AckSample, CcState, CongestionControl, Params, Recovery, Signal};

const PARAMS: &[&str] = &["low_window", "high_window", "high_p", "high_decrease", "low_p"];

#[derive(Debug, Clone)]
pub struct HighSpeed {
    low_window: f64,
    high_window: f64,
    low_p: f64,
    high_p: f64,
    high_decrease: f64,
    /// a(w) and b(w) at the last update (time series).
    a: f64,
    b: f64,
}

impl HighSpeed {
    pub fn create(params: &Params) -> Result<Box<dyn CongestionControl>, String> {
        Ok(Box::new(Self::from_params(params)?))
    }

    pub fn from_params(params: &Params) -> Result<HighSpeed, String> {
        const N: &str = "highspeed";
        check_params(N, params, PARAMS)?;
        let lw = param(N, params, "low_window", 38.0)?;
        let hw = param(N, params, "high_window", 83000.0)?;
        let hp = param(N, params, "high_p", 1e-7)?;
        let lp = param(N, params, "low_p", 1e-3)?;
        let hd = param(N, params, "high_decrease", 0.1)?;
        if !(lw >= 2.0) {
            return Err(format!("{N}: low_window = {lw} is not allowed; must be >= 2 segments"));
        }
        if !(hw > lw) {
            return Err(format!(
                "{N}: high_window = {hw} is not allowed; must be > low_window ({lw})"
            ));
        }
        if !(lp > 0.0 && lp < 1.0) {
            return Err(format!("{N}: low_p = {lp} is not allowed; must be in (0, 1)"));
        }
        if !(hp > 0.0 && hp < lp) {
            return Err(format!(
                "{N}: high_p = {hp} is not allowed; must be in (0, low_p = {lp})"
            ));
        }
        if !(hd > 0.0 && hd <= 0.5) {
            return Err(format!("{N}: high_decrease = {hd} is not allowed; must be in (0, 0.5]"));
        }
        Ok(HighSpeed::new(lw, hw, lp, hp, hd))
    }

    pub fn new(low_window: f64, high_window: f64, low_p: f64, high_p: f64, high_decrease: f64) -> HighSpeed {
        HighSpeed {
            low_window,
            high_window,
            low_p,
            high_p,
            high_decrease,
            a: 1.0,
            b: 0.5,
        }
    }

    fn fraction(&self, w: f64) -> f64 {
        (w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln())
    }

    /// b(w): the fraction of the window given up on a loss.
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        let f = self.fraction(w).min(1.0);
        (self.high_decrease - 0.5) * f + 0.5
    }

    /// p(w): the drop rate at which the response function gives window w.
    pub fn p(&self, w: f64) -> f64 {
        let f = self.fraction(w);
        (f * (self.high_p.ln() - self.low_p.ln()) + self.low_p.ln()).exp()
    }

    /// a(w): the increase in segments per RTT.
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        let b = self.b(w);
        w * w * self.p(w) * 2.0 * b / (2.0 - b)
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn on_ack(&mut self, st: &mut CcState, _ack: &AckSample) {
        if st.cwnd < st.ssthresh {
            st.cwnd += 1.0;
        } else {
            self.a = self.a(st.cwnd);
            st.cwnd += self.a / st.cwnd;
        }
    }

    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        let w = st.cwnd.min(st.rwnd);
        self.b = self.b(w);
        st.ssthresh = ((1.0 - self.b) * w).max(2.0);
        st.cwnd = match signal {
            Signal::Timeout => 1.0,
            _ => st.ssthresh,
        };
        st.recovery_base = st.cwnd;
    }

    fn samples(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("hs_a", self.a));
        out.push(("hs_b", self.b));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{create, test_state};

    fn rfc() -> HighSpeed {
        HighSpeed::new(38.0, 83000.0, 1e-3, 1e-7, 0.1)
    }

    #[test]
    fn a_and_b_match_the_rfc_table() {
        let hs = rfc();
        // w ≤ 38: Reno.
        assert_eq!((hs.a(38.0), hs.b(38.0)), (1.0, 0.5));
        // w = 1058: f = ln(1058/38)/ln(83000/38) = 3.3265/7.6889 = 0.43263;
        // b = 0.5 − 0.4·0.43263 = 0.32695; p = exp(ln 1e-3 − 0.43263·9.21034) = 1.8589e-5;
        // a = 1058²·1.8589e-5·2·0.32695/1.67305 = 8.136 (RFC table: a = 8, b = 0.33).
        assert!((hs.b(1058.0) - 0.32695).abs() < 1e-4, "{}", hs.b(1058.0));
        assert!((hs.a(1058.0) - 8.136).abs() < 1e-3, "{}", hs.a(1058.0));
        // Rows of the table (w, a, b): the formula's a(w) is at or up to 1.3 above the
        // table's integer (2.03, 4.06, 30.63, 55.24), b(w) within 0.005 of its two digits.
        for (w, k, b) in [
            (118.0, 2.0, 0.44),
            (347.0, 4.0, 0.38),
            (10661.0, 30.0, 0.21),
            (37253.0, 54.0, 0.14),
        ] {
            assert!(hs.a(w) >= k && hs.a(w) < k + 1.3, "a({w}) = {}", hs.a(w));
            assert!((hs.b(w) - b).abs() < 0.005, "b({w}) = {}", hs.b(w));
        }
        // w = High_Window: b = High_Decrease, p = High_P: a = 83000²·1e-7·0.2/1.9 = 72.52.
        assert!((hs.b(83000.0) - 0.1).abs() < 1e-12);
        assert!((hs.p(83000.0) - 1e-7).abs() < 1e-18);
        assert!((hs.a(83000.0) - 72.516).abs() < 1e-2, "{}", hs.a(83000.0));
        // above it b stays at High_Decrease
        assert!((hs.b(1e6) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn increase_per_ack_and_decrease_on_loss() {
        let mut hs = rfc();
        let mut st = test_state(1058.0, 100.0);
        let ack = AckSample {
            acked: 1,
            duplicate: false,
            rtt: None,
            rate: None,
        };
        hs.on_ack(&mut st, &ack);
        assert!((st.cwnd - (1058.0 + 8.136 / 1058.0)).abs() < 1e-5);
        // Loss at 1058: ssthresh = cwnd = (1 − 0.32695)·1058 = 712.1
        st.cwnd = 1058.0;
        hs.on_congestion(&mut st, Signal::DupAcks);
        assert!((st.cwnd - 712.09).abs() < 0.01, "{}", st.cwnd);
        assert_eq!(st.ssthresh, st.cwnd);
        // At 30 segments: Reno's halving; timeout: cwnd 1.
        st.cwnd = 30.0;
        hs.on_congestion(&mut st, Signal::DupAcks);
        assert_eq!((st.cwnd, st.ssthresh), (15.0, 15.0));
        st.cwnd = 30.0;
        hs.on_congestion(&mut st, Signal::Timeout);
        assert_eq!((st.cwnd, st.ssthresh), (1.0, 15.0));
        // Reno's +1/cwnd below Low_Window
        let mut st = test_state(20.0, 10.0);
        hs.on_ack(&mut st, &ack);
        assert_eq!(st.cwnd, 20.05);
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::new();
        p.insert("high_window".into(), 30.0);
        assert_eq!(
            create("highspeed", &p).err().unwrap(),
            "highspeed: high_window = 30 is not allowed; must be > low_window (38)"
        );
        let mut p = Params::new();
        p.insert("high_decrease".into(), 0.7);
        assert!(create("highspeed", &p).err().unwrap().contains("high_decrease = 0.7"));
        let mut p = Params::new();
        p.insert("high_p".into(), 0.01);
        assert!(create("highspeed", &p).err().unwrap().contains("high_p = 0.01"));
        let mut p = Params::new();
        p.insert("low_window".into(), 100.0);
        p.insert("high_window".into(), 10000.0);
        let hs = HighSpeed::from_params(&p).unwrap();
        assert_eq!(hs.a(90.0), 1.0);
    }
}
