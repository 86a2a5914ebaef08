//! Score-based structure search: bnlearn's `hc` and `tabu` with their defaults (score BIC, start
//! from the empty graph, tabu list of 10 graphs, 10 moves without improvement), the baselines of
//! Figure 5 (paper `002_d97ecc788b964f97.txt`, §6).
//!
//! A move adds, deletes or reverses one arc, keeping the graph acyclic and off the blacklist. Node
//! scores are cached by (node, parent set), so a move costs at most two new node scores.
//!
//! Ties between moves with the same score change go to the first in the order add, delete,
//! reverse, each over (from, to) in column order; bnlearn's order on exact ties may differ.

use std::collections::HashMap;

use super::scores::{Score, table_score};
use super::{EvalError, Levels, level_counts};
use crate::hidden2025::datasets::DiscreteData;

/// The settings of [`hill_climbing`] and [`tabu_search`] (bnlearn's defaults by [`Default`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchConfig {
    /// The network score (bnlearn's default for discrete data: BIC).
    pub score: Score,
    /// The level rule for r and q (see [`super::Levels`]).
    pub levels: Levels,
    /// Forbidden arcs (from, to), column indices.
    pub blacklist: Vec<(usize, usize)>,
    /// The most moves (bnlearn's `max.iter`, default unlimited).
    pub max_iter: usize,
    /// Smallest score change that counts as an improvement (nats); bnlearn compares against a
    /// machine tolerance, here √ε ≈ 1.5e-8.
    pub tolerance: f64,
    /// TABU: the number of most recent graphs that may not be revisited (bnlearn `tabu = 10`).
    pub tabu_length: usize,
    /// TABU: moves allowed without improving the best score (bnlearn `max.tabu = 10`).
    pub max_tabu: usize,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            score: Score::Bic,
            levels: Levels::Declared,
            blacklist: Vec::new(),
            max_iter: usize::MAX,
            tolerance: f64::EPSILON.sqrt(),
            tabu_length: 10,
            max_tabu: 10,
        }
    }
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// The learned DAG, `parents[j]` ascending.
    pub parents: Vec<Vec<usize>>,
    /// Its score (nats, the sum of its node scores).
    pub score: f64,
    /// Moves made.
    pub iterations: usize,
    /// Node scores computed (cache misses).
    pub n_score_evaluations: usize,
}

/// The node-score cache of one search.
struct Scorer<'a> {
    data: &'a DiscreteData,
    score: Score,
    levels: Levels,
    cache: HashMap<(usize, Vec<usize>), f64>,
}

impl<'a> Scorer<'a> {
    /// A scorer with an empty cache, after [`check_config`].
    fn new(data: &'a DiscreteData, config: &SearchConfig) -> Result<Self, EvalError> {
        check_config(data, config)?;
        Ok(Scorer {
            data,
            score: config.score.clone(),
            levels: config.levels,
            cache: HashMap::new(),
        })
    }

    /// The score of `child` with `parents` (sorted), from the cache when possible.
    fn get(&mut self, child: usize, parents: &[usize]) -> Result<f64, EvalError> {
        if let Some(&s) = self.cache.get(&(child, parents.to_vec())) {
            return Ok(s);
        }
        let levels = level_counts(self.data, child, parents, self.levels)?;
        let s = table_score(
            &self.data.table(child, parents),
            &self.score,
            levels,
            self.data.n(),
        )?;
        self.cache.insert((child, parents.to_vec()), s);
        Ok(s)
    }
}

/// Is there a directed path from `a` to `b` (arcs parent → child), ignoring the arc `skip`?
fn reachable(parents: &[Vec<usize>], a: usize, b: usize, skip: Option<(usize, usize)>) -> bool {
    // Walk backwards from b along parent lists looking for a.
    let mut seen = vec![false; parents.len()];
    let mut stack = vec![b];
    seen[b] = true;
    while let Some(v) = stack.pop() {
        for &u in &parents[v] {
            if skip == Some((u, v)) || seen[u] {
                continue;
            }
            if u == a {
                return true;
            }
            seen[u] = true;
            stack.push(u);
        }
    }
    false
}

fn with(pa: &[usize], add: usize) -> Vec<usize> {
    let mut v = pa.to_vec();
    v.push(add);
    v.sort_unstable();
    v
}

fn without(pa: &[usize], drop: usize) -> Vec<usize> {
    pa.iter().copied().filter(|&v| v != drop).collect()
}

#[derive(Debug, Clone, Copy)]
enum Move {
    Add(usize, usize),
    Delete(usize, usize),
    Reverse(usize, usize),
}

/// Every legal move from `parents` with its score change, in the tie-breaking order.
fn moves(
    parents: &[Vec<usize>],
    scorer: &mut Scorer,
    blacklist: &[(usize, usize)],
) -> Result<Vec<(Move, f64)>, EvalError> {
    let p = parents.len();
    let mut out = Vec::new();
    for pass in 0..3 {
        for from in 0..p {
            for to in 0..p {
                if from == to {
                    continue;
                }
                let has = parents[to].contains(&from);
                let pa_to = &parents[to];
                match pass {
                    0 if !has
                        && !parents[from].contains(&to)
                        && !blacklist.contains(&(from, to))
                        && !reachable(parents, to, from, None) =>
                    {
                        let d = scorer.get(to, &with(pa_to, from))? - scorer.get(to, pa_to)?;
                        out.push((Move::Add(from, to), d));
                    }
                    1 if has => {
                        let d = scorer.get(to, &without(pa_to, from))? - scorer.get(to, pa_to)?;
                        out.push((Move::Delete(from, to), d));
                    }
                    2 if has
                        && !blacklist.contains(&(to, from))
                        && !reachable(parents, from, to, Some((from, to))) =>
                    {
                        let pa_from = &parents[from];
                        let d = scorer.get(to, &without(pa_to, from))? - scorer.get(to, pa_to)?
                            + scorer.get(from, &with(pa_from, to))?
                            - scorer.get(from, pa_from)?;
                        out.push((Move::Reverse(from, to), d));
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(out)
}

fn apply(parents: &mut [Vec<usize>], m: Move) {
    match m {
        Move::Add(f, t) => parents[t] = with(&parents[t], f),
        Move::Delete(f, t) => parents[t] = without(&parents[t], f),
        Move::Reverse(f, t) => {
            parents[t] = without(&parents[t], f);
            parents[f] = with(&parents[f], t);
        }
    }
}

fn check_config(data: &DiscreteData, config: &SearchConfig) -> Result<(), EvalError> {
    config.score.check()?;
    for &(f, t) in &config.blacklist {
        if f >= data.p() || t >= data.p() {
            return Err(EvalError::UnknownNode(format!(
                "#{} in the blacklist (the data has {} columns)",
                f.max(t),
                data.p()
            )));
        }
    }
    if config.tolerance.is_nan() || config.tolerance < 0.0 {
        return Err(EvalError::Invalid(format!(
            "tolerance = {}: must be ≥ 0",
            config.tolerance
        )));
    }
    Ok(())
}

fn total(parents: &[Vec<usize>], scorer: &mut Scorer) -> Result<f64, EvalError> {
    let mut s = 0.0;
    for (j, pa) in parents.iter().enumerate() {
        s += scorer.get(j, pa)?;
    }
    Ok(s)
}

/// Hill climbing (bnlearn `hc`): from the empty graph on all columns of `data`, repeatedly apply
/// the legal move with the largest score increase while that increase exceeds
/// `config.tolerance`. Errors: a bad score hyperparameter, a blacklist index ≥ p.
pub fn hill_climbing(
    data: &DiscreteData,
    config: &SearchConfig,
) -> Result<SearchResult, EvalError> {
    let mut scorer = Scorer::new(data, config)?;
    let mut parents = vec![Vec::new(); data.p()];
    let mut iterations = 0;
    while iterations < config.max_iter {
        let best = moves(&parents, &mut scorer, &config.blacklist)?
            .into_iter()
            .fold(None, |b: Option<(Move, f64)>, (m, d)| match b {
                Some((_, bd)) if bd >= d => b,
                _ => Some((m, d)),
            });
        match best {
            Some((m, d)) if d > config.tolerance => apply(&mut parents, m),
            _ => break,
        }
        iterations += 1;
    }
    let score = total(&parents, &mut scorer)?;
    Ok(SearchResult {
        parents,
        score,
        iterations,
        n_score_evaluations: scorer.cache.len(),
    })
}

/// TABU search (bnlearn `tabu`): from the empty graph, apply the best legal move whose resulting
/// graph is not among the last `config.tabu_length` graphs visited (the start included), improving
/// or not; stop after `config.max_tabu` consecutive moves that do not improve the best score by
/// more than `config.tolerance`, when no move is left, or after `config.max_iter` moves. Returns
/// the best graph visited. Errors: as [`hill_climbing`].
pub fn tabu_search(data: &DiscreteData, config: &SearchConfig) -> Result<SearchResult, EvalError> {
    let mut scorer = Scorer::new(data, config)?;
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); data.p()];
    let mut current = total(&parents, &mut scorer)?;
    let (mut best, mut best_score) = (parents.clone(), current);
    let mut tabu: std::collections::VecDeque<Vec<Vec<usize>>> = std::collections::VecDeque::new();
    tabu.push_back(parents.clone());
    let (mut iterations, mut loss) = (0, 0);
    while iterations < config.max_iter {
        let mut chosen: Option<(Vec<Vec<usize>>, f64)> = None;
        for (m, d) in moves(&parents, &mut scorer, &config.blacklist)? {
            if chosen.as_ref().is_some_and(|(_, cd)| *cd >= d) {
                continue;
            }
            let mut next = parents.clone();
            apply(&mut next, m);
            if !tabu.contains(&next) {
                chosen = Some((next, d));
            }
        }
        let Some((next, d)) = chosen else { break };
        parents = next;
        current += d;
        iterations += 1;
        tabu.push_back(parents.clone());
        while tabu.len() > config.tabu_length.max(1) {
            tabu.pop_front();
        }
        if current > best_score + config.tolerance {
            best = parents.clone();
            best_score = current;
            loss = 0;
        } else {
            loss += 1;
            if loss >= config.max_tabu {
                break;
            }
        }
    }
    let score = total(&best, &mut scorer)?;
    Ok(SearchResult {
        parents: best,
        score,
        iterations,
        n_score_evaluations: scorer.cache.len(),
    })
}

/// The columns `keep` of `data`, in that order (to search over an outcome and its candidates, as
/// the METABRIC runs do). Errors: an index ≥ p.
pub fn select_columns(data: &DiscreteData, keep: &[usize]) -> Result<DiscreteData, EvalError> {
    if let Some(&j) = keep.iter().find(|&&j| j >= data.p()) {
        return Err(EvalError::UnknownNode(format!(
            "#{j} (the data has {} columns)",
            data.p()
        )));
    }
    DiscreteData::new(
        keep.iter().map(|&j| data.names[j].clone()).collect(),
        keep.iter().map(|&j| data.levels[j].clone()).collect(),
        keep.iter().map(|&j| data.columns[j].clone()).collect(),
    )
    .map_err(EvalError::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reachability_and_moves() {
        // 0 → 1 → 2.
        let pa = vec![vec![], vec![0], vec![1]];
        assert!(reachable(&pa, 0, 2, None));
        assert!(!reachable(&pa, 2, 0, None));
        assert!(!reachable(&pa, 0, 1, Some((0, 1))));
        let mut g = pa.clone();
        apply(&mut g, Move::Reverse(1, 2));
        assert_eq!(g, vec![vec![], vec![0, 2], vec![]]);
    }
}
