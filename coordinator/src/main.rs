//! The `causeway` command. See `causeway --help` and the README.

fn main() -> std::process::ExitCode {
    causeway::cli::main()
}
