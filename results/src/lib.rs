//! # causeway-results
//!
//! Everything after the chains have run: the run directory and its store ([`rundir`]),
//! convergence diagnostics that agree with ArviZ 0.23.4 ([`diagnostics`]), and the polars tables and figures of each paper ([`report`]).

pub mod check;
pub mod check_stats;
pub mod diagnostics;
pub mod export;
pub mod report;
pub mod rundir;
pub mod site;
