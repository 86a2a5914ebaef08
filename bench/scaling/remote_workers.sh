#!/usr/bin/env bash
# Many near-empty chains through one coordinator and N remote worker processes over loopback
# gRPC (what a cluster's worker array does), counting what finished and what failed.
#
#   CAUSEWAY=target/release/causeway OUT=remote-out bash bench/scaling/remote_workers.sh [CHAINS=1000000] [N=2]
#
# The coordinator runs `causeway run --listen 127.0.0.1:0` with no local worker; each worker is
# `causeway worker --coordinator URL --slots 1`. Prints the coordinator's summary line, its wall
# time, CPU and peak RSS (GNU time), and the file count of the run directory.
set -euo pipefail
CAUSEWAY=${CAUSEWAY:-target/release/causeway}
OUT=${OUT:-remote-out}
CHAINS=${1:-1000000}
N=${2:-2}
rm -rf "$OUT" && mkdir -p "$OUT"
bash "$(dirname "$0")/near_empty_yaml.sh" near_empty_remote "$CHAINS" > "$OUT/near_empty.yaml"
/usr/bin/time -v "$CAUSEWAY" run "$OUT/near_empty.yaml" --listen 127.0.0.1:0 --out "$OUT/run" \
    > "$OUT/coordinator.out" 2> "$OUT/coordinator.err" &
coord=$!
for _ in $(seq 300); do [ -s "$OUT/run/coordinator.url" ] && break; sleep 0.1; done
url=$(cat "$OUT/run/coordinator.url")
pids=()
for w in $(seq "$N"); do
    "$CAUSEWAY" worker --coordinator "$url" --listen 127.0.0.1:0 --slots 1 \
        > "$OUT/worker$w.log" 2>&1 &
    pids+=($!)
done
rc=0
wait "$coord" || rc=$?
kill "${pids[@]}" 2>/dev/null || true
wait 2>/dev/null || true
echo "rc $rc"
grep -E "chains: .* run, .* failed" "$OUT/coordinator.err" || tail -5 "$OUT/coordinator.err"
grep -E "Elapsed|User time|System time|Maximum resident" "$OUT/coordinator.err"
echo "files in the run directory: $(find "$OUT/run" -type f | wc -l)"
