//! The integration tests of `causeway-coordinator`, as one test binary (`autotests = false` in its
//! Cargo.toml): one binary links the dependencies once, instead of once per file.

// Tests may unwrap (clippy.toml allows it inside #[test] functions; this covers their helpers).
#![allow(clippy::unwrap_used)]

mod check_cli;
mod checkpoint_fuzz;
mod cli;
mod cli_security;
mod durability;
mod fuzz_yaml;
mod integrity;
mod kill_nine;
mod sbc;
mod scale;
mod score_cli;
mod statistical_check;
mod until;
mod yaml_errors;
