//! The DP mixture of Gaussians baseline of Table 1.
