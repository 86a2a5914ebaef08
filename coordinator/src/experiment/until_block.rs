//! The `until:` block: convergence-driven runs, and `run.burn_in` as a fraction.
//!
//! ```yaml
//! run: {iterations: 1000, burn_in: 0.5, thin: 1}   # burn_in < 1: a fraction of the iterations
//! until: {rhat: 1.01, ess_bulk: 400, ess_tail: 400, max_iterations: 200000, max_chains: 16}
//! ```
//! - `rhat` (> 1, default 1.01), `ess_bulk`, `ess_tail` (≥ 1, default 400): a (cell, replicate)
//!   meets the criterion when every monitored scalar (`monitor:`) has R-hat ≤ `rhat` and bulk and
//!   tail ESS at least these.
//! - `max_iterations` (≥ `run.iterations`, default `run.iterations`), `max_chains` (≥ `chains`,
//!   default `chains`): the caps. The growth rule is `crate::until`'s.
//! - A profile may override any key (`profiles.paper.until: {max_iterations: 400000}`); not
//!   with `sbc:` (an SBC chain's length is part of its ranks).

use causeway_papers::RunSpec;
use causeway_results::rundir::Criterion;
use serde::Deserialize;

use super::{Ctx, ExperimentError, ExperimentFile, MAX_TRACE_ROWS, Profile};

/// `until:` as written (every key optional).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct UntilBlock {
    rhat: Option<f64>,
    ess_bulk: Option<f64>,
    ess_tail: Option<f64>,
    max_iterations: Option<u64>,
    max_chains: Option<u64>,
}

/// `run.burn_in`: iterations (an integer), or a fraction 0 ≤ f < 1 of `run.iterations`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(untagged)]
pub(super) enum BurnIn {
    Iterations(u64),
    Fraction(f64),
}

impl Default for BurnIn {
    fn default() -> Self {
        BurnIn::Iterations(0)
    }
}

impl BurnIn {
    /// The fraction, when given as one.
    pub(super) fn fraction(self) -> Option<f64> {
        match self {
            BurnIn::Fraction(f) => Some(f),
            BurnIn::Iterations(_) => None,
        }
    }

    /// Iterations of burn-in of a chain of `iterations`: ⌊f × iterations⌋ for a fraction.
    /// Errors (the message): a fraction outside [0, 1) or not finite.
    pub(super) fn of(self, iterations: u64) -> Result<u64, String> {
        match self {
            BurnIn::Iterations(n) => Ok(n),
            BurnIn::Fraction(f) if (0.0..1.0).contains(&f) => {
                Ok((f * iterations as f64).floor() as u64)
            }
            BurnIn::Fraction(f) => Err(format!(
                "run.burn_in: {f} is out of range: allowed values are an integer number of \
                 iterations, or a fraction 0 ≤ x < 1 of run.iterations"
            )),
        }
    }
}

/// Merge the profile's `until` over the file's and check it against the run. `None` when neither
/// has one. Errors point at the offending key.
pub(super) fn resolve(
    ctx: &Ctx<'_>,
    ef: &ExperimentFile,
    prof: &Profile,
    pp: &str,
    run: &RunSpec,
    chains: u64,
    has_sbc: bool,
) -> Result<Option<Criterion>, ExperimentError> {
    if ef.until.is_none() && prof.until.is_none() {
        return Ok(None);
    }
    let written = (prof.until.is_some(), ef.until.is_some());
    let at = |key: &str| super::checks::block_key_path(ctx, pp, "until", written, key);
    if has_sbc {
        let block = format!("{pp}.until");
        let block = if ctx.pos.get(&block).is_some() {
            block
        } else {
            "until".into()
        };
        return Err(ctx.err_at(
            &block,
            "until: cannot be combined with sbc: (an SBC chain's length is fixed by its ranks)",
        ));
    }
    let base = ef.until.clone().unwrap_or_default();
    let over = prof.until.clone().unwrap_or_default();
    let c = Criterion {
        rhat: over.rhat.or(base.rhat).unwrap_or(1.01),
        ess_bulk: over.ess_bulk.or(base.ess_bulk).unwrap_or(400.0),
        ess_tail: over.ess_tail.or(base.ess_tail).unwrap_or(400.0),
        max_iterations: over
            .max_iterations
            .or(base.max_iterations)
            .unwrap_or(run.iterations),
        max_chains: over.max_chains.or(base.max_chains).unwrap_or(chains),
    };
    if !(c.rhat > 1.0 && c.rhat.is_finite()) {
        return Err(ctx.err_at(
            &at("rhat"),
            format!("until.rhat: {} is out of range: allowed values are 1 < x (R-hat is ≥ 1; 1.01 is usual)", c.rhat),
        ));
    }
    for (key, v) in [("ess_bulk", c.ess_bulk), ("ess_tail", c.ess_tail)] {
        if !(v >= 1.0 && v.is_finite()) {
            return Err(ctx.err_at(
                &at(key),
                format!(
                    "until.{key}: {v} is out of range: allowed values are x ≥ 1 (400 is usual)"
                ),
            ));
        }
    }
    if c.max_iterations < run.iterations {
        return Err(ctx.err_at(
            &at("max_iterations"),
            format!(
                "until.max_iterations ({}) must be at least run.iterations ({})",
                c.max_iterations, run.iterations
            ),
        ));
    }
    if c.max_iterations / run.thin > MAX_TRACE_ROWS {
        return Err(ctx.err_at(
            &at("max_iterations"),
            format!(
                "until.max_iterations / run.thin = {} trace rows per chain is more than \
                 {MAX_TRACE_ROWS}: raise run.thin",
                c.max_iterations / run.thin
            ),
        ));
    }
    if c.max_chains < chains {
        return Err(ctx.err_at(
            &at("max_chains"),
            format!(
                "until.max_chains ({}) must be at least chains ({chains})",
                c.max_chains
            ),
        ));
    }
    Ok(Some(c))
}
