//! Tail ESS's autocovariances from bit-packed indicator chains.
//!
//! Tail ESS (Vehtari et al. 2021 §4.3; ArviZ 0.23.4 `_ess_tail`) is the ESS of the indicator
//! chains I(x ≤ q) at two quantiles. An indicator chain is 0s and 1s, so its biased
//! autocovariance at lag k (ArviZ's `_autocov`, `(1/n) Σ_{t<n−k} (I_t − μ)(I_{t+k} − μ)`) is
//! exact in integers:
//!
//! acov(k) = (C_k − μ·(A_k + B_k) + (n − k)·μ²) / n,
//!
//! with C_k = Σ_{t<n−k} I_t·I_{t+k} (a popcount of the packed chain AND itself shifted by k),
//! A_k = Σ_{t<n−k} I_t, B_k = Σ_{t≥k} I_t and μ = S/n (`np.mean` of the 0s and 1s, exactly).
//! Geyer's truncation needs only the first lags, so they are computed a block at a time until
//! [`super::ess::geyer_ess`] has what it needs: 64 chains' draws cost one word operation a
//! lag, where the FFT path transforms every chain at full length. The values equal the FFT's
//! up to its rounding (~1e-16 of acov(0)). Past [`MAX_LAGS`] lags (a chain that mixes so
//! slowly that the FFT is cheaper) the caller falls back to the FFT.

use super::ess::geyer_ess;

/// Lags beyond which the FFT path is cheaper than one popcount pass per lag.
pub(crate) const MAX_LAGS: usize = 1024;

/// One split chain's indicator I(x ≤ q), 64 draws a word, with one zero word of padding (so
/// that a shifted read past the end sees 0s).
struct Packed {
    words: Vec<u64>,
    n: usize,
    ones: u64,
}

impl Packed {
    fn new(chain: &[f64], q: f64) -> Self {
        let n = chain.len();
        let mut words = vec![0u64; n.div_ceil(64) + 1];
        for (w, block) in words.iter_mut().zip(chain.chunks(64)) {
            let mut bits = 0u64;
            for (b, &x) in block.iter().enumerate() {
                bits |= u64::from(x <= q) << b;
            }
            *w = bits;
        }
        let ones = words.iter().map(|w| u64::from(w.count_ones())).sum();
        Self { words, n, ones }
    }

    fn bit(&self, t: usize) -> u64 {
        (self.words[t / 64] >> (t % 64)) & 1
    }

    /// C_k = Σ_{t<n−k} I_t·I_{t+k}.
    fn lag_product(&self, k: usize) -> u64 {
        let w = &self.words;
        let nw = w.len() - 1;
        let (q, s) = (k / 64, (k % 64) as u32);
        if q >= nw {
            return 0;
        }
        let mut acc = 0u64;
        if s == 0 {
            for i in 0..nw - q {
                acc += u64::from((w[i] & w[i + q]).count_ones());
            }
        } else {
            for i in 0..nw - q {
                let shifted = (w[i + q] >> s) | (w[i + q + 1] << (64 - s));
                acc += u64::from((w[i] & shifted).count_ones());
            }
        }
        acc
    }
}

/// Mean over chains of the indicator chains' biased autocovariances, extended lag by lag.
struct IndicatorAutocov {
    chains: Vec<Packed>,
    /// Per chain: ones among the first k draws and among the last k, for the next lag k.
    first: Vec<u64>,
    last: Vec<u64>,
    acov: Vec<f64>,
}

impl IndicatorAutocov {
    fn new(split: &[&[f64]], q: f64) -> Self {
        let chains: Vec<Packed> = split.iter().map(|c| Packed::new(c, q)).collect();
        let m = chains.len();
        Self {
            chains,
            first: vec![0; m],
            last: vec![0; m],
            acov: Vec::new(),
        }
    }

    /// Extend `acov` to lags 0..upto (at most n).
    fn extend_to(&mut self, upto: usize) {
        let Some(n) = self.chains.first().map(|c| c.n) else {
            return;
        };
        let upto = upto.min(n);
        let nf = n as f64;
        let m = self.chains.len() as f64;
        for k in self.acov.len()..upto {
            let mut total = 0.0;
            for (c, ch) in self.chains.iter().enumerate() {
                let mu = ch.ones as f64 / nf;
                let (a, b) = (ch.ones - self.last[c], ch.ones - self.first[c]);
                let ck = ch.lag_product(k) as f64;
                total += (ck - mu * (a + b) as f64 + (n - k) as f64 * mu * mu) / nf;
                self.first[c] += ch.bit(k);
                self.last[c] += ch.bit(n - 1 - k);
            }
            self.acov.push(total / m);
        }
    }
}

/// Tail ESS of the split chains' indicator I(x ≤ q) from packed chains (see the module doc);
/// `None` when Geyer's truncation needs more than [`MAX_LAGS`] lags (use the FFT), or the
/// chains are too short for the block schedule. `means` as `np.mean` of each indicator chain.
pub(crate) fn indicator_ess(
    split: &[&[f64]],
    q: f64,
    means: &[f64],
    relative: bool,
) -> Option<f64> {
    let n = split.first().map_or(0, |c| c.len());
    if n < 4 {
        return None;
    }
    let mut ac = IndicatorAutocov::new(split, q);
    let mut lags = 64;
    loop {
        ac.extend_to(lags);
        if let Some(ess) = geyer_ess(&ac.acov, means, split.len(), n, relative) {
            return Some(ess);
        }
        if lags >= MAX_LAGS.min(n) {
            return None;
        }
        lags *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer formula equals the direct definition, lag by lag, on an uneven length (so
    /// that the last word is partial) and across word boundaries.
    #[test]
    fn autocov_matches_the_direct_sum() {
        let mut state = 12_345u64;
        let chains: Vec<Vec<f64>> = (0..3)
            .map(|_| {
                (0..203)
                    .map(|_| {
                        state = state
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1_442_695_040_888_963_407);
                        (state >> 11) as f64 / (1u64 << 53) as f64
                    })
                    .collect()
            })
            .collect();
        let views: Vec<&[f64]> = chains.iter().map(Vec::as_slice).collect();
        let q = 0.3;
        let mut ac = IndicatorAutocov::new(&views, q);
        ac.extend_to(203);
        for k in [0usize, 1, 2, 63, 64, 65, 127, 128, 150, 202] {
            let mut want = 0.0;
            for c in &chains {
                let i: Vec<f64> = c.iter().map(|&x| f64::from(u8::from(x <= q))).collect();
                let mu = i.iter().sum::<f64>() / i.len() as f64;
                let s: f64 = (0..i.len() - k)
                    .map(|t| (i[t] - mu) * (i[t + k] - mu))
                    .sum();
                want += s / i.len() as f64;
            }
            want /= chains.len() as f64;
            assert!(
                (ac.acov[k] - want).abs() < 1e-14,
                "lag {k}: {} vs {want}",
                ac.acov[k]
            );
        }
    }
}
