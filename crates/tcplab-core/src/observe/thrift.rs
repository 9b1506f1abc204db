//! A Thrift compact-protocol encoder: the part of the protocol Parquet's metadata needs
//! (structs, lists, bool, i8, i16, i32, i64, binary).
//!
//! Integers are zigzag-encoded ULEB128 varints, binaries a varint length then the bytes. A
//! field header is one byte, `delta << 4 | type`, when the field id is 1 to 15 above the
//! previous field's in the same struct; otherwise the type byte and the id as a zigzag
//! varint. A bool field has no value: its type code says true or false. A struct ends with
//! a 0 byte; a list starts with `size << 4 | element type` (size below 15) or `0xF0 | type`
//! and the size as a varint.

/// Compact-protocol type codes.
pub const BOOL_TRUE: u8 = 1;
pub const BOOL_FALSE: u8 = 2;
pub const I8: u8 = 3;
pub const I16: u8 = 4;
pub const I32: u8 = 5;
pub const I64: u8 = 6;
pub const BINARY: u8 = 8;
pub const LIST: u8 = 9;
pub const STRUCT: u8 = 12;

/// Writes one top-level struct; nested structs and lists are written in place.
#[derive(Default)]
pub struct CompactWriter {
    out: Vec<u8>,
    /// The id of the last field written in the struct being written.
    last_field: i16,
    /// The same for each enclosing struct.
    enclosing: Vec<i16>,
}

impl CompactWriter {
    pub fn new() -> CompactWriter {
        CompactWriter::default()
    }

    /// Ends the top-level struct and returns its bytes.
    pub fn finish(mut self) -> Vec<u8> {
        debug_assert!(self.enclosing.is_empty(), "a nested struct was not ended");
        self.out.push(0);
        self.out
    }

    pub fn bool_field(&mut self, id: i16, v: bool) {
        self.field_header(id, if v { BOOL_TRUE } else { BOOL_FALSE });
    }

    pub fn i8_field(&mut self, id: i16, v: i8) {
        self.field_header(id, I8);
        self.out.push(v as u8);
    }

    pub fn i16_field(&mut self, id: i16, v: i16) {
        self.field_header(id, I16);
        varint(&mut self.out, zigzag(v.into()));
    }

    pub fn i32_field(&mut self, id: i16, v: i32) {
        self.field_header(id, I32);
        varint(&mut self.out, zigzag(v.into()));
    }

    pub fn i64_field(&mut self, id: i16, v: i64) {
        self.field_header(id, I64);
        varint(&mut self.out, zigzag(v));
    }

    pub fn binary_field(&mut self, id: i16, v: &[u8]) {
        self.field_header(id, BINARY);
        self.binary(v);
    }

    /// Starts a struct-valued field; end it with `end_struct`.
    pub fn struct_field(&mut self, id: i16) {
        self.field_header(id, STRUCT);
        self.begin_struct();
    }

    /// Starts a list-valued field of `len` elements of type `element`; write them with the
    /// element methods (`i32`, `binary`, `begin_struct` ... `end_struct`).
    pub fn list_field(&mut self, id: i16, element: u8, len: usize) {
        self.field_header(id, LIST);
        if len < 15 {
            self.out.push((len as u8) << 4 | element);
        } else {
            self.out.push(0xF0 | element);
            varint(&mut self.out, len as u64);
        }
    }

    /// A list element of type I32.
    pub fn i32(&mut self, v: i32) {
        varint(&mut self.out, zigzag(v.into()));
    }

    /// A list element of type BINARY.
    pub fn binary(&mut self, v: &[u8]) {
        varint(&mut self.out, v.len() as u64);
        self.out.extend_from_slice(v);
    }

    /// Starts a struct that is a list element (or, after `struct_field`, its value).
    pub fn begin_struct(&mut self) {
        self.enclosing.push(self.last_field);
        self.last_field = 0;
    }

    pub fn end_struct(&mut self) {
        self.out.push(0);
        self.last_field = self.enclosing.pop().expect("end_struct without begin_struct");
    }

    fn field_header(&mut self, id: i16, ty: u8) {
        let delta = i32::from(id) - i32::from(self.last_field);
        if (1..=15).contains(&delta) {
            self.out.push((delta as u8) << 4 | ty);
        } else {
            self.out.push(ty);
            varint(&mut self.out, zigzag(id.into()));
        }
        self.last_field = id;
    }
}

/// Zigzag: small magnitudes of either sign become small unsigned numbers (0, -1, 1, -2 ...
/// -> 0, 1, 2, 3 ...).
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// ULEB128: seven bits per byte, least significant first, the high bit set on all but the last.
pub fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint_bytes(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        varint(&mut out, v);
        out
    }

    #[test]
    fn varints_are_little_endian_groups_of_seven_bits() {
        assert_eq!(varint_bytes(0), [0x00]);
        assert_eq!(varint_bytes(1), [0x01]);
        assert_eq!(varint_bytes(127), [0x7F]);
        assert_eq!(varint_bytes(128), [0x80, 0x01]);
        assert_eq!(varint_bytes(300), [0xAC, 0x02]);
        assert_eq!(varint_bytes(16_384), [0x80, 0x80, 0x01]);
        let max = varint_bytes(u64::MAX);
        assert_eq!(max.len(), 10);
        assert_eq!(max[..9], [0xFF; 9]);
        assert_eq!(max[9], 0x01);
    }

    #[test]
    fn zigzag_interleaves_signs() {
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        assert_eq!(zigzag(-2), 3);
        assert_eq!(zigzag(2), 4);
        assert_eq!(zigzag(i32::MAX.into()), 0xFFFF_FFFE);
        assert_eq!(zigzag(i32::MIN.into()), 0xFFFF_FFFF);
        assert_eq!(zigzag(i64::MAX), u64::MAX - 1);
        assert_eq!(zigzag(i64::MIN), u64::MAX);
    }

    #[test]
    fn field_headers_carry_the_id_delta_or_the_full_id() {
        let mut w = CompactWriter::new();
        w.i32_field(1, 0); // delta 1: 0x15
        w.i32_field(4, -1); // delta 3: 0x35
        w.i64_field(19, 1); // delta 15: 0xF6
        w.i32_field(35, 2); // delta 16: long form, id 35 -> zigzag 70
        w.i32_field(2, 3); // going back: long form
        assert_eq!(
            w.finish(),
            [0x15, 0x00, 0x35, 0x01, 0xF6, 0x02, 0x05, 70, 0x04, 0x05, 0x04, 0x06, 0x00]
        );
    }

    #[test]
    fn bools_are_in_the_type_nibble_and_i8_is_one_raw_byte() {
        let mut w = CompactWriter::new();
        w.i8_field(1, 64);
        w.bool_field(2, false);
        w.bool_field(3, true);
        w.i8_field(4, -1);
        assert_eq!(w.finish(), [0x13, 64, 0x12, 0x11, 0x13, 0xFF, 0x00]);
    }

    #[test]
    fn binaries_have_a_varint_length() {
        let mut w = CompactWriter::new();
        w.binary_field(1, b"ab");
        w.binary_field(2, &[7u8; 130]);
        let out = w.finish();
        assert_eq!(out[..4], [0x18, 0x02, b'a', b'b']);
        assert_eq!(out[4..7], [0x18, 0x82, 0x01]);
        assert_eq!(out.len(), 7 + 130 + 1);
    }

    #[test]
    fn nested_structs_count_field_ids_from_zero_and_restore_the_outer_ones() {
        let mut w = CompactWriter::new();
        w.i32_field(3, 1);
        w.struct_field(5); // delta 2
        w.i32_field(1, 2); // delta 1 inside, not -2 from the outer 3
        w.end_struct();
        w.i32_field(6, 3); // delta 1 from the struct field 5
        assert_eq!(w.finish(), [0x35, 0x02, 0x2C, 0x15, 0x04, 0x00, 0x15, 0x06, 0x00]);
    }

    #[test]
    fn lists_have_a_short_or_long_header() {
        let mut w = CompactWriter::new();
        w.list_field(1, I32, 2);
        w.i32(1);
        w.i32(-1);
        w.list_field(2, BINARY, 15);
        for _ in 0..15 {
            w.binary(b"");
        }
        w.list_field(3, STRUCT, 1);
        w.begin_struct();
        w.i16_field(1, -3);
        w.end_struct();
        let out = w.finish();
        assert_eq!(out[..4], [0x19, 0x25, 0x02, 0x01]);
        assert_eq!(out[4..7], [0x19, 0xF8, 0x0F]);
        assert_eq!(out[7..22], [0x00; 15]);
        assert_eq!(out[22..], [0x19, 0x1C, 0x14, 0x05, 0x00, 0x00]);
    }
}
