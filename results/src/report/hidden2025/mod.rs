//! Tables and figures of paper 002 (`002_d97ecc788b964f97.txt`, HiDDeN), one file per table.
//! The estimators and baselines themselves are polars-free, in
//! `causeway_papers::hidden2025::evaluation`.

mod table1;
pub use table1::table1;
mod lucas_edges;
mod lucas_mcmc;
mod table2;
pub use table2::table2;
mod table3;
pub use table3::table3;
mod table7;
pub use table7::table7;
mod alarm;
pub use alarm::alarm;
mod metabric;
pub use metabric::metabric;
mod metabric_dags;
mod metabric_edges;
mod mmle;
pub use mmle::mmle;
