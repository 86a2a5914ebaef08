//! kurutmaz2019: §5.4 decisions compared between two sets of evidences
//! (`evaluation::decisions`), binned by our margin.

use causeway_papers::kurutmaz2019::datasets::PairMeta;
use causeway_papers::kurutmaz2019::evaluation::Scores;
use causeway_papers::kurutmaz2019::evaluation::decisions::{decision, decision_agreement};

fn pair(id: &str) -> PairMeta {
    PairMeta {
        pair: id.into(),
        original_id: 1,
        forward: true,
        weight_v1: 1.0,
        weight: 1.0,
        in_thesis_set: true,
        cause_label: String::new(),
        effect_label: String::new(),
    }
}

fn scores(settings: Vec<usize>, pairs: &[&str], best: Vec<Vec<[f64; 3]>>) -> Scores {
    let best_r = best.iter().map(|s| vec![[1; 3]; s.len()]).collect();
    Scores {
        method: "smc".into(),
        pairs: pairs.iter().map(|p| pair(p)).collect(),
        settings,
        best,
        best_r,
    }
}

#[test]
fn kurutmaz2019_decision_is_the_best_hypothesis_and_its_margin() {
    assert_eq!(decision(&[-10.0, -12.5, -11.0]), Some((0, 1.0)));
    assert_eq!(decision(&[-10.0, -10.0, -30.0]), Some((0, 0.0))); // a tie: the first
    assert_eq!(decision(&[-50.0, -10.0, -400.0]), Some((1, 40.0)));
    assert_eq!(decision(&[f64::NAN, -1.0, -2.0]), None);
}

#[test]
fn kurutmaz2019_decision_agreement_matches_cells_by_setting_and_pair_and_bins_by_our_margin() {
    // Ours: settings 1, 2 over pairs a, b. The other set lists the pairs the other way round and
    // lacks setting 2's pair b (NaN), so 3 cells are compared.
    let ours = scores(
        vec![1, 2],
        &["a", "b"],
        vec![
            vec![[-1.0, -1.5, -9.0], [-100.0, -300.0, -250.0]], // margins 0.5 and 150
            vec![[-20.0, -5.0, -40.0], [-7.0, -9.0, -8.0]],     // margins 15 and 1
        ],
    );
    let other = scores(
        vec![2, 1],
        &["b", "a"],
        vec![
            vec![[f64::NAN, -1.0, -2.0], [-30.0, -6.0, -50.0]], // setting 2: b missing, a agrees
            vec![[-1.0, -200.0, -300.0], [-2.0, -1.0, -9.0]],   // setting 1: b agrees, a differs
        ],
    );
    let bins = decision_agreement(&ours, &other);
    let got: Vec<(u64, u64)> = bins.iter().map(|b| (b.cells, b.agree)).collect();
    // [0, 1): setting 1 pair a (differs); [10, 100): setting 2 pair a (agrees);
    // [100, ∞): setting 1 pair b (agrees); setting 2 pair b is missing on the other side.
    assert_eq!(got, vec![(1, 0), (0, 0), (1, 1), (1, 1)]);
    assert!(bins[3].high.is_infinite() && bins[0].low == 0.0);
}
