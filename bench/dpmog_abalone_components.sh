#!/usr/bin/env bash
# Paper 004, Table 1's DP mixture on abalone: how the KL depends on the number of components
# the mixture ends up with. Runs experiments/dallaire2014/table1_dpmog.yaml on abalone alone
# (paper profile: 5,000 iterations, burn-in 2,500, 4 chains) under six base-measure settings
# (the default; DP concentration ~ Gamma(1, rate 10^6); NIW scale Psi0 = 1, 4, 16 and 64 x I
# instead of 0.25 x I), then prints each run's KL mean ± 2 sd (tables/table1_kl.csv) and the
# mean number of occupied components K+ per chain over the retained iterations.
#
# Usage: bash bench/dpmog_abalone_components.sh [CAUSEWAY] [OUT]
#   CAUSEWAY: default target/release/causeway; OUT: default runs/dpmog_abalone_components.
#   Needs a Python with pyarrow for K+ (PYTHON, default python3). About 3 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
CAUSEWAY=${1:-target/release/causeway}
OUT=${2:-runs/dpmog_abalone_components}
PYTHON=${PYTHON:-python3}
mkdir -p "$OUT"
base=experiments/dallaire2014/table1_dpmog.yaml
default='{kappa0: 0.1, psi0: 0.25, concentration_prior: {shape: 1.0, rate: 1.0}}'
declare -A settings=(
  [default]="$default"
  [alpha_tiny]='{kappa0: 0.1, psi0: 0.25, concentration_prior: {shape: 1.0, rate: 1000000.0}}'
  [psi1]='{kappa0: 0.1, psi0: 1.0, concentration_prior: {shape: 1.0, rate: 1.0}}'
  [psi4]='{kappa0: 0.1, psi0: 4.0, concentration_prior: {shape: 1.0, rate: 1.0}}'
  [psi16]='{kappa0: 0.1, psi0: 16.0, concentration_prior: {shape: 1.0, rate: 1.0}}'
  [psi64]='{kappa0: 0.1, psi0: 64.0, concentration_prior: {shape: 1.0, rate: 1.0}}'
)
for name in default alpha_tiny psi1 psi4 psi16 psi64; do
  y="$OUT/$name.yaml"
  sed -e "s/^name: .*/name: dpmog_abalone_$name/" \
      -e "s/^  dpmog: .*/  dpmog: ${settings[$name]}/" \
      -e 's/^    dataset.kind: .*/    dataset.kind: [abalone]/' "$base" > "$y"
  "$CAUSEWAY" run "$y" --profile paper --data-dir data --out "$OUT/run_$name" > "$OUT/$name.log" 2>&1
done
"$PYTHON" - "$OUT" <<'PY'
import csv, glob, sys
import pyarrow.parquet as pq
out = sys.argv[1]
print("| setting | KL mean ± 2 sd | K+ per chain (mean over retained iterations) |")
print("|---|---|---|")
for name in ["default", "alpha_tiny", "psi1", "psi4", "psi16", "psi64"]:
    row = next(csv.DictReader(open(f"{out}/run_{name}/tables/table1_kl.csv")))
    ks = []
    for f in sorted(glob.glob(f"{out}/run_{name}/chains/*.trace.parquet")):
        t = pq.read_table(f, columns=["iteration", "k_plus"]).to_pandas()
        ks.append(f"{t[t['iteration'] > 2500]['k_plus'].mean():.1f}")
    print(f"| {name} | {float(row['kl_mean']):.3f} ± {float(row['kl_2sd']):.3f} | {', '.join(ks)} |")
PY
