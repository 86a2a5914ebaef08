#!/usr/bin/env bash
# `causeway export` opened by real ArviZ: a quick LUCAS run (wood2006, 4 chains × 1000
# iterations), exported to Zarr, then tests/arviz/check_export.py compares az.summary with the
# run's convergence table (1e-12). `make test-arviz` makes the venv (ArviZ 0.23.4, zarr) first.
#   CAUSEWAY   the binary (default target/debug/causeway, what `make test` builds)
#   AZ_PYTHON  a Python with arviz and zarr (default target/azvenv/bin/python)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
bin=${CAUSEWAY:-target/debug/causeway}
py=${AZ_PYTHON:-target/azvenv/bin/python}
[[ -x $bin ]] || { echo "test-arviz: no causeway binary at $bin (make test builds it)" >&2; exit 2; }
[[ -x $py ]] || { echo "test-arviz: no Python at $py (make arviz-venv)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/causeway-arviz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$bin" run experiments/wood2006/lucas.yaml --profile quick --local-workers 2 --out "$tmp/run"
"$bin" export "$tmp/run" --out "$tmp/idata"
"$py" tests/arviz/check_export.py "$tmp/run" "$tmp/idata"
