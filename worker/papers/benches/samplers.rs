//! Sampler benchmarks (`make bench`, or `cargo bench -p causeway-papers --bench samplers`).
//!
//! wood2006: one iteration (sweep) of Algorithm 2 (Gibbs, infinite model) and of Algorithm 1
//! (RJMCMC) at N = 20 observed, T = 500 trials, K_+ = 10 hidden causes (data drawn from the model
//! with the paper's §5 settings α = 3, λ = 0.9, ε = 0.01, p = 0.1), started at the true state.
//! Sweeps per second = 1 / (reported time per iteration). Targets: Gibbs ≥ 10,000
//! sweeps/s; an RJMCMC sweep ≤ 3× a Gibbs sweep. Algorithm 1 as printed sweeps Y once per row:
//! N K T uniforms an iteration (K counting its empty columns) against Algorithm 2's K T, so at
//! N = 20 generating its random numbers alone takes several Gibbs sweeps;
//! `rjmcmc_y_per_sweep_…` is the same with `rjmcmc_y_schedule: per_sweep` (one Y sweep an
//! iteration).
//!
//! `WOOD2006_SWEEPS=<n> samplers <gibbs|rjmcmc>` runs a fixed number of sweeps instead (see
//! `wood2006_fixed`), for whole-process timing.
use causeway_papers::wood2006::{
    BinaryMatrix, HiddenCauseSampler, Params, SamplerKind, Wood2006, YSchedule,
};
use causeway_papers::{DataContext, Model, Sampler, chain_rng, dataset_rng};
use criterion::{Criterion, criterion_group};

fn placeholder(c: &mut Criterion) {
    c.bench_function("stable_hash_1k", |b| {
        let v = vec![7u8; 1024];
        b.iter(|| causeway_papers::stable_hash(std::hint::black_box(&v)))
    });
}

fn wood2006_sampler(
    kind: SamplerKind,
    update_hyperparameters: bool,
    split_merge: usize,
    y_schedule: YSchedule,
) -> HiddenCauseSampler {
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
    params.split_merge = split_merge;
    params.rjmcmc_y_schedule = y_schedule;
    let mut rng = chain_rng(7, 1, 0, 0);
    let mut s = HiddenCauseSampler::new(&params, &x, vec![], &mut rng).expect("sampler");
    s.set_state(&z, &y, None).expect("state");
    s
}

fn wood2006(c: &mut Criterion) {
    let mut g = c.benchmark_group("wood2006");
    let (row, sweep) = (YSchedule::PerRow, YSchedule::PerSweep);
    for (name, kind, hyper, y) in [
        ("gibbs_sweep_n20_t500_k10", SamplerKind::Gibbs, false, row),
        (
            "gibbs_sweep_n20_t500_k10_hyper",
            SamplerKind::Gibbs,
            true,
            row,
        ),
        ("rjmcmc_sweep_n20_t500_k10", SamplerKind::Rjmcmc, false, row),
        (
            "rjmcmc_y_per_sweep_n20_t500_k10",
            SamplerKind::Rjmcmc,
            false,
            sweep,
        ),
    ] {
        let mut s = wood2006_sampler(kind, hyper, 0, y);
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

/// `WOOD2006_SWEEPS=<n> samplers <case>`: run exactly `n` iterations of one wood2006 case (`gibbs`,
/// `rjmcmc`, `rjmcmc_y_per_sweep`, `gibbs_hyper`, `rjmcmc_hyper`, `gibbs_split_merge`: 20
/// split–merge proposals a sweep)
/// after the same warm-up as the bench, then print a digest of the chain (K_+ and the bit
/// pattern of every `log_joint`), for whole-process timing and for checking that two builds draw
/// the same chain.
fn wood2006_fixed(sweeps: usize, which: &str) {
    let kind = match which {
        "rjmcmc" | "rjmcmc_hyper" | "rjmcmc_y_per_sweep" => SamplerKind::Rjmcmc,
        _ => SamplerKind::Gibbs,
    };
    let split_merge = if which == "gibbs_split_merge" { 20 } else { 0 };
    let y = if which == "rjmcmc_y_per_sweep" {
        YSchedule::PerSweep
    } else {
        YSchedule::PerRow
    };
    let mut s = wood2006_sampler(kind, which.ends_with("_hyper"), split_merge, y);
    let mut rng = chain_rng(7, 2, 0, 0);
    let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
    for _ in 0..50 + sweeps {
        s.step(&mut rng).expect("step");
        for v in [s.log_joint().to_bits(), s.k_plus() as u64, s.k() as u64] {
            digest = (digest ^ v).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    println!(
        "wood2006/{which}: {sweeps} sweeps, K+ = {}, log_joint = {}, digest = {digest:016x}",
        s.k_plus(),
        s.log_joint()
    );
}

criterion_group!(benches, placeholder, wood2006);

fn main() {
    if let Ok(n) = std::env::var("WOOD2006_SWEEPS") {
        let sweeps: usize = n.parse().expect("WOOD2006_SWEEPS: a number of sweeps");
        let which = std::env::args().nth(1).unwrap_or_else(|| "gibbs".into());
        wood2006_fixed(sweeps, &which);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
