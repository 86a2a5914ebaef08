//! `causeway.v1.Matrix` with its protobuf encoding written out (the generated code names it by
//! `extern_path`): the same fields and the same bytes as prost's derived code, but its packed
//! `values` are read and written as whole slices.
//!
//! prost's derived code reads and writes a packed `repeated double` one value at a time, each a
//! call through `Buf`/`BufMut` with its own bounds check. A CEP-shaped chain's result carries
//! its summary matrices (`r_marginals`, `r_map`: thousands of values), so that loop was the
//! largest part of decoding a result on the coordinator and of encoding it on the worker.

use prost::DecodeError;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};

/// A named matrix of `rows` × `cols` f64 values, row-major; `row_names`/`col_names` are empty
/// or hold one name per row/column (`proto/causeway/v1/worker.proto`, message `Matrix`).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Matrix {
    pub name: String,
    pub rows: u64,
    pub cols: u64,
    /// row-major
    pub values: Vec<f64>,
    pub row_names: Vec<String>,
    pub col_names: Vec<String>,
}

const NAME: u32 = 1;
const ROWS: u32 = 2;
const COLS: u32 = 3;
const VALUES: u32 = 4;
const ROW_NAMES: u32 = 5;
const COL_NAMES: u32 = 6;

/// Values written a block at a time (a block of 4 KiB on the stack).
const BLOCK: usize = 512;

impl prost::Message for Matrix {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if !self.name.is_empty() {
            encoding::string::encode(NAME, &self.name, buf);
        }
        if self.rows != 0 {
            encoding::uint64::encode(ROWS, &self.rows, buf);
        }
        if self.cols != 0 {
            encoding::uint64::encode(COLS, &self.cols, buf);
        }
        put_packed_f64(VALUES, &self.values, buf);
        encoding::string::encode_repeated(ROW_NAMES, &self.row_names, buf);
        encoding::string::encode_repeated(COL_NAMES, &self.col_names, buf);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        let (result, field) = match tag {
            NAME => (
                encoding::string::merge(wire_type, &mut self.name, buf, ctx),
                "name",
            ),
            ROWS => (
                encoding::uint64::merge(wire_type, &mut self.rows, buf, ctx),
                "rows",
            ),
            COLS => (
                encoding::uint64::merge(wire_type, &mut self.cols, buf, ctx),
                "cols",
            ),
            VALUES if wire_type == WireType::LengthDelimited => {
                (merge_packed_f64(&mut self.values, buf, ctx), "values")
            }
            // One value unpacked (a parser must accept both forms).
            VALUES => (
                encoding::double::merge_repeated(wire_type, &mut self.values, buf, ctx),
                "values",
            ),
            ROW_NAMES => (
                encoding::string::merge_repeated(wire_type, &mut self.row_names, buf, ctx),
                "row_names",
            ),
            COL_NAMES => (
                encoding::string::merge_repeated(wire_type, &mut self.col_names, buf, ctx),
                "col_names",
            ),
            _ => return encoding::skip_field(wire_type, tag, buf, ctx),
        };
        result.map_err(|mut e| {
            e.push("Matrix", field);
            e
        })
    }

    fn encoded_len(&self) -> usize {
        let name = if self.name.is_empty() {
            0
        } else {
            encoding::string::encoded_len(NAME, &self.name)
        };
        let rows = if self.rows == 0 {
            0
        } else {
            encoding::uint64::encoded_len(ROWS, &self.rows)
        };
        let cols = if self.cols == 0 {
            0
        } else {
            encoding::uint64::encoded_len(COLS, &self.cols)
        };
        name + rows
            + cols
            + encoding::double::encoded_len_packed(VALUES, &self.values)
            + encoding::string::encoded_len_repeated(ROW_NAMES, &self.row_names)
            + encoding::string::encoded_len_repeated(COL_NAMES, &self.col_names)
    }

    fn clear(&mut self) {
        *self = Matrix::default();
    }
}

/// `values` as field `tag`, packed: the bytes of prost's `double::encode_packed`, written
/// [`BLOCK`] values at a time.
fn put_packed_f64(tag: u32, values: &[f64], buf: &mut impl BufMut) {
    if values.is_empty() {
        return;
    }
    encoding::encode_key(tag, WireType::LengthDelimited, buf);
    encoding::encode_varint(8 * values.len() as u64, buf);
    let mut block = [0u8; 8 * BLOCK];
    for part in values.chunks(BLOCK) {
        for (out, v) in block.chunks_exact_mut(8).zip(part) {
            out.copy_from_slice(&v.to_le_bytes());
        }
        buf.put_slice(&block[..8 * part.len()]);
    }
}

/// A packed field of doubles (its length prefix, then the values) appended to `values`, read a
/// contiguous chunk of `buf` at a time; a value split across two chunks is read on its own.
///
/// # Errors
/// prost's buffer-underflow error for a length beyond the buffer or not a multiple of 8.
fn merge_packed_f64(
    values: &mut Vec<f64>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    let len = encoding::decode_varint(buf)?;
    if len > buf.remaining() as u64 {
        // prost's own error for it: a double read from nothing.
        return encoding::double::merge(WireType::SixtyFourBit, &mut 0.0, &mut &[][..], ctx);
    }
    let mut left = len as usize;
    values.reserve(left / 8);
    while left >= 8 {
        let chunk = buf.chunk();
        let whole = chunk.len().min(left) / 8 * 8;
        if whole == 0 {
            values.push(buf.get_f64_le());
            left -= 8;
            continue;
        }
        values.extend(
            chunk[..whole]
                .chunks_exact(8)
                .map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8]))),
        );
        buf.advance(whole);
        left -= whole;
    }
    if left > 0 {
        // 1 to 7 bytes: prost's error for a double cut short.
        let mut rest = [0u8; 8];
        buf.copy_to_slice(&mut rest[..left]);
        return encoding::double::merge(WireType::SixtyFourBit, &mut 0.0, &mut &rest[..left], ctx);
    }
    Ok(())
}
