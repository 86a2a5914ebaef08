//! HiDDeN's samplers: Algorithm 1 (MALA-within-Gibbs for t_j), Algorithms 2–4 (structure).
