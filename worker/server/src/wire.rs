//! Conversions between the wire messages of `causeway/v1/worker.proto` and the samplers' types.

use causeway_papers::{ChainOutput, Checkpoint, Matrix};
use causeway_proto::CODE_VERSION;
use causeway_proto::v1::{ChainCheckpoint, ChainResult};

/// Converts between the wire `Matrix` and the library's `Matrix`.
pub fn matrix_to_wire(m: &Matrix) -> causeway_proto::v1::Matrix {
    causeway_proto::v1::Matrix {
        name: m.name.clone(),
        rows: m.rows as u64,
        cols: m.cols as u64,
        values: m.values.clone(),
        row_names: m.row_names.clone(),
        col_names: m.col_names.clone(),
    }
}

/// Wire `Matrix` → library `Matrix`, checking that the shape fits the values.
pub fn matrix_from_wire(m: causeway_proto::v1::Matrix) -> Result<Matrix, String> {
    let out = Matrix {
        name: m.name,
        rows: usize::try_from(m.rows).map_err(|_| "matrix rows overflow".to_string())?,
        cols: usize::try_from(m.cols).map_err(|_| "matrix cols overflow".to_string())?,
        values: m.values,
        row_names: m.row_names,
        col_names: m.col_names,
    };
    out.check()?;
    Ok(out)
}

/// A finished chain as the worker sends it: `ok = true`, the draws, the sampler's statistics,
/// the summaries and the wall-clock times.
pub fn chain_result_from_output(job_id: &str, worker_id: &str, out: ChainOutput) -> ChainResult {
    ChainResult {
        job_id: job_id.to_string(),
        ok: true,
        error: String::new(),
        trace_names: out.trace_names,
        iterations: out.iterations,
        trace: out.trace,
        summary: out.summary.iter().map(matrix_to_wire).collect(),
        elapsed_seconds: out.elapsed_seconds,
        worker_id: worker_id.to_string(),
        retryable: false,
        stat_names: out.stat_names,
        stats: out.stats,
    }
}

/// Wire result → the library's chain output. Errors if a summary matrix's shape does not fit
/// its values.
pub fn chain_output_from_result(r: ChainResult) -> Result<ChainOutput, String> {
    Ok(ChainOutput {
        trace_names: r.trace_names,
        iterations: r.iterations,
        trace: r.trace,
        stat_names: r.stat_names,
        stats: r.stats,
        summary: r
            .summary
            .into_iter()
            .map(matrix_from_wire)
            .collect::<Result<Vec<_>, _>>()?,
        elapsed_seconds: r.elapsed_seconds,
    })
}

/// A checkpoint as the worker sends it: its state and the rows since the previous one.
pub fn checkpoint_to_wire(job_id: &str, c: Checkpoint) -> ChainCheckpoint {
    ChainCheckpoint {
        job_id: job_id.to_string(),
        iteration: c.iteration,
        sampler_state: c.sampler_state,
        rng_word_pos: c.rng_word_pos.to_le_bytes().to_vec(),
        iterations: c.iterations,
        trace: c.trace,
        stats: c.stats,
        elapsed_seconds: c.elapsed_seconds,
        code_version: CODE_VERSION.to_string(),
    }
}

/// The RNG word position of a wire checkpoint. Errors unless it is 16 bytes.
pub fn rng_word_pos(c: &ChainCheckpoint) -> Result<u128, String> {
    let bytes: [u8; 16] = c.rng_word_pos.as_slice().try_into().map_err(|_| {
        format!(
            "checkpoint of {}: rng_word_pos has {} bytes, not 16",
            c.job_id,
            c.rng_word_pos.len()
        )
    })?;
    Ok(u128::from_le_bytes(bytes))
}
