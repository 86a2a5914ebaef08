//! The samplers of paper `004_74db43a26dbf0fa1.txt`.
//!
//! - [`NetworkSampler`] (`method: mcmc`): the MCMC of §4 for the CIBP (`prior: cibp`) and the
//!   eCIBP (`prior: ecibp`).
//! - [`ForwardSampler`] (`method: forward`): independent draws of the structure from the
//!   generative process of §3, the reference of the prior check.
//! - `kde`, `dpmog`: the baselines of Table 1.
//!
//! The building blocks: [`network`] (the state), [`forward`] (the generative process),
//! [`observed`] (the observed-layer map), [`mtm`] (eq 10), [`phase1`] (eqs 11–14),
//! [`birth_death`] (eqs 15–16), [`conjugate`] (W, γ, ν).

pub mod dpmog;
pub mod kde;

pub mod birth_death;
pub mod conjugate;
pub mod forward;
pub mod mtm;
pub mod network;
pub mod observed;
pub mod phase1;
mod sampler;

pub use self::network::Network;
pub use self::sampler::{ForwardSampler, NetworkSampler, SweepStats, parameter_means};

use self::birth_death::Phase2Options;
use self::forward::Priors;
use crate::chain::SamplerError;
use crate::dallaire2014::params::Params;
use crate::seed::ChainRng;

/// The deliberately broken kernels of this paper, the network's and the DP mixture's (negative
/// controls; switched
/// on only through `with_defect`, which exists only with the `testing` feature). The printed
/// forms of eq 12 and eqs 15–16 are not here: they are `params` (`jump_prior: paper`,
/// `birth_death: paper`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Defect {
    /// The eCIBP birth/death acceptance without the J terms (J_old(S′)/J(S) taken as 1).
    BirthWithoutJumpTerms,
    /// The MTM of eq 10 without the current value in the denominator.
    MtmWithoutCurrent,
    /// DP mixture: the predictive scale Ψ_n/v instead of Ψ_n (κ_n + 1)/(κ_n v), the uncertainty
    /// of the cluster mean forgotten. Caught by the exact-enumeration test.
    PredictiveWithoutParameterUncertainty,
    /// DP mixture: the Escobar–West mixture odds (a + K)/(N(b − ln η)) instead of
    /// (a + K − 1)/(N(b − ln η)). Caught by the concentration test.
    ConcentrationOddsOffByOne,
}

/// One MCMC iteration of §4 on a network, in this order: (1) the activations of
/// every hidden unit and datum by MTM (eq 10); (2) Phase 1 edges (eqs 11–14); (3) Phase 2
/// birth/death, once for every unit as the child (eqs 15–16); (4) the conjugate W, γ, ν (if
/// `update_parameters`). The caches are recomputed from scratch at the start of each iteration.
///
/// Serialized (a chain checkpoint) as its parameters and defect alone: the priors are
/// rebuilt from the parameters, and the MTM scratch buffer holds nothing between calls.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(into = "KernelState", try_from = "KernelState")]
pub struct Kernel {
    params: Params,
    priors: Priors,
    defect: Option<Defect>,
    scratch: Vec<f64>,
}

/// What a [`Kernel`] is made from: its serialized form.
#[derive(serde::Serialize, serde::Deserialize)]
struct KernelState {
    params: Params,
    defect: Option<Defect>,
}

impl From<Kernel> for KernelState {
    fn from(k: Kernel) -> Self {
        KernelState {
            params: k.params,
            defect: k.defect,
        }
    }
}

impl TryFrom<KernelState> for Kernel {
    type Error = SamplerError;
    fn try_from(s: KernelState) -> Result<Self, SamplerError> {
        let mut k = Kernel::new(&s.params)?;
        k.defect = s.defect;
        Ok(k)
    }
}

impl Kernel {
    /// Errors: invalid priors ([`SamplerError::Input`]).
    pub fn new(params: &Params) -> Result<Self, SamplerError> {
        Ok(Kernel {
            params: params.clone(),
            priors: Priors::new(params)?,
            defect: None,
            scratch: Vec::new(),
        })
    }

    /// The parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Switch on a broken kernel (tests only).
    #[cfg(feature = "testing")]
    pub fn set_defect(&mut self, defect: Option<Defect>) {
        self.defect = defect;
    }

    /// One iteration on `net` (see the type's doc).
    ///
    /// Errors: a non-finite state, or more than `max_units` units ([`SamplerError::Numerical`]).
    pub fn sweep(
        &mut self,
        net: &mut Network,
        rng: &mut ChainRng,
    ) -> Result<SweepStats, SamplerError> {
        let p = &self.params;
        net.refresh()?;
        let mut st = SweepStats::default();
        let omit = self.defect == Some(Defect::MtmWithoutCurrent);
        for m in 1..net.depth() {
            for k in net.layer(m).to_vec() {
                st.mtm_accepted += mtm::mtm_unit(net, k, p.mtm_tries, omit, &mut self.scratch, rng);
                st.mtm_tried += net.n();
            }
        }
        st.phase1 = phase1::phase1(net, p, rng);
        let opt = Phase2Options {
            without_jump_terms: self.defect == Some(Defect::BirthWithoutJumpTerms),
        };
        st.phase2 = birth_death::phase2(net, p, &self.priors, opt, rng)?;
        if p.update_parameters {
            conjugate::update_parameters(net, p, rng)?;
        }
        for i in net.ordered_ids() {
            let u = net.unit(i);
            if !(u.gamma.is_finite() && u.nu.is_finite() && u.nu > 0.0) {
                return Err(SamplerError::Numerical(format!(
                    "unit in slot {i} (layer {}) has γ = {}, ν = {}",
                    u.layer, u.gamma, u.nu
                )));
            }
        }
        if net.n_units() > p.max_units {
            return Err(SamplerError::Numerical(format!(
                "the network has {} units, more than max_units = {}",
                net.n_units(),
                p.max_units
            )));
        }
        Ok(st)
    }
}
