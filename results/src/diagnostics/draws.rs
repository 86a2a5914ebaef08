//! Input type ([`Draws`]), tail-quantile parameter ([`TailProbs`]) and the error type.

use std::sync::{Arc, OnceLock};

use thiserror::Error;

use super::rank::Ranked;

/// Minimum number of draws per chain, as ArviZ 0.23.4 (`not_valid(..., min_draws=4)`).
pub const MIN_DRAWS: usize = 4;

/// Errors raised when the input cannot be diagnosed at all.
///
/// ArviZ 0.23.4 logs a warning and returns NaN for fewer than 4 draws; causeway
/// refuses such input instead, because a NaN there hides a caller bug.
/// (A single chain is *not* an error: R-hat is then NaN, ESS and MCSE are defined.)
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DiagnosticsError {
    /// No chain at all.
    #[error("no chains given: diagnostics need at least one chain of at least {MIN_DRAWS} draws")]
    NoChains,
    /// Chains of different lengths.
    #[error(
        "chain {chain} has {len} draws but chain 0 has {expected}: all chains must have the same number of draws"
    )]
    RaggedChains {
        /// Index of the first chain whose length differs from chain 0.
        chain: usize,
        /// Its length.
        len: usize,
        /// Length of chain 0.
        expected: usize,
    },
    /// Fewer than [`MIN_DRAWS`] draws per chain.
    #[error(
        "{n_draws} draws per chain is too few: convergence diagnostics need at least {MIN_DRAWS} draws per chain"
    )]
    TooFewDraws {
        /// Draws per chain that were given.
        n_draws: usize,
    },
    /// A row-major buffer whose length is not a multiple of the chain count.
    #[error("a buffer of {len} values cannot be split into {n_chains} chains of equal length")]
    ShapeMismatch {
        /// Buffer length.
        len: usize,
        /// Requested number of chains.
        n_chains: usize,
    },
    /// More than `u32::MAX` values in total (about 34 GB of f64).
    #[error(
        "{total} draws in total is more than the supported maximum of {}",
        u32::MAX
    )]
    TooLarge {
        /// M·N.
        total: usize,
    },
    /// Tail-ESS quantile probabilities outside `[0, 1]` (or NaN).
    #[error("tail quantile probabilities must lie in [0, 1]; got ({low}, {high})")]
    InvalidProbability {
        /// Lower probability given.
        low: f64,
        /// Upper probability given.
        high: f64,
    },
}

/// M chains × N draws, borrowed: one slice per chain (row per chain), no copy of the values.
///
/// Construct with [`Draws::new`] from per-chain slices, or [`Draws::from_row_major`] from one
/// contiguous M·N buffer laid out chain after chain (the layout of a C-contiguous
/// `(chain, draw)` numpy array). Construction validates the shape once: at least one chain,
/// all chains of equal length N ≥ 4, so the diagnostic functions taking a `&Draws` are
/// infallible. NaN values are allowed and make every diagnostic NaN (as ArviZ).
///
/// A `Draws` memoises the sort of its split draws and their bulk z-scores the first time a
/// rank-based diagnostic needs them, so [`rhat`](super::rhat), [`ess_bulk`](super::ess_bulk)
/// and [`ess_tail`](super::ess_tail) called on the same `Draws` sort once (the values cannot
/// change: they are borrowed immutably for the `Draws`' lifetime). The memo holds about
/// 28 bytes per draw until the `Draws` is dropped; clones share it.
#[derive(Clone)]
pub struct Draws<'a> {
    chains: Vec<&'a [f64]>,
    n_draws: usize,
    has_nan: OnceLock<bool>,
    ranked: OnceLock<Arc<Ranked>>,
}

impl std::fmt::Debug for Draws<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Draws")
            .field("n_chains", &self.chains.len())
            .field("n_draws", &self.n_draws)
            .field("ranks_memoised", &self.ranked.get().is_some())
            .finish()
    }
}

impl<'a> Draws<'a> {
    /// Borrow M chains given as one slice each (`chains[m][n]` = draw n of chain m).
    ///
    /// Errors: [`DiagnosticsError::NoChains`], [`DiagnosticsError::RaggedChains`],
    /// [`DiagnosticsError::TooFewDraws`] (N < 4), [`DiagnosticsError::TooLarge`].
    pub fn new(chains: &[&'a [f64]]) -> Result<Self, DiagnosticsError> {
        let first = chains.first().ok_or(DiagnosticsError::NoChains)?;
        let expected = first.len();
        for (chain, c) in chains.iter().enumerate() {
            if c.len() != expected {
                return Err(DiagnosticsError::RaggedChains {
                    chain,
                    len: c.len(),
                    expected,
                });
            }
        }
        if expected < MIN_DRAWS {
            return Err(DiagnosticsError::TooFewDraws { n_draws: expected });
        }
        let total = expected.saturating_mul(chains.len());
        if total > u32::MAX as usize {
            return Err(DiagnosticsError::TooLarge { total });
        }
        Ok(Self {
            chains: chains.to_vec(),
            n_draws: expected,
            has_nan: OnceLock::new(),
            ranked: OnceLock::new(),
        })
    }

    /// Borrow an M·N buffer laid out chain after chain (`data[m * N + n]` = draw n of chain m).
    ///
    /// Errors: as [`Draws::new`], plus [`DiagnosticsError::ShapeMismatch`] when
    /// `data.len()` is not a multiple of `n_chains`.
    pub fn from_row_major(data: &'a [f64], n_chains: usize) -> Result<Self, DiagnosticsError> {
        if n_chains == 0 {
            return Err(DiagnosticsError::NoChains);
        }
        if !data.len().is_multiple_of(n_chains) {
            return Err(DiagnosticsError::ShapeMismatch {
                len: data.len(),
                n_chains,
            });
        }
        let n = data.len() / n_chains;
        if n == 0 {
            return Err(DiagnosticsError::TooFewDraws { n_draws: 0 });
        }
        let chains: Vec<&'a [f64]> = data.chunks_exact(n).collect();
        Self::new(&chains)
    }

    /// Number of chains M.
    pub fn n_chains(&self) -> usize {
        self.chains.len()
    }

    /// Number of draws per chain N.
    pub fn n_draws(&self) -> usize {
        self.n_draws
    }

    /// The chains, one slice of N draws each.
    pub fn chains(&self) -> &[&'a [f64]] {
        &self.chains
    }

    /// Whether any draw is NaN (every diagnostic is then NaN, as in ArviZ).
    pub fn has_nan(&self) -> bool {
        *self
            .has_nan
            .get_or_init(|| self.chains.iter().any(|c| c.iter().any(|x| x.is_nan())))
    }

    /// The sorted split draws and bulk z-scores, computed on first use (callers check
    /// [`Draws::has_nan`] first: NaN has no rank).
    pub(crate) fn ranked(&self) -> Arc<Ranked> {
        self.ranked
            .get_or_init(|| Arc::new(Ranked::new(&self.split_chains())))
            .clone()
    }

    /// The memoised ranks, if some diagnostic already computed them.
    pub(crate) fn ranked_if_done(&self) -> Option<Arc<Ranked>> {
        self.ranked.get().cloned()
    }

    /// Draws kept per half-chain when splitting: ⌊N/2⌋.
    pub(crate) fn half(&self) -> usize {
        self.n_draws / 2
    }

    /// The 2M split chains of ⌊N/2⌋ draws (ArviZ `_split_chains`): first the first halves of
    /// chains 0..M, then the last halves of chains 0..M; for odd N the middle draw is dropped.
    pub(crate) fn split_chains(&self) -> Vec<&'a [f64]> {
        let half = self.half();
        let n = self.n_draws;
        let firsts = self.chains.iter().map(|c| &c[..half]);
        let lasts = self.chains.iter().map(|c| &c[n - half..]);
        firsts.chain(lasts).collect()
    }
}

/// The pair of probabilities whose quantiles define tail ESS.
///
/// Default: `(0.05, 0.95)`, what ArviZ 0.23.4's `_ess_tail` uses (`prob=None`).
/// The newer arviz-stats package (checked: 0.8.0) instead takes `rcParams["stats.ci_prob"]`
/// (0.89 by default) and uses `(1 − p, p)`, i.e. `(0.11, 0.89)`; pass
/// `TailProbs::new(0.11, 0.89)` to follow that convention.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TailProbs {
    low: f64,
    high: f64,
}

impl TailProbs {
    /// ArviZ 0.23.4's default pair, `(0.05, 0.95)`.
    pub const ARVIZ_0_23: TailProbs = TailProbs {
        low: 0.05,
        high: 0.95,
    };

    /// A quantile pair; both must lie in `[0, 1]`. Tail ESS is the minimum of the two
    /// quantile ESS values, so the order of `low` and `high` does not matter.
    pub fn new(low: f64, high: f64) -> Result<Self, DiagnosticsError> {
        let ok = |p: f64| (0.0..=1.0).contains(&p);
        if ok(low) && ok(high) {
            Ok(Self { low, high })
        } else {
            Err(DiagnosticsError::InvalidProbability { low, high })
        }
    }

    /// The lower probability.
    pub fn low(&self) -> f64 {
        self.low
    }

    /// The upper probability.
    pub fn high(&self) -> f64 {
        self.high
    }
}

impl Default for TailProbs {
    fn default() -> Self {
        Self::ARVIZ_0_23
    }
}
