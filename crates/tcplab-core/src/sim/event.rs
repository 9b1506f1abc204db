//! The simulation's one event type: a variant per component, each carrying the component's
//! own event enum, declared in the component's folder. The dispatcher
//! (`engine/dispatch.rs`) hands each variant to its component in one line, so a component
//! adds event kinds in its own folder without touching the loop; a new component adds one
//! variant here and one line there.
use super::EventQueue;
use crate::net::NetEv;
use crate::observe::ObserveEv;
use crate::tcp::TcpEv;
use crate::traffic::TrafficEv;

#[derive(Debug, Clone, Copy)]
pub enum Ev {
    /// Packets crossing links and LANs (`net/`).
    Net(NetEv),
    /// Connection start/stop and TCP timers (`tcp/`).
    Tcp(TcpEv),
    /// Applications: UDP sources and flow generators (`traffic/`).
    Traffic(TrafficEv),
    /// Sampling (`observe/`).
    Observe(ObserveEv),
}

/// The event queue every component schedules into.
pub type Queue = EventQueue<Ev>;

macro_rules! component_event {
    ($variant:ident, $ty:ty) => {
        impl From<$ty> for Ev {
            #[inline]
            fn from(e: $ty) -> Ev {
                Ev::$variant(e)
            }
        }
    };
}

component_event!(Net, NetEv);
component_event!(Tcp, TcpEv);
component_event!(Traffic, TrafficEv);
component_event!(Observe, ObserveEv);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_no_larger_than_before_the_split() {
        // (time, sequence, event) entries of the heap stay 32 bytes: the component tag
        // costs nothing beyond the padding the flat enum had.
        assert!(std::mem::size_of::<Ev>() <= 16, "{}", std::mem::size_of::<Ev>());
    }
}
