//! # dallaire2014 — deep belief-network structure with the CIBP and the extended cascading IBP
//!
//! Paper `004_74db43a26dbf0fa1.txt` (Dallaire, Giguère & Chaib-draa, AAAI 2014; the extracted
//! text carries no year). A network of continuous nonlinear units: layer 0 holds the D observed
//! units, hidden units sit in layers m ≥ 1, and each unit computes a_i = γ_i + Σ_k Z_ik W_ik u_k + ε
//! with ε ~ N(0, 1/ν_i) and u_i = σ(a_i) (eqs 1–2). The structure has the cascading IBP prior
//! (eqs 3–7) or its extension with jump connections (eCIBP, eqs 8–9); the MCMC of §4 samples it.
//!
//! The paper's folder has the shape of every paper: `params.rs`, `equations.rs` (every equation
//! under its number), `datasets.rs`, `samplers/`, and a polars-free `evaluation.rs` (the KL
//! estimator of Table 1).

pub mod datasets;
pub mod equations;
pub mod evaluation;
pub mod params;
pub mod samplers;
