#!/usr/bin/env python3
"""Convergence of a convergence-driven run (`--profile until`) at each length it reached: for
every cell and every length L = the first round's iterations, doubled up to the cell's stored
length, the monitored scalars' R-hat and bulk ESS over the last half of each chain's first L
iterations (as the run judged them: `causeway diagnose` on those draws), and each chain's mean of
every monitored scalar.

Usage: python3 bench/until_lengths.py RUN_DIR CAUSEWAY

Reads `manifest.json` (cells, monitored scalars, the `until` record) and the run's
`chains/shard-*.trace.parquet` (pyarrow); writes the draws it diagnoses to a temporary folder.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import pyarrow.parquet as pq


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    run_dir, causeway = sys.argv[1], sys.argv[2]
    with open(os.path.join(run_dir, "manifest.json")) as f:
        m = json.load(f)
    if "until" not in m:
        sys.exit(f"{run_dir}: not a convergence-driven run (no `until` record)")
    monitor = m["monitor"]
    first = m["cells"][0]["run"]["iterations"]
    rows = {}
    for f in sorted(glob.glob(os.path.join(run_dir, "chains", "shard-*.trace.parquet"))):
        t = pq.read_table(f, columns=["job_id", "iteration"] + monitor).to_pydict()
        for j, it, *x in zip(t["job_id"], t["iteration"], *(t[c] for c in monitor)):
            rows.setdefault(j, []).append((it, x))
    tmp = tempfile.mkdtemp()
    for cell in m["cells"]:
        c = cell["index"]
        jobs = sorted(j for j in rows if j.startswith(f"cell{c}-"))
        if not jobs:
            continue
        stored = min(max(it for it, _ in rows[j]) for j in jobs)
        label = ", ".join(f"{k}={v}" for k, v in sorted(cell.get("axes", {}).items()))
        print(f"== cell {c} ({label or cell['dataset'].get('kind', '')}), {len(jobs)} chains")
        length = first
        while length <= stored:
            path = os.path.join(tmp, f"cell{c}_{length}.csv")
            means = []
            with open(path, "w") as out:
                out.write("chain,draw," + ",".join(monitor) + "\n")
                for k, j in enumerate(jobs):
                    kept = [x for it, x in rows[j] if length // 2 < it <= length and None not in x]
                    for d, x in enumerate(kept):
                        out.write(f"{k},{d}," + ",".join(repr(v) for v in x) + "\n")
                    means.append([sum(col) / len(kept) for col in zip(*kept)] if kept else [])
            diag = json.loads(subprocess.run([causeway, "diagnose", path], check=True,
                                             capture_output=True, text=True).stdout)
            worst = max(monitor, key=lambda v: diag[v]["rhat"])
            print(f"  {length:>9} iterations: worst R-hat {diag[worst]['rhat']:.3f} ({worst}), "
                  f"bulk ESS " + ", ".join(f"{v} {diag[v]['ess_bulk']:.0f}" for v in monitor))
            for v_i, v in enumerate(monitor):
                print(f"    {v:<10} per chain: " +
                      ", ".join(f"{mu[v_i]:.3f}" for mu in means if mu))
            length *= 2


if __name__ == "__main__":
    main()
