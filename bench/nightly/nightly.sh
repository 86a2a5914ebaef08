#!/usr/bin/env bash
# Nightly regression of every experiment's quick profile; `make nightly BASELINE=DIR`.
#
# Runs every experiments/<paper>/<name>.yaml at the quick profile into
# runs/nightly/<UTC date>/<paper>/<name>, then checks each against BASELINE/<paper>/<name> (a
# previous nightly directory): exactly first; where the exact check fails, statistically
# (`causeway check --statistical`). Writes runs/nightly/<date>/regression.md (the verdicts and
# the reports) and regression.xml (JUnit: one suite per experiment, one test case per table).
# Exit 0 when every experiment passes exactly or statistically ("streams changed, distributions
# unchanged"), 1 otherwise (a regression, a failed run, or no baseline for an experiment).
#
# Environment: CAUSEWAY (binary, default target/release/causeway), EXPERIMENTS (space-separated
# YAML paths, default every experiments/*/*.yaml), OUT (default runs/nightly/<date>),
# CHECK_ARGS (extra arguments of the statistical check, e.g. "--alpha 0.05 --strict"),
# RUN_ARGS (extra arguments of every run, e.g. "--chain-seed 7" to rehearse a stream change).
set -u
BASELINE=${1:?usage: nightly.sh BASELINE_DIR}
CAUSEWAY=${CAUSEWAY:-target/release/causeway}
EXPERIMENTS=${EXPERIMENTS:-$(ls experiments/*/*.yaml | sort)}
OUT=${OUT:-runs/nightly/$(date -u +%F)}
CHECK_ARGS=${CHECK_ARGS:-}
RUN_ARGS=${RUN_ARGS:-}
mkdir -p "$OUT/checks"
md="$OUT/regression.md"
xml="$OUT/regression.xml"
start=$(date +%s)
{
  echo "# causeway nightly $(date -u +%FT%TZ)"
  echo
  echo "Baseline \`$BASELINE\`, runs \`$OUT\`, code $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo
  echo "| experiment | verdict |"
  echo "|---|---|"
} > "$md"
details=""
printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="causeway nightly">\n' > "$xml"
failed=0
for f in $EXPERIMENTS; do
  rel=${f#experiments/}
  name=${rel%.yaml}
  run="$OUT/$name"
  base="$BASELINE/$name"
  tag=$(echo "$name" | tr / _)
  log="$OUT/checks/$tag"
  echo "== $name"
  if ! "$CAUSEWAY" run "$f" --profile quick $RUN_ARGS --out "$run" > "$log.run.log" 2>&1; then
    verdict="REGRESSION: the run failed (see checks/$tag.run.log)"
  elif [ ! -d "$base/tables" ]; then
    verdict="REGRESSION: no baseline at $base"
  elif "$CAUSEWAY" check "$run" --baseline "$base" --junit "$log.xml" > "$log.exact.md" 2>&1; then
    verdict="passed exactly"
  elif "$CAUSEWAY" check "$run" --baseline "$base" --statistical $CHECK_ARGS --junit "$log.xml" > "$log.stat.md" 2>&1; then
    verdict="passed statistically: streams changed, distributions unchanged ($(tail -n 1 "$log.stat.md"))"
  else
    verdict="REGRESSION ($(tail -n 1 "$log.stat.md"))"
    details="$details"$'\n'"## $name"$'\n\n'"$(cat "$log.stat.md")"$'\n'
  fi
  case $verdict in REGRESSION*) failed=$((failed + 1)) ;; esac
  echo "   $verdict"
  echo "| $name | $verdict |" >> "$md"
  if [ -f "$log.xml" ]; then
    sed -e '1{/^<?xml/d}' -e "s/<testsuite name=\"causeway check\"/<testsuite name=\"$tag\"/" "$log.xml" >> "$xml"
  else
    printf '<testsuite name="%s" tests="1" failures="1"><testcase classname="causeway.nightly" name="%s"><failure message="%s"/></testcase></testsuite>\n' \
      "$tag" "$tag" "$(echo "$verdict" | sed 's/&/\&amp;/g; s/"/\&quot;/g; s/</\&lt;/g')" >> "$xml"
  fi
done
echo "</testsuites>" >> "$xml"
secs=$(( $(date +%s) - start ))
{
  echo
  echo "$failed regressing experiments; $secs s wall-clock."
  [ -n "$details" ] && printf '%s\n' "$details"
} >> "$md"
echo "regression report: $md, JUnit: $xml ($secs s)"
if [ "$failed" -eq 0 ]; then
  echo "nightly: passed"
  exit 0
fi
echo "nightly: $failed experiments regressed"
exit 1
