// Compile proto/causeway/v1/*.proto with protox (pure Rust): the machines have no protoc.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["causeway/v1/worker.proto"];
    for f in files {
        println!("cargo:rerun-if-changed={f}");
    }
    let fds = protox::compile(files, ["."])?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(fds)?;
    Ok(())
}
