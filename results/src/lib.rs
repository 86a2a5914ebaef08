//! results
//!
//! `diagnostics`: ArviZ-compatible MCMC convergence diagnostics (R-hat, ESS, MCSE) and the
//! `causeway diagnose FILE` reader.

pub mod diagnostics;
