//! Tests of dallaire2014's `init: truth` (paper `004_74db43a26dbf0fa1.txt` §5.2): a chain that
//! starts at the known 7-unit network, and what the precision prior does to it.

use causeway_papers::Model;
use causeway_papers::chain::Sampler;
use causeway_papers::dallaire2014::Dallaire2014;
use causeway_papers::dallaire2014::datasets::ngbn7::{
    NGBN7_D, NGBN7_N_EDGES, NGBN7_N_UNITS, ngbn7_network,
};
use causeway_papers::dallaire2014::evaluation::FantasyKl;
use causeway_papers::dallaire2014::params::{Init, KlDirection, ObservedMap, Params};
use causeway_papers::dallaire2014::samplers::NetworkSampler;
use causeway_papers::dallaire2014::samplers::forward::sample_observed_outputs;
use causeway_papers::data::{DataContext, Matrix};
use causeway_papers::seed::chain_rng;
use serde_json::json;

const N: usize = 2000;

/// Training and test data of the §5.2 network (N = 2000 each) with every unit's true output, as
/// the experiment's dataset `kind: ngbn7` builds them.
fn data(seed: u64) -> (Matrix, Matrix, Matrix) {
    let ctx = DataContext {
        data_dir: std::path::PathBuf::from("."),
    };
    let ds = Dallaire2014
        .dataset(
            &json!({"kind": "ngbn7"}),
            &ctx,
            &mut chain_rng(seed, 0, 0, 0),
        )
        .unwrap();
    let m = |name: &str| ds.observed(name).unwrap().clone();
    let (x, test, truth) = (m("x"), m("test"), m("true_activations"));
    assert_eq!((x.rows, test.rows, truth.rows), (N, N, N));
    (x, test, truth)
}

fn params(rate: f64) -> Params {
    let mut p = Params {
        observed_map: ObservedMap::Identity,
        init: Init::Truth,
        ..Params::default()
    };
    p.precision_prior.rate = rate;
    p
}

#[test]
fn dallaire2014_truth_start_is_the_true_network() {
    let (x, test, truth) = data(3);
    let mut rng = chain_rng(3, 1, 0, 0);
    let s = NetworkSampler::new(&params(1.0), &x, Some(&test), &mut rng).unwrap();
    let net = ngbn7_network(s.network(), &truth).unwrap();
    assert_eq!(
        (
            net.n_units(),
            net.n_edges(),
            net.n_jump_edges(),
            net.depth()
        ),
        (NGBN7_N_UNITS, NGBN7_N_EDGES, 4, 3)
    );
    // Every unit's residuals have the true noise: Σ res² ν / N near 1 (N = 2000: ± 0.1 is 3 sd).
    for i in net.ordered_ids() {
        let u = net.unit(i);
        let z = u.res.iter().map(|r| r * r).sum::<f64>() * u.nu / N as f64;
        assert!((z - 1.0).abs() < 0.1, "unit {i} (layer {}): {z}", u.layer);
    }
    // Fresh data from it match the test set as well as the training set does.
    let kl = FantasyKl::new(
        &x.values,
        N,
        &test.values,
        N,
        NGBN7_D,
        1,
        KlDirection::TestModel,
    )
    .unwrap();
    let q = sample_observed_outputs(&net, N, &mut chain_rng(3, 2, 0, 0));
    let d = kl.kl_data_units(&q).unwrap().kl;
    assert!(d.abs() < 0.15, "the true network's KL is {d}");
    // A network of another size is refused.
    let short = Matrix::new("true_activations", N, 5, vec![0.0; N * 5]);
    assert!(ngbn7_network(s.network(), &short).is_err());
}

/// The mean KL over 10 sweeps of a chain started at the truth, and its largest precision.
fn kl_from_truth(rate: f64, seed: u64) -> (f64, f64) {
    let (x, test, truth) = data(seed);
    let mut rng = chain_rng(seed, 1, 0, 0);
    let p = params(rate);
    let s = NetworkSampler::new(&p, &x, Some(&test), &mut rng).unwrap();
    let start = ngbn7_network(s.network(), &truth).unwrap();
    let mut s = s.start_at(start).unwrap();
    let mut row = Vec::new();
    let mut total = 0.0;
    for _ in 0..10 {
        s.step(&mut rng).unwrap();
        row.clear();
        s.record(&mut row);
        total += row.last().copied().unwrap();
    }
    let nu_max = s
        .network()
        .ordered_ids()
        .iter()
        .map(|&i| s.network().unit(i).nu)
        .fold(0.0, f64::max);
    (total / 10.0, nu_max)
}

/// Under the paper's Gamma(1, 1) precision prior (§5) the conditional Gamma(1 + N/2, 1 + SS/2)
/// cannot reach the true precisions of 10⁴ (its mean is at most 1 + N/2 = 1001), and the true
/// network's fantasy data lose the test set's sharp edges within a few sweeps; under
/// Gamma(1, 0.01) the chain keeps them. The experiment `structure_precision.yaml` measures it at
/// length.
#[test]
fn dallaire2014_truth_keeps_its_kl_only_under_a_vague_precision_prior() {
    for seed in [5, 6] {
        let (paper, nu_paper) = kl_from_truth(1.0, seed);
        let (vague, nu_vague) = kl_from_truth(0.01, seed);
        assert!(nu_paper < 1.2 * (1.0 + N as f64 / 2.0), "ν {nu_paper}");
        assert!(nu_vague > 3000.0, "ν {nu_vague}");
        assert!(paper > 0.35, "Gamma(1, 1): mean KL {paper}");
        assert!(vague < 0.2, "Gamma(1, 0.01): mean KL {vague}");
    }
}

#[test]
fn dallaire2014_init_truth_is_refused_where_it_cannot_start() {
    let m = Dallaire2014;
    let ngbn7 = json!({"kind": "ngbn7"});
    let e = m
        .validate(&json!({"prior": "cibp", "init": "truth"}), &ngbn7)
        .unwrap_err()
        .to_string();
    assert!(e.contains("params.init") && e.contains("ecibp"), "{e}");
    let e = m
        .validate(&json!({"init": "start"}), &ngbn7)
        .unwrap_err()
        .to_string();
    assert!(e.contains("observed") && e.contains("truth"), "{e}");
    // A dataset without a known network: refused before any chain starts.
    let ring = json!({"kind": "ring"});
    let ctx = DataContext {
        data_dir: std::path::PathBuf::from("."),
    };
    let ds = m.dataset(&ring, &ctx, &mut chain_rng(1, 0, 0, 0)).unwrap();
    let e = m
        .check_cell(&json!({"init": "truth"}), &ds)
        .unwrap_err()
        .to_string();
    assert!(e.contains("ngbn7"), "{e}");
}
