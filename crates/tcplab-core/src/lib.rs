//! tcplab-core: a deterministic packet-level simulator for TCP congestion control.
//!
//! `sim` (time, events, random streams) → `net` (links, queues, routing) → `tcp` (the
//! backplane: sender and receiver state machines) → `cc` (congestion-control elements).
//! `scenario` validates specs, `engine` builds and runs a world, `api` is the entry point.
pub mod api;
pub mod cc;
pub mod engine;
pub mod net;
pub mod observe;
pub mod scenario;
pub mod share;
pub mod sim;
pub mod tcp;
pub mod traffic;
