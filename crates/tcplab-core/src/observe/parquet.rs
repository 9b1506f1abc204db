//! Writing a result table as a Parquet file, so that a run's output can be saved without
//! pandas or pyarrow (see docs/architecture.md, "Output").
//!
//! The simplest layout readers accept: format version 1; `PAR1`; per row group, per column,
//! one v1 data page (PLAIN values, uncompressed, no levels: every column is REQUIRED); the
//! file metadata (Thrift compact protocol); its length (u32, little-endian); `PAR1`. A table
//! is one row group unless a column's page would pass `ROW_GROUP_BYTES`; a table without
//! rows has no row group.
//!
//! Types: f64 -> DOUBLE; u64 -> INT64, annotated unsigned (UINT_64, INTEGER(64, false))
//! only when some value does not fit in an i64, so that pandas reads int64 like the Python
//! side's arrays (`_column` in python/tcplab/results.py); str -> BYTE_ARRAY annotated UTF8
//! and STRING. No statistics and no key-value metadata: pandas reads the columns in order
//! with a RangeIndex, the frame the numpy path builds.
use super::thrift::{self, CompactWriter};
use crate::api::{Column, Table};
use std::io::{self, Write};
use std::ops::Range;

/// The most bytes of values one column chunk (one page) holds before a new row group starts
/// (page sizes are i32 in the format; readers allocate a page at a time).
pub const ROW_GROUP_BYTES: usize = 1 << 30;

const MAGIC: &[u8; 4] = b"PAR1";
const CREATED_BY: &str = concat!("tcplab version ", env!("CARGO_PKG_VERSION"));

// Enum values of parquet.thrift.
const TYPE_INT64: i32 = 2;
const TYPE_DOUBLE: i32 = 5;
const TYPE_BYTE_ARRAY: i32 = 6;
const CONVERTED_UTF8: i32 = 0;
const CONVERTED_UINT_64: i32 = 14;
const REQUIRED: i32 = 0;
const ENCODING_PLAIN: i32 = 0;
const ENCODING_RLE: i32 = 3;
const CODEC_UNCOMPRESSED: i32 = 0;
const PAGE_DATA: i32 = 0;

/// A table laid out as a Parquet file: page headers and footer are encoded, the values are
/// written from the table by `write_to`.
pub struct ParquetFile<'a> {
    columns: Vec<(&'a str, &'a Column)>,
    rows: usize,
    groups: Vec<Range<usize>>,
    /// Page header of each column chunk, row group by row group.
    page_headers: Vec<Vec<u8>>,
    footer: Vec<u8>,
    len: usize,
}

impl<'a> ParquetFile<'a> {
    pub fn new(table: &'a Table) -> ParquetFile<'a> {
        ParquetFile::with_row_group_bytes(table, ROW_GROUP_BYTES)
    }

    /// Like `new`, starting a row group before any column's page would pass `limit` bytes.
    pub fn with_row_group_bytes(table: &'a Table, limit: usize) -> ParquetFile<'a> {
        let columns: Vec<(&str, &Column)> = table.columns.iter().map(|(n, c)| (n.as_str(), c)).collect();
        let rows = table.rows();
        for (name, c) in &columns {
            assert_eq!(c.len(), rows, "column {name} of a table has a different length");
        }
        let groups = row_groups(&columns, rows, limit);
        let mut page_headers = Vec::with_capacity(groups.len() * columns.len());
        let mut chunks = Vec::with_capacity(groups.len() * columns.len());
        let mut offset = MAGIC.len();
        for g in &groups {
            for (_, c) in &columns {
                let data = values_len(c, g.clone());
                let header = page_header(g.len(), data);
                chunks.push(Chunk {
                    offset,
                    len: header.len() + data,
                });
                offset += header.len() + data;
                page_headers.push(header);
            }
        }
        let footer = file_metadata(&columns, rows, &groups, &chunks);
        let len = offset + footer.len() + 4 + MAGIC.len();
        ParquetFile {
            columns,
            rows,
            groups,
            page_headers,
            footer,
            len,
        }
    }

    /// The size of the file in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn row_groups(&self) -> usize {
        self.groups.len()
    }

    /// Writes the file (exactly `len()` bytes).
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(MAGIC)?;
        let mut buf = Vec::new();
        let mut headers = self.page_headers.iter();
        for g in &self.groups {
            for (_, c) in &self.columns {
                out.write_all(headers.next().expect("a header per chunk"))?;
                write_values(c, g.clone(), &mut buf, out)?;
            }
        }
        out.write_all(&self.footer)?;
        out.write_all(&(self.footer.len() as u32).to_le_bytes())?;
        out.write_all(MAGIC)
    }

    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len);
        self.write_to(&mut v).expect("writing to a Vec does not fail");
        v
    }
}

/// Where a column chunk (page header and values) lies in the file.
struct Chunk {
    offset: usize,
    len: usize,
}

/// PLAIN size of one value: 8 bytes, or a 4-byte length and the string's bytes.
fn value_len(c: &Column, row: usize) -> usize {
    match c {
        Column::F64(_) | Column::U64(_) => 8,
        Column::Str(v) => 4 + v[row].len(),
    }
}

fn values_len(c: &Column, rows: Range<usize>) -> usize {
    match c {
        Column::F64(_) | Column::U64(_) => 8 * rows.len(),
        Column::Str(v) => v[rows].iter().map(|s| 4 + s.len()).sum(),
    }
}

/// Consecutive row ranges, each as long as possible with no column's values over `limit`
/// bytes (a single row over it gets a group of its own). None for a table without rows.
fn row_groups(columns: &[(&str, &Column)], rows: usize, limit: usize) -> Vec<Range<usize>> {
    let fixed_rows = if columns.iter().any(|(_, c)| !matches!(c, Column::Str(_))) {
        (limit / 8).max(1)
    } else {
        usize::MAX
    };
    let strings: Vec<&Column> = columns
        .iter()
        .map(|(_, c)| *c)
        .filter(|c| matches!(c, Column::Str(_)))
        .collect();
    let mut groups = Vec::new();
    let mut start = 0;
    let mut sizes = vec![0usize; strings.len()];
    for row in 0..rows {
        let full = row - start >= fixed_rows
            || strings
                .iter()
                .zip(&sizes)
                .any(|(c, size)| size + value_len(c, row) > limit);
        if full && row > start {
            groups.push(start..row);
            start = row;
            sizes.iter_mut().for_each(|s| *s = 0);
        }
        for (c, size) in strings.iter().zip(sizes.iter_mut()) {
            *size += value_len(c, row);
        }
    }
    if rows > start {
        groups.push(start..rows);
    }
    groups
}

/// Writes the PLAIN values of `rows` of a column, through `buf` (about 64 KiB at a time).
fn write_values(c: &Column, rows: Range<usize>, buf: &mut Vec<u8>, out: &mut impl Write) -> io::Result<()> {
    const CHUNK: usize = 1 << 16;
    match c {
        Column::F64(v) => {
            for part in v[rows].chunks(CHUNK / 8) {
                buf.clear();
                part.iter().for_each(|x| buf.extend_from_slice(&x.to_le_bytes()));
                out.write_all(buf)?;
            }
        }
        Column::U64(v) => {
            for part in v[rows].chunks(CHUNK / 8) {
                buf.clear();
                part.iter().for_each(|x| buf.extend_from_slice(&x.to_le_bytes()));
                out.write_all(buf)?;
            }
        }
        Column::Str(v) => {
            buf.clear();
            for s in &v[rows] {
                let len = u32::try_from(s.len()).expect("a string shorter than 4 GiB");
                buf.extend_from_slice(&len.to_le_bytes());
                buf.extend_from_slice(s.as_bytes());
                if buf.len() >= CHUNK {
                    out.write_all(buf)?;
                    buf.clear();
                }
            }
            out.write_all(buf)?;
        }
    }
    Ok(())
}

fn page_header(values: usize, data_len: usize) -> Vec<u8> {
    let size = i32::try_from(data_len).expect("a page under 2 GiB (see ROW_GROUP_BYTES)");
    let mut w = CompactWriter::new();
    w.i32_field(1, PAGE_DATA);
    w.i32_field(2, size); // uncompressed_page_size
    w.i32_field(3, size); // compressed_page_size
    w.struct_field(5); // data_page_header
    w.i32_field(1, values as i32);
    w.i32_field(2, ENCODING_PLAIN);
    w.i32_field(3, ENCODING_RLE); // definition levels: none written (REQUIRED)
    w.i32_field(4, ENCODING_RLE); // repetition levels: none written
    w.end_struct();
    w.finish()
}

/// Whether a u64 column needs the unsigned annotation: some value does not fit in an i64.
fn unsigned(c: &Column) -> bool {
    matches!(c, Column::U64(v) if v.iter().any(|&x| x > i64::MAX as u64))
}

fn physical_type(c: &Column) -> i32 {
    match c {
        Column::F64(_) => TYPE_DOUBLE,
        Column::U64(_) => TYPE_INT64,
        Column::Str(_) => TYPE_BYTE_ARRAY,
    }
}

/// FileMetaData: version, schema (a root and one leaf per column), rows, row groups, writer.
fn file_metadata(columns: &[(&str, &Column)], rows: usize, groups: &[Range<usize>], chunks: &[Chunk]) -> Vec<u8> {
    let mut w = CompactWriter::new();
    w.i32_field(1, 1); // version
    w.list_field(2, thrift::STRUCT, columns.len() + 1);
    w.begin_struct();
    w.binary_field(4, b"schema");
    w.i32_field(5, columns.len() as i32); // num_children
    w.end_struct();
    for (name, c) in columns {
        schema_leaf(&mut w, name, c);
    }
    w.i64_field(3, rows as i64);
    w.list_field(4, thrift::STRUCT, groups.len());
    let mut chunks = chunks.chunks(columns.len().max(1));
    for (i, g) in groups.iter().enumerate() {
        let group_chunks = chunks.next().expect("chunks for every row group");
        row_group(&mut w, columns, g, group_chunks, i);
    }
    w.binary_field(6, CREATED_BY.as_bytes());
    w.finish()
}

fn schema_leaf(w: &mut CompactWriter, name: &str, c: &Column) {
    w.begin_struct();
    w.i32_field(1, physical_type(c));
    w.i32_field(3, REQUIRED);
    w.binary_field(4, name.as_bytes());
    match c {
        Column::Str(_) => {
            w.i32_field(6, CONVERTED_UTF8);
            w.struct_field(10); // logicalType
            w.struct_field(1); // STRING
            w.end_struct();
            w.end_struct();
        }
        Column::U64(_) if unsigned(c) => {
            w.i32_field(6, CONVERTED_UINT_64);
            w.struct_field(10); // logicalType
            w.struct_field(10); // INTEGER
            w.i8_field(1, 64); // bitWidth
            w.bool_field(2, false); // isSigned
            w.end_struct();
            w.end_struct();
        }
        _ => {}
    }
    w.end_struct();
}

fn row_group(
    w: &mut CompactWriter,
    columns: &[(&str, &Column)],
    rows: &Range<usize>,
    chunks: &[Chunk],
    ordinal: usize,
) {
    let bytes: usize = chunks.iter().map(|c| c.len).sum();
    w.begin_struct();
    w.list_field(1, thrift::STRUCT, columns.len());
    for ((name, c), chunk) in columns.iter().zip(chunks) {
        w.begin_struct(); // ColumnChunk
        w.i64_field(2, 0); // file_offset: no metadata outside the footer
        w.struct_field(3); // meta_data
        w.i32_field(1, physical_type(c));
        w.list_field(2, thrift::I32, 1);
        w.i32(ENCODING_PLAIN);
        w.list_field(3, thrift::BINARY, 1);
        w.binary(name.as_bytes());
        w.i32_field(4, CODEC_UNCOMPRESSED);
        w.i64_field(5, rows.len() as i64); // num_values
        w.i64_field(6, chunk.len as i64); // total_uncompressed_size
        w.i64_field(7, chunk.len as i64); // total_compressed_size
        w.i64_field(9, chunk.offset as i64); // data_page_offset
        w.end_struct();
        w.end_struct();
    }
    w.i64_field(2, bytes as i64); // total_byte_size
    w.i64_field(3, rows.len() as i64);
    w.i64_field(5, chunks.first().map_or(0, |c| c.offset) as i64); // file_offset
    w.i64_field(6, bytes as i64); // total_compressed_size
    w.i16_field(7, ordinal as i16);
    w.end_struct();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: Vec<(&str, Column)>) -> Table {
        Table {
            columns: columns.into_iter().map(|(n, c)| (n.to_string(), c)).collect(),
        }
    }

    fn footer(file: &[u8]) -> &[u8] {
        let n = file.len();
        let len = u32::from_le_bytes(file[n - 8..n - 4].try_into().unwrap()) as usize;
        &file[n - 8 - len..n - 8]
    }

    #[test]
    fn a_file_starts_and_ends_with_the_magic_and_the_footer_length_is_right() {
        let t = table(vec![("x", Column::F64(vec![1.5, f64::NAN]))]);
        let p = ParquetFile::new(&t);
        let bytes = p.to_vec();
        assert_eq!(bytes.len(), p.len());
        assert_eq!(&bytes[..4], b"PAR1");
        assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
        let f = footer(&bytes);
        // FileMetaData starts with version = 1 and ends with the stop byte.
        assert_eq!(f[..2], [0x15, 0x02]);
        assert_eq!(f[f.len() - 1], 0);
    }

    #[test]
    fn a_double_column_is_one_plain_page_after_its_header() {
        let t = table(vec![("x", Column::F64(vec![1.5, f64::NAN]))]);
        let bytes = ParquetFile::new(&t).to_vec();
        // PageHeader {1: DATA_PAGE, 2: 16, 3: 16, 5: {1: 2 values, 2: PLAIN, 3: RLE, 4: RLE}}
        let header = [
            0x15, 0x00, 0x15, 0x20, 0x15, 0x20, 0x2C, 0x15, 0x04, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00,
        ];
        assert_eq!(bytes[4..4 + header.len()], header);
        let values = &bytes[4 + header.len()..4 + header.len() + 16];
        assert_eq!(values[..8], 1.5f64.to_le_bytes());
        assert_eq!(values[8..], f64::NAN.to_le_bytes());
    }

    #[test]
    fn strings_are_a_little_endian_length_then_utf8_bytes() {
        let t = table(vec![("s", Column::Str(vec!["é".into(), String::new(), "ab".into()]))]);
        let bytes = ParquetFile::new(&t).to_vec();
        let values: &[u8] = &[2, 0, 0, 0, 0xC3, 0xA9, 0, 0, 0, 0, 2, 0, 0, 0, b'a', b'b'];
        let at = bytes.windows(values.len()).position(|w| w == values);
        assert!(at.is_some(), "PLAIN strings not found");
        // The leaf: BYTE_ARRAY, REQUIRED, "s", UTF8, logical type STRING.
        let leaf = [
            0x15, 0x0C, 0x25, 0x00, 0x18, 0x01, b's', 0x25, 0x00, 0x4C, 0x1C, 0x00, 0x00, 0x00,
        ];
        assert!(footer(&bytes).windows(leaf.len()).any(|w| w == leaf));
    }

    #[test]
    fn u64_columns_are_marked_unsigned_only_when_a_value_does_not_fit_an_i64() {
        let leaf_start = |name: u8| [0x15, 0x04, 0x25, 0x00, 0x18, 0x01, name];
        let small = table(vec![("a", Column::U64(vec![0, i64::MAX as u64]))]);
        let f = ParquetFile::new(&small).to_vec();
        let mut signed = leaf_start(b'a').to_vec();
        signed.push(0x00); // the leaf ends: no annotation
        assert!(footer(&f).windows(signed.len()).any(|w| w == signed));

        let large = table(vec![("b", Column::U64(vec![1, u64::MAX]))]);
        let f = ParquetFile::new(&large).to_vec();
        let mut unsigned = leaf_start(b'b').to_vec();
        // converted_type UINT_64, logicalType {INTEGER {bitWidth 64, isSigned false}}
        unsigned.extend([0x25, 0x1C, 0x4C, 0xAC, 0x13, 64, 0x12, 0x00, 0x00, 0x00]);
        assert!(footer(&f).windows(unsigned.len()).any(|w| w == unsigned));
        let values = [1u64.to_le_bytes(), u64::MAX.to_le_bytes()].concat();
        assert!(f.windows(16).any(|w| w == values));
    }

    #[test]
    fn a_table_without_rows_has_its_columns_and_no_row_group() {
        let t = table(vec![("x", Column::F64(vec![])), ("s", Column::Str(vec![]))]);
        let p = ParquetFile::new(&t);
        assert_eq!((p.rows(), p.row_groups()), (0, 0));
        let bytes = p.to_vec();
        assert_eq!(bytes.len(), 4 + footer(&bytes).len() + 8);
        // num_rows 0, then an empty list of row groups.
        assert!(footer(&bytes).windows(4).any(|w| w == [0x16, 0x00, 0x19, 0x0C]));
    }

    #[test]
    fn row_groups_split_where_a_page_would_pass_the_limit() {
        let strings: Vec<String> = (0..10).map(|i| "x".repeat(i)).collect();
        let t = table(vec![("s", Column::Str(strings)), ("v", Column::U64((0..10).collect()))]);
        // 24 bytes: at most three u64 values; strings of 4 + i bytes.
        let cols: Vec<(&str, &Column)> = t.columns.iter().map(|(n, c)| (n.as_str(), c)).collect();
        let groups = row_groups(&cols, 10, 24);
        assert_eq!(groups, vec![0..3, 3..6, 6..8, 8..9, 9..10]);
        let p = ParquetFile::with_row_group_bytes(&t, 24);
        assert_eq!(p.row_groups(), 5);
        assert_eq!(p.to_vec().len(), p.len());
        // One row over the limit still gets a group of its own.
        assert_eq!(row_groups(&cols, 10, 1), (0..10).map(|r| r..r + 1).collect::<Vec<_>>());
        assert_eq!(row_groups(&cols, 10, 1 << 20), vec![0..10]);
    }

    #[test]
    fn each_column_chunk_offset_points_at_its_page_header() {
        let t = table(vec![
            ("a", Column::U64(vec![1, 2, 3])),
            ("b", Column::Str(vec!["p".into(), "q".into(), "r".into()])),
        ]);
        let p = ParquetFile::with_row_group_bytes(&t, 16);
        let bytes = p.to_vec();
        let mut offset = 4;
        for header in &p.page_headers {
            assert_eq!(bytes[offset..offset + header.len()], header[..]);
            assert_eq!(header[0], 0x15); // the page type field
            let data = header[3]; // uncompressed size, a one-byte zigzag varint here
            offset += header.len() + (data / 2) as usize;
        }
        assert_eq!(offset, bytes.len() - 8 - footer(&bytes).len());
    }
}
