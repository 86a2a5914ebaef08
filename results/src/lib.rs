//! # causeway-results
//!
//! Everything after the chains have run: the run directory and its store ([`rundir`]),
//! convergence diagnostics that agree with ArviZ ([`diagnostics`]), the papers' metrics
//! ([`metrics`]), and the polars tables and figures of each paper ([`report`]).

pub mod rundir;
pub mod diagnostics;
pub mod metrics;
pub mod report;
