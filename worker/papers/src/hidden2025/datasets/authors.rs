//! The authors' own simulated datasets for §5.1 / C.1 (Table 1), §5.3 / C.3 (Table 3) and
//! supplement E (Tables 7–8) of `002_d97ecc788b964f97.txt`: `dataset: {kind: sparse_counts |
//! two_dags | two_parent_sets, authors_seed: S}` reads the rows the authors' R scripts draw after
//! `set.seed(S)` instead of drawing new ones.
//!
//! The files (`hidden2025_authors/sparse_counts.csv`: `k_pa,seed,x,y`;
//! `hidden2025_authors/two_dags.csv`: `k1,seed,x1,x2,x3`;
//! `hidden2025_authors/two_parent_sets.csv`: `g_true,n,seed,x1,x2,x3`, the paper's G1/G2 names)
//! are written by `bench/hidden2025_authors/datasets.R` with R 4.2.2, which restates the
//! data-drawing lines of the authors' `r/parameter_learning_simulation.R`, `r/power_simulate.R`,
//! `r/g1_simulations.R` and `r/g2_simulations.R` (their Table 3 script reseeds R with the same
//! seed before each of its three draws; the others seed once). Codes are the authors' (`x1` in
//! 0..k1−1): code c gets the generators' label c + 1 for a multi-level variable and `0`/`1` for a
//! binary one, so a dataset read here has the same shape and labels as one drawn by
//! [`super::synthetic`]. Table 1's probabilities are fixed (2/3 and 1/3), so its datasets carry
//! the generator's truth; Tables 3 and 7–8 draw theirs, which are not stored: those datasets
//! have no `cpt:` or `adjacency` truth.
//!
//! The authors drew seeds 1..=50 at n = 100 and K_Pa ∈ {2, 3, 5, 10} (Table 1), 1..=100 at
//! n = 200 and k1 ∈ {5, 25, 100, 200} (Table 3), and 1..=100 at n ∈ {50, 75, 100, 150} with
//! k1 = 5, k2 = 3 for both true graphs (Tables 7–8); any other combination is refused by
//! [`check_sparse_counts`], [`check_two_dags`] or [`check_two_parent_sets`] when the YAML is
//! parsed, before a chain starts.

use std::path::Path;

use super::csv::{CsvRecords, read_records};
use super::synthetic::{
    LevelsMode, Synthetic, TrueCpt, TwoParentTruth, finish, labels, sparse_counts_truth,
};
use crate::params::ParamError;

/// Table 1's file, relative to the data directory.
pub const SPARSE_COUNTS_PATH: &str = "hidden2025_authors/sparse_counts.csv";
/// Table 1's K_Pa values (the authors' k_par = 1, 2, 4, 9, plus one) at n = 100.
pub const SPARSE_COUNTS_K_PA: [usize; 4] = [2, 3, 5, 10];
/// Table 3's file, relative to the data directory.
pub const TWO_DAGS_PATH: &str = "hidden2025_authors/two_dags.csv";
/// Tables 7–8's file, relative to the data directory.
pub const TWO_PARENT_SETS_PATH: &str = "hidden2025_authors/two_parent_sets.csv";
/// Table 3's k1 values (the authors' k = 4, 24, 99, 199, plus one) at n = 200.
pub const TWO_DAGS_K1: [usize; 4] = [5, 25, 100, 200];
/// Tables 7–8's sample sizes (k1 = 5, k2 = 3).
pub const TWO_PARENT_SETS_N: [usize; 4] = [50, 75, 100, 150];

fn refuse(key: &str, message: String) -> ParamError {
    ParamError::new(format!("dataset.{key}"), message)
}

/// Refuse what the authors did not draw: a seed outside 1..=`last`, or a key of `keys` (YAML
/// name, value, the values the authors drew) at another value; the message lists the allowed
/// values and names `table`.
fn check_drawn(
    table: &str,
    seed: u32,
    last: u32,
    keys: &[(&str, usize, &[usize])],
) -> Result<(), ParamError> {
    if !(1..=last).contains(&seed) {
        return Err(refuse(
            "authors_seed",
            format!("{seed}: the authors drew seeds 1 to {last}"),
        ));
    }
    for &(key, value, allowed) in keys {
        if !allowed.contains(&value) {
            let list: Vec<String> = allowed.iter().map(usize::to_string).collect();
            return Err(refuse(
                key,
                format!(
                    "{value}: the authors' {table} datasets (authors_seed) have {key} in {{{}}}",
                    list.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Refuse a Table 1 `authors_seed` outside what the authors drew: seed 1..=50, `n` = 100,
/// `k_pa` one of [`SPARSE_COUNTS_K_PA`].
pub fn check_sparse_counts(seed: u32, n: usize, k_pa: usize) -> Result<(), ParamError> {
    let keys: [(&str, usize, &[usize]); 2] =
        [("n", n, &[100]), ("k_pa", k_pa, &SPARSE_COUNTS_K_PA)];
    check_drawn("Table 1", seed, 50, &keys)
}

/// Refuse a Table 3 `authors_seed` outside what the authors drew: seed 1..=100, `n` = 200,
/// `k1` one of [`TWO_DAGS_K1`].
pub fn check_two_dags(seed: u32, n: usize, k1: usize) -> Result<(), ParamError> {
    let keys: [(&str, usize, &[usize]); 2] = [("n", n, &[200]), ("k1", k1, &TWO_DAGS_K1)];
    check_drawn("Table 3", seed, 100, &keys)
}

/// Refuse a Tables 7–8 `authors_seed` outside what the authors drew: seed 1..=100, `n` one of
/// [`TWO_PARENT_SETS_N`], `k1` = 5 and `k2` = 3.
pub fn check_two_parent_sets(seed: u32, n: usize, k1: usize, k2: usize) -> Result<(), ParamError> {
    let keys: [(&str, usize, &[usize]); 3] = [
        ("n", n, &TWO_PARENT_SETS_N),
        ("k1", k1, &[5]),
        ("k2", k2, &[3]),
    ];
    check_drawn("supplement E", seed, 100, &keys)
}

/// The rows of `records` whose `keys` columns hold the given values, as the codes of the
/// `vars` columns, each checked below its number of levels. Errors name the file and line.
fn select(
    records: &CsvRecords,
    keys: &[(&str, String)],
    vars: &[(&str, usize)],
) -> Result<Vec<Vec<u16>>, ParamError> {
    let file = &records.file;
    let column = |name: &str| {
        records
            .header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| refuse("authors_seed", format!("{file} has no column {name:?}")))
    };
    let key_cols: Vec<(usize, &str)> = keys
        .iter()
        .map(|(name, v)| column(name).map(|c| (c, v.as_str())))
        .collect::<Result<_, _>>()?;
    let x_cols: Vec<usize> = vars
        .iter()
        .map(|(name, _)| column(name))
        .collect::<Result<_, _>>()?;
    let mut cols: Vec<Vec<u16>> = vec![Vec::new(); vars.len()];
    for (line, fields) in &records.rows {
        if !key_cols.iter().all(|&(c, v)| fields[c].trim() == v) {
            continue;
        }
        for (j, &c) in x_cols.iter().enumerate() {
            let code = fields[c]
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&v| v < vars[j].1)
                .ok_or_else(|| {
                    refuse(
                        "authors_seed",
                        format!(
                            "{file}, line {line}: {} = {:?} is not a code 0..{}",
                            vars[j].0,
                            fields[c],
                            vars[j].1 - 1
                        ),
                    )
                })?;
            cols[j].push(code as u16);
        }
    }
    if cols[0].is_empty() {
        let wanted: Vec<String> = keys.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        return Err(refuse(
            "authors_seed",
            format!("{file} has no rows with {}", wanted.join(", ")),
        ));
    }
    Ok(cols)
}

fn checked_rows(cols: &[Vec<u16>], n: usize, file: &str, seed: u32) -> Result<(), ParamError> {
    if cols[0].len() == n {
        Ok(())
    } else {
        Err(refuse(
            "authors_seed",
            format!(
                "{file}: seed {seed} has {} rows, not n = {n}",
                cols[0].len()
            ),
        ))
    }
}

/// The rows of `file` (at `path`) matching `keys`, `n` of them, as the variables `vars` (name,
/// number of levels) with their `levels` labels and `truth`.
#[allow(clippy::too_many_arguments)]
fn read(
    path: &Path,
    file: &str,
    keys: &[(&str, String)],
    vars: &[(&str, usize)],
    n: usize,
    seed: u32,
    levels: Vec<Vec<String>>,
    truth: Vec<TrueCpt>,
    mode: LevelsMode,
) -> Result<Synthetic, ParamError> {
    let records = read_records(path, file)?;
    let cols = select(&records, keys, vars)?;
    checked_rows(&cols, n, file, seed)?;
    let names: Vec<&str> = vars.iter().map(|(name, _)| *name).collect();
    Ok(finish(&names, levels, cols, truth, mode))
}

/// Table 1's dataset drawn by the authors with `set.seed(seed)` at `k_pa` (n = 100), with the
/// generator's truth, from the CSV at `path` (`file` names it in messages). Errors: unreadable
/// or malformed file, no or too few rows for (k_pa, seed), a code outside its levels.
pub fn sparse_counts(
    path: &Path,
    file: &str,
    k_pa: usize,
    seed: u32,
    mode: LevelsMode,
) -> Result<Synthetic, ParamError> {
    let (lx, truth) = sparse_counts_truth(k_pa);
    let keys = [("k_pa", k_pa.to_string()), ("seed", seed.to_string())];
    let levels = vec![lx, labels(2, true)];
    read(
        path,
        file,
        &keys,
        &[("x", k_pa), ("y", 2)],
        100,
        seed,
        levels,
        truth,
        mode,
    )
}

/// Table 3's dataset drawn by the authors with `set.seed(seed)` at `k1` (n = 200), from the CSV
/// at `path`. Errors as [`sparse_counts`].
pub fn two_dags(
    path: &Path,
    file: &str,
    k1: usize,
    seed: u32,
    mode: LevelsMode,
) -> Result<Synthetic, ParamError> {
    let keys = [("k1", k1.to_string()), ("seed", seed.to_string())];
    let vars = [("x1", k1), ("x2", 2), ("x3", 2)];
    let levels = vec![labels(k1, false), labels(2, true), labels(2, true)];
    read(
        path,
        file,
        &keys,
        &vars,
        200,
        seed,
        levels,
        Vec::new(),
        mode,
    )
}

/// Supplement E's dataset drawn by the authors with `set.seed(seed)` for `g_true` and `n`
/// (k1 = 5, k2 = 3), from the CSV at `path`. Errors as [`sparse_counts`].
pub fn two_parent_sets(
    path: &Path,
    file: &str,
    n: usize,
    g_true: TwoParentTruth,
    seed: u32,
    mode: LevelsMode,
) -> Result<Synthetic, ParamError> {
    let g = match g_true {
        TwoParentTruth::G1 => "g1",
        TwoParentTruth::G2 => "g2",
    };
    let keys = [
        ("g_true", g.to_string()),
        ("n", n.to_string()),
        ("seed", seed.to_string()),
    ];
    let vars = [("x1", 5), ("x2", 3), ("x3", 2)];
    let levels = vec![labels(5, false), labels(3, false), labels(2, true)];
    read(path, file, &keys, &vars, n, seed, levels, Vec::new(), mode)
}
