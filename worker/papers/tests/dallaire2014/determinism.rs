//! The chain never reads the test set: fantasy data and the KL come from the chain's
//! second stream (`seed::evaluation_rng`), so changing the test set changes the `kl` column and
//! nothing else, and dropping it removes the column.

use causeway_papers::Sampler;
use causeway_papers::dallaire2014::params::{Params, Prior};
use causeway_papers::dallaire2014::samplers::NetworkSampler;
use causeway_papers::{Matrix, RunSpec, chain_rng, run_chain};

/// A ring-like training set (n × 2) from a fixed formula, and two different test sets.
fn data(n: usize, phase: f64) -> Matrix {
    let values = (0..n)
        .flat_map(|i| {
            let t = i as f64 * 2.399 + phase;
            let r = 1.0 + 0.1 * (i as f64 * 0.7).sin();
            [r * t.cos(), r * t.sin()]
        })
        .collect();
    Matrix::new("x", n, 2, values)
}

fn trace(prior: Prior, test: Option<&Matrix>) -> (Vec<String>, Vec<f64>) {
    let params = Params {
        prior,
        ..Params::default()
    };
    let x = data(50, 0.0);
    let mut rng = chain_rng(17, 3, 0, 1);
    let mut s = NetworkSampler::new(&params, &x, test, &mut rng).unwrap();
    let spec = RunSpec {
        iterations: 60,
        burn_in: 20,
        thin: 3,
    };
    let out = run_chain(&mut s, &spec, &mut rng, &mut |_, _| {}).unwrap();
    assert_eq!(out.trace_names, s.trace_names());
    (out.trace_names, out.trace)
}

/// Every trace column but `kl` is identical whatever the test set, for both priors.
#[test]
fn dallaire2014_the_test_set_never_changes_the_chain() {
    for prior in [Prior::Ecibp, Prior::Cibp] {
        let (names_a, a) = trace(prior, Some(&data(40, 0.5)));
        let (names_b, b) = trace(prior, Some(&data(30, 1.5)));
        let (names_none, none) = trace(prior, None);
        assert_eq!(names_a, names_b);
        let kl = names_a.iter().position(|n| n == "kl").expect("a kl column");
        assert!(!names_none.iter().any(|n| n == "kl"), "{names_none:?}");
        let w = names_a.len();
        let rows = a.len() / w;
        assert_eq!(rows, 20);
        let mut kl_differs = false;
        for r in 0..rows {
            let mut other = 0;
            for (j, name) in names_a.iter().enumerate() {
                if j == kl {
                    kl_differs |= a[r * w + j] != b[r * w + j];
                    continue;
                }
                assert_eq!(
                    a[r * w + j],
                    b[r * w + j],
                    "{prior:?} row {r} column {name}"
                );
                assert_eq!(
                    a[r * w + j],
                    none[r * (w - 1) + other],
                    "{prior:?} row {r} column {name} without a test set"
                );
                other += 1;
            }
        }
        assert!(kl_differs, "{prior:?}: the kl column ignored the test set");
    }
}
