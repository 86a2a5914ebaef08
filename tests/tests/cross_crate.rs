//! The integration tests of `causeway-tests`, as one test binary (`autotests = false` in its
//! Cargo.toml): one binary links the dependencies once, instead of once per file.

// Tests may unwrap (clippy.toml allows it inside #[test] functions; this covers their helpers).
#![allow(clippy::unwrap_used)]

mod docs_paths;
mod e2e_determinism;
mod security;
