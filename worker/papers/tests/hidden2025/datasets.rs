//! hidden2025 datasets tests: discrete CSV, BIF reading and ancestral sampling, the synthetic
//! generators, METABRIC preprocessing and the `dataset` section.

use std::path::{Path, PathBuf};

use causeway_papers::data::DataContext;
use causeway_papers::hidden2025::datasets::csv::{CsvOptions, read_discrete_csv};
use causeway_papers::hidden2025::datasets::synthetic::{
    LevelsMode, TwoParentTruth, sparse_counts, two_dags, two_parent_sets,
};
use causeway_papers::hidden2025::datasets::{
    BifNetwork, DatasetSpec, DiscreteData, parse_dataset, read_metabric,
};
use causeway_papers::seed::{ChainRng, chain_rng};
use serde_json::json;
use statrs::distribution::{ChiSquared, ContinuousCDF};

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

fn ctx() -> DataContext {
    DataContext {
        data_dir: data_dir(),
    }
}

fn rng(seed: u64) -> ChainRng {
    chain_rng(seed, 16, 0, 0)
}

/// A fresh directory under the system temp dir, unique to this test and process.
fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hidden2025-datasets-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp file");
    p
}

fn csv_of(dir: &Path, name: &str, text: &str, opts: &CsvOptions) -> Result<DiscreteData, String> {
    let p = write(dir, name, text);
    read_discrete_csv(&p, name, opts).map_err(|e| e.to_string())
}

// ---------------------------------------------------------------- CSV

#[test]
fn lucas_csv_has_twelve_binary_columns_and_2000_rows() {
    let p = data_dir().join("lucas/lucas0_train.csv");
    let d = read_discrete_csv(&p, "lucas/lucas0_train.csv", &CsvOptions::default()).expect("lucas");
    assert_eq!((d.n(), d.p()), (2000, 12));
    assert_eq!(d.names[0], "Smoking");
    assert_eq!(d.names[11], "Lung_Cancer");
    assert!(d.levels.iter().all(|l| l == &["0", "1"]));
    // Row 1 of the file: 0,0,1,0,0,1,0,1,0,1,0,0.
    let row0: Vec<u16> = d.columns.iter().map(|c| c[0]).collect();
    assert_eq!(row0, vec![0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0]);
}

#[test]
fn csv_level_order_declared_levels_selection_and_quotes() {
    let dir = temp_dir("order");
    let text = "id,size,\"group, long\"\n1,10,\"b,x\"\n2,2,a\n3,1,\"b,x\"\n4,2,B\n";
    let d = csv_of(&dir, "ok.csv", text, &CsvOptions::default()).expect("valid");
    assert_eq!(d.levels[1], vec!["1", "2", "10"]); // integers numerically
    assert_eq!(d.levels[2], vec!["B", "a", "b,x"]); // byte order, quoted comma kept
    assert_eq!(d.columns[1], vec![2, 1, 0, 1]);
    let mut opts = CsvOptions {
        columns: Some(vec!["group, long".into(), "size".into()]),
        ..CsvOptions::default()
    };
    opts.rename.insert("group, long".into(), "G".into());
    opts.levels.insert(
        "size".into(),
        vec!["10".into(), "2".into(), "1".into(), "7".into()],
    );
    let d = csv_of(&dir, "ok.csv", text, &opts).expect("valid");
    assert_eq!(d.names, vec!["G", "size"]);
    assert_eq!(d.levels[1], vec!["10", "2", "1", "7"]); // declared order, unobserved 7 kept
    assert_eq!(d.columns[1], vec![0, 1, 2, 1]);
}

#[test]
fn csv_refusals_name_file_line_and_column() {
    let dir = temp_dir("bad");
    let o = CsvOptions::default();
    let cases: [(&str, &str, &[&str]); 5] = [
        (
            "ragged.csv",
            "a,b\n0,1\n1\n",
            &["ragged.csv", "line 3", "ragged"],
        ),
        (
            "empty.csv",
            "a,b\n0,1\n1,\n0,0\n",
            &["empty.csv", "line 3", "\"b\"", "drop_missing"],
        ),
        (
            "cont.csv",
            "a,b\n0,1\n1,0.5\n0,0\n",
            &[
                "cont.csv",
                "line 3",
                "\"b\"",
                "looks continuous: discretise it with `bins:`",
            ],
        ),
        (
            "single.csv",
            "a,b\n0,1\n1,1\n",
            &["single.csv", "\"b\"", "single level"],
        ),
        (
            "quote.csv",
            "a,b\n0,\"1\n",
            &["quote.csv", "line 2", "not closed"],
        ),
    ];
    for (name, text, needles) in cases {
        let e = csv_of(&dir, name, text, &o).expect_err(name);
        for n in needles {
            assert!(e.contains(n), "{name}: {e:?} lacks {n:?}");
        }
    }
    // More than max_levels distinct values: line of the (max_levels + 1)-th.
    let many: String = (0..40).map(|i| format!("{i},{}\n", i % 2)).collect();
    let e = csv_of(&dir, "many.csv", &format!("a,b\n{many}"), &o).expect_err("too many");
    assert!(
        e.contains("line 34") && e.contains("max_levels = 32") && e.contains("\"a\""),
        "{e}"
    );
    let ok = CsvOptions {
        max_levels: 40,
        ..CsvOptions::default()
    };
    assert_eq!(
        csv_of(&dir, "many.csv", &format!("a,b\n{many}"), &ok).map(|d| d.k(0)),
        Ok(40)
    );
    // Outside declared levels: the key to fix is dataset.levels.b.
    let mut decl = CsvOptions::default();
    decl.levels.insert("b".into(), vec!["0".into(), "1".into()]);
    let p = write(&dir, "outside.csv", "a,b\n0,1\n1,2\n");
    let e = read_discrete_csv(&p, "outside.csv", &decl).expect_err("outside");
    assert_eq!(e.path, "dataset.levels.b");
    assert!(
        e.message.contains("outside.csv, line 3") && e.message.contains("\"2\""),
        "{e}"
    );
    // drop_missing drops the row instead.
    let drop = CsvOptions {
        drop_missing: true,
        ..CsvOptions::default()
    };
    let d = csv_of(&dir, "drop.csv", "a,b\n0,1\n1,\n0,0\n1,1\n", &drop).expect("dropped");
    assert_eq!((d.n(), d.columns[0].clone()), (3, vec![0, 0, 1]));
    // Unknown column and rename key.
    let sel = CsvOptions {
        columns: Some(vec!["a".into(), "zz".into()]),
        ..CsvOptions::default()
    };
    let p = write(&dir, "two.csv", "a,b\n0,1\n1,0\n");
    assert_eq!(
        read_discrete_csv(&p, "two.csv", &sel).unwrap_err().path,
        "dataset.columns.1"
    );
    let mut ren = CsvOptions::default();
    ren.rename.insert("zz".into(), "Z".into());
    assert_eq!(
        read_discrete_csv(&p, "two.csv", &ren).unwrap_err().path,
        "dataset.rename.zz"
    );
    // bins: the continuous column cut into right-closed intervals; a value outside is refused.
    let mut binned = CsvOptions::default();
    binned.bins.insert("b".into(), vec![0.0, 0.5, 1.0]);
    let d = csv_of(&dir, "cont.csv", "a,b\n0,1\n1,0.5\n0,0.2\n", &binned).expect("binned");
    assert_eq!(d.levels[1], vec!["(0,0.5]", "(0.5,1]"]);
    assert_eq!(d.columns[1], vec![1, 0, 0]);
    let e = csv_of(&dir, "cont.csv", "a,b\n0,1\n1,0\n", &binned).expect_err("outside");
    assert!(
        e.contains("line 3") && e.contains("outside the bins"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------- BIF

fn bif(name: &str) -> BifNetwork {
    let path = format!("bnrepository/{name}.bif");
    BifNetwork::read(&data_dir().join(&path), &path).expect(name)
}

#[test]
fn the_four_bnrepository_networks_parse() {
    for (name, p) in [("asia", 8), ("child", 20), ("insurance", 27), ("alarm", 37)] {
        let net = bif(name);
        assert_eq!(net.variables.len(), p, "{name}");
        assert_eq!(net.order.len(), p);
        // Parents come before children in the order.
        let pos: Vec<usize> = (0..p)
            .map(|j| net.order.iter().position(|&o| o == j).expect("in order"))
            .collect();
        for (j, v) in net.variables.iter().enumerate() {
            assert!(
                v.parents.iter().all(|&q| pos[q] < pos[j]),
                "{name}: {}",
                v.name
            );
            assert_eq!(v.cpt.len(), net.n_configs(j) * net.k(j));
        }
    }
    let alarm = bif("alarm");
    let stkv = alarm.index("STROKEVOLUME").expect("STKV");
    // probability ( STROKEVOLUME | HYPOVOLEMIA, LVFAILURE ): first parent fastest.
    assert_eq!(
        alarm.config_label(stkv, 1),
        "HYPOVOLEMIA=FALSE;LVFAILURE=TRUE"
    );
    let asia = bif("asia");
    let either = asia.index("either").expect("either");
    // (no, yes) 1.0, 0.0 is lung = no, tub = yes: code 1 + 2·0 = 1.
    assert_eq!(asia.row(either, 1), &[1.0, 0.0]);
    assert_eq!(asia.row(either, 3), &[0.0, 1.0]);
}

/// Chi-square p-values of `data` (sampled from some network) against `net`'s CPTs, one per node
/// and parent configuration with at least two cells of expected count ≥ 5 (cells below 5 are
/// pooled). Returns `(p-values, zero-probability cells that were drawn)`.
fn cpt_chi_square(net: &BifNetwork, data: &DiscreteData) -> (Vec<f64>, usize) {
    let mut ps = Vec::new();
    let mut impossible = 0;
    for (j, v) in net.variables.iter().enumerate() {
        let k = net.k(j);
        let table = data.table(j, &v.parents);
        for (c, &code) in table.configs.iter().enumerate() {
            let n = f64::from(table.totals[c]);
            let row = net.row(j, code as usize);
            let (mut x2, mut cells, mut pool_o, mut pool_e) = (0.0, 0usize, 0.0, 0.0);
            for (x, &pr) in row.iter().enumerate().take(k) {
                let o = f64::from(table.row(c)[x]);
                if pr == 0.0 {
                    impossible += usize::from(o > 0.0);
                    continue;
                }
                let e = n * pr;
                if e < 5.0 {
                    pool_o += o;
                    pool_e += e;
                } else {
                    x2 += (o - e) * (o - e) / e;
                    cells += 1;
                }
            }
            if pool_e > 0.0 {
                x2 += (pool_o - pool_e) * (pool_o - pool_e) / pool_e;
                cells += 1;
            }
            if cells >= 2 && n * row.iter().cloned().fold(0.0, f64::max) >= 5.0 {
                let chi = ChiSquared::new((cells - 1) as f64).expect("df ≥ 1");
                ps.push(chi.sf(x2));
            }
        }
    }
    (ps, impossible)
}

/// Family-wise level of the ALARM CPT test (Bonferroni over every node × configuration).
const ALARM_ALPHA: f64 = 1e-3;

#[test]
fn alarm_samples_match_its_cpts() {
    let net = bif("alarm");
    let data = net.sample(100_000, &mut rng(1));
    assert_eq!(
        data,
        net.sample(100_000, &mut rng(1)),
        "deterministic given the seed"
    );
    let (ps, impossible) = cpt_chi_square(&net, &data);
    let min = ps.iter().cloned().fold(1.0, f64::min);
    eprintln!(
        "ALARM: {} tests, min p = {min:.3e}, Bonferroni bound {:.3e}",
        ps.len(),
        ALARM_ALPHA / ps.len() as f64
    );
    assert!(ps.len() > 100, "{} tests", ps.len());
    assert_eq!(impossible, 0, "a zero-probability state was drawn");
    assert!(min >= ALARM_ALPHA / ps.len() as f64, "min p = {min}");

    // Negative control 1: parent configurations coded last parent fastest (parents reversed
    // without reordering the CPT).
    let mut swapped = net.clone();
    for v in &mut swapped.variables {
        v.parents.reverse();
    }
    let (ps, _) = cpt_chi_square(&net, &swapped.sample(100_000, &mut rng(1)));
    let min = ps.iter().cloned().fold(1.0, f64::min);
    eprintln!("ALARM, reversed coding: min p = {min:.3e}");
    assert!(
        min < ALARM_ALPHA / ps.len() as f64,
        "reversed coding passed: {min}"
    );

    // Negative control 2: one root's probabilities shifted by 0.02.
    let mut shifted = net.clone();
    let hyp = net.index("HYPOVOLEMIA").expect("HYPOVOLEMIA");
    shifted.variables[hyp].cpt = vec![0.22, 0.78];
    let (ps, _) = cpt_chi_square(&net, &shifted.sample(100_000, &mut rng(1)));
    let min = ps.iter().cloned().fold(1.0, f64::min);
    eprintln!("ALARM, HYPOVOLEMIA shifted by 0.02: min p = {min:.3e}");
    assert!(
        min < ALARM_ALPHA / ps.len() as f64,
        "shifted CPT passed: {min}"
    );
}

#[test]
fn asia_sampling_never_draws_impossible_states() {
    let net = bif("asia");
    let d = net.sample(20_000, &mut rng(2));
    let lung = net.index("lung").expect("lung");
    let tub = net.index("tub").expect("tub");
    let either = net.index("either").expect("either");
    for i in 0..d.n() {
        // either = yes (0) exactly when lung = yes or tub = yes.
        let or = d.columns[lung][i] == 0 || d.columns[tub][i] == 0;
        assert_eq!(d.columns[either][i] == 0, or, "row {i}");
    }
    assert_eq!(d.levels[either], vec!["yes", "no"]);
}

const GOOD: &str = "network n {\n}\nvariable A {\n  type discrete [ 2 ] { a0, a1 };\n}\nvariable B {\n  type discrete [ 3 ] { lo, mid-1.5, hi/x };\n}\nprobability ( A ) {\n  table 0.3, 0.7;\n}\nprobability ( B | A ) {\n  (a0) 0.2, 0.3, 0.5;\n  (a1) 0.1, 0.1, 0.8;\n}\n";

#[test]
fn bif_snippets_are_refused_with_their_place() {
    let ok = BifNetwork::parse("good.bif", GOOD).expect("good");
    assert_eq!(ok.variables[1].states, vec!["lo", "mid-1.5", "hi/x"]);
    assert_eq!(ok.row(1, 1), &[0.1, 0.1, 0.8]);
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        ("syntax", GOOD.replace("  table 0.3, 0.7;", "  table 0.3 0.7;"), vec!["line 10", "syntax error", "CPT of A"]),
        ("row length", GOOD.replace("(a1) 0.1, 0.1, 0.8;", "(a1) 0.2, 0.8;"), vec!["line 14", "variable B", "(a1)", "2 probabilities for 3 states"]),
        ("outside [0,1]", GOOD.replace("(a1) 0.1, 0.1, 0.8;", "(a1) 1.5, -0.5, 0.0;"), vec!["line 14", "variable B", "(a1)", "outside [0, 1]"]),
        ("sum", GOOD.replace("(a1) 0.1, 0.1, 0.8;", "(a1) 0.1, 0.1, 0.7;"), vec!["line 14", "variable B", "(a1)", "sums to"]),
        ("undeclared parent", GOOD.replace("( B | A )", "( B | C )"), vec!["line 12", "variable B", "undeclared parent C"]),
        ("undeclared state", GOOD.replace("(a1) 0.1", "(a2) 0.1"), vec!["line 14", "variable B", "(a2)", "a2 is not a state of A"]),
        ("missing row", GOOD.replace("  (a1) 0.1, 0.1, 0.8;\n", ""), vec!["line 12", "variable B", "(a1)", "missing CPT row"]),
        ("repeated row", GOOD.replace("(a1) 0.1", "(a0) 0.1"), vec!["line 14", "variable B", "(a0)", "repeated CPT row"]),
        ("extra row", GOOD.replace("  table 0.3, 0.7;", "  table 0.3, 0.7;\n  (a0) 0.3, 0.7;"), vec!["line 11", "variable A", "extra CPT row"]),
        ("key length", GOOD.replace("(a1) 0.1", "(a1, a0) 0.1"), vec!["line 14", "variable B", "(a1, a0)", "2 states for 1 parents"]),
        ("missing CPT", GOOD.replace("probability ( A ) {\n  table 0.3, 0.7;\n}\n", ""), vec!["line 3", "variable A", "missing CPT"]),
        ("repeated CPT", format!("{GOOD}probability ( A ) {{\n  table 0.5, 0.5;\n}}\n"), vec!["line 16", "variable A", "repeated probability block"]),
        ("undeclared variable", format!("{GOOD}probability ( Z ) {{\n  table 0.5, 0.5;\n}}\n"), vec!["line 16", "undeclared variable Z"]),
        ("count", GOOD.replace("[ 3 ]", "[ 4 ]"), vec!["line 7", "variable B", "[ 4 ]", "lists 3"]),
        ("cycle", GOOD.replace("probability ( A ) {\n  table 0.3, 0.7;\n}", "probability ( A | B ) {\n  (lo) 0.3, 0.7;\n  (mid-1.5) 0.3, 0.7;\n  (hi/x) 0.3, 0.7;\n}"), vec!["line 3", "cyclic", "A, B"]),
    ];
    for (what, text, needles) in cases {
        let e = BifNetwork::parse("bad.bif", &text)
            .expect_err(what)
            .to_string();
        assert!(e.contains("bad.bif"), "{what}: {e}");
        for n in needles {
            assert!(e.contains(n), "{what}: {e:?} lacks {n:?}");
        }
    }
}

// ---------------------------------------------------------------- synthetic

#[test]
fn sparse_counts_follow_two_thirds_one_third() {
    let g = sparse_counts(60_000, 3, LevelsMode::Declared, &mut rng(3));
    assert_eq!(g.data.levels[0], vec!["1", "2", "3"]);
    let t = g.data.table(1, &[0]);
    let truth = &g.truth[1];
    assert_eq!(truth.config_labels, vec!["x=1", "x=2", "x=3"]);
    for c in 0..3 {
        let p = truth.probabilities[2 * c + 1];
        assert_eq!(p, if c % 2 == 1 { 2.0 / 3.0 } else { 1.0 / 3.0 });
        let n = f64::from(t.totals[c]);
        let z = (f64::from(t.row(c)[1]) - n * p) / (n * p * (1.0 - p)).sqrt();
        assert!(z.abs() < 5.0, "level {c}: z = {z}");
        assert!((n / 20_000.0 - 1.0).abs() < 0.05, "parent not uniform: {n}");
    }
    let a = sparse_counts(100, 10, LevelsMode::Present, &mut rng(4));
    assert_eq!(a, sparse_counts(100, 10, LevelsMode::Present, &mut rng(4)));
    let small = sparse_counts(5, 10, LevelsMode::Present, &mut rng(5));
    assert!(small.data.k(0) <= 5, "present keeps only observed levels");
    assert_eq!(
        small.truth[1].config_labels.len(),
        10,
        "truth over declared levels"
    );
}

#[test]
fn two_dags_and_two_parent_sets_truths() {
    let g = two_dags(200, 25, LevelsMode::Declared, &mut rng(6));
    assert_eq!(g.data.k(0), 25);
    let p3: Vec<f64> = g.truth[2].probabilities.chunks(2).map(|r| r[1]).collect();
    assert_eq!(p3.len(), 50);
    let mean = p3.iter().sum::<f64>() / 50.0; // Beta(2, 15): mean 2/17, sd 0.076
    assert!(
        (mean - 2.0 / 17.0).abs() < 4.0 * 0.076 / 50f64.sqrt(),
        "{mean}"
    );
    let p2: Vec<f64> = g.truth[1].probabilities.chunks(2).map(|r| r[1]).collect();
    assert!(p2.iter().all(|&p| (0.01..0.99).contains(&p)));
    assert_eq!(g.truth[2].config_labels[25 + 3], "x1=4;x2=1");
    let g1 = two_parent_sets(
        150,
        5,
        3,
        TwoParentTruth::G1,
        LevelsMode::Declared,
        &mut rng(7),
    );
    assert_eq!(g1.truth[2].parents, vec!["x2"]);
    let g2 = two_parent_sets(
        150,
        5,
        3,
        TwoParentTruth::G2,
        LevelsMode::Declared,
        &mut rng(7),
    );
    assert_eq!(g2.truth[2].parents, vec!["x1", "x2"]);
    assert_eq!(g2.truth[2].probabilities.len(), 30);
}

// ---------------------------------------------------------------- METABRIC

#[test]
fn metabric_preprocessing_gives_the_issue_counts() {
    let path = "metabric/metabric_clinical_kaggle_2509.csv";
    let d = read_metabric(&data_dir().join(path), path).expect("metabric");
    assert_eq!(d.n(), 1839);
    assert_eq!(
        d.names,
        vec![
            "TBS", "CHT", "DFC", "CTD", "AAD", "TSI", "RTH", "PTL", "INC", "IMS", "HTH", "COH"
        ]
    );
    let k = |n: &str| d.k(d.index(n).expect(n));
    assert_eq!((k("CTD"), k("INC"), k("TSI"), k("AAD")), (7, 11, 4, 8));
    assert_eq!(
        d.levels[5],
        vec!["(0,17]", "(17,23]", "(23,30]", "(30,182]"]
    );
    assert_eq!(d.levels[4][7], "[90,Inf)");
    assert_eq!(k("DFC"), 3);
    assert_eq!(d.levels[11], vec!["1", "2", "3", "4", "5"]);
}

// ---------------------------------------------------------------- dataset section

#[test]
fn dataset_section_parses_builds_and_refuses() {
    let e = parse_dataset(&json!({"kind": "csv", "path": "x.csv", "colums": ["a"]})).unwrap_err();
    assert!(
        e.message.contains("colums") && e.message.contains("drop_missing"),
        "{e}"
    );
    let e =
        parse_dataset(&json!({"kind": "csv", "path": "x", "levels": {"A": ["0"]}})).unwrap_err();
    assert_eq!(e.path, "dataset.levels.A");
    let e = parse_dataset(&json!({"kind": "bif"})).unwrap_err();
    assert!(e.message.contains("bif_sample"), "{e}");
    assert_eq!(
        parse_dataset(&json!({"kind": "sparse_counts", "k_pa": 1}))
            .unwrap_err()
            .path,
        "dataset.k_pa"
    );

    let lucas =
        parse_dataset(&json!({"kind": "csv", "path": "lucas/lucas0_train.csv"})).expect("csv");
    let ds = lucas.build(&ctx(), &mut rng(8)).expect("lucas");
    let d = DiscreteData::from_matrices(&ds.observed).expect("round trip");
    assert_eq!((d.n(), d.p()), (2000, 12));
    assert!(ds.truth.is_empty());

    let alarm = parse_dataset(&json!({
        "kind": "bif_sample", "path": "bnrepository/alarm.bif", "rows": 200,
        "columns": ["LVFAILURE", "HYPOVOLEMIA", "HISTORY", "LVEDVOLUME", "STROKEVOLUME", "PCWP", "CVP"],
        "rename": {"LVFAILURE": "LVF", "HYPOVOLEMIA": "HYP", "HISTORY": "HIST", "LVEDVOLUME": "LVV", "STROKEVOLUME": "STKV"}
    }))
    .expect("bif");
    let ds = alarm.build(&ctx(), &mut rng(9)).expect("alarm");
    assert_eq!(ds, alarm.build(&ctx(), &mut rng(9)).expect("again"));
    let d = DiscreteData::from_matrices(&ds.observed).expect("round trip");
    assert_eq!(
        d.names,
        vec!["LVF", "HYP", "HIST", "LVV", "STKV", "PCWP", "CVP"]
    );
    assert_eq!(d.n(), 200);
    let stkv = ds.truth("cpt:STKV").expect("STKV truth");
    assert_eq!((stkv.rows, stkv.cols), (4, 3));
    assert_eq!(stkv.row_names[1], "HYP=FALSE;LVF=TRUE");
    let adj = ds.truth("adjacency").expect("adjacency");
    assert_eq!(adj.get(0, 2), 1.0); // LVF → HIST
    assert_eq!(adj.get(2, 0), 0.0);
    assert_eq!(adj.values.iter().sum::<f64>(), 7.0); // LVF→HIST, HYP,LVF→LVV, HYP,LVF→STKV, LVV→PCWP, LVV→CVP
    let bad = parse_dataset(&json!({"kind": "bif_sample", "path": "bnrepository/alarm.bif", "rows": 5, "columns": ["LVF"]}))
        .expect("parses");
    assert_eq!(
        bad.build(&ctx(), &mut rng(9)).unwrap_err().path,
        "dataset.columns.0"
    );
    let missing = parse_dataset(&json!({"kind": "csv", "path": "nope/none.csv"})).expect("parses");
    let e = missing.build(&ctx(), &mut rng(9)).unwrap_err();
    assert!(
        e.path == "dataset.path" && e.message.contains("nope/none.csv"),
        "{e}"
    );

    let s = DatasetSpec::parse(&json!({"kind": "two_parent_sets", "n": 50, "g_true": "g2"}))
        .expect("e");
    let ds = s.build(&ctx(), &mut rng(10)).expect("synthetic");
    assert_eq!(ds.truth("cpt:x3").map(|m| m.rows), Some(15));
    let m = parse_dataset(&json!({"kind": "metabric"})).expect("metabric");
    assert_eq!(
        DiscreteData::from_matrices(&m.build(&ctx(), &mut rng(0)).expect("m").observed)
            .map(|d| d.n()),
        Ok(1839)
    );
}
