//! hidden2025 benchmarks: `cargo bench -p causeway-papers --bench hidden2025`.
//!
//! The samplers are built exactly as a run builds them: the registry's model
//! (`causeway_papers::model("hidden2025")`), its `dataset` from the experiment file's `dataset:`
//! block and its `sampler` from the cell's `params:` block (the JSON below is the YAML's), so
//! the figures are what one chain of `causeway run` costs per iteration.
//!
//! - `alg1/{step,iteration}/k_pa{2,3,5,10}`: Algorithm 1 (paper 002, §3 and supplement B; u_j
//!   draws, one MALA step per category, eq 12) for the child y given its parent x, the Table 1
//!   setting of `experiments/hidden2025/table1_sparse_counts.yaml`: n = 100, ε = (0.5, 0.5),
//!   b = 1, ρ = 2, t0 = (1, 1), one `sparse_counts` dataset per K_Pa (drawn with
//!   `dataset_rng(20250501, K_Pa, 0)`). `step` is `Sampler::step` alone; `iteration` is what the
//!   chain driver does per post-burn-in iteration (Table 1 runs with burn_in 0): `step`,
//!   `accumulate` (eq 14's running sum), `record` and `record_stats`.
//! - `alg2/{step,iteration}/lung_cancer`: Algorithms 1 + 2 (§4.1, eq 13: one Gibbs sweep over
//!   the 11 edge indicators) for Lung_Cancer on LUCAS0 (`data/lucas/lucas0_train.csv`, n = 2000,
//!   all 11 other columns as candidates), the Table 2 cell of
//!   `experiments/hidden2025/table2_lucas_blankets.yaml` (ε = (0.11, 0.15), ρ = 2, b = c = d = 1,
//!   t0 = (1, 1), z from the prior), after 200 warm-up iterations (the file's burn-in) so the
//!   parent set sits where the chain spends its time. Criterion's element throughput is
//!   **iterations per second** on one core (target: ≥ 2,000).
//!
//! Times are **on-CPU time of the benchmark thread** (the first field of
//! `/proc/thread-self/schedstat`, nanoseconds), so they measure one core's work even when the
//! shared machine is oversubscribed; where that file is unreadable they fall back to wall-clock
//! time.
use std::path::PathBuf;
use std::time::{Duration, Instant};

use causeway_papers::{ChainRng, DataContext, Dataset, Sampler, chain_rng, dataset_rng, model};
use criterion::{Bencher, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

/// Table 1's experiment seed (`table1_sparse_counts.yaml`).
const TABLE1_SEED: u64 = 20250501;
/// Table 2's experiment seed (`table2_lucas_blankets.yaml`).
const TABLE2_SEED: u64 = 20250502;

/// Nanoseconds the calling thread has spent on a CPU (`/proc/thread-self/schedstat`, field 1).
fn on_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Time `iters` calls of `f` by the thread's on-CPU time (wall-clock time if unavailable).
fn time_on_cpu(b: &mut Bencher, mut f: impl FnMut()) {
    b.iter_custom(|iters| {
        let wall = Instant::now();
        let before = on_cpu_ns();
        for _ in 0..iters {
            f();
        }
        match (before, on_cpu_ns()) {
            (Some(a), Some(z)) if z > a => Duration::from_nanos(z - a),
            _ => wall.elapsed(),
        }
    })
}

fn data_context() -> DataContext {
    DataContext {
        data_dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data"),
    }
}

/// The registry's dataset and sampler for one cell, as a worker builds them.
fn build(
    params: &Value,
    dataset: &Value,
    mut data_rng: ChainRng,
    mut rng: ChainRng,
) -> (Dataset, Box<dyn Sampler>) {
    let m = model("hidden2025").expect("hidden2025 is registered");
    m.validate(params, dataset).expect("valid cell");
    let data = m
        .dataset(dataset, &data_context(), &mut data_rng)
        .expect("dataset");
    m.check_cell(params, &data).expect("cell fits the data");
    let s = m.sampler(params, &data, &mut rng).expect("sampler");
    (data, s)
}

/// One post-burn-in iteration as the chain driver runs it (`chain::drive_chain`, thin = 1).
fn driver_iteration(
    s: &mut dyn Sampler,
    rng: &mut ChainRng,
    row: &mut Vec<f64>,
    stats: &mut Vec<f64>,
) {
    s.step(rng).expect("step");
    s.accumulate();
    row.clear();
    s.record(row);
    stats.clear();
    s.record_stats(stats);
}

/// Time `step` and the driver's whole iteration of the sampler `params` × `dataset`, after
/// `warmup` untimed iterations, under `group/{step,iteration}/label`.
fn bench_pair(
    c: &mut Criterion,
    group: &str,
    label: &str,
    (params, dataset): (Value, Value),
    (seed, key): (u64, u64),
    warmup: u64,
) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(1));
    for kind in ["step", "iteration"] {
        let (_data, mut s) = build(
            &params,
            &dataset,
            dataset_rng(seed, key, 0),
            chain_rng(seed, key, 0, 0),
        );
        let mut rng = chain_rng(seed, key, 0, 1);
        let (mut row, mut stats) = (Vec::new(), Vec::new());
        for _ in 0..warmup {
            s.step(&mut rng).expect("warm-up step");
        }
        g.bench_function(format!("{kind}/{label}"), |b| {
            if kind == "step" {
                time_on_cpu(b, || s.step(&mut rng).expect("step"))
            } else {
                time_on_cpu(b, || {
                    driver_iteration(&mut *s, &mut rng, &mut row, &mut stats)
                })
            }
        });
    }
    g.finish();
}

/// Algorithm 1 in the Table 1 setting, K_Pa ∈ {2, 3, 5, 10}.
fn alg1(c: &mut Criterion) {
    for k_pa in [2u64, 3, 5, 10] {
        let params = json!({
            "method": "mala", "node": "y", "parents": ["x"],
            "step_sizes": [0.5, 0.5], "b": 1.0, "rho": 2.0, "t0": [1.0, 1.0],
        });
        let dataset = json!({"kind": "sparse_counts", "n": 100, "k_pa": k_pa, "levels": "present"});
        bench_pair(
            c,
            "alg1",
            &format!("k_pa{k_pa}"),
            (params, dataset),
            (TABLE1_SEED, k_pa),
            0,
        );
    }
}

/// Algorithms 1 + 2 for Lung_Cancer on LUCAS0 (Table 2's cell, ρ = 2).
fn alg2(c: &mut Criterion) {
    let params = json!({
        "method": "edges", "node": "Lung_Cancer", "rho": 2, "b": 1, "c": 1, "d": 1,
        "t0": [1, 1], "init": "prior", "step_sizes": [0.11, 0.15],
        "candidates": [
            "Smoking", "Yellow_Fingers", "Anxiety", "Peer_Pressure", "Genetics",
            "Attention_Disorder", "Born_An_Even_Day", "Car_Accident", "Fatigue", "Allergy",
            "Coughing",
        ],
    });
    let dataset = json!({"kind": "csv", "path": "lucas/lucas0_train.csv"});
    bench_pair(
        c,
        "alg2",
        "lung_cancer",
        (params, dataset),
        (TABLE2_SEED, 0),
        200,
    );
}

criterion_group!(benches, alg1, alg2);
criterion_main!(benches);
