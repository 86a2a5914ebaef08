//! The data and the (outcome, ρ) fits that every METABRIC table reads ([`super::metabric`]).

use causeway_papers::hidden2025::datasets::DiscreteData;

use super::table2::{NodeFit, first_dataset, load_fit, rho_of};
use crate::report::{ReportError, json_text};
use crate::rundir::{CellRecord, Manifest, RunDir};

/// Everything the METABRIC tables share.
pub(super) struct MetabricFits {
    pub data: DiscreteData,
    /// Outcomes in grid order.
    pub outcomes: Vec<String>,
    /// ρ values in grid order.
    pub rhos: Vec<String>,
    /// One per (outcome, ρ) with a cell, outcomes outer.
    pub fits: Vec<NodeFit>,
}

impl MetabricFits {
    /// Names of `cols` in column order, joined by `;` (empty for none).
    pub fn names(&self, cols: &[usize]) -> String {
        let mut c = cols.to_vec();
        c.sort_unstable();
        c.iter()
            .map(|&j| self.data.names[j].as_str())
            .collect::<Vec<_>>()
            .join(";")
    }

    /// Column index of `name`.
    pub fn column(&self, name: &str) -> Result<usize, ReportError> {
        self.data
            .index(name)
            .ok_or_else(|| other(format!("{name} is not a column")))
    }
}

pub(super) fn other(e: impl std::fmt::Display) -> ReportError {
    ReportError::Other(format!("hidden2025.metabric: {e}"))
}

fn text(c: &CellRecord, key: &str) -> String {
    c.param(key).map(json_text).unwrap_or_default()
}

/// Load the data and every (outcome, ρ) fit.
pub(super) fn load(rd: &RunDir, m: &Manifest) -> Result<MetabricFits, ReportError> {
    let (_, data) = first_dataset(rd, m, &|e| other(e))?;
    let (mut outcomes, mut rhos) = (Vec::new(), Vec::new());
    for c in m.cells.iter() {
        let n = text(c, "node");
        if !outcomes.contains(&n) {
            outcomes.push(n);
        }
        let r = rho_of(c);
        if !rhos.contains(&r) {
            rhos.push(r);
        }
    }
    let mut fits = Vec::new();
    for o in &outcomes {
        for r in &rhos {
            fits.extend(load_fit(rd, m, &data, o, r, &|e| other(e))?);
        }
    }
    Ok(MetabricFits {
        data,
        outcomes,
        rhos,
        fits,
    })
}
