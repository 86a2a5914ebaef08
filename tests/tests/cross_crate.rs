//! The integration tests of `causeway-tests`, as one test binary (`autotests = false` in its
//! Cargo.toml): one binary links the dependencies once, instead of once per file.

mod e2e_determinism;
mod security;
