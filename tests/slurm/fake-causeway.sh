#!/usr/bin/env bash
# Stand-in for a causeway binary that lacks `run --listen` and `worker --coordinator` (the
# registration CLI), so that tests/slurm/run.sh can drive deploy/slurm/ through real Slurm
# jobs and real gRPC workers before that CLI exists. Used only when the binary under test has
# no --listen; once it has, run.sh runs the real thing and this file is not used.
#
# It keeps the contract's command lines and files and replaces only registration:
#   run FILE ... --listen A --advertise URL --token-file F --out DIR
#       writes URL to DIR/coordinator.url, waits for $CAUSEWAY_WORKERS workers to register
#       (a file each in DIR/.fake-registry/), runs the real `causeway run --workers a,b,...`,
#       then marks the run finished.
#   worker --coordinator URL --listen A --advertise H:P [--slots N] --token-file F
#       starts the real `causeway worker --listen A`, registers H:P once it accepts
#       connections, and exits 0 when the run is finished.
# Anything else is passed to the real binary. Both sides check that the token file is there
# and private, as the real CLI would need it to be.
set -euo pipefail

real=${CAUSEWAY_REAL_BIN:?path of the real causeway binary}
cmd=${1:-}

check_token() {
    [[ -s $1 ]] || { echo "fake-causeway: token file $1 missing or empty" >&2; exit 2; }
    [[ $(stat -c %a "$1") == 600 ]] || { echo "fake-causeway: token file $1 is not mode 600" >&2; exit 2; }
}

case $cmd in
run)
    shift
    file='' listen='' advertise='' token='' out='' pass=()
    while (($#)); do
        case $1 in
        --listen) listen=$2; shift 2 ;;
        --advertise) advertise=$2; shift 2 ;;
        --token-file) token=$2; shift 2 ;;
        --out) out=$2; pass+=(--out "$2"); shift 2 ;;
        --*) pass+=("$1" "$2"); shift 2 ;;
        *) file=$1; shift ;;
        esac
    done
    [[ -n $listen ]] || exec "$real" run "$file" "${pass[@]}"
    [[ -n $advertise && -n $token && -n $out ]] || { echo "fake-causeway: run --listen needs --advertise, --token-file, --out" >&2; exit 2; }
    check_token "$token"
    reg=$out/.fake-registry
    rm -rf "$reg"
    mkdir -p "$reg"
    printf '%s\n' "$advertise" >"$out/coordinator.url.tmp"
    mv -f "$out/coordinator.url.tmp" "$out/coordinator.url"
    want=${CAUSEWAY_WORKERS:-1}
    for ((i = 0; ; i++)); do
        have=$(find "$reg" -name '*.addr' | wc -l)
        ((have >= want)) && break
        ((i < 600)) || { echo "fake-causeway: only $have of $want workers registered" >&2; exit 1; }
        sleep 1
    done
    workers=$(cat "$reg"/*.addr | paste -sd, -)
    echo "fake-causeway: $have workers registered: $workers"
    rc=0
    "$real" run "$file" "${pass[@]}" --workers "$workers" || rc=$?
    touch "$reg/finished"
    exit "$rc"
    ;;
worker)
    shift
    coordinator='' listen='' advertise='' token='' pass=()
    while (($#)); do
        case $1 in
        --coordinator) coordinator=$2; shift 2 ;;
        --listen) listen=$2; shift 2 ;;
        --advertise) advertise=$2; shift 2 ;;
        --token-file) token=$2; shift 2 ;;
        *) pass+=("$1" "$2"); shift 2 ;;
        esac
    done
    [[ -n $coordinator ]] || exec "$real" worker --listen "$listen" "${pass[@]}"
    check_token "$token"
    reg=${CAUSEWAY_RUN_DIR:?}/.fake-registry
    [[ $(<"$CAUSEWAY_RUN_DIR/coordinator.url") == "$coordinator" ]] || { echo "fake-causeway: --coordinator $coordinator is not the URL in coordinator.url" >&2; exit 2; }
    "$real" worker --listen "$listen" "${pass[@]}" &
    pid=$!
    trap 'kill "$pid" 2>/dev/null || true' EXIT
    port=${advertise##*:}
    for ((i = 0; ; i++)); do
        timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || { echo "fake-causeway: worker died before listening" >&2; exit 1; }
        ((i < 120)) || { echo "fake-causeway: worker not listening on $port" >&2; exit 1; }
        sleep 0.5
    done
    printf '%s\n' "$advertise" >"$reg/${advertise//[^A-Za-z0-9.-]/_}.addr"
    echo "fake-causeway: registered $advertise with $coordinator"
    until [[ -e $reg/finished ]]; do
        kill -0 "$pid" 2>/dev/null || { echo "fake-causeway: worker exited early" >&2; exit 1; }
        sleep 1
    done
    echo "fake-causeway: run finished; worker exits"
    exit 0
    ;;
*)
    exec "$real" "$@"
    ;;
esac
