//! `prior_moments`: §6's prior check for `004_74db43a26dbf0fa1.txt`: with no data
//! (dataset `none`), the structure statistics of the MCMC of §4 and of independent forward draws
//! against their exact prior values (`evaluation::prior_moments`).

use causeway_papers::dallaire2014::evaluation::prior_moments::exact_prior_moments;
use polars::prelude::*;

use super::dataset_of;
use crate::diagnostics;
use crate::report::{CellConvergence, Convergence, ReportError, Table, json_text};
use crate::rundir::chain_draws_of;
use crate::rundir::{CellRecord, Manifest, RunDir};

/// The statistics, in column order.
const STATS: [&str; 7] = [
    "n_units",
    "n_edges",
    "n_jump_edges",
    "depth",
    "p_no_hidden",
    "p_depth_ge_3",
    "p_no_jump",
];

/// The trace scalars the statistics are computed from, read once per chain.
const SCALARS: [&str; 4] = ["n_units", "n_edges", "n_jump_edges", "depth"];

/// A statistic of the table: the index in [`SCALARS`] of the trace scalar it is computed from,
/// the function of each draw, and its exact value (None when it has no closed form).
type Statistic = (usize, Box<dyn Fn(f64) -> f64>, Option<f64>);

fn param_f64(c: &CellRecord, key: &str) -> f64 {
    c.param(key)
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(1.0)
}

/// Mean and standard error of `f(draw)` over a cell's post-burn-in draws (M chains): se =
/// sd/√ESS_bulk over the chains (mcmc) or sd/√draws (forward: independent draws).
fn mean_se(draws: &[Vec<f64>], f: impl Fn(f64) -> f64, independent: bool) -> (f64, f64) {
    let chains: Vec<Vec<f64>> = draws
        .iter()
        .map(|ch| ch.iter().map(|&x| f(x)).collect())
        .collect();
    let all: Vec<f64> = chains.iter().flatten().copied().collect();
    let (mean, sd) = causeway_papers::metrics::mean_sd(&all);
    let n = all.len() as f64;
    let ess = if independent {
        n
    } else {
        let len = chains.iter().map(Vec::len).min().unwrap_or(0);
        let views: Vec<&[f64]> = chains.iter().map(|ch| &ch[..len]).collect();
        diagnostics::diagnose(&views).map_or(f64::NAN, |d| d.ess_bulk)
    };
    // A statistic that never varied (p_no_jump of the CIBP) has se 0.
    let se = if sd == 0.0 { 0.0 } else { sd / ess.sqrt() };
    (mean, se)
}

/// |z| beyond which a sampled moment is called inconsistent with its exact value: with 7
/// statistics × 12 settings, |z| > 4 happens by chance about once in 200 such tables.
const Z_MAX: f64 = 4.0;

/// Whether a cell's standard errors can be trusted: `ok`, or ⚠ with the reason. For MCMC cells,
/// a monitored scalar that the run's convergence table flags (`conv`: R-hat > 1.01, bulk ESS <
/// 400, or no chain moved) makes the se meaningless; for every cell, a moment more than
/// [`Z_MAX`] se from its exact value shows that the se misses part of the error (the heavy
/// tail of the eCIBP's prior is reached only by long chains, see the paper's page).
fn trust(conv: &[(String, CellConvergence)], independent: bool, worst_z: (f64, &str)) -> String {
    let mut why = Vec::new();
    if !independent {
        for (name, c) in conv {
            if c.flagged() {
                why.push(format!("{name} {}", c.reason()));
            }
        }
    }
    let (z, stat) = worst_z;
    if z.abs() > Z_MAX {
        why.push(format!("{stat} z {z:+.1} against the exact value"));
    }
    if why.is_empty() {
        "ok".into()
    } else {
        format!("⚠ {}: se not trustworthy at this length", why.join("; "))
    }
}

/// One row per cell on dataset `none`: `prior, method, d, alpha, beta, beta_prime`, then
/// `<s>_mean, <s>_se, <s>_exact` for each statistic (n_units, n_edges, n_jump_edges, depth,
/// p_no_hidden = P(n_units = d), p_depth_ge_3, p_no_jump = P(n_jump_edges = 0)), and
/// `se_trusted` ([`trust`]). p_no_jump has no closed form for the eCIBP: its `_exact` is empty
/// there (1 for the CIBP).
///
/// Errors: unreadable chains; a cell whose exact moments cannot be computed; polars.
pub fn prior_moments(rd: &RunDir, m: &Manifest, conv: &Convergence) -> Result<Table, ReportError> {
    let mut text: [Vec<String>; 2] = [Vec::new(), Vec::new()];
    let mut keys: [Vec<f64>; 4] = Default::default();
    let mut cols: Vec<[Vec<Option<f64>>; 3]> =
        (0..STATS.len()).map(|_| Default::default()).collect();
    let mut trusted: Vec<String> = Vec::new();
    for c in m.cells.iter() {
        if dataset_of(c) != "none" {
            continue;
        }
        let draws = chain_draws_of(rd, m, c.index, 0, &SCALARS)?;
        if draws[0].iter().all(Vec::is_empty) {
            continue;
        }
        let d = c
            .dataset
            .get("d")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(1) as usize;
        let (alpha, beta, beta_prime) = (
            param_f64(c, "alpha"),
            param_f64(c, "beta"),
            param_f64(c, "beta_prime"),
        );
        let prior = method_of_prior(c);
        let method = c
            .param("method")
            .map(json_text)
            .unwrap_or_else(|| "mcmc".into());
        let exact = exact_prior_moments(d, alpha, beta, prior == "ecibp").map_err(|e| {
            ReportError::Other(format!("dallaire2014.prior_moments: cell {}: {e}", c.index))
        })?;
        let independent = method == "forward";
        let dd = d as f64;
        let stats: [Statistic; 7] = [
            (0, Box::new(|x| x), Some(exact.n_units)),
            (1, Box::new(|x| x), Some(exact.n_edges)),
            (2, Box::new(|x| x), Some(exact.n_jump_edges)),
            (3, Box::new(|x| x), Some(exact.depth)),
            (
                0,
                Box::new(move |x| f64::from(u8::from(x == dd))),
                Some(exact.p_no_hidden),
            ),
            (
                3,
                Box::new(|x| f64::from(u8::from(x >= 3.0))),
                Some(exact.p_depth_ge_3),
            ),
            (
                2,
                Box::new(|x| f64::from(u8::from(x == 0.0))),
                exact.p_no_jump,
            ),
        ];
        let mut worst_z = (0.0f64, "");
        for (i, (scalar, f, ex)) in stats.into_iter().enumerate() {
            let (mean, se) = mean_se(&draws[scalar], f, independent);
            if let Some(e) = ex
                && (se > 0.0 || (mean - e).abs() > 1e-9 * e.abs().max(1.0))
            {
                // se 0 (one value throughout) away from the exact value: an infinite z.
                let z = (mean - e) / se;
                if z.abs() > worst_z.0.abs() {
                    worst_z = (z, STATS[i]);
                }
            }
            cols[i][0].push(Some(mean));
            cols[i][1].push(Some(se));
            cols[i][2].push(ex);
        }
        let cell_conv = conv.get(&c.index).map_or(&[][..], Vec::as_slice);
        trusted.push(trust(cell_conv, independent, worst_z));
        text[0].push(prior);
        text[1].push(method);
        for (k, v) in keys.iter_mut().zip([dd, alpha, beta, beta_prime]) {
            k.push(v);
        }
    }
    let mut columns: Vec<Column> = vec![
        Series::new("prior".into(), &text[0]).into(),
        Series::new("method".into(), &text[1]).into(),
        Series::new("d".into(), &keys[0]).into(),
        Series::new("alpha".into(), &keys[1]).into(),
        Series::new("beta".into(), &keys[2]).into(),
        Series::new("beta_prime".into(), &keys[3]).into(),
    ];
    for (s, c) in STATS.iter().zip(&cols) {
        for (suffix, v) in ["mean", "se", "exact"].iter().zip(c) {
            columns.push(Series::new(format!("{s}_{suffix}").into(), v).into());
        }
    }
    columns.push(Series::new("se_trusted".into(), &trusted).into());
    Ok(Table {
        name: "prior_moments".into(),
        title: "§6: the structure prior, sampled (MCMC with no data, forward draws) and exact".into(),
        df: DataFrame::new_infer_height(columns)?,
        notes: vec![
            "Exact values: K(m) | K(m-1) ~ Poisson(α H(K(m-1))), H(K) = Σ_{j≤K} β/(β+j−1), propagated on a \
             truncated support (causeway_papers::dallaire2014::evaluation::prior_moments). n_edges counts adjacent \
             and jump edges; depth counts layer 0. _se is sd/√ESS_bulk (mcmc) or sd/√draws (forward). p_no_jump \
             has no closed form for the eCIBP (empty _exact); it is the only statistic that depends on β′."
                .into(),
            format!(
                "se_trusted: ⚠ where an MCMC cell's chains have not mixed (the convergence table's flag: \
                 R-hat > {}, bulk ESS < {} or no chain moved, on a monitored scalar), or where a moment lies more \
                 than {Z_MAX} se from its exact value: the se then understates the error (the eCIBP's \
                 heavy-tailed prior is reached only by long chains).",
                crate::report::RHAT_MAX,
                crate::report::ESS_BULK_MIN
            ),
        ],
    })
}

/// `params.prior` (`ecibp` by default).
fn method_of_prior(c: &CellRecord) -> String {
    c.param("prior")
        .map(json_text)
        .unwrap_or_else(|| "ecibp".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(rhat: f64, ess_bulk: f64) -> CellConvergence {
        CellConvergence {
            rhat,
            ess_bulk,
            ess_tail: ess_bulk,
            ..CellConvergence::unknown()
        }
    }

    #[test]
    fn dallaire2014_prior_trust_flags_unmixed_chains_and_far_moments() {
        let mixed = vec![
            ("n_units".to_string(), judged(1.001, 2000.0)),
            ("depth".to_string(), judged(1.002, 1500.0)),
        ];
        assert_eq!(trust(&mixed, false, (1.2, "n_units")), "ok");
        // The same chains, a moment 8 se from its exact value: the se misses something.
        let far = trust(&mixed, false, (-8.0, "n_units"));
        assert!(
            far.starts_with('⚠') && far.contains("n_units z -8.0"),
            "{far}"
        );
        // A scalar the convergence table flags.
        let split = vec![
            ("n_units".to_string(), judged(1.3, 40.0)),
            ("depth".to_string(), judged(1.002, 1500.0)),
        ];
        let t = trust(&split, false, (0.0, ""));
        assert!(
            t.starts_with('⚠') && t.contains("n_units R-hat 1.300"),
            "{t}"
        );
        // Chains that never moved are flagged too.
        let stuck = vec![(
            "n_units".to_string(),
            CellConvergence {
                stuck: true,
                ..judged(f64::NAN, f64::NAN)
            },
        )];
        assert!(trust(&stuck, false, (0.0, "")).contains("no chain moved"));
        // Forward draws are independent: no mixing judgement, only the distance to the exact.
        assert_eq!(trust(&split, true, (0.5, "depth")), "ok");
        assert!(trust(&split, true, (5.0, "depth")).starts_with('⚠'));
    }
}
