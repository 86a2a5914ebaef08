//! Discrete data for HiDDeN (paper `002_d97ecc788b964f97.txt`, §2.2): n rows × p categorical
//! variables, variable j coded 0..k_j−1, and the contingency tables the model and every baseline
//! are built from.
//!
//! A table of node j given a parent set Pa(j) holds the cell counts n_{Pa(j),j}(x_Pa, x_j) and the
//! configuration counts n_{Pa(j)}(x_Pa) (§2.2) for the *occupied* parent configurations only: it is
//! built from configuration codes in O(n) (a hash of codes, then a sort of the m ≤ n occupied ones),
//! so an empty configuration costs nothing anywhere downstream (issue: "empty parent
//! configurations contribute exactly 0 and must cost nothing").
//!
//! Sources of data, each in its own file and re-exported here:
//! [`csv`] (discrete CSV files), [`bif`] (BIF networks and ancestral sampling), [`synthetic`]
//! (the generators of §5.1, §5.3 and supplement E), [`authors`] (the authors' own draws for §5.3
//! and supplement E), [`metabric`] (§6's preprocessing), and
//! [`spec`] (the YAML `dataset` section: [`parse_dataset`], [`DatasetSpec::build`]).

pub mod authors;
pub mod bif;
pub mod csv;
pub mod metabric;
pub mod spec;
pub mod synthetic;

pub use bif::{BifNetwork, BifVariable};
pub use csv::{CsvOptions, CsvRecords, read_discrete_csv};
pub use metabric::{METABRIC_VARIABLES, read_metabric};
pub use spec::{DatasetSpec, parse_dataset, truth_matrices};
pub use synthetic::{LevelsMode, Synthetic, TrueCpt, TwoParentTruth};

use std::collections::HashMap;

use crate::data::Matrix;

/// Largest number of categories of one variable (codes are `u16`).
pub const MAX_LEVELS: usize = u16::MAX as usize;

/// A discrete dataset: `columns[j][i]` is the code of variable j in row i (n rows × p variables,
/// stored column-major), with `levels[j]` its k_j category labels in code order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DiscreteData {
    /// Variable names, p.
    pub names: Vec<String>,
    /// Category labels of each variable, p lists of k_j labels (code c ↦ `levels[j][c]`).
    pub levels: Vec<Vec<String>>,
    /// Codes, p columns of n values, each `< levels[j].len()`.
    pub columns: Vec<Vec<u16>>,
}

/// The contingency table of one node given a parent set (§2.2), occupied configurations only.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParentTable {
    /// k_j, the number of categories of the child.
    pub k: usize,
    /// K_Pa = Π_{j'∈Pa} k_{j'}: every parent configuration, observed or not (1 for a root).
    pub n_configs: u64,
    /// The occupied configuration codes, ascending; code = Σ_l x_{Pa_l} Π_{l'<l} k_{Pa_l'} (the
    /// first parent varies fastest). A root has the one configuration 0.
    pub configs: Vec<u64>,
    /// `configs.len() × k`, row-major: n_{Pa,j}(x_Pa, x) for each occupied configuration.
    pub counts: Vec<u32>,
    /// n_Pa(x_Pa) for each occupied configuration (the row sums of `counts`, all ≥ 1).
    pub totals: Vec<u32>,
}

impl ParentTable {
    /// The counts of occupied configuration `c` (its row of `counts`).
    pub fn row(&self, c: usize) -> &[u32] {
        &self.counts[c * self.k..(c + 1) * self.k]
    }

    /// The number of occupied configurations.
    pub fn occupied(&self) -> usize {
        self.configs.len()
    }
}

impl DiscreteData {
    /// Check the shapes: as many level lists and columns as names, equal column lengths, every
    /// code below its k_j, every k_j ≥ 1 and ≤ [`MAX_LEVELS`].
    pub fn new(
        names: Vec<String>,
        levels: Vec<Vec<String>>,
        columns: Vec<Vec<u16>>,
    ) -> Result<Self, String> {
        if levels.len() != names.len() || columns.len() != names.len() {
            return Err(format!(
                "{} names, {} level lists and {} columns",
                names.len(),
                levels.len(),
                columns.len()
            ));
        }
        let n = columns.first().map_or(0, Vec::len);
        for (j, (col, lv)) in columns.iter().zip(&levels).enumerate() {
            if col.len() != n {
                return Err(format!(
                    "column {} has {} rows, not {n}",
                    names[j],
                    col.len()
                ));
            }
            if lv.is_empty() || lv.len() > MAX_LEVELS {
                return Err(format!("variable {} has {} levels", names[j], lv.len()));
            }
            if let Some(c) = col.iter().find(|&&c| c as usize >= lv.len()) {
                return Err(format!(
                    "variable {} has code {c} for {} levels",
                    names[j],
                    lv.len()
                ));
            }
        }
        Ok(DiscreteData {
            names,
            levels,
            columns,
        })
    }

    /// [`DiscreteData::new`] from `(name, labels)` pairs, one per variable, and the code columns
    /// (for small tables written by hand, e.g. in tests).
    pub fn labelled(variables: &[(&str, &[&str])], columns: Vec<Vec<u16>>) -> Result<Self, String> {
        let names = variables.iter().map(|(n, _)| n.to_string()).collect();
        let levels = variables
            .iter()
            .map(|(_, l)| l.iter().map(|x| x.to_string()).collect())
            .collect();
        DiscreteData::new(names, levels, columns)
    }

    /// n, the number of rows.
    pub fn n(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    /// p, the number of variables.
    pub fn p(&self) -> usize {
        self.names.len()
    }

    /// k_j, the number of categories of variable `j`.
    pub fn k(&self, j: usize) -> usize {
        self.levels[j].len()
    }

    /// The index of the variable called `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// K_Pa = Π k_{j'} over `parents` (saturating; 1 for no parents).
    pub fn n_configs(&self, parents: &[usize]) -> u64 {
        parents
            .iter()
            .fold(1u64, |acc, &p| acc.saturating_mul(self.k(p) as u64))
    }

    /// The configuration code of every row for `parents` (see [`ParentTable::configs`]). Length n.
    pub fn config_codes(&self, parents: &[usize]) -> Vec<u64> {
        let mut codes = vec![0u64; self.n()];
        let mut radix = 1u64;
        for &p in parents {
            for (c, &x) in codes.iter_mut().zip(&self.columns[p]) {
                *c = c.wrapping_add(radix.wrapping_mul(x as u64));
            }
            radix = radix.saturating_mul(self.k(p) as u64);
        }
        codes
    }

    /// The contingency table of `child` given `parents` (§2.2), in O(n + m log m) for m
    /// occupied configurations.
    pub fn table(&self, child: usize, parents: &[usize]) -> ParentTable {
        let k = self.k(child);
        let codes = self.config_codes(parents);
        let mut slot: HashMap<u64, usize> = HashMap::new();
        let mut configs: Vec<u64> = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        for (&code, &x) in codes.iter().zip(&self.columns[child]) {
            let s = *slot.entry(code).or_insert_with(|| {
                configs.push(code);
                counts.extend(std::iter::repeat_n(0, k));
                configs.len() - 1
            });
            counts[s * k + x as usize] += 1;
        }
        // Ascending configuration order, so the table does not depend on the row order.
        let mut order: Vec<usize> = (0..configs.len()).collect();
        order.sort_unstable_by_key(|&s| configs[s]);
        let mut sorted_counts = Vec::with_capacity(counts.len());
        for &s in &order {
            sorted_counts.extend_from_slice(&counts[s * k..(s + 1) * k]);
        }
        let configs: Vec<u64> = order.iter().map(|&s| configs[s]).collect();
        let totals = sorted_counts
            .chunks(k.max(1))
            .map(|r| r.iter().sum())
            .collect();
        ParentTable {
            k,
            n_configs: self.n_configs(parents),
            configs,
            counts: sorted_counts,
            totals,
        }
    }

    /// The label of configuration `code` of `parents`: `P1=s1;P2=s2` in the given parent order
    /// (empty for a root).
    pub fn config_label(&self, parents: &[usize], code: u64) -> String {
        let mut rest = code;
        let mut parts = Vec::with_capacity(parents.len());
        for &p in parents {
            let k = self.k(p) as u64;
            let x = (rest % k) as usize;
            rest /= k;
            parts.push(format!("{}={}", self.names[p], self.levels[p][x]));
        }
        parts.join(";")
    }

    /// The variables `keep`, in that order (indices into `self`; each must be `< p`).
    pub fn select(&self, keep: &[usize]) -> DiscreteData {
        DiscreteData {
            names: keep.iter().map(|&j| self.names[j].clone()).collect(),
            levels: keep.iter().map(|&j| self.levels[j].clone()).collect(),
            columns: keep.iter().map(|&j| self.columns[j].clone()).collect(),
        }
    }

    /// The same data with every variable's unobserved levels removed (codes renumbered, labels
    /// and their order kept): R's `factor()` on the data (`levels: present`). A variable
    /// may be left with a single level.
    pub fn drop_absent_levels(&self) -> DiscreteData {
        let mut out = self.clone();
        for (lv, col) in out.levels.iter_mut().zip(out.columns.iter_mut()) {
            let mut seen = vec![false; lv.len()];
            for &x in col.iter() {
                seen[x as usize] = true;
            }
            let mut map = vec![0u16; lv.len()];
            let mut next = 0u16;
            for (c, &s) in seen.iter().enumerate() {
                map[c] = next;
                next += u16::from(s);
            }
            for x in col.iter_mut() {
                *x = map[*x as usize];
            }
            let mut c = 0;
            lv.retain(|_| {
                c += 1;
                seen[c - 1]
            });
        }
        out
    }

    /// As shipped to workers: the observed matrix `x` (n × p, codes as f64, column names = the
    /// variables) and one matrix `levels:<name>` per variable (k_j × 1, values 0..k_j−1, row
    /// names = the labels).
    pub fn to_matrices(&self) -> Vec<Matrix> {
        let (n, p) = (self.n(), self.p());
        let mut values = Vec::with_capacity(n * p);
        for i in 0..n {
            values.extend(self.columns.iter().map(|c| c[i] as f64));
        }
        let mut x = Matrix::new("x", n, p, values);
        x.col_names = self.names.clone();
        let mut out = vec![x];
        for (name, lv) in self.names.iter().zip(&self.levels) {
            let mut m = Matrix::new(
                format!("levels:{name}"),
                lv.len(),
                1,
                (0..lv.len()).map(|c| c as f64).collect(),
            );
            m.row_names = lv.clone();
            out.push(m);
        }
        out
    }

    /// The inverse of [`DiscreteData::to_matrices`]. Errors name the missing matrix or the bad
    /// value.
    pub fn from_matrices(ms: &[Matrix]) -> Result<Self, String> {
        let x = ms
            .iter()
            .find(|m| m.name == "x")
            .ok_or("dataset has no observed matrix x")?;
        x.check()?;
        if x.col_names.len() != x.cols {
            return Err("matrix x has no column names".into());
        }
        let mut levels = Vec::with_capacity(x.cols);
        for name in &x.col_names {
            let key = format!("levels:{name}");
            let m = ms
                .iter()
                .find(|m| m.name == key)
                .ok_or_else(|| format!("dataset has no matrix {key}"))?;
            if m.row_names.len() != m.rows {
                return Err(format!("matrix {key} has no row names"));
            }
            levels.push(m.row_names.clone());
        }
        let mut columns = vec![Vec::with_capacity(x.rows); x.cols];
        for i in 0..x.rows {
            for (j, col) in columns.iter_mut().enumerate() {
                let v = x.get(i, j);
                if !(v >= 0.0 && v.fract() == 0.0 && v < levels[j].len() as f64) {
                    return Err(format!(
                        "x[{i}, {}] = {v} is not a code of {} levels",
                        x.col_names[j],
                        levels[j].len()
                    ));
                }
                col.push(v as u16);
            }
        }
        DiscreteData::new(x.col_names.clone(), levels, columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> DiscreteData {
        // n = 6; A (2 levels), B (3 levels), C (2 levels).
        DiscreteData::labelled(
            &[
                ("A", &["a0", "a1"]),
                ("B", &["b0", "b1", "b2"]),
                ("C", &["no", "yes"]),
            ],
            vec![
                vec![0, 1, 0, 1, 0, 0],
                vec![2, 2, 0, 1, 2, 0],
                vec![1, 0, 0, 1, 1, 1],
            ],
        )
        .expect("valid data")
    }

    #[test]
    fn table_counts_occupied_configurations_only() {
        let d = small();
        let t = d.table(2, &[0, 1]);
        assert_eq!(t.n_configs, 6);
        // codes a + 2b: rows (0,2)→4, (1,2)→5, (0,0)→0, (1,1)→3, (0,2)→4, (0,0)→0.
        assert_eq!(t.configs, vec![0, 3, 4, 5]);
        assert_eq!(t.counts, vec![1, 1, 0, 1, 0, 2, 1, 0]);
        assert_eq!(t.totals, vec![2, 1, 2, 1]);
        assert_eq!(t.totals.iter().sum::<u32>() as usize, d.n());
        assert_eq!(d.config_label(&[0, 1], 4), "A=a0;B=b2");
        let root = d.table(1, &[]);
        assert_eq!(
            (root.configs.clone(), root.counts.clone()),
            (vec![0], vec![2, 1, 3])
        );
        assert_eq!(root.n_configs, 1);
    }

    #[test]
    fn table_does_not_depend_on_row_order() {
        let d = small();
        let mut rev = d.clone();
        for c in &mut rev.columns {
            c.reverse();
        }
        assert_eq!(d.table(2, &[1, 0]), rev.table(2, &[1, 0]));
    }

    #[test]
    fn matrices_round_trip_and_bad_codes_are_refused() {
        let d = small();
        let ms = d.to_matrices();
        assert_eq!(DiscreteData::from_matrices(&ms), Ok(d));
        let mut bad = ms.clone();
        bad[0].values[1] = 2.0; // B has 3 levels, but column 1 of row 0 is B: use A's column
        bad[0].values[0] = 2.0; // A has 2 levels
        assert!(DiscreteData::from_matrices(&bad).is_err());
        assert!(DiscreteData::new(vec!["A".into()], vec![vec![]], vec![vec![]]).is_err());
    }
}
