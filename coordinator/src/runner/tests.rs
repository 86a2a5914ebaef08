//! Unit tests of the runner's manifest handling.

use super::*;

fn manifest(code_version: &str, code_versions: &[&str]) -> Manifest {
    Manifest {
        name: "m".into(),
        description: String::new(),
        profile: "quick".into(),
        code_version: code_version.into(),
        code_versions: code_versions.iter().map(|s| s.to_string()).collect(),
        base_seed: 1,
        chain_seed: None,
        defect: None,
        experiment_file: "e.yaml".into(),
        monitor: vec![],
        report: vec![],
        reported: serde_json::Value::Null,
        cells: Default::default(),
        jobs: Default::default(),
        until: None,
    }
}

#[test]
fn resumed_runs_keep_every_code_version() {
    // Same version: nothing added.
    assert_eq!(
        code_versions_after_resume(&manifest("a", &["a"]), "a"),
        ["a"]
    );
    // An upgrade between runs is recorded, oldest first.
    assert_eq!(
        code_versions_after_resume(&manifest("a", &["a"]), "b"),
        ["a", "b"]
    );
    // Back to an older version after an upgrade: listed again, in order.
    assert_eq!(
        code_versions_after_resume(&manifest("b", &["a", "b"]), "a"),
        ["a", "b", "a"]
    );
    // A manifest written before the list existed: its single version comes first.
    assert_eq!(
        code_versions_after_resume(&manifest("a", &[]), "b"),
        ["a", "b"]
    );
}

#[test]
fn manifests_without_the_list_still_load() {
    let mut v = serde_json::to_value(manifest("a", &["a"])).expect("serialize");
    v.as_object_mut().expect("object").remove("code_versions");
    let m: Manifest = serde_json::from_value(v).expect("old manifest loads");
    assert!(m.code_versions.is_empty());
}
