//! Building result tables column by column.
use crate::api::{Column, Table};

/// The type of a declared column.
#[derive(Clone, Copy)]
pub enum Col {
    F,
    U,
    S,
}

/// Builds a table row by row. The columns are declared up front, so a table without rows
/// still has them all; each row fills them by name.
pub struct TableBuilder {
    cols: Vec<(String, Column)>,
    next: usize,
}

impl TableBuilder {
    pub fn new(schema: &[(&str, Col)]) -> TableBuilder {
        TableBuilder::with_capacity(schema, 0)
    }

    /// A builder with room for `rows` rows (no reallocation, no unused room, when that is
    /// the number of rows).
    pub fn with_capacity(schema: &[(&str, Col)], rows: usize) -> TableBuilder {
        let cols = schema
            .iter()
            .map(|&(name, col)| {
                let empty = match col {
                    Col::F => Column::F64(Vec::with_capacity(rows)),
                    Col::U => Column::U64(Vec::with_capacity(rows)),
                    Col::S => Column::Str(Vec::with_capacity(rows)),
                };
                (name.to_string(), empty)
            })
            .collect();
        TableBuilder { cols, next: 0 }
    }

    fn slot(&mut self, name: &str) -> &mut Column {
        let i = if self.cols.get(self.next).is_some_and(|(n, _)| n == name) {
            self.next
        } else {
            let found = self.cols.iter().position(|(n, _)| n == name);
            found.unwrap_or_else(|| panic!("column {name} is not declared"))
        };
        self.next = i + 1;
        &mut self.cols[i].1
    }

    pub fn f(&mut self, name: &str, v: f64) {
        match self.slot(name) {
            Column::F64(c) => c.push(v),
            _ => panic!("column {name} is not f64"),
        }
    }
    pub fn u(&mut self, name: &str, v: u64) {
        match self.slot(name) {
            Column::U64(c) => c.push(v),
            _ => panic!("column {name} is not u64"),
        }
    }
    pub fn s(&mut self, name: &str, v: &str) {
        self.string(name, v.to_string());
    }
    /// A str value given as an owned string (moved into the column, not copied).
    pub fn string(&mut self, name: &str, v: String) {
        match self.slot(name) {
            Column::Str(c) => c.push(v),
            _ => panic!("column {name} is not str"),
        }
    }
    pub fn build(self) -> Table {
        Table { columns: self.cols }
    }
}
