//! # causeway-papers
//!
//! The samplers behind causeway, as a plain library: no gRPC, no tokio, no polars. The worker's
//! gRPC server (`worker/server`) and the tests drive it through one trait, [`Sampler`], and one
//! registry of models, [`registry`].
//!
//! One module per paper, each holding every equation of that paper in its `equations` module:
//! - [`wood2006`]: `000_64a353240e4f1919.txt`, Wood, Griffiths & Ghahramani (2006), hidden causes
//!   with the Indian buffet process and noisy-OR.
//! - [`kurutmaz2019`]: `003_bf1ce321478f8175.txt`, Kurutmaz (2019), SMC model selection for
//!   latent-variable causal networks.
//! - [`hidden2025`]: `002_d97ecc788b964f97.txt`, HiDDeN, hierarchical Dirichlet priors for discrete
//!   Bayesian networks.
//! - [`dallaire2014`]: `004_74db43a26dbf0fa1.txt`, Dallaire, Giguère & Chaib-draa (AAAI 2014), deep
//!   belief-network structure with the cascading IBP and its extension (eCIBP).
//!
//! Shared pieces: [`seed`] (the one seeding function), [`chain`] (the sampler trait and the chain
//! driver), [`sbc`] (simulation-based calibration: ranks and their uniformity tests), [`data`] (datasets as shipped to workers), [`params`] (parameter parsing with
//! field paths, so the coordinator can point at the YAML line), [`math`] (log-space helpers, a vectorizable exp), [`ziggurat`] (normal draws from 32-bit words).

pub mod chain;
pub mod dallaire2014;
pub mod data;
pub mod hidden2025;
pub mod kurutmaz2019;
pub mod math;
pub mod metrics;
pub mod model;
pub mod params;
pub mod registry;
pub mod sbc;
pub mod seed;
#[cfg(feature = "testing")]
pub mod testing;
pub mod wood2006;
pub mod ziggurat;

pub use chain::{
    ChainControl, ChainOutput, Checkpoint, CheckpointEvery, Resume, RunSpec, Sampler, SamplerError,
    drive_chain, run_chain, run_chain_cancellable,
};
pub use data::{DataContext, Dataset, Matrix};
pub use model::Model;
pub use params::ParamError;
pub use registry::model;
pub use seed::{
    ChainRng, STABLE_HASH_START, chain_rng, dataset_rng, evaluation_rng, stable_hash,
    stable_hash_extend,
};
