//! A shard's summary file: the values of its chains' larger summary matrices.
//!
//! A chain's summary matrices of at most [`FOOTER_VALUES_MAX`] values (a log marginal
//! likelihood, a few posterior means) are stored whole in the footer of its shard's trace file,
//! which every reader of the shard parses. A larger one (a T × R matrix of responsibilities, an
//! ELBO history, a matrix of edge probabilities) keeps only its name, shape and row and column
//! names there; its values are in `shard-<s>.summary.arrow`, an Arrow IPC file (Feather v2, its
//! buffers LZ4-compressed; earlier runs' files are uncompressed) of one record batch, one row
//! per matrix: `job_id`, `matrix` (large UTF-8), `rows`, `cols` (u32) and `values` (a large
//! list of f64, row-major), the chains in plan order, each chain's matrices in its summary's
//! order. The footer's entry of a chain gives its number of such values (`summary_values`), so
//! a chain's values are found without reading the others. Runs written before this layout have
//! `shard-<s>.summary.parquet` with the same columns, or older still one row per value
//! (`job_id`, `matrix`, `row`, `col`, `value`); they read the same.
//!
//! Why: as JSON text in the footers, the responsibilities of the CEP paper grid (thesis 003,
//! VB) were 6.9 GB of its 6.7 GB of shards (JSON is longer than the values), parsed by every
//! report that wanted one number a chain; as stored values they are read only by who asks for
//! them. One row per matrix rather than per value: the long layout repeated the job id and the
//! matrix name on every value, and building and encoding those strings made the shard sealer
//! 40% of the coordinator's CPU on CEP-shaped chains (`cargo bench -p causeway-tests --bench
//! cluster`). Arrow IPC rather than Parquet: Parquet encodes a list column value by value
//! (repetition and definition levels, then min/max statistics), which was a tenth of all the
//! CPU of that bench; IPC writes the list's offsets and values as they lie in memory. Writing
//! a shard's 80 matrices of 1,000 values took 54 µs as IPC against 1,300–2,300 µs as Parquet,
//! at the same size. pyarrow (`pyarrow.feather.read_table`), pandas (`read_feather`) and polars
//! (`read_ipc`) read it, compressed or not.
//!
//! Why LZ4 and not zstd or no compression: responsibilities compress in part (labels stored as
//! f64, probabilities at 0 or 1, every value 1 at R = 1): the CEP quick grid's summary files
//! (R = 1..3) are 1.8 MB against 2.8 MB uncompressed, its whole `chains/` 3.4 against 4.4 MB;
//! with R = 1..5, 1,000 particles and 5 restarts, 4.5 against 6.1 MB (`chains/` 6.7 against
//! 8.2 MB); the paper grid's, 1.99 against 3.5 GB. LZ4 compresses such data at ≈ 1.5 GB/s
//! (`lz4 -b1` on those files: ≈ 10 µs for a VB chain's 16 KB, on the sealer's thread) and
//! decompresses at ≈ 6 GB/s; zstd at level 1 compresses ≈ 10% smaller at a third of the speed.

use std::path::Path;

use causeway_papers::Matrix;
use polars::prelude::*;
use serde_json::value::RawValue;

#[cfg(doc)]
use super::super::parquet::stored_summary;
use super::super::parquet::{StoredMatrix, framed_file_defect, summary_json_values_up_to};
use super::super::{StoreError, io_err, pl_err, read_parquet};

/// The most values a summary matrix may have and still be stored in the footer.
pub const FOOTER_VALUES_MAX: usize = 64;

/// A chain's summary as a shard stores it: the footer's JSON (every matrix, the larger ones
/// without values) and the larger matrices whole, in summary order.
pub(super) fn split(summary: Vec<Matrix>) -> (Box<RawValue>, Vec<Matrix>) {
    let footer = summary_json_values_up_to(&summary, FOOTER_VALUES_MAX);
    let large = summary
        .into_iter()
        .filter(|m| m.values.len() > FOOTER_VALUES_MAX)
        .collect();
    (footer, large)
}

/// The summary file's frame for `chains` (`(job id, its larger matrices)` in plan order), or
/// `None` when none has any: one row per matrix, its values a list.
pub(super) fn frame<'a>(
    path: &Path,
    chains: impl Iterator<Item = (&'a str, &'a [Matrix])> + Clone,
) -> Result<Option<DataFrame>, StoreError> {
    let (rows, n) = chains
        .clone()
        .flat_map(|(_, ms)| ms)
        .fold((0, 0), |(r, n), m| (r + 1, n + m.values.len()));
    if rows == 0 {
        return Ok(None);
    }
    let mut job_id: Vec<&str> = Vec::with_capacity(rows);
    let mut matrix: Vec<&str> = Vec::with_capacity(rows);
    let mut nrows: Vec<u32> = Vec::with_capacity(rows);
    let mut ncols: Vec<u32> = Vec::with_capacity(rows);
    let mut values = ListPrimitiveChunkedBuilder::<Float64Type>::new(
        "values".into(),
        rows,
        n,
        DataType::Float64,
    );
    for (id, ms) in chains {
        for m in ms {
            job_id.push(id);
            matrix.push(m.name.as_str());
            nrows.push(u32::try_from(m.rows).unwrap_or(u32::MAX));
            ncols.push(u32::try_from(m.cols).unwrap_or(u32::MAX));
            values.append_slice(&m.values);
        }
    }
    let columns: Vec<Column> = vec![
        Series::new("job_id".into(), job_id).into(),
        Series::new("matrix".into(), matrix).into(),
        Series::new("rows".into(), nrows).into(),
        Series::new("cols".into(), ncols).into(),
        values.finish().into_series().into(),
    ];
    DataFrame::new(rows, columns)
        .map(Some)
        .map_err(pl_err(path))
}

/// The bytes of the summary file of `df` (a [`frame`]), appended to `buf`: an Arrow IPC file,
/// its buffers LZ4-compressed (Arrow's `LZ4_FRAME`), its strings and lists in their large
/// (64-bit offset) forms, which every Arrow reader knows. `path` names the file in errors.
pub(super) fn write_ipc(
    path: &Path,
    df: &mut DataFrame,
    buf: &mut Vec<u8>,
) -> Result<(), StoreError> {
    IpcWriter::new(buf)
        .with_compression(Some(IpcCompression::LZ4))
        .with_compat_level(CompatLevel::oldest())
        .finish(df)
        .map_err(pl_err(path))
}

/// Whether `path` names a summary file as Arrow IPC (`.arrow`), not Parquet as runs wrote
/// them before.
pub(super) fn is_ipc(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "arrow")
}

/// Why `path` is not a complete Arrow IPC file (`None` if its frame is sound): shorter than
/// the two magics and a footer length, without `ARROW1` at either end (the first padded to 8
/// bytes), or with a footer length that does not fit in the file; as
/// `parquet_frame_defect` checks a Parquet file.
pub(super) fn ipc_frame_defect(path: &Path) -> Option<String> {
    framed_file_defect(path, "Arrow IPC", b"ARROW1", 8)
}

/// The values of a summary file in order, `expected` long: its `values` lists end to end (an
/// Arrow IPC file, or Parquet as runs wrote it before), or the `value` column of the long
/// layout (one row per value) that earlier runs wrote.
///
/// # Errors
/// The file cannot be read, has neither column, or holds another number of values.
pub(super) fn read_values(path: &Path, expected: usize) -> Result<Vec<f64>, StoreError> {
    let df = if is_ipc(path) {
        let f = std::fs::File::open(path).map_err(io_err(path))?;
        IpcReader::new(f).finish().map_err(pl_err(path))?
    } else {
        read_parquet(path)?
    };
    let flat = match df.column("values") {
        Ok(lists) => lists
            .list()
            .map_err(pl_err(path))?
            .get_inner()
            .f64()
            .map_err(pl_err(path))?
            .clone(),
        Err(_) => df
            .column("value")
            .and_then(|c| c.f64().cloned())
            .map_err(pl_err(path))?,
    };
    let values: Vec<f64> = flat.iter().map(|v| v.unwrap_or(f64::NAN)).collect();
    if values.len() != expected {
        return Err(StoreError::Format {
            path: path.to_path_buf(),
            message: format!(
                "{} summary values, its chains list {expected}",
                values.len()
            ),
        });
    }
    Ok(values)
}

/// A chain's summary matrices that `keep`, from its footer's matrices as stored (`stored`),
/// those stored elsewhere taken in turn from `values` (its rows of the
/// summary file).
///
/// # Errors
/// Too few values; sizes that do not fit.
pub(super) fn matrices(
    path: &Path,
    stored: Vec<StoredMatrix>,
    values: &[f64],
    keep: impl Fn(&StoredMatrix) -> bool,
) -> Result<Vec<Matrix>, StoreError> {
    let mut at = 0;
    let mut out = Vec::new();
    for s in stored {
        let mine: Option<&[f64]> = if s.values_elsewhere() {
            let n = s.rows * s.cols;
            let v = values.get(at..at + n);
            at += n;
            v
        } else {
            None
        };
        if keep(&s) {
            out.push(s.into_matrix(path, mine)?);
        }
    }
    Ok(out)
}
