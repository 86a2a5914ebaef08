//! hidden2025 MMLE tests (supplement G, eqs 19–21, experiment 7): the KKT conditions at
//! the optimum on LUCAS with its true DAG, agreement with a brute-force optimiser on tiny tables,
//! eq 19 against eq 7, eq 21, the `method: mmle` one-shot job, and a negative control (eq 20
//! without its −ψ(βω) term) that must fail the same checks.

use causeway_papers::hidden2025::datasets::{DiscreteData, ParentTable};
use causeway_papers::hidden2025::equations::log_marginal_likelihood;
use causeway_papers::hidden2025::evaluation::mmle::{
    BetaRule, Defect, KKT_TOLERANCE, Mmle, gradient, kkt_residual, mmle, mmle_with_defect,
    objective, shrinkage_predictive,
};
use causeway_papers::hidden2025::params::Params;
use causeway_papers::hidden2025::samplers::MmleSampler;
use causeway_papers::seed::chain_rng;
use causeway_papers::{RunSpec, run_chain};
use statrs::function::gamma::ln_gamma;

use super::evaluation::{lucas_parents, read_lucas};
use super::table;

/// Golden-section minimum of a convex `f` on [lo, hi] (to width 1e-13).
fn golden(f: &dyn Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> (f64, f64) {
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (hi - r * (hi - lo), lo + r * (hi - lo));
    let (mut fa, mut fb) = (f(a), f(b));
    while hi - lo > 1e-13 {
        if fa < fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - r * (hi - lo);
            fa = f(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + r * (hi - lo);
            fb = f(b);
        }
    }
    let x = 0.5 * (lo + hi);
    (x, f(x))
}

/// Brute force: the minimum of eq 19 over the simplex for k = 2 (one golden-section search) or
/// k = 3 (nested: the inner minimum over ω(2) is convex in ω(1)).
fn brute_force(t: &ParentTable, beta: f64) -> Vec<f64> {
    match t.k {
        2 => {
            let (w, _) = golden(&|w| objective(t, beta, &[w, 1.0 - w]), 0.0, 1.0);
            vec![w, 1.0 - w]
        }
        3 => {
            let inner = |w1: f64| {
                golden(
                    &|w2| objective(t, beta, &[w1, w2, 1.0 - w1 - w2]),
                    0.0,
                    1.0 - w1,
                )
            };
            let (w1, _) = golden(&|w1| inner(w1).1, 0.0, 1.0);
            let w2 = inner(w1).0;
            vec![w1, w2, 1.0 - w1 - w2]
        }
        k => panic!("brute force for k = {k}"),
    }
}

/// The checks every estimate must pass: on the simplex, zero exactly off the support, positive
/// on it; the KKT residual of the *true* eq 20 below the tolerance; and g does not decrease
/// along any simplex direction e_x − e_y (steps of ±1e-5 within the support).
fn check_optimum(t: &ParentTable, r: &Mmle) -> Result<(), String> {
    let k = t.k;
    let sum: f64 = r.pi_tilde.iter().sum();
    if (sum - 1.0).abs() > 1e-12 {
        return Err(format!("π̃ sums to {sum}"));
    }
    let support: Vec<bool> = (0..k)
        .map(|x| (0..t.occupied()).any(|c| t.row(c)[x] > 0))
        .collect();
    for (x, (&s, &p)) in support.iter().zip(&r.pi_tilde).enumerate() {
        if s != (p > 0.0) {
            return Err(format!("π̃({x}) = {p} with support {s}"));
        }
    }
    let g = gradient(t, r.beta, &r.pi_tilde);
    let res = kkt_residual(&g, &support);
    if res.is_nan() || res >= KKT_TOLERANCE {
        return Err(format!("KKT residual of eq 20 at π̃: {res:e}"));
    }
    let g0 = objective(t, r.beta, &r.pi_tilde);
    for x in (0..k).filter(|&x| support[x]) {
        for y in (0..k).filter(|&y| support[y] && y != x) {
            let mut w = r.pi_tilde.clone();
            let d = 1e-5f64.min(w[y] / 2.0);
            w[x] += d;
            w[y] -= d;
            let g1 = objective(t, r.beta, &w);
            if g1 < g0 - 1e-12 * g0.abs().max(1.0) {
                return Err(format!("g decreases along e_{x} − e_{y}: {g0} → {g1}"));
            }
        }
    }
    Ok(())
}

/// Tiny tables: binary and ternary children, several configurations, sparse cells, one
/// unobserved category.
fn tiny_tables() -> Vec<ParentTable> {
    vec![
        table(&[&[3, 1], &[0, 2], &[5, 5]]),
        table(&[&[1, 0], &[0, 1]]),
        table(&[&[7, 0, 2], &[1, 1, 0], &[0, 3, 4], &[2, 0, 0]]),
        table(&[&[2, 5, 9]]),
        table(&[&[4, 0, 1], &[0, 0, 3]]),
    ]
}

#[test]
fn mmle_kkt_holds_at_the_optimum_on_lucas_and_tiny_tables() {
    let data = read_lucas();
    let truth = lucas_parents(&data);
    let mut worst: f64 = 0.0;
    let mut most_iterations = 0;
    for (j, parents) in truth.iter().enumerate() {
        let t = data.table(j, parents);
        for rule in [BetaRule::Perks, BetaRule::Jeffreys, BetaRule::Laplace] {
            let r = mmle(&t, rule.beta(t.k)).expect("mmle");
            assert!(r.converged, "{} {rule:?}: {r:?}", data.names[j]);
            check_optimum(&t, &r).unwrap_or_else(|e| panic!("{} {rule:?}: {e}", data.names[j]));
            worst = worst.max(r.kkt_residual);
            most_iterations = most_iterations.max(r.iterations);
        }
    }
    for t in tiny_tables() {
        for beta in [0.3, 1.0, 4.0] {
            let r = mmle(&t, beta).expect("mmle");
            check_optimum(&t, &r).unwrap_or_else(|e| panic!("{:?} β = {beta}: {e}", t.counts));
            worst = worst.max(r.kkt_residual);
            most_iterations = most_iterations.max(r.iterations);
        }
    }
    eprintln!("largest KKT residual {worst:e}, most iterations {most_iterations}");
}

#[test]
fn mmle_agrees_with_a_brute_force_optimiser() {
    for t in tiny_tables() {
        for beta in [0.3, 1.0, 4.0] {
            let r = mmle(&t, beta).expect("mmle");
            let b = brute_force(&t, beta);
            let gap = r
                .pi_tilde
                .iter()
                .zip(&b)
                .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
            let (go, gb) = (r.objective, objective(&t, beta, &b));
            eprintln!(
                "{:?} β = {beta}: π̃ {:?}, brute force {b:?}, gap {gap:.2e}",
                t.counts, r.pi_tilde
            );
            assert!(gap < 1e-5, "{:?} β = {beta}: gap {gap:e}", t.counts);
            assert!(
                go <= gb + 1e-12,
                "{:?} β = {beta}: g {go} > brute force {gb}",
                t.counts
            );
        }
    }
}

/// Negative control: eq 20 without its −ψ(βω(x)) term. The estimate it returns must fail the
/// checks the correct one passes, and disagree with the brute-force optimiser.
#[test]
fn mmle_without_the_prior_digamma_fails_the_same_checks() {
    let mut failures = 0;
    let mut cases = 0;
    // Every tiny table but the symmetric one (rows (1, 0) and (0, 1)): by symmetry its optimum
    // (1/2, 1/2) is found by any gradient that treats the two categories alike.
    for t in tiny_tables()
        .into_iter()
        .filter(|t| t.counts != [1, 0, 0, 1])
    {
        for beta in [0.3, 1.0, 4.0] {
            cases += 1;
            let bad =
                mmle_with_defect(&t, beta, Defect::GradientWithoutPriorDigamma).expect("runs");
            let b = brute_force(&t, beta);
            let gap = bad
                .pi_tilde
                .iter()
                .zip(&b)
                .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
            let check = check_optimum(&t, &bad);
            eprintln!(
                "{:?} β = {beta}: defective π̃ {:?}, gap {gap:.2e}, check {check:?}",
                t.counts, bad.pi_tilde
            );
            if check.is_err() && gap > 1e-3 {
                failures += 1;
            }
        }
    }
    assert_eq!(
        failures,
        cases,
        "the defective gradient passed {} of {cases} cases",
        cases - failures
    );
}

/// Eq 19 is eq 7 at t = βω without its ω-free terms; eq 21 is a PMF per configuration, equal to
/// π̃ when λ = 1 and to the cell MLE as β → 0.
#[test]
fn mmle_objective_is_eq7_and_eq21_shrinks_the_mle() {
    let t = table(&[&[7, 0, 2], &[1, 1, 0], &[0, 3, 4]]);
    let (beta, w) = (1.7, [0.2, 0.5, 0.3]);
    let tv: Vec<f64> = w.iter().map(|x| beta * x).collect();
    let free: f64 = t
        .totals
        .iter()
        .map(|&n| ln_gamma(beta) - ln_gamma(beta + n as f64))
        .sum();
    let eq7 = log_marginal_likelihood(&t, &tv);
    assert!((objective(&t, beta, &w) + (eq7 - free)).abs() < 1e-12);
    let r = mmle(&t, beta).expect("mmle");
    let p = shrinkage_predictive(&t, &r.pi_tilde, beta);
    for c in 0..t.occupied() {
        let row = &p[c * 3..(c + 1) * 3];
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let lambda = beta / (beta + t.totals[c] as f64);
        let x = 0;
        let mle = t.row(c)[x] as f64 / t.totals[c] as f64;
        assert!((row[x] - (lambda * r.pi_tilde[x] + (1.0 - lambda) * mle)).abs() < 1e-15);
    }
    let tiny = shrinkage_predictive(&t, &r.pi_tilde, 1e-12);
    assert!((tiny[0] - 7.0 / 9.0).abs() < 1e-9);
}

/// `method: mmle` as a one-shot job: the same numbers as [`mmle`], its summaries, and the params
/// it refuses.
#[test]
fn mmle_method_runs_as_a_one_shot_job() {
    let data = DiscreteData::labelled(
        &[("A", &["a0", "a1"]), ("C", &["no", "yes", "maybe"])],
        vec![
            vec![0, 1, 0, 1, 0, 0, 1, 1, 1],
            vec![1, 0, 0, 1, 2, 1, 0, 1, 2],
        ],
    )
    .expect("data");
    let p = Params::from_value(
        "params",
        &serde_json::json!({"method": "mmle", "node": "C", "parents": ["A"], "beta": "jeffreys"}),
    )
    .expect("params");
    let mut s = MmleSampler::new(&data, &p).expect("sampler");
    let mut rng = chain_rng(1, 0, 0, 0);
    let spec = RunSpec {
        iterations: 1,
        burn_in: 0,
        thin: 1,
    };
    let out = run_chain(&mut s, &spec, &mut rng, &mut |_, _| {}).expect("runs");
    let names: Vec<&str> = out.summary.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["mmle", "mmle_fit", "mmle_predictive", "mmle_n"]);
    let direct = mmle(&data.table(1, &[0]), 1.5).expect("mmle");
    assert_eq!(out.summary[0].values, direct.pi_tilde);
    assert_eq!(out.summary[1].values[0], 1.5);
    assert_eq!(out.summary[2].row_names, ["A=a0", "A=a1"]);
    for bad in [
        serde_json::json!({"method": "mmle", "node": "C", "parents": ["A"]}),
        serde_json::json!({"method": "mmle", "node": "C", "candidates": ["A"], "beta": 1}),
        serde_json::json!({"method": "mmle", "node": "C", "parents": ["A"], "beta": "flat"}),
        serde_json::json!({"method": "mmle", "node": "C", "parents": ["A"], "beta": -1}),
        serde_json::json!({"method": "mala", "node": "C", "parents": ["A"], "beta": 1, "step_sizes": [1, 1, 1]}),
    ] {
        assert!(
            Params::from_value("params", &bad).is_err(),
            "{bad} accepted"
        );
    }
}
