//! Shared helpers of the `kurutmaz2019::*` test modules (no tests of its own). Reads only the project's copies of the data and fixtures.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use causeway_papers::kurutmaz2019::datasets::{self, CepSpec};
use causeway_papers::kurutmaz2019::{Hyper, Hypothesis, Problem, setting};
use causeway_papers::{ChainRng, DataContext, chain_rng, dataset_rng};

/// `<repo>/data`.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

/// `<repo>/tests/fixtures/cep`.
pub fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/cep")
}

pub fn ctx() -> DataContext {
    DataContext {
        data_dir: data_dir(),
    }
}

pub fn rng(seed: u64) -> ChainRng {
    chain_rng(0x6b75_7275, seed, 0, 0)
}

pub fn hyper(set: usize) -> Hyper {
    let (a1, b1, a2, b2) = setting(set).expect("setting in 1..=36");
    Hyper {
        gamma: 10.0,
        m: 0.0,
        lambda: 0.1,
        a1,
        b1,
        a2,
        b2,
    }
}

/// Standardised rows (A, B) of a CEP pair by cdt id.
pub fn cep_pair(pair: &str) -> (Vec<f64>, Vec<f64>) {
    let spec = CepSpec {
        kind: "cep".into(),
        pair: pair.into(),
        path: "cep/Tuebingen_pairs.csv".into(),
        meta_path: "cep/pairs_meta.csv".into(),
        standardize: true,
    };
    let d = datasets::cep(&spec, &ctx()).expect("cep pair loads");
    let x = d.observed("x").expect("x");
    (x.values[..x.cols].to_vec(), x.values[x.cols..].to_vec())
}

/// One row of `data/cep/pairs_meta.csv`.
#[derive(Debug, Clone)]
pub struct Meta {
    pub cdt_id: String,
    pub original_id: String,
    /// true for `->` (original first column = A).
    pub forward: bool,
}

pub fn meta() -> Vec<Meta> {
    let text = std::fs::read_to_string(data_dir().join("cep/pairs_meta.csv")).expect("meta");
    text.lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            Meta {
                cdt_id: c[0].into(),
                original_id: c[1].into(),
                forward: c[2] == "->",
            }
        })
        .collect()
}

/// The fixture's hypothesis name for our hypothesis on a pair with this orientation.
pub fn fixture_hypothesis(h: Hypothesis, forward: bool) -> &'static str {
    match (h, forward) {
        (Hypothesis::Spurious, _) => "spurious",
        (Hypothesis::AToB, true) | (Hypothesis::BToA, false) => "x_to_y",
        (Hypothesis::BToA, true) | (Hypothesis::AToB, false) => "y_to_x",
    }
}

/// `thesis_smc_log_ml.csv` as (original_id, setting, R, hypothesis) → ln p.
pub fn smc_fixture() -> HashMap<(String, usize, usize, String), f64> {
    let text =
        std::fs::read_to_string(fixture_dir().join("thesis_smc_log_ml.csv")).expect("fixture");
    text.lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (
                (
                    c[0].to_string(),
                    c[1].parse().unwrap(),
                    c[2].parse().unwrap(),
                    c[3].to_string(),
                ),
                c[4].parse().unwrap(),
            )
        })
        .collect()
}

/// A synthetic pair drawn from the model (rows A, B) with dataset seed `seed`.
pub fn synthetic(
    seed: u64,
    hyp: Hypothesis,
    r: usize,
    t: usize,
    set: usize,
) -> (Vec<f64>, Vec<f64>) {
    let mut g = dataset_rng(7, seed, 0);
    let d = datasets::synthetic(hyp, r, t, &hyper(set), &mut g).expect("synthetic");
    let x = d.observed("x").expect("x");
    (x.values[..t].to_vec(), x.values[t..].to_vec())
}

pub fn problem(a: &[f64], b: &[f64], hyp: Hypothesis, r: usize, set: usize) -> Problem {
    Problem::new(a, b, hyp, r, hyper(set)).expect("problem")
}

pub const HYPS: [Hypothesis; 3] = [Hypothesis::AToB, Hypothesis::BToA, Hypothesis::Spurious];

pub fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

/// Canonical relabelling (first occurrence order): the label-free partition of an assignment.
pub fn partition_key(r: &[usize]) -> Vec<u8> {
    let mut map = [u8::MAX; 8];
    let mut next = 0u8;
    r.iter()
        .map(|&l| {
            if map[l] == u8::MAX {
                map[l] = next;
                next += 1;
            }
            map[l]
        })
        .collect()
}
