//! The network of §5.2 of paper `004_74db43a26dbf0fa1.txt` ("Structure Identification"), as
//! as §5.2 describes it, and a self-contained ancestral sampler for it.
//!
//! Layout: 2 observed units (layer 0), 2 hidden units in layer 1, 3 roots (layer 2); units are
//! numbered layer 0 first, then 1, then 2: `x1, x2, h1_1, h1_2, h2_1, h2_2, h2_3`.
//! - W^(0,1) = I; W^(1,2) = [[1, .3, 0], [0, .3, 1]]; W^(0,2) = [[−.15, 0, −.15], [.3, .3, 0]]
//!   (rows are children). The four non-zero entries of W^(0,2) are jump edges: 2 + 4 + 4 = 10
//!   edges.
//! - ν = 10⁴ in layers 0 and 1 (the paper's "first 2 layers"), ν = 10⁻² for the roots; biases 0.
//! - Each unit computes a = γ + Σ_parents W u_parent + N(0, 1/ν) and u = σ(a) = tanh(a/2) (eqs 1–2).
//!
//! The observed data are the observed units' u, in (−1, 1): the experiment uses
//! `observed_map: identity`.

use rand_distr::{Distribution, StandardNormal};

use crate::chain::SamplerError;
use crate::dallaire2014::equations::sigmoid_inv;
use crate::dallaire2014::samplers::network::Network;
use crate::data::Matrix;
use crate::seed::ChainRng;

/// Number of units (observed included).
pub const NGBN7_N_UNITS: usize = 7;
/// Number of observed units d.
pub const NGBN7_D: usize = 2;
/// Number of edges (adjacent and jump).
pub const NGBN7_N_EDGES: usize = 10;
/// Number of layers, layer 0 included.
pub const NGBN7_DEPTH: usize = 3;

/// Unit names, in unit order (layer 0, 1, 2).
pub const NGBN7_UNITS: [&str; NGBN7_N_UNITS] = ["x1", "x2", "h1_1", "h1_2", "h2_1", "h2_2", "h2_3"];

/// Layer of each unit.
pub const NGBN7_LAYERS: [usize; NGBN7_N_UNITS] = [0, 0, 1, 1, 2, 2, 2];

/// Precision ν of each unit: 10⁴ in layers 0 and 1, 10⁻² for the roots.
pub const NGBN7_PRECISIONS: [f64; NGBN7_N_UNITS] = [1e4, 1e4, 1e4, 1e4, 1e-2, 1e-2, 1e-2];

/// Bias γ of each unit (all 0).
pub const NGBN7_BIASES: [f64; NGBN7_N_UNITS] = [0.0; NGBN7_N_UNITS];

/// Weights W[child][parent] (7 × 7, units in [`NGBN7_UNITS`] order); 0 = no edge.
pub const NGBN7_WEIGHTS: [[f64; NGBN7_N_UNITS]; NGBN7_N_UNITS] = [
    // x1 <- h1_1 (W^(0,1)), h2_1, h2_3 (W^(0,2) row 1)
    [0.0, 0.0, 1.0, 0.0, -0.15, 0.0, -0.15],
    // x2 <- h1_2 (W^(0,1)), h2_1, h2_2 (W^(0,2) row 2)
    [0.0, 0.0, 0.0, 1.0, 0.3, 0.3, 0.0],
    // h1_1 <- h2_1, h2_2 (W^(1,2) row 1)
    [0.0, 0.0, 0.0, 0.0, 1.0, 0.3, 0.0],
    // h1_2 <- h2_2, h2_3 (W^(1,2) row 2)
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.3, 1.0],
    [0.0; NGBN7_N_UNITS],
    [0.0; NGBN7_N_UNITS],
    [0.0; NGBN7_N_UNITS],
];

/// σ(a) = 2/(1 + e^{−a}) − 1 = tanh(a/2) (§2).
fn sigma(a: f64) -> f64 {
    (0.5 * a).tanh()
}

/// `n` points by ancestral sampling: for each point in turn, the units from the roots down
/// (units 4, 5, 6, then 2, 3, then 0, 1), each with one N(0, 1) draw from `rng`:
/// a_i = γ_i + Σ_j W[i][j] u_j + N(0,1)/√ν_i, u_i = σ(a_i). Returns the observed units' u, row-major
/// `n × 2`, each in (−1, 1). Deterministic given `rng`.
pub fn ngbn7_sample(n: usize, rng: &mut ChainRng) -> Vec<f64> {
    ngbn7_sample_units(n, rng)
        .chunks_exact(NGBN7_N_UNITS)
        .flat_map(|u| u[..NGBN7_D].to_vec())
        .collect()
}

/// [`ngbn7_sample`] with every unit's u: row-major `n × 7` (units in [`NGBN7_UNITS`] order), the
/// same draws from `rng` (the first two columns are [`ngbn7_sample`]'s). The hidden columns
/// are what a learned network's hidden units are aligned to (§5.2's edge table).
pub fn ngbn7_sample_units(n: usize, rng: &mut ChainRng) -> Vec<f64> {
    let mut x = Vec::with_capacity(NGBN7_N_UNITS * n);
    let mut u = [0.0; NGBN7_N_UNITS];
    for _ in 0..n {
        for i in (0..NGBN7_N_UNITS).rev() {
            let y: f64 = NGBN7_BIASES[i]
                + NGBN7_WEIGHTS[i]
                    .iter()
                    .zip(&u)
                    .map(|(w, uj)| w * uj)
                    .sum::<f64>();
            let z: f64 = StandardNormal.sample(rng);
            u[i] = sigma(y + z / NGBN7_PRECISIONS[i].sqrt());
        }
        x.extend_from_slice(&u);
    }
    x
}

/// The true network as truth matrices: `true_weights` (7 × 7, row child, column parent, row and
/// column names the units), `true_layers`, `true_precisions`, `true_biases` (7 × 1 each, row names
/// the units), and the scalars `true_n_units` (7), `true_n_edges` (10), `true_depth` (3).
pub fn ngbn7_truth() -> Vec<Matrix> {
    let names: Vec<String> = NGBN7_UNITS.iter().map(|s| (*s).to_string()).collect();
    let column = |name: &str, v: Vec<f64>| {
        let mut m = Matrix::new(name, NGBN7_N_UNITS, 1, v);
        m.row_names = names.clone();
        m
    };
    let mut w = Matrix::new(
        "true_weights",
        NGBN7_N_UNITS,
        NGBN7_N_UNITS,
        NGBN7_WEIGHTS.iter().flatten().copied().collect(),
    );
    w.row_names = names.clone();
    w.col_names = names.clone();
    vec![
        w,
        column(
            "true_layers",
            NGBN7_LAYERS.iter().map(|&l| l as f64).collect(),
        ),
        column("true_precisions", NGBN7_PRECISIONS.to_vec()),
        column("true_biases", NGBN7_BIASES.to_vec()),
        Matrix::scalar("true_n_units", NGBN7_N_UNITS as f64),
        Matrix::scalar("true_n_edges", NGBN7_N_EDGES as f64),
        Matrix::scalar("true_depth", NGBN7_DEPTH as f64),
    ]
}

/// Largest |u| a true activation keeps when mapped back to a = σ⁻¹(u): a root's a has sd 10, and
/// u = tanh(a/2) rounds to ±1 in f64 once |a| exceeds about 37.
const U_MAX: f64 = 1.0 - 1e-12;

/// The true network as a chain's state (`init: truth`): `observed`'s D = 2 observed activations
/// (layer 0 of a chain built on the training data) with the true γ and ν, the 5 hidden units with
/// the true γ and ν and activations a = σ⁻¹(u) of `true_activations` (N × 7, the dataset's
/// matrix of that name; |u| clamped to 1 − 10⁻¹², a = ±28.3, so that a stays finite), and the 10
/// true edges with their weights.
///
/// Errors ([`SamplerError::Input`]): `observed` without 2 observed units, or `true_activations`
/// not N × 7 with N its number of points, or holding a value outside [−1, 1].
pub fn ngbn7_network(
    observed: &Network,
    true_activations: &Matrix,
) -> Result<Network, SamplerError> {
    let n = observed.n();
    let t = true_activations;
    if observed.d() != NGBN7_D || (t.rows, t.cols) != (n, NGBN7_N_UNITS) {
        return Err(SamplerError::Input(format!(
            "init: truth needs ngbn7's {NGBN7_D} observed units and its true activations as \
             {n} × {NGBN7_N_UNITS}, got {} observed units and `{}` {} × {}",
            observed.d(),
            t.name,
            t.rows,
            t.cols
        )));
    }
    if let Some(v) = t.values.iter().find(|v| v.is_nan() || v.abs() > 1.0) {
        return Err(SamplerError::Input(format!(
            "`{}` holds {v}, where a unit's output lies in [−1, 1]",
            t.name
        )));
    }
    let a_obs: Vec<f64> = (0..n)
        .flat_map(|r| (0..NGBN7_D).map(move |j| (r, j)))
        .map(|(r, j)| observed.unit(j).a[r])
        .collect();
    let mut net = Network::observed_only(
        n,
        NGBN7_D,
        &NGBN7_BIASES[..NGBN7_D],
        &NGBN7_PRECISIONS[..NGBN7_D],
        &a_obs,
    )?;
    let mut ids: Vec<usize> = (0..NGBN7_D).collect();
    for i in NGBN7_D..NGBN7_N_UNITS {
        let id = net.add_unit(
            NGBN7_LAYERS[i],
            NGBN7_BIASES[i],
            NGBN7_PRECISIONS[i],
            usize::MAX,
        );
        let a: Vec<f64> = (0..n)
            .map(|r| sigmoid_inv(t.get(r, i).clamp(-U_MAX, U_MAX)))
            .collect();
        net.set_activations(id, &a);
        ids.push(id);
    }
    for (child, row) in NGBN7_WEIGHTS.iter().enumerate() {
        for (parent, &w) in row.iter().enumerate() {
            if w != 0.0 {
                net.add_edge(ids[child], ids[parent], w);
            }
        }
    }
    net.refresh()?;
    Ok(net)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dallaire2014_ngbn7_constants_agree() {
        let edges = NGBN7_WEIGHTS
            .iter()
            .flatten()
            .filter(|w| **w != 0.0)
            .count();
        assert_eq!(edges, NGBN7_N_EDGES);
        // Parents always sit in deeper layers; jumps skip at least one layer.
        let mut jumps = 0;
        for (i, row) in NGBN7_WEIGHTS.iter().enumerate() {
            for (j, w) in row.iter().enumerate() {
                if *w != 0.0 {
                    assert!(NGBN7_LAYERS[j] > NGBN7_LAYERS[i]);
                    jumps += usize::from(NGBN7_LAYERS[j] >= NGBN7_LAYERS[i] + 2);
                }
            }
        }
        assert_eq!(jumps, 4);
        assert_eq!(NGBN7_LAYERS.iter().max().map(|m| m + 1), Some(NGBN7_DEPTH));
        assert!((sigma(1.3) - (2.0 / (1.0 + (-1.3f64).exp()) - 1.0)).abs() < 1e-15);
    }
}
