//! Cross-crate tests live in `tests/tests/`; benchmarks in `tests/benches/`. This library holds
//! what several of them share.

/// A grid of `chains` near-empty wood2006 chains (one iteration on a 2 × 2 dataset), named
/// `name`: what the runner overhead and load benchmarks dispatch.
pub fn trivial_chains_yaml(name: &str, chains: usize) -> String {
    format!(
        r#"
name: {name}
model: wood2006
seed: 1
chains: {chains}
replicates: 1
run: {{iterations: 1}}
params: {{sampler: gibbs, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, init: empty}}
dataset: {{kind: ibp_synthetic, n_observed: 2, n_trials: 2, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 1}}
profiles: {{quick: {{}}, paper: {{}}}}
"#
    )
}

/// The process's peak resident set (`VmHWM` in /proc/self/status), in MiB; `None` off Linux.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
