//! Tests of dallaire2014: datasets (paper `004_74db43a26dbf0fa1.txt` §5.1, §5.2).
//!
//! The real datasets are checked against the files read independently here; the synthetic ones
//! against their recipes; every bad input must be refused naming the file, the
//! line and the column.

use std::path::{Path, PathBuf};

use causeway_papers::dallaire2014::datasets::{
    CsvSpec, DatasetSpec, ngbn7::ngbn7_truth, parse_dataset,
};
use causeway_papers::data::{DataContext, Dataset, Matrix};
use causeway_papers::params::ParamError;
use causeway_papers::seed::chain_rng;
use rand_distr::{Distribution, StandardNormal};
use serde_json::{Value, json};

fn repo_data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

fn build_in(dir: &Path, v: Value, seed: u64) -> Result<Dataset, ParamError> {
    let ctx = DataContext {
        data_dir: dir.to_path_buf(),
    };
    parse_dataset(&v)?.build(&ctx, &mut chain_rng(seed, 17, 0, 0))
}

fn build(v: Value) -> Dataset {
    build_in(&repo_data(), v, 1).unwrap()
}

fn obs<'a>(ds: &'a Dataset, name: &str) -> &'a Matrix {
    ds.observed(name).unwrap()
}

fn row(m: &Matrix, i: usize) -> &[f64] {
    &m.values[i * m.cols..(i + 1) * m.cols]
}

/// The data rows of a comma-separated file, fields as strings (independent of the crate's reader).
fn file_rows(rel: &str, header: bool) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(repo_data().join(rel)).unwrap();
    text.lines()
        .skip(usize::from(header))
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.split(',')
                .map(|f| f.trim_matches('"').to_string())
                .collect()
        })
        .collect()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap()
}

/// Mean and standard error.
fn mean_se(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

#[test]
fn dallaire2014_geyser_is_faithful_split_odd_even() {
    let ds = build(json!({"kind": "geyser"}));
    let (x, t) = (obs(&ds, "x"), obs(&ds, "test"));
    assert_eq!((x.rows, x.cols, t.rows, t.cols), (136, 2, 136, 2));
    assert_eq!(x.col_names, ["eruptions", "waiting"]);
    assert_eq!(t.col_names, x.col_names);
    assert_eq!(row(x, 0), [3.6, 79.0]);
    assert_eq!(row(t, 0), [1.8, 54.0]);
    let rows = file_rows("rdatasets/faithful.csv", true);
    assert_eq!(rows.len(), 272);
    for (i, r) in rows.iter().enumerate() {
        let (m, k) = if i % 2 == 0 { (x, i / 2) } else { (t, i / 2) };
        assert_eq!(row(m, k), [num(&r[1]), num(&r[2])], "file row {}", i + 1);
    }
    assert!(ds.truth.is_empty());
}

#[test]
fn dallaire2014_iris_has_25_per_species_in_each_half() {
    let ds = build(json!({"kind": "iris"}));
    let (x, t) = (obs(&ds, "x"), obs(&ds, "test"));
    assert_eq!((x.rows, x.cols, t.rows, t.cols), (75, 4, 75, 4));
    assert_eq!(
        x.col_names,
        ["Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width"]
    );
    assert_eq!(row(x, 0), [5.1, 3.5, 1.4, 0.2]);
    assert_eq!(row(t, 0), [4.9, 3.0, 1.4, 0.2]);
    let rows = file_rows("rdatasets/iris.csv", true);
    assert_eq!(rows.len(), 150);
    let mut counts = std::collections::BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        let (m, k) = if i % 2 == 0 { (x, i / 2) } else { (t, i / 2) };
        let expect: Vec<f64> = r[1..5].iter().map(|s| num(s)).collect();
        assert_eq!(row(m, k), expect.as_slice(), "file row {}", i + 1);
        *counts.entry((r[5].clone(), i % 2)).or_insert(0) += 1;
    }
    assert_eq!(counts.len(), 6);
    assert!(counts.values().all(|&c| c == 25), "{counts:?}");
}

#[test]
fn dallaire2014_abalone_codes_sex_and_splits_rows_1_to_4000() {
    let ds = build(json!({"kind": "abalone"}));
    let (x, t) = (obs(&ds, "x"), obs(&ds, "test"));
    assert_eq!((x.rows, x.cols, t.rows, t.cols), (2000, 9, 2000, 9));
    assert_eq!(x.col_names[0], "Sex");
    assert_eq!(x.col_names[8], "Rings");
    assert_eq!(
        row(x, 0),
        [1.0, 0.455, 0.365, 0.095, 0.514, 0.2245, 0.101, 0.15, 15.0]
    );
    assert_eq!(row(x, 1)[0], 2.0, "file row 3 is F");
    // The 2000th test row is file row 4000: I,0.415,0.31,0.095,0.34,0.181,0.057,0.083,6.
    assert_eq!(
        row(t, 1999),
        [3.0, 0.415, 0.31, 0.095, 0.34, 0.181, 0.057, 0.083, 6.0]
    );
    let rows = file_rows("abalone/abalone.data", false);
    assert_eq!(rows.len(), 4177);
    for (i, r) in rows.iter().take(4000).enumerate() {
        let sex = match r[0].as_str() {
            "M" => 1.0,
            "F" => 2.0,
            "I" => 3.0,
            other => panic!("{other}"),
        };
        let mut expect = vec![sex];
        expect.extend(r[1..].iter().map(|s| num(s)));
        let (m, k) = if i % 2 == 0 { (x, i / 2) } else { (t, i / 2) };
        assert_eq!(row(m, k), expect.as_slice(), "file row {}", i + 1);
    }
    let small = build(json!({"kind": "abalone", "n_rows": 10}));
    assert_eq!((obs(&small, "x").rows, obs(&small, "test").rows), (5, 5));
}

#[test]
fn dallaire2014_ring_radius_and_reproducibility() {
    let ds = build(json!({"kind": "ring"}));
    let (x, t) = (obs(&ds, "x"), obs(&ds, "test"));
    assert_eq!((x.rows, x.cols, t.rows, t.cols), (2000, 2, 2000, 2));
    assert_eq!(x.col_names, ["x1", "x2"]);
    assert_ne!(x.values, t.values, "train and test are independent draws");
    let radii: Vec<f64> = x
        .values
        .chunks(2)
        .chain(t.values.chunks(2))
        .map(|p| p[0].hypot(p[1]))
        .collect();
    let (m, se) = mean_se(&radii);
    let sd = (se * (radii.len() as f64).sqrt()).max(0.0);
    let sd_se = 0.1 / (2.0 * (radii.len() as f64 - 1.0)).sqrt();
    eprintln!("ring radius mean {m:.4} ± {se:.4}, sd {sd:.4} (exact 1, 0.1)");
    assert!(((m - 1.0) / se).abs() < 4.5);
    assert!(((sd - 0.1) / sd_se).abs() < 4.5);
    let cos: Vec<f64> = x.values.chunks(2).map(|p| p[0].atan2(p[1]).cos()).collect();
    let (mc, sec) = mean_se(&cos);
    assert!((mc / sec).abs() < 4.5, "angles uniform: mean cos {mc}");
    // Same rng, same data; another seed, other data; the noise is configurable.
    assert_eq!(build(json!({"kind": "ring"})), ds);
    assert_ne!(
        build_in(&repo_data(), json!({"kind": "ring"}), 2).unwrap(),
        ds
    );
    let wide = build(json!({"kind": "ring", "noise": 0.3, "n_train": 500, "n_test": 300}));
    let (xw, tw) = (obs(&wide, "x"), obs(&wide, "test"));
    assert_eq!((xw.rows, tw.rows), (500, 300));
    let r: Vec<f64> = xw.values.chunks(2).map(|p| p[0].hypot(p[1])).collect();
    let (_, se_w) = mean_se(&r);
    let sd_w = se_w * (r.len() as f64).sqrt();
    assert!(
        (sd_w - 0.3).abs() < 4.5 * 0.3 / (2.0 * 499.0f64).sqrt(),
        "{sd_w}"
    );
}

#[test]
fn dallaire2014_pinwheel_classes_are_balanced_and_arms_follow_the_recipe() {
    let ds = build(json!({"kind": "pinwheel"}));
    let (x, t) = (obs(&ds, "x"), obs(&ds, "test"));
    assert_eq!((x.rows, x.cols, t.rows, t.cols), (2000, 2, 2000, 2));
    for (pts, name) in [(x, "class_train"), (t, "class_test")] {
        let class = ds.truth(name).unwrap();
        assert_eq!((class.rows, class.cols), (pts.rows, 1));
        for c in 0..4 {
            let n = class.values.iter().filter(|&&v| v == c as f64).count();
            assert_eq!(n, 500, "{name}: class {c}");
        }
        assert!(
            class.values.windows(2).any(|w| w[0] > w[1]),
            "{name} is shuffled"
        );
        // With f₂ ≈ 0, x ≈ 10 f₁ (cos a, −sin a): the polar angle of x is −a, and |x|/10 ≈ f₁,
        // so a ≈ 2πc/4 + 0.25·e^{|x|/10} up to ≈ f₂/f₁ (sd 0.05).
        let mut off = 0;
        let mut radius = Vec::new();
        for (p, c) in pts.values.chunks(2).zip(&class.values) {
            let r = p[0].hypot(p[1]) / 10.0;
            radius.push(r);
            let a = std::f64::consts::TAU * c / 4.0 + 0.25 * r.exp();
            let mut e = (-p[1].atan2(p[0]) - a).rem_euclid(std::f64::consts::TAU);
            if e > std::f64::consts::PI {
                e -= std::f64::consts::TAU;
            }
            off += usize::from(e.abs() > 0.3);
        }
        assert!(off < pts.rows / 100, "{name}: {off} points off their arm");
        let (m, _) = mean_se(&radius);
        assert!((m - 1.0).abs() < 0.03, "{name}: mean |f| {m}");
    }
    assert_eq!(build(json!({"kind": "pinwheel"})), ds);
    let small = build(
        json!({"kind": "pinwheel", "classes": 3, "per_class_train": 10, "per_class_test": 7}),
    );
    assert_eq!((obs(&small, "x").rows, obs(&small, "test").rows), (30, 21));
}

/// An independent ancestral sampler of the §5.2 network, written from the text.
/// `swap_jumps` exchanges the two rows of W^(0,2) (a deliberately wrong network, for the negative
/// control).
fn ngbn7_reference(n: usize, seed: u64, swap_jumps: bool) -> Vec<[f64; 2]> {
    let mut rng = chain_rng(seed, 99, 0, 0);
    let mut z = || -> f64 { StandardNormal.sample(&mut rng) };
    let s = |a: f64| 2.0 / (1.0 + (-a).exp()) - 1.0;
    (0..n)
        .map(|_| {
            let r: Vec<f64> = (0..3).map(|_| s(10.0 * z())).collect();
            let h1 = s(r[0] + 0.3 * r[1] + 0.01 * z());
            let h2 = s(0.3 * r[1] + r[2] + 0.01 * z());
            let mut jump = [-0.15 * r[0] - 0.15 * r[2], 0.3 * r[0] + 0.3 * r[1]];
            if swap_jumps {
                jump.swap(0, 1);
            }
            let x1 = s(h1 + jump[0] + 0.01 * z());
            let x2 = s(h2 + jump[1] + 0.01 * z());
            [x1, x2]
        })
        .collect()
}

/// Largest |z| of five moments (E x1, E x2, E x1², E x2², E x1x2) between two samples.
fn ngbn7_max_z(a: &[[f64; 2]], b: &[[f64; 2]], label: &str) -> f64 {
    type Stat = fn(&[f64; 2]) -> f64;
    let stats: [(&str, Stat); 5] = [
        ("x1", |p| p[0]),
        ("x2", |p| p[1]),
        ("x1^2", |p| p[0] * p[0]),
        ("x2^2", |p| p[1] * p[1]),
        ("x1*x2", |p| p[0] * p[1]),
    ];
    let mut worst: f64 = 0.0;
    for (name, f) in stats {
        let va: Vec<f64> = a.iter().map(f).collect();
        let vb: Vec<f64> = b.iter().map(f).collect();
        let ((ma, sa), (mb, sb)) = (mean_se(&va), mean_se(&vb));
        let z = (ma - mb) / (sa * sa + sb * sb).sqrt();
        eprintln!(
            "{label} E[{name}]: built {ma:.4} ± {sa:.4}, reference {mb:.4} ± {sb:.4}, z = {z:.2}"
        );
        worst = worst.max(z.abs());
    }
    worst
}

#[test]
fn dallaire2014_ngbn7_is_reproducible_and_matches_the_network() {
    let ds = build(json!({"kind": "ngbn7"}));
    let (x, t) = (obs(&ds, "x"), obs(&ds, "test"));
    assert_eq!((x.rows, x.cols, t.rows, t.cols), (2000, 2, 2000, 2));
    assert_eq!(x.col_names, ["x1", "x2"]);
    assert!(x.values.iter().chain(&t.values).all(|v| v.abs() < 1.0));
    assert_eq!(build(json!({"kind": "ngbn7"})), ds);
    assert_ne!(
        build_in(&repo_data(), json!({"kind": "ngbn7"}), 5).unwrap(),
        ds
    );
    // Truth.
    let w = ds.truth("true_weights").unwrap();
    assert_eq!((w.rows, w.cols), (7, 7));
    assert_eq!(
        w.row_names,
        ["x1", "x2", "h1_1", "h1_2", "h2_1", "h2_2", "h2_3"]
    );
    assert_eq!(w.get(0, 2), 1.0);
    assert_eq!(w.get(1, 3), 1.0);
    assert_eq!((w.get(2, 4), w.get(2, 5), w.get(2, 6)), (1.0, 0.3, 0.0));
    assert_eq!((w.get(3, 4), w.get(3, 5), w.get(3, 6)), (0.0, 0.3, 1.0));
    assert_eq!((w.get(0, 4), w.get(0, 5), w.get(0, 6)), (-0.15, 0.0, -0.15));
    assert_eq!((w.get(1, 4), w.get(1, 5), w.get(1, 6)), (0.3, 0.3, 0.0));
    assert_eq!(w.values.iter().filter(|v| **v != 0.0).count(), 10);
    assert_eq!(
        ds.truth("true_layers").unwrap().values,
        [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 2.0]
    );
    assert_eq!(
        ds.truth("true_precisions").unwrap().values,
        [1e4, 1e4, 1e4, 1e4, 1e-2, 1e-2, 1e-2]
    );
    for (name, v) in [
        ("true_n_units", 7.0),
        ("true_n_edges", 10.0),
        ("true_depth", 3.0),
    ] {
        assert_eq!(ds.truth(name).unwrap().values, [v], "{name}");
    }
    assert_eq!(ds.truth, ngbn7_truth());
    // Moments against the independent sampler (100k points), within 4.5 combined se; the same
    // check sees a network with the rows of W^(0,2) exchanged (negative control).
    let built: Vec<[f64; 2]> = x
        .values
        .chunks(2)
        .chain(t.values.chunks(2))
        .map(|p| [p[0], p[1]])
        .collect();
    let z = ngbn7_max_z(&built, &ngbn7_reference(100_000, 3, false), "ngbn7");
    assert!(z < 4.5, "max |z| = {z}");
    let z = ngbn7_max_z(
        &built,
        &ngbn7_reference(100_000, 3, true),
        "ngbn7 swapped W(0,2)",
    );
    assert!(z > 6.0, "the swapped network went unseen: max |z| = {z}");
}

#[test]
fn dallaire2014_none_has_d_units_and_no_rows() {
    let ds = build(json!({"kind": "none", "d": 3}));
    let x = obs(&ds, "x");
    assert_eq!((x.rows, x.cols, x.values.len()), (0, 3, 0));
    assert_eq!(x.col_names, ["x1", "x2", "x3"]);
    assert!(ds.observed("test").is_none());
    assert!(x.check().is_ok());
}

/// A fresh temporary data directory holding `files`.
fn temp_data(tag: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("causeway-d14-ds-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

#[test]
fn dallaire2014_csv_files_one_or_two_with_columns() {
    let dir = temp_data(
        "ok",
        &[
            (
                "all.csv",
                "id,a,b\n1,0.5,7\n2,1.5,8\n3,2.5,6\n4,3.5,9\n5,4.5,1\n",
            ),
            ("tr.csv", "a,b\n1,2\n3,5\n"),
            ("te.csv", "a,b\n4,4\n5,6\n6,1\n"),
            ("te_other.csv", "b,a,c\n4,4,0\n5,6,0\n"),
        ],
    );
    let ds = build_in(
        &dir,
        json!({"kind": "csv", "path": "all.csv", "columns": ["b", "a"]}),
        1,
    )
    .unwrap();
    let (x, t) = (obs(&ds, "x"), obs(&ds, "test"));
    assert_eq!(
        (x.rows, t.rows, x.col_names.clone()),
        (3, 2, vec!["b".to_string(), "a".into()])
    );
    assert_eq!(row(x, 2), [1.0, 4.5]);
    assert_eq!(row(t, 0), [8.0, 1.5]);
    let ds = build_in(
        &dir,
        json!({"kind": "csv", "train": "tr.csv", "test": "te.csv"}),
        1,
    )
    .unwrap();
    assert_eq!((obs(&ds, "x").rows, obs(&ds, "test").rows), (2, 3));
    let ds = build_in(
        &dir,
        json!({"kind": "csv", "train": "tr.csv", "test": "te_other.csv", "columns": ["a", "b"]}),
        1,
    )
    .unwrap();
    assert_eq!(row(obs(&ds, "test"), 1), [6.0, 5.0]);
    let e = build_in(
        &dir,
        json!({"kind": "csv", "train": "tr.csv", "test": "te_other.csv"}),
        1,
    )
    .unwrap_err();
    assert_eq!(e.path, "dataset.test");
    let e = build_in(
        &dir,
        json!({"kind": "csv", "path": "all.csv", "columns": ["z"]}),
        1,
    )
    .unwrap_err();
    assert!(e.message.contains("no column \"z\""), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dallaire2014_bad_data_is_refused_with_file_line_and_column() {
    // Rows 1–4 of the real file, then a row with sex code X (line 5), then rows 5–6.
    let real = std::fs::read_to_string(repo_data().join("abalone/abalone.data")).unwrap();
    let real: Vec<&str> = real.lines().take(6).collect();
    let abalone_bad = format!(
        "{}\nX,0.53,0.42,0.135,0.677,0.2565,0.1415,0.21,9\n{}\n",
        real[..4].join("\n"),
        real[4..].join("\n")
    );
    let abalone_short = real.join("\n");
    let dir = temp_data(
        "bad",
        &[
            ("nonnum.csv", "a,b\n1,2\n3,zz\n5,6\n7,8\n"),
            ("secret.csv", "a,b\n1,2\n3,root:x:0:0:/bin/bash\n5,6\n7,8\n"),
            ("empty.csv", "a,b\n1,2\n3,\n5,6\n7,8\n"),
            ("nan.csv", "a,b\n1,2\n3,4\nNaN,6\n7,8\n"),
            ("inf.csv", "a,b\n1,2\n3,4\n5,6\n-inf,8\n"),
            ("ragged.csv", "a,b\n1,2\n3,4,9\n5,6\n7,8\n"),
            ("const.csv", "a,b\n1,5\n2,6\n3,5\n4,7\n5,5\n"),
            ("one.csv", "a,b\n1,2\n3,4\n"),
            ("ok.csv", "a,b\n1,2\n3,4\n5,6\n7,8\n"),
            ("abalone_bad.data", &abalone_bad),
            ("abalone_short.data", &abalone_short),
        ],
    );
    let cases: [(Value, &str, &[&str]); 10] = [
        (
            json!({"kind": "csv", "path": "nonnum.csv"}),
            "dataset.path",
            &["nonnum.csv", "line 3, column 2 (\"b\")", "not a number"],
        ),
        (
            json!({"kind": "csv", "path": "secret.csv"}),
            "dataset.path",
            &["secret.csv", "line 3, column 2", "not shown"],
        ),
        (
            json!({"kind": "csv", "path": "empty.csv"}),
            "dataset.path",
            &["empty.csv", "line 3, column 2", "empty cell"],
        ),
        (
            json!({"kind": "csv", "path": "nan.csv"}),
            "dataset.path",
            &["nan.csv", "line 4, column 1 (\"a\")", "not finite"],
        ),
        (
            json!({"kind": "csv", "path": "inf.csv"}),
            "dataset.path",
            &["inf.csv", "line 5, column 1", "not finite"],
        ),
        (
            json!({"kind": "csv", "path": "ragged.csv"}),
            "dataset.path",
            &["ragged.csv", "line 3 has 3 fields"],
        ),
        (
            json!({"kind": "csv", "path": "const.csv"}),
            "dataset.path",
            &["const.csv", "column 2 (\"b\") is constant"],
        ),
        (
            json!({"kind": "csv", "path": "one.csv"}),
            "dataset.path",
            &["one.csv", "training set has 1 row(s)"],
        ),
        (
            json!({"kind": "csv", "train": "ok.csv", "test": "nan.csv"}),
            "dataset.test",
            &["nan.csv", "line 4, column 1"],
        ),
        (
            json!({"kind": "abalone", "path": "abalone_bad.data", "n_rows": 6}),
            "dataset.path",
            &[
                "abalone_bad.data",
                "line 5, column 1 (\"Sex\")",
                "unknown code",
            ],
        ),
    ];
    for (spec, path, needles) in cases {
        let e = build_in(&dir, spec.clone(), 1).expect_err("bad input must be refused");
        eprintln!("{spec}: {e}");
        assert_eq!(e.path, path, "{e}");
        for n in needles {
            assert!(e.message.contains(n), "{spec}: {e} lacks {n:?}");
        }
        assert!(!e.message.contains("root:x"), "a data line was echoed: {e}");
    }
    // Rows 1–4 of abalone_bad.data are fine: n_rows 4 stops before the bad code.
    assert!(
        build_in(
            &dir,
            json!({"kind": "abalone", "path": "abalone_bad.data", "n_rows": 4}),
            1
        )
        .is_ok()
    );
    let e = build_in(
        &dir,
        json!({"kind": "abalone", "path": "abalone_short.data", "n_rows": 400}),
        1,
    )
    .unwrap_err();
    assert!(e.message.contains("fewer than the 400"), "{e}");
    let e = build_in(&dir, json!({"kind": "geyser", "path": "missing.csv"}), 1).unwrap_err();
    assert!(
        e.message.contains("missing.csv") && e.message.contains("cannot read"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn dallaire2014_csv_paths_stay_inside_the_data_directory() {
    let dir = temp_data("paths", &[("ok.csv", "a,b\n1,2\n3,4\n5,6\n7,8\n")]);
    let e = parse_dataset(&json!({"kind": "csv", "path": "../ok.csv"})).unwrap_err();
    assert_eq!(e.path, "dataset.path");
    // Built directly (no parse-time check), `build` still refuses through DataContext::resolve.
    let ctx = DataContext {
        data_dir: dir.clone(),
    };
    let mut rng = chain_rng(1, 2, 3, 4);
    for spec in [
        CsvSpec {
            path: Some("../ok.csv".into()),
            train: None,
            test: None,
            columns: None,
        },
        CsvSpec {
            path: None,
            train: Some("ok.csv".into()),
            test: Some("/etc/hostname".into()),
            columns: None,
        },
    ] {
        let e = DatasetSpec::Csv(spec).build(&ctx, &mut rng).unwrap_err();
        assert!(e.message.contains("must not contain '..'"), "{e}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc", dir.join("escape")).unwrap();
        let e = build_in(&dir, json!({"kind": "csv", "path": "escape/hostname"}), 1).unwrap_err();
        assert_eq!(e.path, "dataset.path");
        assert!(e.message.contains("outside the data directory"), "{e}");
        let e = build_in(
            &dir,
            json!({"kind": "csv", "train": "escape/passwd", "test": "ok.csv"}),
            1,
        )
        .unwrap_err();
        assert_eq!(e.path, "dataset.train");
    }
    std::fs::remove_dir_all(&dir).ok();
}
