//! Validation (ParamError paths), datasets, and every method end to end through the registry
//! and `run_chain`.

use super::common::*;
use causeway_papers::{RunSpec, model, run_chain};
use serde_json::{Value, json};

fn base() -> Value {
    json!({"method": "smc", "hypothesis": "a_to_b", "n_latent": 3, "setting": 20})
}

fn synth() -> Value {
    json!({"kind": "synthetic", "hypothesis": "spurious", "n_latent": 2, "n_observations": 6, "setting": 1})
}

fn with(mut v: Value, key: &str, val: Value) -> Value {
    v[key] = val;
    v
}

fn without(mut v: Value, key: &str) -> Value {
    v.as_object_mut().unwrap().remove(key);
    v
}

fn err_path(params: Value, dataset: Value) -> String {
    let m = model("kurutmaz2019").unwrap();
    match m.validate(&params, &dataset) {
        Ok(()) => "ok".into(),
        Err(e) => e.path,
    }
}

#[test]
fn valid_cells_pass() {
    assert_eq!(err_path(base(), synth()), "ok");
    let explicit = json!({"method": "vb", "hypothesis": "spurious", "n_latent": 1, "a1": 2.0, "b1": 1.0, "a2": 3.0, "b2": 0.5,
        "gamma": 1.0, "m": 0.5, "lambda": 2.0, "max_iterations": 10, "tolerance": 0.0, "n_restarts": 3});
    assert_eq!(
        err_path(explicit, json!({"kind": "cep", "pair": "pair1"})),
        "ok"
    );
    let pg = json!({"method": "pg", "hypothesis": "b_to_a", "n_latent": 5, "setting": 36, "n_particles": 2, "resample_threshold": 1.0,
        "resampling": "multinomial", "shuffle": false});
    assert_eq!(
        err_path(
            pg,
            json!({"kind": "abalone", "variables": ["whole", "height"]})
        ),
        "ok"
    );
    let ex = json!({"method": "exact", "hypothesis": "a_to_b", "n_latent": 3, "setting": 1});
    assert_eq!(err_path(ex.clone(), synth()), "ok");
    // R = 1 is exact on any data.
    assert_eq!(
        err_path(
            with(ex, "n_latent", json!(1)),
            json!({"kind": "cep", "pair": "pair65"})
        ),
        "ok"
    );
    let dem = json!({"method": "dem", "hypothesis": "a_to_b", "n_latent": 4, "setting": 3, "init": "smc"});
    assert_eq!(err_path(dem, synth()), "ok");
}

#[test]
fn bad_params_name_their_path() {
    let s = synth();
    let cases: Vec<(Value, &str)> = vec![
        (with(base(), "n_particle", json!(10)), "params.n_particle"),
        (with(base(), "method", json!("mcmc")), "params.method"),
        (
            with(base(), "hypothesis", json!("x_to_y")),
            "params.hypothesis",
        ),
        (without(base(), "n_latent"), "params"),
        (with(base(), "n_latent", json!(0)), "params.n_latent"),
        (with(base(), "n_latent", json!(6)), "params.n_latent"),
        (with(base(), "setting", json!(37)), "params.setting"),
        (with(base(), "setting", json!(0)), "params.setting"),
        (with(base(), "a1", json!(1.0)), "params.a1"),
        (without(base(), "setting"), "params.setting"),
        (
            with(
                with(
                    with(without(base(), "setting"), "a1", json!(1.0)),
                    "b1",
                    json!(1.0),
                ),
                "a2",
                json!(1.0),
            ),
            "params.b2",
        ),
        (
            with(
                with(
                    with(
                        with(without(base(), "setting"), "a1", json!(-1.0)),
                        "b1",
                        json!(1.0),
                    ),
                    "a2",
                    json!(1.0),
                ),
                "b2",
                json!(1.0),
            ),
            "params.a1",
        ),
        (with(base(), "gamma", json!(0.0)), "params.gamma"),
        (with(base(), "lambda", json!(-0.1)), "params.lambda"),
        (with(base(), "n_particles", json!(0)), "params.n_particles"),
        (
            with(with(base(), "method", json!("pg")), "n_particles", json!(1)),
            "params.n_particles",
        ),
        (
            with(base(), "resample_threshold", json!(1.5)),
            "params.resample_threshold",
        ),
        (
            with(base(), "resampling", json!("residual")),
            "params.resampling",
        ),
        (with(base(), "shuffle", json!("yes")), "params.shuffle"),
        (
            with(base(), "max_iterations", json!(0)),
            "params.max_iterations",
        ),
        (with(base(), "tolerance", json!(-1.0)), "params.tolerance"),
        (with(base(), "n_restarts", json!(0)), "params.n_restarts"),
        (with(base(), "init", json!("kmeans")), "params.init"),
        (
            with(base(), "max_enumeration", json!(0)),
            "params.max_enumeration",
        ),
    ];
    for (i, (p, want)) in cases.into_iter().enumerate() {
        assert_eq!(err_path(p.clone(), s.clone()), want, "case {i}: {p}");
    }
    // exact: R^T = 3^6 is fine, 3^30 is refused.
    let ex = with(base(), "method", json!("exact"));
    assert_eq!(err_path(ex.clone(), s.clone()), "ok");
    assert_eq!(
        err_path(ex, with(s.clone(), "n_observations", json!(30))),
        "params.method"
    );
    let e = model("kurutmaz2019")
        .unwrap()
        .validate(&with(base(), "n_particle", json!(10)), &s)
        .unwrap_err();
    assert!(
        e.message.contains("n_particle") && e.message.contains("n_particles"),
        "{e}"
    );
    // exact on CEP with R ≥ 2 can never be enumerated (T ≥ 94).
    let ex = with(base(), "method", json!("exact"));
    assert_eq!(
        err_path(ex, json!({"kind": "cep", "pair": "pair93"})),
        "params.method"
    );
}

#[test]
fn bad_datasets_name_their_path() {
    let p = base();
    let cases: Vec<(Value, &str)> = vec![
        (json!({"pair": "pair1"}), "dataset.kind"),
        (json!({"kind": "tuebingen"}), "dataset.kind"),
        (json!({"kind": "cep"}), "dataset"),
        (
            json!({"kind": "cep", "pair": "pair1", "standardise": true}),
            "dataset.standardise",
        ),
        (json!({"kind": "cep", "pair": "1"}), "dataset.pair"),
        (
            json!({"kind": "cep", "pair": "pair1", "standardize": 1}),
            "dataset.standardize",
        ),
        (
            json!({"kind": "abalone", "variables": ["sex", "height"]}),
            "dataset.variables.0",
        ),
        (
            json!({"kind": "abalone", "variables": ["whole", "weight"]}),
            "dataset.variables.1",
        ),
        (
            json!({"kind": "abalone", "variables": ["whole", "whole"]}),
            "dataset.variables",
        ),
        (
            json!({"kind": "abalone", "variables": ["whole"]}),
            "dataset.variables",
        ),
        (without(synth(), "n_observations"), "dataset"),
        (with(synth(), "n_latent", json!(9)), "dataset.n_latent"),
        (
            with(synth(), "n_observations", json!(0)),
            "dataset.n_observations",
        ),
        (
            with(synth(), "hypothesis", json!("both")),
            "dataset.hypothesis",
        ),
        (with(synth(), "a2", json!(1.0)), "dataset.a2"),
        (with(synth(), "gamma", json!(-2.0)), "dataset.gamma"),
    ];
    for (i, (d, want)) in cases.into_iter().enumerate() {
        assert_eq!(err_path(p.clone(), d.clone()), want, "case {i}: {d}");
    }
}

#[test]
fn datasets_build_from_the_shipped_files() {
    let m = model("kurutmaz2019").unwrap();
    let c = ctx();
    let mut g = rng(1);
    let d = m
        .dataset(&json!({"kind": "cep", "pair": "pair1"}), &c, &mut g)
        .unwrap();
    let x = d.observed("x").unwrap();
    assert_eq!((x.rows, x.cols), (2, 349));
    assert_eq!(x.row_names, vec!["A", "B"]);
    for row in 0..2 {
        let v = &x.values[row * 349..(row + 1) * 349];
        let mean = v.iter().sum::<f64>() / 349.0;
        let sd = (v.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / 348.0).sqrt();
        assert!(mean.abs() < 1e-12 && (sd - 1.0).abs() < 1e-12);
    }
    assert_eq!(d.truth("weight").unwrap().values, vec![0.166]);
    assert_eq!(d.truth("original_id").unwrap().values, vec![1.0]);
    assert_eq!(d.truth("hypothesis").unwrap().values, vec![0.0]);
    // Raw values when not standardising: first value of pair1's A is 205.
    let raw = m
        .dataset(
            &json!({"kind": "cep", "pair": "pair1", "standardize": false}),
            &c,
            &mut g,
        )
        .unwrap();
    assert_eq!(raw.observed("x").unwrap().values[0], 205.0);
    // The longest pair and a '<-' pair.
    let d65 = m
        .dataset(&json!({"kind": "cep", "pair": "pair65"}), &c, &mut g)
        .unwrap();
    assert_eq!(d65.observed("x").unwrap().cols, 16382);
    assert_eq!(d65.truth("original_id").unwrap().values, vec![69.0]);
    // Errors name the file and the pair.
    let e = m
        .dataset(&json!({"kind": "cep", "pair": "pair200"}), &c, &mut g)
        .unwrap_err();
    assert_eq!(e.path, "dataset.pair");
    assert!(
        e.message.contains("pair200") && e.message.contains("Tuebingen_pairs.csv"),
        "{e}"
    );
    let e = m
        .dataset(
            &json!({"kind": "cep", "pair": "pair1", "path": "cep/missing.csv"}),
            &c,
            &mut g,
        )
        .unwrap_err();
    assert_eq!(e.path, "dataset.path");
    assert!(e.message.contains("missing.csv"), "{e}");
    let e = m
        .dataset(
            &json!({"kind": "cep", "pair": "pair1", "path": "../outside/x.csv"}),
            &c,
            &mut g,
        )
        .unwrap_err();
    assert_eq!(e.path, "dataset.path");
    // Abalone (§5.5).
    let ab = m
        .dataset(
            &json!({"kind": "abalone", "variables": ["whole", "height"]}),
            &c,
            &mut g,
        )
        .unwrap();
    let x = ab.observed("x").unwrap();
    assert_eq!((x.rows, x.cols), (2, 4177));
    assert_eq!(x.row_names, vec!["whole", "height"]);
    let rings = ab.truth("rings").unwrap();
    assert_eq!((rings.rows, rings.cols, rings.values[0]), (4177, 1, 15.0));
    // Synthetic: deterministic in the RNG, truth shapes.
    let spec = json!({"kind": "synthetic", "hypothesis": "b_to_a", "n_latent": 3, "n_observations": 50, "setting": 20});
    let s1 = m.dataset(&spec, &c, &mut rng(9)).unwrap();
    let s2 = m.dataset(&spec, &c, &mut rng(9)).unwrap();
    assert_eq!(s1, s2);
    assert_eq!(s1.observed("x").unwrap().rows, 2);
    let r = s1.truth("r").unwrap();
    assert_eq!((r.rows, r.cols), (50, 1));
    assert!(
        r.values
            .iter()
            .all(|v| *v >= 0.0 && *v < 3.0 && v.fract() == 0.0)
    );
    assert_eq!(s1.truth("hypothesis").unwrap().values, vec![1.0]);
    assert_eq!(s1.truth("pi").unwrap().rows, 3);
}

#[test]
fn every_method_runs_through_the_registry() {
    let m = model("kurutmaz2019").unwrap();
    let data = m.dataset(&json!({"kind": "synthetic", "hypothesis": "a_to_b", "n_latent": 2, "n_observations": 9, "setting": 20}), &ctx(), &mut rng(3)).unwrap();
    // (params, iterations, trace names, summary (name, rows, cols)).
    type Case = (
        Value,
        u64,
        Vec<&'static str>,
        Vec<(&'static str, usize, usize)>,
    );
    let cases: Vec<Case> = vec![
        (
            json!({"method": "exact", "hypothesis": "a_to_b", "n_latent": 2, "setting": 20}),
            1,
            vec!["log_marginal_likelihood"],
            vec![("log_marginal_likelihood", 1, 1)],
        ),
        (
            json!({"method": "smc", "hypothesis": "b_to_a", "n_latent": 2, "setting": 20, "n_particles": 100}),
            1,
            vec!["log_marginal_likelihood"],
            vec![("log_marginal_likelihood", 1, 1)],
        ),
        (
            json!({"method": "pg", "hypothesis": "spurious", "n_latent": 3, "setting": 20, "n_particles": 20}),
            30,
            vec!["log_joint"],
            vec![
                ("r_marginals", 9, 3),
                ("r_map", 9, 1),
                ("log_joint_map", 1, 1),
            ],
        ),
        (
            json!({"method": "vb", "hypothesis": "a_to_b", "n_latent": 2, "setting": 20, "n_restarts": 2}),
            1,
            vec!["log_marginal_likelihood", "elbo"],
            vec![
                ("log_marginal_likelihood", 1, 1),
                ("r_marginals", 9, 2),
                ("r_map", 9, 1),
            ],
        ),
        (
            json!({"method": "dem", "hypothesis": "a_to_b", "n_latent": 2, "setting": 20}),
            10,
            vec!["log_joint"],
            vec![("r_marginals", 9, 2), ("r_map", 9, 1), ("log_joint", 1, 1)],
        ),
    ];
    let exact_ml = {
        let mut s = m.sampler(&cases[0].0, &data, &mut rng(0)).unwrap();
        let out = run_chain(
            s.as_mut(),
            &RunSpec {
                iterations: 1,
                burn_in: 0,
                thin: 1,
            },
            &mut rng(0),
            &mut |_, _| {},
        )
        .unwrap();
        out.summary[0].values[0]
    };
    for (params, iters, trace, summary) in cases {
        m.validate(&params, &json!({"kind": "synthetic", "hypothesis": "a_to_b", "n_latent": 2, "n_observations": 9, "setting": 20})).unwrap();
        let mut s = m.sampler(&params, &data, &mut rng(5)).unwrap();
        let out = run_chain(
            s.as_mut(),
            &RunSpec {
                iterations: iters,
                burn_in: iters / 3,
                thin: 1,
            },
            &mut rng(6),
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(out.trace_names, trace, "{params}");
        assert_eq!(out.trace.len(), iters as usize * trace.len());
        // The sampler's own statistics are kept apart from the draws (ArviZ's sample_stats).
        let stats: &[&str] = match params["method"].as_str() {
            Some("smc") => &["ess_min", "n_resamples"],
            Some("vb") => &["n_iterations"],
            Some("dem") => &["n_changed"],
            _ => &[],
        };
        assert_eq!(out.stat_names, stats, "{params}");
        assert_eq!(out.stats.len(), iters as usize * stats.len());
        for (name, rows, cols) in summary {
            let mat = out
                .summary
                .iter()
                .find(|x| x.name == name)
                .unwrap_or_else(|| panic!("{params}: no summary {name}"));
            assert_eq!((mat.rows, mat.cols), (rows, cols), "{params}: {name}");
            assert!(mat.values.iter().all(|v| v.is_finite()));
        }
        // VB's ELBO is below the exact value for the same network.
        if params["method"] == "vb" {
            assert!(out.summary[0].values[0] <= exact_ml + 1e-9);
        }
        // Deterministic given the seeds.
        let mut s2 = m.sampler(&params, &data, &mut rng(5)).unwrap();
        let out2 = run_chain(
            s2.as_mut(),
            &RunSpec {
                iterations: iters,
                burn_in: iters / 3,
                thin: 1,
            },
            &mut rng(6),
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(out.trace, out2.trace);
    }
    // The sampler refuses a wrongly shaped x.
    let mut bad = data.clone();
    bad.observed[0].rows = 1;
    bad.observed[0].values.truncate(9);
    assert!(m.sampler(&base(), &bad, &mut rng(0)).is_err());
}

#[test]
fn setting_numbering() {
    use causeway_papers::kurutmaz2019::setting;
    assert_eq!(setting(1), Some((1.0, 1.0, 1.0, 1.0)));
    assert_eq!(setting(20), Some((100.0, 10.0, 1.0, 1.0)));
    assert_eq!(setting(36), Some((100.0, 100.0, 100.0, 100.0)));
    assert_eq!(setting(37), None);
}

/// A grid reads the pairs file once for all its pairs and keeps it; a file that changes (another
/// length, or another modification time at the same length) is read again, not answered from
/// what was kept.
#[test]
fn a_cep_file_that_changes_is_read_again() {
    use causeway_papers::DataContext;
    use causeway_papers::kurutmaz2019::datasets::{self, CepSpec};
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("cep")).expect("mkdir");
    std::fs::write(
        dir.join("cep/meta.csv"),
        "cdt_id,original_id,original_orientation,weight_v1,weight_thesis,in_thesis_set,dataset,cause_label,effect_label\n\
         pair1,pair0001,->,1,1,1,T,a,b\n",
    )
    .expect("write meta");
    let pairs = dir.join("cep/pairs.csv");
    let write = |values: &str, modified: std::time::SystemTime| {
        std::fs::write(&pairs, format!("SampleID,A,B\npair1,{values},{values}\n")).expect("write");
        let f = std::fs::File::options()
            .write(true)
            .open(&pairs)
            .expect("open");
        f.set_modified(modified).expect("set the modification time");
    };
    let spec = CepSpec {
        kind: "cep".into(),
        pair: "pair1".into(),
        path: "cep/pairs.csv".into(),
        meta_path: "cep/meta.csv".into(),
        standardize: false,
    };
    let ctx = DataContext {
        data_dir: dir.to_path_buf(),
    };
    let x = |spec: &CepSpec| {
        datasets::cep(spec, &ctx)
            .expect("loads")
            .observed("x")
            .expect("x")
            .values
            .clone()
    };
    let t0 = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    write("1 2 3", t0);
    assert_eq!(x(&spec), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    assert_eq!(x(&spec), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    write("4 5 6 7", t0);
    assert_eq!(x(&spec), [4.0, 5.0, 6.0, 7.0, 4.0, 5.0, 6.0, 7.0]);
    write("8 9 1 2", t0 + std::time::Duration::from_secs(1));
    assert_eq!(x(&spec), [8.0, 9.0, 1.0, 2.0, 8.0, 9.0, 1.0, 2.0]);
}
