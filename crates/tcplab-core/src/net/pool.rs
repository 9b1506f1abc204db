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
}

/// A packet in flight. Packets live in a [`PacketPool`] and are referred to by index.
#[derive(Debug, Clone, Copy)]
pub struct Packet {
    pub flow: u32,
    pub kind: Kind,
    /// Index of the link on the packet's path it is crossing (or has just crossed).
    pub hop: u16,
    /// Size on the wire in bytes.
    pub size: u32,
    pub seq: u64,
    pub ts: Time,
    pub ts_echo: Time,
    /// An ACK's SACK blocks (`Tx::sack`).
    pub sack: u32,
    /// The ECN codepoint; Not-ECT unless the sender sets it.
    pub ecn: Ecn,
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
