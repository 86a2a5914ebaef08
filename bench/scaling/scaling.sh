#!/usr/bin/env bash
# Speed-up of one grid on one machine: the same experiment run from scratch with W local workers
# for each W given, one after another.
#
#   bash bench/scaling/scaling.sh [YAML] [PROFILE] [W ...]
#   CAUSEWAY=target/release/causeway OUT=scaling-out bash bench/scaling/scaling.sh \
#       bench/scaling/cep_slice.yaml paper 1 2 4 8 16
#
# For each W it prints one row (and appends it to $OUT/scaling.csv):
#   wall_s         the whole `causeway run` (plan, datasets, workers, chains, report);
#   cpu_s          user + system seconds of that process (coordinator and in-process workers);
#   sampling_s     the workers' own sampling seconds (cost.csv, row `all`);
#   mean_chain_ms  sampling_s per chain: grows with W when cores share caches, memory or are
#                  hyper-threads;
#   busy           sampling_s / (W x wall_s), the fraction of the workers' time spent sampling;
#   overhead_us    (cpu_s - sampling_s) per chain: everything but sampling (coordinator,
#                  gRPC, storage, report), in microseconds;
#   chains_per_s   chains / wall_s.
# Each run's directory stays in $OUT/w<W> (its cost.md has the per-axis split).
set -euo pipefail
CAUSEWAY=${CAUSEWAY:-target/release/causeway}
OUT=${OUT:-scaling-out}
YAML=${1:-bench/scaling/cep_slice.yaml}
PROFILE=${2:-paper}
shift $(($# < 2 ? $# : 2))
WORKERS=("$@")
[ ${#WORKERS[@]} -gt 0 ] || WORKERS=(1 2 4 8 16)

mkdir -p "$OUT"
csv="$OUT/scaling.csv"
[ -s "$csv" ] || echo "yaml,profile,workers,chains,wall_s,cpu_s,sampling_s,mean_chain_ms,busy,overhead_us,chains_per_s" > "$csv"
printf '%-8s %8s %9s %9s %11s %13s %6s %12s %12s\n' workers chains wall_s cpu_s sampling_s mean_chain_ms busy overhead_us chains_per_s
for w in "${WORKERS[@]}"; do
  dir="$OUT/w$w"
  rm -rf "$dir"
  # bash's `time` reports the child's wall, user and system seconds without /usr/bin/time.
  TIMEFORMAT='%R %U %S'
  { time "$CAUSEWAY" run "$YAML" --profile "$PROFILE" --local-workers "$w" --out "$dir" \
      > "$OUT/w$w.log" 2>&1 ; } 2> "$OUT/w$w.time"
  read -r wall user sys < "$OUT/w$w.time"
  # cost.csv: axis,value,chains,sampler_seconds,...; the `all` row covers every chain.
  read -r chains sampling < <(awk -F, '$1=="all" {print $3, $4}' "$dir/cost.csv")
  awk -v y="$YAML" -v p="$PROFILE" -v w="$w" -v n="$chains" -v wall="$wall" -v u="$user" \
      -v s="$sys" -v samp="$sampling" 'BEGIN {
    cpu = u + s
    row = sprintf("%s,%s,%d,%d,%.3f,%.3f,%.3f,%.4f,%.3f,%.1f,%.1f", y, p, w, n, wall, cpu, samp,
      1000 * samp / n, samp / (w * wall), 1e6 * (cpu - samp) / n, n / wall)
    print row >> "'"$csv"'"
    printf "%-8d %8d %9.2f %9.2f %11.2f %13.3f %6.3f %12.1f %12.1f\n", w, n, wall, cpu, samp,
      1000 * samp / n, samp / (w * wall), 1e6 * (cpu - samp) / n, n / wall
  }'
done
