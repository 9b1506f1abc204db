//! Network: packets in a pool, link directions with a DropTail queue and Bernoulli loss,
//! shared-medium LANs, and static shortest-path routing.
mod lan;
mod link;
mod pool;
mod routing;

pub use lan::{CsmaCd, Iface, Lan, LanEnqueue, Mac, TxEnd};
pub use link::{link_rng, loss_pattern, Enqueue, LinkDir};
pub use pool::{Packet, PacketPool};
pub use routing::{shortest_path, Interrupted, Router};
