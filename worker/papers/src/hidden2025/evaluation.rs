//! Evaluation of HiDDeN (`002_d97ecc788b964f97.txt`, §5), polars-free: the baselines of the
//! paper's tables (MLE, Dirichlet-multinomial, scores, Markov-blanket and structure learners).
