//! Congestion-control elements (after TCP KentRidge's DC-TCP): the TCP backplane owns
//! *when* to react (dup-ACK counting, the recovery state machine, the RTO); an algorithm
//! decides *how much* through the hooks of [`CongestionControl`].
//!
//! Adding an algorithm: one new file in this directory implementing the trait, and one
//! line in [`REGISTRY`].
use crate::sim::{Rng, Time};
use std::collections::BTreeMap;

mod bbr;
mod bic;
mod compound;
mod cubic;
mod cubic_linux;
mod esse;
pub mod fair_share;
mod fast;
mod freeze_tcp;
mod highspeed;
mod highspeed_linux;
mod htcp;
mod hybla;
mod illinois;
pub mod linux;
mod lp;
mod newreno;
mod reno;
mod rfs;
mod scalable;
mod sender_side_mods;
mod sync_tcp;
mod tahoe;
mod tcp_ho;
mod vegas;
mod veno;
mod westwood;
mod westwood_plus;
mod wpp;
mod yeah;

pub use fair_share::PathShare;

/// Algorithm parameters from the scenario (`cc_params`), all numeric.
pub type Params = BTreeMap<String, f64>;

/// The congestion-control phase the backplane is in (KentRidge's `ccstate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    CongestionAvoidance,
    /// Fast recovery after `dupthresh` duplicate ACKs (NewReno/Reno).
    FastRecovery,
    /// After a retransmission timeout, until a new ACK arrives ("slow recovery").
    TimeoutRecovery,
}

/// The congestion signal passed to [`CongestionControl::on_congestion`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// `dupthresh` duplicate ACKs (fast retransmit).
    DupAcks,
    /// Retransmission timeout (the first one of a back-off series).
    Timeout,
    /// Explicit congestion notification.
    Ecn,
    /// An explicit out-of-band notification (e.g. from a lower layer or router).
    Explicit,
}

/// How the backplane recovers after `dupthresh` duplicate ACKs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Tahoe: fast retransmit, then slow start from the window the algorithm set (go-back-N).
    None,
    /// Reno: fast recovery ends with the first new ACK.
    Reno,
    /// NewReno (RFC 6582): partial ACKs retransmit the next hole; a full ACK ends recovery.
    NewReno,
}

/// How the sender paces its new data segments; the flow's `tcp.pacing` sets it at the start
/// and an algorithm may change it at any time (FAST paces always, Sync-TCP in SYNC mode).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pacing {
    /// Segments leave as the window allows.
    Off,
    /// At cwnd / srtt segments per second once an RTT estimate exists (Kulik et al.).
    Window,
    /// At this many segments per second.
    Rate(f64),
}

/// How a connection takes part in the handoff protocols of the thesis's chapter 2
/// (`docs/tcp.md`, "Handoff: TCP-HO and Freeze-TCP").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handoff {
    /// Not at all: notifications and window options are ignored.
    None,
    /// TCP-HO and its variants: the Capability option on the SYN, the mobile host's
    /// Bandwidth option on handoff completion.
    TcpHo,
    /// Freeze-TCP: the mobile host's zero-window advertisement before a predicted
    /// disconnection and three window-reopening duplicate ACKs after it.
    Freeze,
}

/// The connection variables congestion control reads and writes.
#[derive(Debug, Clone)]
pub struct CcState {
    pub now: Time,
    /// Congestion window in segments.
    pub cwnd: f64,
    /// Slow-start threshold in segments.
    pub ssthresh: f64,
    /// Receiver (advertised / maximum) window in segments.
    pub rwnd: f64,
    pub init_cwnd: f64,
    pub init_ssthresh: f64,
    pub mss: u32,
    /// Segments sent and not yet cumulatively acknowledged.
    pub flight: u64,
    /// Smoothed RTT and its variation in seconds (0 before the first sample).
    pub srtt: f64,
    pub rttvar: f64,
    /// Minimum RTT seen (seconds; infinity before the first sample).
    pub min_rtt: f64,
    pub phase: Phase,
    /// During fast recovery, the window without the duplicate-ACK inflation (ns-2's `cwnd_`
    /// beside its `dupwnd_`): set by the backplane after the congestion response, lowered
    /// by partial ACKs once the inflation is used up; the default recovery exit returns to it.
    pub recovery_base: f64,
    /// Events an algorithm wants recorded (name, value); the backplane time-stamps them
    /// into the run's `events` table.
    pub log: Vec<(&'static str, f64)>,
    /// The bottleneck share along the forward path (fair-share estimators).
    pub path: PathShare,
    /// The connection's own random stream, for algorithms that draw.
    pub rng: Rng,
    pub pacing: Pacing,
}

impl CcState {
    /// The usable window in whole segments: min(cwnd, rwnd), truncated (as ns-2 does).
    pub fn window(&self) -> f64 {
        crate::sim::floor(self.cwnd.min(self.rwnd))
    }

    /// `window()` in whole segments, at least one: the segments the sender may have
    /// outstanding (the same value as `window().max(1.0) as u64`, without the round trip
    /// through floating point).
    #[inline]
    pub fn window_segments(&self) -> u64 {
        let w = self.cwnd.min(self.rwnd);
        if w >= 1.0 {
            w as u64
        } else {
            1
        }
    }
}

/// What an arriving ACK tells the algorithm.
#[derive(Debug, Clone, Copy)]
pub struct AckSample {
    /// Segments newly acknowledged cumulatively (0 for a duplicate ACK).
    pub acked: u64,
    /// True for a duplicate ACK.
    pub duplicate: bool,
    /// The RTT sample this ACK produced, if any (seconds).
    pub rtt: Option<f64>,
    /// The delivery-rate sample of this ACK, for algorithms that ask for one
    /// ([`CongestionControl::wants_rate_samples`]); `None` for all others.
    pub rate: Option<RateSample>,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation), produced by the
/// sender on every ACK for algorithms that ask for it. Counts are in segments.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RateSample {
    /// Segments delivered over `interval` per second; 0 when the sample is not valid.
    pub delivery_rate: f64,
    /// max(send interval, ACK interval) in seconds; 0 when the ACK gives no valid sample
    /// (no segment with send-time information, or an interval below the minimum RTT).
    pub interval: f64,
    /// Segments delivered over the interval.
    pub delivered: u64,
    /// The connection's delivered count when the sample's segment was sent.
    pub prior_delivered: u64,
    /// The connection's delivered count after this ACK.
    pub total_delivered: u64,
    /// Segments in flight (sent, neither acknowledged nor SACKed, nor counted delivered by
    /// a duplicate ACK) before and after the ACK; with SACK, after the ACK, RFC 6675's pipe
    /// (which leaves out the segments deemed lost and counts their retransmissions).
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// Segments newly delivered (acknowledged or SACKed) by this ACK.
    pub newly_delivered: u64,
    /// RTT of the most recently sent segment this ACK delivered, if not a retransmission.
    pub rtt: Option<f64>,
    /// The sample's segment was sent while the application limited the sender.
    pub is_app_limited: bool,
    /// Segments the sender marked lost since the previous sample (Linux's `rs->losses`).
    pub losses: u64,
    /// The connection's count of segments marked lost so far (Linux's `tp->lost`).
    pub total_lost: u64,
    /// When the connection's delivered count last grew (Linux's `tp->delivered_mstamp`).
    pub delivered_time: Time,
}

impl RateSample {
    pub fn valid(&self) -> bool {
        self.interval > 0.0
    }
}

/// The elements of a congestion-control algorithm. Only `name` is required; the defaults
/// are standard Reno behaviour (RFC 5681 with ns-2's per-ACK increase).
pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;

    /// Which recovery the backplane runs after `dupthresh` duplicate ACKs.
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    /// element_initialize: at connection start.
    fn init(&mut self, st: &mut CcState) {
        st.cwnd = st.init_cwnd;
        st.ssthresh = st.init_ssthresh;
    }

    /// Called instead of `init` when the algorithm replaces another on a running connection:
    /// cwnd, ssthresh and the RTT estimates are handed over as they are.
    fn on_switch_in(&mut self, _st: &mut CcState) {}

    /// Whether the sender should sample the delivery rate for this algorithm (it keeps
    /// per-segment records for it; only algorithms that need them pay for them).
    fn wants_rate_samples(&self) -> bool {
        false
    }

    /// element_cp: a new cumulative ACK outside fast recovery.
    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        reno_increase(st, ack);
    }

    /// Every ACK arrival, new or duplicate, before the backplane acts on it (estimators).
    fn on_ack_arrival(&mut self, _st: &CcState, _ack: &AckSample) {}

    /// The timestamp option of an arriving ACK when the flow uses timestamps, before
    /// `on_ack_arrival`: the receiver's clock when it sent the ACK (TSval) and the sender's
    /// time it echoes (TSecr), as simulation times. Needed for one-way delay (TCP-LP).
    fn on_ack_timestamps(&mut self, _ts_val: Time, _ts_echo: Time) {}

    /// element_cr: set ssthresh and cwnd after a congestion signal.
    fn on_congestion(&mut self, st: &mut CcState, signal: Signal) {
        halve(st, signal);
    }

    /// An ACK (duplicate or partial) during SACK-based fast recovery, after `on_ack_arrival`
    /// and before the sender picks what to send (Linux's rate halving lowers cwnd here).
    fn on_recovery_ack(&mut self, _st: &mut CcState, _ack: &AckSample) {}

    /// Whether the sender runs this algorithm as ns-2.35's TCP-Linux runs the Linux 2.6.22
    /// modules: the ports of those modules say yes. cwnd never grows beyond the receive
    /// window (Linux's `snd_cwnd_clamp`, which TCP-Linux sets to `window_`), and SACK
    /// recovery is the glue's rate halving (`next_pkts_in_flight_`).
    /// The window before the cut becomes a rate-halving window that follows the segments in
    /// flight down (at most pipe + 1 at each ACK, below pipe after each send: one segment per
    /// two ACKs), the sender sends while pipe < max(cwnd, that window), cwnd being the floor
    /// the module set (its `min_cwnd`, else ssthresh), and a cwnd below ssthresh at the end
    /// of recovery becomes min(ssthresh, pipe + 3) (`tcp_moderate_cwnd`). Without it, an ACK
    /// that frees much of the window (RFC 6675's pipe falls as holes are marked lost)
    /// releases a burst at the access rate (docs/ns2-parity.md).
    fn tcp_linux(&self) -> bool {
        false
    }

    /// The window when fast recovery ends with a full ACK (Reno: with the first new ACK).
    fn on_recovery_exit(&mut self, st: &mut CcState) {
        st.cwnd = st.recovery_base;
    }

    /// element_rttm hook: every RTT sample (seconds) after the backplane updated srtt/rttvar.
    fn on_rtt_sample(&mut self, _st: &CcState, _rtt: f64) {}

    /// A data segment left the sender.
    fn on_packet_sent(&mut self, _st: &CcState, _seq: u64, _retransmission: bool) {}

    /// The connection restarts after an idle period: nothing is in flight, the application
    /// limited the last sending and new data is about to leave (Linux's CA_EVENT_TX_START
    /// with `tp->app_limited`). The sender knows the application limit through its rate
    /// sampler: only algorithms that ask for rate samples are called.
    fn on_idle_restart(&mut self, _st: &mut CcState) {}

    /// A retransmission timeout marked the segments outstanding lost, just before
    /// `on_congestion(Signal::Timeout)`: the connection's delivered and lost counts then
    /// (algorithms that ask for rate samples only; Linux's `tp->delivered`, `tp->lost`).
    fn on_losses_marked(&mut self, _total_delivered: u64, _total_lost: u64) {}

    /// The RTT-sampling interval (seconds) the algorithm wants when the flow runs without
    /// timestamps and leaves `tcp.rtt_sample_interval` at 0 (Sync-TCP's T_sample): the sender
    /// then tags a segment for timing every this often instead of one per window.
    fn rtt_sample_interval(&self) -> Option<f64> {
        None
    }

    /// The pacer's timer granularity (seconds) the algorithm wants instead of the flow's
    /// `tcp.pacing_tick` (Sync-TCP's T_pace when set in `cc_params`); read at connection start.
    fn pacing_tick(&self) -> Option<f64> {
        None
    }

    /// Period of the algorithm's own timer, if it wants one (seconds).
    fn timer_interval(&self) -> Option<f64> {
        None
    }

    fn on_timer(&mut self, _st: &mut CcState) {}

    /// Which handoff protocol the connection runs (the mobile host follows the sender's
    /// algorithm).
    fn handoff(&self) -> Handoff {
        Handoff::None
    }

    /// TCP-HO: the sender accepted a Bandwidth option (just after a timeout, before it
    /// retransmits at once): the new wireless link's bandwidth in bit/s.
    fn on_bandwidth_option(&mut self, _st: &mut CcState, _bps: f64) {}

    /// Internal variables to expose as time series (name, value).
    fn samples(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Standard window growth: +1 segment per new ACK in slow start, +1/cwnd per new ACK in
/// congestion avoidance (per ACK, not per acknowledged segment, as ns-2 and BSD do).
pub fn reno_increase(st: &mut CcState, _ack: &AckSample) {
    if st.cwnd < st.ssthresh {
        st.cwnd += 1.0;
    } else {
        st.cwnd += 1.0 / st.cwnd;
    }
}

/// The end of fast recovery as ns-2.35's Reno and NewReno agents perform it: the window
/// returns to `recovery_base` (ns-2 drops the inflation `dupwnd_` and keeps `cwnd_`) and then,
/// with `increase`, the recovery-ending ACK is processed like any new ACK and opens the
/// window once more (`recv_newack_helper` calls `opencwnd()`): cwnd = w/2 + 1/(w/2) in
/// congestion avoidance, +1 if partial ACKs deflated the base below ssthresh. Without
/// `increase`, cwnd = `recovery_base` only (RFC 5681/6582 deflate without an increase).
pub fn ns2_recovery_exit(st: &mut CcState, increase: bool) {
    st.cwnd = st.recovery_base;
    if increase {
        reno_increase(
            st,
            &AckSample {
                acked: 1,
                duplicate: false,
                rtt: None,
                rate: None,
            },
        );
    }
}

/// Reads the `exit_increase` parameter of the ns-2 reference variants (Reno, NewReno):
/// 1 (default) = ns-2.35's exit, 0 = no increase on the recovery-ending ACK.
pub fn exit_increase_param(algorithm: &str, params: &Params) -> Result<bool, String> {
    match params.get("exit_increase").copied().unwrap_or(1.0) {
        v if v == 1.0 => Ok(true),
        v if v == 0.0 => Ok(false),
        v => Err(format!(
            "{algorithm}: exit_increase = {v} is not allowed; must be 0 or 1"
        )),
    }
}

/// max(floor(window / 2), 2) with window = floor(min(cwnd, rwnd)), as ns-2 computes it.
pub fn half_window(st: &CcState) -> f64 {
    crate::sim::floor(st.window() / 2.0).max(2.0)
}

/// The standard multiplicative decrease as ns-2.35 performs it (`slowdown` with
/// `CLOSE_SSTHRESH_HALF`): ssthresh = max(floor(w / 2), 2) with w = min(cwnd, rwnd); after
/// duplicate ACKs cwnd = w / 2 *without* truncation (so cwnd may sit a fraction above
/// ssthresh and go on in congestion avoidance), after a timeout cwnd = 1. Truncating cwnd
/// as well costs about half a segment per loss event: 5-9 % of goodput at 1 % random loss.
pub fn halve(st: &mut CcState, signal: Signal) {
    let w = st.cwnd.min(st.rwnd);
    st.ssthresh = half_window(st);
    st.cwnd = match signal {
        Signal::Timeout => 1.0,
        _ => w / 2.0,
    };
    st.recovery_base = st.cwnd;
}

type Constructor = fn(&Params) -> Result<Box<dyn CongestionControl>, String>;

/// Name → constructor. One line per algorithm.
pub const REGISTRY: &[(&str, Constructor)] = &[
    ("tahoe", tahoe::Tahoe::create),
    ("reno", reno::Reno::create),
    ("newreno", newreno::NewReno::create),
    ("westwood_be", westwood::Westwood::create_be),
    ("westwood_re", westwood::Westwood::create_re),
    ("westwood_crb", westwood::Westwood::create_crb),
    ("rfs", sender_side_mods::SenderSideMods::create_rfs),
    ("wpp", sender_side_mods::SenderSideMods::create_wpp),
    ("esse", sender_side_mods::SenderSideMods::create_esse),
    ("cubic_linux", cubic_linux::CubicLinux::create),
    ("cubic", cubic::Cubic::create),
    ("highspeed", highspeed::HighSpeed::create),
    ("highspeed_linux", highspeed_linux::HighSpeedLinux::create),
    ("scalable", scalable::Scalable::create),
    ("htcp", htcp::Htcp::create),
    ("bic", bic::Bic::create),
    ("hybla", hybla::Hybla::create),
    ("illinois", illinois::Illinois::create),
    ("veno", veno::Veno::create),
    ("westwood_plus", westwood_plus::WestwoodPlus::create),
    ("vegas", vegas::Vegas::create),
    ("compound", compound::Compound::create),
    ("fast", fast::Fast::create),
    ("yeah", yeah::Yeah::create),
    ("lp", lp::Lp::create),
    ("bbr", bbr::Bbr::create),
    ("sync_tcp", sync_tcp::SyncTcp::create),
    ("tcp_ho", tcp_ho::TcpHo::create),
    ("tcp_ho_immediate", tcp_ho::TcpHo::create_immediate),
    ("tcp_ho_aggressive", tcp_ho::TcpHo::create_aggressive),
    ("freeze_tcp", freeze_tcp::FreezeTcp::create),
];

/// Parameters whose values are names; the scenario turns a name into its index here.
pub const CHOICE_PARAMS: &[(&str, &[&str])] = &[("error", fair_share::ERROR_NAMES)];

/// The numeric code of a named parameter value, or an error listing what is allowed.
pub fn choice_code(key: &str, value: &str) -> Result<f64, String> {
    match CHOICE_PARAMS.iter().find(|(k, _)| *k == key) {
        Some((_, names)) => names
            .iter()
            .position(|n| *n == value)
            .map(|i| i as f64)
            .ok_or_else(|| format!("{value:?} is not allowed; allowed: {}", names.join(", "))),
        None => Err(format!("expected a number, got {value:?}")),
    }
}

/// Names of all registered algorithms.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|(n, _)| *n).collect()
}

/// Makes the algorithms of names the registry does not know (the Python extension's
/// plug-ins, `python:module:Class`): `None` when the name is not one of its own, else the
/// algorithm or why it cannot be made. The core knows nothing of Python.
pub type ExternalFactory = fn(&str, &Params) -> Option<Result<Box<dyn CongestionControl>, String>>;

static EXTERNAL: std::sync::OnceLock<(ExternalFactory, &'static str)> = std::sync::OnceLock::new();

/// Install the factory for names outside the registry (once per process; false if one is
/// installed already). `allowed` is added to the error for an unknown name (what else the
/// factory accepts).
pub fn set_external_factory(factory: ExternalFactory, allowed: &'static str) -> bool {
    EXTERNAL.set((factory, allowed)).is_ok()
}

/// Create the algorithm `name` with `params`; the error says what is allowed. Names joined by
/// '+' combine the sender-side modifications (e.g. "rfs+wpp+esse"); names the registry does
/// not know go to the external factory, if one is installed.
pub fn create(name: &str, params: &Params) -> Result<Box<dyn CongestionControl>, String> {
    match REGISTRY.iter().find(|(n, _)| *n == name) {
        Some((_, make)) => make(params),
        None if name.contains('+') => sender_side_mods::SenderSideMods::create(name, params),
        None => {
            if let Some((factory, _)) = EXTERNAL.get() {
                if let Some(made) = factory(name, params) {
                    return made;
                }
            }
            let more = EXTERNAL
                .get()
                .map_or(String::new(), |(_, allowed)| format!(", or {allowed}"));
            Err(format!(
                "unknown congestion-control algorithm {name:?}; allowed: {} (and combinations of {} joined by '+'{more})",
                names().join(", "),
                sender_side_mods::MODIFICATIONS.join(", ")
            ))
        }
    }
}

/// Reject parameters an algorithm does not know.
pub fn check_params(algorithm: &str, params: &Params, allowed: &[&str]) -> Result<(), String> {
    for k in params.keys() {
        if !allowed.contains(&k.as_str()) {
            let list = if allowed.is_empty() {
                "none".to_string()
            } else {
                allowed.join(", ")
            };
            return Err(format!("{algorithm} has no parameter {k:?}; allowed: {list}"));
        }
    }
    Ok(())
}

/// A new cumulative ACK of one segment with RTT sample `rtt` (unit tests).
#[cfg(test)]
pub(crate) fn one_ack(rtt: Option<f64>) -> AckSample {
    AckSample {
        acked: 1,
        duplicate: false,
        rtt,
        rate: None,
    }
}

/// A duplicate ACK without an RTT sample (unit tests).
#[cfg(test)]
pub(crate) fn dup_ack() -> AckSample {
    AckSample {
        acked: 0,
        duplicate: true,
        rtt: None,
        rate: None,
    }
}

#[cfg(test)]
pub(crate) fn test_state(cwnd: f64, ssthresh: f64) -> CcState {
    CcState {
        now: 0,
        cwnd,
        ssthresh,
        rwnd: 1e9,
        init_cwnd: 1.0,
        init_ssthresh: 1e9,
        mss: 1000,
        flight: cwnd as u64,
        srtt: 0.0,
        rttvar: 0.0,
        min_rtt: f64::INFINITY,
        phase: Phase::CongestionAvoidance,
        recovery_base: cwnd,
        log: Vec::new(),
        path: PathShare::default(),
        rng: Rng::from_seed(1),
        pacing: Pacing::Off,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_segments_is_the_window_as_a_count_of_at_least_one() {
        let mut st = test_state(1.0, 1.0);
        let odd = [
            f64::NAN,
            f64::NEG_INFINITY,
            -3.5,
            -0.0,
            0.0,
            0.4,
            0.999,
            1.0,
            1.5,
            2.999_999,
            1e9 + 0.5,
            9.1e15,
            1e300,
            f64::INFINITY,
        ];
        for &cwnd in &odd {
            for &rwnd in &[f64::NAN, 0.5, 7.0, 1e20, f64::INFINITY] {
                (st.cwnd, st.rwnd) = (cwnd, rwnd);
                assert_eq!(
                    st.window_segments(),
                    st.window().max(1.0) as u64,
                    "cwnd {cwnd} rwnd {rwnd}"
                );
            }
        }
    }

    #[test]
    fn registry_creates_every_algorithm_by_name() {
        for n in names() {
            let cc = create(n, &Params::new()).unwrap();
            assert_eq!(cc.name(), n);
        }
        let e = create("vegas2", &Params::new()).err().unwrap();
        assert!(e.contains("allowed: tahoe, reno, newreno, westwood_be"), "{e}");
    }

    #[test]
    fn unknown_parameter_is_rejected() {
        let mut p = Params::new();
        p.insert("beta".into(), 0.5);
        let e = create("newreno", &p).err().unwrap();
        assert_eq!(e, "newreno has no parameter \"beta\"; allowed: exit_increase");
        let e = create("tahoe", &p).err().unwrap();
        assert_eq!(e, "tahoe has no parameter \"beta\"; allowed: none");
    }

    #[test]
    fn halving_truncates_ssthresh_but_not_cwnd_like_ns2() {
        // ns-2.35 traced: cwnd_ 15.086 at the third duplicate ACK -> 7.543, ssthresh_ 7.
        let mut st = test_state(15.086, 1e9);
        halve(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd, st.recovery_base), (7.0, 7.543, 7.543));
        let mut st = test_state(15.086, 1e9);
        halve(&mut st, Signal::Timeout);
        assert_eq!((st.ssthresh, st.cwnd), (7.0, 1.0));
        // the floor of 2 is on ssthresh only; the receiver window caps the halved window
        let mut st = test_state(3.0, 1e9);
        halve(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (2.0, 1.5));
        let mut st = test_state(50.0, 1e9);
        st.rwnd = 20.0;
        halve(&mut st, Signal::DupAcks);
        assert_eq!((st.ssthresh, st.cwnd), (10.0, 10.0));
        // NewReno's exit returns to the un-inflated window, not to ssthresh (here without
        // ns-2's increase on the exit ACK, tested in newreno.rs)
        let mut cc = newreno::NewReno { exit_increase: false };
        let mut st = test_state(15.086, 1e9);
        cc.on_congestion(&mut st, Signal::DupAcks);
        st.cwnd += 3.0;
        cc.on_recovery_exit(&mut st);
        assert_eq!(st.cwnd, 7.543);
    }

    #[test]
    fn half_window_truncates_like_ns2() {
        let mut st = test_state(15.7, 100.0);
        assert_eq!(half_window(&st), 7.0);
        st.rwnd = 10.0;
        assert_eq!(half_window(&st), 5.0);
        st.cwnd = 2.5;
        assert_eq!(half_window(&st), 2.0);
    }
}
