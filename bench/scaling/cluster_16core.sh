#!/usr/bin/env bash
# The coordinator on a many-core machine, in one script of a few minutes:
#   1. the cluster bench (simulated workers: the coordinator's own pace and CPU a chain) with 4
#      and 8 worker processes, twice each;
#   2. 10⁶ near-empty chains with 16 and with 2 local workers: wall, CPU and peak RSS;
#   3. the CEP slice (bench/scaling/cep_slice.yaml, paper) with 16 and 8 local workers
#      (bench/scaling/scaling.sh).
#
#   CAUSEWAY=target/release/causeway CLUSTER_BENCH=target/release/deps/cluster-<hash> \
#       OUT=cluster-16core bash bench/scaling/cluster_16core.sh
#
# CLUSTER_BENCH is the binary `cargo bench -p causeway-tests --bench cluster --no-run` builds; it
# reads bench/scaling/cep_shaped.yaml under the directory it was built in, so run this script from
# a checkout at that path. Every row goes to $OUT/rows.txt.
set -euo pipefail
CAUSEWAY=${CAUSEWAY:-target/release/causeway}
CLUSTER_BENCH=${CLUSTER_BENCH:?the cluster bench binary}
OUT=${OUT:-cluster-16core}
mkdir -p "$OUT"
rows="$OUT/rows.txt"
: > "$rows"
echo "# $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" | tee -a "$rows"

# Wall, user + system CPU and peak RSS of a command and its children (no /usr/bin/time needed).
measure() {
    python3 - "$@" <<'EOF'
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode
wall = time.time() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"rc={rc} wall={wall:.2f}s cpu={r.ru_utime + r.ru_stime:.2f}s peak_rss={r.ru_maxrss / 1024:.0f}MiB")
EOF
}

for w in 4 8 4 8; do
    echo "cluster bench, $w worker processes" | tee -a "$rows"
    CLUSTER_WORKERS=$w "$CLUSTER_BENCH" --bench 2>&1 | grep '^cluster' | tee -a "$rows"
done

bash "$(dirname "$0")/near_empty_yaml.sh" near_empty_million 1000000 > "$OUT/near_empty.yaml"
for w in 16 2; do
    rm -rf "$OUT/ne$w"
    echo "10^6 near-empty chains, --local-workers $w: $(measure "$CAUSEWAY" run "$OUT/near_empty.yaml" \
        --local-workers "$w" --out "$OUT/ne$w"), files $(find "$OUT/ne$w" -type f | wc -l)" | tee -a "$rows"
    rm -rf "$OUT/ne$w"
done

echo "cep_slice paper (bench/scaling/scaling.sh)" | tee -a "$rows"
CAUSEWAY=$CAUSEWAY OUT=$OUT/scaling bash bench/scaling/scaling.sh bench/scaling/cep_slice.yaml \
    paper 16 8 2>&1 | tee -a "$rows"
