#!/usr/bin/env python3
"""Time ArviZ 0.23 on the data of the Rust criterion bench `results/benches/diagnostics.rs`
and print the speed ratio.

Data: 4 chains x 1,000,000 draws of AR(1), rho = 0.9, from the generator documented in
`results/benches/diagnostics.rs` (SplitMix64 counter uniforms -> Box-Muller -> AR(1)).
The Rust bench writes those draws to
`target/diagnostics_bench/ar1_rho0.9_4x1000000.npy`; this script loads that file when it
exists (bit-identical input) and otherwise generates the same draws itself with numpy
(equal up to rounding in the AR(1) recurrence).

Timed, as the Rust bench's `rhat_ess_bulk_ess_tail`: `az.rhat(x)` (rank-normalised split
R-hat), `az.ess(x, method="bulk")` and `az.ess(x, method="tail")` on a (4, 1e6) ndarray,
best of --repeat runs. The Rust median comes from criterion's stored estimates
(`target/criterion/diagnostics_4x1000000/<bench>/new/estimates.json`); run
`cargo bench -p causeway-results --bench diagnostics` first to get the ratio.

Usage:
    target/azvenv/bin/python bench/arviz_bench.py   (make arviz-venv creates it) [--repeat 3] [--npy PATH] [--target DIR]

Exits 0 with a SKIP line when ArviZ is not importable (e.g. not in this interpreter).
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

SEED = 20240523
RHO = 0.9
M, N = 4, 1_000_000
MASK = (1 << 64) - 1


def generate(m=M, n=N):
    """numpy implementation of the documented generator (see the module docstring)."""
    import numpy as np
    from scipy.signal import lfilter

    k = np.arange(2 * m * n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(SEED) + (k + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = ((z >> np.uint64(11)).astype(np.float64) + 0.5) * (1.0 / float(1 << 53))
    e = np.sqrt(-2.0 * np.log(u[0::2])) * np.cos(2.0 * np.pi * u[1::2])
    e = e.reshape(m, n).copy()
    e[:, 0] /= np.sqrt(1.0 - RHO * RHO)
    return lfilter([1.0], [1.0, -RHO], e, axis=1)


def criterion_median_s(target, bench):
    path = Path(target) / "criterion" / "diagnostics_4x1000000" / bench / "new" / "estimates.json"
    try:
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"] * 1e-9, path
    except (OSError, KeyError, ValueError):
        return None, path


def main():
    repo = Path(__file__).resolve().parent.parent
    target_default = os.environ.get("CARGO_TARGET_DIR", str(repo / "target"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--target", default=target_default, help="cargo target dir")
    ap.add_argument("--npy", default=None, help="draws file (default: <target>/diagnostics_bench/...)")
    args = ap.parse_args()

    try:
        import warnings

        warnings.filterwarnings("ignore")
        import numpy as np
        import arviz as az
    except ImportError as exc:
        print(f"SKIP: ArviZ benchmark needs arviz (and numpy/scipy) importable: {exc}")
        print("      e.g. make arviz-venv")
        return 0

    npy = Path(args.npy) if args.npy else Path(args.target) / "diagnostics_bench" / "ar1_rho0.9_4x1000000.npy"
    if npy.exists():
        x = np.load(npy)
        source = f"{npy} (written by the Rust bench)"
    else:
        x = generate()
        source = "generated here (Rust bench's .npy not found)"
    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.shape != (M, N):
        print(f"error: expected draws of shape {(M, N)}, got {x.shape} from {source}", file=sys.stderr)
        return 1

    print(f"ArviZ {az.__version__}, numpy {np.__version__}; data {x.shape} from {source}")
    az.rhat(x[:, :1000])  # import-time / first-call overheads out of the timing
    az.ess(x[:, :1000], method="bulk")

    calls = {
        "rhat": lambda: az.rhat(x),
        "ess_bulk": lambda: az.ess(x, method="bulk"),
        "ess_tail": lambda: az.ess(x, method="tail"),
    }
    best = {}
    values = {}
    for name, fn in calls.items():
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            values[name] = float(fn())
            times.append(time.perf_counter() - t0)
        best[name] = min(times)
        print(f"  ArviZ {name:9s} {best[name]:8.3f} s   (value {values[name]:.10g})")
    total = sum(best.values())
    print(f"  ArviZ rhat+ess_bulk+ess_tail: {total:.3f} s (best of {args.repeat} each)")

    rust, path = criterion_median_s(args.target, "rhat_ess_bulk_ess_tail")
    if rust is None:
        print(f"  Rust time not found at {path}: run `cargo bench -p causeway-results --bench diagnostics` first")
        return 0
    print(f"  Rust  rhat+ess_bulk+ess_tail: {rust:.3f} s (criterion median)")
    print(f"  ratio ArviZ / Rust: {total / rust:.1f}x")
    rust_all, _ = criterion_median_s(args.target, "diagnose_all_six")
    if rust_all is not None:
        print(f"  Rust  diagnose (all six):     {rust_all:.3f} s (criterion median); ratio {total / rust_all:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
