# Time the authors' plain-R Algorithm 1 (MALA-within-Gibbs, paper 002 §3 / supplement B) on one
# Table 1 dataset (§5.1: n = 100, K_Pa = 10, eps = (0.5, 0.5), b = 1, rho = 2), to set beside
# `cargo bench -p causeway-papers --bench hidden2025` (`alg1/*/k_pa10`). Issue 16, "Performance".
#
# The authors' code: https://github.com/adombowsky/HiDDeN_DAG at commit
# 004aa53c57548e1476536db2225a9917bd17ebdf, files r/mala_within_gibbs.R and r/mala.R (which it
# sources). Those files are NOT copied into this project: put them (with their r/ folder) in a
# directory of your own, AUTHORS_DIR, e.g. /tmp/hidden_authors/r/mala.R and
# /tmp/hidden_authors/r/mala_within_gibbs.R.
#
# Run (Debian: apt-get install -y r-base-core):
#   Rscript bench/hidden2025_authors/alg1_table1.R AUTHORS_DIR [ITERATIONS=10000] [SEED=1]
#
# Data: generated exactly as the authors' r/parameter_learning_simulation.R does for one seed
# (k_par = 9, i.e. K_Pa = 10 levels 0..9, parent uniform, P(child = 1 | level h) = 2/3 for even
# h, 1/3 for odd h, h = 1..10); then their mala_within_gibbs_sampler(R = ITERATIONS, ...) with
# step_size = (0.5, 0.5), b = 1, rho = 2, k = 1, as that script calls it. Their sampler runs
# R - 1 iterations (for r in 2:R). Timing: R's system.time() around that one call only (no R
# start-up, no data generation, no classifier post-processing); the per-iteration figure is
# CPU time (user + system) / (R - 1), and also elapsed / (R - 1).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: Rscript alg1_table1.R AUTHORS_DIR [ITERATIONS] [SEED]")
authors_dir <- args[1]
R <- if (length(args) >= 2) as.integer(args[2]) else 10000L
seed <- if (length(args) >= 3) as.integer(args[3]) else 1L

setwd(authors_dir) # their files source each other by relative path ("r/mala.R")
source("r/mala_within_gibbs.R")

# Data: the authors' generator (r/parameter_learning_simulation.R), k_par = 9, n = 100.
n <- 100
k_par <- 9
par_grid <- expand.grid(list(0:k_par))
par_child_grid <- expand.grid(list(0:1, 0:k_par))
par_probs <- rep(1 / (k_par + 1), (k_par + 1))
cond_probs <- matrix(0, nrow = k_par + 1, ncol = 2)
for (h in 1:(k_par + 1)) {
  q <- ifelse(h %% 2 == 0, 1 / 3, 2 / 3)
  cond_probs[h, ] <- c(q, 1 - q)
}
set.seed(seed)
x1 <- x2 <- rep(0, n)
for (i in 1:n) x1[i] <- sample(0:k_par, size = 1, prob = par_probs)
for (i in 1:n) x2[i] <- sample(0:1, size = 1, prob = cond_probs[x1[i] + 1, ])
mct <- as.matrix(table(x1))
ct <- as.matrix(as.vector(table(x2, x1)))
if (nrow(mct) != k_par + 1) stop("a parent level is empty in this dataset; pick another SEED")

st <- system.time(
  fit <- mala_within_gibbs_sampler(R = R, ct = ct, mct = mct,
                                   par_grid = par_grid, par_child_grid = par_child_grid,
                                   b = 1, rho = 2, k = 1, step_size = 0.5 * rep(1, 2))
)
iters <- R - 1
cpu <- unname(st["user.self"] + st["sys.self"])
wall <- unname(st["elapsed"])
cat(sprintf("authors plain-R Algorithm 1, K_Pa = 10, n = 100, seed %d: %d iterations\n", seed, iters))
cat(sprintf("  cpu %.3f s, elapsed %.3f s\n", cpu, wall))
cat(sprintf("  per iteration: cpu %.0f ns, elapsed %.0f ns\n", 1e9 * cpu / iters, 1e9 * wall / iters))
cat(sprintf("  acceptance (t_1, t_2): %.3f %.3f\n",
            mean(fit$t_accept[-1, 1]), mean(fit$t_accept[-1, 2])))
