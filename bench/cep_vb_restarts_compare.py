#!/usr/bin/env python3
"""Thesis 003 §5.4: VB with 20 restarts (experiments/kurutmaz2019/cep_vb_restarts.yaml) against
VB with 5 (experiments/kurutmaz2019/cep.yaml), job by job and decision by decision.

Reads each run's `units/log_ml.csv` (one row per job: pair, setting, hypothesis, n_latent,
method, seed, log_marginal_likelihood; for VB the best ELBO over the restarts) and, on the
(pair, setting, hypothesis, R) cells both runs have, prints: how often 20 restarts found a
higher ELBO and by how much, and how often the decision per (setting, pair) (the hypothesis
with the highest max-over-R value, as Table 5.2 counts them) changes.

Usage: python3 bench/cep_vb_restarts_compare.py RUN_5_RESTARTS RUN_20_RESTARTS
Standard library only.
"""

import csv
import os
import sys
from collections import defaultdict


def read(run):
    out = {}
    with open(os.path.join(run, "units", "log_ml.csv")) as f:
        for r in csv.DictReader(f):
            if r["method"] == "vb":
                key = (r["pair"], int(r["setting"]), r["hypothesis"], int(r["n_latent"]))
                out[key] = float(r["log_marginal_likelihood"])
    return out


def decisions(values):
    best = defaultdict(lambda: defaultdict(lambda: float("-inf")))
    for (pair, setting, hyp, _), v in values.items():
        best[(setting, pair)][hyp] = max(best[(setting, pair)][hyp], v)
    order = ["a_to_b", "b_to_a", "spurious"]
    return {k: max(order, key=lambda h: (v[h], -order.index(h))) for k, v in best.items()}


def main():
    five, twenty = read(sys.argv[1]), read(sys.argv[2])
    common = sorted(set(five) & set(twenty))
    gains = sorted(twenty[k] - five[k] for k in common)
    n = len(gains)
    print(f"jobs compared: {n}")
    for t in (1e-6, 0.1, 1.0, 10.0):
        print(f"  20 restarts higher by > {t:g} nats: {sum(g > t for g in gains)} ({sum(g > t for g in gains) / n:.3f})")
    print(f"  20 restarts lower by > 1e-6 nats: {sum(g < -1e-6 for g in gains)}")
    print(f"  gain quantiles (nats): 50% {gains[n // 2]:.3g}, 90% {gains[int(0.9 * n)]:.3g}, "
          f"99% {gains[int(0.99 * n)]:.3g}, max {gains[-1]:.3g}")
    d5 = decisions({k: five[k] for k in common})
    d20 = decisions({k: twenty[k] for k in common})
    by_setting = defaultdict(lambda: [0, 0])
    for k in d5:
        by_setting[k[0]][0] += 1
        by_setting[k[0]][1] += d5[k] != d20[k]
    total = sum(v[0] for v in by_setting.values())
    changed = sum(v[1] for v in by_setting.values())
    print(f"decisions (setting, pair): {total}, changed by 20 restarts: {changed}")
    for s in sorted(by_setting):
        print(f"  setting {s}: {by_setting[s][1]} of {by_setting[s][0]} changed")


if __name__ == "__main__":
    main()
