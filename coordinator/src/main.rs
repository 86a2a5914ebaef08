//! The `causeway` command. See `causeway --help` and the README.

fn main() -> std::process::ExitCode {
    causeway_coordinator::cli::main()
}
