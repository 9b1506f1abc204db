//! Sampled time series: every `sim.sample_interval`, one row per TCP flow (`flow_ts`:
//! the control block, plus whatever the algorithm reports through `samples`) and one row
//! per link direction (`link_ts`: queue occupancy, waiting plus in service; with a RED link
//! in the run also `red_avg`, RED's average queue after the last arrival, NaN elsewhere). Stored column-wise; columns grow with
//! `try_reserve`, so running out of memory stops the run with an error instead of aborting.
use crate::api::{Column, Table};
use crate::net::LinkDir;
use crate::sim::{to_secs, Time};
use crate::tcp::FlowTable;

pub const OUT_OF_MEMORY: &str = "out of memory for the time series (flow_ts, link_ts); \
                                 sample less often (sim.sample_interval) or not at all (0)";

#[derive(Default)]
pub struct Series {
    time: Vec<f64>,
    flow: Vec<u64>,
    cwnd: Vec<f64>,
    ssthresh: Vec<f64>,
    srtt: Vec<f64>,
    rto: Vec<f64>,
    rto_base: Vec<f64>,
    flight: Vec<f64>,
    delivered: Vec<u64>,
    extra: Vec<(&'static str, Vec<f64>)>,
    link_time: Vec<f64>,
    link: Vec<u64>,
    queue: Vec<f64>,
    /// RED's average per link row, when some link runs RED (decided at the first sample).
    red_avg: Option<Vec<f64>>,
    /// The algorithm's samples of the current row (reused).
    row_extra: Vec<(&'static str, f64)>,
}

impl Series {
    /// Room for one more round of samples.
    fn reserve(&mut self, flows: &FlowTable, links: usize) -> Result<(), std::collections::TryReserveError> {
        let rows = flows.sampled_len();
        let target = self.time.len() + rows;
        self.flow.try_reserve(rows)?;
        self.delivered.try_reserve(rows)?;
        for v in [
            &mut self.time,
            &mut self.cwnd,
            &mut self.ssthresh,
            &mut self.srtt,
            &mut self.rto,
            &mut self.rto_base,
            &mut self.flight,
        ] {
            v.try_reserve(rows)?;
        }
        for (_, v) in &mut self.extra {
            v.try_reserve(target - v.len())?;
        }
        self.link_time.try_reserve(links)?;
        self.link.try_reserve(links)?;
        self.queue.try_reserve(links)?;
        if let Some(v) = &mut self.red_avg {
            v.try_reserve(links)?;
        }
        Ok(())
    }

    /// Take one round of samples at `now`.
    pub fn sample(&mut self, now: Time, flows: &FlowTable, links: &mut [LinkDir]) -> Result<(), &'static str> {
        if self.link_time.is_empty() && links.iter().any(|l| l.aqm().and_then(|a| a.red_avg()).is_some()) {
            self.red_avg.get_or_insert_with(Vec::new);
        }
        if self.reserve(flows, links.len()).is_err() {
            return Err(OUT_OF_MEMORY);
        }
        let t = to_secs(now);
        let mut out_of_memory = false;
        for (i, f) in flows.sampled() {
            let st = &f.sender.st;
            self.time.push(t);
            self.flow.push(i as u64);
            self.cwnd.push(f.sender.window());
            self.ssthresh.push(st.ssthresh);
            self.srtt.push(st.srtt);
            self.rto.push(f.sender.current_rto());
            self.rto_base.push(f.sender.rto);
            self.flight.push((f.sender.snd_max - f.sender.snd_una) as f64);
            self.delivered.push(f.receiver.delivered());
            self.row_extra.clear();
            f.sender.cc.samples(&mut self.row_extra);
            if let Some(kr) = f.kr.as_deref() {
                self.row_extra.push(("pipe_type", kr.npc.current.code()));
                if let Some(k) = f.sender.kr.as_deref() {
                    k.samples(st, f.sender.segments_sent(), &mut self.row_extra);
                }
            }
            out_of_memory |= !self.push_extra();
        }
        for (i, l) in links.iter_mut().enumerate() {
            self.link_time.push(t);
            self.link.push(i as u64);
            self.queue.push(l.queue_len(now) as f64);
            if let Some(v) = &mut self.red_avg {
                v.push(l.aqm().and_then(|a| a.red_avg()).unwrap_or(f64::NAN));
            }
        }
        if out_of_memory {
            return Err(OUT_OF_MEMORY);
        }
        Ok(())
    }

    /// Put the algorithm's samples of the current row into their columns; false if memory
    /// for a new column ran out.
    fn push_extra(&mut self) -> bool {
        let row = self.time.len() - 1;
        let mut ok = true;
        for (name, v) in self.row_extra.drain(..) {
            let col = match self.extra.iter().position(|(n, _)| *n == name) {
                Some(c) => c,
                None => {
                    // a column that appears late is filled with NaN up to this row
                    let mut v = Vec::new();
                    if v.try_reserve(row + 1).is_err() {
                        ok = false;
                        continue;
                    }
                    self.extra.push((name, v));
                    self.extra.len() - 1
                }
            };
            let c = &mut self.extra[col].1;
            c.resize(row, f64::NAN);
            c.push(v);
        }
        ok
    }

    /// The `flow_ts` and `link_ts` tables, moved out (not copied).
    pub fn take_tables(&mut self) -> (Table, Table) {
        let s = std::mem::take(self);
        let n = s.time.len();
        let mut fts = Table {
            columns: vec![
                ("time".into(), Column::F64(s.time)),
                ("flow".into(), Column::U64(s.flow)),
                ("cwnd".into(), Column::F64(s.cwnd)),
                ("ssthresh".into(), Column::F64(s.ssthresh)),
                ("srtt".into(), Column::F64(s.srtt)),
                ("rto".into(), Column::F64(s.rto)),
                ("rto_base".into(), Column::F64(s.rto_base)),
                ("flight".into(), Column::F64(s.flight)),
                ("delivered".into(), Column::U64(s.delivered)),
            ],
        };
        for (name, mut v) in s.extra {
            v.resize(n, f64::NAN);
            fts.columns.push((name.to_string(), Column::F64(v)));
        }
        let mut lts = Table {
            columns: vec![
                ("time".into(), Column::F64(s.link_time)),
                ("link".into(), Column::U64(s.link)),
                ("queue".into(), Column::F64(s.queue)),
            ],
        };
        if let Some(v) = s.red_avg {
            lts.columns.push(("red_avg".into(), Column::F64(v)));
        }
        (fts, lts)
    }
}
