//! kurutmaz2019 benchmarks: `cargo bench -p causeway-samplers --bench kurutmaz2019`.
//!
//! - `smc_throughput/R{r}`: one SIS-CN run, J = 1000 particles, T = 2000 standardised synthetic
//!   observations; criterion's element throughput is **particle-steps per second** (one particle
//!   advanced by one observation, all R classes evaluated) on one core.
//! - `cep_job/{smc,vb}/{typical,longest}`: the cost of one CEP grid job (one pair, one setting,
//!   one hypothesis, R = 3; SMC with J = 1000), for a typical pair (`pair1`, T = 349, about the
//!   median of the 95 thesis pairs) and the longest (`pair65`, T = 16 382).
use std::path::PathBuf;

use causeway_samplers::kurutmaz2019::datasets::{self, CepSpec};
use causeway_samplers::kurutmaz2019::{
    Hyper, Hypothesis, Problem, SmcConfig, SmcSampler, VbConfig, setting, vb,
};
use causeway_samplers::{DataContext, Sampler, chain_rng, dataset_rng};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn hyper(n: usize) -> Hyper {
    let (a1, b1, a2, b2) = setting(n).unwrap_or((1.0, 1.0, 1.0, 1.0));
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
            bch.iter(|| s.step(&mut rng).expect("run"))
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
            bch.iter(|| s.step(&mut rng).expect("run"))
        });
        let mut rng = chain_rng(5, 6, 7, 9);
        g.bench_function(format!("vb/{label}"), |bch| {
            bch.iter(|| vb::run_vb(&p, &VbConfig::default(), &mut rng).expect("vb"))
        });
    }
    g.finish();
}

criterion_group!(benches, smc_throughput, cep_job);
criterion_main!(benches);
