//! `[[flows]]`: flows declared in the spec (TCP bulk or sized transfers, UDP sources, VoIP
//! calls), each entry expanded into `count` flows (a VoIP call in both directions into two
//! per instance: src to dst, then dst to src).
use super::components::Components;
use super::handoff::{handoff_spec, HandoffEvent, HandoffSpec};
use super::instances::{endpoints, entry_count, instance_name, substitute};
use super::kentridge::kentridge_spec;
use super::limits::{boolean, err, int_in, name, time_nonneg, MAX_FLOWS, MAX_FLOW_SIZE};
use super::tcp_options::tcp_ho_handshake;
use super::tcp_options::{congestion_control, switch_schedule, tcp_options, RawSwitch, SwitchSpec, TcpSpec};
use super::udp::{udp_source, voip_rate, voip_source, RateStep, RawOnOff, RawRateStep, UdpSpec, VoipSpec};
use super::{SimSpec, SpecError};
use crate::kentridge::KentRidgeSpec;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFlow {
    #[serde(default)]
    name: Option<String>,
    src: String,
    dst: String,
    #[serde(default)]
    pub(super) count: Option<Value>,
    #[serde(default)]
    cc: Option<String>,
    #[serde(default)]
    cc_params: Option<Map<String, Value>>,
    #[serde(default)]
    start: Option<Value>,
    #[serde(default)]
    stop: Option<Value>,
    #[serde(default)]
    size: Option<Value>,
    #[serde(default)]
    switch: Vec<RawSwitch>,
    #[serde(default)]
    tcp: Option<Map<String, Value>>,
    #[serde(default)]
    transport: Option<String>,
    #[serde(default)]
    rate: Option<Value>,
    #[serde(default)]
    rate_schedule: Option<Vec<RawRateStep>>,
    #[serde(default)]
    packet: Option<Value>,
    #[serde(default)]
    on_off: Option<RawOnOff>,
    #[serde(default)]
    interval: Option<Value>,
    #[serde(default)]
    direction: Option<String>,
    #[serde(default)]
    delay_stats: Option<Value>,
    #[serde(default)]
    delay_trace: Option<Value>,
    #[serde(default)]
    handoffs: Option<Value>,
    #[serde(default)]
    bandwidth_error: Option<Value>,
    #[serde(default)]
    freeze_offset: Option<Value>,
    #[serde(default)]
    kentridge: Option<Map<String, Value>>,
}

/// A flow of the normalised spec. What differs between the instances of one `[[flows]]`
/// entry (name, ends, start) is the flow's own; the rest ([`FlowCommon`], reached through
/// `Deref`: `spec.tcp`, `spec.cc`) is shared by all of them, and by the flow records built
/// from them (10^5 flows of one entry hold one copy of their options, not 10^5). As JSON it
/// is one object with every field, in the order of `FlowSpecFields`.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowSpec {
    pub name: String,
    /// Shared with the other flows between the same nodes (a generator's transfers).
    pub src: Arc<str>,
    pub dst: Arc<str>,
    pub start: f64,
    pub common: Arc<FlowCommon>,
}

/// The options the instances of one `[[flows]]` entry share.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowCommon {
    pub cc: String,
    pub cc_params: BTreeMap<String, f64>,
    pub stop: Option<f64>,
    pub size: Option<u64>,
    pub switch: Vec<SwitchSpec>,
    pub tcp: TcpSpec,
    /// "tcp", "udp" (a non-adaptive constant-bit-rate source) or "voip" (one direction of
    /// a call: a constant-bit-rate source of `packet` bytes every `interval`).
    pub transport: String,
    /// UDP packet size on the wire (bytes), when `transport` is "udp" or "voip".
    pub packet: Option<u32>,
    /// UDP rate steps (time relative to the flow's start, bit/s), when `transport` is "udp"
    /// or "voip" (for "voip", one step: `packet` every `interval`).
    pub rate_schedule: Option<Vec<RateStep>>,
    /// VoIP: the time between packets (seconds).
    pub interval: Option<f64>,
    /// VoIP: which half of the call this flow is, "forward" (src to dst of the entry) or
    /// "reverse" (its dst to its src; this flow's src and dst are swapped).
    pub direction: Option<String>,
    /// The receiver measures every datagram's one-way delay, jitter and loss (always for
    /// "voip"; for "udp" when `delay_stats = true`).
    pub delay_stats: bool,
    /// The receiver notes every datagram's one-way delay in the events table
    /// (`datagram_delay`), when `delay_trace = true`.
    pub delay_trace: bool,
    /// The mobile host's handoffs (`handoffs`, `bandwidth_error`, `freeze_offset`).
    pub handoff: Option<HandoffSpec>,
    /// TCP KentRidge (`kentridge`): classification, knowledge base, agent; `None`: off.
    pub kentridge: Option<KentRidgeSpec>,
}

impl std::ops::Deref for FlowSpec {
    type Target = FlowCommon;
    fn deref(&self) -> &FlowCommon {
        &self.common
    }
}

/// Changing a shared option changes it for this flow only (the shared part is copied).
impl std::ops::DerefMut for FlowSpec {
    fn deref_mut(&mut self) -> &mut FlowCommon {
        Arc::make_mut(&mut self.common)
    }
}

/// A flow spec as JSON: every field, in this order (`FlowSpecOwned` reads it back).
#[derive(Serialize)]
#[serde(rename = "FlowSpec")]
struct FlowSpecFields<'a> {
    name: &'a str,
    src: &'a str,
    dst: &'a str,
    cc: &'a str,
    cc_params: &'a BTreeMap<String, f64>,
    start: f64,
    stop: Option<f64>,
    size: Option<u64>,
    switch: &'a [SwitchSpec],
    tcp: &'a TcpSpec,
    transport: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    packet: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rate_schedule: Option<&'a [RateStep]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    interval: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    direction: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    delay_stats: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    delay_trace: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    handoffs: Option<&'a [HandoffEvent]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bandwidth_error: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    freeze_offset: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kentridge: Option<&'a KentRidgeSpec>,
}

#[derive(Deserialize)]
struct FlowSpecOwned {
    name: String,
    src: String,
    dst: String,
    cc: String,
    cc_params: BTreeMap<String, f64>,
    start: f64,
    stop: Option<f64>,
    size: Option<u64>,
    switch: Vec<SwitchSpec>,
    tcp: TcpSpec,
    #[serde(default = "default_transport")]
    transport: String,
    #[serde(default)]
    packet: Option<u32>,
    #[serde(default)]
    rate_schedule: Option<Vec<RateStep>>,
    #[serde(default)]
    interval: Option<f64>,
    #[serde(default)]
    direction: Option<String>,
    #[serde(default)]
    delay_stats: Option<bool>,
    #[serde(default)]
    delay_trace: Option<bool>,
    #[serde(default)]
    handoffs: Option<Vec<HandoffEvent>>,
    #[serde(default)]
    bandwidth_error: Option<f64>,
    #[serde(default)]
    freeze_offset: Option<f64>,
    #[serde(default)]
    kentridge: Option<KentRidgeSpec>,
}

impl Serialize for FlowSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = &*self.common;
        FlowSpecFields {
            name: &self.name,
            src: &self.src,
            dst: &self.dst,
            cc: &c.cc,
            cc_params: &c.cc_params,
            start: self.start,
            stop: c.stop,
            size: c.size,
            switch: &c.switch,
            tcp: &c.tcp,
            transport: &c.transport,
            packet: c.packet,
            // A VoIP flow's schedule follows from its packet and interval (and as JSON it
            // reads back as a spec: a "voip" entry takes no rate_schedule).
            rate_schedule: c.rate_schedule.as_deref().filter(|_| c.transport != "voip"),
            interval: c.interval,
            direction: c.direction.as_deref(),
            delay_stats: (c.delay_stats && c.transport == "udp").then_some(true),
            delay_trace: c.delay_trace.then_some(true),
            handoffs: c.handoff.as_ref().map(|h| h.events.as_slice()),
            bandwidth_error: c.handoff.as_ref().map(|h| h.bandwidth_error),
            freeze_offset: c.handoff.as_ref().map(|h| h.freeze_offset),
            kentridge: c.kentridge.as_ref(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for FlowSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FlowSpec, D::Error> {
        let f = FlowSpecOwned::deserialize(d)?;
        Ok(FlowSpec {
            name: f.name,
            src: f.src.into(),
            dst: f.dst.into(),
            start: f.start,
            common: Arc::new(FlowCommon {
                cc: f.cc,
                cc_params: f.cc_params,
                stop: f.stop,
                size: f.size,
                switch: f.switch,
                tcp: f.tcp,
                rate_schedule: match (f.transport.as_str(), f.packet, f.interval) {
                    ("voip", Some(p), Some(i)) => Some(vec![RateStep {
                        at: 0.0,
                        rate: voip_rate(p, i),
                    }]),
                    _ => f.rate_schedule,
                },
                delay_stats: f.delay_stats.unwrap_or(false) || f.transport == "voip",
                delay_trace: f.delay_trace.unwrap_or(false),
                transport: f.transport,
                packet: f.packet,
                interval: f.interval,
                direction: f.direction,
                handoff: f.handoffs.map(|events| HandoffSpec {
                    events,
                    bandwidth_error: f.bandwidth_error.unwrap_or(0.0),
                    freeze_offset: f.freeze_offset.unwrap_or(0.0),
                }),
                kentridge: f.kentridge,
            }),
        })
    }
}

fn default_transport() -> String {
    "tcp".into()
}

pub(super) fn expand_flows(
    raw: &[RawFlow],
    sim: &SimSpec,
    index: &HashMap<String, usize>,
    components: &mut Components,
) -> Result<Vec<Arc<FlowSpec>>, SpecError> {
    let mut flows = Vec::new();
    for (i, f) in raw.iter().enumerate() {
        expand_flow(i, f, sim, index, components, &mut flows)?;
        if flows.len() as u64 > MAX_FLOWS {
            return err(
                &format!("flows[{i}]"),
                format!(
                    "makes {} flows (a VoIP call in both directions is two); at most {MAX_FLOWS} in one scenario",
                    flows.len()
                ),
            );
        }
    }
    Ok(flows)
}

/// Every flow name once; the names with their flow's position.
pub(super) fn unique_flow_names(flows: &[Arc<FlowSpec>]) -> Result<HashMap<&str, usize>, SpecError> {
    let mut seen = HashMap::with_capacity(flows.len());
    for (i, f) in flows.iter().enumerate() {
        if let Some(j) = seen.insert(f.name.as_str(), i) {
            return err("flows", format!("flow name {:?} is used by flows {j} and {i}", f.name));
        }
    }
    Ok(seen)
}

fn expand_flow(
    i: usize,
    f: &RawFlow,
    sim: &SimSpec,
    index: &HashMap<String, usize>,
    components: &mut Components,
    out: &mut Vec<Arc<FlowSpec>>,
) -> Result<(), SpecError> {
    let p = format!("flows[{i}]");
    let count = entry_count(&p, f.count.as_ref(), MAX_FLOWS)?;
    let (cc_name, cc_params) = congestion_control(&p, f.cc.as_ref(), f.cc_params.as_ref())?;
    let starts = start_times(&p, f.start.as_ref(), count, sim)?;
    let stop = match &f.stop {
        Some(v) => Some(time_nonneg(&format!("{p}.stop"), v)?),
        None => None,
    };
    let size = match &f.size {
        Some(v) => Some(int_in(&format!("{p}.size"), v, 1, MAX_FLOW_SIZE)?),
        None => None,
    };
    let switch = switch_schedule(&p, &f.switch, &cc_params)?;
    let mut tcp = tcp_options(&format!("{p}.tcp"), f.tcp.as_ref())?;
    tcp_ho_handshake(&p, &cc_name, &switch, f.tcp.as_ref(), &mut tcp)?;
    let end = stop.unwrap_or(sim.duration);
    let horizon = end - starts.iter().copied().fold(f64::INFINITY, f64::min);
    let (transport, source) = transport(&p, f, horizon)?;
    let (udp, voip) = match source {
        Source::None => (None, None),
        Source::Udp(u) => (Some(u), None),
        Source::Voip(v) => (
            Some(UdpSpec {
                packet: v.packet,
                schedule: vec![RateStep {
                    at: 0.0,
                    rate: voip_rate(v.packet, v.interval),
                }],
            }),
            Some(v),
        ),
    };
    // A measurement option of datagram flows: refused on a TCP flow.
    let datagram_flag = |name: &str, v: &Option<Value>, only: &str| -> Result<bool, SpecError> {
        let Some(v) = v else {
            return Ok(false);
        };
        let on = boolean(&format!("{p}.{name}"), v)?;
        if transport == "tcp" && on {
            return err(&format!("{p}.{name}"), only);
        }
        Ok(on)
    };
    let delay_stats = datagram_flag(
        "delay_stats",
        &f.delay_stats,
        "is for transport = \"udp\" (and \"voip\", always measured) only",
    )? || voip.is_some();
    let handoff = handoff_spec(
        &p,
        f.handoffs.as_ref(),
        f.bandwidth_error.as_ref(),
        f.freeze_offset.as_ref(),
        &cc_name,
        &transport,
    )?;
    let delay_trace = datagram_flag(
        "delay_trace",
        &f.delay_trace,
        "is for transport = \"udp\" and \"voip\" only",
    )?;
    let kentridge = kentridge_spec(&format!("{p}.kentridge"), f.kentridge.as_ref())?;
    if kentridge.is_some() && transport != "tcp" {
        return err(&format!("{p}.kentridge"), "is for transport = \"tcp\" only");
    }
    let explicit_no_handshake = f
        .tcp
        .as_ref()
        .is_some_and(|m| m.get("handshake") == Some(&Value::Bool(false)));
    if kentridge.is_some() && handoff.is_some() && !explicit_no_handshake {
        // A KentRidge connection on a mobile path offers TCP-HO at the SYN (its agent may
        // switch to it): it opens with a handshake unless the spec says otherwise.
        tcp.handshake = true;
    }
    let common = Arc::new(FlowCommon {
        cc: cc_name,
        cc_params,
        stop,
        size,
        switch,
        tcp,
        transport,
        packet: udp.as_ref().map(|u| u.packet),
        rate_schedule: udp.map(|u| u.schedule),
        interval: voip.as_ref().map(|v| v.interval),
        direction: voip
            .as_ref()
            .map(|v| if v.direction == "reverse" { "reverse" } else { "forward" }.into()),
        delay_stats,
        delay_trace,
        handoff,
        kentridge,
    });
    // A call in both directions: each instance is followed by its reverse half.
    let reverse = voip.as_ref().filter(|v| v.direction == "both").map(|_| {
        let mut c = (*common).clone();
        c.direction = Some("reverse".into());
        Arc::new(c)
    });
    for k in 0..count {
        let src: Arc<str> = substitute(&f.src, k).into();
        let dst: Arc<str> = substitute(&f.dst, k).into();
        let (a, b) = endpoints(&p, &src, &dst, index)?;
        if a == b {
            return err(
                &format!("{p}.dst"),
                format!("source and destination are the same node {src:?}"),
            );
        }
        if !components.connected(a, b) {
            return err(&format!("{p}.dst"), format!("no route from {src:?} to {dst:?}"));
        }
        let start = starts[k];
        if let Some(s) = stop {
            if s <= start {
                return err(&format!("{p}.stop"), format!("{s} s is not after the start {start} s"));
            }
        }
        let name = instance_name(f.name.as_ref(), count, k, "flow", out.len());
        self::name(&format!("{p}.name"), &name)?;
        if let Some(rev) = &reverse {
            let back = format!("{name}.back");
            self::name(&format!("{p}.name"), &back)?;
            out.push(Arc::new(FlowSpec {
                name,
                src: src.clone(),
                dst: dst.clone(),
                start,
                common: common.clone(),
            }));
            out.push(Arc::new(FlowSpec {
                name: back,
                src: dst,
                dst: src,
                start,
                common: rev.clone(),
            }));
            continue;
        }
        out.push(Arc::new(FlowSpec {
            name,
            src,
            dst,
            start,
            common: common.clone(),
        }));
    }
    Ok(())
}

/// The start of every instance: one time for all, or a list with one per instance; each
/// before the end of the simulation.
fn start_times(p: &str, start: Option<&Value>, count: usize, sim: &SimSpec) -> Result<Vec<f64>, SpecError> {
    let starts: Vec<f64> = match start {
        None => vec![0.0; count],
        Some(Value::Array(xs)) => {
            if xs.len() != count {
                return err(
                    &format!("{p}.start"),
                    format!(
                        "a list of {} start times was given; it must have one per flow (count = {count})",
                        xs.len()
                    ),
                );
            }
            xs.iter()
                .enumerate()
                .map(|(k, x)| time_nonneg(&format!("{p}.start[{k}]"), x))
                .collect::<Result<_, _>>()?
        }
        Some(v) => vec![time_nonneg(&format!("{p}.start"), v)?; count],
    };
    for (k, s) in starts.iter().enumerate() {
        if *s >= sim.duration {
            let path = if count > 1 {
                format!("{p}.start[{k}]")
            } else {
                format!("{p}.start")
            };
            return err(
                &path,
                format!(
                    "{s} s is not before the end of the simulation (sim.duration = {} s)",
                    sim.duration
                ),
            );
        }
    }
    Ok(starts)
}

/// What sends a flow's packets besides TCP.
enum Source {
    None,
    Udp(UdpSpec),
    Voip(VoipSpec),
}

/// The flow's transport ("tcp" when absent) and, for "udp" and "voip", its source;
/// `horizon`: the longest a flow of the entry can run (seconds), to expand `on_off`.
fn transport(p: &str, f: &RawFlow, horizon: f64) -> Result<(String, Source), SpecError> {
    let transport = f.transport.clone().unwrap_or_else(|| "tcp".into());
    let udp_fields = f.rate.is_some() || f.rate_schedule.is_some() || f.on_off.is_some();
    let voip_fields = f.interval.is_some() || f.direction.is_some();
    let source = match transport.as_str() {
        "tcp" => {
            if udp_fields || f.packet.is_some() {
                return err(
                    &format!("{p}.rate"),
                    "rate, rate_schedule, on_off and packet are for transport = \"udp\" only",
                );
            }
            if voip_fields {
                return err(
                    &format!("{p}.interval"),
                    "interval and direction are for transport = \"voip\" only",
                );
            }
            Source::None
        }
        "udp" | "voip" if f.size.is_some() || !f.switch.is_empty() => {
            return err(
                &format!("{p}.transport"),
                format!("a {transport} flow takes no size and no switch"),
            )
        }
        "udp" => {
            if voip_fields {
                return err(
                    &format!("{p}.interval"),
                    "interval and direction are for transport = \"voip\" only",
                );
            }
            Source::Udp(udp_source(
                p,
                f.packet.as_ref(),
                f.rate.as_ref(),
                f.rate_schedule.as_deref(),
                f.on_off.as_ref(),
                horizon,
            )?)
        }
        "voip" => {
            if udp_fields {
                return err(
                    &format!("{p}.rate"),
                    "a voip flow's rate follows from packet and interval: rate, rate_schedule and on_off are for transport = \"udp\"",
                );
            }
            Source::Voip(voip_source(
                p,
                f.packet.as_ref(),
                f.interval.as_ref(),
                f.direction.as_deref(),
            )?)
        }
        other => {
            return err(
                &format!("{p}.transport"),
                format!("{other:?} is not allowed; allowed: tcp, udp, voip"),
            )
        }
    };
    Ok((transport, source))
}
