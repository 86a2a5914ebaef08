#!/usr/bin/env bash
# Coordinator pace, two builds side by side on one machine, interleaved: CEP-shaped chains
# (bench/scaling/cep_shaped.yaml, paper: 20,520 chains of ~0.2 ms with the CEP grid's result
# shapes) with W = 16, 8, 4, 2 local workers, and 100,000 near-empty chains with 16.
#
#   OLD=/path/to/causeway-before NEW=target/release/causeway OUT=batches-out \
#       bash bench/scaling/batches.sh
#
# Rows (also in $OUT/batches.csv): bin, yaml, profile, workers, rep, wall_s, user_s, sys_s
# (the whole `causeway run`), rc, chains and sampling_s (cost.csv, row `all`).
set -u
OLD=${OLD:?the build to compare against}
NEW=${NEW:-target/release/causeway}
OUT=${OUT:-batches-out}
mkdir -p "$OUT"
res=$OUT/batches.csv
echo "bin,yaml,profile,workers,rep,wall_s,user_s,sys_s,rc,chains,sampling_s" > "$res"
load=$OUT/near_empty_100k.yaml
bash "$(dirname "$0")/near_empty_yaml.sh" near_empty_100k 100000 > "$load"
TIMEFORMAT='%R %U %S'
run() {
  local name=$1 bin=$2 yaml=$3 prof=$4 w=$5 rep=$6
  local d=$OUT/run_${name}_${w}_${rep}
  rm -rf "$d"
  { time "$bin" run "$yaml" --profile "$prof" --local-workers "$w" --out "$d" > "$d.log" 2>&1 ; } 2> "$d.time"
  local rc=$?
  read -r e u s < "$d.time"
  local cs
  cs=$(awk -F, '$1=="all" {print $3 "," $4}' "$d/cost.csv" 2>/dev/null)
  echo "$name,$(basename "$yaml"),$prof,$w,$rep,$e,$u,$s,$rc,$cs" | tee -a "$res"
  rm -rf "$d"
}
for rep in 1 2; do
  run old "$OLD" bench/scaling/cep_shaped.yaml paper 16 $rep
  run new "$NEW" bench/scaling/cep_shaped.yaml paper 16 $rep
done
for w in 8 4 2; do
  run old "$OLD" bench/scaling/cep_shaped.yaml paper $w 1
  run new "$NEW" bench/scaling/cep_shaped.yaml paper $w 1
done
run old "$OLD" "$load" quick 16 1
run new "$NEW" "$load" quick 16 1
