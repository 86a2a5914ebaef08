//! Exact k-th-nearest-positive-distance queries with a k-d tree, for the k-NN KL estimator of
//! [`super::KnnKl`] (Pérez-Cruz 2008, as used in §5.1 of `004_74db43a26dbf0fa1.txt`).
//!
//! The tree returns exactly what a brute-force scan returns: the k-th smallest **positive**
//! squared Euclidean distance (counted with multiplicity) from a query to the stored points, and
//! the number of stored points at distance exactly 0 (ties). Distances are
//! computed by the one function [`dist2`] in both cases, so the values agree bit for bit.
//!
//! Why pruning is exact: a node splits dimension j at value v, every point of its left child has
//! coordinate ≤ v and every point of its right child ≥ v. Descending, the search keeps for each
//! coordinate an offset o_j ≤ |x_j − p_j| for every point p of the current cell (|x_j − v| when
//! the cell lies across a split from x, 0 otherwise). Rounding is monotone, so
//! fl(o_j)² ≤ fl(x_j − p_j)², and a floating-point sum of non-negative terms taken in the same
//! order is monotone in each term: the computed Σ_j o_j² is at most the computed dist2(x, p). A
//! cell is skipped only when that bound is ≥ the current k-th best, which is > 0: its points can
//! neither lower the k-th best nor be at distance 0.

/// Points per leaf: below this a linear scan is cheaper than splitting.
const LEAF_SIZE: usize = 12;

/// Squared Euclidean distance between two rows of equal length, summed in coordinate order.
#[inline]
pub fn dist2(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b) {
        let t = x - y;
        s += t * t;
    }
    s
}

#[derive(Debug, Clone)]
enum Node {
    /// Points `start..end` of the reordered copy.
    Leaf { start: usize, end: usize },
    /// Split of dimension `dim` at `value`; children are node indices.
    Split {
        dim: usize,
        value: f64,
        left: usize,
        right: usize,
    },
}

/// A k-d tree over n points of dimension d (row-major copy, reordered by the build).
#[derive(Debug, Clone)]
pub struct KdTree {
    d: usize,
    /// The points in tree order, n × d.
    points: Vec<f64>,
    /// Original row index of each point in tree order.
    index: Vec<usize>,
    nodes: Vec<Node>,
}

impl KdTree {
    /// Build over `pts` (n × d, row-major, finite; d ≥ 1). O(n log n) expected.
    pub fn build(pts: &[f64], d: usize) -> Self {
        let n = pts.len().checked_div(d).unwrap_or(0);
        let mut order: Vec<usize> = (0..n).collect();
        let mut nodes = Vec::new();
        if n > 0 {
            build_node(pts, d, &mut order, 0, &mut nodes);
        }
        let mut points = Vec::with_capacity(n * d);
        for &i in &order {
            points.extend_from_slice(&pts[i * d..(i + 1) * d]);
        }
        KdTree {
            d,
            points,
            index: order,
            nodes,
        }
    }

    /// The k-th smallest positive squared distance from `x` (length d) to the stored points,
    /// skipping the point whose original row is `skip`, and the number of points (other than
    /// `skip`) at distance exactly 0. `None` when fewer than k points are at a positive distance.
    /// `k` ≥ 1.
    pub fn kth_positive(&self, x: &[f64], k: usize, skip: Option<usize>) -> (Option<f64>, u64) {
        let mut q = Query {
            best: vec![f64::INFINITY; k.max(1)],
            filled: 0,
            ties: 0,
        };
        if !self.nodes.is_empty() {
            let mut off = vec![0.0; self.d];
            self.search(0, x, skip, &mut q, &mut off);
        }
        let k = q.best.len();
        ((q.filled == k).then_some(q.best[k - 1]), q.ties)
    }

    fn search(&self, node: usize, x: &[f64], skip: Option<usize>, q: &mut Query, off: &mut [f64]) {
        match self.nodes[node] {
            Node::Leaf { start, end } => {
                let d = self.d;
                for p in start..end {
                    if Some(self.index[p]) == skip {
                        continue;
                    }
                    let s = dist2(x, &self.points[p * d..(p + 1) * d]);
                    q.offer(s);
                }
            }
            Node::Split {
                dim,
                value,
                left,
                right,
            } => {
                let diff = x[dim] - value;
                let (near, far) = if diff <= 0.0 {
                    (left, right)
                } else {
                    (right, left)
                };
                self.search(near, x, skip, q, off);
                // The far cell's per-coordinate offsets from x: this split's |x_j − v| on its
                // dimension, the ancestors' on the others. Their squares summed in coordinate
                // order, as in [`dist2`], bound every computed distance into that cell from below.
                let saved = off[dim];
                off[dim] = saved.max(diff.abs());
                let mut lower = 0.0;
                for o in off.iter() {
                    lower += o * o;
                }
                if lower < q.worst() {
                    self.search(far, x, skip, q, off);
                }
                off[dim] = saved;
            }
        }
    }
}

/// The running k smallest positive distances of one query.
struct Query {
    /// Ascending; `best[filled..]` are +∞.
    best: Vec<f64>,
    filled: usize,
    ties: u64,
}

impl Query {
    #[inline]
    fn worst(&self) -> f64 {
        self.best[self.best.len() - 1]
    }

    #[inline]
    fn offer(&mut self, s: f64) {
        if s == 0.0 {
            self.ties += 1;
            return;
        }
        let k = self.best.len();
        if s < self.best[k - 1] {
            let mut pos = k - 1;
            while pos > 0 && self.best[pos - 1] > s {
                self.best[pos] = self.best[pos - 1];
                pos -= 1;
            }
            self.best[pos] = s;
            self.filled = (self.filled + 1).min(k);
        }
    }
}

/// Build the subtree over `order` (original row indices) and return its node index.
fn build_node(
    pts: &[f64],
    d: usize,
    order: &mut [usize],
    offset: usize,
    nodes: &mut Vec<Node>,
) -> usize {
    let id = nodes.len();
    let n = order.len();
    if n <= LEAF_SIZE {
        nodes.push(Node::Leaf {
            start: offset,
            end: offset + n,
        });
        return id;
    }
    // Split the dimension of widest spread at the median.
    let mut dim = 0;
    let mut widest = -1.0;
    for j in 0..d {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &i in order.iter() {
            let v = pts[i * d + j];
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if hi - lo > widest {
            widest = hi - lo;
            dim = j;
        }
    }
    if widest <= 0.0 {
        // All points coincide: one leaf, scanned linearly.
        nodes.push(Node::Leaf {
            start: offset,
            end: offset + n,
        });
        return id;
    }
    let mid = n / 2;
    order.select_nth_unstable_by(mid, |&a, &b| pts[a * d + dim].total_cmp(&pts[b * d + dim]));
    let value = pts[order[mid] * d + dim];
    nodes.push(Node::Leaf { start: 0, end: 0 }); // placeholder, replaced below
    let (lo, hi) = order.split_at_mut(mid);
    let left = build_node(pts, d, lo, offset, nodes);
    let right = build_node(pts, d, hi, offset + mid, nodes);
    nodes[id] = Node::Split {
        dim,
        value,
        left,
        right,
    };
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force by sorting every distance, a different code path from the tree.
    fn brute(
        pts: &[f64],
        d: usize,
        x: &[f64],
        k: usize,
        skip: Option<usize>,
    ) -> (Option<f64>, u64) {
        let mut ds: Vec<f64> = pts
            .chunks_exact(d)
            .enumerate()
            .filter(|(j, _)| Some(*j) != skip)
            .map(|(_, r)| dist2(x, r))
            .collect();
        let ties = ds.iter().filter(|v| **v == 0.0).count() as u64;
        ds.retain(|v| *v > 0.0);
        ds.sort_by(f64::total_cmp);
        (ds.get(k - 1).copied(), ties)
    }

    #[test]
    fn dallaire2014_kl_kdtree_matches_brute_force_with_duplicates() {
        // A lattice with many exact duplicates and equal coordinates (splits on ties).
        let d = 3;
        let mut pts = Vec::new();
        for i in 0..400u64 {
            let h = i.wrapping_mul(2_654_435_761) % 97;
            pts.extend_from_slice(&[(h % 5) as f64, ((h / 5) % 4) as f64 * 0.5, (i % 3) as f64]);
        }
        let tree = KdTree::build(&pts, d);
        for k in [1, 2, 7] {
            for i in (0..400).step_by(7) {
                let x = &pts[i * d..(i + 1) * d];
                assert_eq!(
                    tree.kth_positive(x, k, Some(i)),
                    brute(&pts, d, x, k, Some(i))
                );
                assert_eq!(tree.kth_positive(x, k, None), brute(&pts, d, x, k, None));
            }
        }
        // Every point identical: no positive distance at all.
        let same = vec![1.5; 40 * 2];
        let tree = KdTree::build(&same, 2);
        assert_eq!(tree.kth_positive(&[1.5, 1.5], 1, Some(3)), (None, 39));
    }
}
