//! A run's tables as Parquet files (bytes), with the few rows a terminal summary shows, so
//! that `tcplab run` needs neither numpy nor pandas.
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use tcplab_core::api::{Column, Table};
use tcplab_core::observe::parquet::ParquetFile;

/// What to pick from one table for a short view: the first `limit` rows, or, with `busiest`,
/// the `limit` rows with the largest positive values of that column (`Table::busiest_rows`).
pub type PreviewRequest = (usize, Option<String>);

/// The table as the bytes of a Parquet file, written straight into the Python object.
pub fn parquet_bytes<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyBytes>> {
    let file = ParquetFile::new(table);
    PyBytes::new_bound_with(py, file.len(), |buf| {
        let mut out: &mut [u8] = buf;
        file.write_to(&mut out)?;
        debug_assert!(out.is_empty(), "ParquetFile::len is the size written");
        Ok(())
    })
}

/// `{"limit", "busiest", "columns", "rows": [{column: value}], "more"}`: the rows picked as
/// `request` says, and how many rows the pick left out.
pub fn preview<'py>(py: Python<'py>, table: &Table, request: &PreviewRequest) -> PyResult<Bound<'py, PyDict>> {
    let (limit, busiest) = request;
    let (rows, more) = match busiest {
        Some(key) => table.busiest_rows(key, *limit),
        None => table.first_rows(*limit),
    };
    let records = PyList::empty_bound(py);
    for row in rows {
        let record = PyDict::new_bound(py);
        for (name, col) in &table.columns {
            match col {
                Column::F64(v) => record.set_item(name, v[row])?,
                Column::U64(v) => record.set_item(name, v[row])?,
                Column::Str(v) => record.set_item(name, &v[row])?,
            }
        }
        records.append(record)?;
    }
    let d = PyDict::new_bound(py);
    d.set_item("limit", limit)?;
    d.set_item("busiest", busiest)?;
    let names: Vec<&str> = table.columns.iter().map(|(n, _)| n.as_str()).collect();
    d.set_item("columns", names)?;
    d.set_item("rows", records)?;
    d.set_item("more", more)?;
    Ok(d)
}
