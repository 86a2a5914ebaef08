//! The integration tests of `causeway-papers`, one binary with one module per paper, so that
//! every test path starts with its model name (`wood2006::geweke::...`,
//! `kurutmaz2019::smc::...`) and `cargo test --workspace <model>` runs exactly that paper's tests.
//!
//! A new paper adds `mod <model>;` here and a folder `tests/<model>/` with a `mod.rs` listing its
//! test modules; the paper-independent statistics (exact-enumeration goodness of fit, Geweke
//! tests) live in `causeway_papers::testing` (the `testing` feature, switched on by the crate's
//! dev-dependency on itself).

// Tests may unwrap (clippy.toml allows it inside #[test] functions; this covers their helpers).
#![allow(clippy::unwrap_used)]

mod dallaire2014;
mod hidden2025;
mod kurutmaz2019;
mod wood2006;
