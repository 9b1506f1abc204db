//! The TCP backplane: a segment-counting sender with RTO, duplicate-ACK counting and the
//! recovery state machine, and a receiver with optional delayed ACKs. Both are pure state
//! machines: they are driven by calls with the current time and emit [`Tx`] segments into
//! an output buffer, so they can be tested step by step without a network.
//!
//! [`Transport`] (`transport.rs`) is the component around them: the flow table
//! (`flow.rs`), connection start and stop, timers, and the conversion of segments into
//! packets.
mod flow;
mod kentridge;
mod receiver;
mod sender;
mod transport;

pub use flow::{Flow, FlowTable};
pub use receiver::{Mobile, Receiver, SackBlocks, FREEZE_REOPEN_ACKS, HO_NOTIFY_ACKS};
pub use sender::{ConnState, FlowEvent, Preset, Sender, SenderConfig, SenderStats};
pub use transport::{Env, TcpEv, Transport};

use crate::net::EcnBits;
use crate::sim::Time;

/// Kinds of segments on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Data,
    Ack,
    Syn,
    SynAck,
    Fin,
    FinAck,
    /// A UDP datagram (not TCP; carried by the same network).
    Datagram,
}

impl Kind {
    /// True for segments that travel from the data sender to the receiver.
    pub fn forward(self) -> bool {
        matches!(self, Kind::Data | Kind::Syn | Kind::Fin | Kind::Datagram)
    }
}

/// A segment a TCP endpoint wants to transmit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tx {
    pub kind: Kind,
    /// Data: the segment number. Acks: the cumulative ACK (next segment expected).
    pub seq: u64,
    /// Timestamp (send time) carried by the segment.
    pub ts: Time,
    /// Echoed timestamp (ACKs).
    pub ts_echo: Time,
    /// True if this data segment was sent before (statistics only).
    pub retransmission: bool,
    /// An ACK's SACK blocks: their number in the receiver's record (0 = none).
    pub sack: u32,
    /// ECT on new data of an ECN connection; ECE on ACKs, CWR on data (RFC 3168).
    pub ecn: EcnBits,
}
