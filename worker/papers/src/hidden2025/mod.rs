//! # hidden2025 — HiDDeN: hierarchical Dirichlet priors for discrete Bayesian networks
//!
//! Paper `002_d97ecc788b964f97.txt` (main text, then supplement A–H). Each node j of a discrete
//! Bayesian network has conditional probabilities π_{j|Pa(j)}(· | x_Pa) ~ Dir(t_j) independently
//! over its parent configurations, with a shared hyperparameter t_j(x) ~ Gamma(ρ_j/k_j, b_j) per
//! category (eq. 5); t_j is sampled by MALA-within-Gibbs (Algorithm 1) and the structure (edges,
//! parent sets, DAGs) by Gibbs steps with t fixed (Algorithms 2–4).
//!
//! The paper's folder has the shape of every paper: `datasets.rs` (discrete data and its
//! contingency tables), `equations.rs`, `params.rs`, `samplers/`, `evaluation.rs`.

pub mod datasets;
pub mod equations;
pub mod evaluation;
pub mod params;
pub mod samplers;
