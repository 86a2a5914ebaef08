//! Paper-independent test harness (only with the `testing` feature): exact-enumeration
//! goodness-of-fit checks ([`enumeration`]), Geweke (2004) "getting it right" joint-distribution
//! tests ([`geweke`]) and in-process simulation-based calibration of a cell ([`sbc_harness`]). The
//! paper-specific parts (exact posteriors of tiny problems, prior simulators, statistics) live in
//! each paper's integration-test module (`tests/<model>/`).
//!
//! The crate's own tests and benches get this module through the dev-dependency
//! `causeway-papers = { path = ".", features = ["testing"] }`. The shipped binary never compiles
//! it: `make build` builds the `causeway` binary alone (`cargo build --release -p
//! causeway-coordinator --bin causeway`), which resolves no dev-dependency, and `make lint` checks
//! that its feature set has no `testing`. A build with dev-dependencies (`cargo test`,
//! `--all-targets`) compiles it into the binary too, because cargo unifies the features; `make
//! power` builds such a binary on purpose, in its own target directory (`target/testing/`).
//!
//! # Deliberate-bug switches (the `Defect` convention)
//!
//! Negative-control tests need kernels that are *known* to be wrong, to show that a statistical
//! test has the power to catch the bug. Every paper follows one convention:
//!
//! - its samplers module exposes one `pub enum Defect` listing the broken kernels of that paper
//!   (`wood2006::samplers::Defect`, `kurutmaz2019::samplers::Defect`, and so on for each new
//!   paper); the enum carries no "no defect" variant: the absence of a defect is `None`;
//! - the sampler (or its configuration) holds an `Option<Defect>` that is `None` unless a test
//!   switches a defect on;
//! - the only way to switch one on is a `with_defect(impl Into<Option<Defect>>)` builder
//!   (`wood2006::HiddenCauseSampler::with_defect`, `kurutmaz2019::SmcConfig::with_defect`, which
//!   SIS-CN, PG-CN and DEM-CN read, `kurutmaz2019::VbConfig::with_defect` for VB-CN), and every
//!   such switch (builder or public field) is compiled
//!   only with `#[cfg(feature = "testing")]`: a build without the feature cannot run a broken
//!   kernel, and `params` never reaches a defect;
//! - whole experiments reach one only in a `testing` build, through the environment variable of
//!   [`defect`] (the power table of `causeway check --statistical`); the run says so
//!   on stderr and records it in its manifest and report.

pub mod checkpoint;
pub mod defect;
pub mod enumeration;
pub mod geweke;
pub mod sbc_harness;

pub use checkpoint::assert_resumes_identically;
pub use enumeration::{Exact, Gof, final_state_counts, gof, tv_distance};
pub use geweke::{GewekeModel, GewekeReport, GewekeStat, geweke_test};
pub use sbc_harness::{SbcCheck, SbcPValues, sbc_p_values, worst_p_value};
