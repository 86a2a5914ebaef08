//! `causeway score` end to end (paper 002, HiDDeN): LUCAS with its
//! true DAG under every score type, and exit code 2 with a message naming the problem for each
//! bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_causeway");

fn lucas() -> (PathBuf, PathBuf) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/lucas");
    (dir.join("lucas0_train.csv"), dir.join("lucas0_edges.csv"))
}

fn score(data: &Path, dag: &Path, extra: &[&str]) -> Output {
    Command::new(BIN)
        .arg("score")
        .arg(data)
        .arg("--dag")
        .arg(dag)
        .args(extra)
        .output()
        .expect("run causeway")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// The total and Σ_j (r_j − 1) q_j = Σ_j 2^{|Pa(j)|} (LUCAS is binary) of a JSON report, after
/// checking that every node is scored, finitely, and that the total is the sum of the nodes.
fn total_and_parameters(v: &serde_json::Value) -> (f64, f64) {
    let nodes = v["nodes"].as_object().expect("nodes");
    assert_eq!(nodes.len(), 12, "{v}");
    let mut sum = 0.0;
    let mut params = 0.0;
    for (name, node) in nodes {
        let s = node["score"].as_f64().expect("score");
        assert!(s.is_finite() && s < 0.0, "{name}: {s}");
        sum += s;
        params += 2f64.powi(node["parents"].as_array().expect("parents").len() as i32);
    }
    let total = v["total"].as_f64().expect("total");
    assert!(
        (total - sum).abs() <= 1e-12 * total.abs(),
        "{total} vs {sum}"
    );
    (total, params)
}

#[test]
fn hidden2025_score_lucas_true_dag() {
    let (data, dag) = lucas();
    let run = |args: &[&str]| {
        let mut a = vec!["--format", "json"];
        a.extend_from_slice(args);
        json(&score(&data, &dag, &a))
    };
    let ll = run(&["--type", "loglik"]);
    assert_eq!(ll["type"], "loglik");
    assert_eq!(ll["n"], 2000);
    // Node order is the file's (in the text: serde_json's map sorts keys); parents in column
    // order.
    let text = String::from_utf8_lossy(
        &score(&data, &dag, &["--format", "json", "--type", "loglik"]).stdout,
    )
    .into_owned();
    let at = |name: &str| text.find(&format!("\"{name}\":{{")).expect("node in JSON");
    assert!(at("Smoking") < at("Yellow_Fingers") && at("Coughing") < at("Lung_Cancer"));
    assert_eq!(
        ll["nodes"]["Smoking"]["parents"],
        serde_json::json!(["Anxiety", "Peer_Pressure"])
    );
    assert_eq!(
        ll["nodes"]["Born_An_Even_Day"]["parents"],
        serde_json::json!([])
    );
    let (loglik, params) = total_and_parameters(&ll);
    // 12 binary nodes: 5 roots, 2 with one parent, 5 with two (lucas0_edges.csv).
    assert_eq!(params, 5.0 + 2.0 * 2.0 + 5.0 * 4.0);
    let (bic, _) = total_and_parameters(&run(&["--type", "bic"]));
    let (aic, _) = total_and_parameters(&run(&["--type", "aic"]));
    assert!((aic - (loglik - params)).abs() < 1e-9 * loglik.abs());
    assert!((bic - (loglik - 0.5 * 2000f64.ln() * params)).abs() < 1e-9 * loglik.abs());
    let bde = run(&["--type", "bde"]);
    assert_eq!(bde["iss"], 1.0);
    let (bde1, _) = total_and_parameters(&bde);
    let (bde10, _) = total_and_parameters(&run(&["--type", "bde", "--iss", "10"]));
    let (k2, _) = total_and_parameters(&run(&["--type", "bd", "--alpha", "1"]));
    let (k2_cat, _) = total_and_parameters(&run(&["--type", "bd", "--alpha", "1,1"]));
    let (bd_cat, _) = total_and_parameters(&run(&["--type", "bd", "--alpha", "0.5,2"]));
    assert_eq!(k2, k2_cat);
    for s in [bde1, bde10, k2, bd_cat] {
        assert!(
            s < loglik,
            "a marginal likelihood is below the maximised likelihood"
        );
    }
    assert!(bde1 != bde10 && k2 != bd_cat);

    // The default format is a Markdown table with the same numbers.
    let out = score(&data, &dag, &["--type", "bic"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("| node | parents | score |"), "{text}");
    assert!(
        text.contains("| Smoking | Anxiety;Peer_Pressure |"),
        "{text}"
    );
    assert!(text.contains(&format!("| **total** | | {bic} |")), "{text}");
}

#[test]
fn hidden2025_score_refuses_bad_input_with_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p
    };
    let data = write("d.csv", "A,B,C\n0,x,1\n1,y,0\n0,z,0\n1,x,1\n");
    let ok_dag = write("ok.csv", "parent,child\nA,C\n");
    let cases: [(&str, &str, &str, &[&str], &str); 9] = [
        (
            "unknown.csv",
            "parent,child\nA,C\nA,Lung\n",
            "d.csv",
            &[],
            "unknown.csv:3; the variables are A, B, C",
        ),
        (
            "selfloop.csv",
            "parent,child\nB,B\n",
            "d.csv",
            &[],
            "selfloop.csv:2)",
        ),
        (
            "repeated.csv",
            "parent,child\nA,C\nA,C\n",
            "d.csv",
            &[],
            "repeated.csv:3)",
        ),
        (
            "cycle.csv",
            "parent,child\nA,B\nB,C\nC,A\n",
            "d.csv",
            &[],
            "cycle.csv: directed cycle A -> B -> C -> A",
        ),
        (
            "ok.csv",
            "",
            "cell.csv",
            &[],
            "cell.csv, line 3: column \"A\": \"0.5\" looks continuous",
        ),
        (
            "ok.csv",
            "",
            "ragged.csv",
            &[],
            "ragged.csv, line 3: ragged row",
        ),
        (
            "ok.csv",
            "",
            "d.csv",
            &["--type", "bd", "--alpha", "1,2"],
            "node B has 3 categories (x, y, z), but 2 Dirichlet parameters were given",
        ),
        (
            "ok.csv",
            "",
            "d.csv",
            &["--type", "bd"],
            "--type bd needs --alpha",
        ),
        (
            "ok.csv",
            "",
            "d.csv",
            &["--type", "bde", "--iss", "-1"],
            "--iss -1: the imaginary sample size must be > 0",
        ),
    ];
    write("cell.csv", "A,B,C\n0,x,1\n0.5,y,0\n");
    write("ragged.csv", "A,B,C\n0,x,1\n1,y\n");
    for (dag_name, dag_text, data_name, extra, want) in cases {
        let dag = if dag_text.is_empty() {
            ok_dag.clone()
        } else {
            write(dag_name, dag_text)
        };
        let mut args = extra.to_vec();
        if !args.contains(&"--type") {
            args.extend(["--type", "bic"]);
        }
        let out = score(&dir.path().join(data_name), &dag, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{dag_name} {data_name}: {err}");
        assert!(err.contains(want), "want {want:?}, got: {err}");
        // The DAG errors name the problem before the file.
        let named = match dag_name {
            "unknown.csv" => err.contains("unknown node Lung ("),
            "selfloop.csv" => err.contains("self-loop on node B ("),
            "repeated.csv" => err.contains("repeated arc A -> C ("),
            _ => true,
        };
        assert!(named, "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(out.stdout.is_empty());
    }
    // The valid case scores.
    let v = json(&score(
        &data,
        &ok_dag,
        &["--type", "bic", "--format", "json"],
    ));
    assert_eq!(v["nodes"]["C"]["parents"], serde_json::json!(["A"]));
}
