//! The [`Sampler`] implementations of the CIBP / eCIBP: [`NetworkSampler`] (`method: mcmc`) and
//! [`ForwardSampler`] (`method: forward`).

#[cfg(feature = "testing")]
use super::Defect;
use super::Kernel;
use super::birth_death::Phase2Stats;
use super::forward::{Priors, sample_network, sample_observed_outputs};
use super::network::Network;
use super::observed::ObservedMap;
use super::phase1::Phase1Stats;
use crate::chain::{RunSpec, Sampler, SamplerError};
use crate::dallaire2014::evaluation::alignment::EdgeFrequencies;
use crate::dallaire2014::evaluation::{FantasyKl, Standardizer};
use crate::dallaire2014::params::Params;
use crate::data::Matrix;
use crate::seed::{ChainRng, evaluation_rng};

/// What one iteration did (the sampler statistics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SweepStats {
    /// MTM moves accepted (eq 10).
    pub mtm_accepted: usize,
    /// MTM moves tried (hidden units × N).
    pub mtm_tried: usize,
    /// Phase 1 counts.
    pub phase1: Phase1Stats,
    /// Phase 2 counts.
    pub phase2: Phase2Stats,
}

fn rate(a: usize, n: usize) -> f64 {
    if n == 0 {
        f64::NAN
    } else {
        a as f64 / n as f64
    }
}

/// The trace names shared by both samplers: the structure counts, the log joint, and the
/// parameter means of [`parameter_means`].
const STRUCTURE: [&str; 8] = [
    "n_units",
    "n_edges",
    "n_jump_edges",
    "depth",
    "log_joint",
    "mean_w",
    "mean_gamma",
    "mean_ln_nu",
];

/// `[mean_w, mean_gamma, mean_ln_nu]` of a network: the mean weight W over its edges (adjacent
/// and jump; 0 with no edge), and the mean bias γ and log precision ln ν over its units
/// (observed included). Functions of the parameters of §3.4 that exist whatever the structure,
/// so that SBC ([`crate::dallaire2014::prior`]) can rank them.
pub fn parameter_means(net: &Network) -> [f64; 3] {
    let (mut sw, mut nw, mut sg, mut sl) = (0.0, 0usize, 0.0, 0.0);
    let ids = net.ordered_ids();
    for &i in &ids {
        let u = net.unit(i);
        sg += u.gamma;
        sl += u.nu.ln();
        for e in &u.parents {
            sw += e.weight;
            nw += 1;
        }
    }
    let nu = ids.len().max(1) as f64;
    let mean_w = if nw == 0 { 0.0 } else { sw / nw as f64 };
    [mean_w, sg / nu, sl / nu]
}

fn record_structure(net: &Network, p: &Params, row: &mut Vec<f64>) {
    row.extend([
        net.n_units() as f64,
        net.n_edges() as f64,
        net.n_jump_edges() as f64,
        net.depth() as f64,
        net.log_joint(p),
    ]);
    row.extend(parameter_means(net));
}

fn summary_of(net: &Network) -> Vec<Matrix> {
    let (units, edges) = net.summary_rows();
    let mut u = Matrix::new("units", units.len() / 3, 3, units);
    u.col_names = ["layer", "gamma", "nu"].map(String::from).to_vec();
    let mut e = Matrix::new("edges", edges.len() / 4, 4, edges);
    e.col_names = ["child", "parent", "weight", "is_jump"]
        .map(String::from)
        .to_vec();
    vec![u, e]
}

/// The KL of §5.1 for one chain: the test set standardized by the training mean and sd, the
/// fantasy data drawn from the chain's evaluation stream.
#[derive(serde::Serialize, serde::Deserialize)]
struct KlState {
    fantasy: FantasyKl,
    map: ObservedMap,
    m: usize,
    rng: ChainRng,
    last: f64,
}

/// The MCMC of §4 (`method: mcmc`) for the CIBP or the eCIBP (`params.prior`).
///
/// State: the network ([`Network`]); the chain starts from the D observed units alone (§5.1),
/// their γ and ν drawn from the prior (the paper is silent), or from a given network
/// ([`NetworkSampler::start_at`], `init: truth`). One [`Sampler::step`]
/// is one [`Kernel::sweep`]: MTM activations, Phase 1, Phase 2, conjugate W, γ, ν, in that
/// order. With N = 0 training rows it samples the prior.
///
/// Trace: `n_units` (observed included), `n_edges` (adjacent + jump), `n_jump_edges`, `depth`
/// (layers, layer 0 included), `log_joint` (structure log prior + parameter priors + ln p(a) of
/// every unit, observed activations in a-space), `mean_w`, `mean_gamma`, `mean_ln_nu`
/// ([`parameter_means`]), and `kl` only when a test matrix with rows is
/// given: D̂(test ‖ fantasy) (or D̂(fantasy ‖ test), `kl_direction`) with the training standardization, fantasy size m = n_test, drawn on
/// recorded iterations (iteration % thin = 0) from [`evaluation_rng`], so evaluating never
/// changes the chain. Statistics: `mtm_acceptance`, `birth_acceptance`, `death_acceptance` of
/// the last iteration (NaN when nothing was proposed). Summary: `units` (n_units × 3: layer, γ,
/// ν) and `edges` (n_edges × 4: child index, parent index, W, is_jump), with unit indices in
/// [`Network::ordered_ids`] order (layer by layer; the D observed units are 0..D in column
/// order).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct NetworkSampler {
    kernel: Kernel,
    net: Network,
    last: SweepStats,
    kl: Option<KlState>,
    /// Posterior edge frequencies aligned to a known network (§5.2), when one is given.
    align: Option<EdgeFrequencies>,
    thin: u64,
    burn_in: u64,
    iteration: u64,
}

impl NetworkSampler {
    /// Build a chain from `params`, the training matrix `x` (n × d, data units; n may be 0 for
    /// dataset `none`), the optional `test` matrix (n_test × d, data units; the `kl` column
    /// exists iff it has rows) and the chain's `rng` (draws the observed units' γ and ν; the
    /// evaluation stream is derived from it once, here).
    ///
    /// Errors ([`SamplerError::Input`]): invalid params; d = 0; x not finite or outside the
    /// observed map's domain (a constant column under `minmax`, a value outside (−1, 1) under
    /// `identity`); a test matrix with other columns, or a test set with fewer than 2 training
    /// rows (no standardization) or too few distinct rows for `kl_k`.
    pub fn new(
        params: &Params,
        x: &Matrix,
        test: Option<&Matrix>,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        params
            .check("params")
            .map_err(|e| SamplerError::Input(e.to_string()))?;
        let d = x.cols;
        if d == 0 {
            return Err(SamplerError::Input(format!(
                "matrix `{}` has no columns",
                x.name
            )));
        }
        let map = ObservedMap::fit(params, x)?;
        let a0 = map.to_activations(&x.values)?;
        let pr = Priors::new(params)?;
        let gamma: Vec<f64> = (0..d).map(|_| pr.bias(rng)).collect();
        let nu: Vec<f64> = (0..d).map(|_| pr.precision(rng)).collect();
        let mut net = Network::observed_only(x.rows, d, &gamma, &nu, &a0)?;
        net.refresh()?;
        let kl = match test {
            Some(t) if t.rows > 0 => Some(Self::kl_state(params, x, t, map.clone(), rng)?),
            _ => None,
        };
        Ok(NetworkSampler {
            kernel: Kernel::new(params)?,
            net,
            last: SweepStats::default(),
            kl,
            align: None,
            thin: 1,
            burn_in: 0,
            iteration: 0,
        })
    }

    fn kl_state(
        params: &Params,
        x: &Matrix,
        t: &Matrix,
        map: ObservedMap,
        rng: &ChainRng,
    ) -> Result<KlState, SamplerError> {
        let d = x.cols;
        if t.cols != d || t.values.len() != t.rows * d {
            return Err(SamplerError::Input(format!(
                "test matrix `{}` has {} columns, the training matrix {d}",
                t.name, t.cols
            )));
        }
        let standardizer = Standardizer::fit(&x.values, x.rows, d).map_err(|e| {
            SamplerError::Input(format!(
                "the KL standardizes by the training matrix `{}`: {e}",
                x.name
            ))
        })?;
        let fantasy = FantasyKl::with_standardizer(
            standardizer,
            &t.values,
            t.rows,
            params.kl_k,
            params.kl_direction,
        )
        .map_err(|e| SamplerError::Input(format!("test matrix `{}`: {e}", t.name)))?;
        Ok(KlState {
            fantasy,
            map,
            m: t.rows,
            rng: evaluation_rng(rng),
            last: f64::NAN,
        })
    }

    /// A chain from a given network (its observed activations are the data), without `kl`: the
    /// Geweke test's successive-conditional simulator and the benchmarks.
    ///
    /// Errors: invalid params or a non-finite network.
    pub fn from_network(params: &Params, mut net: Network) -> Result<Self, SamplerError> {
        params
            .check("params")
            .map_err(|e| SamplerError::Input(e.to_string()))?;
        net.refresh()?;
        Ok(NetworkSampler {
            kernel: Kernel::new(params)?,
            net,
            last: SweepStats::default(),
            kl: None,
            align: None,
            thin: 1,
            burn_in: 0,
            iteration: 0,
        })
    }

    /// Start the chain from `net` instead of the observed units alone (`init: truth`); the
    /// chain's random stream is unchanged by it.
    ///
    /// Errors ([`SamplerError::Input`]): a network with another N or D than the training data;
    /// a non-finite one ([`Network::refresh`]).
    pub fn start_at(mut self, mut net: Network) -> Result<Self, SamplerError> {
        if (net.n(), net.d()) != (self.net.n(), self.net.d()) {
            return Err(SamplerError::Input(format!(
                "a starting network of {} points and {} observed units, for {} and {}",
                net.n(),
                net.d(),
                self.net.n(),
                self.net.d()
            )));
        }
        net.refresh()?;
        self.net = net;
        Ok(self)
    }

    /// Also accumulate posterior edge frequencies aligned to a known network (§5.2; see
    /// [`EdgeFrequencies`]): `true_activations` is N training points × U true units (u, observed
    /// units first). Samples are added on recorded post-burn-in iterations (iteration % thin = 0,
    /// iteration > burn_in) and never touch the chain's random stream; the summary gains
    /// `edge_frequency`, `alignment_correlation`, `unmatched_edges_mean` and `aligned_samples`.
    ///
    /// Errors: a truth matrix with another number of rows than the training data, or fewer
    /// units than observed ones ([`SamplerError::Input`]).
    pub fn with_alignment(mut self, true_activations: &Matrix) -> Result<Self, SamplerError> {
        if true_activations.rows != self.net.n() {
            return Err(SamplerError::Input(format!(
                "`{}` has {} rows for {} training points",
                true_activations.name,
                true_activations.rows,
                self.net.n()
            )));
        }
        self.align = Some(
            EdgeFrequencies::new(true_activations, self.net.d()).map_err(SamplerError::Input)?,
        );
        Ok(self)
    }

    /// Add the current network to the aligned edge frequencies.
    fn align_sample(&mut self) -> Result<(), SamplerError> {
        let Some(align) = self.align.as_mut() else {
            return Ok(());
        };
        let net = &self.net;
        let ids = net.ordered_ids();
        let mut index = vec![usize::MAX; net.slot_count()];
        for (j, &i) in ids.iter().enumerate() {
            index[i] = j;
        }
        let hidden: Vec<&[f64]> = ids[net.d()..].iter().map(|&i| &net.unit(i).u[..]).collect();
        let edges: Vec<(usize, usize)> = ids
            .iter()
            .flat_map(|&i| net.unit(i).parents.iter().map(move |e| (i, e.parent)))
            .map(|(c, p)| (index[c], index[p]))
            .collect();
        align
            .add(&hidden, &edges)
            .map_err(|e| SamplerError::InvalidState(format!("edge alignment: {e}")))
    }

    /// Switch on a deliberately broken kernel (negative-control tests only; `None` switches it
    /// off). Exists only with the `testing` feature.
    #[cfg(feature = "testing")]
    pub fn with_defect(mut self, defect: impl Into<Option<Defect>>) -> Self {
        self.kernel.set_defect(defect.into());
        self
    }

    /// The current network.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// What the last iteration did.
    pub fn last_sweep(&self) -> SweepStats {
        self.last
    }

    /// Replace the observed units' activations (N × D pre-sigmoid values, row-major), keeping
    /// everything else: the Geweke test's "fresh x" step.
    ///
    /// Errors: a wrong length or a non-finite value ([`SamplerError::Input`]).
    pub fn set_observed_activations(&mut self, a: &[f64]) -> Result<(), SamplerError> {
        let (n, d) = (self.net.n(), self.net.d());
        if a.len() != n * d || a.iter().any(|v| !v.is_finite()) {
            return Err(SamplerError::Input(format!(
                "observed activations must be {n} × {d} finite values"
            )));
        }
        for j in 0..d {
            let col: Vec<f64> = (0..n).map(|t| a[t * d + j]).collect();
            self.net.set_activations(j, &col);
        }
        Ok(())
    }

    fn compute_kl(&mut self) -> Result<(), SamplerError> {
        let Some(kl) = self.kl.as_mut() else {
            return Ok(());
        };
        let mut q = sample_observed_outputs(&self.net, kl.m, &mut kl.rng);
        kl.map.to_data(&mut q);
        kl.last = kl
            .fantasy
            .kl_data_units(&q)
            .map_err(|e| {
                SamplerError::Numerical(format!("kl at iteration {}: {e}", self.iteration))
            })?
            .kl;
        Ok(())
    }
}

impl Sampler for NetworkSampler {
    fn trace_names(&self) -> Vec<String> {
        let mut v: Vec<String> = STRUCTURE.iter().map(|s| s.to_string()).collect();
        if self.kl.is_some() {
            v.push("kl".into());
        }
        v
    }

    fn begin(&mut self, spec: &RunSpec) {
        self.thin = spec.thin.max(1);
        self.burn_in = spec.burn_in;
    }

    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.iteration += 1;
        self.last = self.kernel.sweep(&mut self.net, rng)?;
        if self.iteration.is_multiple_of(self.thin) {
            if self.kl.is_some() {
                self.compute_kl()?;
            }
            if self.iteration > self.burn_in {
                self.align_sample()?;
            }
        }
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        record_structure(&self.net, self.kernel.params(), row);
        if let Some(kl) = &self.kl {
            row.push(kl.last);
        }
    }

    fn stat_names(&self) -> Vec<String> {
        ["mtm_acceptance", "birth_acceptance", "death_acceptance"]
            .map(String::from)
            .to_vec()
    }

    fn record_stats(&self, row: &mut Vec<f64>) {
        let s = self.last;
        row.extend([
            rate(s.mtm_accepted, s.mtm_tried),
            rate(s.phase2.births_accepted, s.phase2.births),
            rate(s.phase2.deaths_accepted, s.phase2.deaths),
        ]);
    }

    fn summary(&self) -> Vec<Matrix> {
        let mut out = summary_of(&self.net);
        if let Some(a) = &self.align {
            out.extend(a.matrices());
        }
        out
    }

    crate::serde_checkpoint!();
}

/// `method: forward`: each iteration an independent draw of the network from the generative
/// process of §3 ([`sample_network`] with no data). Trace: `n_units`, `n_edges`,
/// `n_jump_edges`, `depth`, `log_joint` (structure log prior + parameter priors), `mean_w`,
/// `mean_gamma`, `mean_ln_nu`. Summary: the
/// last draw, as for [`NetworkSampler`].
#[derive(serde::Serialize, serde::Deserialize)]
pub struct ForwardSampler {
    params: Params,
    d: usize,
    net: Network,
}

impl ForwardSampler {
    /// `x` gives d (its columns; its rows are not used), `test` is ignored; `rng` is not drawn
    /// from here.
    ///
    /// Errors: invalid params or d = 0 ([`SamplerError::Input`]).
    pub fn new(
        params: &Params,
        x: &Matrix,
        test: Option<&Matrix>,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        let _ = (test, rng);
        params
            .check("params")
            .map_err(|e| SamplerError::Input(e.to_string()))?;
        let d = x.cols;
        if d == 0 {
            return Err(SamplerError::Input(format!(
                "matrix `{}` has no columns",
                x.name
            )));
        }
        let net = Network::observed_only(0, d, &vec![0.0; d], &vec![1.0; d], &[])?;
        Ok(ForwardSampler {
            params: params.clone(),
            d,
            net,
        })
    }
}

impl Sampler for ForwardSampler {
    fn trace_names(&self) -> Vec<String> {
        STRUCTURE.iter().map(|s| s.to_string()).collect()
    }

    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.net = sample_network(&self.params, self.d, 0, rng)?;
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        record_structure(&self.net, &self.params, row);
    }

    fn summary(&self) -> Vec<Matrix> {
        summary_of(&self.net)
    }

    crate::serde_checkpoint!();
}
