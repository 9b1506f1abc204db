//! tcplab-core: a deterministic packet-level simulator for TCP congestion control.
pub mod api;
