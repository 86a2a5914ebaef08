#!/bin/bash
# Work lost per kill -9 in the middle of a long chain. For each trial: start
# `causeway run` on one dallaire2014 ring chain (ring_chain.yaml) with a checkpoint every CK
# seconds, SIGKILL the coordinator (its in-process worker dies with it) after a seeded
# uniform(8, 40) s, rerun the same command on the same directory, and read jobs.sqlite's
# `resumes` table: work lost = kill time - save time of the checkpoint the rerun resumed from.
# Then compare chains/ with an uninterrupted run.
# Usage: bench/checkpoint_kill/kill.sh [TRIALS=8] [CK=5]   (from the repository root, after make build)
set -u
N=${1:-8}; CK=${2:-5}
BIN=$PWD/target/release/causeway
YAML=$PWD/bench/checkpoint_kill/ring_chain.yaml
W=$(mktemp -d)
$BIN run "$YAML" --out "$W/ref" --local-workers 1 > "$W/ref.log" 2>&1 || { echo "reference run failed: $W/ref.log"; exit 1; }
for t in $(seq 1 "$N"); do
  $BIN run "$YAML" --out "$W/run$t" --local-workers 1 --checkpoint-every "$CK" > "$W/log$t.txt" 2>&1 &
  C=$!
  D=$(python3 -c "import random; random.seed($t); print(round(random.uniform(8, 40), 2))")
  sleep "$D"
  kill -9 $C 2>/dev/null; KILLED=$(date +%s.%N); wait $C 2>/dev/null
  $BIN run "$YAML" --out "$W/run$t" --local-workers 1 --checkpoint-every "$CK" > "$W/log$t.b.txt" 2>&1
  RC=$?
  R=$(sqlite3 "$W/run$t/jobs.sqlite" "select iteration, checkpoint_saved from resumes")
  if diff -r "$W/ref/chains" "$W/run$t/chains" > /dev/null; then SAME=identical; else SAME=DIFFER; fi
  if [ -n "$R" ]; then
    LOST=$(python3 -c "print(round($KILLED - ${R##*|}, 2))")
    echo "trial $t: killed after ${D}s; resumed at ${R%%|*}; work lost ${LOST} s; rerun exit $RC; chains $SAME"
  else
    echo "trial $t: killed after ${D}s; no resume recorded (finished before the kill?); rerun exit $RC; chains $SAME"
  fi
done
echo "work directory: $W"
