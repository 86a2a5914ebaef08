//! Tables and figures of paper 000 (`000_64a353240e4f1919.txt`, Wood, Griffiths & Ghahramani
//! 2006), one file per report kind: Figure 3 (recovering K, [`fig3`]), Figure 4 (recovering
//! structure, [`fig4`]), and the §6 analogue on LUCAS (Figures 5 and 6, [`lucas`]). The error
//! measures themselves are polars-free, in `causeway_papers::wood2006::evaluation`.

mod fig3;
mod fig4;
mod lucas;

pub use fig3::fig3;
pub use fig4::fig4;
pub use lucas::lucas;

use crate::report::json_text;
use crate::rundir::Manifest;

pub(super) fn sampler_of(m: &Manifest, cell: usize) -> String {
    m.cells[cell]
        .param("sampler")
        .map(json_text)
        .unwrap_or_else(|| "gibbs".into())
}

pub(super) fn structure_label(m: &Manifest, cell: usize) -> String {
    m.cells[cell]
        .dataset
        .get("label")
        .map(json_text)
        .unwrap_or_else(|| format!("structure of cell {cell}"))
}
