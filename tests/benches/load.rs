//! Load: a grid of 100,000 near-empty chains through 8 local gRPC workers on loopback, with the
//! durable job table and one set of Parquet files per chain, as `causeway run` does it.
//!
//! Prints, per grid size: the time to expand the grid (YAML → plan → jobs), the time from the
//! start of the run until dispatch starts (manifest, datasets, job table, reconcile), the
//! overhead per chain (wall / chains; target ≤ 1 ms), and the coordinator's peak RSS (VmHWM of
//! this process, which is the coordinator and the workers) so that its growth between sizes
//! can be checked: memory must not grow with finished chains.
//!
//! `cargo bench -p causeway-tests --bench load` (also in `make bench`). `LOAD_CHAINS=N` runs
//! one size only.

use std::path::Path;
use std::time::Instant;

use causeway_coordinator::experiment::{ProfileName, plan_from_str};
use causeway_coordinator::runner::{RunOptions, Workers, run};

fn yaml(chains: usize) -> String {
    causeway_tests::trivial_chains_yaml("load", chains)
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let sizes: Vec<usize> = match std::env::var("LOAD_CHAINS") {
        Ok(v) => vec![v.parse().expect("LOAD_CHAINS: a number")],
        Err(_) => vec![10_000, 100_000],
    };
    for n in sizes {
        let t = Instant::now();
        let plan = plan_from_str(
            Path::new("load.yaml"),
            &yaml(n),
            ProfileName::Quick,
            Some(Path::new(".")),
        )
        .expect("valid experiment");
        let expand = t.elapsed().as_secs_f64();
        let tmp = tempfile::tempdir().expect("tempdir");
        let opts = RunOptions {
            report: false,
            ..RunOptions::new(tmp.path().join("run"), Workers::Local(8))
        };
        let t = Instant::now();
        let s = rt.block_on(run(&plan, &opts)).expect("run");
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(
            s.ok,
            n,
            "failures: {:?}",
            &s.failed[..s.failed.len().min(5)]
        );
        println!(
            "load chains={n} workers=8 expand={:.3}s schedule={:.3}s total={secs:.3}s per_chain={:.3}ms peak_rss={:.1}MiB",
            expand,
            s.setup_seconds,
            1e3 * secs / n as f64,
            causeway_tests::peak_rss_mib().unwrap_or(f64::NAN)
        );
    }
}
