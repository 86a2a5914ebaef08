//! The integration tests of `causeway-results`, as one test binary (`autotests = false` in its
//! Cargo.toml): one binary links the dependencies once, instead of once per file.

// Tests may unwrap (clippy.toml allows it inside #[test] functions; this covers their helpers).
#![allow(clippy::unwrap_used)]

mod burn_in;
mod diagnostics_arviz;
mod diagnostics_edge;
mod diagnostics_io;
mod kurutmaz2019_cv;
