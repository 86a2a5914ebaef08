//! Tests of paper 002 (HiDDeN), model `hidden2025`: `cargo test --workspace hidden2025`.

mod datasets;
mod evaluation;
mod mmle;
mod samplers;
mod structures;
