use crate::sim::Time;
use crate::tcp::Kind;

/// The ECN codepoint of a packet's IP header (RFC 3168; the two low bits of the TOS byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable: a queue that signals congestion drops it.
    #[default]
    NotEct = 0b00,
    Ect1 = 0b01,
    Ect0 = 0b10,
    /// Congestion Experienced: set by a queue instead of a drop.
    Ce = 0b11,
}

impl Ecn {
    /// ECN-capable (ECT(0), ECT(1) or already CE): a queue with ECN on marks it instead of
    /// dropping it.
    #[inline]
    pub fn is_ect(self) -> bool {
        self != Ecn::NotEct
    }

    fn from_bits(b: u8) -> Ecn {
        match b & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
}

/// The ECN bits a packet carries in one byte (in one byte of the packet record): the IP
/// header's codepoint (RFC 3168 §5) and the TCP header's ECE and CWR flags (§6.1).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct EcnBits(u8);

impl EcnBits {
    const ECE: u8 = 0x40;
    const CWR: u8 = 0x80;

    pub fn codepoint(self) -> Ecn {
        Ecn::from_bits(self.0)
    }

    pub fn set_codepoint(&mut self, c: Ecn) {
        self.0 = (self.0 & !0b11) | c as u8;
    }

    #[inline]
    pub fn is_ect(self) -> bool {
        self.codepoint().is_ect()
    }

    /// ECN-Echo: the receiver saw Congestion Experienced and the sender has not yet
    /// confirmed its reduction (ACKs; on a SYN or SYN-ACK, ECN set-up).
    pub fn ece(self) -> bool {
        self.0 & Self::ECE != 0
    }

    pub fn set_ece(&mut self, on: bool) {
        self.0 = if on { self.0 | Self::ECE } else { self.0 & !Self::ECE };
    }

    /// Congestion Window Reduced: the sender reduced its window after an ECN-Echo (data;
    /// on a SYN, ECN set-up).
    pub fn cwr(self) -> bool {
        self.0 & Self::CWR != 0
    }

    pub fn set_cwr(&mut self, on: bool) {
        self.0 = if on { self.0 | Self::CWR } else { self.0 & !Self::CWR };
    }

    /// The rare TCP option the segment carries (in bits 2-3 of this byte); its value is
    /// in the packet's `sack` field, which such a segment uses for nothing else.
    #[inline]
    pub fn option(self) -> Option<SegOption> {
        match (self.0 >> 2) & 0b11 {
            0 => None,
            1 => Some(SegOption::Capability),
            2 => Some(SegOption::Bandwidth),
            _ => Some(SegOption::Window),
        }
    }

    pub fn set_option(&mut self, o: Option<SegOption>) {
        let code = match o {
            None => 0,
            Some(SegOption::Capability) => 1,
            Some(SegOption::Bandwidth) => 2,
            Some(SegOption::Window) => 3,
        };
        self.0 = (self.0 & !0b1100) | (code << 2);
    }

    /// The TCP header's flags byte bits for ECE (0x40) and CWR (0x80).
    pub fn tcp_flags(self) -> u8 {
        self.0 & (Self::ECE | Self::CWR)
    }
}

/// The TCP options of the handoff protocols (thesis ch. 2), carried without growing the
/// packet: the option's kind in [`EcnBits`], its value in `Packet::sack`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegOption {
    /// TCP-HO's Capability option on a SYN or SYN-ACK: value = the capability mask.
    Capability,
    /// TCP-HO's Bandwidth option on an ACK: value = the new link's bandwidth in Kbps.
    Bandwidth,
    /// A window advertisement that differs from the connection's standing one (Freeze-TCP's
    /// zero window and its reopening): value = the window in segments.
    Window,
}

impl From<Ecn> for EcnBits {
    fn from(c: Ecn) -> EcnBits {
        EcnBits(c as u8)
    }
}

impl std::fmt::Debug for EcnBits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.codepoint())?;
        if self.ece() {
            f.write_str("+ECE")?;
        }
        if self.cwr() {
            f.write_str("+CWR")?;
        }
        if let Some(o) = self.option() {
            write!(f, "+{o:?}")?;
        }
        Ok(())
    }
}

/// A packet in flight. Packets live in a [`PacketPool`] and are referred to by index.
#[derive(Debug, Clone, Copy)]
pub struct Packet {
    pub flow: u32,
    pub kind: Kind,
    /// Where the hop it is crossing (or has just crossed) is in the network's paths (set
    /// when it leaves its sender).
    pub at: u32,
    /// Size on the wire in bytes.
    pub size: u32,
    pub seq: u64,
    pub ts: Time,
    pub ts_echo: Time,
    /// An ACK's SACK blocks (`Tx::sack`), or the value of the option `ecn.option()` names.
    pub sack: u32,
    /// The ECN codepoint (Not-ECT unless the sender sets it) and the TCP ECN flags.
    pub ecn: EcnBits,
}

/// An arena of packets with a free list: no allocation per packet in steady state.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketPool {
    pub fn alloc(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                i
            }
            None => {
                self.slots.push(p);
                (self.slots.len() - 1) as u32
            }
        }
    }

    pub fn free(&mut self, i: u32) {
        self.free.push(i);
    }

    pub fn get(&self, i: u32) -> &Packet {
        &self.slots[i as usize]
    }

    pub fn get_mut(&mut self, i: u32) -> &mut Packet {
        &mut self.slots[i as usize]
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Slots ever allocated (the pool's high-water mark).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}
