#!/usr/bin/env bash
# False-alarm rate of `causeway check --statistical`: for each experiment, PAIRS
# pairs of quick-profile runs that differ only in --chain-seed (pair i: seeds 2i-1 and 2i, so the
# pairs are independent), each pair checked with --statistical --alpha ALPHA. Under a correct
# check at most ~ALPHA·PAIRS pairs fail (at 0.05 and 20 pairs: P(X > 3) = 0.016). Prints one
# Markdown row per experiment: failing pairs, the binomial tail P(X >= failures), and the tables
# whose cells regressed (summed over pairs), and writes OUT/false_alarms.md.
#
# Usage: bash bench/nightly/false_alarms.sh experiments/wood2006/sbc.yaml [...]
# Environment: CAUSEWAY (default target/release/causeway), PAIRS (20), ALPHA (0.05),
# OUT (runs/false_alarms), CHECK_ARGS (extra check arguments, e.g. "--correction bh").
set -u
CAUSEWAY=${CAUSEWAY:-target/release/causeway}
PAIRS=${PAIRS:-20}
ALPHA=${ALPHA:-0.05}
OUT=${OUT:-runs/false_alarms}
CHECK_ARGS=${CHECK_ARGS:-}
mkdir -p "$OUT"
md="$OUT/false_alarms.md"
{
  echo "| experiment | pairs | failing pairs | P(X ≥ failures), X ~ Bin(pairs, $ALPHA) | regressing cells by table | wall s |"
  echo "|---|---|---|---|---|---|"
} > "$md"
for f in "$@"; do
  name=$(echo "${f#experiments/}" | sed 's/\.yaml$//; s#/#_#g')
  dir="$OUT/$name"
  mkdir -p "$dir"
  start=$(date +%s)
  fails=0
  : > "$dir/regressions.txt"
  for i in $(seq 1 "$PAIRS"); do
    a=$((2 * i - 1)); b=$((2 * i))
    for s in $a $b; do
      [ -d "$dir/s$s/tables" ] || "$CAUSEWAY" run "$f" --profile quick --chain-seed "$s" --out "$dir/s$s" > "$dir/s$s.log" 2>&1
    done
    if ! "$CAUSEWAY" check "$dir/s$b" --baseline "$dir/s$a" --statistical --alpha "$ALPHA" $CHECK_ARGS > "$dir/pair$i.md" 2>&1; then
      fails=$((fails + 1))
      # the failing cells' tables (first column of the report's regression rows)
      grep -E '^\| [^|]+ \| ' "$dir/pair$i.md" | grep -v -E '^\| (table|---)' | cut -d'|' -f2 | sed 's/ //g' >> "$dir/regressions.txt"
    fi
  done
  secs=$(( $(date +%s) - start ))
  tail=$(python3 -c "
from math import comb
n, k, p = $PAIRS, $fails, $ALPHA
print(f'{sum(comb(n, j) * p**j * (1 - p)**(n - j) for j in range(k, n + 1)):.3g}')")
  by=$(sort "$dir/regressions.txt" | uniq -c | awk '{printf "%s%s: %s", (NR>1?", ":""), $2, $1}')
  row="| $f | $PAIRS | $fails | $tail | ${by:-none} | $secs |"
  echo "$row"
  echo "$row" >> "$md"
done
echo "false-alarm table: $md"
