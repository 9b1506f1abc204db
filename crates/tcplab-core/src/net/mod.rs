//! Network: packets in a pool, link directions with a DropTail queue and Bernoulli loss,
//! and static shortest-path routing.
mod link;
mod pool;
mod routing;

pub use link::{Enqueue, LinkDir};
pub use pool::{Packet, PacketPool};
pub use routing::shortest_path;
