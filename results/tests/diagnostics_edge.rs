//! Edge cases of the diagnostics, as ArviZ 0.23.4 handles them (except < 4 draws, which
//! causeway refuses with an error where ArviZ returns NaN).

use causeway_results::diagnostics::{
    Diagnostics, DiagnosticsError, Draws, TailProbs, diagnose, diagnose_draws, ess_bulk, ess_mean,
    ess_tail, mcse_mean, rhat, rhat_split,
};

/// Deterministic AR(1) chains (xorshift uniforms → Box–Muller), M × N.
fn ar1(m: usize, n: usize, rho: f64, seed: u64) -> Vec<Vec<f64>> {
    let mut s = seed | 1;
    let mut u = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    (0..m)
        .map(|_| {
            let mut x = 0.0;
            (0..n)
                .map(|_| {
                    let e = (-2.0 * u().ln()).sqrt() * (std::f64::consts::TAU * u()).cos();
                    x = rho * x + e;
                    x
                })
                .collect()
        })
        .collect()
}

/// Equal up to rounding: `diagnose` shares FFTs between two ESS computations, which changes
/// the last bits only.
fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
}

fn slices(v: &[Vec<f64>]) -> Vec<&[f64]> {
    v.iter().map(Vec::as_slice).collect()
}

#[test]
fn single_chain_has_nan_rhat_but_finite_ess() {
    let v = ar1(1, 500, 0.5, 7);
    let d = diagnose(&slices(&v)).unwrap();
    assert!(d.rhat.is_nan());
    assert!(d.rhat_split.is_nan());
    for x in [d.ess_bulk, d.ess_tail, d.ess_mean, d.mcse_mean] {
        assert!(x.is_finite() && x > 0.0, "{d:?}");
    }
}

#[test]
fn any_nan_gives_all_nan() {
    let mut v = ar1(3, 100, 0.2, 11);
    v[1][42] = f64::NAN;
    let c = slices(&v);
    let d = diagnose(&c).unwrap();
    for x in [
        d.rhat,
        d.rhat_split,
        d.ess_bulk,
        d.ess_tail,
        d.ess_mean,
        d.mcse_mean,
    ] {
        assert!(x.is_nan(), "{d:?}");
    }
    let draws = Draws::new(&c).unwrap();
    assert!(rhat(&draws).is_nan());
    assert!(rhat_split(&draws).is_nan());
    assert!(ess_bulk(&draws, false).is_nan());
    assert!(ess_tail(&draws, TailProbs::default(), false).is_nan());
    assert!(ess_mean(&draws, false).is_nan());
    assert!(mcse_mean(&draws).is_nan());
}

#[test]
fn constant_input_has_ess_equal_to_draw_count() {
    let v = vec![vec![3.25; 100]; 4];
    let d = diagnose(&slices(&v)).unwrap();
    assert_eq!(d.ess_bulk, 400.0);
    assert_eq!(d.ess_tail, 400.0);
    assert_eq!(d.ess_mean, 400.0);
    assert_eq!(d.mcse_mean, 0.0);
    // R-hat of a constant is 0/0, NaN in ArviZ too.
    assert!(d.rhat.is_nan() && d.rhat_split.is_nan());
    // Odd N: ArviZ counts the split draws, M·(N−1).
    let v = vec![vec![-1.0; 101]; 4];
    assert_eq!(diagnose(&slices(&v)).unwrap().ess_bulk, 400.0);
}

#[test]
fn fewer_than_four_draws_is_an_error() {
    let v = vec![vec![1.0, 2.0, 3.0]; 4];
    let err = diagnose(&slices(&v)).unwrap_err();
    assert_eq!(err, DiagnosticsError::TooFewDraws { n_draws: 3 });
    assert!(err.to_string().contains("at least 4 draws"), "{err}");
    assert!(Draws::new(&[&[1.0, 2.0, 3.0, 4.0][..]]).is_ok());
}

#[test]
fn shape_errors() {
    assert_eq!(diagnose(&[]).unwrap_err(), DiagnosticsError::NoChains);
    let a = [0.0; 10];
    let b = [0.0; 9];
    let err = diagnose(&[&a, &b]).unwrap_err();
    assert_eq!(
        err,
        DiagnosticsError::RaggedChains {
            chain: 1,
            len: 9,
            expected: 10
        }
    );
    assert!(err.to_string().contains("chain 1 has 9 draws"));
    assert!(matches!(
        Draws::from_row_major(&[0.0; 10], 3),
        Err(DiagnosticsError::ShapeMismatch { .. })
    ));
    assert!(matches!(
        Draws::from_row_major(&[0.0; 10], 0),
        Err(DiagnosticsError::NoChains)
    ));
    assert!(TailProbs::new(-0.1, 0.9).is_err());
    assert!(TailProbs::new(0.1, f64::NAN).is_err());
}

#[test]
fn row_major_and_slices_agree() {
    let v = ar1(4, 257, 0.8, 3);
    let flat: Vec<f64> = v.concat();
    let a = diagnose(&slices(&v)).unwrap();
    let b = diagnose_draws(
        &Draws::from_row_major(&flat, 4).unwrap(),
        TailProbs::default(),
    );
    assert_eq!(a, b);
}

#[test]
fn relative_flag_divides_by_split_draw_count() {
    let v = ar1(4, 301, 0.7, 5);
    let c = slices(&v);
    let d = Draws::new(&c).unwrap();
    let s = (4 * 2 * 150) as f64;
    for (abs, rel) in [
        (ess_bulk(&d, false), ess_bulk(&d, true)),
        (ess_mean(&d, false), ess_mean(&d, true)),
        (
            ess_tail(&d, TailProbs::default(), false),
            ess_tail(&d, TailProbs::default(), true),
        ),
    ] {
        assert!((abs / s - rel).abs() <= 1e-12 * rel, "{abs} {rel}");
    }
}

#[test]
fn ess_is_capped_at_s_log10_s() {
    // Strongly antithetic chains: τ̂ hits the floor 1/log10(S).
    let v = ar1(2, 1000, -0.95, 9);
    let d = diagnose(&slices(&v)).unwrap();
    let s = 2000.0f64;
    assert!((d.ess_mean - s * s.log10()).abs() < 1e-9, "{}", d.ess_mean);
}

#[test]
fn tail_quantile_pair_is_a_parameter() {
    let v = ar1(4, 1000, 0.9, 13);
    let c = slices(&v);
    let d = Draws::new(&c).unwrap();
    let default = ess_tail(&d, TailProbs::default(), false);
    let arviz_stats = ess_tail(&d, TailProbs::new(0.11, 0.89).unwrap(), false);
    assert_eq!(default, diagnose(&c).unwrap().ess_tail);
    close(
        arviz_stats,
        diagnose_draws(&d, TailProbs::new(0.89, 0.11).unwrap()).ess_tail,
    );
    assert_ne!(default, arviz_stats);
}

#[test]
fn diagnose_matches_individual_functions_on_large_odd_input() {
    // Large enough for the radix sort, the Φ⁻¹ table threads and parallel FFTs.
    let v = ar1(4, 100_001, 0.95, 21);
    let c = slices(&v);
    let d = Draws::new(&c).unwrap();
    let all = diagnose(&c).unwrap();
    assert_eq!(all.rhat, rhat(&d));
    assert_eq!(all.rhat_split, rhat_split(&d));
    close(all.ess_bulk, ess_bulk(&d, false));
    close(all.ess_tail, ess_tail(&d, TailProbs::default(), false));
    close(all.ess_mean, ess_mean(&d, false));
    close(all.mcse_mean, mcse_mean(&d));
    assert!(all.rhat > 0.99 && all.rhat < 1.05, "{all:?}");
}

#[test]
fn json_serialisation_writes_null_for_nan() {
    let d = Diagnostics {
        rhat: f64::NAN,
        rhat_split: f64::INFINITY,
        ess_bulk: 10.5,
        ess_tail: 3.0,
        ess_mean: 1.0,
        mcse_mean: 0.25,
    };
    let s = serde_json::to_string(&d).unwrap();
    assert_eq!(
        s,
        r#"{"rhat":null,"rhat_split":null,"ess_bulk":10.5,"ess_tail":3.0,"ess_mean":1.0,"mcse_mean":0.25}"#
    );
}
