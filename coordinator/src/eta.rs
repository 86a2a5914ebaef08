//! The time left of a run, from what its chains cost so far: each chain still to run is
//! expected to cost what the finished chains of its own cell cost on average, else the mean of
//! all finished chains; the sum is shared among the worker slots. (indicatif's own estimate
//! extrapolates the recent completion rate, which read "eta 1s" for most of a run whose chains
//! differ in cost by cell.)

/// Expected seconds left of a run's unfinished chains.
#[derive(Debug, Clone)]
pub struct CostEstimate {
    /// Per cell: sum of finished chains' seconds and their number.
    done: Vec<(f64, u32)>,
    /// Per cell: chains not finished yet.
    left: Vec<u32>,
    total: (f64, u32),
}

impl CostEstimate {
    /// `cells_left` gives the cell index (< `n_cells`) of every chain still to run.
    pub fn new(n_cells: usize, cells_left: impl IntoIterator<Item = usize>) -> Self {
        let mut left = vec![0u32; n_cells];
        for c in cells_left {
            if let Some(l) = left.get_mut(c) {
                *l += 1;
            }
        }
        CostEstimate {
            done: vec![(0.0, 0); n_cells],
            left,
            total: (0.0, 0),
        }
    }

    /// A chain of `cell` finished after `seconds` of sampling (its worker's timing).
    pub fn finished(&mut self, cell: usize, seconds: f64) {
        if let Some(l) = self.left.get_mut(cell) {
            *l = l.saturating_sub(1);
        }
        if seconds.is_finite() && seconds >= 0.0 {
            if let Some(d) = self.done.get_mut(cell) {
                d.0 += seconds;
                d.1 += 1;
            }
            self.total.0 += seconds;
            self.total.1 += 1;
        }
    }

    /// A chain of `cell` will not run (failed for good).
    pub fn dropped(&mut self, cell: usize) {
        if let Some(l) = self.left.get_mut(cell) {
            *l = l.saturating_sub(1);
        }
    }

    /// Expected seconds left on `slots` worker slots, or `None` before any chain finished.
    pub fn seconds_left(&self, slots: usize) -> Option<f64> {
        if self.total.1 == 0 {
            return None;
        }
        let mean = self.total.0 / self.total.1 as f64;
        let work: f64 = self
            .left
            .iter()
            .zip(&self.done)
            .map(|(&l, &(s, n))| {
                let per = if n > 0 { s / n as f64 } else { mean };
                l as f64 * per
            })
            .sum();
        Some(work / slots.max(1) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_cost_what_their_cell_costs() {
        // Cell 0: cheap (1 s), cell 1: dear (10 s); 4 chains each, 2 slots.
        let mut e = CostEstimate::new(2, [0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!(e.seconds_left(2), None);
        e.finished(0, 1.0);
        // Cell 1 not seen yet: priced at the mean (1 s): (3 + 4) / 2.
        assert_eq!(e.seconds_left(2), Some(3.5));
        e.finished(1, 10.0);
        // 3 × 1 + 3 × 10 = 33 on 2 slots.
        assert_eq!(e.seconds_left(2), Some(16.5));
        e.dropped(1);
        assert_eq!(e.seconds_left(2), Some(11.5));
        for _ in 0..3 {
            e.finished(0, 1.0);
        }
        e.finished(1, 10.0);
        e.finished(1, 10.0);
        assert_eq!(e.seconds_left(1), Some(0.0));
    }
}
