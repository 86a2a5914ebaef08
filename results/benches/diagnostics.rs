//! Criterion benchmark of the convergence diagnostics, on the same data as
//! `bench/arviz_bench.py` times ArviZ 0.23.4 on.
//!
//! Data (documented generator, also implemented in `bench/arviz_bench.py`): M = 4 chains of
//! N = 1,000,000 draws of a stationary AR(1), ρ = 0.9:
//! * uniforms: SplitMix64 as a counter-based generator, for k = 0, 1, …:
//!   z = SEED + (k+1)·0x9E3779B97F4A7C15 (wrapping), z = (z ⊕ z≫30)·0xBF58476D1CE4E5B9,
//!   z = (z ⊕ z≫27)·0x94D049BB133111EB, z = z ⊕ z≫31, u_k = ((z≫11) + 0.5)·2⁻⁵³;
//! * normals (Box–Muller, cosine branch): e_j = √(−2 ln u_{2j})·cos(2π u_{2j+1});
//! * chain c uses e_{cN}, …, e_{cN+N−1}: x₀ = e/√(1−ρ²), x_t = ρ·x_{t−1} + e_t.
//!
//! The bench also writes the draws to `target/diagnostics_bench/ar1_rho0.9_4x1000000.npy`
//! so that the Python script times ArviZ on bit-identical input (it falls back to its own
//! implementation of the generator if the file is missing).
//!
//! Run: `cargo bench -p causeway-results --bench diagnostics`, then
//! `python3 bench/arviz_bench.py` (with ArviZ installed) prints ArviZ's time and the ratio
//! using criterion's stored median.

use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use causeway_results::diagnostics::{
    Draws, TailProbs, diagnose_draws, ess_bulk, ess_mean, ess_tail, rhat,
};
use criterion::{Criterion, criterion_group};

const SEED: u64 = 20_240_523;
const RHO: f64 = 0.9;

fn splitmix_uniform(k: u64) -> f64 {
    let mut z = SEED.wrapping_add((k + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    ((z >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
}

/// M × N AR(1) draws, row-major (chain after chain).
fn ar1_draws(m: usize, n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(m * n);
    for c in 0..m {
        let mut x = 0.0;
        for t in 0..n {
            let j = (c * n + t) as u64;
            let (u1, u2) = (splitmix_uniform(2 * j), splitmix_uniform(2 * j + 1));
            let e = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
            x = if t == 0 {
                e / (1.0 - RHO * RHO).sqrt()
            } else {
                RHO * x + e
            };
            out.push(x);
        }
    }
    out
}

/// Write a C-order float64 `.npy` of shape (m, n).
fn write_npy(path: &PathBuf, data: &[f64], m: usize, n: usize) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({m}, {n}), }}");
    // magic(6) + version(2) + len(2) + header + '\n' must be a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(b"\x93NUMPY\x01\x00")?;
    f.write_all(&(header.len() as u16).to_le_bytes())?;
    f.write_all(header.as_bytes())?;
    for x in data {
        f.write_all(&x.to_le_bytes())?;
    }
    f.flush()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

fn bench_large(c: &mut Criterion) {
    let (m, n) = (4usize, 1_000_000usize);
    let data = ar1_draws(m, n);
    let npy = target_dir().join("diagnostics_bench/ar1_rho0.9_4x1000000.npy");
    if let Err(e) = write_npy(&npy, &data, m, n) {
        eprintln!("warning: could not write {}: {e}", npy.display());
    }
    let mut g = c.benchmark_group("diagnostics_4x1000000");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(8));
    // Every iteration builds a fresh `Draws` (a `Draws` memoises its sort), so each
    // iteration pays for the full work, as ArviZ's three calls do.
    let fresh = || Draws::from_row_major(black_box(&data), m).expect("valid shape");
    // What ArviZ's ~6.5 s covers: az.rhat, az.ess(bulk), az.ess(tail) on one array.
    g.bench_function("rhat_ess_bulk_ess_tail", |b| {
        b.iter(|| {
            let d = fresh();
            (
                rhat(&d),
                ess_bulk(&d, false),
                ess_tail(&d, TailProbs::default(), false),
            )
        })
    });
    g.bench_function("diagnose_all_six", |b| {
        b.iter(|| diagnose_draws(&fresh(), TailProbs::default()))
    });
    g.bench_function("rhat", |b| b.iter(|| rhat(&fresh())));
    g.bench_function("ess_bulk", |b| b.iter(|| ess_bulk(&fresh(), false)));
    g.bench_function("ess_tail", |b| {
        b.iter(|| ess_tail(&fresh(), TailProbs::default(), false))
    });
    g.bench_function("ess_mean", |b| b.iter(|| ess_mean(&fresh(), false)));
    g.finish();
}

fn bench_small(c: &mut Criterion) {
    let data = ar1_draws(4, 1000);
    c.bench_function("diagnose_all_six_4x1000", |b| {
        b.iter(|| {
            let d = Draws::from_row_major(black_box(&data), 4).expect("valid shape");
            diagnose_draws(&d, TailProbs::default())
        })
    });
}

criterion_group!(benches, bench_small, bench_large);

/// Criterion's harness, or, with `CAUSEWAY_DIAG_ITERS=K` set, K plain runs of
/// `rhat_ess_bulk_ess_tail` on the 4 × 10⁶ draws and nothing else: a whole process whose CPU
/// time (`/usr/bin/time -v`, less the draw generation of a `K=0` run) is comparable between
/// builds on a machine too busy for wall-clock medians. It prints the three values (17
/// significant digits) of the last run, to check that two builds agree bit for bit.
fn main() {
    if let Some(k) = std::env::var("CAUSEWAY_DIAG_ITERS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let data = ar1_draws(4, 1_000_000);
        let mut values = None;
        for _ in 0..k {
            let d = Draws::from_row_major(black_box(&data), 4).expect("valid shape");
            values = Some(black_box((
                rhat(&d),
                ess_bulk(&d, false),
                ess_tail(&d, TailProbs::default(), false),
            )));
        }
        if let Some((r, b, t)) = values {
            println!("rhat {r:.17e} ess_bulk {b:.17e} ess_tail {t:.17e}");
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
