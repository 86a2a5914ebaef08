//! The `causeway diagnose FILE` reader: CSV and Parquet round trips, and clear errors.

use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};

use causeway_results::diagnostics::{
    Diagnostics, ReadError, diagnose, diagnose_file, read_draws_file, render_json, render_table,
};
use polars::prelude::*;

/// Three variables of 3 chains × 50 draws with distinct behaviour.
fn sample() -> Vec<(&'static str, Vec<Vec<f64>>)> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut u = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    let var = |f: &mut dyn FnMut(f64, usize) -> f64| -> Vec<Vec<f64>> {
        (0..3)
            .map(|c| {
                let mut x = 0.0;
                (0..50)
                    .map(|_| {
                        x = f(x, c);
                        x
                    })
                    .collect()
            })
            .collect()
    };
    let mu = var(&mut |x, _| 0.6 * x + u() - 0.5);
    let sigma = var(&mut |_, c| (u() * 3.0).exp() + c as f64);
    let k = var(&mut |_, _| (u() * 4.0).floor());
    vec![("sigma", sigma), ("mu", mu), ("k", k)]
}

fn expected(vars: &[(&str, Vec<Vec<f64>>)]) -> Vec<(String, Diagnostics)> {
    vars.iter()
        .map(|(name, chains)| {
            let c: Vec<&[f64]> = chains.iter().map(Vec::as_slice).collect();
            (name.to_string(), diagnose(&c).unwrap())
        })
        .collect()
}

/// Rows in a scrambled order (the reader must sort by chain, draw), chain ids 7, 3, 5.
fn rows(n_chains: usize, n_draws: usize) -> Vec<(usize, usize)> {
    let mut r: Vec<(usize, usize)> = (0..n_chains)
        .flat_map(|c| (0..n_draws).map(move |d| (c, d)))
        .collect();
    r.sort_by_key(|&(c, d)| ((d * 7919 + c * 31) % 97, c, d));
    r
}
const CHAIN_IDS: [i64; 3] = [3, 5, 7];

fn write_csv(path: &Path, vars: &[(&str, Vec<Vec<f64>>)]) {
    let mut s = String::from("chain,draw");
    for (name, _) in vars {
        write!(s, ",{name}").unwrap();
    }
    s.push('\n');
    for (c, d) in rows(3, 50) {
        write!(s, "{},{}", CHAIN_IDS[c], d).unwrap();
        for (_, chains) in vars {
            // `{:?}` prints the shortest representation that round-trips exactly.
            write!(s, ",{:?}", chains[c][d]).unwrap();
        }
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
}

fn write_parquet(path: &Path, vars: &[(&str, Vec<Vec<f64>>)]) {
    let order = rows(3, 50);
    let mut cols = vec![
        Column::new(
            "chain".into(),
            order
                .iter()
                .map(|&(c, _)| CHAIN_IDS[c])
                .collect::<Vec<i64>>(),
        ),
        Column::new(
            "draw".into(),
            order.iter().map(|&(_, d)| d as i32).collect::<Vec<i32>>(),
        ),
    ];
    for (name, chains) in vars {
        cols.push(Column::new(
            (*name).into(),
            order
                .iter()
                .map(|&(c, d)| chains[c][d])
                .collect::<Vec<f64>>(),
        ));
    }
    let mut df = DataFrame::new_infer_height(cols).unwrap();
    ParquetWriter::new(File::create(path).unwrap())
        .finish(&mut df)
        .unwrap();
}

fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    (dir, p)
}

#[test]
fn csv_round_trip() {
    let vars = sample();
    let (_d, path) = tmp("draws.csv");
    write_csv(&path, &vars);
    let table = read_draws_file(&path).unwrap();
    assert_eq!(table.chain_ids, vec![3, 5, 7]);
    assert_eq!(table.n_draws, 50);
    assert_eq!(table.variables[1].1[..50], vars[1].1[0][..]);
    let got = diagnose_file(&path).unwrap();
    assert_eq!(got, expected(&vars));
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["sigma", "mu", "k"], "column order is kept");
}

#[test]
fn parquet_round_trip_and_magic_detection() {
    let vars = sample();
    let (_d, path) = tmp("draws.parquet");
    write_parquet(&path, &vars);
    assert_eq!(diagnose_file(&path).unwrap(), expected(&vars));
    // Without a known extension the Parquet magic decides.
    let other = path.with_extension("bin");
    std::fs::copy(&path, &other).unwrap();
    assert_eq!(diagnose_file(&other).unwrap(), expected(&vars));
}

#[test]
fn csv_nan_field_gives_nan_diagnostics() {
    let (_d, path) = tmp("nan.csv");
    let mut s = String::from("chain,draw,x,y\n");
    for c in 0..2 {
        for d in 0..6 {
            let x = if c == 1 && d == 2 {
                "NaN".to_string()
            } else {
                format!("{}", (c * 6 + d) as f64 * 0.37 % 1.0)
            };
            writeln!(s, "{c},{d},{x},{}", ((d * 5 + c) % 7) as f64).unwrap();
        }
    }
    std::fs::write(&path, s).unwrap();
    let got = diagnose_file(&path).unwrap();
    assert!(got[0].1.ess_bulk.is_nan() && got[0].1.rhat.is_nan());
    assert!(got[1].1.ess_bulk.is_finite());
}

fn err_of(contents: &str) -> (String, ReadError) {
    let (_d, path) = tmp("bad.csv");
    std::fs::write(&path, contents).unwrap();
    let err = diagnose_file(&path).unwrap_err();
    (err.to_string(), err)
}

#[test]
fn missing_chain_or_draw_column() {
    let (msg, err) = err_of("draw,x\n0,1.0\n1,2.0\n");
    assert!(
        matches!(
            err,
            ReadError::MissingColumn {
                column: "chain",
                ..
            }
        ),
        "{msg}"
    );
    assert!(msg.contains("bad.csv") && msg.contains("`chain`"), "{msg}");
    let (msg, err) = err_of("chain,x\n0,1.0\n0,2.0\n");
    assert!(
        matches!(err, ReadError::MissingColumn { column: "draw", .. }),
        "{msg}"
    );
    assert!(msg.contains("found: chain, x"), "{msg}");
}

#[test]
fn unequal_chain_lengths() {
    let mut s = String::from("chain,draw,x\n");
    for (c, n) in [(0, 5), (1, 4)] {
        for d in 0..n {
            writeln!(s, "{c},{d},{}", d as f64 * 1.5 - c as f64).unwrap();
        }
    }
    let (msg, err) = err_of(&s);
    assert!(
        matches!(
            err,
            ReadError::UnequalChainLengths {
                chain: 1,
                len: 4,
                expected: 5,
                ..
            }
        ),
        "{msg}"
    );
    assert!(
        msg.contains("chain 1 has 4 draws but chain 0 has 5"),
        "{msg}"
    );
}

#[test]
fn non_numeric_column() {
    let (msg, err) = err_of("chain,draw,x,label\n0,0,1.0,a\n0,1,2.0,b\n0,2,2.5,c\n0,3,0.5,d\n");
    assert!(
        matches!(err, ReadError::NonNumericColumn { ref column, .. } if column == "label"),
        "{msg}"
    );
    assert!(msg.contains("`label` is not numeric"), "{msg}");
}

#[test]
fn non_integer_chain_missing_values_duplicates_and_short_chains() {
    let (msg, err) = err_of("chain,draw,x\n0.5,0,1.0\n0.5,1,2.0\n");
    assert!(
        matches!(
            err,
            ReadError::NonIntegerIndex {
                column: "chain",
                ..
            }
        ),
        "{msg}"
    );

    let (msg, err) = err_of("chain,draw,x\n0,0,1.0\n0,1,\n0,2,3.0\n0,3,4.0\n");
    assert!(
        matches!(
            err,
            ReadError::MissingValues {
                count: 1,
                row: 2,
                ..
            }
        ),
        "{msg}"
    );
    assert!(
        msg.contains("column `x` has 1 missing value(s), the first in data row 2"),
        "{msg}"
    );

    let (msg, err) = err_of("chain,draw,x\n0,0,1.0\n0,1,2.0\n0,1,3.0\n0,3,4.0\n");
    assert!(
        matches!(
            err,
            ReadError::DuplicateDraw {
                chain: 0,
                draw: 1,
                ..
            }
        ),
        "{msg}"
    );

    let (msg, err) = err_of("chain,draw,x\n0,0,1.0\n0,1,2.0\n1,0,3.0\n1,1,4.0\n");
    assert!(
        matches!(err, ReadError::Diagnostics { ref variable, .. } if variable == "x"),
        "{msg}"
    );
    assert!(msg.contains("at least 4 draws"), "{msg}");

    let (msg, err) = err_of("chain,draw\n0,0\n0,1\n");
    assert!(matches!(err, ReadError::Empty { .. }), "{msg}");
}

#[test]
fn unreadable_and_unparsable_files() {
    let err = diagnose_file(Path::new("/nonexistent/draws.csv")).unwrap_err();
    assert!(matches!(err, ReadError::Io { .. }));
    assert!(
        err.to_string()
            .starts_with("/nonexistent/draws.csv: cannot read"),
        "{err}"
    );

    let (_d, path) = tmp("broken.parquet");
    std::fs::write(&path, "chain,draw,x\n0,0,1\n").unwrap();
    let err = diagnose_file(&path).unwrap_err();
    assert!(
        matches!(
            err,
            ReadError::Parse {
                format: "Parquet",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("broken.parquet: cannot parse as Parquet"),
        "{err}"
    );
}

#[test]
fn json_rendering() {
    let vars = sample();
    let mut results = expected(&vars);
    results[2].1.rhat = f64::NAN;
    let json = render_json(&results);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let obj = v.as_object().unwrap();
    assert_eq!(obj.len(), 3);
    assert!(obj["k"]["rhat"].is_null());
    assert_eq!(
        obj["mu"]["ess_bulk"].as_f64().unwrap(),
        results[1].1.ess_bulk
    );
    for key in [
        "rhat",
        "rhat_split",
        "ess_bulk",
        "ess_tail",
        "ess_mean",
        "mcse_mean",
    ] {
        assert!(obj["sigma"].get(key).is_some(), "{key}");
    }
    // Column order is kept in the text.
    let (a, b, c) = (
        json.find("\"sigma\"").unwrap(),
        json.find("\"mu\"").unwrap(),
        json.find("\"k\"").unwrap(),
    );
    assert!(a < b && b < c, "{json}");
    assert_eq!(render_json(&[]), "{}\n");
}

#[test]
fn table_rendering() {
    let mut results = expected(&sample());
    results[0].0 = "a_longer_name".into();
    results[1].1.rhat = f64::NAN;
    let table = render_table(&results);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[0].starts_with("variable"));
    assert!(lines[0].ends_with("mcse_mean"));
    // Right-aligned numeric columns: every line has the same width.
    assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{table}");
    assert!(lines[2].contains("NaN"), "{table}");
    assert!(lines[1].starts_with("a_longer_name  "));
    print!("{table}");
}
