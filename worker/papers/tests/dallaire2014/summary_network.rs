//! Tests of dallaire2014: a network rebuilt from a chain's `units`/`edges` summary
//! (`Network::from_summary_rows`) draws exactly what the network draws from the same stream, so
//! a report can show fantasy data of a finished chain; malformed summaries are refused.

use causeway_papers::chain_rng;
use causeway_papers::dallaire2014::params::{Params, Prior};
use causeway_papers::dallaire2014::samplers::Network;
use causeway_papers::dallaire2014::samplers::forward::{sample_network, sample_observed_outputs};

#[test]
fn dallaire2014_network_from_summary_rows_draws_what_the_network_draws() {
    let mut rng = chain_rng(77, 0, 0, 0);
    let mut checked_deep = false;
    for prior in [Prior::Cibp, Prior::Ecibp] {
        let p = Params {
            prior,
            ..Params::default()
        };
        for _ in 0..40 {
            let net = sample_network(&p, 3, 0, &mut rng).expect("network");
            checked_deep |= net.depth() > 2 && net.n_edges() > 3;
            let (units, edges) = net.summary_rows();
            let back = Network::from_summary_rows(3, &units, &edges).expect("rebuilt");
            assert_eq!(back.summary_rows(), (units, edges));
            let a = sample_observed_outputs(&net, 50, &mut chain_rng(5, 1, 0, 0));
            let b = sample_observed_outputs(&back, 50, &mut chain_rng(5, 1, 0, 0));
            assert_eq!(a, b);
        }
    }
    assert!(checked_deep, "no network with hidden layers was drawn");
}

#[test]
fn dallaire2014_network_from_summary_rows_refuses_malformed_summaries() {
    let units = [0.0, 0.1, 1.0, 0.0, 0.2, 1.0, 1.0, 0.3, 2.0];
    let edges = [0.0, 2.0, 0.5, 0.0];
    assert!(Network::from_summary_rows(2, &units, &edges).is_ok());
    let refused = |u: &[f64], e: &[f64], words: &str| {
        let err = Network::from_summary_rows(2, u, e)
            .expect_err("refused")
            .to_string();
        assert!(err.contains(words), "{err}");
    };
    refused(&units[..8], &edges, "rows of 3");
    refused(&units, &[0.0, 7.0, 0.5, 0.0], "does not exist");
    refused(&units, &[2.0, 0.0, 0.5, 0.0], "deeper layer");
    refused(&[0.0, 0.1, 1.0, 1.0, 0.2, 1.0], &[], "not on layer 0");
    refused(
        &[0.0, 0.1, 1.0, 0.0, 0.2, 1.0, 3.0, 0.3, 2.0],
        &[],
        "layer from 1 to 1",
    );
    refused(&[0.0, f64::NAN, 1.0, 0.0, 0.2, 1.0], &[], "non-finite");
}
