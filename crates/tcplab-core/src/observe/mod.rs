//! Observation: what a run reports. Counters live with the state they count (links, LAN
//! interfaces, senders, generators); this folder samples time series, captures packets,
//! keeps per-connection statistics, and builds every output table.
//!
//! - `series.rs`: `flow_ts` and `link_ts`, sampled every `sim.sample_interval`;
//! - `capture.rs`, `pcap.rs`: packet captures of the hops `[[pcap]]` names;
//! - `conn.rs`: per-connection statistics kept in the flow record;
//! - `table.rs`: declared columns, filled row by row;
//! - `parquet.rs` (with `thrift.rs`, the compact protocol): a table as a Parquet file;
//! - `flows.rs`, `network.rs`, `sharing.rs`, `generators.rs`: one file per group of
//!   output tables. A new output column is one line in a column list and one in its row.
mod capture;
mod conn;
mod drops;
mod flows;
mod generators;
mod network;
pub mod parquet;
pub mod pcap;
mod series;
mod sharing;
mod table;
mod thrift;

pub use capture::Capture;
pub use conn::{ConnStats, InitRecord};
pub use drops::drops_table;
pub use flows::{events_table, flows_table, flows_table_consuming};
pub use generators::generators_table;
pub use network::{lans_table, links_table, links_table_consuming};
pub use series::Series;
pub use sharing::intervals_table;
pub use table::{Col, TableBuilder};

use crate::net::LinkDir;
use crate::sim::{secs, Kernel, Time};
use crate::tcp::FlowTable;

/// Observation's own events.
#[derive(Debug, Clone, Copy)]
pub enum ObserveEv {
    /// Take one round of samples of the time series.
    Sample,
}

pub struct Observer {
    pub series: Series,
    pub capture: Capture,
    /// Time between samples (at least 1 ns); `None`: no sampling.
    interval: Option<Time>,
}

impl Observer {
    /// `sample_interval` in seconds (0: no time series).
    pub fn new(capture: Capture, sample_interval: f64) -> Observer {
        Observer {
            series: Series::default(),
            capture,
            interval: (sample_interval > 0.0).then(|| secs(sample_interval).max(1)),
        }
    }

    /// The first sample, at time 0.
    pub fn schedule_first(&self, k: &mut Kernel) {
        if self.interval.is_some() {
            k.q.at(0, ObserveEv::Sample);
        }
    }

    pub fn handle(&mut self, now: Time, ev: ObserveEv, k: &mut Kernel, flows: &FlowTable, links: &mut [LinkDir]) {
        match ev {
            ObserveEv::Sample => {
                if let Err(why) = self.series.sample(now, flows, links) {
                    k.fail(now, why);
                }
                let next = now.saturating_add(self.interval.unwrap_or(1));
                if next <= k.end {
                    k.q.at(next, ObserveEv::Sample);
                }
            }
        }
    }
}
