//! wood2006: caches, determinism, summaries, datasets and parameter validation.
#![allow(clippy::needless_range_loop)]

use std::path::PathBuf;

use causeway_papers::wood2006::{
    BinaryMatrix, HiddenCauseSampler, Hyper, Init, Params, SamplerKind, Wood2006,
};
use causeway_papers::{
    DataContext, Dataset, Model, RunSpec, Sampler, chain_rng, dataset_rng, model, run_chain,
};
use serde_json::{Value, json};

fn synthetic(n: usize, t: usize, k_plus: usize, seed: u64) -> Dataset {
    let spec = json!({"kind": "ibp_synthetic", "n_observed": n, "n_trials": t, "k_plus": k_plus,
                      "alpha": 2.0, "lambda": 0.9, "epsilon": 0.05, "p": 0.2});
    let ctx = DataContext {
        data_dir: std::env::temp_dir(),
    };
    Wood2006
        .dataset(&spec, &ctx, &mut dataset_rng(seed, 1, 0))
        .expect("dataset")
}

fn x_of(ds: &Dataset) -> BinaryMatrix {
    BinaryMatrix::from_matrix(ds.observed("x").unwrap()).unwrap()
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wood2006-test-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn caches_match_recomputation_every_step() {
    let ds = synthetic(6, 40, 3, 1);
    let x = x_of(&ds);
    for kind in [SamplerKind::Gibbs, SamplerKind::Rjmcmc] {
        for init in [Init::Empty, Init::Random] {
            let mut p = Params::defaults(kind);
            p.update_hyperparameters = true;
            p.init = init;
            p.init_k = 4;
            let mut rng = chain_rng(3, 4, 5, 6);
            let mut s = HiddenCauseSampler::new(&p, &x, vec![], &mut rng).unwrap();
            s.check_caches().unwrap();
            for it in 0..150 {
                s.step(&mut rng).unwrap();
                if let Err(e) = s.check_caches() {
                    panic!("{kind:?}/{init:?} iteration {it}: {e}");
                }
                if kind == SamplerKind::Rjmcmc {
                    assert!((1..=p.k_max).contains(&s.k()));
                } else {
                    assert_eq!(s.k(), s.k_plus());
                }
            }
        }
    }
}

fn trace(kind: SamplerKind, seed: u64) -> Vec<f64> {
    let ds = synthetic(5, 30, 2, 2);
    let mut params = serde_json::to_value(Params::defaults(kind)).unwrap();
    params["update_hyperparameters"] = json!(true);
    let m = model("wood2006").unwrap();
    let mut rng = chain_rng(seed, 1, 0, 0);
    let mut s = m.sampler(&params, &ds, &mut rng).unwrap();
    let out = run_chain(
        s.as_mut(),
        &RunSpec {
            iterations: 40,
            burn_in: 10,
            thin: 1,
        },
        &mut rng,
        &mut |_, _| {},
    )
    .unwrap();
    out.trace
}

#[test]
fn same_seed_same_trace() {
    for kind in [SamplerKind::Gibbs, SamplerKind::Rjmcmc] {
        let a = trace(kind, 9);
        assert_eq!(a, trace(kind, 9));
        assert_ne!(a, trace(kind, 10));
    }
}

#[test]
fn summaries_have_the_contracted_names_and_shapes() {
    let mut ds = synthetic(5, 30, 2, 3);
    let names: Vec<String> = (0..5).map(|i| format!("v{i}")).collect();
    ds.observed[0].row_names = names.clone();
    let m = model("wood2006").unwrap();
    for kind in ["gibbs", "rjmcmc"] {
        let params = json!({"sampler": kind, "alpha": 2.0, "epsilon": 0.05, "p": 0.2});
        m.validate(
            &params,
            &json!({"kind": "ibp_synthetic", "n_observed": 5, "k_plus": 2}),
        )
        .unwrap();
        let mut rng = chain_rng(1, 2, 3, 4);
        let mut s = m.sampler(&params, &ds, &mut rng).unwrap();
        let expected_trace: Vec<&str> = if kind == "gibbs" {
            vec!["k_plus", "log_joint", "alpha", "lambda", "epsilon", "p"]
        } else {
            vec![
                "k_plus",
                "k",
                "log_joint",
                "alpha",
                "lambda",
                "epsilon",
                "p",
            ]
        };
        assert_eq!(s.trace_names(), expected_trace);
        let out = run_chain(
            s.as_mut(),
            &RunSpec {
                iterations: 30,
                burn_in: 10,
                thin: 3,
            },
            &mut rng,
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(out.iterations.len(), 10);
        let get = |name: &str| {
            out.summary
                .iter()
                .find(|m| m.name == name)
                .unwrap_or_else(|| panic!("no {name}"))
        };
        for mtx in &out.summary {
            mtx.check().unwrap();
        }
        let zzt = get("zzt_mean");
        assert_eq!((zzt.rows, zzt.cols), (5, 5));
        assert_eq!(zzt.row_names, names);
        for a in 0..5 {
            for b in 0..5 {
                assert_eq!(zzt.get(a, b), zzt.get(b, a));
            }
        }
        let draws = get("zzt_draws");
        assert_eq!((draws.rows, draws.cols), (30, 15));
        // the mean of the post-burn-in draws is zzt_mean
        for a in 0..5 {
            for b in a..5 {
                let col = a * 5 - a * (a + 1) / 2 + b;
                let mean: f64 = (10..30).map(|r| draws.get(r, col)).sum::<f64>() / 20.0;
                assert!((mean - zzt.get(a, b)).abs() < 1e-12, "({a},{b})");
            }
        }
        let map_z = get("map_z");
        let map_y = get("map_y");
        let mean_y = get("map_y_mean");
        assert_eq!(map_z.rows, 5);
        assert_eq!(map_z.row_names, names);
        assert_eq!((map_y.rows, map_y.cols), (map_z.cols, 30));
        assert_eq!((mean_y.rows, mean_y.cols), (map_z.cols, 30));
        assert!(mean_y.values.iter().all(|v| (0.0..=1.0).contains(v)));
        let lj_col = expected_trace
            .iter()
            .position(|n| *n == "log_joint")
            .unwrap();
        let best = (0..out.iterations.len())
            .map(|r| out.trace[r * expected_trace.len() + lj_col])
            .fold(f64::MIN, f64::max);
        assert!(get("map_log_joint").values[0] >= best);
    }
}

/// `map_y_mean` against brute force `P(y_{:,t} | x_{:,t}, Z)` over all activation patterns, for
/// the exact path (K_+ = 3) and the Rao–Blackwellised Gibbs path (K_+ = 13).
#[test]
fn map_y_mean_matches_brute_force() {
    let (n, t) = (4, 3);
    let x = BinaryMatrix {
        rows: n,
        cols: t,
        data: vec![1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0],
    };
    for k in [3usize, 13] {
        let mut z = BinaryMatrix::zeros(n, k);
        for j in 0..k {
            z.set(j % n, j, 1);
            z.set((j * 3 + 1) % n, j, 1);
        }
        let y = BinaryMatrix::zeros(k, t);
        let h = Hyper {
            alpha: 1.0,
            lambda: 0.7,
            epsilon: 0.1,
            p: 0.25,
        };
        let mut p = Params::defaults(SamplerKind::Gibbs);
        p.map_y_sweeps = 2000;
        let mut rng = chain_rng(5, 5, 5, 5);
        let mut s = HiddenCauseSampler::new(&p, &x, vec![], &mut rng).unwrap();
        s.set_state(&z, &y, Some(h)).unwrap();
        let mean = s
            .summary()
            .into_iter()
            .find(|m| m.name == "map_y_mean")
            .unwrap();
        assert_eq!((mean.rows, mean.cols), (k, t));
        for tt in 0..t {
            let mut num = vec![0.0; k];
            let mut den = 0.0;
            for c in 0u32..(1 << k) {
                let mut w = 1.0;
                for j in 0..k {
                    w *= if c >> j & 1 == 1 { h.p } else { 1.0 - h.p };
                }
                for i in 0..n {
                    let eta = (0..k)
                        .filter(|&j| c >> j & 1 == 1 && z.get(i, j) == 1)
                        .count() as i32;
                    let q = (1.0 - h.lambda).powi(eta) * (1.0 - h.epsilon);
                    w *= if x.get(i, tt) == 1 { 1.0 - q } else { q };
                }
                den += w;
                for (j, nj) in num.iter_mut().enumerate() {
                    if c >> j & 1 == 1 {
                        *nj += w;
                    }
                }
            }
            for j in 0..k {
                let want = num[j] / den;
                let tol = if k <= 12 { 1e-10 } else { 0.03 };
                assert!(
                    (mean.get(j, tt) - want).abs() < tol,
                    "K+={k} ({j},{tt}): {} vs {want}",
                    mean.get(j, tt)
                );
            }
        }
    }
}

fn perr(params: Value) -> causeway_papers::ParamError {
    let ds = json!({"kind": "ibp_synthetic", "n_observed": 5, "k_plus": 2});
    model("wood2006")
        .unwrap()
        .validate(&params, &ds)
        .unwrap_err()
}

fn derr(dataset: Value) -> causeway_papers::ParamError {
    model("wood2006")
        .unwrap()
        .validate(&json!({"sampler": "gibbs"}), &dataset)
        .unwrap_err()
}

#[test]
fn out_of_range_params_name_their_path() {
    for (key, bad) in [
        ("lambda", json!(1.0)),
        ("lambda", json!(0.0)),
        ("epsilon", json!(-0.1)),
        ("p", json!(1.5)),
        ("alpha", json!(0.0)),
        ("k_new_max", json!(0)),
        ("init_k", json!(0)),
        ("lambda_step", json!(-1.0)),
    ] {
        let mut p = json!({"sampler": "gibbs"});
        p[key] = bad.clone();
        let e = perr(p);
        assert_eq!(e.path, format!("params.{key}"), "{key}={bad}: {e}");
        assert!(e.message.contains("allowed"), "{e}");
    }
    let e = perr(json!({"sampler": "gibbs", "lambda_prior": [0.0, 1.0]}));
    assert_eq!(e.path, "params.lambda_prior[0]");
    let e = perr(json!({"sampler": "rjmcmc", "k_prior": {"kind": "poisson", "mean": -2.0}}));
    assert_eq!(e.path, "params.k_prior.mean");
    let e = perr(json!({"sampler": "rjmcmc", "k_prior": {"kind": "geometric", "q": 1.0}}));
    assert_eq!(e.path, "params.k_prior.q");
    let e = perr(json!({"sampler": "rjmcmc", "init": "random", "init_k": 20, "k_max": 10}));
    assert_eq!(e.path, "params.init_k");
    let e = perr(json!({"sampler": "gibs"}));
    assert_eq!(e.path, "params.sampler");
    assert!(
        e.message.contains("gibbs") && e.message.contains("rjmcmc"),
        "{e}"
    );
    let e = perr(json!({"lambda": 0.5}));
    assert!(e.message.contains("sampler"), "{e}");
    let e = perr(json!({"sampler": "gibbs", "lambda": "high"}));
    assert_eq!(e.path, "params.lambda");
}

#[test]
fn unknown_keys_are_refused_with_the_allowed_ones() {
    let e = perr(json!({"sampler": "gibbs", "lamda": 0.5}));
    assert!(
        e.message.contains("lamda")
            && e.message.contains("lambda")
            && e.message.contains("k_new_max"),
        "{e}"
    );
    let e =
        perr(json!({"sampler": "rjmcmc", "k_prior": {"kind": "poisson", "mean": 2.0, "men": 1}}));
    assert!(e.path.starts_with("params.k_prior"), "{e}");
    assert!(e.message.contains("men"), "{e}");
    let e = derr(json!({"kind": "ibp_synthetic", "n_observed": 5, "k_plus": 2, "n_trails": 10}));
    assert!(
        e.message.contains("n_trails") && e.message.contains("n_trials"),
        "{e}"
    );
    let e = derr(json!({"kind": "fixed_structure", "z": [[1]], "lamda": 0.5}));
    assert!(e.message.contains("lambda"), "{e}");
}

#[test]
fn bad_dataset_specs_name_their_path() {
    assert_eq!(derr(json!({"n_observed": 5})).path, "dataset.kind");
    let e = derr(json!({"kind": "ibp"}));
    assert_eq!(e.path, "dataset.kind");
    assert!(e.message.contains("ibp_synthetic"), "{e}");
    assert_eq!(
        derr(json!({"kind": "ibp_synthetic", "n_observed": 0, "k_plus": 2})).path,
        "dataset.n_observed"
    );
    assert_eq!(
        derr(json!({"kind": "ibp_synthetic", "n_observed": 4, "k_plus": 2, "lambda": 1.2})).path,
        "dataset.lambda"
    );
    assert_eq!(
        derr(json!({"kind": "fixed_structure", "z": [[1, 0], [1]]})).path,
        "dataset.z[1]"
    );
    assert_eq!(
        derr(json!({"kind": "fixed_structure", "z": [[1, 0], [1, 2]]})).path,
        "dataset.z[1][1]"
    );
    assert_eq!(
        derr(json!({"kind": "fixed_structure", "z": []})).path,
        "dataset.z"
    );
    assert_eq!(
        derr(json!({"kind": "binary_csv", "path": "../etc/passwd"})).path,
        "dataset.path"
    );
    assert_eq!(
        derr(json!({"kind": "binary_csv", "path": "/etc/passwd"})).path,
        "dataset.path"
    );
    assert_eq!(
        derr(json!({"kind": "binary_csv", "path": "a.csv", "hide": ["x", "x"]})).path,
        "dataset.hide[1]"
    );
}

#[test]
fn ibp_synthetic_has_exactly_k_plus_causes() {
    let ctx = DataContext {
        data_dir: std::env::temp_dir(),
    };
    for k in [0usize, 1, 4, 9] {
        let spec = json!({"kind": "ibp_synthetic", "n_observed": 8, "n_trials": 25, "k_plus": k});
        let ds = Wood2006
            .dataset(&spec, &ctx, &mut dataset_rng(4, k as u64, 0))
            .unwrap();
        let z = ds.truth("z").unwrap();
        let y = ds.truth("y").unwrap();
        let x = ds.observed("x").unwrap();
        assert_eq!((z.rows, z.cols), (8, k));
        assert_eq!((y.rows, y.cols), (k, 25));
        assert_eq!((x.rows, x.cols), (8, 25));
        for j in 0..k {
            assert!((0..8).any(|i| z.get(i, j) == 1.0), "column {j} empty");
        }
        assert!(x.values.iter().all(|v| *v == 0.0 || *v == 1.0));
        // deterministic in the RNG
        assert_eq!(
            ds,
            Wood2006
                .dataset(&spec, &ctx, &mut dataset_rng(4, k as u64, 0))
                .unwrap()
        );
    }
    let spec = json!({"kind": "ibp_synthetic", "n_observed": 3, "k_plus": 40, "alpha": 0.5, "max_attempts": 200});
    let e = Wood2006
        .dataset(&spec, &ctx, &mut dataset_rng(4, 0, 0))
        .unwrap_err();
    assert_eq!(e.path, "dataset.k_plus");
    assert!(e.message.contains("200 attempts"), "{e}");
}

#[test]
fn fixed_structure_keeps_z() {
    let ctx = DataContext {
        data_dir: std::env::temp_dir(),
    };
    let spec = json!({"kind": "fixed_structure", "z": [[1, 0], [1, 1], [0, 1]], "n_trials": 50});
    let ds = Wood2006
        .dataset(&spec, &ctx, &mut dataset_rng(1, 1, 1))
        .unwrap();
    let z = ds.truth("z").unwrap();
    assert_eq!((z.rows, z.cols), (3, 2));
    assert_eq!(z.values, vec![1.0, 0.0, 1.0, 1.0, 0.0, 1.0]);
    assert_eq!(
        (ds.truth("y").unwrap().rows, ds.truth("y").unwrap().cols),
        (2, 50)
    );
    assert_eq!(
        (
            ds.observed("x").unwrap().rows,
            ds.observed("x").unwrap().cols
        ),
        (3, 50)
    );
}

#[test]
fn binary_csv_reads_and_hides_columns() {
    let dir = temp_dir("csv");
    std::fs::write(dir.join("small.csv"), "a,b,c\n1,0,1\n0,0,1\r\n1,1,0\n\n").unwrap();
    std::fs::write(dir.join("bad.csv"), "a,b\n1,0\n1,2\n").unwrap();
    std::fs::write(dir.join("ragged.csv"), "a,b\n1,0\n1\n").unwrap();
    let ctx = DataContext {
        data_dir: dir.clone(),
    };
    let mut rng = dataset_rng(0, 0, 0);
    let ds = Wood2006
        .dataset(
            &json!({"kind": "binary_csv", "path": "small.csv", "hide": ["b"]}),
            &ctx,
            &mut rng,
        )
        .unwrap();
    let x = ds.observed("x").unwrap();
    assert_eq!((x.rows, x.cols), (2, 3));
    assert_eq!(x.row_names, vec!["a", "c"]);
    assert_eq!(x.values, vec![1.0, 0.0, 1.0, 1.0, 1.0, 0.0]);
    let h = ds.truth("hidden").unwrap();
    assert_eq!((h.rows, h.cols), (1, 3));
    assert_eq!(h.row_names, vec!["b"]);
    assert_eq!(h.values, vec![0.0, 0.0, 1.0]);
    let e = Wood2006
        .dataset(
            &json!({"kind": "binary_csv", "path": "bad.csv"}),
            &ctx,
            &mut rng,
        )
        .unwrap_err();
    assert_eq!(e.path, "dataset.path");
    assert!(
        e.message.contains("bad.csv") && e.message.contains("line 3"),
        "{e}"
    );
    let e = Wood2006
        .dataset(
            &json!({"kind": "binary_csv", "path": "ragged.csv"}),
            &ctx,
            &mut rng,
        )
        .unwrap_err();
    assert!(
        e.message.contains("ragged.csv") && e.message.contains("fields"),
        "{e}"
    );
    let e = Wood2006
        .dataset(
            &json!({"kind": "binary_csv", "path": "missing.csv"}),
            &ctx,
            &mut rng,
        )
        .unwrap_err();
    assert!(e.message.contains("missing.csv"), "{e}");
    let e = Wood2006
        .dataset(
            &json!({"kind": "binary_csv", "path": "small.csv", "hide": ["zz"]}),
            &ctx,
            &mut rng,
        )
        .unwrap_err();
    assert_eq!(e.path, "dataset.hide[0]");
    assert!(e.message.contains("a, b, c"), "{e}");
    let e = Wood2006
        .dataset(
            &json!({"kind": "binary_csv", "path": "small.csv", "hide": ["a", "b", "c"]}),
            &ctx,
            &mut rng,
        )
        .unwrap_err();
    assert_eq!(e.path, "dataset.hide");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn lucas_from_the_project_data() {
    // The project's own copy (data/lucas, provenance in data/README.md), nothing outside the repository.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data");
    let ctx = DataContext { data_dir: dir };
    let spec =
        json!({"kind": "binary_csv", "path": "lucas/lucas0_train.csv", "hide": ["Lung_Cancer"]});
    let ds = Wood2006
        .dataset(&spec, &ctx, &mut dataset_rng(0, 0, 0))
        .unwrap();
    let x = ds.observed("x").unwrap();
    assert_eq!((x.rows, x.cols), (11, 2000));
    assert!(!x.row_names.contains(&"Lung_Cancer".to_string()));
    assert_eq!(ds.truth("hidden").unwrap().row_names, vec!["Lung_Cancer"]);
    // a few Gibbs sweeps run on it
    let mut rng = chain_rng(0, 0, 0, 0);
    let mut s = Wood2006
        .sampler(
            &json!({"sampler": "gibbs", "update_hyperparameters": true}),
            &ds,
            &mut rng,
        )
        .unwrap();
    for _ in 0..3 {
        s.step(&mut rng).unwrap();
    }
}

#[test]
fn sampler_refuses_bad_input() {
    let m = model("wood2006").unwrap();
    let mut rng = chain_rng(0, 0, 0, 0);
    let no_x = Dataset::default();
    assert!(
        m.sampler(&json!({"sampler": "gibbs"}), &no_x, &mut rng)
            .is_err()
    );
    let mut ds = synthetic(3, 4, 1, 0);
    ds.observed[0].values[0] = 0.5;
    let e = m
        .sampler(&json!({"sampler": "gibbs"}), &ds, &mut rng)
        .err()
        .unwrap();
    assert!(e.to_string().contains("0.5"), "{e}");
    let ds = synthetic(3, 4, 1, 0);
    assert!(
        m.sampler(&json!({"sampler": "gibbs", "lambda": 2.0}), &ds, &mut rng)
            .is_err()
    );
    let x = x_of(&ds);
    let mut s =
        HiddenCauseSampler::new(&Params::defaults(SamplerKind::Rjmcmc), &x, vec![], &mut rng)
            .unwrap();
    let bad = Hyper {
        alpha: 1.0,
        lambda: 1.0,
        epsilon: 0.1,
        p: 0.1,
    };
    assert!(
        s.set_state(
            &BinaryMatrix::zeros(3, 1),
            &BinaryMatrix::zeros(1, 4),
            Some(bad)
        )
        .is_err()
    );
    assert!(
        s.set_state(&BinaryMatrix::zeros(3, 0), &BinaryMatrix::zeros(0, 4), None)
            .is_err()
    );
}
