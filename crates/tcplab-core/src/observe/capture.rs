//! Packet capture: the hops the spec's `[[pcap]]` entries name, and a pcap file each.
use super::pcap::{CapturedOption, CapturedPacket, PcapWriter};
use crate::net::SegOption;
use crate::net::{Network, Packet};
use crate::scenario::Spec;
use crate::scenario::TcpSpec;
use crate::sim::Time;
use std::collections::HashMap;

pub struct Capture {
    /// Per hop: index into `files` if captured where packets leave it (reach its far end).
    by_hop: Vec<Option<u32>>,
    /// Per hop: index into `files` if captured where packets enter it (empty: none is).
    by_hop_entry: Vec<Option<u32>>,
    files: Vec<(String, PcapWriter)>,
}

impl Capture {
    pub fn new(spec: &Spec, node_index: &HashMap<&str, u32>, net: &Network) -> Capture {
        // Without captures, no entry per hop (`tap` finds none).
        let mut by_hop = if spec.pcap.is_empty() {
            Vec::new()
        } else {
            vec![None; net.hops()]
        };
        let mut by_hop_entry = Vec::new();
        let mut files = Vec::new();
        for c in &spec.pcap {
            let (a, b) = (node_index[c.a.as_str()], node_index[c.b.as_str()]);
            if let Some(h) = net.find_hop(a, b) {
                let (table, name) = if c.at == "entry" {
                    if by_hop_entry.is_empty() {
                        by_hop_entry = vec![None; net.hops()];
                    }
                    (&mut by_hop_entry, format!("{}-{}.entry", c.a, c.b))
                } else {
                    (&mut by_hop, format!("{}-{}", c.a, c.b))
                };
                table[h as usize] = Some(files.len() as u32);
                files.push((name, PcapWriter::new()));
            }
        }
        Capture {
            by_hop,
            by_hop_entry,
            files,
        }
    }

    /// Per hop, whether packets are captured where they enter it (`None`: on no hop).
    pub fn entry_hops(&self) -> Option<Vec<bool>> {
        (!self.by_hop_entry.is_empty()).then(|| self.by_hop_entry.iter().map(Option::is_some).collect())
    }

    /// The capture file of a hop's entry, if it is captured there.
    pub fn entry_tap(&self, hop: u32) -> Option<u32> {
        self.by_hop_entry.get(hop as usize).copied().flatten()
    }

    /// The capture file of a hop, if it is captured.
    #[inline]
    pub fn tap(&self, hop: u32) -> Option<u32> {
        if self.files.is_empty() {
            // Most runs capture nothing: spare every crossing a load from a per-hop table.
            return None;
        }
        self.by_hop.get(hop as usize).copied().flatten()
    }

    /// Record `pkt` of a flow from node `ends.0` to node `ends.1` with TCP options `tcp`
    /// (its segment size, the handoff options' formats) into capture `c`; an error says why
    /// it could not.
    pub fn record(&mut self, c: u32, now: Time, pkt: &Packet, ends: (u32, u32), tcp: &TcpSpec) -> Result<(), String> {
        let mss = tcp.mss;
        let option = pkt.ecn.option().map(|o| match o {
            SegOption::Capability => CapturedOption::Bytes {
                kind: tcp.ho_capability_kind,
                len: tcp.ho_capability_len,
                value: pkt.sack,
            },
            SegOption::Bandwidth => CapturedOption::Bytes {
                kind: tcp.ho_bandwidth_kind,
                len: tcp.ho_bandwidth_len,
                value: pkt.sack,
            },
            SegOption::Window => CapturedOption::Window((u64::from(pkt.sack) * u64::from(mss)).min(0xffff) as u16),
        });
        let (src, dst) = ends;
        let (sport, dport) = (1024 + (pkt.flow % 60000) as u16, tcp.dport);
        let fwd = pkt.kind.forward();
        let recorded = self.files[c as usize].1.record(&CapturedPacket {
            time: now,
            src_node: if fwd { src } else { dst },
            dst_node: if fwd { dst } else { src },
            src_port: if fwd { sport } else { dport },
            dst_port: if fwd { dport } else { sport },
            kind: pkt.kind,
            seq: pkt.seq,
            mss,
            wire_bytes: pkt.size,
            ecn: pkt.ecn,
            option,
        });
        if recorded {
            return Ok(());
        }
        Err(format!(
            "out of memory for the packet capture {}; capture a shorter run or fewer links",
            self.files[c as usize].0
        ))
    }

    /// The captured pcap files: (name "a-b", bytes), moved out.
    pub fn take(&mut self) -> Vec<(String, Vec<u8>)> {
        self.files
            .iter_mut()
            .map(|(n, w)| (n.clone(), std::mem::take(&mut w.buf)))
            .collect()
    }
}
