# The tables of bench/hidden2025_authors/baselines.R's output beside paper 002's values
# (002_d97ecc788b964f97.txt: Table 1, Table 2, Figure 5), written to OUT_DIR/summary.md.
#   Rscript bench/hidden2025_authors/baselines_summary.R OUT_DIR
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: Rscript baselines_summary.R OUT_DIR")
dir <- args[1]
lines <- c()
out <- function(...) lines <<- c(lines, sprintf(...))
f3 <- function(x) sub("^0\\.", ".", sprintf("%.3f", x))

## Table 1
t1 <- read.csv(file.path(dir, "table1_logit.csv"))
paper <- data.frame(
  k_pa = c(2, 3, 5, 10),
  mle = c(".06 (.034)", ".074 (.045)", ".106 (.036)", ".16 (.036)"),
  bayes = c(".06 (.034)", ".074 (.045)", ".109 (.037)", ".169 (.037)"),
  gam = c(".06 (.034)", ".074 (.045)", ".106 (.036)", ".16 (.036)")
)
out("Table 1 on the authors' 50 datasets per K_Pa: mean (sd) RMSE over datasets")
out("")
out("| K_Pa | logit MLE | logit Bayes | logit GAM | paper logit MLE | paper logit Bayes | paper logit GAM |")
out("|---|---|---|---|---|---|---|")
for (k in sort(unique(t1$k_pa))) {
  d <- t1[t1$k_pa == k, ]
  p <- paper[paper$k_pa == k, ]
  cell <- function(x) sprintf("%s (%s)", f3(mean(x)), f3(sd(x)))
  out("| %d | %s | %s | %s | %s | %s | %s |", k, cell(d$logit_mle), cell(d$logit_bayes),
      cell(d$logit_gam), p$mle, p$bayes, p$gam)
}

## Table 2
t2 <- read.csv(file.path(dir, "table2_group_lasso.csv"))
paper2 <- c(Smoking = 1, Genetics = 2, Fatigue = 0, Coughing = 0, Allergy = 0, Lung_Cancer = 4)
for (proc in c("described", "scripted")) {
for (rule in c("lambda.1se", "lambda.min")) {
  d <- t2[t2$rule == rule & t2$procedure == proc, ]
  n <- length(unique(d$fold_seed))
  out("")
  out("Table 2, group lasso %s, at %s, over %d fold seeds: share of seeds at each Hamming distance", proc, rule, n)
  out("")
  out("| variable | 0 | 1 | 2 | 3 | 4 | ≥ 5 | mean | paper | share of seeds at the paper's |")
  out("|---|---|---|---|---|---|---|---|---|---|")
  for (v in names(paper2)) {
    h <- d$hamming[d$variable == v]
    share <- function(x) sprintf("%.2f", mean(x))
    out("| %s | %s | %s | %s | %s | %s | %s | %.2f | %d | %s |", v, share(h == 0), share(h == 1),
        share(h == 2), share(h == 3), share(h == 4), share(h >= 5), mean(h), paper2[[v]],
        share(h == paper2[[v]]))
  }
  total <- tapply(d$hamming, d$fold_seed, sum)
  all_six <- tapply(seq_len(nrow(d)), d$fold_seed, function(i) all(d$hamming[i] == paper2[d$variable[i]]))
  out("| total | | | | | | | %.2f (%d–%d) | 7 | %s; all six the paper's: %s |", mean(total), min(total),
      max(total), sprintf("%.2f", mean(total == 7)), sprintf("%.2f", mean(all_six)))
}
}

## Figure 5
f5 <- read.csv(file.path(dir, "figure5_group_lasso.csv"))
out("")
out("Figure 5 (middle), METABRIC group lasso: parents chosen over fold seeds")
out("")
out("| outcome | rule | candidates | mean parents | share choosing all | most frequent parent set (share) |")
out("|---|---|---|---|---|---|")
for (v in unique(f5$outcome)) {
  for (rule in c("lambda.1se", "lambda.min")) {
    d <- f5[f5$outcome == v & f5$rule == rule, ]
    top <- sort(table(d$parents), decreasing = TRUE)[1]
    out("| %s | %s | %d | %.2f | %.2f | %s (%.2f) |", v, rule, d$n_candidates[1],
        mean(d$n_parents), mean(d$n_parents == d$n_candidates), names(top), top / nrow(d))
  }
}
writeLines(lines, file.path(dir, "summary.md"))
cat(lines, sep = "\n")
