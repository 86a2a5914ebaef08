//! A chain's rows checked against its plan before anything adopts them: a stored or received
//! checkpoint, and a finished chain's joined result. The driver (`causeway_papers::drive_chain`)
//! records a row at every iteration that is a multiple of `thin`, so a chain stopped after
//! iteration `t` holds exactly the rows `thin, 2·thin, …, ⌊t / thin⌋·thin`, each with one value
//! per traced scalar, per statistic and one timing.

use causeway_papers::RunSpec;
use causeway_proto::v1::{ChainCheckpoint, ChainResult};

/// Why rows of the given lengths are not exactly the rows of a chain with `thin` stopped after
/// iteration `upto` (`None` if they are). `trace_width` / `stats_width`: values per row where
/// known; `None` accepts any whole number per row (a checkpoint does not carry the names).
fn rows_defect(
    iterations: &[u64],
    (trace_len, trace_width): (usize, Option<usize>),
    (stats_len, stats_width): (usize, Option<usize>),
    elapsed_len: usize,
    upto: u64,
    thin: u64,
) -> Option<String> {
    let thin = thin.max(1);
    let n = (upto / thin) as usize;
    if iterations.len() != n {
        return Some(format!(
            "{} rows where iteration {upto} with thin {thin} has {n}",
            iterations.len()
        ));
    }
    if let Some((k, it)) = iterations
        .iter()
        .enumerate()
        .find(|&(k, &it)| it != (k as u64 + 1) * thin)
    {
        return Some(format!(
            "row {} is iteration {it}, not {}",
            k + 1,
            (k as u64 + 1) * thin
        ));
    }
    if elapsed_len != n {
        return Some(format!("{elapsed_len} timings for {n} rows"));
    }
    for (what, len, width) in [
        ("trace", trace_len, trace_width),
        ("sample_stats", stats_len, stats_width),
    ] {
        let whole = match width {
            Some(w) => len == n * w,
            None if n == 0 => len == 0,
            None => len % n == 0,
        };
        if !whole {
            return Some(format!("{len} {what} values do not fill {n} rows"));
        }
    }
    None
}

/// Why `c` cannot be a checkpoint of a chain run as `spec` (`None` if it can): its iteration
/// past the chain's end, or its rows not exactly those up to its iteration.
pub(super) fn checkpoint_defect(c: &ChainCheckpoint, spec: &RunSpec) -> Option<String> {
    if c.iteration > spec.iterations {
        return Some(format!(
            "iteration {} of a {}-iteration chain",
            c.iteration, spec.iterations
        ));
    }
    rows_defect(
        &c.iterations,
        (c.trace.len(), None),
        (c.stats.len(), None),
        c.elapsed_seconds.len(),
        c.iteration,
        spec.thin,
    )
}

/// Why `r` (ok, its rows joined since iteration 1) is not a whole chain run as `spec`.
pub(super) fn result_defect(r: &ChainResult, spec: &RunSpec) -> Option<String> {
    rows_defect(
        &r.iterations,
        (r.trace.len(), Some(r.trace_names.len())),
        (r.stats.len(), Some(r.stat_names.len())),
        r.elapsed_seconds.len(),
        spec.iterations,
        spec.thin,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> RunSpec {
        RunSpec {
            iterations: 100,
            burn_in: 20,
            thin: 10,
        }
    }

    fn checkpoint(iteration: u64) -> ChainCheckpoint {
        let iterations: Vec<u64> = (1..=iteration / 10).map(|k| k * 10).collect();
        let n = iterations.len();
        ChainCheckpoint {
            iteration,
            iterations,
            trace: vec![0.5; 2 * n],
            stats: vec![1.0; n],
            elapsed_seconds: vec![0.1; n],
            ..Default::default()
        }
    }

    #[test]
    fn whole_checkpoints_pass_and_every_inconsistency_is_named() {
        for it in [0, 9, 10, 55, 100] {
            assert_eq!(checkpoint_defect(&checkpoint(it), &spec()), None, "{it}");
        }
        let mut c = checkpoint(55);
        c.iterations.remove(2);
        c.trace.truncate(8);
        c.stats.truncate(4);
        c.elapsed_seconds.truncate(4);
        assert!(checkpoint_defect(&c, &spec()).is_some(), "a dropped row");
        let mut c = checkpoint(55);
        c.iteration += 7;
        assert!(
            checkpoint_defect(&c, &spec()).is_some(),
            "iteration advanced"
        );
        let mut c = checkpoint(55);
        c.iteration -= 7;
        assert!(
            checkpoint_defect(&c, &spec()).is_some(),
            "iteration moved back"
        );
        let mut c = checkpoint(55);
        c.iterations[1] = 30;
        assert!(
            checkpoint_defect(&c, &spec()).is_some(),
            "a duplicated iteration"
        );
        let mut c = checkpoint(55);
        c.trace.pop();
        assert!(checkpoint_defect(&c, &spec()).is_some(), "a missing value");
        let mut c = checkpoint(55);
        c.elapsed_seconds.pop();
        assert!(checkpoint_defect(&c, &spec()).is_some(), "a missing timing");
        assert!(
            checkpoint_defect(&checkpoint(110), &spec()).is_some(),
            "past the end"
        );
    }

    #[test]
    fn a_result_must_hold_every_row_with_its_declared_width() {
        let c = checkpoint(100);
        let mut r = ChainResult {
            ok: true,
            trace_names: vec!["a".into(), "b".into()],
            stat_names: vec!["s".into()],
            iterations: c.iterations,
            trace: c.trace,
            stats: c.stats,
            elapsed_seconds: c.elapsed_seconds,
            ..Default::default()
        };
        assert_eq!(result_defect(&r, &spec()), None);
        r.trace_names.push("c".into());
        assert!(result_defect(&r, &spec()).is_some());
        r.trace_names.pop();
        r.iterations.pop();
        assert!(result_defect(&r, &spec()).is_some());
    }
}
