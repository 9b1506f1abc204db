use crate::sim::Time;
use crate::tcp::Kind;

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
