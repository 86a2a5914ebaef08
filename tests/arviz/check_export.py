"""`causeway export` read by real ArviZ: every store of EXPORT_DIR opens with
`xarray.open_datatree(..., engine="zarr")` (the DataTree that ArviZ 1.x works on) and, through
it, `az.InferenceData.from_datatree` (ArviZ 0.2x with zarr-python 3, where `az.from_zarr`
refuses and points to this route), and `az.summary`'s R-hat, bulk ESS and tail ESS of every monitored scalar equal
RUN_DIR/tables/convergence.csv to 1e-12 (relative).

    python tests/arviz/check_export.py RUN_DIR EXPORT_DIR

Exit 0 when every value agrees, 1 otherwise (each disagreement printed).
"""
import csv
import json
import math
import pathlib
import sys
import warnings

import arviz as az
import xarray as xr

TOL = 1e-12


def main(run_dir: str, export_dir: str) -> int:
    run = pathlib.Path(run_dir)
    manifest = json.loads((run / "manifest.json").read_text())
    monitor = manifest["monitor"]
    with open(run / "tables" / "convergence.csv", newline="") as f:
        table = {int(r["cell"]): r for r in csv.DictReader(f)}
    stores = sorted(pathlib.Path(export_dir).glob("cell*-rep*.zarr"))
    if not stores:
        print(f"no cell*-rep*.zarr store in {export_dir}")
        return 1
    bad, compared = 0, 0
    for store in stores:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # xarray: "consolidated metadata" notices
            tree = xr.open_datatree(str(store), engine="zarr", consolidated=False)
            idata = az.InferenceData.from_datatree(tree)
        cell = int(idata.posterior.attrs["cell"])
        groups = set(idata.groups())
        if "posterior" not in groups:
            print(f"{store.name}: no posterior group ({sorted(groups)})")
            bad += 1
            continue
        if tuple(tree["posterior"].ds[monitor[0]].dims) != ("chain", "draw"):
            print(f"{store.name}: DataTree dims {tree['posterior'].ds[monitor[0]].dims}")
            bad += 1
        summary = az.summary(idata, var_names=monitor, kind="diagnostics", round_to="none")
        row = table[cell]
        for var in monitor:
            for ours, theirs in (("rhat", "r_hat"), ("ess_bulk", "ess_bulk"), ("ess_tail", "ess_tail")):
                a = float(row[f"{ours}({var})"])
                b = float(summary.loc[var, theirs])
                compared += 1
                same = (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)
                if not same:
                    print(f"{store.name} {var} {ours}: convergence.csv {a!r}, az.summary {b!r}")
                    bad += 1
        print(f"{store.name}: {len(idata.posterior.chain)} chains x {len(idata.posterior.draw)} draws, "
              f"groups {sorted(groups)}, {len(monitor)} scalars checked")
    print(f"{compared} values compared, {bad} disagreements (tolerance {TOL:g} relative)")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
