//! The flow table: per flow id, the TCP endpoints with the state the transport keeps
//! around them (timer events, sender processing time) and the records of the components
//! that hook into a connection (sharing, statistics).
use super::{Receiver, Sender, SenderConfig};
use crate::cc;
use crate::observe::ConnStats;
use crate::scenario::FlowSpec;
use crate::share::ConnShare;
use crate::sim::{secs, Rng, Time};
use std::collections::HashMap;
use std::sync::Arc;

pub struct Flow {
    /// Shared with the spec (and its options with the other flows of its entry).
    pub spec: Arc<FlowSpec>,
    pub data_bytes: u32,
    pub ctrl_bytes: u32,
    pub ack_bytes: u32,
    pub sender: Sender,
    pub receiver: Receiver,
    /// A UDP flow: its application (`traffic::Cbr`) sends datagrams itself and the TCP
    /// endpoints are never started (they only fill the flow's row of the flows table).
    pub udp: bool,
    /// The generator that opened this flow (told when it completes).
    pub generator: Option<u32>,
    /// The generator model's tag of this flow, if it tagged it (`Step::Send`).
    pub tag: Option<u32>,
    /// Time of the pending RTO event, if one is scheduled (the deadline may be later).
    pub(super) rto_event: Option<Time>,
    pub(super) delack_event: Option<Time>,
    pub(super) cc_timer_gen: u32,
    pub(super) completion_seen: bool,
    /// Random per-packet processing time at the sender: (maximum, stream, time the last
    /// data packet left). Packets keep their order. Boxed: most flows have none.
    pub(super) processing: Option<Box<(Time, Rng, Time)>>,
    /// Sharing (`share/`).
    pub share: ConnShare,
    /// Statistics (`observe/`).
    pub stats: ConnStats,
    /// TCP KentRidge's classifier and agent (`kentridge/`), when the flow runs it.
    pub kr: Option<Box<crate::kentridge::KentRidge>>,
}

impl Flow {
    pub fn new(spec: Arc<FlowSpec>, generator: Option<u32>, seed: u64) -> Result<Flow, String> {
        let algo = cc::create(&spec.cc, &spec.cc_params).map_err(|e| format!("flow {}: {e}", spec.name))?;
        let mut cfg = SenderConfig::from_spec(&spec.tcp, spec.size);
        // A KentRidge connection on a mobile path negotiates TCP-HO at the SYN whatever it
        // starts with, so that its agent can switch to TCP-HO (the knowledge base is told
        // the peer has the capability) and the mobile host's notifications reach it.
        let kr_mobile = spec.kentridge.is_some() && spec.handoff.is_some();
        cfg.offer_ho = kr_mobile && algo.handoff() == cc::Handoff::None;
        let mut sender = Sender::new(cfg, &spec.tcp, algo);
        sender.st.rng = Rng::stream_of(seed, &["flow:", &spec.name, ":cc"]);
        let receiver = Receiver::new(
            spec.tcp.delayed_ack,
            spec.tcp.delack_count,
            secs(spec.tcp.delack_timeout),
        )
        .with_sack(spec.tcp.sack)
        .with_dsack(spec.tcp.dsack)
        .with_ecn(spec.tcp.ecn);
        let receiver = match &spec.handoff {
            Some(_) => receiver.with_mobile(
                match sender.cc.handoff() {
                    cc::Handoff::None if kr_mobile => cc::Handoff::TcpHo,
                    mode => mode,
                },
                1 << spec.tcp.ho_capability_bit,
                spec.tcp.rwnd,
                Rng::stream_of(seed, &["flow:", &spec.name, ":handoff"]),
            ),
            None => receiver,
        };
        let kr = spec.kentridge.as_ref().map(|k| {
            sender.enable_kentridge(k.thresholds.small_queue);
            Box::new(crate::kentridge::KentRidge::new(k, &spec.cc_params))
        });
        let udp = spec.rate_schedule.is_some() && matches!(spec.transport.as_str(), "udp" | "voip");
        let processing = (spec.tcp.send_jitter > 0.0).then(|| {
            Box::new((
                secs(spec.tcp.send_jitter),
                Rng::stream_of(seed, &["flow:", &spec.name, ":processing"]),
                0,
            ))
        });
        Ok(Flow {
            processing,
            data_bytes: spec.tcp.mss + spec.tcp.header,
            ctrl_bytes: spec.tcp.header,
            ack_bytes: spec.tcp.ack_size,
            spec,
            sender,
            receiver,
            udp,
            generator,
            tag: None,
            rto_event: None,
            delack_event: None,
            cc_timer_gen: 0,
            completion_seen: false,
            share: ConnShare::default(),
            stats: ConnStats::default(),
            kr,
        })
    }
}

/// The flows, indexed by flow id. A completed flow of a `record = "summary"` generator is
/// retired once none of its packets is in the network: its slot then holds nothing and
/// events that still name it (lazy timers) are ignored.
pub struct FlowTable {
    slots: Vec<Option<Box<Flow>>>,
    /// The live TCP flows sampled into the time series, in id order: not the flows of a
    /// `record = "summary"` generator, which keep only their generator's totals. A list, so
    /// that a sample costs nothing for the millions of transfers a web model opens.
    sampled: Vec<u32>,
    /// Names of retired flows that belonged to a TCBI set: the parallel-interval rows
    /// written while they were open still name them.
    retired_names: HashMap<u32, String>,
    /// The boxes of retired flows, last retired first, for the next flows to be written
    /// into: a flow record is larger than the allocator's per-size caches, so a new box
    /// costs a search of its free chunks, and it lands wherever that finds one; the box
    /// retired last is still in the cache. What they held is dropped when they are reused.
    #[allow(clippy::vec_box)] // the allocations are what is kept
    spare: Vec<Box<Flow>>,
}

impl FlowTable {
    pub fn with_capacity(n: usize) -> FlowTable {
        FlowTable {
            slots: Vec::with_capacity(n),
            sampled: Vec::with_capacity(n),
            retired_names: HashMap::new(),
            spare: Vec::new(),
        }
    }
    /// Add flow `f` with the next id; `sampled`: whether the time series sample it (UDP
    /// flows never are).
    pub fn push(&mut self, f: Flow, sampled: bool) -> u32 {
        let id = self.slots.len() as u32;
        if sampled && !f.udp {
            self.sampled.push(id);
        }
        let record = match self.spare.pop() {
            Some(mut record) => {
                *record = f;
                record
            }
            None => Box::new(f),
        };
        self.slots.push(Some(record));
        id
    }
    pub fn len(&self) -> usize {
        self.slots.len()
    }
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
    pub fn is_live(&self, f: u32) -> bool {
        self.slots.get(f as usize).is_some_and(Option::is_some)
    }
    pub fn retire(&mut self, f: u32) {
        if let Some(fl) = self.slots[f as usize].take() {
            if let Ok(i) = self.sampled.binary_search(&f) {
                self.sampled.remove(i);
            }
            if fl.share.set.is_some() {
                self.retired_names.insert(f, fl.spec.name.clone());
            }
            self.spare.push(fl);
        }
    }
    /// The name of flow `f`, live or retired from a TCBI set.
    pub fn name(&self, f: u32) -> &str {
        match &self.slots[f as usize] {
            Some(fl) => &fl.spec.name,
            None => &self.retired_names[&f],
        }
    }
    /// The live flows with their ids, taken out of the table.
    pub fn into_flows(self) -> impl Iterator<Item = (usize, Box<Flow>)> {
        self.slots
            .into_iter()
            .enumerate()
            .filter_map(|(i, f)| f.map(|f| (i, f)))
    }
    /// The live flows the time series sample, with their ids, in id order.
    pub fn sampled(&self) -> impl Iterator<Item = (usize, &Flow)> {
        self.sampled.iter().map(|&i| (i as usize, &self[i as usize]))
    }
    /// How many flows [`FlowTable::sampled`] yields.
    pub fn sampled_len(&self) -> usize {
        self.sampled.len()
    }
    /// The live flows with their ids.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &Flow)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.as_deref().map(|f| (i, f)))
    }
}

impl std::ops::Index<usize> for FlowTable {
    type Output = Flow;
    fn index(&self, i: usize) -> &Flow {
        self.slots[i].as_deref().expect("flow retired")
    }
}

impl std::ops::IndexMut<usize> for FlowTable {
    fn index_mut(&mut self, i: usize) -> &mut Flow {
        self.slots[i].as_deref_mut().expect("flow retired")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per-flow memory (the whole is measured in `tests/memory.rs`): what the flow record
    /// adds around its TCP machines (the spec is shared, not copied; the processing time is
    /// boxed), and the part of a spec each flow and node has of its own.
    #[test]
    fn a_flow_record_and_its_own_spec_stay_small() {
        use std::mem::size_of;
        let around = size_of::<Flow>() - size_of::<Sender>() - size_of::<Receiver>();
        // (8 bytes of it the generator model's tag, which a generator kept in a hash map of
        // its live flows before.)
        assert!(around <= 168, "{around}");
        assert!(size_of::<Flow>() <= 1280, "{}", size_of::<Flow>());
        // The SACK scoreboard and the pacer are boxed, only for connections that use them
        // (the ECN state added 8 bytes: its reduction counter; TCP KentRidge's statistics
        // 8 more: the pointer to their box, which only KentRidge flows fill).
        assert!(size_of::<Sender>() <= 672, "{}", size_of::<Sender>());
        assert!(size_of::<FlowSpec>() <= 96, "{}", size_of::<FlowSpec>());
        let node = size_of::<crate::scenario::NodeSpec>();
        assert!(node <= 80, "{node}");
    }
}
