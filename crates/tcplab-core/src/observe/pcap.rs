//! Packet captures in pcap format (nanosecond timestamps, raw IPv4), readable by tshark
//! and Wireshark. Headers are real IPv4/TCP/UDP headers; payload bytes are not stored
//! (caplen covers the headers, origlen is the size on the wire).
use crate::net::EcnBits;
use crate::sim::Time;
use crate::tcp::Kind;

const LINKTYPE_RAW: u32 = 101;

/// What the capture needs to know about a packet.
pub struct CapturedPacket {
    pub time: Time,
    pub src_node: u32,
    pub dst_node: u32,
    pub src_port: u16,
    pub dst_port: u16,
    pub kind: Kind,
    /// Sequence number (data) or acknowledgement number (ACK), in segments.
    pub seq: u64,
    pub mss: u32,
    pub wire_bytes: u32,
    /// The ECN codepoint (the low two bits of the TOS byte) and the TCP ECE/CWR flags.
    pub ecn: EcnBits,
    /// A handoff protocol's option (`ecn.option()`): its TCP option bytes (padded with
    /// No-Operations to a multiple of 4), or for a window advertisement the window field.
    pub option: Option<CapturedOption>,
}

/// What a segment's handoff option looks like in its TCP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapturedOption {
    /// kind, length (3-6) and value (the low `length - 2` bytes, big-endian).
    Bytes { kind: u8, len: u8, value: u32 },
    /// The window field in bytes (saturating at 65535; no window scaling).
    Window(u16),
}

impl CapturedOption {
    /// The option's bytes in the header, No-Operations first up to a multiple of 4.
    fn bytes(self) -> Vec<u8> {
        let CapturedOption::Bytes { kind, len, value } = self else {
            return Vec::new();
        };
        let width = u32::from(len) - 2;
        let max = if width >= 4 {
            u32::MAX
        } else {
            (1u32 << (8 * width)) - 1
        };
        let v = value.min(max).to_be_bytes();
        let mut b = vec![1u8; (4 - usize::from(len) % 4) % 4];
        b.extend_from_slice(&[kind, len]);
        b.extend_from_slice(&v[(4 - width as usize)..]);
        b
    }
}

/// An in-memory pcap file.
pub struct PcapWriter {
    pub buf: Vec<u8>,
    pub packets: u64,
}

impl Default for PcapWriter {
    fn default() -> Self {
        Self::new()
    }
}

/// The IPv4 address of node `n`: 10.x.y.z from the node index.
pub fn node_address(n: u32) -> [u8; 4] {
    let n = n + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

fn ipv4_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for c in h.chunks(2) {
        sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

impl PcapWriter {
    pub fn new() -> PcapWriter {
        let mut buf = Vec::with_capacity(1 << 16);
        buf.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes()); // nanosecond-resolution magic
        buf.extend_from_slice(&2u16.to_le_bytes());
        buf.extend_from_slice(&4u16.to_le_bytes());
        buf.extend_from_slice(&0i32.to_le_bytes());
        buf.extend_from_slice(&0u32.to_le_bytes());
        buf.extend_from_slice(&65535u32.to_le_bytes());
        buf.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        PcapWriter { buf, packets: 0 }
    }

    /// Append one packet; false (nothing appended) when memory for it ran out.
    pub fn record(&mut self, p: &CapturedPacket) -> bool {
        let udp = p.kind == Kind::Datagram;
        let opt = p.option.map(CapturedOption::bytes).unwrap_or_default();
        let l4_len: usize = if udp { 8 } else { 20 + opt.len() };
        let mut h = Vec::with_capacity(20 + l4_len);
        let total = p.wire_bytes.clamp((20 + l4_len) as u32, 65535) as u16;
        h.extend_from_slice(&[0x45, p.ecn.codepoint() as u8]);
        h.extend_from_slice(&total.to_be_bytes());
        h.extend_from_slice(&((self.packets & 0xffff) as u16).to_be_bytes());
        h.extend_from_slice(&[0x40, 0, 64, if udp { 17 } else { 6 }, 0, 0]);
        h.extend_from_slice(&node_address(p.src_node));
        h.extend_from_slice(&node_address(p.dst_node));
        let ck = ipv4_checksum(&h[..20]);
        h[10..12].copy_from_slice(&ck.to_be_bytes());
        h.extend_from_slice(&p.src_port.to_be_bytes());
        h.extend_from_slice(&p.dst_port.to_be_bytes());
        if udp {
            h.extend_from_slice(&(total - 20).to_be_bytes());
            h.extend_from_slice(&[0, 0]);
        } else {
            // Byte sequence numbers: segment n starts at byte n·mss + 1 (the SYN takes 0).
            let bytes = |s: u64| ((s * u64::from(p.mss)) as u32).wrapping_add(1);
            let (seq, ack, flags): (u32, u32, u8) = match p.kind {
                Kind::Data => (bytes(p.seq), 1, 0x18),
                Kind::Ack => (1, bytes(p.seq), 0x10),
                Kind::Syn => (0, 0, 0x02),
                Kind::SynAck => (0, 1, 0x12),
                Kind::Fin => (bytes(p.seq), 1, 0x11),
                Kind::FinAck => (1, bytes(p.seq).wrapping_add(1), 0x10),
                Kind::Datagram => unreachable!(),
            };
            h.extend_from_slice(&seq.to_be_bytes());
            h.extend_from_slice(&ack.to_be_bytes());
            let window = match p.option {
                Some(CapturedOption::Window(w)) => w,
                _ => 0xffff,
            };
            h.push(((l4_len / 4) as u8) << 4);
            h.push(flags | p.ecn.tcp_flags());
            h.extend_from_slice(&window.to_be_bytes());
            h.extend_from_slice(&[0, 0, 0, 0]);
            h.extend_from_slice(&opt);
        }
        if self.buf.try_reserve(16 + h.len()).is_err() {
            return false;
        }
        let ts_sec = (p.time / 1_000_000_000) as u32;
        let ts_ns = (p.time % 1_000_000_000) as u32;
        self.buf.extend_from_slice(&ts_sec.to_le_bytes());
        self.buf.extend_from_slice(&ts_ns.to_le_bytes());
        self.buf.extend_from_slice(&(h.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(&u32::from(total).to_le_bytes());
        self.buf.extend_from_slice(&h);
        self.packets += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_record_layout() {
        let mut w = PcapWriter::new();
        assert_eq!(w.buf.len(), 24);
        w.record(&CapturedPacket {
            time: 1_500_000_000,
            src_node: 0,
            dst_node: 1,
            src_port: 1024,
            dst_port: 5001,
            kind: Kind::Data,
            seq: 2,
            mss: 1000,
            wire_bytes: 1040,
            ecn: {
                let mut e = EcnBits::from(crate::net::Ecn::Ce);
                e.set_cwr(true);
                e
            },
            option: None,
        });
        let r = &w.buf[24..];
        assert_eq!(u32::from_le_bytes(r[0..4].try_into().unwrap()), 1);
        assert_eq!(u32::from_le_bytes(r[4..8].try_into().unwrap()), 500_000_000);
        assert_eq!(u32::from_le_bytes(r[8..12].try_into().unwrap()), 40, "caplen: headers");
        assert_eq!(
            u32::from_le_bytes(r[12..16].try_into().unwrap()),
            1040,
            "origlen: wire size"
        );
        let ip = &r[16..];
        assert_eq!(ip[0], 0x45);
        assert_eq!(ip[1], 0b11, "the ECN field (CE) in the TOS byte");
        assert_eq!(ipv4_checksum(&ip[..20]), 0, "a valid header sums to zero");
        assert_eq!(&ip[12..16], &[10, 0, 0, 1]);
        assert_eq!(u32::from_be_bytes(ip[24..28].try_into().unwrap()), 2001);
        assert_eq!(ip[33], 0x18 | 0x80, "PSH+ACK with CWR in the TCP flags");
        assert_eq!(ip[32], 0x50, "no options: data offset 5 words");
    }

    #[test]
    fn option_bytes_are_padded_with_nops_and_truncated_to_their_width() {
        let b = |kind, len, value| CapturedOption::Bytes { kind, len, value }.bytes();
        assert_eq!(b(253, 4, 1), vec![253, 4, 0, 1]);
        assert_eq!(b(253, 3, 0x80), vec![1, 253, 3, 0x80]);
        assert_eq!(b(254, 6, 7000), vec![1, 1, 254, 6, 0, 0, 0x1b, 0x58]);
        assert_eq!(b(254, 4, 70_000), vec![254, 4, 0xff, 0xff], "16-bit Kbps saturate");
        assert!(CapturedOption::Window(0).bytes().is_empty());
    }
}
