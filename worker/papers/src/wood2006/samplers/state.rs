//! The sampler state [`Core`] shared by both algorithms, with the caches that make a sweep
//! O(N·K·T): the active-parent counts `η_{i,t} = z_{i,:}·y_{:,t}` (N × T) and the column counts
//! `m_k`, plus tables of Eq. 3 for the current λ, ε; their maintenance, the `log_joint` trace
//! value and the cache check. Two more caches, updated by the same moves, live in their own
//! files: the per-row histograms of η ([`super::row_hist`]) and the Eq. 12 log-odds of every
//! `y_{k,t}` ([`super::y_sweep`]). The kernels live in [`super::gibbs`] (Eq. 11 and Algorithm 2,
//! §4.2), [`super::y_sweep`] (Eq. 12), [`super::rjmcmc`] (Algorithm 1, §4.1) and
//! [`super::hyper`] (§6).
//!
//! Every probability comes from [`super::equations`](crate::wood2006::equations); this file only
//! arranges the computations.

use crate::chain::SamplerError;
use crate::wood2006::datasets::BinaryMatrix;
use crate::wood2006::equations as eq;
use crate::wood2006::params::{Params, SamplerKind};

/// The hyperparameters of the model (§3, §6).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Hyper {
    /// IBP concentration α > 0 (§3.2).
    pub alpha: f64,
    /// Noisy-OR link strength λ ∈ (0, 1) (Eq. 3).
    pub lambda: f64,
    /// Noisy-OR leak ε ∈ (0, 1) (Eq. 3).
    pub epsilon: f64,
    /// Prior activation probability p ∈ (0, 1) (Eq. 4).
    pub p: f64,
}

/// Deliberately broken kernels, for the negative-control tests only. Switched on with
/// `HiddenCauseSampler::with_defect`, which exists only with the `testing` feature;
/// without it every sampler runs with no defect. See `causeway_papers::testing` for the
/// convention shared by all papers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Defect {
    /// Eq. 11 without the prior term: θ̄ = 1/2 instead of `m_{-i,k}/N` (or Eq. 10).
    DropPriorTerm,
    /// Eq. 15 without the `(1 − λp)^{K_new}` factor: K_new is drawn from its prior.
    DropNewCauseFactor,
    /// New causes of Algorithm 2 appended after the existing columns instead of at uniformly
    /// random positions (a subtle ordering bias).
    AppendNewCauses,
    /// §6, RJMCMC's α move without the Jacobian `ln α` of its random walk on ln α: the walk then
    /// targets p(α | …)/α instead of p(α | …) (α biased low).
    DropAlphaJacobian,
    /// Algorithm 1's birth/death move (Eqs. 8–9, [`RjAcceptance::Corrected`]) accepted on the
    /// target ratio alone: the Hastings term of the column picks (`ln(K/K_+)` for a birth,
    /// `ln(K_+/(K−1))` for a death) dropped.
    ///
    /// [`RjAcceptance::Corrected`]: crate::wood2006::RjAcceptance::Corrected
    DropRjPickRatio,
    /// The split–merge move (`samplers/split_merge.rs`) without the proposal's probabilities of
    /// the row and trial allocations in its Hastings ratio (`q_rows q_trials` taken as 1).
    SplitMergeDropAllocation,
}

/// One hidden cause: its column of Z, its row of Y, and `m_k`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Cause {
    /// Column k of Z, length N.
    pub z: Vec<u8>,
    /// Row k of Y, length T.
    pub y: Vec<u8>,
    /// `m_k = Σ_i z_{i,k}`.
    pub m: u32,
    /// The trials `t` with `y_{k,t} = 1`, increasing (kept in step with `y`; with p ≈ 0.1 the
    /// z updates touch a tenth of the trials).
    pub on: Vec<u32>,
    /// `1 + e^{−lo}` of Eq. 12's log-odds `lo` of `y_{k,t}` as last computed, length T once this
    /// cause has been swept (see `samplers/y_sweep.rs`); entry t is valid where bit t of `fresh`
    /// is set.
    #[serde(skip)]
    pub odds: Vec<f64>,
    /// Bit t (word t / 64, bit t % 64) set: `odds[t]` equals a recomputation. Empty: nothing
    /// valid.
    #[serde(skip)]
    pub fresh: Vec<u64>,
}

impl Cause {
    /// A cause from its column of Z and row of Y, computing `m` and `on`.
    pub fn new(z: Vec<u8>, y: Vec<u8>) -> Self {
        let m = z.iter().map(|&v| u32::from(v)).sum();
        let mut c = Cause {
            z,
            y,
            m,
            on: Vec::new(),
            odds: Vec::new(),
            fresh: Vec::new(),
        };
        c.refresh_on();
        c
    }

    pub(super) fn refresh_on(&mut self) {
        self.on.clear();
        self.on.extend(
            self.y
                .iter()
                .enumerate()
                .filter(|(_, v)| **v != 0)
                .map(|(t, _)| t as u32),
        );
    }
}

/// Eq. 3 tabulated for `η = 0..len`: `ln_px[2η + x]` and `step[2η + x] = ln P(x|η+1) − ln P(x|η)`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Tables {
    lambda: f64,
    epsilon: f64,
    pub ln_px: Vec<f64>,
    pub step: Vec<f64>,
}

impl Tables {
    pub(crate) fn new(lambda: f64, epsilon: f64, len: usize) -> Self {
        let mut t = Tables {
            lambda,
            epsilon,
            ln_px: Vec::new(),
            step: Vec::new(),
        };
        t.rebuild(len);
        t
    }

    fn rebuild(&mut self, len: usize) {
        self.ln_px.clear();
        self.step.clear();
        for e in 0..len as u32 {
            for x in [false, true] {
                self.ln_px
                    .push(eq::ln_noisy_or(x, e, self.lambda, self.epsilon));
                self.step
                    .push(eq::ln_noisy_or_step(x, e, self.lambda, self.epsilon));
            }
        }
    }

    pub(super) fn len(&self) -> usize {
        self.ln_px.len() / 2
    }

    pub(super) fn ensure(&mut self, lambda: f64, epsilon: f64, len: usize) {
        if lambda != self.lambda || epsilon != self.epsilon {
            self.lambda = lambda;
            self.epsilon = epsilon;
            self.rebuild(len.max(self.len()));
        } else if len > self.len() {
            self.rebuild(len.max(2 * self.len()));
        }
    }
}

/// Bernoulli draw from log-odds `lo` with uniform `u`. NaN log-odds is a numerical failure.
#[inline]
pub(super) fn draw_logit(lo: f64, u: f64, what: &str) -> Result<bool, SamplerError> {
    if lo.is_nan() {
        return Err(SamplerError::Numerical(format!(
            "log-odds of {what} is NaN"
        )));
    }
    Ok(u * one_plus_exp_neg(lo) < 1.0)
}

/// `1 + e^{−lo}`: `1/(1 + e^{−lo})` is the probability of log-odds `lo`, and [`draw_logit`]
/// compares `u (1 + e^{−lo}) < 1`.
#[inline]
pub(super) fn one_plus_exp_neg(lo: f64) -> f64 {
    1.0 + (-lo).exp()
}

/// Slots of a [`Memo`] (a power of two): 512 keeps a sweep's distinct Eq. 12 log-odds (a few
/// hundred at N = 20, K_+ = 10) mostly resident.
const MEMO_SLOTS: usize = 512;

/// A function of one `f64` memoised by the argument's bit pattern: [`MEMO_SLOTS`] direct-mapped
/// slots, a new argument evicting the slot's old one. The value returned is the function's own, so a
/// memoised computation gives bit for bit what the direct one gives. For the few distinct
/// log-odds of Eq. 12 in a sweep (most trials see the same pattern of parents) and the N
/// distinct `θ̄` of Eq. 11. Not for NaN arguments (the empty-slot key is a NaN pattern).
#[derive(Debug, Clone)]
pub(super) struct Memo {
    keys: Box<[u64; MEMO_SLOTS]>,
    vals: Box<[f64; MEMO_SLOTS]>,
}

impl Default for Memo {
    fn default() -> Self {
        Memo {
            keys: Box::new([u64::MAX; MEMO_SLOTS]),
            vals: Box::new([0.0; MEMO_SLOTS]),
        }
    }
}

impl Memo {
    /// `f(v)`, computed only if `v` is not in its slot.
    #[inline]
    pub(super) fn get(&mut self, v: f64, f: impl FnOnce(f64) -> f64) -> f64 {
        let b = v.to_bits();
        let s =
            (b.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - MEMO_SLOTS.trailing_zeros())) as usize;
        if self.keys[s] != b {
            self.keys[s] = b;
            self.vals[s] = f(v);
        }
        self.vals[s]
    }
}

/// Sample an index with probabilities proportional to `exp(logw)` given `u ~ U(0,1)`, computing
/// each exponential once (`probs` is scratch). `None` if no weight is finite or any is NaN.
pub(super) fn categorical(logw: &[f64], probs: &mut Vec<f64>, u: f64) -> Option<usize> {
    let mut m = f64::NEG_INFINITY;
    for &w in logw {
        if w.is_nan() {
            return None;
        }
        m = m.max(w);
    }
    if !m.is_finite() {
        return None;
    }
    probs.clear();
    probs.extend(logw.iter().map(|w| (w - m).exp()));
    let total: f64 = probs.iter().sum();
    let target = u * total;
    let mut acc = 0.0;
    for (i, p) in probs.iter().enumerate() {
        acc += p;
        if target < acc {
            return Some(i);
        }
    }
    // rounding: the last index with positive weight
    probs.iter().rposition(|&p| p > 0.0)
}

/// Cumulative sums of `exp(logw − max)` into `out` (length = `logw.len()`). `None` if no weight is
/// finite or any is NaN.
pub(super) fn cumulative(logw: &[f64], out: &mut Vec<f64>) -> Option<()> {
    let m = logw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() || logw.iter().any(|w| w.is_nan()) {
        return None;
    }
    out.clear();
    let mut acc = 0.0;
    for w in logw {
        acc += (w - m).exp();
        out.push(acc);
    }
    Some(())
}

/// State and kernels shared by both samplers.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Core {
    pub kind: SamplerKind,
    pub cfg: Params,
    /// The deliberately broken kernel, if any (always `None` without the `testing` feature).
    pub defect: Option<Defect>,
    /// N observed.
    pub n: usize,
    /// T trials.
    pub t: usize,
    /// X, N × T row-major.
    pub x: Vec<u8>,
    pub causes: Vec<Cause>,
    /// η, N × T row-major.
    pub eta: Vec<u32>,
    pub hyper: Hyper,
    pub tables: Tables,
    /// Splits and merges accepted in the last iteration's split–merge sweep.
    pub split_merge_accepted: (u32, u32),
    // scratch
    pub(super) rows: Vec<usize>,
    pub(super) weights: Vec<f64>,
    pub(super) probs: Vec<f64>,
    /// (α, ln Poisson(k; α/N) for k = 0..=k_new_max), Eq. 13's prior, cached per α.
    pub(super) k_new_prior: (f64, Vec<f64>),
    pub(super) idx: Vec<usize>,
    pub(super) ms: Vec<usize>,
    pub h0: Vec<u64>,
    pub h1: Vec<u64>,
    /// Per-row histograms of η by x, `row_w` bins a row (0: not built); see
    /// `samplers/row_hist.rs`.
    #[serde(skip)]
    pub(super) row_hist: Vec<u32>,
    /// Bins a row of `row_hist` (2 per value of η); 0: not built.
    #[serde(skip)]
    pub(super) row_w: usize,
    /// `lo ↦ 1 + e^{−lo}` ([`one_plus_exp_neg`]) for the Eq. 12 draws.
    #[serde(skip)]
    pub(super) y_odds: Memo,
    /// `θ̄ ↦ ln θ̄ − ln(1 − θ̄)` ([`eq::z_prior_log_odds`]) for the Eq. 11 draws.
    #[serde(skip)]
    pub(super) z_prior: Memo,
    /// The bit patterns of (p, λ, ε) that every cause's valid `odds` entries were computed with;
    /// `None` invalidates them all (see `samplers/y_sweep.rs`).
    #[serde(skip)]
    pub(super) y_key: Option<[u64; 3]>,
    /// Scratch of Algorithm 2's new causes: Eq. 15's prior part per number of active new causes,
    /// and the cumulative weights per (η, x).
    #[serde(skip)]
    pub(super) new_prior: Vec<f64>,
    #[serde(skip)]
    pub(super) new_cdf: Vec<f64>,
    /// Scratch of the Y sweep: the trials whose `y_{k,t}` flipped in the swept cause.
    #[serde(skip)]
    pub(super) flips: Vec<usize>,
}

impl Core {
    /// A state with no causes. `x`: N × T.
    pub fn new(kind: SamplerKind, cfg: Params, x: &BinaryMatrix) -> Self {
        let hyper = Hyper {
            alpha: cfg.alpha,
            lambda: cfg.lambda,
            epsilon: cfg.epsilon,
            p: cfg.p,
        };
        let (n, t) = (x.rows, x.cols);
        Core {
            kind,
            tables: Tables::new(hyper.lambda, hyper.epsilon, cfg.k_new_max + 2),
            cfg,
            defect: None,
            n,
            t,
            x: x.data.clone(),
            causes: Vec::new(),
            eta: vec![0; n * t],
            hyper,
            split_merge_accepted: (0, 0),
            rows: Vec::new(),
            weights: Vec::new(),
            probs: Vec::new(),
            k_new_prior: (f64::NAN, Vec::new()),
            idx: Vec::new(),
            ms: Vec::new(),
            h0: Vec::new(),
            h1: Vec::new(),
            row_hist: Vec::new(),
            row_w: 0,
            y_odds: Memo::default(),
            z_prior: Memo::default(),
            y_key: None,
            flips: Vec::new(),
            new_prior: Vec::new(),
            new_cdf: Vec::new(),
        }
    }

    /// Replace the causes by Z (N × K) and Y (K × T) and recompute the caches. For the Gibbs
    /// sampler, all-zero columns of Z are dropped (the infinite model keeps only K_+ columns).
    pub fn set_causes(&mut self, z: &BinaryMatrix, y: &BinaryMatrix) -> Result<(), SamplerError> {
        if z.rows != self.n || y.cols != self.t || z.cols != y.rows {
            return Err(SamplerError::Input(format!(
                "state shapes Z {}×{}, Y {}×{} do not fit X {}×{}",
                z.rows, z.cols, y.rows, y.cols, self.n, self.t
            )));
        }
        if z.data.len() != z.rows * z.cols || y.data.len() != y.rows * y.cols {
            return Err(SamplerError::Input(
                "Z or Y has a data length that does not match its shape".into(),
            ));
        }
        if z.data.iter().chain(&y.data).any(|&v| v > 1) {
            return Err(SamplerError::Input("Z and Y entries must be 0 or 1".into()));
        }
        self.causes.clear();
        for k in 0..z.cols {
            let col: Vec<u8> = (0..self.n).map(|i| z.get(i, k)).collect();
            let c = Cause::new(col, y.row(k).to_vec());
            if c.m == 0 && self.kind == SamplerKind::Gibbs {
                continue;
            }
            self.causes.push(c);
        }
        self.recompute_eta();
        Ok(())
    }

    /// Drop every cache that follows η and X wholesale (Eq. 12's log-odds, the per-row
    /// histograms): after η is recomputed, X replaced, or a split or merge accepted.
    pub(super) fn invalidate_eta_caches(&mut self) {
        self.invalidate_y_odds();
        self.invalidate_row_hist();
    }

    pub fn recompute_eta(&mut self) {
        self.invalidate_eta_caches();
        self.eta.iter_mut().for_each(|e| *e = 0);
        for c in &self.causes {
            for i in 0..self.n {
                if c.z[i] != 0 {
                    let row = &mut self.eta[i * self.t..(i + 1) * self.t];
                    for (e, &y) in row.iter_mut().zip(&c.y) {
                        *e += u32::from(y);
                    }
                }
            }
        }
    }

    pub fn k_plus(&self) -> usize {
        self.causes.iter().filter(|c| c.m > 0).count()
    }

    /// Current Z (N × K), all columns.
    pub fn z_matrix(&self) -> BinaryMatrix {
        let k = self.causes.len();
        let mut z = BinaryMatrix::zeros(self.n, k);
        for (j, c) in self.causes.iter().enumerate() {
            for i in 0..self.n {
                z.set(i, j, c.z[i]);
            }
        }
        z
    }

    /// Current Y (K × T), all rows.
    pub fn y_matrix(&self) -> BinaryMatrix {
        BinaryMatrix {
            rows: self.causes.len(),
            cols: self.t,
            data: self
                .causes
                .iter()
                .flat_map(|c| c.y.iter().copied())
                .collect(),
        }
    }

    pub(super) fn ensure_tables(&mut self, extra: usize) {
        let need = self.causes.len() + extra + 2;
        self.tables
            .ensure(self.hyper.lambda, self.hyper.epsilon, need);
    }

    /// Set `z_{i,k} = v`, updating `m_k`, row `i` of η and its histogram, and marking the Eq. 12
    /// log-odds it changes stale (O(Σ_t y_{k,t}) per cause of row i, plus T/64 for k).
    pub(super) fn set_z(&mut self, i: usize, k: usize, v: bool) {
        if (self.causes[k].z[i] != 0) == v {
            return;
        }
        self.fit_row_hist();
        let t = self.t;
        let w = self.row_w;
        let c = &mut self.causes[k];
        c.z[i] = u8::from(v);
        let row = &mut self.eta[i * t..(i + 1) * t];
        let xi = &self.x[i * t..(i + 1) * t];
        let mut hist = (w > 0).then(|| &mut self.row_hist[i * w..(i + 1) * w]);
        if v {
            c.m += 1;
        } else {
            c.m -= 1;
        }
        for &tt in &c.on {
            let tt = tt as usize;
            let e = row[tt] as usize;
            let e_new = if v { e + 1 } else { e - 1 };
            row[tt] = e_new as u32;
            if let Some(h) = hist.as_deref_mut() {
                let x = usize::from(xi[tt]);
                h[2 * e + x] -= 1;
                h[2 * e_new + x] += 1;
            }
        }
        // Eq. 12 caches: the parent set of k changed, and so did η_{i,t} for t ∈ on_k, which
        // every other cause of row i reads.
        c.fresh.iter_mut().for_each(|w| *w = 0);
        let on = std::mem::take(&mut c.on);
        for (kk, o) in self.causes.iter_mut().enumerate() {
            if kk != k && o.z[i] != 0 && !o.fresh.is_empty() {
                for &t in &on {
                    o.fresh[t as usize / 64] &= !(1u64 << (t % 64));
                }
            }
        }
        self.causes[k].on = on;
    }

    pub(super) fn collect_ms(&mut self) {
        self.ms.clear();
        self.ms.extend(self.causes.iter().map(|c| c.m as usize));
    }

    /// The column multiplicities `K_h` of the non-zero columns (§3.2).
    fn multiplicities(&mut self) -> Vec<usize> {
        self.idx.clear();
        self.idx
            .extend((0..self.causes.len()).filter(|&k| self.causes[k].m > 0));
        let causes = &self.causes;
        self.idx.sort_by(|&a, &b| causes[a].z.cmp(&causes[b].z));
        let mut out = Vec::new();
        let mut j = 0;
        while j < self.idx.len() {
            let mut r = j + 1;
            while r < self.idx.len() && causes[self.idx[r]].z == causes[self.idx[j]].z {
                r += 1;
            }
            out.push(r - j);
            j = r;
        }
        out
    }

    /// The `log_joint` trace value. Expects [`Core::global_hist`] to be current. Terms:
    /// `ln P(X|Z,Y,λ,ε)` (Eq. 3) + `ln P(Y|p)` (Eq. 4, all K rows of the state) + `ln P(Z)`
    /// (Gibbs: the IBP left-ordered-form class probability of §3.2; RJMCMC: Eq. 5 for the ordered
    /// Z plus `ln P(K)`), plus, when hyperparameters are updated, their log prior densities
    /// (Beta for λ, ε, p; Gamma for α).
    pub fn log_joint(&mut self) -> f64 {
        let Hyper {
            alpha,
            lambda,
            epsilon,
            p,
        } = self.hyper;
        let mut s = eq::ln_lik_from_hist(&self.h0, &self.h1, lambda, epsilon);
        let ones: u64 = self
            .causes
            .iter()
            .map(|c| c.y.iter().map(|&v| u64::from(v)).sum::<u64>())
            .sum();
        s += eq::ln_p_y(ones, (self.causes.len() * self.t) as u64, p);
        match self.kind {
            SamplerKind::Gibbs => {
                let mults = self.multiplicities();
                let ms: Vec<usize> = self
                    .causes
                    .iter()
                    .filter(|c| c.m > 0)
                    .map(|c| c.m as usize)
                    .collect();
                s += eq::ln_p_z_ibp(alpha, self.n, &ms, &mults);
            }
            SamplerKind::Rjmcmc => {
                self.collect_ms();
                s += eq::ln_p_z_finite(&self.ms, self.n, alpha);
                s += eq::ln_k_prior(
                    self.cfg.k_prior,
                    self.causes.len(),
                    self.cfg.k_max,
                    alpha,
                    self.n,
                );
            }
        }
        if self.cfg.update_hyperparameters {
            let c = &self.cfg;
            s += eq::ln_beta_density(lambda, c.lambda_prior[0], c.lambda_prior[1])
                + eq::ln_beta_density(epsilon, c.epsilon_prior[0], c.epsilon_prior[1])
                + eq::ln_beta_density(p, c.p_prior[0], c.p_prior[1])
                + eq::ln_gamma_density(alpha, c.alpha_prior[0], c.alpha_prior[1]);
        }
        s
    }

    /// Recompute every cache from Z, Y, λ, ε and compare (debug/test aid).
    pub fn check_caches(&self) -> Result<(), String> {
        let mut fresh = self.clone();
        fresh.recompute_eta();
        if fresh.eta != self.eta {
            let j = fresh
                .eta
                .iter()
                .zip(&self.eta)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(format!(
                "eta differs at ({}, {}): cached {}, recomputed {}",
                j / self.t,
                j % self.t,
                self.eta[j],
                fresh.eta[j]
            ));
        }
        for (k, c) in self.causes.iter().enumerate() {
            let m = c.z.iter().map(|&v| u32::from(v)).sum::<u32>();
            if m != c.m {
                return Err(format!("m_{k} cached {} recomputed {m}", c.m));
            }
            if c.z.len() != self.n || c.y.len() != self.t {
                return Err(format!("cause {k} has wrong lengths"));
            }
            let on: Vec<u32> = (0..self.t as u32)
                .filter(|&t| c.y[t as usize] != 0)
                .collect();
            if on != c.on {
                return Err(format!("active-trial list of cause {k} is stale"));
            }
        }
        if self.kind == SamplerKind::Gibbs && self.causes.iter().any(|c| c.m == 0) {
            return Err("Gibbs state holds an empty column".into());
        }
        if self.kind == SamplerKind::Rjmcmc && self.causes.is_empty() {
            return Err("RJMCMC state has K = 0".into());
        }
        self.check_y_odds()?;
        self.check_row_hist()?;
        let fresh_t = Tables::new(self.hyper.lambda, self.hyper.epsilon, self.tables.len());
        if fresh_t.ln_px != self.tables.ln_px || fresh_t.step != self.tables.step {
            return Err("Eq. 3 tables are stale".into());
        }
        Ok(())
    }
}
