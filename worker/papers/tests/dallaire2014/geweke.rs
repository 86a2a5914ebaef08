//! Tests of dallaire2014: geweke. Geweke (2004) "getting it right" for the MCMC of
//! §4, CIBP and eCIBP, with the parameter updates on.
//!
//! θ is the whole network (structure, W, γ, ν and the hidden activations), x the N × D observed
//! activations. Marginal-conditional simulator: i.i.d. draws of θ from the generative process
//! (`samplers::forward::sample_network`) and x | θ. Successive-conditional simulator: one MCMC
//! iteration θ′ ~ K(θ → · | x), then a fresh x | θ′, repeated. Setting: D = 2, N ∈ {1, 3},
//! α ∈ {0.5, 1}, β = 1, β′ = 2 (β′ ≠ β, so that a mix-up of the two shows).
//!
//! The counts are heavy-tailed, so the test functions are bounded: indicators (n_units = D,
//! depth ≥ 3, n_jump_edges ≥ 1), capped counts, the mean W, γ and ln ν, and the mean observed
//! output σ(a) (σ(a) rather than a: with ν ~ Gamma(1, 1), a has no variance). Every |z| < 4.5
//! (batch-means standard errors). The broken kernels (`birth_death: paper`, `jump_prior: paper`,
//! the eCIBP birth without its J terms, the MTM without the current value) must each give some
//! |z| > 6.
#![allow(clippy::needless_range_loop)]

use causeway_papers::dallaire2014::params::{BirthDeath, JumpPrior, Params, Prior};
use causeway_papers::dallaire2014::samplers::forward::{
    sample_network, sample_observed_activations,
};
use causeway_papers::dallaire2014::samplers::{Defect, Network, NetworkSampler, parameter_means};
use causeway_papers::testing::{GewekeModel, GewekeReport, geweke_test};
use causeway_papers::{ChainRng, Sampler, SamplerError};

const D: usize = 2;

const NAMES: [&str; 16] = [
    "no_hidden",
    "depth_ge_3",
    "has_jump",
    "n_units_cap6",
    "n_edges_cap8",
    "n_jump_edges_cap4",
    "depth_cap5",
    "mean_w",
    "mean_gamma",
    "mean_ln_nu",
    "mean_observed_u",
    "mean_hidden_u",
    "observed_fit",
    "hidden_fit",
    "mean_w_sq",
    "observed_ln_nu",
];

struct Model {
    p: Params,
    n: usize,
    defect: Option<Defect>,
}

fn sigmoid(a: f64) -> f64 {
    (0.5 * a).tanh()
}

impl GewekeModel for Model {
    type State = Network;
    type Data = Vec<f64>;
    type Chain = NetworkSampler;

    fn statistic_names(&self) -> Vec<String> {
        NAMES.iter().map(|s| s.to_string()).collect()
    }

    fn sample_prior(&self, rng: &mut ChainRng) -> Network {
        sample_network(&self.p, D, self.n, rng).expect("prior draw within max_units")
    }

    fn simulate(&self, state: &Network, rng: &mut ChainRng) -> Vec<f64> {
        sample_observed_activations(state, rng)
    }

    fn start(
        &self,
        state: &Network,
        data: &Vec<f64>,
        _rng: &mut ChainRng,
    ) -> Result<NetworkSampler, SamplerError> {
        let mut s = NetworkSampler::from_network(&self.p, state.clone())?.with_defect(self.defect);
        s.set_observed_activations(data)?;
        Ok(s)
    }

    fn step(
        &self,
        chain: &mut NetworkSampler,
        rng: &mut ChainRng,
    ) -> Result<Network, SamplerError> {
        chain.step(rng)?;
        Ok(chain.network().clone())
    }

    fn set_data(&self, chain: &mut NetworkSampler, data: &Vec<f64>) -> Result<(), SamplerError> {
        chain.set_observed_activations(data)
    }

    fn statistics(&self, net: &Network, data: &Vec<f64>) -> Vec<f64> {
        let ids = net.ordered_ids();
        // the mean W, γ and ln ν as the chains trace them
        let [mean_w, mean_gamma, mean_ln_nu] = parameter_means(net);
        let (mut nw, mut sw2) = (0usize, 0.0);
        let (mut sh, mut nh) = (0.0, 0usize);
        for &i in &ids {
            let u = net.unit(i);
            for e in &u.parents {
                sw2 += e.weight * e.weight;
                nw += 1;
            }
            if u.layer > 0 {
                sh += u.u.iter().sum::<f64>();
                nh += u.u.len();
            }
        }
        // fit: mean of tanh(ν (a − y)²/2), observed units with the data, hidden units in the state
        let (mut fo, mut fh, mut nfh) = (0.0, 0.0, 0usize);
        for j in 0..D {
            let u = net.unit(j);
            for t in 0..self.n {
                let r = data[t * D + j] - (u.a[t] - u.res[t]);
                fo += (0.5 * u.nu * r * r).tanh();
            }
        }
        for &i in &ids[D..] {
            let u = net.unit(i);
            for r in &u.res {
                fh += (0.5 * u.nu * r * r).tanh();
                nfh += 1;
            }
        }
        let ind = |b: bool| f64::from(u8::from(b));
        vec![
            ind(net.n_units() == D),
            ind(net.depth() >= 3),
            ind(net.n_jump_edges() >= 1),
            net.n_units().min(6) as f64,
            net.n_edges().min(8) as f64,
            net.n_jump_edges().min(4) as f64,
            net.depth().min(5) as f64,
            mean_w,
            mean_gamma,
            mean_ln_nu,
            data.iter().map(|a| sigmoid(*a)).sum::<f64>() / data.len() as f64,
            if nh > 0 { sh / nh as f64 } else { 0.0 },
            fo / (D * self.n) as f64,
            if nfh > 0 { fh / nfh as f64 } else { 0.0 },
            if nw > 0 { sw2 / nw as f64 } else { 0.0 },
            (0..D).map(|j| net.unit(j).nu.ln()).sum::<f64>() / D as f64,
        ]
    }
}

fn params(prior: Prior, alpha: f64) -> Params {
    Params {
        prior,
        alpha,
        beta: 1.0,
        beta_prime: 2.0,
        max_units: 2_000,
        ..Params::default()
    }
}

fn report(label: &str, iters: usize, r: &GewekeReport) -> f64 {
    println!("geweke {label}: {iters} iterations per simulator");
    for s in &r.stats {
        println!(
            "  {:>18}: prior {:8.4} ± {:6.4}   sampler {:8.4} ± {:6.4}   z = {:+6.2}",
            s.name, s.prior_mean, s.prior_se, s.sampler_mean, s.sampler_se, s.z
        );
    }
    let w = r.worst_abs_z(|_| true);
    println!("  worst |z| = {w:.2}");
    w
}

fn run(label: &str, model: &Model, iters: usize, seed: u64) -> f64 {
    let r = geweke_test(model, iters, 50, seed).expect("chain runs");
    report(label, iters, &r)
}

const ITERS: usize = 100_000;

fn passes(prior: Prior, n: usize, alpha: f64, seed: u64) {
    let model = Model {
        p: params(prior, alpha),
        n,
        defect: None,
    };
    let w = run(&format!("{prior:?} N={n} α={alpha}"), &model, ITERS, seed);
    assert!(w < 4.5, "{prior:?} N={n} α={alpha}: worst |z| = {w:.2}");
}

#[test]
fn dallaire2014_geweke_ecibp_n1_alpha05() {
    passes(Prior::Ecibp, 1, 0.5, 101);
}

#[test]
fn dallaire2014_geweke_ecibp_n3_alpha1() {
    passes(Prior::Ecibp, 3, 1.0, 102);
}

#[test]
fn dallaire2014_geweke_ecibp_n3_alpha05() {
    passes(Prior::Ecibp, 3, 0.5, 103);
}

#[test]
fn dallaire2014_geweke_ecibp_n1_alpha1() {
    passes(Prior::Ecibp, 1, 1.0, 104);
}

#[test]
fn dallaire2014_geweke_cibp_n1_alpha1() {
    passes(Prior::Cibp, 1, 1.0, 105);
}

#[test]
fn dallaire2014_geweke_cibp_n3_alpha05() {
    passes(Prior::Cibp, 3, 0.5, 106);
}

#[test]
fn dallaire2014_geweke_cibp_n1_alpha05() {
    passes(Prior::Cibp, 1, 0.5, 107);
}

#[test]
fn dallaire2014_geweke_cibp_n3_alpha1() {
    passes(Prior::Cibp, 3, 1.0, 108);
}

fn detects(label: &str, model: Model, iters: usize, seed: u64) {
    let iters = std::env::var("GEWEKE_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(iters);
    let w = match geweke_test(&model, iters, 50, seed) {
        Ok(r) => report(label, iters, &r),
        Err(e) => panic!("{label}: {e}"),
    };
    assert!(
        w > 6.0,
        "{label}: worst |z| = {w:.2}, the broken kernel went unnoticed"
    );
}

#[test]
fn dallaire2014_geweke_detects_printed_birth_death() {
    let mut p = params(Prior::Cibp, 1.0);
    p.birth_death = BirthDeath::Paper;
    detects(
        "birth_death: paper (CIBP, N=1, α=1)",
        Model {
            p,
            n: 1,
            defect: None,
        },
        ITERS,
        201,
    );
}

#[test]
fn dallaire2014_geweke_detects_printed_jump_prior() {
    let mut p = params(Prior::Ecibp, 1.0);
    p.jump_prior = JumpPrior::Paper;
    detects(
        "jump_prior: paper (eCIBP, N=1, α=1)",
        Model {
            p,
            n: 1,
            defect: None,
        },
        ITERS,
        202,
    );
}

/// One-transition Geweke variant for a kernel that makes the successive-conditional chain
/// explode (grow past `max_units` within a few iterations): `reps` independent (θ, x) from the
/// prior, one transition each; θ′ must again be distributed as the prior. A transition that fails
/// by passing `max_units` counts as a network with more than every cap (the bounded statistics
/// stay bounded). Returns the worst |z| of the capped counts and indicators against independent
/// prior draws (i.i.d. standard errors) and the number of failed transitions.
fn one_step_worst_z(model: &Model, reps: usize, seed: u64) -> (f64, usize) {
    let mut rng = causeway_papers::chain_rng(seed, 3, 0, 0);
    let names = model.statistic_names();
    let keep: Vec<usize> = (0..7).collect();
    let (mut a, mut a2, mut b, mut b2) = (vec![0.0; 7], vec![0.0; 7], vec![0.0; 7], vec![0.0; 7]);
    let mut failed = 0;
    let big = [0.0, 1.0, 1.0, 6.0, 8.0, 4.0, 5.0];
    for _ in 0..reps {
        let th = model.sample_prior(&mut rng);
        let x = model.simulate(&th, &mut rng);
        let s = model.statistics(&th, &x);
        for &j in &keep {
            a[j] += s[j];
            a2[j] += s[j] * s[j];
        }
        let th = model.sample_prior(&mut rng);
        let x = model.simulate(&th, &mut rng);
        let mut chain = model.start(&th, &x, &mut rng).expect("start");
        let s = match model.step(&mut chain, &mut rng) {
            Ok(th2) => model.statistics(&th2, &x),
            Err(_) => {
                failed += 1;
                big.to_vec()
            }
        };
        for &j in &keep {
            b[j] += s[j];
            b2[j] += s[j] * s[j];
        }
    }
    let r = reps as f64;
    let mut worst: f64 = 0.0;
    for &j in &keep {
        let (ma, mb) = (a[j] / r, b[j] / r);
        let va = (a2[j] / r - ma * ma).max(0.0) / r;
        let vb = (b2[j] / r - mb * mb).max(0.0) / r;
        let z = if va + vb > 0.0 {
            (ma - mb) / (va + vb).sqrt()
        } else {
            0.0
        };
        println!(
            "  {:>18}: prior {ma:8.4}   one step {mb:8.4}   z = {z:+7.2}",
            names[j]
        );
        worst = worst.max(z.abs());
    }
    (worst, failed)
}

#[test]
fn dallaire2014_geweke_detects_birth_without_jump_terms() {
    // The successive-conditional chain of this kernel passes max_units = 2,000 within a few
    // hundred iterations (births are accepted without the factor J_old(S′)/J(S) < 1), so it is
    // tested one transition at a time from the prior.
    let mut p = params(Prior::Ecibp, 1.0);
    p.max_units = 200;
    let reps = 4_000;
    let m = Model {
        p: p.clone(),
        n: 1,
        defect: Some(Defect::BirthWithoutJumpTerms),
    };
    println!("geweke one-step eCIBP birth without J (N=1, α=1): {reps} transitions");
    let (w, failed) = one_step_worst_z(&m, reps, 203);
    println!("  worst |z| = {w:.2}, transitions past max_units = {failed}");
    assert!(
        w > 6.0,
        "birth without J went unnoticed: worst |z| = {w:.2}"
    );
    // the same one-step test passes for the correct kernel
    let ok = Model {
        p,
        n: 1,
        defect: None,
    };
    println!("geweke one-step eCIBP, correct kernel (N=1, α=1): {reps} transitions");
    let (w, failed) = one_step_worst_z(&ok, reps, 204);
    println!("  worst |z| = {w:.2}, transitions past max_units = {failed}");
    assert!(
        w < 4.5 && failed == 0,
        "correct kernel: worst |z| = {w:.2}, failed {failed}"
    );
}

#[test]
fn dallaire2014_geweke_detects_mtm_without_current() {
    let mut p = params(Prior::Cibp, 1.0);
    p.mtm_tries = 1;
    let m = Model {
        p,
        n: 3,
        defect: Some(Defect::MtmWithoutCurrent),
    };
    detects(
        "MTM without the current value (CIBP, N=3, α=1)",
        m,
        ITERS,
        204,
    );
}
