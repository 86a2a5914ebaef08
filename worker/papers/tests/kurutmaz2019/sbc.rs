//! Simulation-based calibration of PG-CN, in process with the functions the runner
//! uses (`causeway_papers::sbc`), seeded as a run's simulation s would be. θ̃ = r̃, ranked by
//! ln p(r̃, x) among ln p(r_ℓ, x) of the PG draws. The correct PG passes (both p-values ≥ 0.001);
//! PG without its reference path (`Defect::OmitCategoricalPredictive`, an independent SMC draw per sweep,
//! biased for small J) fails (a p-value < 0.001).

use causeway_papers::kurutmaz2019::samplers::Defect;
use causeway_papers::kurutmaz2019::{Kurutmaz2019, PgSampler, Problem, parse_params};
use causeway_papers::sbc::uniformity::{chi_square, default_bins, ecdf_test};
use causeway_papers::sbc::{SbcSpec, simulate_ranks};
use causeway_papers::{
    ChainRng, Dataset, RunSpec, Sampler, SamplerError, chain_rng, dataset_rng, stable_hash,
};
use serde_json::{Value, json};

const SIMULATIONS: u64 = 1000;
const SPEC: SbcSpec = SbcSpec { draws: 19, thin: 5 };
const RUN: RunSpec = RunSpec {
    iterations: 120,
    burn_in: 20,
    thin: 1,
};

fn p_values(defect: Option<Defect>) -> (f64, f64) {
    let params = json!({"method": "pg", "hypothesis": "a_to_b", "n_latent": 2, "setting": 14,
                        "gamma": 1.0, "n_particles": 3});
    let dataset = json!({"kind": "prior_predictive", "n_observations": 8});
    let cell = stable_hash(json!({"p": params, "d": dataset}).to_string().as_bytes());
    let make =
        |p: &Value, d: &Dataset, rng: &mut ChainRng| -> Result<Box<dyn Sampler>, SamplerError> {
            let r = parse_params(p).map_err(|e| SamplerError::Input(e.to_string()))?;
            let x = d.observed("x").unwrap();
            let (a, b) = x.values.split_at(x.cols);
            let problem = Problem::new(a, b, r.params.hypothesis, r.params.n_latent, r.hyper)?;
            Ok(Box::new(PgSampler::new(
                problem,
                r.smc_config().with_defect(defect),
                r.params.shuffle,
                rng,
            )?))
        };
    let mut ranks = Vec::new();
    for s in 0..SIMULATIONS {
        let (names, r) = simulate_ranks(
            &Kurutmaz2019,
            &params,
            &dataset,
            SPEC,
            &RUN,
            (dataset_rng(3, cell, s), chain_rng(3, cell, s, 0)),
            &make,
        )
        .unwrap();
        assert_eq!(names, ["log_joint"]);
        ranks.push(r[0]);
    }
    let chi = chi_square(&ranks, SPEC.draws, default_bins(ranks.len(), SPEC.draws)).p_value;
    let ecdf = ecdf_test(&ranks, SPEC.draws, 0.95, 10_000, 2022).p_value;
    (chi, ecdf)
}

#[test]
fn sbc_kurutmaz2019_pg_passes_and_pg_with_wrong_weights_fails() {
    let (chi, ecdf) = p_values(None);
    eprintln!("PG: χ² p = {chi}, ECDF p = {ecdf}");
    assert!(chi >= 1e-3 && ecdf >= 1e-3, "χ² p = {chi}, ECDF p = {ecdf}");
    let (chi, ecdf) = p_values(Some(Defect::OmitCategoricalPredictive));
    eprintln!("OmitCategoricalPredictive: χ² p = {chi}, ECDF p = {ecdf}");
    assert!(chi.min(ecdf) < 1e-3, "χ² p = {chi}, ECDF p = {ecdf}");
}
