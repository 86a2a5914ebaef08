# Time the authors' Rcpp edge sampler (Algorithms 1 + 2, paper 002 §4.1, eq 13:
# mala_edge_sampler_rcpp) for Lung_Cancer on LUCAS0 (n = 2000, the other 11 columns as
# candidates), to set beside `cargo bench -p causeway-papers --bench hidden2025`
# (`alg2/*/lung_cancer`). Issue 16, "Performance".
#
# The authors' code: https://github.com/adombowsky/HiDDeN_DAG at commit
# 004aa53c57548e1476536db2225a9917bd17ebdf, file rcpp/mala.cpp (compiled here with
# Rcpp::sourceCpp, as their r/mala_edges.R does). It is NOT copied into this project: put it in
# a directory of your own, AUTHORS_DIR, e.g. /tmp/hidden_authors/rcpp/mala.cpp.
#
# Run (Debian: apt-get install -y r-base-core r-cran-rcpparmadillo), from the project root:
#   Rscript bench/hidden2025_authors/edges_lucas.R AUTHORS_DIR [ITERATIONS=300] [DATA=data/lucas/lucas0_train.csv]
#
# Settings: the authors' lucas_blankets.R call for Lung cancer (R = ITERATIONS instead of
# 10,000): step_size = (0.11, 0.15), b = 1, rho = 2, c = d = 1, t_init = (1, 1), set.seed(1),
# z from the prior. Their file calls the column Lung_cancer; data/lucas's copy has Lung_Cancer
# (same data). Their sampler runs R - 1 iterations (r = 1 .. R - 1). Timing: R's system.time()
# around that one call only (compilation by sourceCpp and data loading are outside it); the
# per-iteration figure is CPU time (user + system) / (R - 1), and also elapsed / (R - 1).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: Rscript edges_lucas.R AUTHORS_DIR [ITERATIONS] [DATA]")
authors_dir <- normalizePath(args[1])
R <- if (length(args) >= 2) as.integer(args[2]) else 300L
data_path <- if (length(args) >= 3) args[3] else "data/lucas/lucas0_train.csv"

dat <- read.csv(data_path)
x_j <- dat$Lung_Cancer
X_minus <- as.matrix(dat[, setdiff(colnames(dat), "Lung_Cancer")])

library(Rcpp)
cache <- file.path(authors_dir, ".rcpp_cache") # compiled once, reused by later runs
ct <- system.time(sourceCpp(file.path(authors_dir, "rcpp", "mala.cpp"), cacheDir = cache))
cat(sprintf("sourceCpp: %.1f s elapsed (not counted)\n", ct["elapsed"]))

set.seed(1)
st <- system.time(
  fit <- mala_edge_sampler_rcpp(R = R, x_j = x_j, X_minus = X_minus,
                                b_j = 1, rho_j = 2, c_j = 1, d_j = 1,
                                step_size = c(0.11, 0.15), t_init = rep(1, 2),
                                stops = R + 1L) # never prints
)
iters <- R - 1
cpu <- unname(st["user.self"] + st["sys.self"])
wall <- unname(st["elapsed"])
cat(sprintf("authors Rcpp edge sampler, Lung_Cancer on LUCAS0 (n = %d, %d candidates): %d iterations\n",
            length(x_j), ncol(X_minus), iters))
cat(sprintf("  cpu %.3f s, elapsed %.3f s\n", cpu, wall))
cat(sprintf("  per iteration: cpu %.3f ms, elapsed %.3f ms; %.1f iterations per second (cpu)\n",
            1e3 * cpu / iters, 1e3 * wall / iters, iters / cpu))
cat(sprintf("  mean parent-set size over the run: %.2f\n", mean(rowSums(fit$z[-1, , drop = FALSE]))))
cat("  last z:", paste(colnames(X_minus)[fit$z[R, ] == 1], collapse = ", "), "\n")
