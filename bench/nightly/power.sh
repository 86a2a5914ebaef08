#!/usr/bin/env bash
# Power of `causeway check --statistical`: for each case of CASES (an experiment
# and one of its paper's deliberate-bug switches), one correct quick run (chain seed BASE_SEED)
# is the baseline, and SEEDS quick runs with the broken kernel (chain seeds 1..SEEDS, switched on
# by CAUSEWAY_DEFECT) are each checked against it with --statistical --alpha ALPHA. A switch
# should be flagged in at least 19 of 20. A run whose chains fail counts as flagged (the nightly
# treats a failed run as a regression). Resumable: finished runs and checks are kept.
#
# The binary must be a `testing` build (`make power` builds one, target/testing/release/causeway:
# `cargo build --release -p causeway-coordinator --features testing --target-dir target/testing`);
# any other build ignores CAUSEWAY_DEFECT, and the script stops at the first run that says so.
#
# Usage: bash bench/nightly/power.sh [FILTER]   (FILTER: a grep pattern over the case lines)
# Environment: CAUSEWAY (default target/release/causeway), CASES (bench/nightly/power_cases.txt),
# SEEDS (20), ALPHA (0.05), BASE_SEED (1000), OUT (runs/power), CHECK_ARGS.
set -u
CAUSEWAY=${CAUSEWAY:-target/release/causeway}
CASES=${CASES:-bench/nightly/power_cases.txt}
SEEDS=${SEEDS:-20}
ALPHA=${ALPHA:-0.05}
BASE_SEED=${BASE_SEED:-1000}
OUT=${OUT:-runs/power}
CHECK_ARGS=${CHECK_ARGS:-}
FILTER=${1:-.}
mkdir -p "$OUT"
md="$OUT/power.md"
[ -f "$md" ] || {
  echo "| experiment | switch | flagged of $SEEDS | failed runs | regressing cells by table | wall s |"
  echo "|---|---|---|---|---|---|"
} > "$md"
grep -v -E '^\s*(#|$)' "$CASES" | grep -E -- "$FILTER" | while read -r f defect; do
  name=$(echo "${f#experiments/}" | sed 's/\.yaml$//; s#/#_#g')
  base="$OUT/$name/base"
  dir="$OUT/$name/$defect"
  mkdir -p "$dir"
  start=$(date +%s)
  [ -d "$base/tables" ] || env -u CAUSEWAY_DEFECT "$CAUSEWAY" run "$f" --profile quick \
    --chain-seed "$BASE_SEED" --out "$base" > "$base.log" 2>&1 || {
    echo "baseline of $f failed: see $base.log" >&2
    exit 1
  }
  flagged=0
  failed=0
  : > "$dir/regressions.txt"
  for s in $(seq 1 "$SEEDS"); do
    run="$dir/s$s"
    if [ ! -d "$run/tables" ] || [ ! -f "$run.done" ]; then
      CAUSEWAY_DEFECT=$defect "$CAUSEWAY" run "$f" --profile quick --chain-seed "$s" \
        --out "$run" > "$run.log" 2>&1
      echo $? > "$run.done"
      if grep -q "CAUSEWAY_DEFECT=.* is ignored" "$run.log"; then
        echo "$CAUSEWAY is not a testing build: it ignores CAUSEWAY_DEFECT (make power builds one)" >&2
        rm -f "$run.done"
        exit 2
      fi
    fi
    if [ "$(cat "$run.done")" != 0 ]; then
      failed=$((failed + 1))
      flagged=$((flagged + 1))
      continue
    fi
    if ! "$CAUSEWAY" check "$run" --baseline "$base" --statistical --alpha "$ALPHA" $CHECK_ARGS \
      > "$dir/check$s.md" 2>&1; then
      flagged=$((flagged + 1))
      grep -E '^\| [^|]+ \| ' "$dir/check$s.md" | grep -v -E '^\| (table|---)' | cut -d'|' -f2 \
        | sed 's/ //g' >> "$dir/regressions.txt"
    fi
  done
  secs=$(( $(date +%s) - start ))
  by=$(sort "$dir/regressions.txt" | uniq -c | awk '{printf "%s%s: %s", (NR>1?", ":""), $2, $1}')
  row="| $f | $defect | $flagged | $failed | ${by:-none} | $secs |"
  echo "$row"
  echo "$row" >> "$md"
done
echo "power table: $md"
