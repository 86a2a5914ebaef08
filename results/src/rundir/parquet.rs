//! Parquet files of the run directory: whole files written atomically, small frames plain and
//! uncompressed, named matrices as one row each, a chain's summary in its trace's footer, and a
//! cheap check that a file is a complete Parquet file.

use std::fs;
use std::io::Write;
use std::path::Path;

use causeway_papers::Matrix;
use polars::prelude::*;
use serde::{Deserialize, Serialize};

use super::{StoreError, io_err, pl_err};

/// Why `path` is not a complete Parquet file (`None` if its frame is sound): missing, shorter
/// than a header and footer, without the `PAR1` magic at either end, or with a footer length
/// that does not fit in the file.
pub fn parquet_frame_defect(path: &Path) -> Option<String> {
    framed_file_defect(path, "Parquet", b"PAR1", 4)
}

/// Why `path` is not a complete `format` file, for the formats framed as Parquet and Arrow IPC
/// files are: `magic` at the start (padded to `head` bytes), then at the end the footer's
/// length (32 bits, little-endian) and `magic` again. `None` if the frame is sound; it reads
/// the first and last bytes only, so it finds a truncated file, not a damaged one (a digest
/// does).
pub(super) fn framed_file_defect(
    path: &Path,
    format: &str,
    magic: &[u8],
    head: u64,
) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return Some(e.to_string()),
    };
    let len = match f.metadata() {
        Ok(m) => m.len(),
        Err(e) => return Some(e.to_string()),
    };
    let tail_len = 4 + magic.len();
    let frame = head + tail_len as u64;
    if len < frame {
        return Some(format!(
            "{len} bytes is too short for the header and footer of {format} ({frame} bytes)"
        ));
    }
    let mut start = vec![0u8; magic.len()];
    let mut tail = vec![0u8; tail_len];
    let read = f
        .read_exact(&mut start)
        .and_then(|_| f.seek(SeekFrom::End(-(tail_len as i64))))
        .and_then(|_| f.read_exact(&mut tail));
    if let Err(e) = read {
        return Some(e.to_string());
    }
    if start != magic || &tail[4..] != magic {
        let magic = String::from_utf8_lossy(magic);
        return Some(format!(
            "not a complete {format} file (no {magic} magic at both ends)"
        ));
    }
    let footer = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]) as u64;
    if footer + frame > len {
        return Some(format!(
            "not a complete {format} file (footer of {footer} bytes in a {len}-byte file)"
        ));
    }
    None
}

/// Write `bytes` to `path` through a temporary file and a rename, so a reader (or a resumed run)
/// never sees a half-written file. No fsync: the rename is atomic against a killed process,
/// which is what resume needs; an fsync per file tripled the per-chain cost.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(io_err(&f.tmp))?;
    f.commit()
}

/// A file written as a stream under `<name>.<ext>.tmp` and renamed to its path by
/// [`AtomicFile::commit`], as [`write_atomic`] does for bytes already in memory: for files too
/// large to hold (the manifest and `jobs.csv` of 10⁶ chains). Dropped without `commit`, it
/// leaves the path as it was.
pub struct AtomicFile {
    path: std::path::PathBuf,
    tmp: std::path::PathBuf,
    out: std::io::BufWriter<fs::File>,
}

impl AtomicFile {
    /// Start writing `path`'s replacement.
    pub fn create(path: &Path) -> Result<AtomicFile, StoreError> {
        let tmp = path.with_extension(format!(
            "{}.tmp",
            path.extension().and_then(|e| e.to_str()).unwrap_or("")
        ));
        let file = fs::File::create(&tmp).map_err(io_err(&tmp))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: std::io::BufWriter::new(file),
        })
    }

    /// The temporary file's path (for errors).
    pub fn tmp_path(&self) -> &Path {
        &self.tmp
    }

    /// Flush what was written and put the file in place.
    pub fn commit(mut self) -> Result<(), StoreError> {
        self.out.flush().map_err(io_err(&self.tmp))?;
        let AtomicFile { path, tmp, out } = self;
        drop(out);
        fs::rename(&tmp, &path).map_err(io_err(&path))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Frames with fewer values than this are stored uncompressed and in plain encoding: zstd's
/// context costs more to set up (a sixth of a near-empty chain's whole cost through the runner)
/// than it saves on them, and so does polars' choice of dictionary encoding, which estimates each
/// float column's cardinality with a 16,384-register HyperLogLog (30% of the runner's profile at
/// 10,000 near-empty chains).
const COMPRESS_FROM_VALUES: usize = 8192;

/// Write a DataFrame as Parquet, atomically: polars' writer with zstd from
/// [`COMPRESS_FROM_VALUES`] values on; below, uncompressed and plain-encoded (see
/// [`small_parquet`]). Readers need not know: Parquet records the codec and the encoding per
/// column chunk.
pub fn write_parquet(path: &Path, df: &mut DataFrame) -> Result<(), StoreError> {
    write_parquet_with(path, df, Vec::new())
}

/// [`write_parquet`], with `(key, value)` pairs added to the footer's key-value metadata
/// (beside the Arrow schema that polars keeps there); read one back with [`footer_value`].
pub fn write_parquet_with(
    path: &Path,
    df: &mut DataFrame,
    metadata: Vec<(String, String)>,
) -> Result<(), StoreError> {
    write_atomic(path, &parquet_bytes(path, df, metadata)?)
}

/// The bytes [`write_parquet_with`] writes to `path` (named in errors only).
pub fn parquet_bytes(
    path: &Path,
    df: &mut DataFrame,
    metadata: Vec<(String, String)>,
) -> Result<Vec<u8>, StoreError> {
    let mut buf = Vec::new();
    if df.height() * df.width() >= COMPRESS_FROM_VALUES {
        let kv = (!metadata.is_empty()).then(|| KeyValueMetadata::from_static(metadata));
        ParquetWriter::new(&mut buf)
            .with_compression(ParquetCompression::Zstd(None))
            .set_parallel(false)
            .with_key_value_metadata(kv)
            .finish(df)
            .map_err(pl_err(path))?;
    } else {
        small_parquet(&mut buf, df, metadata).map_err(pl_err(path))?;
    }
    Ok(buf)
}

/// The value of footer key `key` in the Parquet file at `path` (`None` if the footer has no
/// such key). Reads the footer only, not the columns.
///
/// # Errors
/// The file cannot be opened or its footer is not Parquet metadata.
pub fn footer_value(path: &Path, key: &str) -> Result<Option<String>, StoreError> {
    let mut f = fs::File::open(path).map_err(io_err(path))?;
    let meta = polars_parquet::read::read_metadata(&mut f).map_err(pl_err(path))?;
    Ok(key_value(&meta, key))
}

/// A Parquet file and the value of its footer key `key`, the footer read once.
pub(super) fn read_parquet_with(
    path: &Path,
    key: &str,
) -> Result<(DataFrame, Option<String>), StoreError> {
    let f = fs::File::open(path).map_err(io_err(path))?;
    let mut reader = ParquetReader::new(f);
    let value = key_value(reader.get_metadata().map_err(pl_err(path))?, key);
    Ok((reader.finish().map_err(pl_err(path))?, value))
}

fn key_value(meta: &polars_parquet::parquet::metadata::FileMetadata, key: &str) -> Option<String> {
    meta.key_value_metadata
        .iter()
        .flatten()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.clone())
}

/// A small frame as one uncompressed, plain-encoded row group, with polars' default statistics
/// and its Arrow schema in the footer (so that polars reads it back with the same types).
/// `ParquetWriter` cannot be told the encoding, hence polars-parquet's own writer.
fn small_parquet(
    buf: &mut Vec<u8>,
    df: &mut DataFrame,
    metadata: Vec<(String, String)>,
) -> PolarsResult<()> {
    use polars_parquet::write::{
        CompressionOptions, Encoding, FileWriter, KeyValue, RowGroupIterator, StatisticsOptions,
        Version, WriteOptions, schema_to_metadata_key,
    };
    /// One encoding per Parquet leaf column of an Arrow field.
    fn leaves(dtype: &ArrowDataType, out: &mut Vec<Encoding>) {
        match dtype {
            ArrowDataType::List(f)
            | ArrowDataType::LargeList(f)
            | ArrowDataType::FixedSizeList(f, _)
            | ArrowDataType::Map(f, _) => leaves(f.dtype(), out),
            ArrowDataType::Struct(fs) => fs.iter().for_each(|f| leaves(f.dtype(), out)),
            ArrowDataType::Extension(ext) => leaves(&ext.inner, out),
            _ => out.push(Encoding::Plain),
        }
    }
    df.rechunk_mut();
    let schema = df.schema().to_arrow(CompatLevel::newest());
    let encodings: Vec<Vec<Encoding>> = schema
        .iter_values()
        .map(|f| {
            let mut e = Vec::new();
            leaves(f.dtype(), &mut e);
            e
        })
        .collect();
    let options = WriteOptions {
        statistics: StatisticsOptions::default(),
        version: Version::V1,
        compression: CompressionOptions::Uncompressed,
        data_page_size: None,
    };
    let batches: Vec<_> = df
        .iter_chunks(CompatLevel::newest(), false)
        .filter(|b| b.height() > 0)
        .collect();
    let heights: Vec<usize> = batches.iter().map(|b| b.height()).collect();
    let row_groups = RowGroupIterator::try_new(
        batches.into_iter().map(Ok),
        &schema,
        options,
        encodings.into(),
    )?;
    // The Arrow schema first, as polars' own writer puts it.
    let kv: Vec<KeyValue> = std::iter::once(schema_to_metadata_key(&schema))
        .chain(metadata.into_iter().map(|(key, value)| KeyValue {
            key,
            value: Some(value),
        }))
        .collect();
    let mut writer = FileWriter::try_new(buf, schema, options)?;
    for (rows, group) in heights.into_iter().zip(row_groups) {
        writer.write(rows as u64, group?)?;
    }
    writer.end(Some(kv))?;
    Ok(())
}

/// Read a Parquet file.
pub fn read_parquet(path: &Path) -> Result<DataFrame, StoreError> {
    let f = fs::File::open(path).map_err(io_err(path))?;
    ParquetReader::new(f).finish().map_err(pl_err(path))
}

/// Write a DataFrame as CSV, atomically.
pub fn write_csv(path: &Path, df: &mut DataFrame) -> Result<(), StoreError> {
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf).finish(df).map_err(pl_err(path))?;
    write_atomic(path, &buf)
}

/// Store named matrices, one row each: `name`, `rows`, `cols`, `values` (list of f64,
/// row-major), `row_names`, `col_names` (lists of strings, possibly empty).
pub fn write_matrices(path: &Path, ms: &[Matrix]) -> Result<(), StoreError> {
    let names: Vec<&str> = ms.iter().map(|m| m.name.as_str()).collect();
    let rows: Vec<u64> = ms.iter().map(|m| m.rows as u64).collect();
    let cols: Vec<u64> = ms.iter().map(|m| m.cols as u64).collect();
    let values: Vec<Series> = ms
        .iter()
        .map(|m| Series::new("".into(), &m.values))
        .collect();
    let str_list = |f: &dyn Fn(&Matrix) -> &Vec<String>| -> Vec<Series> {
        ms.iter()
            .map(|m| {
                let v: Vec<&str> = f(m).iter().map(String::as_str).collect();
                Series::new("".into(), v)
            })
            .collect()
    };
    let row_names = str_list(&|m| &m.row_names);
    let col_names = str_list(&|m| &m.col_names);
    let mut df = DataFrame::new(
        ms.len(),
        vec![
            Series::new("name".into(), names).into(),
            Series::new("rows".into(), rows).into(),
            Series::new("cols".into(), cols).into(),
            list_column("values", &values, DataType::Float64),
            list_column("row_names", &row_names, DataType::String),
            list_column("col_names", &col_names, DataType::String),
        ],
    )
    .map_err(pl_err(path))?;
    write_parquet(path, &mut df)
}

fn list_column(name: &str, items: &[Series], inner: DataType) -> Column {
    if items.is_empty() {
        Series::new_empty(name.into(), &DataType::List(Box::new(inner))).into()
    } else {
        Series::new(name.into(), items).into()
    }
}

/// Read matrices written by [`write_matrices`].
pub fn read_matrices(path: &Path) -> Result<Vec<Matrix>, StoreError> {
    let df = read_parquet(path)?;
    let fmt = |message: String| StoreError::Format {
        path: path.to_path_buf(),
        message,
    };
    let pl = pl_err(path);
    let get = |c: &str| {
        df.column(c).map_err(|e| StoreError::Polars {
            path: path.to_path_buf(),
            source: e,
        })
    };
    let name = get("name")?.str().map_err(pl)?.clone();
    let rows = get("rows")?.u64().map_err(pl_err(path))?.clone();
    let cols = get("cols")?.u64().map_err(pl_err(path))?.clone();
    let values = get("values")?.list().map_err(pl_err(path))?.clone();
    let row_names = get("row_names")?.list().map_err(pl_err(path))?.clone();
    let col_names = get("col_names")?.list().map_err(pl_err(path))?.clone();
    let strings = |s: Option<Series>| -> Result<Vec<String>, StoreError> {
        match s {
            None => Ok(Vec::new()),
            Some(s) => Ok(s
                .str()
                .map_err(pl_err(path))?
                .iter()
                .map(|v| v.unwrap_or("").to_string())
                .collect()),
        }
    };
    let mut out = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let vals: Vec<f64> = match values.get_as_series(i) {
            None => Vec::new(),
            Some(s) => s
                .f64()
                .map_err(pl_err(path))?
                .iter()
                .map(|v| v.unwrap_or(f64::NAN))
                .collect(),
        };
        let m = Matrix {
            name: name.get(i).unwrap_or("").to_string(),
            rows: rows.get(i).unwrap_or(0) as usize,
            cols: cols.get(i).unwrap_or(0) as usize,
            values: vals,
            row_names: strings(row_names.get_as_series(i))?,
            col_names: strings(col_names.get_as_series(i))?,
        };
        m.check().map_err(fmt)?;
        out.push(m);
    }
    Ok(out)
}

/// The footer key of a chain's trace file under which its summary matrices are stored, as
/// the JSON text of [`summary_to_json`]: one file per chain, not a trace and a summary file
/// (creating files is most of the runner's cost per near-empty chain).
pub const SUMMARY_KEY: &str = "causeway.summary";

/// One summary matrix as stored in JSON, as read: [`Matrix`]'s fields, its values as
/// [`JsonF64`]s, or no `values` where a shard keeps them in its summary file
/// ([`super::shards`]). It is written from the matrix itself ([`StoredMatrixRef`]); the tests
/// hold that text to this form's.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(super) struct StoredMatrix {
    pub(super) name: String,
    pub(super) rows: usize,
    pub(super) cols: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    values: Option<Vec<JsonF64>>,
    #[serde(default)]
    row_names: Vec<String>,
    #[serde(default)]
    col_names: Vec<String>,
}

/// An f64 in JSON without loss: a number (the shortest text that parses back to the same
/// value; serde_json's `float_roundtrip` parser reads it back exactly) or, for the values JSON
/// has no number for, the string `"NaN"`, `"inf"` or `"-inf"`.
struct JsonF64(f64);

impl Serialize for JsonF64 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            v if v.is_finite() => s.serialize_f64(v),
            v if v.is_nan() => s.serialize_str("NaN"),
            v if v > 0.0 => s.serialize_str("inf"),
            _ => s.serialize_str("-inf"),
        }
    }
}

impl<'de> Deserialize<'de> for JsonF64 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = JsonF64;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(r#"a number, "NaN", "inf" or "-inf""#)
            }
            fn visit_f64<E>(self, v: f64) -> Result<JsonF64, E> {
                Ok(JsonF64(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<JsonF64, E> {
                Ok(JsonF64(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<JsonF64, E> {
                Ok(JsonF64(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<JsonF64, E> {
                match v {
                    "NaN" => Ok(JsonF64(f64::NAN)),
                    "inf" => Ok(JsonF64(f64::INFINITY)),
                    "-inf" => Ok(JsonF64(f64::NEG_INFINITY)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// Summary matrices as the JSON text stored under [`SUMMARY_KEY`]: an array of objects
/// `name`, `rows`, `cols`, `values` (row-major; see [`JsonF64`]), `row_names`, `col_names`.
/// Deterministic: the same matrices give the same bytes.
pub fn summary_to_json(ms: &[Matrix]) -> String {
    summary_to_raw_json(ms).get().to_string()
}

/// [`summary_to_json`]'s text as a JSON value to embed in another JSON document as it is (a
/// shard's footer), without escaping it as a string.
pub fn summary_to_raw_json(ms: &[Matrix]) -> Box<serde_json::value::RawValue> {
    summary_json_values_up_to(ms, usize::MAX)
}

/// [`summary_to_raw_json`], but a matrix of more than `max` values is written without its
/// `values` (a shard stores them in its summary file).
pub(super) fn summary_json_values_up_to(
    ms: &[Matrix],
    max: usize,
) -> Box<serde_json::value::RawValue> {
    let stored: Vec<StoredMatrixRef> = ms
        .iter()
        .map(|m| StoredMatrixRef {
            name: &m.name,
            rows: m.rows,
            cols: m.cols,
            values: (m.values.len() <= max).then_some(JsonF64s(&m.values)),
            row_names: &m.row_names,
            col_names: &m.col_names,
        })
        .collect();
    // Serialising strings, integers and numbers cannot fail.
    serde_json::value::to_raw_value(&stored).unwrap_or_default()
}

/// [`StoredMatrix`] borrowed from a [`Matrix`], for writing: the same JSON, without copying
/// the matrix's names and values first (writing the summaries' JSON was 8% of the
/// coordinator's CPU for one-iteration chains, whose summaries are small and many).
#[derive(Serialize)]
struct StoredMatrixRef<'a> {
    name: &'a str,
    rows: usize,
    cols: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<JsonF64s<'a>>,
    row_names: &'a [String],
    col_names: &'a [String],
}

/// Values written as a sequence of [`JsonF64`].
struct JsonF64s<'a>(&'a [f64]);

impl Serialize for JsonF64s<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|&v| JsonF64(v)))
    }
}

/// Matrices back from [`summary_to_json`]'s text, each checked ([`Matrix::check`]); `path`
/// names the file in errors.
pub fn summary_from_json(path: &Path, text: &str) -> Result<Vec<Matrix>, StoreError> {
    stored_summary(path, text)?
        .into_iter()
        .map(|s| s.into_matrix(path, None))
        .collect()
}

/// The matrices of a summary's JSON text as stored, values not yet checked.
///
/// # Errors
/// Text that is not such JSON.
pub(super) fn stored_summary(path: &Path, text: &str) -> Result<Vec<StoredMatrix>, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Format {
        path: path.to_path_buf(),
        message: format!("summary in the footer: {e}"),
    })
}

impl StoredMatrix {
    /// Whether its values are stored elsewhere (in a shard's summary file).
    pub(super) fn values_elsewhere(&self) -> bool {
        self.values.is_none()
    }

    /// The matrix, checked ([`Matrix::check`]): its own values, or `elsewhere` where it has
    /// none.
    ///
    /// # Errors
    /// Sizes that do not fit; no values in either place.
    pub(super) fn into_matrix(
        self,
        path: &Path,
        elsewhere: Option<&[f64]>,
    ) -> Result<Matrix, StoreError> {
        let fmt = |message: String| StoreError::Format {
            path: path.to_path_buf(),
            message,
        };
        let values = match (self.values, elsewhere) {
            (Some(v), _) => v.into_iter().map(|v| v.0).collect(),
            (None, Some(v)) => v.to_vec(),
            (None, None) => {
                return Err(fmt(format!("summary matrix {} has no values", self.name)));
            }
        };
        let m = Matrix {
            name: self.name,
            rows: self.rows,
            cols: self.cols,
            values,
            row_names: self.row_names,
            col_names: self.col_names,
        };
        m.check().map_err(fmt)?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames below (polars-parquet's plain writer) and above (polars' zstd writer) the
    /// compression threshold, empty ones included, read back as written, with their types.
    #[test]
    fn small_and_large_frames_round_trip() {
        let dir = tempfile::tempdir().expect("tempdir");
        for n in [0usize, 3, COMPRESS_FROM_VALUES / 4] {
            let path = dir.path().join(format!("f{n}.parquet"));
            let v: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
            let it: Vec<u64> = (0..n as u64).collect();
            let s: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
            let l: Vec<Series> = (0..n).map(|i| Series::new("".into(), &v[..i])).collect();
            let mut df =
                df!("x" => &v, "iteration" => &it, "name" => &s, "values" => &l).expect("df");
            write_parquet(&path, &mut df).expect("write");
            assert_eq!(read_parquet(&path).expect("read"), df, "{n} rows");
        }
    }

    /// Every f64 (random bit patterns, subnormals, signed zeros, the extremes, NaN and the
    /// infinities) and the names come back from the summary's JSON as they went in, and the
    /// text is the same for the same matrices.
    #[test]
    fn summary_json_round_trips_every_value_exactly() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut values: Vec<f64> = (0..20_000).map(|_| f64::from_bits(next())).collect();
        values.retain(|v| !v.is_nan());
        values.extend([
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            f64::MIN,
            f64::EPSILON,
            1.0 / 3.0,
            0.1 + 0.2,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]);
        let n = values.len();
        let mut named = Matrix::new("p", 2, 2, vec![0.5, f64::NAN, -1.0, 3.0]);
        named.row_names = vec!["a".into(), "b \"quoted\"".into()];
        named.col_names = vec!["x=0".into(), "ünï".into()];
        let ms = vec![
            Matrix::new("v", 1, n, values.clone()),
            named,
            Matrix::new("e", 0, 0, vec![]),
        ];
        let text = summary_to_json(&ms);
        assert_eq!(text, summary_to_json(&ms));
        let back = summary_from_json(Path::new("t"), &text).expect("parse");
        assert_eq!(back.len(), 3);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back[0].values), bits(&values));
        assert!(back[1].values[1].is_nan());
        assert_eq!(back[1].row_names, ms[1].row_names);
        assert_eq!(back[1].col_names, ms[1].col_names);
        assert_eq!(back[2], ms[2]);
        // The text is what the stored form (the reader's type) writes, with or without values.
        for max in [usize::MAX, 4] {
            let text = summary_json_values_up_to(&ms, max).get().to_string();
            let stored = stored_summary(Path::new("t"), &text).expect("parse");
            assert_eq!(serde_json::to_string(&stored).expect("text"), text);
            assert_eq!(stored[0].values_elsewhere(), max == 4);
        }
        // A shape that disagrees with the values, or a string that is no value, is an error.
        let bad = text.replacen("\"rows\":2", "\"rows\":3", 1);
        assert!(summary_from_json(Path::new("t"), &bad).is_err());
        let bad = text.replacen("\"NaN\"", "\"nan?\"", 1);
        assert!(summary_from_json(Path::new("t"), &bad).is_err());
    }

    /// Footer metadata is written by both writers (small and zstd) and read back by key,
    /// beside the Arrow schema, without changing the frame.
    #[test]
    fn footer_metadata_is_kept_by_both_writers() {
        let dir = tempfile::tempdir().expect("tempdir");
        for n in [3usize, COMPRESS_FROM_VALUES] {
            let path = dir.path().join(format!("m{n}.parquet"));
            let v: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let mut df = df!("x" => &v).expect("df");
            write_parquet_with(&path, &mut df, vec![("k".into(), "value".into())]).expect("write");
            assert_eq!(
                footer_value(&path, "k").expect("read").as_deref(),
                Some("value")
            );
            assert_eq!(footer_value(&path, "absent").expect("read"), None);
            assert_eq!(read_parquet(&path).expect("read"), df, "{n} rows");
        }
    }
}
