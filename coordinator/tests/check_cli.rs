//! `causeway check` and `causeway report` as a user meets them: exit 0 passed, 1 a regression,
//! 2 the check could not run; a run with chains missing is marked in its report and fails
//! every check; flags the mode ignores are refused.

use std::path::Path;
use std::process::{Command, Output};

use crate::durability::{BIN, YAML, check, copy_dir, run_cmd, trace_files, write_yaml};

fn causeway(args: &[&str], paths: &[&Path]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args);
    for p in paths {
        c.arg(p);
    }
    c.output().expect("run causeway")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A complete run and a copy with one chain's files removed (a killed run), its tables rebuilt.
fn complete_and_partial(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let yaml = write_yaml(dir, YAML);
    let full = dir.join("full");
    let out = run_cmd(&yaml, &full, &["--local-workers", "2"])
        .output()
        .expect("run");
    check(&out, "run");
    let partial = dir.join("partial");
    copy_dir(&full, &partial);
    std::fs::remove_file(&trace_files(&partial)[0]).expect("remove a chain");
    let rep = causeway(&["report"], &[&partial]);
    assert!(rep.status.success(), "{}", text(&rep));
    (full, partial)
}

/// A run with a chain missing: `report.md` says so first, the convergence table marks the
/// cell `⚠ 11 of 12 chains`, and `check` against the complete run (exactly, statistically) or
/// against the papers fails with exit 1 and names the missing chains. The complete run against
/// itself passes, with a warning that it compared the run with itself.
#[test]
fn a_partial_run_is_marked_in_its_report_and_fails_every_check() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (full, partial) = complete_and_partial(tmp.path());
    let report = std::fs::read_to_string(partial.join("tables/report.md")).expect("report.md");
    assert!(
        report.contains("**Incomplete run: 1 planned chains are not stored; 1 cells have fewer chains than planned: cell ")
            && report.contains("(11 of 12)"),
        "{report}"
    );
    let conv = std::fs::read_to_string(partial.join("tables/convergence.csv")).expect("csv");
    assert!(conv.contains("⚠ 11 of 12 chains"), "{conv}");
    let full_report = std::fs::read_to_string(full.join("tables/report.md")).expect("report.md");
    assert!(!full_report.contains("Incomplete"), "{full_report}");

    for extra in [&[][..], &["--statistical"][..]] {
        let mut args = vec!["check"];
        args.extend(extra);
        let o = causeway(&args, &[&partial, Path::new("--baseline"), &full]);
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", text(&o));
        assert!(text(&o).contains("Incomplete runs"), "{}", text(&o));
        // The baseline's side counts too.
        let o = causeway(&args, &[&full, Path::new("--baseline"), &partial]);
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", text(&o));
    }
    let o = causeway(&["check"], &[&full, Path::new("--baseline"), &full]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("is the run itself"), "{}", text(&o));
}

/// Exit 2 when the check cannot run (a missing directory, an unwritable `--junit` path, a flag
/// the mode ignores), 1 on a regression; `--against-paper --junit FILE` writes its file.
#[test]
fn check_tells_a_failure_to_run_from_a_regression() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = tmp.path().join("run");
    std::fs::create_dir_all(run.join("tables")).expect("mkdir");
    std::fs::write(
        run.join("tables/t.csv"),
        "x,mean,paper_mean,z_paper\na,1,1.1,-0.5\nb,3,1,4.2\n",
    )
    .expect("write");
    let base = tmp.path().join("base");
    std::fs::create_dir_all(base.join("tables")).expect("mkdir");
    std::fs::write(
        base.join("tables/t.csv"),
        "x,mean,paper_mean,z_paper\na,1,1.1,-0.5\nb,3.5,1,4.2\n",
    )
    .expect("write");
    let missing = tmp.path().join("nowhere");
    let o = causeway(&["check"], &[&missing, Path::new("--baseline"), &base]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = causeway(&["check"], &[&run, Path::new("--baseline"), &base]);
    assert_eq!(o.status.code(), Some(1), "a real regression: {}", text(&o));
    let bad_junit = tmp.path().join("no/such/dir/j.xml");
    let o = causeway(
        &["check"],
        &[
            &run,
            Path::new("--baseline"),
            &run,
            Path::new("--junit"),
            &bad_junit,
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--junit"), "{}", text(&o));

    let junit = tmp.path().join("paper.xml");
    let o = causeway(
        &["check"],
        &[
            &run,
            Path::new("--against-paper"),
            Path::new("--junit"),
            &junit,
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let xml = std::fs::read_to_string(&junit).expect("the --junit file is written");
    assert!(
        xml.contains("failures=\"1\"") && xml.contains("z 4.20"),
        "{xml}"
    );
    let o = causeway(
        &["check"],
        &[
            &run,
            Path::new("--against-paper"),
            Path::new("--junit"),
            &bad_junit,
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    for flag in [
        &["--rtol", "0.1"][..],
        &["--strict"][..],
        &["--alpha", "0.05"][..],
    ] {
        let mut args = vec!["check"];
        args.extend(flag);
        let o = causeway(&args, &[&run, Path::new("--against-paper")]);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{flag:?} is ignored: {}",
            text(&o)
        );
    }
}
