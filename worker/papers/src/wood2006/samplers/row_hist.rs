//! Per-row histograms of η, the sufficient statistics of Eqs. 13–15 (the weights of `K_i^new`
//! depend on row i only through the counts of trials by `(η_{i,t}, x_{i,t})`) and, summed over
//! rows, of the Eq. 3 likelihood ([`eq::ln_lik_from_hist`], `log_joint`, §6's λ and ε moves).
//!
//! `row_hist[i · row_w + 2e + x]` counts the trials t of row i with `η_{i,t} = e` and
//! `x_{i,t} = x`; `row_w = 0` means "not built". Every change of one `η_{i,t}` moves one count
//! ([`Core::set_z`], the Y sweep's flips, the new causes of Algorithm 2); wholesale changes (η
//! recomputed, X replaced, an accepted split or merge) drop the histograms, rebuilt in O(N T) at
//! their next use. So Algorithm 2 reads row i's histogram in O(K) instead of O(T) per row, and
//! the global histogram costs O(N K) per iteration instead of O(N T).
//!
//! [`eq::ln_lik_from_hist`]: crate::wood2006::equations::ln_lik_from_hist

use super::state::Core;

/// Spare bins per row beyond the current K + 1, so that K growing by a few does not force a
/// rebuild.
const SPARE_BINS: usize = 8;

impl Core {
    /// Drop the per-row histograms (rebuilt at their next use).
    pub(super) fn invalidate_row_hist(&mut self) {
        self.row_w = 0;
    }

    /// The width `row_w` needs so that every `η_{i,t} ≤ K` has its two bins.
    pub(super) fn row_hist_width_needed(&self) -> usize {
        2 * (self.causes.len() + 1)
    }

    /// Drop the histograms if they are too narrow for the current K.
    pub(super) fn fit_row_hist(&mut self) {
        if self.row_w < self.row_hist_width_needed() {
            self.row_w = 0;
        }
    }

    /// Build the histograms from η and X if they are not built or too narrow.
    pub(super) fn ensure_row_hist(&mut self) {
        if self.row_w >= self.row_hist_width_needed() {
            return;
        }
        let (n, t) = (self.n, self.t);
        let max_e = self.eta.iter().copied().max().unwrap_or(0) as usize;
        let w = 2 * (self.causes.len().max(max_e) + 1 + SPARE_BINS);
        self.row_w = w;
        self.row_hist.clear();
        self.row_hist.resize(n * w, 0);
        for i in 0..n {
            let h = &mut self.row_hist[i * w..(i + 1) * w];
            for (&e, &x) in self.eta[i * t..(i + 1) * t]
                .iter()
                .zip(&self.x[i * t..(i + 1) * t])
            {
                h[2 * e as usize + usize::from(x)] += 1;
            }
        }
    }

    /// `h0[e]`, `h1[e]` (e = 0..len) from row i's histogram.
    pub(super) fn row_hist_into(&mut self, i: usize, len: usize) {
        self.ensure_row_hist();
        let w = self.row_w;
        let h = &self.row_hist[i * w..(i + 1) * w];
        let bin = |e: usize, x: usize| h.get(2 * e + x).map_or(0, |&c| u64::from(c));
        self.h0.clear();
        self.h0.extend((0..len).map(|e| bin(e, 0)));
        self.h1.clear();
        self.h1.extend((0..len).map(|e| bin(e, 1)));
    }

    /// Histograms `h0[e]`, `h1[e]` of η over all entries with `x = 0`, `x = 1`, for
    /// `e = 0..=max η` (the sum of the per-row histograms).
    pub fn global_hist(&mut self) {
        self.ensure_row_hist();
        let w = self.row_w;
        let bins = w / 2;
        self.h0.clear();
        self.h0.resize(bins, 0);
        self.h1.clear();
        self.h1.resize(bins, 0);
        for h in self.row_hist.chunks_exact(w) {
            for (e, pair) in h.chunks_exact(2).enumerate() {
                self.h0[e] += u64::from(pair[0]);
                self.h1[e] += u64::from(pair[1]);
            }
        }
        let len = (0..bins)
            .rposition(|e| self.h0[e] + self.h1[e] > 0)
            .unwrap_or(0)
            + 1;
        self.h0.truncate(len);
        self.h1.truncate(len);
    }

    /// The histograms, if built, against a rebuild from η and X.
    pub(super) fn check_row_hist(&self) -> Result<(), String> {
        if self.row_w == 0 {
            return Ok(());
        }
        let mut fresh = self.clone();
        fresh.row_w = 0;
        fresh.ensure_row_hist();
        let (w0, w1) = (self.row_w, fresh.row_w);
        for i in 0..self.n {
            for b in 0..w0.max(w1) {
                let a = self.row_hist.get(i * w0 + b).filter(|_| b < w0);
                let f = fresh.row_hist.get(i * w1 + b).filter(|_| b < w1);
                if a.copied().unwrap_or(0) != f.copied().unwrap_or(0) {
                    return Err(format!(
                        "row histogram of row {i}, bin (η = {}, x = {}): cached {:?} recomputed {:?}",
                        b / 2,
                        b % 2,
                        a,
                        f
                    ));
                }
            }
        }
        Ok(())
    }
}
