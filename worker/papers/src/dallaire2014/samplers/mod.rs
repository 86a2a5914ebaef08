//! The samplers of paper `004_74db43a26dbf0fa1.txt`.

pub mod dpmog;
pub mod kde;
