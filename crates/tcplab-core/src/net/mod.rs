//! Network: packets in a pool, link directions with a DropTail queue (or a queue discipline:
//! RED, CoDel, FQ-CoDel, in `aqm/`) and Bernoulli loss,
//! shared-medium LANs, static shortest-path routing, and [`Network`], the component that
//! moves packets hop by hop along their routes.
pub mod aqm;
mod change;
mod lan;
mod link;
mod network;
mod pool;
pub mod reorder;
mod routing;
pub mod topology;

pub use aqm::Aqm;
pub use change::{Change, ChangeRecord};
pub use lan::{CsmaCd, Iface, Lan, LanEnqueue, Mac, TxEnd};
pub use link::{link_rng, loss_pattern, Enqueue, Hop, LinkDir, Started, Verdict};
pub use network::{Crossed, LanHop, NetEv, Network, Route};
pub use network::{DropReason, DropTrace, DroppedPacket, EntryTap};
pub use pool::{Ecn, EcnBits, Packet, PacketPool, SegOption};
pub use routing::{shortest_path, Interrupted, Router};
