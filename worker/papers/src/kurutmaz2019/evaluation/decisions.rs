//! Whether two sets of evidences (ours and the thesis author's stored SMC values, thesis 003
//! §5.4) lead to the same decision per (setting, pair): the hypothesis (A → B, B → A, spurious)
//! with the highest max-over-R ln p(x), as Table 5.2 counts them. Single SMC runs differ by tens
//! to a hundred nats on long pairs; the agreement is reported by the size of our decision's
//! margin (our best hypothesis's ln p(x) minus the runner-up's), so a reader sees from which
//! margin on the decisions stop depending on the run.

use super::Scores;

/// Lower edges of the margin bins, nats: [0, 1), [1, 10), [10, 100), [100, ∞).
pub const MARGIN_EDGES: [f64; 4] = [0.0, 1.0, 10.0, 100.0];

/// One margin bin: `cells` (setting, pair) decisions with our margin in [`low`, `high`), of
/// which `agree` are the same hypothesis in both sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AgreementBin {
    /// Lower edge, nats.
    pub low: f64,
    /// Upper edge, nats (∞ for the last bin).
    pub high: f64,
    /// Decisions in the bin.
    pub cells: u64,
    /// Decisions both sets make alike.
    pub agree: u64,
}

/// The hypothesis with the highest value (the first on ties) and its margin over the runner-up;
/// None when a value is not finite.
pub fn decision(best: &[f64; 3]) -> Option<(usize, f64)> {
    if best.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let top = super::best_index(best)?;
    let runner_up = (0..3)
        .filter(|&h| h != top)
        .map(|h| best[h])
        .fold(f64::NEG_INFINITY, f64::max);
    Some((top, best[top] - runner_up))
}

/// Per margin bin of [`MARGIN_EDGES`], how many of the (setting, pair) decisions present in both
/// `ours` and `other` agree (matched by setting and pair id; a cell missing or not finite on
/// either side is left out).
pub fn decision_agreement(ours: &Scores, other: &Scores) -> Vec<AgreementBin> {
    let mut bins: Vec<AgreementBin> = MARGIN_EDGES
        .iter()
        .enumerate()
        .map(|(i, &low)| AgreementBin {
            low,
            high: MARGIN_EDGES.get(i + 1).copied().unwrap_or(f64::INFINITY),
            cells: 0,
            agree: 0,
        })
        .collect();
    for (si, s) in ours.settings.iter().enumerate() {
        let Some(osi) = other.settings.iter().position(|x| x == s) else {
            continue;
        };
        for (pi, p) in ours.pairs.iter().enumerate() {
            let Some(opi) = other.pairs.iter().position(|x| x.pair == p.pair) else {
                continue;
            };
            let (Some((a, margin)), Some((b, _))) = (
                decision(&ours.best[si][pi]),
                decision(&other.best[osi][opi]),
            ) else {
                continue;
            };
            if let Some(bin) = bins.iter_mut().rev().find(|bin| margin >= bin.low) {
                bin.cells += 1;
                bin.agree += u64::from(a == b);
            }
        }
    }
    bins
}
