//! Property tests (fuzzing) of the experiment loader: arbitrary text and mutations of the real
//! experiment files (byte flips, truncations, swapped keys and values, huge numbers) must give
//! `Ok` or a located `Err`, never a panic. Deterministic: fixed ChaCha seed, no persistence.

use std::path::Path;

use causeway_coordinator::experiment::{ProfileName, plan_from_str};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed};

const FILES: &[(&str, &str)] = &[
    (
        "wood2006/fig3_k_recovery.yaml",
        include_str!("../../experiments/wood2006/fig3_k_recovery.yaml"),
    ),
    (
        "wood2006/fig4_structures.yaml",
        include_str!("../../experiments/wood2006/fig4_structures.yaml"),
    ),
    (
        "wood2006/lucas.yaml",
        include_str!("../../experiments/wood2006/lucas.yaml"),
    ),
    (
        "kurutmaz2019/toy.yaml",
        include_str!("../../experiments/kurutmaz2019/toy.yaml"),
    ),
    (
        "kurutmaz2019/synthetic.yaml",
        include_str!("../../experiments/kurutmaz2019/synthetic.yaml"),
    ),
    (
        "kurutmaz2019/cep.yaml",
        include_str!("../../experiments/kurutmaz2019/cep.yaml"),
    ),
    (
        "kurutmaz2019/abalone.yaml",
        include_str!("../../experiments/kurutmaz2019/abalone.yaml"),
    ),
];

fn config(cases: u32, seed: u64) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    }
}

/// Load `text` with both profiles; on success, use the plan the way `causeway run` does.
fn load(text: &str) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    for profile in [ProfileName::Quick, ProfileName::Paper] {
        match plan_from_str(Path::new("fuzz.yaml"), text, profile, Some(&data)) {
            Ok(plan) => {
                // What `causeway run` prints before anything starts.
                let n = plan.manifest.cells.len() as u64 * plan.replicates * plan.chains;
                assert!(n >= 1);
            }
            Err(e) => {
                assert!(!e.message.is_empty());
                let _ = e.to_string();
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, xor: u8 },
    Truncate { at: usize },
    SwapValues { a: usize, b: usize },
    KeyToValue { line: usize },
    Huge { line: usize },
    DropLine { line: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(at, xor)| Mutation::Flip { at, xor }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapValues { a, b }),
        any::<usize>().prop_map(|line| Mutation::KeyToValue { line }),
        any::<usize>().prop_map(|line| Mutation::Huge { line }),
        any::<usize>().prop_map(|line| Mutation::DropLine { line }),
    ]
}

/// Lines of the form `key: value`, split at the first `: `.
fn split(line: &str) -> Option<(&str, &str)> {
    let i = line.find(": ")?;
    Some((&line[..i], &line[i + 2..]))
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let kv: Vec<usize> = (0..lines.len())
        .filter(|&i| split(&lines[i]).is_some())
        .collect();
    match *m {
        Mutation::Flip { at, xor } => {
            let mut b = text.as_bytes().to_vec();
            if !b.is_empty() {
                let i = at % b.len();
                b[i] ^= xor;
            }
            return String::from_utf8_lossy(&b).into_owned();
        }
        Mutation::Truncate { at } => {
            let b = text.as_bytes();
            let i = if b.is_empty() { 0 } else { at % b.len() };
            return String::from_utf8_lossy(&b[..i]).into_owned();
        }
        Mutation::SwapValues { a, b } if !kv.is_empty() => {
            let (i, j) = (kv[a % kv.len()], kv[b % kv.len()]);
            let (ki, vi) = split(&lines[i])
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .unwrap_or_default();
            let (kj, vj) = split(&lines[j])
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .unwrap_or_default();
            lines[i] = format!("{ki}: {vj}");
            lines[j] = format!("{kj}: {vi}");
        }
        Mutation::KeyToValue { line } if !kv.is_empty() => {
            let i = kv[line % kv.len()];
            if let Some((k, v)) = split(&lines[i]).map(|(k, v)| (k.to_string(), v.to_string())) {
                let indent = k.len() - k.trim_start().len();
                lines[i] = format!("{}{}: {}", " ".repeat(indent), v.trim(), k.trim());
            }
        }
        Mutation::Huge { line } if !kv.is_empty() => {
            let i = kv[line % kv.len()];
            if let Some((k, _)) = split(&lines[i]).map(|(k, v)| (k.to_string(), v.to_string())) {
                lines[i] = format!("{k}: 18446744073709551615");
            }
        }
        Mutation::DropLine { line } if !lines.is_empty() => {
            let n = lines.len();
            lines.remove(line % n);
        }
        _ => {}
    }
    lines.join("\n")
}

proptest! {
    #![proptest_config(config(96, 0xA11CE))]

    #[test]
    fn arbitrary_text(text in prop_oneof![".{0,200}", "[a-z_:{}\\[\\], \n0-9.-]{0,200}"]) {
        load(&text);
    }

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        load(&String::from_utf8_lossy(&bytes));
    }
}

proptest! {
    #![proptest_config(config(96, 0xE1E1))]

    #[test]
    fn mutated_experiments(file in 0..FILES.len(), ms in prop::collection::vec(mutation(), 1..4)) {
        let mut text = FILES[file].1.to_string();
        for m in &ms {
            text = apply(&text, m);
        }
        load(&text);
    }
}

#[test]
fn real_experiments_load() {
    for (name, text) in FILES {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
        plan_from_str(Path::new(name), text, ProfileName::Quick, Some(&data))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn huge_counts_are_refused() {
    let text = FILES[0]
        .1
        .replace("\nchains: 4\n", "\nchains: 18446744073709551615\n")
        .replace("\nreplicates: 10\n", "\nreplicates: 18446744073709551615\n");
    assert_ne!(text, FILES[0].1);
    let e = plan_from_str(Path::new("huge.yaml"), &text, ProfileName::Paper, None)
        .expect_err("2^64 chains must be refused");
    assert!(e.message.contains("chains in all"), "{e}");
    load(&text);
}
