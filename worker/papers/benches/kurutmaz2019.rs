//! kurutmaz2019 benchmarks: `cargo bench -p causeway-papers --bench kurutmaz2019`.
//!
//! Times are **on-CPU time of the benchmark thread** (utime + stime from
//! `/proc/thread-self/stat`, 10 ms ticks; each criterion sample runs ≥ 0.5 s), so they measure
//! one core's work even on a shared, oversubscribed machine; where that file is unreadable they
//! fall back to wall-clock time.
//!
//! - `smc_throughput/R{r}`: one SIS-CN run, J = 1000 particles, T = 2000 standardised synthetic
//!   observations; criterion's element throughput is **particle-steps per second** (one particle
//!   advanced by one observation, all R classes evaluated) on one core. At R = 1 every particle
//!   is the same deterministic path and a run is computed once, exactly, from one particle
//!   (`SmcSampler` docs), so that figure is J times the one-path rate, not a per-particle rate.
//! - `cep_job/{smc,vb}/{typical,longest}`: the cost of one CEP grid job (one pair, one setting,
//!   one hypothesis, R = 3; SMC with J = 1000; `vb` one VB run from one random initialisation),
//!   for a typical pair (`pair1`, T = 349, about the median of the 95 thesis pairs) and the
//!   longest (`pair65`, T = 16 382).
//! - `cep_job/vb_restarts5/{typical,longest}`: the VB job as `cep.yaml` runs it: one
//!   `VbSampler` step with `n_restarts: 5` (and the default tolerance and dominated horizon).
//!
//! The SMC's per-step loops over particles and cells and VB's responsibilities step are compiled
//! for AVX-512 and AVX2 as well as the baseline x86-64 and picked at run time (`multiversion`),
//! so these figures depend on the CPU's instruction sets; the results do not (no FMA: the same
//! bits on every path, tested).
use std::path::PathBuf;

use causeway_papers::kurutmaz2019::datasets::{self, CepSpec};
use causeway_papers::kurutmaz2019::{
    Hyper, Hypothesis, Problem, SmcConfig, SmcSampler, VbConfig, VbSampler, samplers::vb,
};
use causeway_papers::{DataContext, Sampler, chain_rng, dataset_rng};
use std::time::{Duration, Instant};

use criterion::{Bencher, Criterion, Throughput, criterion_group, criterion_main};

/// On-CPU time (user + system) of the calling thread, from `/proc/thread-self/stat`
/// (fields 14 and 15, in USER_HZ = 100 ticks per second).
fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// Run `f` `iters` times and return its on-CPU time (wall time if unavailable).
fn cpu_time(b: &mut Bencher, mut f: impl FnMut()) {
    b.iter_custom(|iters| {
        let (c0, w0) = (thread_cpu(), Instant::now());
        for _ in 0..iters {
            f();
        }
        match (c0, thread_cpu()) {
            (Some(a), Some(z)) if z > a => z - a,
            _ => w0.elapsed(),
        }
    })
}

fn hyper(n: usize) -> Hyper {
    Hyper::of_setting(n).expect("setting in 1..=36")
}

fn cep(pair: &str) -> (Vec<f64>, Vec<f64>) {
    let ctx = DataContext {
        data_dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data"),
    };
    let spec = CepSpec {
        kind: "cep".into(),
        pair: pair.into(),
        path: "cep/Tuebingen_pairs.csv".into(),
        meta_path: "cep/pairs_meta.csv".into(),
        standardize: true,
    };
    let d = datasets::cep(&spec, &ctx).expect("CEP data in data/cep");
    let x = d.observed("x").expect("x");
    (x.values[..x.cols].to_vec(), x.values[x.cols..].to_vec())
}

fn smc_throughput(c: &mut Criterion) {
    let t = 2000;
    let d = datasets::synthetic(
        Hypothesis::AToB,
        3,
        t,
        &hyper(20),
        &mut dataset_rng(1, 2, 3),
    )
    .expect("synthetic");
    let x = d.observed("x").expect("x");
    let (mut a, mut b) = (x.values[..t].to_vec(), x.values[t..].to_vec());
    datasets::standardize(&mut a).expect("sd");
    datasets::standardize(&mut b).expect("sd");
    let mut g = c.benchmark_group("smc_throughput");
    g.sample_size(10);
    let j = 1000;
    g.throughput(Throughput::Elements((t * j) as u64));
    for r in [1usize, 2, 3, 5] {
        let p = Problem::new(&a, &b, Hypothesis::AToB, r, hyper(20)).expect("problem");
        let mut s = SmcSampler::new(
            &p,
            SmcConfig {
                n_particles: j,
                ..Default::default()
            },
            true,
        )
        .expect("smc");
        let mut rng = chain_rng(1, 2, 3, 4);
        g.bench_function(format!("R{r}"), |bch| {
            cpu_time(bch, || {
                s.step(&mut rng).expect("run");
            })
        });
    }
    g.finish();
}

fn cep_job(c: &mut Criterion) {
    let mut g = c.benchmark_group("cep_job");
    g.sample_size(10);
    for (label, pair) in [("typical", "pair1"), ("longest", "pair65")] {
        let (a, b) = cep(pair);
        let p = Problem::new(&a, &b, Hypothesis::AToB, 3, hyper(20)).expect("problem");
        let mut s = SmcSampler::new(&p, SmcConfig::default(), true).expect("smc");
        let mut rng = chain_rng(5, 6, 7, 8);
        g.bench_function(format!("smc/{label}"), |bch| {
            cpu_time(bch, || {
                s.step(&mut rng).expect("run");
            })
        });
        let mut rng = chain_rng(5, 6, 7, 9);
        g.bench_function(format!("vb/{label}"), |bch| {
            cpu_time(bch, || {
                vb::run_vb(&p, &VbConfig::default(), &mut rng).expect("vb");
            })
        });
        let mut s = VbSampler::new(
            p.clone(),
            VbConfig {
                n_restarts: 5,
                ..VbConfig::default()
            },
        );
        let mut rng = chain_rng(5, 6, 7, 10);
        g.bench_function(format!("vb_restarts5/{label}"), |bch| {
            cpu_time(bch, || {
                s.step(&mut rng).expect("vb");
            })
        });
    }
    g.finish();
}

criterion_group!(benches, smc_throughput, cep_job);
criterion_main!(benches);
