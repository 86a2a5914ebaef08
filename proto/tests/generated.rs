//! The Rust code under `proto/src/v1/` is generated from `proto/causeway/v1/worker.proto` by protox
//! and tonic-prost-build (pure Rust, no system `protoc`) and committed, so that a build of the
//! binary compiles neither code generator. This test generates it again and fails when the
//! committed files differ; `CAUSEWAY_BLESS=1 cargo test --workspace generated_code` rewrites them.

use std::path::Path;

/// One generated file, split at its top-level modules into files the size of a page: the
/// messages, then one file per generated client and server module.
fn split(generated: &str) -> Vec<(String, String)> {
    let mut parts: Vec<(String, String)> = vec![("messages".into(), String::new())];
    let mut lines = generated.lines().peekable();
    while let Some(line) = lines.next() {
        let starts_service = line.starts_with("/// Generated ")
            && lines
                .peek()
                .is_some_and(|next| next.starts_with("pub mod "));
        if starts_service {
            let name = lines.peek().map_or("", |next| {
                next.trim_start_matches("pub mod ").trim_end_matches(" {")
            });
            parts.push((name.to_string(), String::new()));
        }
        let text = &mut parts.last_mut().expect("one part at least").1;
        text.push_str(line);
        text.push('\n');
    }
    parts
}

#[test]
fn generated_code_matches_the_proto_file() {
    let out = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fds = protox::compile(["causeway/v1/worker.proto"], [root]).expect("protox");
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .codec_path("crate::codec::SliceCodec")
        // Written by hand for its packed values (src/matrix.rs).
        .extern_path(".causeway.v1.Matrix", "crate::matrix::Matrix")
        .out_dir(out.path())
        .compile_fds(fds)
        .expect("tonic-prost-build");
    let generated = std::fs::read_to_string(out.path().join("causeway.v1.rs")).expect("read");
    let parts = split(&generated);
    assert_eq!(parts.len(), 5, "messages and 4 service modules expected");
    let bless = std::env::var_os("CAUSEWAY_BLESS").is_some();
    let mut stale = Vec::new();
    for (name, text) in &parts {
        let path = root.join("src/v1").join(format!("{name}.rs"));
        if bless {
            std::fs::write(&path, text).expect("write");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "generated code differs from {stale:?}: rerun with CAUSEWAY_BLESS=1"
    );
}
