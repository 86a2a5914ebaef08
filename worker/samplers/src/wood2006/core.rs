//! The sampler state and its transition kernels (Algorithms 1 and 2), with the caches that make a
//! sweep O(N·K·T): the active-parent counts `η_{i,t} = z_{i,:}·y_{:,t}` (N × T) and the column
//! counts `m_k`, plus tables of Eq. 3 for the current λ, ε.
//!
//! Every probability comes from [`super::equations`]; this file only arranges the computations.

use rand::RngExt;
use rand_distr::{Beta, Distribution, Gamma, StandardNormal};

use super::binary::BinaryMatrix;
use super::config::{Params, SamplerKind};
use super::equations as eq;
use crate::chain::SamplerError;
use crate::seed::ChainRng;

/// The hyperparameters of the model (§3, §6).
#[derive(Debug, Clone, Copy, PartialEq)]
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

/// Deliberately broken kernels, for the negative-control tests only.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fault {
    #[default]
    None,
    /// Eq. 11 without the prior term: θ̄ = 1/2 instead of `m_{-i,k}/N` (or Eq. 10).
    DropPriorTerm,
    /// Eq. 15 without the `(1 − λp)^{K_new}` factor: K_new is drawn from its prior.
    DropNewCauseFactor,
    /// New causes of Algorithm 2 appended after the existing columns instead of at uniformly
    /// random positions (a subtle ordering bias).
    AppendNewCauses,
}

/// One hidden cause: its column of Z, its row of Y, and `m_k`.
#[derive(Debug, Clone)]
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

    fn refresh_on(&mut self) {
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
#[derive(Debug, Clone)]
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

    fn len(&self) -> usize {
        self.ln_px.len() / 2
    }

    fn ensure(&mut self, lambda: f64, epsilon: f64, len: usize) {
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
fn draw_logit(lo: f64, u: f64, what: &str) -> Result<bool, SamplerError> {
    if lo.is_nan() {
        return Err(SamplerError::Numerical(format!(
            "log-odds of {what} is NaN"
        )));
    }
    Ok(u * (1.0 + (-lo).exp()) < 1.0)
}

/// Sample an index with probabilities proportional to `exp(logw)` given `u ~ U(0,1)`, computing
/// each exponential once (`probs` is scratch). `None` if no weight is finite or any is NaN.
fn categorical(logw: &[f64], probs: &mut Vec<f64>, u: f64) -> Option<usize> {
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
fn hist2(x: &[u8], eta: &[u32], h0: &mut [u64], h1: &mut [u64]) {
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
fn cumulative(logw: &[f64], out: &mut Vec<f64>) -> Option<()> {
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
#[derive(Debug, Clone)]
pub(crate) struct Core {
    pub kind: SamplerKind,
    pub cfg: Params,
    pub fault: Fault,
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
    // scratch
    acc: Vec<f64>,
    rows: Vec<usize>,
    weights: Vec<f64>,
    probs: Vec<f64>,
    /// (α, ln Poisson(k; α/N) for k = 0..=k_new_max), Eq. 13's prior, cached per α.
    k_new_prior: (f64, Vec<f64>),
    idx: Vec<usize>,
    ms: Vec<usize>,
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
            fault: Fault::None,
            n,
            t,
            x: x.data.clone(),
            causes: Vec::new(),
            eta: vec![0; n * t],
            hyper,
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

    fn ensure_tables(&mut self, extra: usize) {
        let need = self.causes.len() + extra + 2;
        self.tables
            .ensure(self.hyper.lambda, self.hyper.epsilon, need);
    }

    /// Set `z_{i,k} = v`, updating `m_k` and row `i` of η (O(Σ_t y_{k,t})).
    fn set_z(&mut self, i: usize, k: usize, v: bool) {
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

    /// `Δ = Σ_t [ln P(x_{i,t} | η|_{z_{i,k}=1}) − ln P(x_{i,t} | η|_{z_{i,k}=0})]` (Eq. 11's
    /// likelihood ratio) from the η cache; only trials with `y_{k,t} = 1` contribute.
    #[inline]
    fn z_delta(&self, i: usize, k: usize) -> f64 {
        let c = &self.causes[k];
        let zik = u32::from(c.z[i]);
        let xi = &self.x[i * self.t..(i + 1) * self.t];
        let ei = &self.eta[i * self.t..(i + 1) * self.t];
        let step = &self.tables.step;
        let mut acc = 0.0;
        for &t in &c.on {
            let t = t as usize;
            acc += step[(2 * (ei[t] - zik) + u32::from(xi[t])) as usize];
        }
        acc
    }

    /// Eq. 11 Gibbs update of `z_{i,k}` with prior probability `theta`.
    fn gibbs_z(
        &mut self,
        i: usize,
        k: usize,
        theta: f64,
        rng: &mut ChainRng,
    ) -> Result<(), SamplerError> {
        let theta = if self.fault == Fault::DropPriorTerm {
            0.5
        } else {
            theta
        };
        let lo = eq::z_log_odds(theta, self.z_delta(i, k));
        let v = draw_logit(lo, rng.random::<f64>(), "z")?;
        self.set_z(i, k, v);
        Ok(())
    }

    /// Eq. 12 Gibbs updates of every `y_{k,t}` (Algorithm 1 lines 14–16, Algorithm 2 lines 18–20).
    /// For a fixed k the T updates are conditionally independent (each touches only column t of
    /// η), so their log-odds are accumulated row by row over the parents of k and then drawn in
    /// order. `rb`, if given (K × T), accumulates the conditional probabilities (Rao–Blackwell).
    pub fn sweep_y(
        &mut self,
        rng: &mut ChainRng,
        mut rb: Option<&mut [f64]>,
    ) -> Result<(), SamplerError> {
        self.ensure_tables(0);
        let t = self.t;
        // Eq. 12's prior log-odds ln p − ln(1−p); the likelihood part is added per trial below.
        let lo_prior = eq::y_log_odds(self.hyper.p, 0.0);
        for k in 0..self.causes.len() {
            self.rows.clear();
            self.rows
                .extend((0..self.n).filter(|&i| self.causes[k].z[i] != 0));
            self.acc.iter_mut().for_each(|a| *a = lo_prior);
            let y = &self.causes[k].y;
            for &i in &self.rows {
                let xi = &self.x[i * t..(i + 1) * t];
                let ei = &self.eta[i * t..(i + 1) * t];
                for (((a, &yy), &x), &e) in self.acc.iter_mut().zip(y).zip(xi).zip(ei) {
                    let e0 = e - u32::from(yy);
                    *a += self.tables.step[(2 * e0 + u32::from(x)) as usize];
                }
            }
            for tt in 0..t {
                let lo = self.acc[tt];
                if let Some(rb) = rb.as_deref_mut() {
                    rb[k * t + tt] += 1.0 / (1.0 + (-lo).exp());
                }
                let v = draw_logit(lo, rng.random::<f64>(), "y")?;
                let c = &mut self.causes[k];
                if (c.y[tt] != 0) != v {
                    c.y[tt] = u8::from(v);
                    for &i in &self.rows {
                        if v {
                            self.eta[i * t + tt] += 1;
                        } else {
                            self.eta[i * t + tt] -= 1;
                        }
                    }
                }
            }
            self.causes[k].refresh_on();
        }
        Ok(())
    }

    /// One iteration of Algorithm 2 (infinite model).
    pub fn gibbs_iteration(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let n = self.n;
        let mut singletons: Vec<usize> = Vec::new();
        for i in 0..n {
            self.ensure_tables(0);
            singletons.clear();
            for k in 0..self.causes.len() {
                let zik = u32::from(self.causes[k].z[i]);
                let m_minus = self.causes[k].m - zik;
                if m_minus == 0 {
                    // line 7: mark z_{i,k} to be zeroed (a singleton of row i)
                    singletons.push(k);
                    continue;
                }
                // line 5: Eq. 11 with θ̄ = m_{-i,k} / N
                self.gibbs_z(i, k, eq::theta_bar_infinite(m_minus as usize, n), rng)?;
            }
            // line 10: zero marked entries; their columns become empty and are dropped (their
            // rows of Y are integrated out, lines 21–22).
            for &k in &singletons {
                self.set_z(i, k, false);
            }
            if !singletons.is_empty() {
                self.causes.retain(|c| c.m > 0);
            }
            // lines 11–16
            self.new_causes(i, rng)?;
        }
        // lines 18–20
        self.sweep_y(rng, None)?;
        // lines 21–22 (already empty-free; kept for clarity)
        self.causes.retain(|c| c.m > 0);
        Ok(())
    }

    /// Algorithm 2 lines 11–16: draw `K_i^new` from Eq. 13 (truncated at `k_new_max`) with the
    /// likelihood of Eqs. 14–15, then the new rows of Y from their exact joint conditional: on each
    /// trial, the number `m` of active new causes has weights Eq. 15's summands
    /// ([`eq::ln_new_active_weight`]) and the `m` active ones are a uniformly random subset (all
    /// new causes have the same single link). This is the exact version of the paper's "sample
    /// y_{j,t} according to Eqn. 12" for the new rows, and makes lines 7–16 a Gibbs update of the
    /// block (singletons of row i, their rows of Y).
    fn new_causes(&mut self, i: usize, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let t = self.t;
        let kmax = self.cfg.k_new_max;
        let Hyper {
            alpha,
            lambda,
            epsilon,
            p,
        } = self.hyper;
        // histograms of η over trials with x = 0 and x = 1 for row i
        let len = self.causes.len() + 1;
        self.h0.clear();
        self.h0.resize(len, 0);
        self.h1.clear();
        self.h1.resize(len, 0);
        let (xi, ei) = (&self.x[i * t..(i + 1) * t], &self.eta[i * t..(i + 1) * t]);
        hist2(xi, ei, &mut self.h0, &mut self.h1);
        if self.k_new_prior.0 != alpha || self.k_new_prior.1.len() != kmax + 1 {
            self.k_new_prior = (
                alpha,
                (0..=kmax)
                    .map(|k| eq::ln_k_new_prior(k, alpha, self.n))
                    .collect(),
            );
        }
        let prior = &self.k_new_prior.1;
        eq::ln_k_new_weights(
            &self.h0,
            &self.h1,
            prior,
            lambda,
            epsilon,
            p,
            &mut self.weights,
        );
        if self.fault == Fault::DropNewCauseFactor {
            // every K_new gets the likelihood of K_new = 0: the weights become the prior's
            let lik0 = self.weights[0] - prior[0];
            for (w, lp) in self.weights.iter_mut().zip(prior) {
                *w = lp + lik0;
            }
        }
        let kn =
            categorical(&self.weights, &mut self.probs, rng.random::<f64>()).ok_or_else(|| {
                SamplerError::Numerical(format!(
                    "Eq. 13 weights for K_new of row {i} are not finite"
                ))
            })?;
        if kn == 0 {
            return Ok(());
        }
        let first = self.causes.len();
        for _ in 0..kn {
            let mut z = vec![0u8; self.n];
            z[i] = 1;
            self.causes.push(Cause::new(z, vec![0; t]));
        }
        self.ensure_tables(0);
        // The conditional of the number m of active new causes on trial t depends on the trial
        // only through (η_{i,t}, x_{i,t}): Eq. 15's summands, prior part once per m, likelihood
        // part from the Eq. 3 table; cumulative weights cached per (η, x).
        let prior_m: Vec<f64> = (0..=kn)
            .map(|m| eq::ln_new_active_prior(m, kn, p))
            .collect();
        let max_e = (0..t).map(|tt| self.eta[i * t + tt]).max().unwrap_or(0) as usize;
        let mut cdf: Vec<Vec<f64>> = vec![Vec::new(); 2 * (max_e + 1)];
        self.idx.clear();
        self.idx.extend(0..kn);
        for tt in 0..t {
            let e = self.eta[i * t + tt] as usize;
            let x = usize::from(self.x[i * t + tt]);
            let slot = &mut cdf[2 * e + x];
            if slot.is_empty() {
                self.weights.clear();
                self.weights
                    .extend((0..=kn).map(|m| prior_m[m] + self.tables.ln_px[2 * (e + m) + x]));
                cumulative(&self.weights, slot).ok_or_else(|| {
                    SamplerError::Numerical(format!(
                        "Eq. 15 weights for new causes of row {i} are not finite"
                    ))
                })?;
            }
            let u = rng.random::<f64>() * slot[kn];
            let m = slot.partition_point(|&c| c <= u).min(kn);
            // uniformly random subset of size m (partial Fisher–Yates)
            for j in 0..m {
                let r = rng.random_range(j..kn);
                self.idx.swap(j, r);
                self.causes[first + self.idx[j]].y[tt] = 1;
            }
            self.eta[i * t + tt] += m as u32;
        }
        for c in &mut self.causes[first..] {
            c.refresh_on();
        }
        // Insert the new columns at uniformly random positions (one at a time, each uniform over
        // the current slots), so that, as the exact conditional on ordered column lists requires,
        // every interleaving with the remaining columns is equally likely. Appending them instead
        // correlates a column's position with its age, and the systematic scan of the next rows
        // then leaves a small bias (K_+ too high; found by the Geweke test, see Fault).
        if self.fault != Fault::AppendNewCauses {
            for j in 0..kn {
                let c = self.causes.remove(first + j);
                let pos = rng.random_range(0..=first + j);
                self.causes.insert(pos, c);
            }
        }
        Ok(())
    }

    fn collect_ms(&mut self) {
        self.ms.clear();
        self.ms.extend(self.causes.iter().map(|c| c.m as usize));
    }

    /// One iteration of Algorithm 1 (finite model, RJMCMC).
    pub fn rjmcmc_iteration(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let n = self.n;
        for i in 0..n {
            self.birth_death(rng)?;
            self.ensure_tables(0);
            // lines 11–13: Eq. 11 with Eq. 10's θ̄ for every column
            let k = self.causes.len();
            for kk in 0..k {
                let m_minus = (self.causes[kk].m - u32::from(self.causes[kk].z[i])) as usize;
                self.gibbs_z(
                    i,
                    kk,
                    eq::theta_bar_finite(m_minus, n, self.hyper.alpha, k),
                    rng,
                )?;
            }
            // lines 14–16 (inside the loop over i, as printed)
            self.sweep_y(rng, None)?;
        }
        Ok(())
    }

    /// Algorithm 1 lines 3–10: pick a column uniformly; if it has links propose a birth (Eq. 8),
    /// otherwise propose deleting it (Eq. 9).
    fn birth_death(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let k = self.causes.len();
        if k == 0 {
            return Err(SamplerError::InvalidState(
                "RJMCMC state has no columns".into(),
            ));
        }
        let variant = self.cfg.rjmcmc_acceptance;
        let (prior, k_max, alpha, n) = (self.cfg.k_prior, self.cfg.k_max, self.hyper.alpha, self.n);
        let pick = rng.random_range(0..k);
        let k_plus = self.k_plus();
        self.collect_ms();
        let ln_pz_old = eq::ln_p_z_finite(&self.ms, n, alpha);
        if self.causes[pick].m > 0 {
            let mut y = vec![0u8; self.t];
            for v in y.iter_mut() {
                *v = u8::from(rng.random::<f64>() < self.hyper.p);
            }
            let delta = 1 + self.causes.iter().filter(|c| c.y == y).count();
            let ln_pz_new = eq::ln_p_z_finite_modified(&self.ms, n, alpha, 1, None);
            let ln_pk = eq::ln_k_prior_ratio(prior, k + 1, k, k_max, alpha, n);
            let ln_a =
                eq::ln_accept_birth(variant, k, k_plus, delta, ln_pz_new, ln_pk, ln_pz_old, 0.0);
            if ln_a.is_nan() {
                return Err(SamplerError::Numerical("birth acceptance is NaN".into()));
            }
            if rng.random::<f64>().ln() < ln_a {
                let pos = rng.random_range(0..=k);
                self.causes.insert(pos, Cause::new(vec![0; n], y));
            }
        } else {
            let delta = self
                .causes
                .iter()
                .filter(|c| c.y == self.causes[pick].y)
                .count();
            let ln_pz_new = eq::ln_p_z_finite_modified(&self.ms, n, alpha, 0, Some(pick));
            let ln_pk = eq::ln_k_prior_ratio(prior, k - 1, k, k_max, alpha, n);
            let ln_a =
                eq::ln_accept_death(variant, k, k_plus, delta, ln_pz_new, ln_pk, ln_pz_old, 0.0);
            if ln_a.is_nan() {
                return Err(SamplerError::Numerical("death acceptance is NaN".into()));
            }
            if rng.random::<f64>().ln() < ln_a {
                self.causes.remove(pick);
            }
        }
        Ok(())
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

    /// §6: one Metropolis step each for λ and ε (reflected Gaussian random walks, Hastings ratio 1,
    /// target = Eq. 3 likelihood × Beta prior), a Gibbs draw of p (Beta, conjugate to Eq. 4) and
    /// of α (Gibbs: Gamma, conjugate to the IBP; RJMCMC: random walk on ln α with its Jacobian,
    /// target Eq. 5 × P(K|α) × Gamma prior). Expects [`Core::global_hist`] to be current.
    pub fn update_hyper(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let cfg = self.cfg.clone();
        let h = self.hyper;
        // λ
        let target_l = |l: f64| {
            eq::ln_lik_from_hist(&self.h0, &self.h1, l, h.epsilon)
                + eq::ln_beta_density(l, cfg.lambda_prior[0], cfg.lambda_prior[1])
        };
        let z: f64 = rng.sample(StandardNormal);
        let prop = eq::reflect_unit(h.lambda + cfg.lambda_step * z);
        let mut lambda = h.lambda;
        if prop > 0.0 && prop < 1.0 {
            let r = eq::ln_mh_acceptance(target_l(prop) - target_l(h.lambda), 0.0);
            if r.is_nan() {
                return Err(SamplerError::Numerical("lambda acceptance is NaN".into()));
            }
            if rng.random::<f64>().ln() < r {
                lambda = prop;
            }
        }
        // ε
        let target_e = |e: f64| {
            eq::ln_lik_from_hist(&self.h0, &self.h1, lambda, e)
                + eq::ln_beta_density(e, cfg.epsilon_prior[0], cfg.epsilon_prior[1])
        };
        let z: f64 = rng.sample(StandardNormal);
        let prop = eq::reflect_unit(h.epsilon + cfg.epsilon_step * z);
        let mut epsilon = h.epsilon;
        if prop > 0.0 && prop < 1.0 {
            let r = eq::ln_mh_acceptance(target_e(prop) - target_e(h.epsilon), 0.0);
            if r.is_nan() {
                return Err(SamplerError::Numerical("epsilon acceptance is NaN".into()));
            }
            if rng.random::<f64>().ln() < r {
                epsilon = prop;
            }
        }
        // p
        let ones: u64 = self
            .causes
            .iter()
            .map(|c| c.y.iter().map(|&v| u64::from(v)).sum::<u64>())
            .sum();
        let total = (self.causes.len() * self.t) as u64;
        let (a, b) = eq::p_conditional(cfg.p_prior[0], cfg.p_prior[1], ones, total);
        let beta = Beta::new(a, b)
            .map_err(|e| SamplerError::Numerical(format!("Beta({a}, {b}) for p: {e}")))?;
        let p: f64 = beta.sample(rng);
        if !(p > 0.0 && p < 1.0) {
            return Err(SamplerError::Numerical(format!(
                "p drawn as {p} from Beta({a}, {b})"
            )));
        }
        // α
        let alpha = match self.kind {
            SamplerKind::Gibbs => {
                let (shape, rate) = eq::alpha_conditional_infinite(
                    cfg.alpha_prior[0],
                    cfg.alpha_prior[1],
                    self.k_plus(),
                    self.n,
                );
                let g = Gamma::new(shape, 1.0 / rate).map_err(|e| {
                    SamplerError::Numerical(format!("Gamma({shape}, rate {rate}) for alpha: {e}"))
                })?;
                g.sample(rng)
            }
            SamplerKind::Rjmcmc => {
                self.collect_ms();
                let ms = &self.ms;
                let k = self.causes.len();
                let target = |al: f64| {
                    eq::ln_p_z_finite(ms, self.n, al)
                        + eq::ln_k_prior(cfg.k_prior, k, cfg.k_max, al, self.n)
                        + eq::ln_gamma_density(al, cfg.alpha_prior[0], cfg.alpha_prior[1])
                        + al.ln() // Jacobian of the walk on ln α
                };
                let z: f64 = rng.sample(StandardNormal);
                let prop = h.alpha * (cfg.alpha_step * z).exp();
                let r = eq::ln_mh_acceptance(target(prop) - target(h.alpha), 0.0);
                if r.is_nan() {
                    return Err(SamplerError::Numerical("alpha acceptance is NaN".into()));
                }
                if prop > 0.0 && prop.is_finite() && rng.random::<f64>().ln() < r {
                    prop
                } else {
                    h.alpha
                }
            }
        };
        if !(alpha > 0.0 && alpha.is_finite()) {
            return Err(SamplerError::Numerical(format!("alpha drawn as {alpha}")));
        }
        self.hyper = Hyper {
            alpha,
            lambda,
            epsilon,
            p,
        };
        self.ensure_tables(0);
        Ok(())
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
