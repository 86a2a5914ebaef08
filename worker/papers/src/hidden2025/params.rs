//! The cell's `params` for HiDDeN: algorithm, hyperparameters (ρ, b, c, d), step sizes.
