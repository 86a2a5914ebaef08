//! Sampler benchmarks (`make bench`, or `cargo bench -p causeway-papers --bench samplers`).
//!
//! wood2006: one iteration (sweep) of Algorithm 2 (Gibbs, infinite model) and of Algorithm 1
//! (RJMCMC) at N = 20 observed, T = 500 trials, K_+ = 10 hidden causes (data drawn from the model
//! with the paper's §5 settings α = 3, λ = 0.9, ε = 0.01, p = 0.1), started at the true state.
//! Sweeps per second = 1 / (reported time per iteration). Target for Gibbs: ≥ 2,000 sweeps/s.
use causeway_papers::wood2006::{BinaryMatrix, HiddenCauseSampler, Params, SamplerKind, Wood2006};
use causeway_papers::{DataContext, Model, Sampler, chain_rng, dataset_rng};
use criterion::{Criterion, criterion_group, criterion_main};

fn placeholder(c: &mut Criterion) {
    c.bench_function("stable_hash_1k", |b| {
        let v = vec![7u8; 1024];
        b.iter(|| causeway_papers::stable_hash(std::hint::black_box(&v)))
    });
}

fn wood2006_sampler(kind: SamplerKind, update_hyperparameters: bool) -> HiddenCauseSampler {
    let spec = serde_json::json!({"kind": "ibp_synthetic", "n_observed": 20, "n_trials": 500, "k_plus": 10});
    let ctx = DataContext {
        data_dir: std::env::temp_dir(),
    };
    let ds = Wood2006
        .dataset(&spec, &ctx, &mut dataset_rng(7, 1, 0))
        .expect("dataset");
    let x = BinaryMatrix::from_matrix(ds.observed("x").expect("x")).expect("binary x");
    let z = BinaryMatrix::from_matrix(ds.truth("z").expect("z")).expect("binary z");
    let y = BinaryMatrix::from_matrix(ds.truth("y").expect("y")).expect("binary y");
    let mut params = Params::defaults(kind);
    params.update_hyperparameters = update_hyperparameters;
    let mut rng = chain_rng(7, 1, 0, 0);
    let mut s = HiddenCauseSampler::new(&params, &x, vec![], &mut rng).expect("sampler");
    s.set_state(&z, &y, None).expect("state");
    s
}

fn wood2006(c: &mut Criterion) {
    let mut g = c.benchmark_group("wood2006");
    for (name, kind, hyper) in [
        ("gibbs_sweep_n20_t500_k10", SamplerKind::Gibbs, false),
        ("gibbs_sweep_n20_t500_k10_hyper", SamplerKind::Gibbs, true),
        ("rjmcmc_sweep_n20_t500_k10", SamplerKind::Rjmcmc, false),
    ] {
        let mut s = wood2006_sampler(kind, hyper);
        let mut rng = chain_rng(7, 2, 0, 0);
        // settle near the posterior mode first, as a long chain would be
        for _ in 0..50 {
            s.step(&mut rng).expect("step");
        }
        eprintln!("wood2006/{name}: K+ = {} after warm-up", s.k_plus());
        g.bench_function(name, |b| b.iter(|| s.step(&mut rng).expect("step")));
    }
    g.finish();
}

criterion_group!(benches, placeholder, wood2006);
criterion_main!(benches);
