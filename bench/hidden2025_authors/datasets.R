# The authors' simulated datasets of paper 002 (002_d97ecc788b964f97.txt) §5.1 / C.1 (Table 1),
# §5.3 / C.3 (Table 3) and supplement E (Tables 7-8), drawn exactly as their scripts draw them,
# so that causeway can run its samplers and scores on the very data behind the paper's numbers
# (`dataset: {kind: sparse_counts | two_dags | two_parent_sets, authors_seed: S}`).
#
# The authors' code: https://github.com/adombowsky/HiDDeN_DAG at commit
# 004aa53c57548e1476536db2225a9917bd17ebdf: r/parameter_learning_simulation.R (Table 1, called by
# parameter_learning_simulation_study.R with seed = 1..50, n = 100, k_par = 1, 2, 4, 9, i.e.
# K_Pa = k_par + 1 levels), r/power_simulate.R (Table 3, called by
# evaluating_two_dags.R with seed = 1..100, n = 200, k = 4, 24, 99, 199, i.e. k1 = k + 1 levels),
# r/g1_simulations.R and r/g2_simulations.R (called by g1_results.R and g2_results.R with
# seed = 1..100, n = 50, 75, 100, 150). Only their data-drawing lines are restated below, in the
# same order of random draws; nothing of theirs is needed to run this file.
#
# Naming: the paper's supplement E calls G1 the DAG with Pa(x3) = {x2} and G2 the one with
# Pa(x3) = {x1, x2}. The authors' file names are the other way round: g1_simulations.R draws x3
# given (x1, x2), i.e. the paper's G2, and g2_simulations.R draws x3 given x2, the paper's G1.
# The output uses the paper's names.
#
# Run (Debian: apt-get install -y r-base-core; base R only), from the project root:
#   Rscript bench/hidden2025_authors/datasets.R [OUT=data/hidden2025_authors]
# Written with R 4.2.2 (sample()'s default "Rejection" kind, R >= 3.6). Output, one row per
# data row, codes as the authors draw them (x1 in 0..k1-1, x2 in 0..k2-1 or 0/1, x3 in 0/1):
#   sparse_counts.csv     k_pa,seed,x,y
#   two_dags.csv          k1,seed,x1,x2,x3
#   two_parent_sets.csv   g_true,n,seed,x1,x2,x3
# The true probabilities are not written: the tables that use these data need only the data.
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else "data/hidden2025_authors"
dir.create(out, showWarnings = FALSE, recursive = TRUE)
seeds <- 1:100

# Table 1 (r/parameter_learning_simulation.R): P(y = 1 | x = h - 1) = 2/3 for even h, 1/3 for odd.
sparse_counts <- function(seed, n, k_par) {
  cond_probs <- matrix(0, nrow = k_par + 1, ncol = 2)
  for (h in 1:(k_par + 1)) {
    q <- ifelse(h %% 2 == 0, 1 / 3, 2 / 3)
    cond_probs[h, ] <- c(q, 1 - q)
  }
  set.seed(seed)
  x1 <- x2 <- rep(0, n)
  for (i in 1:n) x1[i] <- sample(0:k_par, size = 1, prob = rep(1 / (k_par + 1), k_par + 1))
  for (i in 1:n) x2[i] <- sample(0:1, size = 1, prob = cond_probs[x1[i] + 1, ])
  data.frame(k_pa = k_par + 1, seed = seed, x = x1, y = x2)
}

# Table 3 (r/power_simulate.R): R is reseeded with the same seed before each of the three draws.
two_dags <- function(seed, n, k) {
  set.seed(seed)
  x1 <- sample(0:k, n, TRUE)
  set.seed(seed)
  trt_prbs <- runif(min = .01, max = .99, n = k + 1)
  x2 <- rbinom(n = n, size = 1, prob = trt_prbs[x1 + 1])
  x3 <- rep(0, n)
  set.seed(seed)
  out_prbs <- matrix(rbeta(shape1 = 2, shape2 = 15, n = 2 * (k + 1)), nrow = k + 1, ncol = 2)
  for (i in 1:n) x3[i] <- rbinom(n = 1, size = 1, prob = out_prbs[x1[i] + 1, x2[i] + 1])
  data.frame(k1 = k + 1, seed = seed, x1 = x1, x2 = x2, x3 = x3)
}

# Supplement E, the paper's G2 true (the authors' r/g1_simulations.R): one seed, no reseeding.
parent_sets_g2 <- function(seed, n, k_1 = 4, k_2 = 2) {
  cond_probs <- matrix(0, nrow = k_1 + 1, ncol = k_2 + 1)
  set.seed(seed)
  for (h in 1:(k_1 + 1)) for (i in 1:(k_2 + 1)) cond_probs[h, i] <- runif(n = 1, min = 0, max = 1)
  x1 <- x2 <- x3 <- rep(0, n)
  for (i in 1:n) x1[i] <- sample(0:k_1, size = 1, prob = rep(1 / (k_1 + 1), k_1 + 1))
  for (i in 1:n) x2[i] <- sample(0:k_2, size = 1, prob = rep(1 / (k_2 + 1), k_2 + 1))
  for (i in 1:n) x3[i] <- rbinom(n = 1, size = 1, p = 1 - cond_probs[x1[i] + 1, x2[i] + 1])
  data.frame(g_true = "g2", n = n, seed = seed, x1 = x1, x2 = x2, x3 = x3)
}

# Supplement E, the paper's G1 true (the authors' r/g2_simulations.R): P(x3 = 0 | x2 = h) = q_h.
parent_sets_g1 <- function(seed, n, k_1 = 4, k_2 = 2) {
  cond_probs <- matrix(0, nrow = k_2 + 1, ncol = 2)
  set.seed(seed)
  for (h in 1:(k_2 + 1)) {
    q <- runif(n = 1, min = 0, max = 1)
    cond_probs[h, ] <- c(q, 1 - q)
  }
  x1 <- x2 <- x3 <- rep(0, n)
  for (i in 1:n) x1[i] <- sample(0:k_1, size = 1, prob = rep(1 / (k_1 + 1), k_1 + 1))
  for (i in 1:n) x2[i] <- sample(0:k_2, size = 1, prob = rep(1 / (k_2 + 1), k_2 + 1))
  for (i in 1:n) x3[i] <- sample(0:1, size = 1, prob = cond_probs[x2[i] + 1, ])
  data.frame(g_true = "g1", n = n, seed = seed, x1 = x1, x2 = x2, x3 = x3)
}

write <- function(frames, name) {
  write.csv(do.call(rbind, frames), file.path(out, paste0(name, ".csv")), row.names = FALSE,
            quote = FALSE)
}
write(unlist(lapply(c(1, 2, 4, 9), function(k) lapply(1:50, function(s) sparse_counts(s, 100, k))),
             recursive = FALSE), "sparse_counts")
write(unlist(lapply(c(4, 24, 99, 199), function(k) lapply(seeds, function(s) two_dags(s, 200, k))),
             recursive = FALSE), "two_dags")
sets <- list()
for (n in c(50, 75, 100, 150)) for (s in seeds) {
  sets[[length(sets) + 1]] <- parent_sets_g1(s, n)
  sets[[length(sets) + 1]] <- parent_sets_g2(s, n)
}
write(sets, "two_parent_sets")
cat(sprintf("wrote %s (%s)\n", out, R.version.string))
