//! Markov-blanket estimates from Algorithm 2's draws (paper `002_d97ecc788b964f97.txt`, §4.3,
//! §4.4, §5.2 and C.2; Table 2, Figure 3), polars-free.
//!
//! **What is compared.** §4.4 runs Algorithm 2 with Ca(j) = [p] \ {j}: the sampled *parent set*
//! of j over the other p − 1 columns is read as j's Markov blanket. The authors' `lucas_blankets.R`
//! encodes the true Markov blanket (Table 5: parents, children and the children's other parents)
//! as a 0/1 vector over the other columns and reports the Hamming distance of the MAP indicator
//! vector to it; [`blanket_estimate`] and [`super::markov_blanket::hamming`] do the same.
//!
//! **Estimators (§4.3).**
//! - the MAP parent set: the set visited most often over the post-burn-in draws of *all* chains;
//!   ties go to the smaller set, then to the set that comes first in candidate order (the
//!   lexicographic order of its ascending candidate positions: {0, 5} before {1, 2});
//! - the median probability model: every candidate with posterior edge probability > 0.5;
//! - the edge probabilities: the fraction of draws with z_{j'j} = 1.
//!
//! Parent sets are handled as ascending *positions in the candidate list* (bit i of the
//! sampler's mask = candidate i = trace column `z_i`); [`to_columns`] maps them to data columns.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::EvalError;

/// The post-burn-in draws of Algorithm 2, reduced to the visited parent sets.
#[derive(Debug, Clone, PartialEq)]
pub struct ParentSetCounts {
    /// |Ca(j)|, the number of candidates.
    pub n_candidates: usize,
    /// Visited parent sets (ascending candidate positions) → number of draws, over all chains.
    pub counts: BTreeMap<Vec<usize>, u64>,
    /// Total number of draws (Σ counts).
    pub n_draws: u64,
}

/// Count the parent sets in the indicator draws of one or more chains. `chains[c][i][t]` is z_i
/// (candidate i) at post-burn-in draw t of chain c, as stored in the trace columns `z_0` …; a
/// value > 0.5 is an edge. Chains may differ in length; within a chain every candidate must have
/// the same number of draws. Errors: no chains, chains with different numbers of candidates,
/// ragged draws, a NaN indicator.
pub fn count_parent_sets(chains: &[Vec<Vec<f64>>]) -> Result<ParentSetCounts, EvalError> {
    let Some(first) = chains.first() else {
        return Err(EvalError::Invalid("no chains of edge indicators".into()));
    };
    let m = first.len();
    let mut counts: BTreeMap<Vec<usize>, u64> = BTreeMap::new();
    let mut n_draws = 0u64;
    for (c, chain) in chains.iter().enumerate() {
        if chain.len() != m {
            return Err(EvalError::Invalid(format!(
                "chain {c} has {} candidates, chain 0 has {m}",
                chain.len()
            )));
        }
        let t_len = chain.first().map_or(0, Vec::len);
        for (i, z) in chain.iter().enumerate() {
            if z.len() != t_len {
                return Err(EvalError::Invalid(format!(
                    "chain {c}: z_{i} has {} draws, z_0 has {t_len}",
                    z.len()
                )));
            }
        }
        for t in 0..t_len {
            let mut set = Vec::new();
            for (i, z) in chain.iter().enumerate() {
                let v = z[t];
                if v.is_nan() {
                    return Err(EvalError::Invalid(format!(
                        "chain {c}: z_{i} is NaN at draw {t}"
                    )));
                }
                if v > 0.5 {
                    set.push(i);
                }
            }
            *counts.entry(set).or_insert(0) += 1;
            n_draws += 1;
        }
    }
    Ok(ParentSetCounts {
        n_candidates: m,
        counts,
        n_draws,
    })
}

/// The order of parent sets of equal weight: the smaller set first, then the first in
/// candidate order (lexicographic over ascending positions).
pub fn tie_order(a: &[usize], b: &[usize]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// The heaviest of `sets` (weights: visit counts or posterior probabilities), ties broken by
/// [`tie_order`]; `None` when `sets` is empty or every weight is NaN.
pub fn map_set<'a, I>(sets: I) -> Option<Vec<usize>>
where
    I: IntoIterator<Item = (&'a [usize], f64)>,
{
    let mut best: Option<(&[usize], f64)> = None;
    for (set, w) in sets {
        if w.is_nan() {
            continue;
        }
        let better = match best {
            None => true,
            Some((bs, bw)) => w > bw || (w == bw && tie_order(set, bs) == Ordering::Less),
        };
        if better {
            best = Some((set, w));
        }
    }
    best.map(|(s, _)| s.to_vec())
}

/// Posterior edge probabilities from the counts: for each candidate i, the fraction of draws
/// whose parent set contains i (length |Ca|; NaN when there are no draws).
pub fn edge_probabilities(counts: &ParentSetCounts) -> Vec<f64> {
    let mut ones = vec![0u64; counts.n_candidates];
    for (set, &c) in &counts.counts {
        for &i in set {
            if let Some(o) = ones.get_mut(i) {
                *o += c;
            }
        }
    }
    let n = counts.n_draws as f64;
    ones.iter()
        .map(|&o| if n > 0.0 { o as f64 / n } else { f64::NAN })
        .collect()
}

/// The median probability model (Barbieri & Berger 2004; §4.3): the candidates whose edge
/// probability exceeds 0.5, ascending positions.
pub fn median_probability_model(probabilities: &[f64]) -> Vec<usize> {
    probabilities
        .iter()
        .enumerate()
        .filter(|(_, p)| **p > 0.5)
        .map(|(i, _)| i)
        .collect()
}

/// Algorithm 2's blanket estimates for one node.
#[derive(Debug, Clone, PartialEq)]
pub struct BlanketEstimate {
    /// The MAP parent set (candidate positions), see the module docs.
    pub map: Vec<usize>,
    /// Its share of the draws.
    pub map_frequency: f64,
    /// The median probability model (candidate positions).
    pub median: Vec<usize>,
    /// Edge probabilities, one per candidate.
    pub edge_probabilities: Vec<f64>,
    /// Each chain's own edge probabilities (chains × candidates; NaN for a chain without
    /// draws): the independent units of the estimate's Monte Carlo error.
    pub chain_edge_probabilities: Vec<Vec<f64>>,
    /// Draws over all chains.
    pub n_draws: u64,
    /// Distinct parent sets visited.
    pub n_sets: usize,
}

/// MAP set, median probability model and edge probabilities from the indicator draws of all
/// chains (`chains[c][i][t]`, see [`count_parent_sets`]). Errors: those of
/// [`count_parent_sets`], and no draws at all.
pub fn blanket_estimate(chains: &[Vec<Vec<f64>>]) -> Result<BlanketEstimate, EvalError> {
    let counts = count_parent_sets(chains)?;
    if counts.n_draws == 0 {
        return Err(EvalError::Invalid("no post-burn-in draws".into()));
    }
    let map = map_set(counts.counts.iter().map(|(s, &c)| (s.as_slice(), c as f64)))
        .ok_or_else(|| EvalError::Invalid("no parent set visited".into()))?;
    let map_frequency =
        counts.counts.get(&map).copied().unwrap_or(0) as f64 / counts.n_draws as f64;
    let edge_probabilities = edge_probabilities(&counts);
    let chain_edge_probabilities = chains
        .iter()
        .map(|c| {
            c.iter()
                .map(|z| {
                    if z.is_empty() {
                        f64::NAN
                    } else {
                        z.iter().filter(|&&v| v > 0.5).count() as f64 / z.len() as f64
                    }
                })
                .collect()
        })
        .collect();
    Ok(BlanketEstimate {
        chain_edge_probabilities,
        map,
        map_frequency,
        median: median_probability_model(&edge_probabilities),
        edge_probabilities,
        n_draws: counts.n_draws,
        n_sets: counts.counts.len(),
    })
}

/// Candidate positions → data columns (`candidates[i]`), ascending. Errors: a position outside
/// the candidate list.
pub fn to_columns(positions: &[usize], candidates: &[usize]) -> Result<Vec<usize>, EvalError> {
    let mut out = Vec::with_capacity(positions.len());
    for &i in positions {
        out.push(*candidates.get(i).ok_or_else(|| {
            EvalError::Invalid(format!(
                "candidate position {i} with {} candidates",
                candidates.len()
            ))
        })?);
    }
    out.sort_unstable();
    Ok(out)
}

/// Parent lists of a DAG from an edge-list CSV (header `parent,child`, then one edge per line;
/// blank lines skipped; surrounding spaces and double quotes trimmed) over the variables `names`
/// (`parents[j]` = the parents of `names[j]`, in file order). `source` names the file in errors.
/// Errors, naming the file and line: a bad header, a line without exactly two fields, a name that
/// is not a variable, a self-loop, a repeated edge.
pub fn parents_from_edge_csv(
    text: &str,
    source: &str,
    names: &[String],
) -> Result<Vec<Vec<usize>>, EvalError> {
    let mut parents = vec![Vec::new(); names.len()];
    let position: std::collections::HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    // A UTF-8 byte-order mark (spreadsheets write one) is not part of the header.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let field = |s: &str| s.trim().trim_matches('"').to_string();
    match lines.next() {
        Some((_, h)) => {
            let cols: Vec<String> = h.split(',').map(field).collect();
            if cols.len() != 2
                || !cols[0].eq_ignore_ascii_case("parent")
                || !cols[1].eq_ignore_ascii_case("child")
            {
                return Err(EvalError::Invalid(format!(
                    "{source}:1: the header must be `parent,child`, found `{h}`"
                )));
            }
        }
        None => return Err(EvalError::Invalid(format!("{source}: empty file"))),
    }
    for (ln, line) in lines {
        let line_no = ln + 1;
        let f: Vec<String> = line.split(',').map(field).collect();
        if f.len() != 2 {
            return Err(EvalError::Invalid(format!(
                "{source}:{line_no}: {} fields, expected 2 (parent,child)",
                f.len()
            )));
        }
        let index = |n: &str| {
            position.get(n).copied().ok_or_else(|| {
                EvalError::UnknownNode(format!(
                    "{n} ({source}:{line_no}; the variables are {})",
                    names.join(", ")
                ))
            })
        };
        let (p, c) = (index(&f[0])?, index(&f[1])?);
        if p == c {
            return Err(EvalError::SelfLoop(format!(
                "{} ({source}:{line_no})",
                f[0]
            )));
        }
        if parents[c].contains(&p) {
            return Err(EvalError::RepeatedArc {
                from: f[0].clone(),
                to: format!("{} ({source}:{line_no})", f[1]),
            });
        }
        parents[c].push(p);
    }
    Ok(parents)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draws as `chains[c][i][t]` from parent sets given per draw.
    fn chain(m: usize, sets: &[&[usize]]) -> Vec<Vec<f64>> {
        (0..m)
            .map(|i| {
                sets.iter()
                    .map(|s| if s.contains(&i) { 1.0 } else { 0.0 })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn map_pools_chains_and_breaks_ties() {
        // Chain 0 visits {1} twice, chain 1 visits {0, 2} twice and {1} once: {1} wins (3 vs 2).
        let c0 = chain(3, &[&[1], &[1], &[0, 2]]);
        let c1 = chain(3, &[&[0, 2], &[1]]);
        let e = blanket_estimate(&[c0, c1]).expect("estimate");
        assert_eq!(e.map, vec![1]);
        assert_eq!(e.n_draws, 5);
        assert_eq!(e.n_sets, 2);
        assert!((e.map_frequency - 0.6).abs() < 1e-15);
        assert_eq!(e.edge_probabilities, vec![0.4, 0.6, 0.4]);
        assert_eq!(
            e.chain_edge_probabilities,
            vec![vec![1.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0], vec![0.5, 0.5, 0.5]]
        );
        assert_eq!(e.median, vec![1]);
        // Ties: {0, 2} and {1} twice each → the smaller set {1}.
        let e = blanket_estimate(&[chain(3, &[&[0, 2], &[1], &[0, 2], &[1]])]).expect("estimate");
        assert_eq!(e.map, vec![1]);
        // Equal sizes: {0, 5} before {1, 2}.
        let e = blanket_estimate(&[chain(6, &[&[1, 2], &[0, 5]])]).expect("estimate");
        assert_eq!(e.map, vec![0, 5]);
        // Equal sizes: {0} before {1}; the empty set beats both.
        assert_eq!(
            map_set([(&[1usize][..], 1.0), (&[0usize][..], 1.0)]),
            Some(vec![0])
        );
        assert_eq!(
            map_set([(&[1usize][..], 1.0), (&[][..], 1.0)]),
            Some(vec![])
        );
    }

    #[test]
    fn bad_draws_are_refused() {
        assert!(count_parent_sets(&[]).is_err());
        assert!(count_parent_sets(&[chain(2, &[&[0]]), chain(3, &[&[0]])]).is_err());
        assert!(count_parent_sets(&[vec![vec![1.0, 0.0], vec![1.0]]]).is_err());
        assert!(count_parent_sets(&[vec![vec![f64::NAN]]]).is_err());
        assert!(blanket_estimate(&[vec![vec![], vec![]]]).is_err());
    }

    #[test]
    fn edge_csv_and_positions() {
        let names: Vec<String> = ["A", "B", "C"].iter().map(|s| s.to_string()).collect();
        let pa =
            parents_from_edge_csv("parent,child\nA,C\n\"B\", C\n", "e.csv", &names).expect("edges");
        assert_eq!(pa, vec![vec![], vec![], vec![0, 1]]);
        let e = parents_from_edge_csv("parent,child\nA,D\n", "e.csv", &names).unwrap_err();
        assert!(e.to_string().contains("e.csv:2"), "{e}");
        assert!(parents_from_edge_csv("from,to\n", "e.csv", &names).is_err());
        assert!(parents_from_edge_csv("parent,child\nA,A\n", "e.csv", &names).is_err());
        assert!(parents_from_edge_csv("parent,child\nA,B\nA,B\n", "e.csv", &names).is_err());
        assert!(parents_from_edge_csv("parent,child\nA\n", "e.csv", &names).is_err());
        // Candidates of C are [A, B] = columns [0, 1]; of A, [B, C] = [1, 2].
        assert_eq!(to_columns(&[1, 0], &[1, 2]), Ok(vec![1, 2]));
        assert!(to_columns(&[2], &[1, 2]).is_err());
    }

    /// lucas0_edges.csv through [`parents_from_edge_csv`] gives the paper's Table 5 blankets.
    #[test]
    fn lucas_edges_give_table5() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/lucas");
        let header = std::fs::read_to_string(dir.join("lucas0_train.csv")).expect("train csv");
        let names: Vec<String> = header
            .lines()
            .next()
            .expect("header")
            .split(',')
            .map(|s| s.trim().to_string())
            .collect();
        let text = std::fs::read_to_string(dir.join("lucas0_edges.csv")).expect("edges csv");
        let pa = parents_from_edge_csv(&text, "lucas0_edges.csv", &names).expect("edges");
        assert_eq!(pa.iter().map(Vec::len).sum::<usize>(), 12);
        let idx = |n: &str| names.iter().position(|x| x == n).expect("column");
        let table5: [(&str, &[&str]); 6] = [
            (
                "Smoking",
                &[
                    "Anxiety",
                    "Peer_Pressure",
                    "Yellow_Fingers",
                    "Lung_Cancer",
                    "Genetics",
                ],
            ),
            (
                "Genetics",
                &["Lung_Cancer", "Attention_Disorder", "Smoking"],
            ),
            (
                "Fatigue",
                &[
                    "Lung_Cancer",
                    "Coughing",
                    "Car_Accident",
                    "Attention_Disorder",
                ],
            ),
            ("Coughing", &["Allergy", "Lung_Cancer", "Fatigue"]),
            ("Allergy", &["Coughing", "Lung_Cancer"]),
            (
                "Lung_Cancer",
                &["Smoking", "Genetics", "Fatigue", "Coughing", "Allergy"],
            ),
        ];
        for (node, mb) in table5 {
            let mut want: Vec<usize> = mb.iter().map(|n| idx(n)).collect();
            want.sort_unstable();
            let got = super::super::markov_blanket::true_markov_blanket(&pa, idx(node));
            assert_eq!(got, want, "Mb({node})");
        }
    }
}
