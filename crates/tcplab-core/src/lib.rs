//! tcplab-core: a deterministic packet-level simulator for TCP congestion control.
//!
//! `scenario` validates and normalises a spec; `engine` builds a world from it out of
//! components and runs it on the kernel; `api` is the entry point. The kernel, `sim`, holds
//! time, the event queue, random streams and the loop. The components: `net` (links, LANs,
//! routing, packets moving hop by hop), `tcp` (the backplane's sender and receiver state
//! machines and the transport around them), `cc` (congestion-control elements), `traffic`
//! (applications: UDP sources, flow generators and their traffic models), `share` (TCBI
//! and path sharing), `observe` (time series, captures, per-connection statistics and every
//! output table). See docs/architecture.md.
pub mod api;
pub mod cc;
pub mod engine;
pub mod kentridge;
pub mod net;
pub mod observe;
pub mod scenario;
pub mod share;
pub mod sim;
pub mod tcp;
pub mod traffic;
