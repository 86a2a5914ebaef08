#!/usr/bin/env python3
"""Per-chain means of a paper-004 run (e.g. `experiments/dallaire2014/pinwheel_modes.yaml` or
`structure_modes.yaml`), and how many chains reached each mode.

Usage: python3 bench/dallaire2014_chains.py RUN_DIR [BURN_IN] [THRESHOLD]

Reads the run's `chains/shard-*.trace.parquet` (pyarrow), keeps each chain's draws after
BURN_IN (default: the run's own, its profile's `run.burn_in` as `manifest.json` records it),
and prints per chain the mean KL, the mean KL over the last quarter of those draws (a chain
still moving shows there), units (all, observed included, as §5.2 counts them), hidden units
(all less the D observed ones, as §5.1 counts them), edges and depth (layer 0 counted), then
how many chains' mean KL, and how many chains' last-quarter KL, lies below THRESHOLD (default
0.7: at the paper's length the pinwheel's chains sit near 0.35 or near 1.1).
"""
import glob
import json
import os
import sys

import pyarrow.parquet as pq

# Observed units per dataset (worker/papers/src/dallaire2014/datasets.rs).
D_OBSERVED = {"ring": 2, "pinwheel": 2, "geyser": 2, "iris": 4, "abalone": 9, "ngbn7": 2}
COLUMNS = ["kl", "n_units", "n_edges", "depth"]


def run_of(run_dir):
    """The run's burn-in in iterations (one cell; a fraction of the iterations is resolved) and
    its dataset's number of observed units."""
    with open(os.path.join(run_dir, "manifest.json")) as f:
        cell = json.load(f)["cells"][0]
    run = cell["run"]
    b = float(run["burn_in"])
    kind = cell["dataset"].get("kind")
    if kind not in D_OBSERVED:
        sys.exit(f"{run_dir}: dataset {kind!r} is none of {', '.join(D_OBSERVED)}")
    d = D_OBSERVED[kind]
    return (b * run["iterations"] if b < 1 else b), d


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    run_dir = sys.argv[1]
    burn_in, d = run_of(run_dir)
    if len(sys.argv) > 2:
        burn_in = float(sys.argv[2])
    threshold = float(sys.argv[3]) if len(sys.argv) > 3 else 0.7
    rows = {}
    for f in sorted(glob.glob(os.path.join(run_dir, "chains", "shard-*.trace.parquet"))):
        t = pq.read_table(f, columns=["job_id", "iteration"] + COLUMNS).to_pydict()
        for j, it, *x in zip(t["job_id"], t["iteration"], *(t[c] for c in COLUMNS)):
            if it > burn_in and x[0] is not None:
                rows.setdefault(j, []).append(x)
    if not rows:
        sys.exit(f"{run_dir}: no finished chain with draws after iteration {burn_in:g}")
    print(f"{'chain':<22} {'draws':>5} {'KL':>7} {'KL, last 1/4':>12} {'units':>6} "
          f"{'hidden units':>12} {'edges':>7} {'depth':>6}")
    good = good_tail = 0
    for j in sorted(rows):
        r = rows[j]
        n = len(r)
        kl, u, e, depth = (sum(x[i] for x in r) / n for i in range(len(COLUMNS)))
        tail = r[n - max(1, n // 4):]
        kl_tail = sum(x[0] for x in tail) / len(tail)
        good += kl < threshold
        good_tail += kl_tail < threshold
        print(f"{j:<22} {n:>5} {kl:>7.3f} {kl_tail:>12.3f} {u:>6.1f} {u - d:>12.1f} {e:>7.1f} "
              f"{depth:>6.2f}")
    print(f"{good} of {len(rows)} chains below KL {threshold:g} after iteration {burn_in:g}, "
          f"{good_tail} in the last quarter of their draws")


if __name__ == "__main__":
    main()
