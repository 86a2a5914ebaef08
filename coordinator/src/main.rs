//! The `causeway` command. See `causeway --help` and the README.

/// mimalloc, not glibc's malloc: the coordinator's threads (gRPC runtime, job-table writer,
/// shard sealer, in-process workers) each got a glibc arena that kept what they freed, so a run
/// of 2 × 10⁵ near-empty chains peaked at 2–4 times its live heap (`docs/benchmarks.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    causeway_coordinator::cli::main()
}
