//! The algorithms of ch. 4, one file each, and [`build_sampler`], which picks one for a cell:
//! exact enumeration ([`exact`], eq. 5.1), SIS-CN ([`smc`], Fig. 4.1), PG-CN ([`pg`], Fig. 4.4),
//! VB-CN ([`vb`], Fig. 4.5) and DEM-CN ([`dem`], Fig. 4.6). They share the oriented pair
//! ([`problem`]) and the particle store ([`particles`]).
//!
//! Source: `003_bf1ce321478f8175.txt`, ch. 4.

/// `defect()` and `with_defect()` for a configuration with a field `defect: Option<Defect>`
/// (present only with the `testing` feature: the convention of `crate::testing`).
macro_rules! defect_switch {
    () => {
        /// The deliberately broken kernel switched on, if any: always `None` without the
        /// `testing` feature.
        #[inline]
        pub(crate) fn defect(&self) -> Option<Defect> {
            #[cfg(feature = "testing")]
            {
                self.defect
            }
            #[cfg(not(feature = "testing"))]
            {
                None
            }
        }

        /// Switch on a deliberately broken kernel (negative-control tests only; `None` switches
        /// it off). Exists only with the `testing` feature.
        #[cfg(feature = "testing")]
        pub fn with_defect(mut self, defect: impl Into<Option<Defect>>) -> Self {
            self.defect = defect.into();
            self
        }
    };
}
use defect_switch;

pub mod dem;
pub mod exact;
mod kernels;
mod particles;
pub mod pg;
pub mod problem;
pub mod smc;
pub mod vb;

pub use dem::{DemInit, DemSampler};
pub use exact::ExactSampler;
pub use pg::PgSampler;
pub use problem::Problem;
pub use smc::{Defect, Resampling, RunStats, SmcConfig, SmcSampler};
pub use vb::{VbConfig, VbResult, VbSampler};

use crate::chain::{Sampler, SamplerError};
use crate::data::Dataset;
use crate::kurutmaz2019::params::{Method, Resolved};
use crate::seed::ChainRng;

/// Build the sampler of `r.params.method` for the observed 2 × T matrix `x` (row-major), with
/// `defect` switched on in its SMC or VB configuration (always `None` without the `testing`
/// feature; `exact` runs unchanged).
///
/// Errors: [`SamplerError::Input`] if `x` is missing, not 2 × T, non-finite, or (exact) R^T is
/// too large; [`SamplerError::InvalidState`] from the samplers' constructors.
pub fn build_sampler(
    r: &Resolved,
    data: &Dataset,
    rng: &mut ChainRng,
    defect: Option<Defect>,
) -> Result<Box<dyn Sampler>, SamplerError> {
    use crate::model::with_defect;
    let x = data
        .observed("x")
        .ok_or_else(|| SamplerError::Input("dataset has no observed matrix x".into()))?;
    x.check().map_err(SamplerError::Input)?;
    if x.rows != 2 || x.cols == 0 {
        return Err(SamplerError::Input(format!(
            "x must be 2 × T with T ≥ 1, got {} × {}",
            x.rows, x.cols
        )));
    }
    let (a, b) = x.values.split_at(x.cols);
    let p = &r.params;
    let problem = Problem::new(a, b, p.hypothesis, p.n_latent, r.hyper)?;
    Ok(match p.method {
        Method::Exact => Box::new(ExactSampler::new(problem, p.max_enumeration)?),
        Method::Smc => Box::new(SmcSampler::new(
            &problem,
            with_defect!(r.smc_config(), defect),
            p.shuffle,
        )?),
        Method::Pg => Box::new(PgSampler::new(
            problem,
            with_defect!(r.smc_config(), defect),
            p.shuffle,
            rng,
        )?),
        Method::Vb => Box::new(VbSampler::new(problem, with_defect!(r.vb_config(), defect))),
        Method::Dem => Box::new(DemSampler::new(
            problem,
            p.init,
            with_defect!(r.smc_config(), defect),
        )),
    })
}
