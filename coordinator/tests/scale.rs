//! Many short chains through one coordinator, with the real binary.

use crate::durability::{YAML, run_cmd, write_yaml};

/// 60,000 one-iteration chains through 2 local workers finish with none failed. Each chain's
/// stream is read to its end: a dropped stream is reset, and after enough locally reset streams
/// on one connection (h2's limit) every chain on it failed ("locally-reset streams reached
/// limit"; the run lost about half its chains at ~29,000 here).
#[test]
fn sixty_thousand_short_chains_finish_on_two_workers() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let yaml = write_yaml(
        tmp.path(),
        &YAML
            .replace("name: durable", "name: many")
            .replace("chains: 4", "chains: 10000")
            .replace(
                "run: {iterations: 150, burn_in: 0, thin: 1}",
                "run: {iterations: 1, burn_in: 0, thin: 1}",
            )
            .replace("n_trials: 200", "n_trials: 10")
            .replace("report: [wood2006.fig3]", "report: []")
            .replace("monitor: [k_plus, log_joint]", "monitor: []"),
    );
    let out = tmp.path().join("run");
    let o = run_cmd(&yaml, &out, &["--local-workers", "2"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("60000 chains: 60000 run, 0 already stored, 0 failed"),
        "{err}"
    );
}
