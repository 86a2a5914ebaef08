//! dallaire2014 benchmarks: `cargo bench -p causeway-papers --bench dallaire2014`.
//!
//! - `sweep/{ecibp,cibp}/{ring,abalone}`: one MCMC iteration of §4 (MTM activations, Phase 1,
//!   Phase 2, conjugate W, γ, ν) at N = 2000, each timed iteration from the same fixed network:
//!   ring size (d = 2, 9 units, 14 edges) and abalone size (d = 9, 45 units, about 130 edges).
//!   The data are drawn from the network itself. Criterion's element throughput is iterations
//!   per second on one core.
//! - `mtm/{ring,abalone}`: the MTM step of every hidden unit and datum; throughput = unit-datum
//!   updates per second (µs per update = 10⁶ / throughput).
//! - `phase1/{ring,abalone}`: one Phase 1 sweep; throughput = candidate edges per second.
#![allow(clippy::needless_range_loop)]
use causeway_papers::ChainRng;
use causeway_papers::chain_rng;
use causeway_papers::dallaire2014::params::{Params, Prior};
use causeway_papers::dallaire2014::samplers::forward::draw_activations;
use causeway_papers::dallaire2014::samplers::{Kernel, Network, mtm, phase1};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

const N: usize = 2000;

/// A layered network with `sizes[m]` units in layer m; every unit of layer m−1 gets an adjacent
/// parent edge with probability `p_adj` (at least one parent per child layer unit... and every
/// parent at least one child), and for the eCIBP a jump edge to each deeper unit with
/// probability `p_jump`. W ~ N(0, 1), γ = 0, ν = 4 (observed 20); data by ancestral sampling.
fn build(sizes: &[usize], p_adj: f64, p_jump: f64, rng: &mut ChainRng) -> Network {
    let d = sizes[0];
    let mut net = Network::observed_only(N, d, &vec![0.0; d], &vec![20.0; d], &vec![0.0; N * d])
        .expect("benchmark network");
    let mut layers: Vec<Vec<usize>> = vec![(0..d).collect()];
    for (m, &k) in sizes.iter().enumerate().skip(1) {
        let ids: Vec<usize> = (0..k).map(|j| net.add_unit(m, 0.0, 4.0, j)).collect();
        layers.push(ids);
    }
    let w = |rng: &mut ChainRng| -> f64 { StandardNormal.sample(rng) };
    for m in 1..sizes.len() {
        for (j, &k) in layers[m].iter().enumerate() {
            // guarantee one child
            let c = layers[m - 1][j % layers[m - 1].len()];
            let wt = w(rng);
            net.add_edge(c, k, wt);
            for &c2 in &layers[m - 1] {
                if c2 != c && rng.random::<f64>() < p_adj {
                    let wt = w(rng);
                    net.add_edge(c2, k, wt);
                }
            }
            for s in 0..m.saturating_sub(1) {
                for &c2 in &layers[s] {
                    if rng.random::<f64>() < p_jump {
                        let wt = w(rng);
                        net.add_edge(c2, k, wt);
                    }
                }
            }
        }
    }
    for m in (0..sizes.len()).rev() {
        for &i in &layers[m] {
            draw_activations(&mut net, i, rng);
        }
    }
    net.refresh().expect("benchmark network");
    net
}

fn network(abalone: bool, jumps: bool) -> Network {
    let mut rng = chain_rng(2014, u64::from(abalone), u64::from(jumps), 0);
    match (abalone, jumps) {
        (false, true) => build(&[2, 3, 2, 2], 0.3, 0.5, &mut rng),
        (false, false) => build(&[2, 3, 2, 2], 0.8, 0.0, &mut rng),
        (true, true) => build(&[9, 14, 12, 7, 3], 0.18, 0.04, &mut rng),
        (true, false) => build(&[9, 14, 12, 7, 3], 0.3, 0.0, &mut rng),
    }
}

fn params(jumps: bool) -> Params {
    Params {
        prior: if jumps { Prior::Ecibp } else { Prior::Cibp },
        ..Params::default()
    }
}

fn bench(c: &mut Criterion) {
    for (size, abalone) in [("ring", false), ("abalone", true)] {
        for (prior, jumps) in [("ecibp", true), ("cibp", false)] {
            let net = network(abalone, jumps);
            println!(
                "{size}/{prior}: {} units, {} edges ({} jump), depth {}, N = {N}",
                net.n_units(),
                net.n_edges(),
                net.n_jump_edges(),
                net.depth()
            );
            // Every timed iteration starts from the same network (a clone, not timed), so the
            // figure is for this size whatever the chain would drift to: the CIBP chain on
            // these data grows to about 20 units within 30 iterations.
            let mut kernel = Kernel::new(&params(jumps)).expect("benchmark params");
            let mut rng = chain_rng(7, 0, 0, 0);
            let mut g = c.benchmark_group("sweep");
            g.sample_size(10);
            g.throughput(Throughput::Elements(1));
            g.bench_function(format!("{prior}/{size}"), |b| {
                b.iter_batched_ref(
                    || net.clone(),
                    |n| kernel.sweep(n, &mut rng).expect("benchmark network"),
                    BatchSize::LargeInput,
                )
            });
            g.finish();
            if !jumps {
                continue;
            }
            // MTM and Phase 1 on the fixed network
            let p = params(jumps);
            let hidden: Vec<usize> = (1..net.depth())
                .flat_map(|m| net.layer(m).to_vec())
                .collect();
            let mut work = net.clone();
            let mut scratch = Vec::new();
            let mut g = c.benchmark_group("mtm");
            g.sample_size(10);
            g.throughput(Throughput::Elements((hidden.len() * N) as u64));
            g.bench_function(size, |b| {
                b.iter(|| {
                    for &k in &hidden {
                        mtm::mtm_unit(&mut work, k, p.mtm_tries, false, &mut scratch, &mut rng);
                    }
                })
            });
            g.finish();
            let mut work = net.clone();
            let cands = phase1::phase1(&mut work.clone(), &p, &mut rng).candidates;
            let mut g = c.benchmark_group("phase1");
            g.sample_size(10);
            g.throughput(Throughput::Elements(cands as u64));
            g.bench_function(size, |b| b.iter(|| phase1::phase1(&mut work, &p, &mut rng)));
            g.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
