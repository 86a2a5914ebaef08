//! The `causeway` command. See `causeway --help` and the README.

/// jemalloc: the coordinator allocates every chain's result on one thread and frees it on
/// another, and glibc malloc's free-list work was a fifth of its CPU on near-empty chains under
/// the cluster bench (`docs/benchmarks.md`).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    causeway_coordinator::cli::main()
}
