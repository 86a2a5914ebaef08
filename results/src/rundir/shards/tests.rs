use std::collections::HashSet;

use super::*;
use crate::rundir::{SUMMARY_KEY, summary_to_json, write_matrices, write_parquet_with};

fn names(df: &DataFrame) -> Vec<String> {
    df.get_column_names()
        .iter()
        .map(|n| n.to_string())
        .collect()
}

fn column(df: &DataFrame, name: &str) -> Vec<f64> {
    df.column(name)
        .expect("column")
        .f64()
        .expect("f64")
        .into_no_null_iter()
        .collect()
}

/// Chain `i`'s output: `rows` rows, a trace column set that depends on `i` (so that a shard
/// holds chains with different columns), statistics for even `i` only, a NaN draw; for even
/// `i` also a summary matrix too large for the footer (80 values, an infinite one), between
/// two small ones.
fn output(i: usize, rows: usize) -> ChainOutput {
    let trace_names: Vec<String> = if i.is_multiple_of(3) {
        vec!["k_plus".into(), "alpha".into()]
    } else {
        vec!["alpha".into()]
    };
    let stat_names: Vec<String> = if i.is_multiple_of(2) {
        vec!["accept".into()]
    } else {
        Vec::new()
    };
    let k = trace_names.len();
    let mut trace: Vec<f64> = (0..rows * k).map(|v| (i * 1000 + v) as f64 / 7.0).collect();
    if let Some(v) = trace.get_mut(1) {
        *v = f64::NAN;
    }
    ChainOutput {
        iterations: (1..=rows as u64).collect(),
        trace,
        stats: (0..rows * stat_names.len()).map(|v| v as f64).collect(),
        trace_names,
        stat_names,
        summary: summary(i),
        elapsed_seconds: vec![0.5; rows],
    }
}

fn summary(i: usize) -> Vec<Matrix> {
    let mut out = vec![Matrix::scalar("log_marginal_likelihood", -(i as f64))];
    if i.is_multiple_of(2) {
        let mut values: Vec<f64> = (0..80).map(|v| (i + v) as f64 / 3.0).collect();
        values[7] = f64::INFINITY;
        out.push(Matrix::new("r_marginals", 40, 2, values));
        out.push(Matrix::scalar("n_iterations", i as f64));
    }
    out
}

fn chains(ids: impl IntoIterator<Item = usize>, rows: usize) -> Vec<(usize, String, ChainOutput)> {
    ids.into_iter()
        .map(|i| (i, format!("job{i}"), output(i, rows)))
        .collect()
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = fs::read_dir(dir.join("chains"))
        .expect("chains")
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).expect("read"),
            )
        })
        .collect();
    out.sort();
    out
}

/// Each chain reads back as it was given: its own columns only, in its order, its statistics
/// apart from its draws (none for a sampler without), its summary, its NaN.
#[test]
fn shards_read_each_chain_back_as_it_was_stored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rd = RunDir::create(dir.path()).expect("run dir");
    let n_jobs = 600;
    rd.store_chains(n_jobs, chains(0..n_jobs, 3))
        .expect("store");
    for i in [0, 1, 2, 3, 599] {
        let id = format!("job{i}");
        let out = output(i, 3);
        assert!(rd.chain_done(&id));
        assert!(!rd.in_own_files(&id));
        let trace = rd.read_trace(&id).expect("trace");
        let mut want = vec!["iteration".to_string()];
        want.extend(out.trace_names.iter().cloned());
        assert_eq!(names(&trace), want, "{id}");
        let k = out.trace_names.len();
        for (j, name) in out.trace_names.iter().enumerate() {
            let got = column(&trace, name);
            let expected: Vec<f64> = (0..3).map(|r| out.trace[r * k + j]).collect();
            assert_eq!(
                got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{id} {name}"
            );
        }
        let stats = rd.read_sample_stats(&id).expect("stats");
        match i % 2 {
            0 => {
                let stats = stats.expect("statistics stored");
                assert_eq!(names(&stats), vec!["iteration", "accept"]);
                assert_eq!(column(&stats, "accept"), vec![0.0, 1.0, 2.0]);
            }
            _ => assert!(stats.is_none(), "{id}: a sampler without statistics"),
        }
        assert_eq!(rd.read_summary(&id).expect("summary"), out.summary);
        assert!(rd.chain_defect(&id).is_none());
    }
    assert!(!rd.chain_done("job600"));
    assert!((0..n_jobs).all(|i| rd.chain_done(&format!("job{i}"))));
    // Sizes that disagree are refused, not written.
    let mut bad = output(0, 3);
    bad.stats.pop();
    assert!(
        rd.store_chains(n_jobs, vec![(0, "job0".into(), bad)])
            .is_err()
    );
}

/// However the chains finished (one batch, or many in another order, merged into shards sealed
/// before) and however often a shard is sealed again, the files are the same bytes; a chain
/// stored again (a convergence-driven run extends it) replaces the one before.
#[test]
fn a_shards_bytes_depend_only_on_which_chains_it_holds() {
    let n_jobs = 1000;
    let whole = tempfile::tempdir().expect("tempdir");
    let rd = RunDir::create(whole.path()).expect("run dir");
    rd.store_chains(n_jobs, chains(0..n_jobs, 2))
        .expect("store");
    let pieces = tempfile::tempdir().expect("tempdir");
    let rd2 = RunDir::create(pieces.path()).expect("run dir");
    let mut order: Vec<usize> = (0..n_jobs).rev().collect();
    order.rotate_left(333);
    for batch in order.chunks(97) {
        rd2.store_chains(n_jobs, chains(batch.iter().copied(), 2))
            .expect("store");
    }
    rd2.store_chains(n_jobs, chains([5, 6], 2)).expect("again");
    let a = files(whole.path());
    let shards = n_jobs.div_ceil(jobs_per_shard(n_jobs));
    assert!(shards <= MAX_SHARDS);
    assert_eq!(
        a.len(),
        3 * shards,
        "trace, statistics and summary per shard"
    );
    assert!(a == files(pieces.path()), "the same files, byte for byte");

    rd2.store_chains(n_jobs, chains([5], 4)).expect("extended");
    assert_eq!(rd2.read_trace("job5").expect("trace").height(), 4);
    assert_eq!(rd2.read_trace("job6").expect("trace").height(), 2);
    assert!(a != files(pieces.path()));
}

/// 10,000 chains are at most 256 shards of three files; the job table's digest of a shard tells a
/// damaged one, whose removal leaves exactly its chains unstored.
#[test]
fn the_file_count_is_bounded_and_a_damaged_shard_is_told() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rd = RunDir::create(dir.path()).expect("run dir");
    let n_jobs = 10_000;
    rd.store_chains(n_jobs, chains(0..n_jobs, 1))
        .expect("store");
    let shards = n_jobs.div_ceil(jobs_per_shard(n_jobs));
    assert!(shards <= MAX_SHARDS);
    assert_eq!(files(dir.path()).len(), 3 * shards);
    assert_eq!(rd.shards(), (0..shards).collect::<Vec<_>>());
    let s = shard_of(4321, n_jobs);
    let digest = rd.shard_digest(s).expect("digest");
    assert_eq!(rd.shard_defect(s, Some(&digest)), None);
    assert_eq!(rd.shard_defect(s, None), None, "no record: the frame alone");
    // One value changed in place: the frame is sound, the digest is not.
    let path = rd.shard_trace_path(s);
    let mut bytes = fs::read(&path).expect("read");
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    fs::write(&path, &bytes).expect("write");
    assert!(
        rd.shard_defect(s, Some(&digest))
            .is_some_and(|why| why.contains("checksum"))
    );
    assert_eq!(
        rd.shard_defect(s, None),
        None,
        "the frame alone misses a flipped bit: only the digest finds it"
    );
    // Truncated: its frame says so.
    fs::write(&path, &bytes[..mid]).expect("truncate");
    assert!(
        rd.shard_defect(s, Some(&digest))
            .is_some_and(|why| why.contains("Parquet"))
    );
    rd.remove_shard(s).expect("remove");
    let lost: HashSet<usize> = (0..n_jobs)
        .filter(|i| !rd.chain_done(&format!("job{i}")))
        .collect();
    assert_eq!(lost, shard_jobs(s, n_jobs).collect::<HashSet<_>>());
    assert!(lost.contains(&4321));
}

/// A run directory written before shards, one file per chain (its summary in the trace's
/// footer, or older still in a summary file of its own), still reads, beside shards; sealing
/// that chain again moves it into its shard.
#[test]
fn older_run_directories_with_a_file_per_chain_still_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rd = RunDir::create(dir.path()).expect("run dir");
    let out = output(1, 3);
    let own = |id: &str, suffix: &str| dir.path().join("chains").join(format!("{id}{suffix}"));
    let trace_frame = || {
        df!(
            "iteration" => &out.iterations,
            "alpha" => &out.trace,
        )
        .expect("frame")
    };
    let summary = vec![(SUMMARY_KEY.to_string(), summary_to_json(&out.summary))];
    write_parquet_with(
        &own("footer", ".trace.parquet"),
        &mut trace_frame(),
        summary,
    )
    .expect("trace");
    write_parquet_with(
        &own("older", ".trace.parquet"),
        &mut trace_frame(),
        Vec::new(),
    )
    .expect("trace");
    rd.forget();
    assert!(
        rd.read_summary("older").is_err(),
        "no footer key and no file"
    );
    write_matrices(&own("older", ".summary.parquet"), &out.summary).expect("summary");
    rd.store_chains(10, chains([0], 3)).expect("store");
    for id in ["footer", "older", "job0"] {
        assert!(rd.chain_done(id), "{id}");
    }
    assert!(!rd.chain_done("job1") && !rd.chain_done("olde"));
    let stored = rd.stored_index();
    for (id, own) in [("footer", true), ("older", true), ("job0", false)] {
        assert!(stored.contains(id), "{id}");
        assert_eq!(stored.in_own_files(id), own, "{id}");
    }
    assert!(!stored.contains("job1") && !stored.in_own_files("job1"));
    for id in ["footer", "older"] {
        assert!(rd.in_own_files(id));
        assert_eq!(rd.read_summary(id).expect("summary"), out.summary, "{id}");
        let alpha = column(&rd.read_trace(id).expect("trace"), "alpha");
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&alpha), bits(&out.trace));
        assert!(rd.chain_defect(id).is_none());
        assert!(rd.chain_digest(id).is_ok());
    }
    // An older directory's damaged summary file makes its chain damaged.
    fs::write(own("older", ".summary.parquet"), b"PAR1 not parquet").expect("overwrite");
    assert!(
        rd.chain_defect("older")
            .is_some_and(|d| d.contains("summary"))
    );
    // Stored again, the chain is in its shard and its own files are gone.
    rd.store_chains(10, vec![(7, "footer".into(), output(1, 3))])
        .expect("store");
    assert!(!rd.in_own_files("footer") && rd.chain_done("footer"));
    assert!(!own("footer", ".trace.parquet").exists());
}

/// A footer lists each chain's summary as a JSON value (not escaped in a string); a footer that
/// holds it as a string (directories written before) reads to the same chains.
#[test]
fn a_footers_summary_reads_as_a_value_or_as_the_older_string() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rd = RunDir::create(dir.path()).expect("run dir");
    rd.store_chains(4, chains(0..4, 2)).expect("store");
    let path = rd.shard_trace_path(0);
    let text = crate::rundir::footer_value(&path, CHAINS_KEY)
        .expect("footer")
        .expect("chains key");
    assert!(text.contains(r#""summary":[{"#), "{text}");
    let mut listed: Vec<serde_json::Value> = serde_json::from_str(&text).expect("json");
    for c in &mut listed {
        let value = c["summary"].take();
        c["summary"] = serde_json::Value::String(value.to_string());
    }
    let older = serde_json::to_string(&listed).expect("json");
    assert!(older.contains(r#""summary":"[{"#), "{older}");
    let now = parse_chains(&path, Some(text)).expect("parse");
    let before = parse_chains(&path, Some(older)).expect("parse the older form");
    assert_eq!(now.len(), 1);
    let large = &output(0, 2).summary[1].values;
    for c in [&now[0], &before[0]] {
        let stored = stored_summary(&path, c.summary.get()).expect("json");
        let back = summaries::matrices(&path, stored, large, |_| true).expect("matrices");
        assert_eq!(back, output(0, 2).summary);
    }
}

/// A run directory of 600 chains stored, and the shard of chain 300 (whose even chains have a
/// larger summary matrix).
fn six_hundred_chains() -> (tempfile::TempDir, RunDir, usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let rd = RunDir::create(dir.path()).expect("run dir");
    let n_jobs = 600;
    rd.store_chains(n_jobs, chains(0..n_jobs, 2))
        .expect("store");
    (dir, rd, shard_of(300, n_jobs))
}

/// A summary matrix of more than `FOOTER_VALUES_MAX` values is stored in the shard's summary
/// file, an Arrow IPC file with one row per matrix (`job_id`, `matrix`, `rows`, `cols`,
/// `values`), and its footer entry keeps only its shape. One small matrix reads without that file (the reports read a log marginal
/// likelihood a chain); the digest tells a summary file damaged or gone.
#[test]
fn a_shards_larger_summary_matrices_are_in_its_summary_file() {
    let (dir, rd, s) = six_hundred_chains();
    let footer = crate::rundir::footer_value(&rd.shard_trace_path(s), CHAINS_KEY)
        .expect("footer")
        .expect("chains key");
    assert!(
        footer.contains(r#""name":"r_marginals","rows":40,"cols":2,"row_names""#),
        "{footer}"
    );
    assert!(footer.contains(r#""summary_values":80"#), "{footer}");
    let path = rd.shard_summary_path(s);
    assert!(
        path.to_string_lossy().ends_with(".summary.arrow"),
        "{path:?}"
    );
    let table = IpcReader::new(fs::File::open(&path).expect("open"))
        .finish()
        .expect("summary file");
    assert_eq!(
        names(&table),
        vec!["job_id", "matrix", "rows", "cols", "values"]
    );
    assert_eq!(
        table.height(),
        2,
        "one row per matrix: the even chains 300 and 302, 80 values each"
    );
    let mut want = output(300, 2).summary[1].values.clone();
    want.extend(&output(302, 2).summary[1].values);
    assert_eq!(
        summaries::read_values(&rd.shard_summary_path(s), 160).expect("values"),
        want
    );
    let rows: Vec<Option<u32>> = table
        .column("rows")
        .and_then(|c| c.u32().cloned())
        .expect("rows")
        .iter()
        .collect();
    assert_eq!(rows, vec![Some(40), Some(40)]);
    let large = rd
        .read_summary_matrix("job300", "r_marginals")
        .expect("read");
    assert_eq!(large.as_ref(), output(300, 2).summary.get(1));
    assert_eq!(
        rd.read_summary_matrix("job300", "absent").expect("read"),
        None
    );

    let digest = rd.shard_digest(s).expect("digest");
    fs::remove_file(rd.shard_summary_path(s)).expect("remove");
    let fresh = RunDir::open(dir.path());
    let lml = fresh.read_summary_matrix("job300", "log_marginal_likelihood");
    assert_eq!(lml.expect("read").expect("stored").values, vec![-300.0]);
    assert!(
        fresh.read_summary("job300").is_err(),
        "its larger matrix is gone"
    );
    assert!(
        fresh.read_summary("job301").is_ok(),
        "an odd chain has none"
    );
    assert!(
        fresh
            .shard_defect(s, Some(&digest))
            .is_some_and(|why| why.contains("checksum"))
    );
}

/// The summary file as Parquet, as runs wrote it before Arrow IPC, reads to the same
/// matrices, in the list layout (one row per matrix) and in the long layout before it (one row
/// per value: `job_id`, `matrix`, `row`, `col`, `value`); a file with neither column is an
/// error, not an empty summary. Sealing the shard again writes it as Arrow IPC.
#[test]
fn a_summary_file_in_the_older_parquet_layouts_still_reads() {
    let (dir, rd, s) = six_hundred_chains();
    let ipc = rd.shard_summary_path(s);
    let path = ipc.with_extension("parquet");
    let mut lists = IpcReader::new(fs::File::open(&ipc).expect("open"))
        .finish()
        .expect("summary file");
    fs::remove_file(&ipc).expect("remove");
    write_parquet_with(&path, &mut lists, Vec::new()).expect("write");
    let fresh = RunDir::open(dir.path());
    assert_eq!(fresh.shard_summary_path(s), path);
    assert_eq!(fresh.shard_defect(s, None), None);
    assert_eq!(
        fresh.read_summary("job300").expect("read"),
        output(300, 2).summary
    );
    let (a, b) = (output(300, 2).summary, output(302, 2).summary);
    let mut value = a[1].values.clone();
    value.extend(&b[1].values);
    let n = value.len();
    let ids: Vec<&str> = (0..n)
        .map(|i| if i < 80 { "job300" } else { "job302" })
        .collect();
    let long = |value_name: &str| {
        DataFrame::new(
            n,
            vec![
                Series::new("job_id".into(), ids.clone()).into(),
                Series::new("matrix".into(), vec!["r_marginals"; n]).into(),
                Series::new(
                    "row".into(),
                    (0..n as u32).map(|i| i % 80 / 2).collect::<Vec<_>>(),
                )
                .into(),
                Series::new(
                    "col".into(),
                    (0..n as u32).map(|i| i % 2).collect::<Vec<_>>(),
                )
                .into(),
                Series::new(value_name.into(), value.clone()).into(),
            ],
        )
        .expect("frame")
    };
    write_parquet_with(&path, &mut long("value"), Vec::new()).expect("write");
    let fresh = RunDir::open(dir.path());
    assert_eq!(
        fresh
            .read_summary_matrix("job302", "r_marginals")
            .expect("read"),
        b.get(1).cloned()
    );
    assert_eq!(fresh.read_summary("job300").expect("read"), a);

    write_parquet_with(&path, &mut long("renamed"), Vec::new()).expect("write");
    let fresh = RunDir::open(dir.path());
    assert!(fresh.read_summary_matrix("job302", "r_marginals").is_err());

    write_parquet_with(&path, &mut long("value"), Vec::new()).expect("write");
    let fresh = RunDir::open(dir.path());
    fresh
        .seal_shard(s, Vec::new())
        .expect("seal the shard again");
    assert!(!path.exists(), "the older summary file is replaced");
    assert_eq!(fresh.shard_summary_path(s), ipc);
    assert_eq!(fresh.read_summary("job302").expect("read"), b);
}

/// A summary file cut short is told by its frame (the digest aside), as a trace file is.
#[test]
fn a_truncated_summary_file_is_told_by_its_frame() {
    let (_dir, rd, s) = six_hundred_chains();
    let path = rd.shard_summary_path(s);
    let bytes = fs::read(&path).expect("read");
    assert_eq!(rd.shard_defect(s, None), None);
    for cut in [bytes.len() - 1, bytes.len() - 7, bytes.len() / 2, 10] {
        fs::write(&path, &bytes[..cut]).expect("truncate");
        assert!(
            rd.shard_defect(s, None)
                .is_some_and(|why| why.contains("Arrow IPC")),
            "cut at {cut}: {:?}",
            rd.shard_defect(s, None)
        );
    }
}

/// A summary file's buffers are compressed: responsibilities at R = 1 (every value 1, as VB
/// stores them) take a small part of their 8 bytes a value, and read back exactly.
#[test]
fn a_summary_files_values_are_compressed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rd = RunDir::create(dir.path()).expect("run dir");
    let t = 2000;
    let chains: Vec<(usize, String, ChainOutput)> = (0..10)
        .map(|i| {
            let mut out = output(i, 1);
            out.summary = vec![
                Matrix::scalar("log_marginal_likelihood", -(i as f64)),
                Matrix::new("r_marginals", t, 1, vec![1.0; t]),
                Matrix::new("r_map", t, 1, vec![0.0; t]),
            ];
            (i, format!("job{i}"), out)
        })
        .collect();
    rd.store_chains(10, chains).expect("store");
    let bytes = fs::metadata(rd.shard_summary_path(0))
        .expect("summary file")
        .len();
    let raw = (10 * 2 * t * 8) as u64;
    assert!(bytes < raw / 10, "{bytes} bytes for {raw} bytes of values");
    let read = rd.read_summary("job3").expect("read");
    assert_eq!(read[1].values, vec![1.0; t]);
    assert_eq!(read[2].values, vec![0.0; t]);
}
