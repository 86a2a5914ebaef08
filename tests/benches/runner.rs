//! Runner overhead: wall time per near-empty chain, from dispatch until the result is stored,
//! through local gRPC workers on loopback, and the process's peak RSS. Targets:
//! ≤ 0.5 ms per chain at 100,000 chains and 8 local workers, peak RSS flat in finished chains.
//!
//! `cargo bench -p causeway-tests --bench runner` (or `make bench`): 500 and 2,000 chains, 4
//! workers. `cargo bench -p causeway-tests --bench runner -- CHAINS WORKERS` runs one size (one
//! size per process, so that the peak RSS is that run's). Prints one line per size.

use std::path::Path;
use std::time::Instant;

use causeway_coordinator::experiment::{ProfileName, plan_from_str};
use causeway_coordinator::runner::{RunOptions, Workers, run};

fn yaml(chains: usize) -> String {
    causeway_tests::trivial_chains_yaml("overhead", chains)
}

fn main() {
    // `cargo bench` passes `--bench`; the numbers are ours.
    let nums: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes: Vec<(usize, usize)> = match nums.as_slice() {
        [chains, workers, ..] => vec![(*chains, *workers)],
        [chains] => vec![(*chains, 4)],
        [] => vec![(500, 4), (2000, 4)],
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for (n, workers) in sizes {
        let plan = plan_from_str(
            Path::new("overhead.yaml"),
            &yaml(n),
            ProfileName::Quick,
            Some(Path::new(".")),
        )
        .expect("valid experiment");
        let tmp = tempfile::tempdir().expect("tempdir");
        let opts = RunOptions {
            report: false,
            ..RunOptions::new(tmp.path().join("run"), Workers::Local(workers))
        };
        let t = Instant::now();
        let s = rt.block_on(run(&plan, &opts)).expect("run");
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(s.ok, n);
        let rss = causeway_tests::peak_rss_mib().map_or("?".to_string(), |m| format!("{m:.1}MiB"));
        println!(
            "runner_overhead chains={n} workers={workers} total={secs:.3}s per_chain={:.3}ms peak_rss={rss}",
            1e3 * secs / n as f64
        );
    }
}
