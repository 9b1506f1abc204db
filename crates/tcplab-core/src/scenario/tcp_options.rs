//! The TCP side of a flow or generator: its `tcp` options, its congestion-control algorithm
//! with `cc_params`, and the schedule of algorithm switches.
use super::limits::{
    boolean, err, int_in, num, num_in, rate_nonneg, time_nonneg, time_pos, MAX_ACK_COUNT, MAX_INIT_CWND, MAX_PACKET,
    MAX_WINDOW,
};
use super::{units, SpecError};
use crate::cc::{self, Pacing};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// TCP options of one flow. Defaults follow ns-2.35 where the papers rely on ns-2.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TcpSpec {
    pub mss: u32,
    pub header: u32,
    pub ack_size: u32,
    pub init_cwnd: f64,
    pub init_ssthresh: f64,
    pub rwnd: f64,
    pub delayed_ack: bool,
    pub delack_timeout: f64,
    pub delack_count: u32,
    pub dupthresh: u32,
    pub timestamps: bool,
    pub min_rto: f64,
    pub max_rto: f64,
    pub initial_rto: f64,
    pub tick: f64,
    pub handshake: bool,
    /// RFC 3042 Limited Transmit (ns-2.35's `singledup_`, on there by default).
    #[serde(default)]
    pub limited_transmit: bool,
    /// Maximum random processing time per data packet at the sender (uniform in
    /// [0, send_jitter], order kept), as in Qiu, Zhang, Keshav §5.2. 0 = none.
    #[serde(default)]
    pub send_jitter: f64,
    /// RTT sampling without timestamps: 0 = one timed segment per window (BSD, ns-2); > 0 =
    /// a segment tagged every this many seconds, several in flight (Sync-TCP's T_sample).
    /// Karn's rule: retransmitted segments give no sample.
    #[serde(default)]
    pub rtt_sample_interval: f64,
    /// Pacing of new data segments: "off", "window" (cwnd/srtt) or "rate" (`pacing_rate`).
    #[serde(default = "pacing_off")]
    pub pacing: String,
    /// bit/s of data packets on the wire, with `pacing = "rate"`.
    #[serde(default)]
    pub pacing_rate: f64,
    /// The pacer's timer granularity in seconds; 0 = each segment at exactly 1/rate.
    #[serde(default = "default_pacing_tick")]
    pub pacing_tick: f64,
    /// SACK: the receiver reports blocks (RFC 2018), the sender recovers with them (RFC 6675).
    #[serde(default)]
    pub sack: bool,
    /// Explicit Congestion Notification (RFC 3168) at both ends.
    #[serde(default)]
    pub ecn: bool,
    /// D-SACK (RFC 2883, with `sack`): the receiver reports a duplicate segment in the first
    /// SACK block; the sender finds spurious retransmissions with it (RFC 3708).
    #[serde(default, skip_serializing_if = "is_false")]
    pub dsack: bool,
    /// Undo a window reduction found spurious (by D-SACK or, with timestamps, Eifel): cwnd
    /// and ssthresh go back to their values before it (RFC 4015's response).
    #[serde(default, skip_serializing_if = "is_false")]
    pub undo: bool,
    /// TCP-HO's options (thesis Fig. 2.2, formats unstated; SEED-NOTES §2.1's reading): the
    /// Capability option's kind, length (3: an 8-bit mask, 4: a 16-bit one) and TCP-HO's
    /// bit in the mask (0 = the last, least significant bit); the Bandwidth option's kind
    /// and length (4: 16-bit Kbps, 6: 32-bit Kbps; a value too large saturates).
    #[serde(default = "cap_kind", skip_serializing_if = "is_cap_kind")]
    pub ho_capability_kind: u8,
    #[serde(default = "cap_len", skip_serializing_if = "is_cap_len")]
    pub ho_capability_len: u8,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ho_capability_bit: u8,
    #[serde(default = "bw_kind", skip_serializing_if = "is_bw_kind")]
    pub ho_bandwidth_kind: u8,
    #[serde(default = "bw_len", skip_serializing_if = "is_bw_len")]
    pub ho_bandwidth_len: u8,
    /// The destination (server) port: what the packet captures and the console's
    /// connection table show, and what TCP KentRidge's agent infers the application's
    /// expectations from (`kentridge.port_expectations`).
    #[serde(default = "default_dport", skip_serializing_if = "is_default_dport")]
    pub dport: u16,
}

/// The destination port of every connection unless `tcp.dport` says otherwise (iperf's).
pub const DEFAULT_DPORT: u16 = 5001;

fn default_dport() -> u16 {
    DEFAULT_DPORT
}
fn is_default_dport(v: &u16) -> bool {
    *v == DEFAULT_DPORT
}

fn cap_kind() -> u8 {
    253
}
fn cap_len() -> u8 {
    4
}
fn bw_kind() -> u8 {
    254
}
fn bw_len() -> u8 {
    6
}
fn is_cap_kind(v: &u8) -> bool {
    *v == cap_kind()
}
fn is_cap_len(v: &u8) -> bool {
    *v == cap_len()
}
fn is_bw_kind(v: &u8) -> bool {
    *v == bw_kind()
}
fn is_bw_len(v: &u8) -> bool {
    *v == bw_len()
}
fn is_false(v: &bool) -> bool {
    !*v
}
fn is_zero(v: &u8) -> bool {
    *v == 0
}

pub const PACING_MODES: &[&str] = &["off", "window", "rate"];

fn pacing_off() -> String {
    "off".into()
}

fn default_pacing_tick() -> f64 {
    0.005
}

impl TcpSpec {
    /// The pacing the sender starts with.
    pub fn pacing(&self) -> Pacing {
        match self.pacing.as_str() {
            "window" => Pacing::Window,
            "rate" => Pacing::Rate(self.pacing_rate / (8.0 * f64::from(self.mss + self.header))),
            _ => Pacing::Off,
        }
    }
}

impl Default for TcpSpec {
    fn default() -> Self {
        TcpSpec {
            mss: 1000,
            header: 40,
            ack_size: 40,
            init_cwnd: 1.0,
            init_ssthresh: 1e9,
            rwnd: 1e9,
            delayed_ack: false,
            delack_timeout: 0.1,
            delack_count: 2,
            dupthresh: 3,
            timestamps: false,
            min_rto: 0.2,
            max_rto: 64.0,
            initial_rto: 3.0,
            tick: 0.01,
            handshake: false,
            limited_transmit: false,
            send_jitter: 0.0,
            rtt_sample_interval: 0.0,
            pacing: pacing_off(),
            pacing_rate: 0.0,
            pacing_tick: default_pacing_tick(),
            sack: false,
            ecn: false,
            dsack: false,
            undo: false,
            ho_capability_kind: cap_kind(),
            ho_capability_len: cap_len(),
            ho_capability_bit: 0,
            ho_bandwidth_kind: bw_kind(),
            ho_bandwidth_len: bw_len(),
            dport: DEFAULT_DPORT,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSwitch {
    at: Value,
    cc: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SwitchSpec {
    pub at: f64,
    pub cc: String,
}

pub(super) fn tcp_options(path: &str, raw: Option<&Map<String, Value>>) -> Result<TcpSpec, SpecError> {
    let mut t = TcpSpec::default();
    let Some(raw) = raw else { return Ok(t) };
    let mut rwnd_bytes = None;
    for (k, v) in raw {
        let p = format!("{path}.{k}");
        match k.as_str() {
            "mss" => t.mss = int_in(&p, v, 1, MAX_PACKET)? as u32,
            "header" => t.header = int_in(&p, v, 0, MAX_PACKET)? as u32,
            "ack_size" => t.ack_size = int_in(&p, v, 1, MAX_PACKET)? as u32,
            "init_cwnd" => t.init_cwnd = num_in(&p, v, 1.0, MAX_INIT_CWND, "segments")?,
            "init_ssthresh" => {
                t.init_ssthresh = num(&p, v)?;
                if t.init_ssthresh < 2.0 {
                    return err(&p, format!("{} is not allowed; must be >= 2 segments", t.init_ssthresh));
                }
            }
            "rwnd" => t.rwnd = num_in(&p, v, 1.0, MAX_WINDOW, "segments")?,
            "delayed_ack" => t.delayed_ack = boolean(&p, v)?,
            "delack_timeout" => t.delack_timeout = time_pos(&p, v)?,
            "delack_count" => t.delack_count = int_in(&p, v, 1, MAX_ACK_COUNT)? as u32,
            "dupthresh" => t.dupthresh = int_in(&p, v, 1, MAX_ACK_COUNT)? as u32,
            "timestamps" => t.timestamps = boolean(&p, v)?,
            "min_rto" => t.min_rto = time_pos(&p, v)?,
            "max_rto" => t.max_rto = time_pos(&p, v)?,
            "initial_rto" => t.initial_rto = time_pos(&p, v)?,
            "tick" => t.tick = time_nonneg(&p, v)?,
            "handshake" => t.handshake = boolean(&p, v)?,
            "limited_transmit" => t.limited_transmit = boolean(&p, v)?,
            "send_jitter" => t.send_jitter = time_nonneg(&p, v)?,
            "rtt_sample_interval" => t.rtt_sample_interval = time_nonneg(&p, v)?,
            "pacing" => {
                t.pacing = match v.as_str() {
                    Some(m) if PACING_MODES.contains(&m) => m.to_string(),
                    _ => return err(&p, format!("{v} is not allowed; allowed: {}", PACING_MODES.join(", "))),
                }
            }
            "pacing_rate" => t.pacing_rate = rate_nonneg(&p, v)?,
            "pacing_tick" => t.pacing_tick = time_nonneg(&p, v)?,
            "sack" => t.sack = boolean(&p, v)?,
            "ecn" => t.ecn = boolean(&p, v)?,
            "dsack" => t.dsack = boolean(&p, v)?,
            "undo" => t.undo = boolean(&p, v)?,
            "ho_capability_kind" => t.ho_capability_kind = option_kind(&p, v)?,
            "ho_capability_len" => t.ho_capability_len = int_in(&p, v, 3, 4)? as u8,
            "ho_capability_bit" => t.ho_capability_bit = int_in(&p, v, 0, 15)? as u8,
            "ho_bandwidth_kind" => t.ho_bandwidth_kind = option_kind(&p, v)?,
            "ho_bandwidth_len" => {
                t.ho_bandwidth_len = int_in(&p, v, 4, 6)? as u8;
                if t.ho_bandwidth_len == 5 {
                    return err(&p, "5 is not allowed; must be 4 (16-bit Kbps) or 6 (32-bit Kbps)");
                }
            }
            "dport" => t.dport = int_in(&p, v, 1, 65535)? as u16,
            "rwnd_bytes" => {
                let b = units::parse_size(v).map_err(|m| SpecError(format!("{p}: {m}")))?;
                let max = MAX_WINDOW * MAX_PACKET as f64;
                if !(b.is_finite() && (1.0..=max).contains(&b)) {
                    return err(&p, format!("{v} is not allowed; must be from 1 to {max:e} bytes"));
                }
                rwnd_bytes = Some(b);
            }
            _ => {
                let allowed = "mss, header, ack_size, init_cwnd, init_ssthresh, rwnd, rwnd_bytes, delayed_ack, \
                               delack_timeout, delack_count, dupthresh, timestamps, min_rto, max_rto, \
                               initial_rto, tick, handshake, limited_transmit, send_jitter, rtt_sample_interval, pacing, pacing_rate, pacing_tick, sack, dsack, ecn, undo, \
                               ho_capability_kind, ho_capability_len, ho_capability_bit, ho_bandwidth_kind, ho_bandwidth_len, dport";
                return err(&p, format!("unknown TCP option; allowed: {allowed}"));
            }
        }
    }
    if t.pacing == "rate" && t.pacing_rate <= 0.0 {
        return err(
            &format!("{path}.pacing_rate"),
            "is required with pacing = \"rate\" (a rate > 0)",
        );
    }
    if t.pacing != "rate" && t.pacing_rate != 0.0 {
        return err(
            &format!("{path}.pacing_rate"),
            format!("is only allowed with pacing = \"rate\", not {:?}", t.pacing),
        );
    }
    if let Some(b) = rwnd_bytes {
        if raw.contains_key("rwnd") {
            return err(
                &format!("{path}.rwnd_bytes"),
                "is not allowed together with rwnd; give the receive window once, in segments (rwnd) or in bytes",
            );
        }
        // The segments of mss bytes that fit in the window (at least one), as a receiver
        // advertising that many bytes lets a segment-counting sender have outstanding.
        t.rwnd = (b / f64::from(t.mss)).floor().clamp(1.0, MAX_WINDOW);
    }
    if t.ho_capability_len == 3 && t.ho_capability_bit > 7 {
        return err(
            &format!("{path}.ho_capability_bit"),
            format!(
                "{} is not allowed with ho_capability_len = 3 (an 8-bit mask); must be from 0 to 7",
                t.ho_capability_bit
            ),
        );
    }
    if t.ho_capability_kind == t.ho_bandwidth_kind {
        return err(
            &format!("{path}.ho_bandwidth_kind"),
            format!(
                "{} is the Capability option's kind too; the two options need different kinds",
                t.ho_bandwidth_kind
            ),
        );
    }
    if t.dsack && !t.sack {
        return err(
            &format!("{path}.dsack"),
            "true is not allowed without sack = true; D-SACK reports duplicates in SACK blocks (set tcp.sack = true)",
        );
    }
    if t.undo && !t.dsack && !t.timestamps {
        return err(
            &format!("{path}.undo"),
            "true is not allowed without dsack = true or timestamps = true; nothing could find a reduction spurious",
        );
    }
    if t.max_rto < t.min_rto {
        return err(
            &format!("{path}.max_rto"),
            format!("{} s is below min_rto {} s", t.max_rto, t.min_rto),
        );
    }
    Ok(t)
}

/// A TCP option kind: 2..=255 (0 and 1 are End of List and No-Operation).
fn option_kind(path: &str, v: &Value) -> Result<u8, SpecError> {
    Ok(int_in(path, v, 2, 255)? as u8)
}

/// TCP-HO negotiates in the handshake: a flow that starts with (or switches to) one of
/// its algorithms opens with a SYN; `tcp.handshake = false` is refused for it.
pub(super) fn tcp_ho_handshake(
    p: &str,
    cc_name: &str,
    switch: &[SwitchSpec],
    raw: Option<&Map<String, Value>>,
    t: &mut TcpSpec,
) -> Result<(), SpecError> {
    let ho = |n: &str| n.starts_with("tcp_ho");
    let Some(name) = std::iter::once(cc_name)
        .chain(switch.iter().map(|s| s.cc.as_str()))
        .find(|n| ho(n))
    else {
        return Ok(());
    };
    if raw.is_some_and(|m| m.get("handshake") == Some(&Value::Bool(false))) {
        return err(
            &format!("{p}.tcp.handshake"),
            format!("false is not allowed with {name}: TCP-HO is negotiated in the handshake (Capability option on the SYN)"),
        );
    }
    t.handshake = true;
    Ok(())
}

/// A cc parameter: a number, or a name for the parameters that take one (`error = "tbe"`).
fn cc_param(path: &str, key: &str, v: &Value) -> Result<f64, SpecError> {
    match v {
        Value::String(name) => cc::choice_code(key, name).map_err(|m| SpecError(format!("{path}: {m}"))),
        _ => num(path, v),
    }
}

/// The algorithm of the entry at `p` (`cc`, newreno when absent) and its `cc_params`,
/// checked by creating the algorithm once.
pub(super) fn congestion_control(
    p: &str,
    cc_name: Option<&String>,
    raw_params: Option<&Map<String, Value>>,
) -> Result<(String, BTreeMap<String, f64>), SpecError> {
    let cc_name = cc_name.cloned().unwrap_or_else(|| "newreno".into());
    let cc_params: BTreeMap<String, f64> = match raw_params {
        Some(m) => m
            .iter()
            .map(|(k, v)| Ok((k.clone(), cc_param(&format!("{p}.cc_params.{k}"), k, v)?)))
            .collect::<Result<_, SpecError>>()?,
        None => BTreeMap::new(),
    };
    // The algorithm's own name is the canonical one: "esse+rfs" becomes "rfs+esse".
    match cc::create(&cc_name, &cc_params) {
        Ok(cc) => Ok((cc.name().to_string(), cc_params)),
        Err(m) => err(&format!("{p}.cc"), m),
    }
}

/// The algorithm switches of the flow at `p`; each algorithm must accept the flow's `cc_params`.
pub(super) fn switch_schedule(
    p: &str,
    raw: &[RawSwitch],
    cc_params: &BTreeMap<String, f64>,
) -> Result<Vec<SwitchSpec>, SpecError> {
    let mut switch = Vec::new();
    for (k, s) in raw.iter().enumerate() {
        let at = time_nonneg(&format!("{p}.switch[{k}].at"), &s.at)?;
        let cc = match cc::create(&s.cc, cc_params) {
            Ok(cc) => cc.name().to_string(),
            Err(m) => return err(&format!("{p}.switch[{k}].cc"), m),
        };
        switch.push(SwitchSpec { at, cc });
    }
    Ok(switch)
}
