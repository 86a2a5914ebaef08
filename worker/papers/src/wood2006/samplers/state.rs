//! The sampler state [`Core`] shared by both algorithms, with the caches that make a sweep
//! O(N·K·T): the active-parent counts `η_{i,t} = z_{i,:}·y_{:,t}` (N × T) and the column counts
//! `m_k`, plus tables of Eq. 3 for the current λ, ε; their maintenance, the `log_joint` trace
//! value and the cache check. The kernels live in [`super::gibbs`] (Eqs. 11–12 and Algorithm 2,
//! §4.2), [`super::rjmcmc`] (Algorithm 1, §4.1) and [`super::hyper`] (§6).
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
    Ok(u * (1.0 + (-lo).exp()) < 1.0)
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

/// Histograms of `eta` over entries with `x = 0` (`h0`) and `x = 1` (`h1`); both must be long
/// enough.
pub(super) fn hist2(x: &[u8], eta: &[u32], h0: &mut [u64], h1: &mut [u64]) {
    // four interleaved partial histograms break the store-to-load dependency between
    // consecutive entries that fall in the same bin (most have η = 0)
    let w = 2 * h0.len();
    let mut h = vec![0u64; 4 * w];
    let mut xs = x.chunks_exact(4);
    let mut es = eta.chunks_exact(4);
    for (xc, ec) in (&mut xs).zip(&mut es) {
        for j in 0..4 {
            h[j * w + 2 * ec[j] as usize + usize::from(xc[j])] += 1;
        }
    }
    for (&xx, &e) in xs.remainder().iter().zip(es.remainder()) {
        h[2 * e as usize + usize::from(xx)] += 1;
    }
    for (e, (a, b)) in h0.iter_mut().zip(h1.iter_mut()).enumerate() {
        *a = (0..4).map(|j| h[j * w + 2 * e]).sum();
        *b = (0..4).map(|j| h[j * w + 2 * e + 1]).sum();
    }
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
    pub(super) acc: Vec<f64>,
    pub(super) rows: Vec<usize>,
    pub(super) weights: Vec<f64>,
    pub(super) probs: Vec<f64>,
    /// (α, ln Poisson(k; α/N) for k = 0..=k_new_max), Eq. 13's prior, cached per α.
    pub(super) k_new_prior: (f64, Vec<f64>),
    pub(super) idx: Vec<usize>,
    pub(super) ms: Vec<usize>,
    pub h0: Vec<u64>,
    pub h1: Vec<u64>,
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
            acc: vec![0.0; t],
            rows: Vec::new(),
            weights: Vec::new(),
            probs: Vec::new(),
            k_new_prior: (f64::NAN, Vec::new()),
            idx: Vec::new(),
            ms: Vec::new(),
            h0: Vec::new(),
            h1: Vec::new(),
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

    pub fn recompute_eta(&mut self) {
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

    /// Set `z_{i,k} = v`, updating `m_k` and row `i` of η (O(Σ_t y_{k,t})).
    pub(super) fn set_z(&mut self, i: usize, k: usize, v: bool) {
        let c = &mut self.causes[k];
        let old = c.z[i] != 0;
        if old == v {
            return;
        }
        c.z[i] = u8::from(v);
        let row = &mut self.eta[i * self.t..(i + 1) * self.t];
        if v {
            c.m += 1;
            for &t in &c.on {
                row[t as usize] += 1;
            }
        } else {
            c.m -= 1;
            for &t in &c.on {
                row[t as usize] -= 1;
            }
        }
    }

    pub(super) fn collect_ms(&mut self) {
        self.ms.clear();
        self.ms.extend(self.causes.iter().map(|c| c.m as usize));
    }

    /// Histograms `h0[e]`, `h1[e]` of η over all entries with `x = 0`, `x = 1`.
    pub fn global_hist(&mut self) {
        let len = self.eta.iter().copied().max().unwrap_or(0) as usize + 1;
        self.h0.clear();
        self.h0.resize(len, 0);
        self.h1.clear();
        self.h1.resize(len, 0);
        hist2(&self.x, &self.eta, &mut self.h0, &mut self.h1);
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
        let fresh_t = Tables::new(self.hyper.lambda, self.hyper.epsilon, self.tables.len());
        if fresh_t.ln_px != self.tables.ln_px || fresh_t.step != self.tables.step {
            return Err("Eq. 3 tables are stale".into());
        }
        Ok(())
    }
}
