//! Tests of the measurement side of Table 1 (paper `004_74db43a26dbf0fa1.txt` §5.1):
//! the k-NN KL estimator and its reference rows ([`kl`]), the KDE baseline ([`kde`]) and the DP
//! mixture of Gaussians baseline ([`dpmog`]).

mod dpmog;
mod kde;
mod kl;

use std::path::PathBuf;

use causeway_papers::data::Matrix;
use causeway_papers::seed::{ChainRng, chain_rng};
use rand_distr::{Distribution, StandardNormal};

/// n × d standard normals plus `shift` on each column, row-major.
pub fn gaussian(n: usize, d: usize, shift: &[f64], rng: &mut ChainRng) -> Vec<f64> {
    let mut v = Vec::with_capacity(n * d);
    for _ in 0..n {
        for s in shift.iter().take(d) {
            let e: f64 = StandardNormal.sample(rng);
            v.push(e + s);
        }
    }
    v
}

/// A 2-D, two-cluster training set in unequal column scales (data units), n rows.
pub fn two_clusters(n: usize, seed: u64) -> Matrix {
    let mut rng = chain_rng(seed, 4, 0, 0);
    let mut v = Vec::with_capacity(2 * n);
    for i in 0..n {
        let (cx, cy) = if i % 3 == 0 { (3.0, -1.0) } else { (0.0, 0.0) };
        let a: f64 = StandardNormal.sample(&mut rng);
        let b: f64 = StandardNormal.sample(&mut rng);
        v.push(10.0 * (cx + 0.6 * a));
        v.push(0.1 * (cy + 0.8 * b + 0.3 * a));
    }
    Matrix::new("x", n, 2, v)
}

/// The repository's `data/` folder.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

/// Abalone coded (Sex M=1, F=2, I=3, the 7 measurements, Rings), rows 1–4000,
/// odd rows (1st, 3rd, …) train and even rows test: (train, test), 2000 × 9 each. A small reader
/// for the tests only (the dataset code is `dallaire2014::datasets`).
pub fn abalone() -> (Matrix, Matrix) {
    let path = data_dir().join("abalone/abalone.data");
    let text = std::fs::read_to_string(&path).unwrap();
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().take(4000).enumerate() {
        let f: Vec<&str> = line.trim().split(',').collect();
        assert_eq!(f.len(), 9, "{}:{}", path.display(), i + 1);
        let sex = match f[0] {
            "M" => 1.0,
            "F" => 2.0,
            "I" => 3.0,
            other => panic!("{}:{}: sex {other}", path.display(), i + 1),
        };
        let row = if i % 2 == 0 { &mut train } else { &mut test };
        row.push(sex);
        for v in &f[1..] {
            row.push(v.parse::<f64>().unwrap());
        }
    }
    (
        Matrix::new("x", 2000, 9, train),
        Matrix::new("test", 2000, 9, test),
    )
}

/// Old Faithful (eruptions, waiting), 272 rows; odd rows train, even rows test (136 each).
pub fn geyser() -> (Matrix, Matrix) {
    let path = data_dir().join("rdatasets/faithful.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().skip(1).enumerate() {
        let f: Vec<&str> = line.trim().split(',').collect();
        let row = if i % 2 == 0 { &mut train } else { &mut test };
        row.push(f[1].parse::<f64>().unwrap());
        row.push(f[2].parse::<f64>().unwrap());
    }
    let (a, b) = (train.len() / 2, test.len() / 2);
    (
        Matrix::new("x", a, 2, train),
        Matrix::new("test", b, 2, test),
    )
}

/// Mean and 2 sd (n − 1 divisor) of a sample.
pub fn mean_2sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, 2.0 * var.sqrt())
}
