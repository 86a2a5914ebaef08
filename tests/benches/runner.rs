//! Runner overhead: wall time per near-empty chain, from dispatch until the result is stored,
//! through 4 local gRPC workers on loopback. Target (issue 2): ≤ 2 ms per chain.
//!
//! `cargo bench -p causeway-tests --bench runner` (or `make bench`). Prints one line per size.

use std::path::Path;
use std::time::Instant;

use causeway_coordinator::experiment::{ProfileName, plan_from_str};
use causeway_coordinator::runner::{RunOptions, Workers, run};

fn yaml(chains: usize) -> String {
    causeway_tests::trivial_chains_yaml("overhead", chains)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for n in [500usize, 2000] {
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
            ..RunOptions::new(tmp.path().join("run"), Workers::Local(4))
        };
        let t = Instant::now();
        let s = rt.block_on(run(&plan, &opts)).expect("run");
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(s.ok, n);
        println!(
            "runner_overhead chains={n} workers=4 total={secs:.3}s per_chain={:.3}ms",
            1e3 * secs / n as f64
        );
    }
}
