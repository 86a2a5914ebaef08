//! Tables and figures of paper 002 (`002_d97ecc788b964f97.txt`, HiDDeN), one file per table.
//! The estimators and baselines themselves are polars-free, in
//! `causeway_papers::hidden2025::evaluation`.
