//! The integration tests of `causeway-worker`, as one test binary (`autotests = false` in its
//! Cargo.toml): one binary links the dependencies once, instead of once per file.

mod auth;
mod fuzz;
