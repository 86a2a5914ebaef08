//! # causeway (coordinator)
//!
//! Reads a YAML experiment grid ([`experiment`]), expands it into seeded chains, sends them to
//! gRPC workers ([`dispatch`]), stores what comes back and builds the papers' tables
//! ([`runner`]). The `causeway` binary ([`cli`]) is a thin layer over these.

pub mod check_cmd;
pub mod cli;
pub mod dispatch;
pub mod experiment;
pub mod runner;
pub mod security_args;
