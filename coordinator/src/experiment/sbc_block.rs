//! The `sbc:` block: simulation-based calibration as a grid.
//!
//! ```yaml
//! sbc: {simulations: 1000, draws: 100, thin: auto}
//! ```
//! - `simulations` (≥ 1): S, the simulations of every cell. Simulation s is the cell's replicate
//!   s: its θ̃ and data come from the dataset stream `(seed, dataset key, s)` and its chain from the
//!   chain stream `(chain seed, cell, s, 0)` (`causeway_papers::seed`), so adding simulations
//!   never changes the earlier ones. `replicates:` may not be given beside it; `chains` must be 1.
//! - `draws` (≥ 1): L, the posterior draws each true scalar is ranked among.
//! - `thin` (`auto` or ≥ 1): iterations between kept draws after burn-in. `auto`:
//!   `⌊(run.iterations − run.burn_in) / L⌋` (the draws spread evenly over the post-burn-in run;
//!   `causeway_papers::sbc::SbcSpec::auto_thin`). `draws × thin` must not exceed
//!   `run.iterations − run.burn_in`.
//!
//! A profile may override any of the three (`profiles.paper.sbc: {simulations: 1000}`). The
//! block puts `params.sbc: {draws, thin}` into every cell (part of the cell's key), makes the
//! cell's datasets its own (the prior is in `params`), and adds the `sbc` report.

use causeway_papers::RunSpec;
use causeway_papers::sbc::{SBC_KEY, SbcSpec};
use serde::Deserialize;
use yaml_serde::Value;

use super::{Ctx, ExperimentError, ExperimentFile, Profile};

/// The report kind an `sbc:` block adds (`results/src/report/sbc.rs`).
pub(super) const REPORT: &str = "sbc";

/// `sbc:` as written (every key optional in a profile's override).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SbcBlock {
    simulations: Option<u64>,
    draws: Option<u64>,
    thin: Option<Value>,
}

/// The resolved block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Sbc {
    pub simulations: u64,
    pub spec: SbcSpec,
}

/// Merge the profile's `sbc` over the file's, check it against the run, and resolve `thin:
/// auto`. `None` when neither has an `sbc:` block. Errors point at the offending key.
pub(super) fn resolve(
    ctx: &Ctx<'_>,
    ef: &ExperimentFile,
    prof: &Profile,
    pp: &str,
    run: &RunSpec,
    chains: u64,
) -> Result<Option<Sbc>, ExperimentError> {
    if ef.sbc.is_none() && prof.sbc.is_none() {
        return Ok(None);
    }
    // The YAML path of a key: the profile's when it writes it.
    let written = (prof.sbc.is_some(), ef.sbc.is_some());
    let at = |key: &str| super::checks::block_key_path(ctx, pp, "sbc", written, key);
    let base = ef.sbc.clone().unwrap_or_default();
    let over = prof.sbc.clone().unwrap_or_default();
    let simulations = over.simulations.or(base.simulations);
    let draws = over.draws.or(base.draws);
    let thin = over.thin.or(base.thin);
    let Some(simulations) = simulations.filter(|&s| s >= 1) else {
        return Err(ctx.err_at(
            &at("simulations"),
            "sbc.simulations must be given and at least 1",
        ));
    };
    let Some(draws) = draws.filter(|&d| d >= 1) else {
        return Err(ctx.err_at(&at("draws"), "sbc.draws must be given and at least 1"));
    };
    for key in ["replicates", &format!("{pp}.replicates")] {
        if ctx.pos.get(key).is_some() {
            return Err(ctx.err_at(
                key,
                "replicates cannot be given with sbc: each simulation is a replicate (set \
                 sbc.simulations)",
            ));
        }
    }
    if chains != 1 {
        let key = if ctx.pos.get(&format!("{pp}.chains")).is_some() {
            format!("{pp}.chains")
        } else {
            "chains".to_string()
        };
        return Err(ctx.err_at(
            &key,
            format!(
                "sbc ranks the draws of one chain per simulation: chains must be 1, not {chains}"
            ),
        ));
    }
    let post = run.iterations.saturating_sub(run.burn_in);
    let thin = match &thin {
        None => SbcSpec::auto_thin(run, draws),
        Some(Value::String(s)) if s == "auto" => SbcSpec::auto_thin(run, draws),
        Some(Value::Number(n)) if n.as_u64().is_some_and(|t| t >= 1) => n.as_u64().unwrap_or(1),
        Some(other) => {
            return Err(ctx.err_at(
                &at("thin"),
                format!(
                    "sbc.thin must be `auto` or an integer ≥ 1, not {}",
                    yaml_serde::to_string(other).unwrap_or_default().trim()
                ),
            ));
        }
    };
    let spec = SbcSpec { draws, thin };
    if spec.iterations_needed() > post {
        return Err(ctx.err_at(
            &at("draws"),
            format!(
                "sbc needs draws × thin = {draws} × {thin} = {} iterations after burn-in, but the \
                 run has run.iterations − run.burn_in = {post}: lengthen the run or lower sbc.draws",
                spec.iterations_needed()
            ),
        ));
    }
    Ok(Some(Sbc { simulations, spec }))
}

/// Refuse the `sbc` report kind in a profile without an `sbc:` block (its chains have no ranks).
pub(super) fn check_report(
    ctx: &Ctx<'_>,
    report: &[String],
    has_sbc: bool,
) -> Result<(), ExperimentError> {
    match report.iter().position(|r| r == REPORT) {
        Some(i) if !has_sbc => Err(ctx.err_at(
            &format!("report[{i}]"),
            format!("report: {REPORT:?} needs an sbc: block (in the file or the chosen profile)"),
        )),
        _ => Ok(()),
    }
}

/// Put `params.sbc: {draws, thin}` into a cell's (already validated) params.
pub(super) fn mark_cell(params: &mut serde_json::Value, sbc: Sbc) {
    if let Some(o) = params.as_object_mut() {
        o.insert(
            SBC_KEY.to_string(),
            serde_json::json!({"draws": sbc.spec.draws, "thin": sbc.spec.thin}),
        );
    }
}
