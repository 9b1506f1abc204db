//! The `parallel_intervals` table of TCBI (open intervals are closed at the end of the run).
use crate::api::{Column, Table};
use crate::scenario::Spec;
use crate::share::intervals::IntervalRow;
use crate::share::{Share, Sharing};
use crate::sim::{to_secs, Time};
use crate::tcp::FlowTable;

pub fn intervals_table(tcbi: &Sharing, flows: &FlowTable, spec: &Spec, end: Time) -> Table {
    let mut iv = tcbi.intervals.clone();
    iv.close_all(to_secs(end), |g| Share::acked_bytes(flows, g));
    let sets = &tcbi.sets;
    let col_s = |f: &dyn Fn(&IntervalRow) -> String| iv.rows.iter().map(f).collect();
    Table {
        columns: vec![
            (
                "host".into(),
                Column::Str(col_s(&|r| spec.nodes[sets[r.set as usize].host as usize].name.clone())),
            ),
            ("set".into(), Column::Str(col_s(&|r| sets[r.set as usize].key.clone()))),
            (
                "interval".into(),
                Column::U64(iv.rows.iter().map(|r| r.interval).collect()),
            ),
            ("t0".into(), Column::F64(iv.rows.iter().map(|r| r.t0).collect())),
            ("t1".into(), Column::F64(iv.rows.iter().map(|r| r.t1).collect())),
            ("n".into(), Column::U64(iv.rows.iter().map(|r| r.n as u64).collect())),
            (
                "flow".into(),
                Column::U64(iv.rows.iter().map(|r| r.flow as u64).collect()),
            ),
            ("name".into(), Column::Str(col_s(&|r| flows.name(r.flow).to_string()))),
            (
                "acked_bytes".into(),
                Column::U64(iv.rows.iter().map(|r| r.acked_bytes).collect()),
            ),
        ],
    }
}
