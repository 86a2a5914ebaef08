//! Tests of paper 004 (CIBP / eCIBP), model `dallaire2014`: `cargo test --workspace dallaire2014`.

mod checkpoint;
mod datasets;
mod determinism;
mod edge_prior;
mod evaluation;
mod geweke;
mod mtm;
mod prior_moments;
mod sbc;
mod summary_network;
mod truth_start;
