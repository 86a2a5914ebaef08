//! The one reader of a chain's stored draws: post-burn-in draws for the reports and the
//! convergence rounds (burn-in as [`Manifest::burn_in`] gives it, the same for every table and
//! diagnostic), a chain's whole rows for extending it, and every column past the burn-in for
//! `causeway export`.

use polars::prelude::{DataFrame, DataType, PolarsError};

use super::{Manifest, RunDir, StoreError};

fn polars_error(rd: &RunDir, id: &str, source: PolarsError) -> StoreError {
    StoreError::Polars {
        path: rd.trace_path(id),
        source,
    }
}

/// Post-burn-in draws of `scalar` for every chain of (cell, replicate): M chains × N draws.
pub fn chain_draws(
    rd: &RunDir,
    m: &Manifest,
    cell: usize,
    replicate: u64,
    scalar: &str,
) -> Result<Vec<Vec<f64>>, StoreError> {
    Ok(chain_draws_of(rd, m, cell, replicate, &[scalar])?
        .pop()
        .unwrap_or_default())
}

/// [`chain_draws`] of several scalars, each chain's trace read once: per scalar (in `scalars`
/// order), M chains × N draws. A chain whose trace lacks a scalar is left out of that scalar's
/// list.
pub fn chain_draws_of(
    rd: &RunDir,
    m: &Manifest,
    cell: usize,
    replicate: u64,
    scalars: &[&str],
) -> Result<Vec<Vec<Vec<f64>>>, StoreError> {
    let mut out = vec![Vec::new(); scalars.len()];
    for chain in stored_chains(rd, m, cell, replicate, scalars)? {
        for (i, chains) in out.iter_mut().enumerate() {
            if let Some(draws) = chain.after_burn_in(i) {
                chains.push(draws);
            }
        }
    }
    Ok(out)
}

/// One finished chain's stored rows, burn-in included, with the burn-in every table and
/// diagnostic drops: the iteration numbers and, per requested scalar, its values (`None`: the
/// trace has no such column; a null value reads as NaN).
#[derive(Debug, Clone, PartialEq)]
pub struct ChainDraws {
    pub job_id: String,
    pub iterations: Vec<u64>,
    pub columns: Vec<Option<Vec<f64>>>,
    /// Rows with an iteration number ≤ this are burn-in ([`Manifest::burn_in`]).
    pub burn_in: u64,
}

impl ChainDraws {
    /// Whether row `r` is past the burn-in.
    fn kept(&self, r: usize) -> bool {
        self.iterations[r] > self.burn_in
    }

    /// The iteration numbers past the burn-in.
    pub fn kept_iterations(&self) -> Vec<u64> {
        (0..self.iterations.len())
            .filter(|&r| self.kept(r))
            .map(|r| self.iterations[r])
            .collect()
    }

    /// Column `i` (in the order the scalars were asked for) past the burn-in; `None` if the
    /// trace has no such column.
    pub fn after_burn_in(&self, i: usize) -> Option<Vec<f64>> {
        let col = self.columns.get(i)?.as_ref()?;
        Some(
            col.iter()
                .enumerate()
                .filter(|&(r, _)| self.kept(r))
                .map(|(_, x)| *x)
                .collect(),
        )
    }
}

/// Every finished chain of (cell, replicate), in job order, each trace read once: the one
/// reader of stored draws that every table and diagnostic uses, with the burn-in
/// [`Manifest::burn_in`] gives (the cell's `run.burn_in`, or in a convergence-driven run with a
/// fractional burn-in, that fraction of the group's iterations), so they all drop the same
/// iterations. Errors: a trace that cannot be read, or a column that is not numeric.
pub fn stored_chains(
    rd: &RunDir,
    m: &Manifest,
    cell: usize,
    replicate: u64,
    scalars: &[&str],
) -> Result<Vec<ChainDraws>, StoreError> {
    let burn_in = m.burn_in(cell, replicate);
    let mut out = Vec::new();
    for j in m
        .jobs
        .iter()
        .filter(|j| j.cell == cell && j.replicate == replicate)
    {
        if !rd.chain_done(&j.job_id) {
            continue;
        }
        let df = rd.read_trace(&j.job_id)?;
        let pe = |e| polars_error(rd, &j.job_id, e);
        let it = df.column("iteration").and_then(|c| c.u64()).map_err(pe)?;
        let iterations = it.iter().map(|i| i.unwrap_or(0)).collect();
        let mut columns = Vec::with_capacity(scalars.len());
        for scalar in scalars {
            let Ok(col) = df.column(scalar) else {
                columns.push(None);
                continue;
            };
            let col = col.cast(&DataType::Float64).map_err(pe)?;
            let v = col.f64().map_err(pe)?;
            columns.push(Some(v.iter().map(|x| x.unwrap_or(f64::NAN)).collect()));
        }
        out.push(ChainDraws {
            job_id: j.job_id.clone(),
            iterations,
            columns,
            burn_in,
        });
    }
    Ok(out)
}

/// A stored chain's rows, as a checkpoint holds them: iteration numbers, row-major draws (the
/// trace's columns after `iteration`, in file order), row-major sampler statistics, and the
/// wall-clock seconds of each row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredRows {
    pub iterations: Vec<u64>,
    pub trace: Vec<f64>,
    pub stats: Vec<f64>,
    pub elapsed_seconds: Vec<f64>,
}

/// Rows of job `id`'s stored trace (`None`: no readable trace).
pub fn trace_rows(rd: &RunDir, id: &str) -> Option<usize> {
    rd.read_trace(id).ok().map(|df| df.height())
}

/// Read job `id`'s stored rows back (to extend the chain: the rows are not run again), with
/// their timing (NaN seconds if it was lost). Errors: a file missing or unreadable, or files
/// whose row counts differ.
pub fn stored_rows(rd: &RunDir, id: &str) -> Result<StoredRows, StoreError> {
    fn row_major(df: &DataFrame) -> Result<Vec<f64>, PolarsError> {
        let mut cols = Vec::new();
        for c in df.columns() {
            if c.name().as_str() != "iteration" {
                cols.push(
                    c.f64()?
                        .iter()
                        .map(|x| x.unwrap_or(f64::NAN))
                        .collect::<Vec<_>>(),
                );
            }
        }
        let mut out = Vec::with_capacity(cols.len() * df.height());
        for r in 0..df.height() {
            out.extend(cols.iter().map(|c| c[r]));
        }
        Ok(out)
    }
    let pe = |e| polars_error(rd, id, e);
    let trace = rd.read_trace(id)?;
    let n = trace.height();
    let iterations: Vec<u64> = trace
        .column("iteration")
        .and_then(|c| c.u64())
        .map_err(pe)?
        .into_no_null_iter()
        .collect();
    let stats = match rd.read_sample_stats(id)? {
        Some(s) if s.height() == n => row_major(&s).map_err(pe)?,
        Some(_) => {
            return Err(StoreError::Format {
                path: rd.trace_path(id),
                message: "its sample_stats rows differ from its trace rows".into(),
            });
        }
        None => Vec::new(),
    };
    // The rows' wall-clock seconds; NaN where they were lost (a coordinator killed between a
    // round's files and its row leaves no timing, or the previous round's: the results are
    // kept, the seconds are unknown).
    let elapsed_seconds: Vec<f64> = match rd.read_timing(id)? {
        Some(t) if t.elapsed_seconds.len() == n => t.elapsed_seconds,
        _ => vec![f64::NAN; n],
    };
    Ok(StoredRows {
        iterations,
        trace: row_major(&trace).map_err(pe)?,
        stats,
        elapsed_seconds,
    })
}

/// Every column of a stored trace or sampler-statistics frame but `iteration`, as f64 (a null
/// reads as NaN), rows with an iteration number > `burn_in` only: what `causeway export`
/// writes. Errors: a column that is not numeric, as text.
pub fn columns_after_burn_in(
    df: &DataFrame,
    burn_in: u64,
) -> Result<Vec<(String, Vec<f64>)>, String> {
    let it = df
        .column("iteration")
        .and_then(|c| c.cast(&DataType::UInt64))
        .map_err(|e| e.to_string())?;
    let keep: Vec<bool> = it
        .u64()
        .map_err(|e| e.to_string())?
        .iter()
        .map(|i| i.unwrap_or(0) > burn_in)
        .collect();
    let mut out = Vec::new();
    for c in df.columns() {
        let name = c.name().to_string();
        if name == "iteration" {
            continue;
        }
        let f = c.cast(&DataType::Float64).map_err(|e| e.to_string())?;
        let v = f.f64().map_err(|e| e.to_string())?;
        let col = v
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(x, _)| x.unwrap_or(f64::NAN))
            .collect();
        out.push((name, col));
    }
    Ok(out)
}
