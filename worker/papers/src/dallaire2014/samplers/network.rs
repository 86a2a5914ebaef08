//! The state of a belief network (paper `004_74db43a26dbf0fa1.txt` §2, §4): layers of units, each
//! with its bias γ, precision ν, parents (weight W, jump flag) and its N pre-sigmoid activations
//! a — the state variable (never round-trip through u = σ(a), which rounds to ±1) —
//! plus the caches every move reads: u = σ(a), the residual a − y of every unit (so a child's
//! input without one edge is O(1) per datum) and S_uu = Σ_n u_n².
//!
//! Units live in slots (a slot id is stable while the unit exists); `layer(m)` lists the slot ids
//! of layer m in the network's order. Layer 0 is the D observed units, slots 0..D. The order
//! within a layer is uniformly random given the set of units (births insert at a uniform
//! position), which makes the birth/death sweep "visit the unit at each position in turn" a
//! composition of fixed kernels.

use crate::chain::SamplerError;
use crate::dallaire2014::equations::{self as eq, StructureCounts};
use crate::dallaire2014::params::Params;

/// One incoming edge of a unit: Z_ik = 1 with weight W_ik.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Edge {
    /// Slot id of the parent k.
    pub parent: usize,
    /// W_ik.
    pub weight: f64,
    /// True for a jump edge (the parent is at least two layers deeper).
    pub jump: bool,
}

/// One unit: parameters, parents, children and its N activations with their caches.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Unit {
    /// Its layer m (0 = observed).
    pub layer: usize,
    /// γ_i.
    pub gamma: f64,
    /// ν_i (> 0).
    pub nu: f64,
    /// Incoming edges (adjacent and jump).
    pub parents: Vec<Edge>,
    /// Slot ids of its children (adjacent and jump).
    pub children: Vec<usize>,
    /// a_in, N values (the state variable).
    pub a: Vec<f64>,
    /// u_in = σ(a_in) (cache).
    pub u: Vec<f64>,
    /// a_in − y_in (cache, eq 1).
    pub res: Vec<f64>,
    /// S_uu = Σ_n u_in² (cache).
    pub suu: f64,
}

/// Which units [`Network::counts`] leaves out, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exclude<'a> {
    /// Count every unit.
    None,
    /// The flagged units (by slot) keep their columns and their adjacent edges, but their own
    /// jump rows (as customers) are left out: J_old(S′).
    Customers(&'a [bool]),
    /// The flagged units are removed entirely (the state after a death).
    Units(&'a [bool]),
}

/// A layered network of continuous sigmoid units (eqs 1–2) with N data points.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Network {
    n: usize,
    d: usize,
    pub(super) slots: Vec<Option<Unit>>,
    free: Vec<usize>,
    layers: Vec<Vec<usize>>,
}

impl Network {
    /// D observed units (slots 0..D, layer 0) with N activations each and no hidden units.
    /// `gamma`, `nu` have D values; `a` is N × D row-major (pre-sigmoid, finite).
    ///
    /// Errors: wrong lengths or non-finite values ([`SamplerError::Input`]).
    pub fn observed_only(
        n: usize,
        d: usize,
        gamma: &[f64],
        nu: &[f64],
        a: &[f64],
    ) -> Result<Self, SamplerError> {
        if d == 0 || gamma.len() != d || nu.len() != d || a.len() != n * d {
            return Err(SamplerError::Input(format!(
                "observed layer needs d ≥ 1 and {n} × {d} activations, got {} values",
                a.len()
            )));
        }
        if let Some(p) = a.iter().position(|v| !v.is_finite()) {
            return Err(SamplerError::Input(format!(
                "observed activation at row {}, column {} is not finite",
                p / d + 1,
                p % d + 1
            )));
        }
        let mut net = Network {
            n,
            d,
            slots: Vec::with_capacity(d + 16),
            free: Vec::new(),
            layers: vec![Vec::new()],
        };
        for j in 0..d {
            let col: Vec<f64> = (0..n).map(|r| a[r * d + j]).collect();
            let id = net.add_unit(0, gamma[j], nu[j], j);
            net.set_activations(id, &col);
        }
        Ok(net)
    }

    /// N, the number of data points.
    pub fn n(&self) -> usize {
        self.n
    }

    /// D, the number of observed units.
    pub fn d(&self) -> usize {
        self.d
    }

    /// The number of non-empty layers, layer 0 included (the trace's `depth`).
    pub fn depth(&self) -> usize {
        self.layers.len()
    }

    /// Slot ids of layer m in order (empty past the deepest layer).
    pub fn layer(&self, m: usize) -> &[usize] {
        self.layers.get(m).map_or(&[], |l| l.as_slice())
    }

    /// K^(m).
    pub fn layer_size(&self, m: usize) -> usize {
        self.layer(m).len()
    }

    /// The unit in slot `id`. Cannot fail on the network's own ids: every id the network hands
    /// out (its layer lists, edges and children) names a live slot, and a slot is emptied only
    /// by [`Network::remove_unit`], which removes the id from all of them. A caller's stale id is
    /// a bug, and panics.
    pub fn unit(&self, id: usize) -> &Unit {
        self.slots[id].as_ref().expect("live unit slot")
    }

    /// [`Network::unit`], mutable (the same invariant).
    pub(super) fn unit_mut(&mut self, id: usize) -> &mut Unit {
        self.slots[id].as_mut().expect("live unit slot")
    }

    /// The child of an edge, mutable, and its parent: two distinct live slots (an edge never
    /// joins a unit to itself, and both ends are live by the invariant of [`Network::unit`]).
    fn edge_ends(&mut self, child: usize, parent: usize) -> (&mut Unit, &Unit) {
        let [c, p] = self
            .slots
            .get_disjoint_mut([child, parent])
            .expect("an edge joins two distinct slots");
        (
            c.as_mut().expect("live unit slot"),
            p.as_ref().expect("live unit slot"),
        )
    }

    /// Whether slot `id` holds a unit.
    pub fn is_live(&self, id: usize) -> bool {
        self.slots.get(id).is_some_and(|s| s.is_some())
    }

    /// The number of slots (an upper bound of slot ids, for per-slot flags).
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// All unit slot ids in the network's order: layer by layer, then by position.
    pub fn ordered_ids(&self) -> Vec<usize> {
        self.layers.iter().flatten().copied().collect()
    }

    /// The number of units, observed included (the trace's `n_units`).
    pub fn n_units(&self) -> usize {
        self.layers.iter().map(Vec::len).sum()
    }

    /// The number of edges, adjacent and jump (`n_edges`).
    pub fn n_edges(&self) -> usize {
        self.layers
            .iter()
            .flatten()
            .map(|&i| self.unit(i).parents.len())
            .sum()
    }

    /// The number of jump edges (`n_jump_edges`).
    pub fn n_jump_edges(&self) -> usize {
        self.layers
            .iter()
            .flatten()
            .map(|&i| self.unit(i).parents.iter().filter(|e| e.jump).count())
            .sum()
    }

    /// n_k^(m−1,m): the children of unit k in the layer just below it.
    pub fn n_adjacent_children(&self, k: usize) -> usize {
        let u = self.unit(k);
        let below = u.layer.wrapping_sub(1);
        u.children
            .iter()
            .filter(|&&c| self.unit(c).layer == below)
            .count()
    }

    /// c_k^(s,m): the children of unit k in layer s.
    pub fn children_in_layer(&self, k: usize, s: usize) -> usize {
        self.unit(k)
            .children
            .iter()
            .filter(|&&c| self.unit(c).layer == s)
            .count()
    }

    /// The index of the edge k → i in unit i's parents, if any.
    pub fn edge_index(&self, child: usize, parent: usize) -> Option<usize> {
        self.unit(child)
            .parents
            .iter()
            .position(|e| e.parent == parent)
    }

    /// Add a unit to layer `layer` (≤ depth: one past the deepest creates a layer) at position
    /// `pos` (clamped) with zero activations; returns its slot id.
    pub fn add_unit(&mut self, layer: usize, gamma: f64, nu: f64, pos: usize) -> usize {
        let unit = Unit {
            layer,
            gamma,
            nu,
            parents: Vec::new(),
            children: Vec::new(),
            a: vec![0.0; self.n],
            u: vec![0.0; self.n],
            res: vec![-gamma; self.n],
            suu: 0.0,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.slots[id] = Some(unit);
                id
            }
            None => {
                self.slots.push(Some(unit));
                self.slots.len() - 1
            }
        };
        if layer == self.layers.len() {
            self.layers.push(Vec::new());
        }
        let l = &mut self.layers[layer];
        l.insert(pos.min(l.len()), id);
        id
    }

    /// Remove unit `id`, which must have no children, with all its incoming edges; empty
    /// trailing layers are dropped. Returns false (and does nothing) if it still has children or
    /// is an observed unit.
    pub fn remove_unit(&mut self, id: usize) -> bool {
        if id < self.d || !self.unit(id).children.is_empty() {
            return false;
        }
        let Some(unit) = self.slots[id].take() else {
            return false;
        };
        for e in &unit.parents {
            let ch = &mut self.unit_mut(e.parent).children;
            if let Some(p) = ch.iter().position(|&c| c == id) {
                ch.swap_remove(p);
            }
        }
        let l = &mut self.layers[unit.layer];
        if let Some(p) = l.iter().position(|&c| c == id) {
            l.remove(p);
        }
        while self.layers.len() > 1 && self.layers.last().is_some_and(Vec::is_empty) {
            self.layers.pop();
        }
        self.free.push(id);
        true
    }

    /// Add the edge `parent` → `child` with weight `w`, updating the child's residuals.
    pub fn add_edge(&mut self, child: usize, parent: usize, w: f64) {
        let jump = self.unit(parent).layer > self.unit(child).layer + 1;
        self.unit_mut(parent).children.push(child);
        let (c, p) = self.edge_ends(child, parent);
        c.parents.push(Edge {
            parent,
            weight: w,
            jump,
        });
        for (r, u) in c.res.iter_mut().zip(&p.u) {
            *r -= w * u;
        }
    }

    /// Remove the edge at index `idx` of `child`'s parents, updating the child's residuals.
    pub fn remove_edge(&mut self, child: usize, idx: usize) {
        let e = self.unit_mut(child).parents.swap_remove(idx);
        let ch = &mut self.unit_mut(e.parent).children;
        if let Some(p) = ch.iter().position(|&c| c == child) {
            ch.swap_remove(p);
        }
        let (c, p) = self.edge_ends(child, e.parent);
        for (r, u) in c.res.iter_mut().zip(&p.u) {
            *r += e.weight * u;
        }
    }

    /// Set the weight of edge `idx` of `child` to `w`, updating the child's residuals.
    pub fn set_weight(&mut self, child: usize, idx: usize, w: f64) {
        let parent = self.unit(child).parents[idx].parent;
        let (c, p) = self.edge_ends(child, parent);
        let dw = w - c.parents[idx].weight;
        c.parents[idx].weight = w;
        for (r, u) in c.res.iter_mut().zip(&p.u) {
            *r -= dw * u;
        }
    }

    /// Set γ_i, updating the residuals.
    pub fn set_gamma(&mut self, id: usize, gamma: f64) {
        let u = self.unit_mut(id);
        let dg = gamma - u.gamma;
        u.gamma = gamma;
        for r in &mut u.res {
            *r -= dg;
        }
    }

    /// Set ν_i.
    pub fn set_nu(&mut self, id: usize, nu: f64) {
        self.unit_mut(id).nu = nu;
    }

    /// Replace unit `id`'s N activations (pre-sigmoid), updating u, S_uu, its own residuals and
    /// its children's (values past N are ignored).
    pub fn set_activations(&mut self, id: usize, a: &[f64]) {
        self.redraw_activations(id, 0..a.len().min(self.n), |t, _| a[t]);
    }

    /// Set a_in for one datum, updating u, S_uu and the residuals of unit i and its children.
    pub fn set_activation(&mut self, id: usize, n: usize, a: f64) {
        self.redraw_activations(id, n..n + 1, |_, _| a);
    }

    /// W_ck of the edge `parent` → `child`, or 0 if there is none.
    pub fn weight_of(&self, child: usize, parent: usize) -> f64 {
        self.unit(child)
            .parents
            .iter()
            .find(|e| e.parent == parent)
            .map_or(0.0, |e| e.weight)
    }

    /// Set a_in of unit `id` for each datum n of `data` in turn to `next(n, y_in)`, with y_in its
    /// current input (eq 1), updating u = σ(a), S_uu and the residuals of the unit and its
    /// children datum by datum. The children's weights are looked up once, not once per datum.
    /// `next` is called for every datum of `data` in order before any cache changes (y_in does not
    /// depend on the other data). `data` must lie within 0..N.
    pub fn redraw_activations(
        &mut self,
        id: usize,
        data: std::ops::Range<usize>,
        mut next: impl FnMut(usize, f64) -> f64,
    ) {
        let children = std::mem::take(&mut self.unit_mut(id).children);
        let mut kids: Vec<(f64, Vec<f64>)> = children
            .iter()
            .map(|&c| {
                (
                    self.weight_of(c, id),
                    std::mem::take(&mut self.unit_mut(c).res),
                )
            })
            .collect();
        let unit = self.unit_mut(id);
        let mut suu = unit.suu;
        let (a, u, res) = (&mut unit.a, &mut unit.u, &mut unit.res);
        // the new values first (y_in does not change while other data move), then their σ in
        // one vectorized loop, then the caches datum by datum
        let a_all: Vec<f64> = data.clone().map(|t| next(t, a[t] - res[t])).collect();
        let mut u_all = vec![0.0; a_all.len()];
        eq::sigmoid_into(&a_all, &mut u_all);
        for ((t, a_new), u_new) in data.zip(a_all).zip(u_all) {
            let du = u_new - u[t];
            res[t] += a_new - a[t];
            suu += u_new * u_new - u[t] * u[t];
            a[t] = a_new;
            u[t] = u_new;
            if du != 0.0 {
                for (w, r) in kids.iter_mut() {
                    r[t] -= *w * du;
                }
            }
        }
        unit.suu = suu;
        for (&c, (_, r)) in children.iter().zip(kids) {
            self.unit_mut(c).res = r;
        }
        self.unit_mut(id).children = children;
    }

    /// Recompute the sums (S_uu, residuals) from a, u, W, γ, so rounding never accumulates. The
    /// outputs u are not recomputed: every writer ([`Network::redraw_activations`], which the
    /// other setters call, and the MTM) stores u = σ(a) itself, bit for bit the value σ(a) would
    /// give again.
    ///
    /// Errors: a non-finite activation, weight, bias or precision, or ν ≤ 0
    /// ([`SamplerError::Numerical`], naming the unit and layer).
    pub fn refresh(&mut self) -> Result<(), SamplerError> {
        let ids = self.ordered_ids();
        for &i in &ids {
            let u = self.unit_mut(i);
            let bad = !(u.gamma.is_finite() && u.nu.is_finite() && u.nu > 0.0)
                || u.a.iter().any(|v| !v.is_finite())
                || u.parents.iter().any(|e| !e.weight.is_finite());
            if bad {
                return Err(SamplerError::Numerical(format!(
                    "unit in slot {i} (layer {}) has a non-finite activation, weight, bias or precision (γ = {}, ν = {})",
                    u.layer, u.gamma, u.nu
                )));
            }
            // u needs no recomputing: every writer stores u = σ(a) exactly (bit for bit)
            u.suu = u.u.iter().map(|x| x * x).fold(0.0, |s, x| s + x);
        }
        for &i in &ids {
            let mut res = std::mem::take(&mut self.unit_mut(i).res);
            let u = self.unit(i);
            for (r, a) in res.iter_mut().zip(&u.a) {
                *r = a - u.gamma;
            }
            for e in &u.parents {
                let pu = &self.unit(e.parent).u;
                for (r, x) in res.iter_mut().zip(pu) {
                    *r -= e.weight * x;
                }
            }
            self.unit_mut(i).res = res;
        }
        Ok(())
    }

    /// The counts of the structure log prior ([`eq::StructureCounts`]), leaving units out as
    /// `exclude` says.
    pub fn counts(&self, exclude: Exclude<'_>) -> StructureCounts {
        let (gone, not_customer): (&dyn Fn(usize) -> bool, &dyn Fn(usize) -> bool) = match exclude {
            Exclude::None => (&|_| false, &|_| false),
            Exclude::Customers(f) => (&|_| false, &move |i| f.get(i).copied().unwrap_or(false)),
            Exclude::Units(f) => (&move |i| f.get(i).copied().unwrap_or(false), &move |i| {
                f.get(i).copied().unwrap_or(false)
            }),
        };
        let layers: Vec<Vec<usize>> = self
            .layers
            .iter()
            .map(|l| l.iter().copied().filter(|&i| !gone(i)).collect::<Vec<_>>())
            .take_while(|l: &Vec<usize>| !l.is_empty())
            .collect();
        let depth = layers.len();
        let layer_sizes: Vec<usize> = layers.iter().map(Vec::len).collect();
        let jump_customers: Vec<usize> = layers
            .iter()
            .map(|l| l.iter().filter(|&&i| !not_customer(i)).count())
            .collect();
        let mut adjacent = vec![Vec::new(); depth];
        let mut jumps = vec![Vec::new(); depth];
        for t in 1..depth {
            for &k in &layers[t] {
                let mut nk = 0;
                let mut cols = vec![0usize; t.saturating_sub(1)];
                for &c in &self.unit(k).children {
                    let cl = self.unit(c).layer;
                    if cl + 1 == t {
                        if !gone(c) {
                            nk += 1;
                        }
                    } else if !not_customer(c) {
                        cols[cl] += 1;
                    }
                }
                adjacent[t].push(nk);
                if t >= 2 {
                    jumps[t].push(cols);
                }
            }
        }
        StructureCounts {
            layer_sizes,
            adjacent,
            jump_customers,
            jumps,
        }
    }

    /// ln p(a | structure, W, γ, ν): Σ over units and data of ln N(a_in; y_in, 1/ν_i) (eq 2 in
    /// a; the observed layer's Jacobian to data units is a constant and left out).
    pub fn ln_likelihood(&self) -> f64 {
        self.layers
            .iter()
            .flatten()
            .map(|&i| {
                let u = self.unit(i);
                let ss: f64 = u.res.iter().map(|r| r * r).sum();
                self.n as f64 * eq::ln_unit_density(0.0, 0.0, u.nu) - 0.5 * u.nu * ss
            })
            .sum()
    }

    /// ln p(W, γ, ν): the parameter priors of every edge and unit (§3.4).
    pub fn ln_parameter_prior(&self, p: &Params) -> f64 {
        let (w, g, v) = (p.weight_prior, p.bias_prior, p.precision_prior);
        self.layers
            .iter()
            .flatten()
            .map(|&i| {
                let u = self.unit(i);
                eq::ln_gaussian(u.gamma, g.mean, g.precision)
                    + eq::ln_gamma_density(u.nu, v.shape, v.rate)
                    + u.parents
                        .iter()
                        .map(|e| eq::ln_gaussian(e.weight, w.mean, w.precision))
                        .sum::<f64>()
            })
            .sum()
    }

    /// The structure log prior ([`eq::ln_structure_prior`]) under `p`.
    pub fn ln_structure_prior(&self, p: &Params) -> f64 {
        eq::ln_structure_prior(
            &self.counts(Exclude::None),
            p.alpha,
            p.beta,
            p.beta_prime,
            p.has_jumps(),
        )
    }

    /// `log_joint`: structure log prior + parameter priors + ln p(a | ·) of every unit.
    pub fn log_joint(&self, p: &Params) -> f64 {
        self.ln_structure_prior(p) + self.ln_parameter_prior(p) + self.ln_likelihood()
    }

    /// Rows (layer, γ, ν) of every unit and rows (child index, parent index, W, is_jump) of every
    /// edge, with unit indices in [`Network::ordered_ids`] order (observed units 0..D first).
    pub fn summary_rows(&self) -> (Vec<f64>, Vec<f64>) {
        let ids = self.ordered_ids();
        let mut index = vec![usize::MAX; self.slots.len()];
        for (j, &i) in ids.iter().enumerate() {
            index[i] = j;
        }
        let mut units = Vec::with_capacity(3 * ids.len());
        let mut edges = Vec::new();
        for &i in &ids {
            let u = self.unit(i);
            units.extend([u.layer as f64, u.gamma, u.nu]);
            for e in &u.parents {
                edges.extend([
                    index[i] as f64,
                    index[e.parent] as f64,
                    e.weight,
                    f64::from(u8::from(e.jump)),
                ]);
            }
        }
        (units, edges)
    }

    /// The network of a chain's summary, as [`Network::summary_rows`] writes it: `units` rows
    /// `(layer, gamma, nu)` in the network's order (the `d` observed units first), `edges` rows
    /// `(child, parent, weight, is_jump)` indexing those rows. The units carry no activations
    /// (N = 0): enough to draw new data from it ([`super::forward::sample_observed_outputs`]),
    /// which then gives the draws the original network would give from the same stream.
    ///
    /// Errors ([`SamplerError::Input`]): row lengths not multiples of 3 and 4, fewer than `d`
    /// units, an observed row off layer 0 or a hidden one on it, a layer more than one past the
    /// deepest so far, an edge naming a unit that does not exist or not from a deeper layer,
    /// non-finite values.
    pub fn from_summary_rows(d: usize, units: &[f64], edges: &[f64]) -> Result<Self, SamplerError> {
        let bad = |m: String| Err(SamplerError::Input(m));
        if !units.len().is_multiple_of(3) || !edges.len().is_multiple_of(4) || units.len() / 3 < d {
            return bad(format!(
                "a network summary needs rows of 3 (units) and 4 (edges) values and at least {d} units, got {} and {} values",
                units.len(),
                edges.len()
            ));
        }
        if units.iter().chain(edges).any(|v| !v.is_finite()) {
            return bad("a network summary holds a non-finite value".into());
        }
        let rows: Vec<&[f64]> = units.chunks_exact(3).collect();
        let gamma: Vec<f64> = rows[..d].iter().map(|r| r[1]).collect();
        let nu: Vec<f64> = rows[..d].iter().map(|r| r[2]).collect();
        if let Some(j) = (0..d).find(|&j| rows[j][0] != 0.0) {
            return bad(format!("summary unit {j} is observed but not on layer 0"));
        }
        let mut net = Network::observed_only(0, d, &gamma, &nu, &[])?;
        let mut ids: Vec<usize> = (0..d).collect();
        for (j, r) in rows.iter().enumerate().skip(d) {
            let layer = r[0] as usize;
            if r[0] < 1.0 || r[0].fract() != 0.0 || layer > net.layers.len() {
                return bad(format!(
                    "summary unit {j} is on layer {}, where a hidden unit needs a layer from 1 to {}",
                    r[0],
                    net.layers.len()
                ));
            }
            ids.push(net.add_unit(layer, r[1], r[2], usize::MAX));
        }
        for (k, e) in edges.chunks_exact(4).enumerate() {
            let (c, p) = (e[0] as usize, e[1] as usize);
            if e[0] < 0.0 || e[1] < 0.0 || c >= ids.len() || p >= ids.len() {
                return bad(format!("summary edge {k} names a unit that does not exist"));
            }
            if net.unit(ids[p]).layer <= net.unit(ids[c]).layer {
                return bad(format!(
                    "summary edge {k} does not come from a deeper layer"
                ));
            }
            net.add_edge(ids[c], ids[p], e[2]);
        }
        Ok(net)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Network {
        let mut net = Network::observed_only(
            3,
            2,
            &[0.1, -0.2],
            &[2.0, 3.0],
            &[0.5, -1.0, 0.2, 0.3, 1.5, -0.4],
        )
        .unwrap();
        let h = net.add_unit(1, 0.3, 1.5, 0);
        net.set_activations(h, &[0.7, -0.2, 1.1]);
        net.add_edge(0, h, 0.8);
        net.add_edge(1, h, -0.5);
        let r = net.add_unit(2, -0.1, 0.9, 0);
        net.set_activations(r, &[0.2, 0.4, -0.6]);
        net.add_edge(h, r, 1.2);
        net.add_edge(0, r, 0.3);
        net
    }

    #[test]
    fn incremental_caches_match_refresh() {
        let mut net = small();
        net.set_activation(3, 1, -2.0);
        net.set_weight(0, 0, 0.4);
        net.set_gamma(2, 0.9);
        let idx = net.edge_index(0, 3).unwrap();
        net.remove_edge(0, idx);
        net.add_edge(1, 3, -0.7);
        let before = net.clone();
        net.refresh().unwrap();
        for i in net.ordered_ids() {
            for (x, y) in net.unit(i).res.iter().zip(&before.unit(i).res) {
                assert!((x - y).abs() < 1e-12);
            }
            assert!((net.unit(i).suu - before.unit(i).suu).abs() < 1e-12);
        }
        assert_eq!(net.n_units(), 4);
        assert_eq!(net.n_edges(), 4);
        assert_eq!(net.n_jump_edges(), 1);
        assert_eq!(net.depth(), 3);
    }

    #[test]
    fn counts_and_removal() {
        let mut net = small();
        let c = net.counts(Exclude::None);
        assert_eq!(c.layer_sizes, vec![2, 1, 1]);
        assert_eq!(c.adjacent[1], vec![2]);
        assert_eq!(c.adjacent[2], vec![1]);
        assert_eq!(c.jumps[2], vec![vec![1]]);
        let mut flags = vec![false; net.slot_count()];
        flags[3] = true;
        let c = net.counts(Exclude::Units(&flags));
        assert_eq!(c.layer_sizes, vec![2, 1]);
        assert!(!net.remove_unit(3));
        let idx = net.edge_index(2, 3).unwrap();
        net.remove_edge(2, idx);
        let idx = net.edge_index(0, 3).unwrap();
        net.remove_edge(0, idx);
        assert!(net.remove_unit(3));
        assert_eq!(net.depth(), 2);
    }
}
