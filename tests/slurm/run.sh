#!/usr/bin/env bash
# Single-node Slurm test of deploy/slurm/ (`make test-slurm`).
#
# Installs Slurm and MUNGE if missing (apt-get), starts munged, slurmctld and slurmd directly
# (no systemd) with a throwaway slurm.conf, builds causeway (target/debug, no release build),
# submits an experiment with deploy/slurm/submit.sh (a coordinator job plus a 2-task worker
# array), waits for it, runs the same experiment locally, and requires byte-identical per-chain
# Parquet and identical tables (wall-clock columns removed); then resubmits on the same run
# directory, which must resume with nothing to run. Daemons are stopped on exit, always. Must
# run as root.
#
# Environment:
#   SLURM_TEST_MODE     auto (default) | real | fake. `real` drives the real registration CLI
#                       (`causeway run --listen`, `causeway worker --coordinator`) and fails if
#                       the binary lacks it; `fake` wraps a binary without it in
#                       tests/slurm/fake-causeway.sh (registration through files, everything
#                       else real); `auto` picks real when the binary has the flags.
#   SLURM_TEST_BIN      use this causeway binary instead of building one
#   SLURM_TEST_CARGO_PROFILE  test (default: what `make test` builds, in target/debug) or dev
#   SLURM_TEST_EXPERIMENT, SLURM_TEST_PROFILE (default experiments/wood2006/fig4_structures.yaml, quick)
#   SLURM_TEST_WORKERS  worker array size (default 2)
#   SLURM_TEST_TIMEOUT  seconds to wait for the Slurm run (default 900)
#   SLURM_TEST_PORT     slurmctld port; slurmd uses the next one (default 6817)
#   SLURM_TEST_KEEP=1   keep the temp dir (it is always kept on failure)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mode=${SLURM_TEST_MODE:-auto}
experiment=${SLURM_TEST_EXPERIMENT:-$root/experiments/wood2006/fig4_structures.yaml}
profile=${SLURM_TEST_PROFILE:-quick}
nworkers=${SLURM_TEST_WORKERS:-2}
wait_limit=${SLURM_TEST_TIMEOUT:-900}
ctld_port=${SLURM_TEST_PORT:-6817}
cargo_profile=${SLURM_TEST_CARGO_PROFILE:-test}
slurmd_port=$((ctld_port + 1))
export CARGO_TERM_COLOR=never DEBIAN_FRONTEND=noninteractive

[[ $(id -u) == 0 ]] || { echo "test-slurm: must run as root (it starts munged and the Slurm daemons)" >&2; exit 2; }
case $mode in auto | real | fake) ;; *) echo "test-slurm: SLURM_TEST_MODE must be auto, real or fake" >&2; exit 2 ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/causeway-slurm.XXXXXX")
chmod 755 "$tmp"
log() { printf '[test-slurm %(%H:%M:%S)T] %s\n' -1 "$*"; }

# --- phase timings -------------------------------------------------------------------------
t0=$(date +%s%N)
phases=()
phase_name=
phase_t=
phase() {
    local now
    now=$(date +%s%N)
    [[ -n $phase_name ]] && phases+=("$(printf '%-34s %8.1f s' "$phase_name" "$(((now - phase_t) / 1000000))e-3")")
    phase_name=$1
    phase_t=$now
    [[ -n $phase_name ]] && log "== $phase_name"
    return 0
}
print_timings() {
    phase ""
    echo "---- test-slurm phase timings ----"
    printf '%s\n' "${phases[@]}"
    printf '%-34s %8.1f s\n' total "$((($(date +%s%N) - t0) / 1000000))e-3"
}

# --- cleanup: always stop what we started --------------------------------------------------
ctld_pid='' slurmd_pid='' munged_started='' policy_rc_created=''
dump_logs() {
    echo "---- Slurm and job logs ($tmp) ----"
    local f
    for f in "$tmp"/log/*.log "$tmp"/smoke-*.out "$tmp"/run-slurm/slurm/*.out; do
        [[ -f $f ]] || continue
        echo "----- $f (last 60 lines)"
        tail -n 60 "$f"
    done
    [[ -f $tmp/slurm.conf ]] && { echo "----- $tmp/slurm.conf"; cat "$tmp/slurm.conf"; }
}
stop_pid() {
    local pid=$1 i
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.2
    done
    kill -9 "$pid" 2>/dev/null || true
}
cleanup() {
    local rc=$?
    set +e
    if [[ -n $ctld_pid ]] && kill -0 "$ctld_pid" 2>/dev/null; then
        # Only this harness's jobs exist in this private cluster.
        scancel --quiet --user root 2>/dev/null
        for ((i = 0; i < 30; i++)); do
            [[ -z $(squeue -h -o %i 2>/dev/null) ]] && break
            sleep 1
        done
    fi
    ((rc != 0)) && dump_logs
    stop_pid "$slurmd_pid"
    stop_pid "$ctld_pid"
    [[ -n $munged_started ]] && stop_pid "$(cat /run/munge/munged.pid 2>/dev/null)"
    [[ -n $policy_rc_created ]] && rm -f /usr/sbin/policy-rc.d
    print_timings
    if ((rc != 0)) || [[ ${SLURM_TEST_KEEP:-0} == 1 ]]; then
        log "kept $tmp"
    else
        rm -rf "$tmp"
    fi
    if ((rc == 0)); then log "PASS ($run_kind)"; else log "FAIL (status $rc)"; fi
    exit "$rc"
}
run_kind=
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
    log "FAIL: $*"
    exit 1
}

# --- 1. install ----------------------------------------------------------------------------
phase "install slurm-wlm munge"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
    ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    # Without systemd, package scripts would try to start the daemons with the default
    # config (there is none); forbid that for the install, as Docker images do.
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        policy_rc_created=1
    fi
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends slurm-wlm munge >"$tmp/apt.log" 2>&1 ||
        { cat "$tmp/apt.log"; fail "apt-get install slurm-wlm munge"; }
    if [[ -n $policy_rc_created ]]; then rm -f /usr/sbin/policy-rc.d; policy_rc_created=; fi
else
    log "already installed: $(slurmctld -V)"
fi

# --- 2. munge ------------------------------------------------------------------------------
phase "start munged"
# No systemd/tmpfiles here: the socket and state directories may be missing.
mkdir -p /run/munge /var/lib/munge /var/log/munge /etc/munge
chown munge:munge /run/munge /var/lib/munge /var/log/munge /etc/munge
chmod 755 /run/munge
chmod 700 /etc/munge /var/log/munge
if [[ ! -s /etc/munge/munge.key ]]; then
    log "creating /etc/munge/munge.key"
    mungekey --create --keyfile /etc/munge/munge.key 2>/dev/null ||
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
if munge -n </dev/null >/dev/null 2>&1; then
    log "munged already running"
else
    rm -f /run/munge/munged.pid
    # Run it as its own user, as the packaged service does: munged requires the key (and its
    # dirs) to be owned by the user it runs as, and the package makes them munge's.
    runuser -u munge -- /usr/sbin/munged
    munged_started=1
    for ((i = 0; i < 50; i++)); do
        munge -n </dev/null >/dev/null 2>&1 && break
        sleep 0.2
    done
fi
munge -n </dev/null | unmunge >/dev/null || fail "munge round trip"

# --- 3. slurm ------------------------------------------------------------------------------
phase "start slurmctld + slurmd"
node=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
for p in "$ctld_port" "$slurmd_port"; do
    if timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$p" 2>/dev/null; then
        fail "port $p is in use (another Slurm?); set SLURM_TEST_PORT"
    fi
done
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log"
# Node and controller are addressed as 127.0.0.1, so the container's hostname need not
# resolve. linuxproc/none plugins: no cgroups (none usable in a container without systemd).
# config_overrides: use the CPUs/memory given here, do not drain on a hardware mismatch.
# OverSubscribe=FORCE: the coordinator and several worker tasks share 2 CPUs.
cat >"$tmp/slurm.conf" <<EOF
ClusterName=causewaytest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
# Start the dependent worker array within seconds of the coordinator (default: 30 s).
SchedulerParameters=bf_interval=1
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF
export SLURM_CONF=$tmp/slurm.conf
# -D: stay in the foreground (we own the pid); -i: ignore (absent) saved state.
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
ctld_pid=$!
slurmd -D -N "$node" -f "$SLURM_CONF" >"$tmp/log/slurmd.out" 2>&1 &
slurmd_pid=$!
state=
for ((i = 0; i < 120; i++)); do
    kill -0 "$ctld_pid" 2>/dev/null || fail "slurmctld exited: $(tail -n 20 "$tmp/log/slurmctld.out")"
    kill -0 "$slurmd_pid" 2>/dev/null || fail "slurmd exited: $(tail -n 20 "$tmp/log/slurmd.out")"
    state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
    [[ $state == idle ]] && break
    sleep 0.5
done
[[ $state == idle ]] || fail "node $node not idle after 60 s (state '${state}')"
sinfo

# --- 4. smoke: a plain job array ----------------------------------------------------------
phase "smoke job array"
# shellcheck disable=SC2016 # expanded in the job
timeout 120 sbatch --wait --quiet --array=0-1 --output "$tmp/smoke-%a.out" \
    --wrap 'echo "task $SLURM_ARRAY_TASK_ID on $(hostname)"' || fail "smoke job array"
for t in 0 1; do
    grep -q "^task $t on " "$tmp/smoke-$t.out" || fail "smoke task $t printed nothing"
done
cat "$tmp"/smoke-*.out

# --- 5. build ------------------------------------------------------------------------------
phase "cargo build (--profile $cargo_profile)"
if [[ -n ${SLURM_TEST_BIN:-} ]]; then
    bin=$(realpath "$SLURM_TEST_BIN")
    log "using SLURM_TEST_BIN=$bin (no build)"
else
    # The `test` profile (target/debug, workspace crates at opt-level 2) is what `make test`
    # builds: after it this is a no-op in CI, and fig4 runs ~5x faster than with `dev`.
    # `cargo test --no-run` (not `cargo build --bins`) so that dev-dependencies unify features
    # exactly as in `make test`; otherwise tonic, polars and friends are rebuilt.
    if [[ $cargo_profile == test ]]; then
        (cd "$root" && cargo test --workspace --locked --no-run)
    else
        (cd "$root" && cargo build --workspace --locked --bins --profile "$cargo_profile")
    fi
    bin=${CARGO_TARGET_DIR:-$root/target}/debug/causeway
    [[ $bin == /* ]] || bin=$root/$bin
fi
[[ -x $bin ]] || fail "no causeway binary at $bin"

has_cli=0
if "$bin" run --help | grep -q -- '--listen' && "$bin" run --help | grep -q -- '--token-file' &&
    "$bin" worker --help | grep -q -- '--coordinator' && "$bin" worker --help | grep -q -- '--advertise'; then
    has_cli=1
fi
case $mode in
real) ((has_cli)) || fail "SLURM_TEST_MODE=real but $bin has no run --listen/--token-file, worker --coordinator/--advertise" ;;
auto) if ((has_cli)); then mode=real; else mode=fake; fi ;;
esac
if [[ $mode == real ]]; then
    submit_bin=$bin
    run_kind="real registration CLI"
else
    export CAUSEWAY_REAL_BIN=$bin
    submit_bin=$root/tests/slurm/fake-causeway.sh
    run_kind="FAKE registration (tests/slurm/fake-causeway.sh): $bin has no --listen/--coordinator"
    log "WARNING: $run_kind"
fi

# Workers advertise `hostname`; if it does not resolve here, advertise the loopback address.
if ! getent hosts "$(hostname)" >/dev/null; then
    log "$(hostname) does not resolve: workers advertise 127.0.0.1"
    export CAUSEWAY_ADVERTISE_HOST=127.0.0.1
fi

# --- 6. the run through Slurm ----------------------------------------------------------------
phase "run through Slurm ($nworkers workers)"
slurm_out=$tmp/run-slurm
# Submit through deploy/slurm/submit.sh and wait until both jobs have left the queue; fails
# unless the coordinator exited 0 and every job COMPLETED.
submit_and_wait() {
    local tag=$1 waited queued marker bad
    "$root/deploy/slurm/submit.sh" --run-dir "$slurm_out" --profile "$profile" \
        --workers "$nworkers" --bin "$submit_bin" "$experiment" | tee "$tmp/submit.$tag.out"
    coordinator_job=$(sed -n 's/^coordinator_job=//p' "$tmp/submit.$tag.out")
    workers_job=$(sed -n 's/^workers_job=//p' "$tmp/submit.$tag.out")
    [[ -n $coordinator_job && -n $workers_job ]] || fail "submit.sh printed no job ids"
    marker=$slurm_out/slurm/coordinator.$coordinator_job.exit
    for ((waited = 0; ; waited++)); do
        # squeue lists pending and running jobs only: empty once both are finished.
        queued=$(squeue -h -j "$coordinator_job,$workers_job" -o %i 2>/dev/null || true)
        [[ -z $queued ]] && break
        if ((waited % 30 == 0)); then
            squeue -j "$coordinator_job,$workers_job" 2>/dev/null || true
            [[ -f $marker ]] && log "coordinator finished (status $(<"$marker")); waiting for workers"
        fi
        ((waited < wait_limit)) || fail "the Slurm run ($tag) did not finish within ${wait_limit}s"
        sleep 1
    done
    [[ -f $marker ]] || fail "the coordinator job left the queue without writing $marker"
    [[ $(<"$marker") == 0 ]] || fail "causeway run (coordinator) exited with status $(<"$marker")"
    # Without accounting, scontrol keeps finished jobs for MinJobAge (an hour, above).
    bad=$(scontrol -o show job "$coordinator_job" 2>/dev/null | grep -v 'JobState=COMPLETED' || true)
    bad+=$(scontrol -o show job "$workers_job" 2>/dev/null | grep -v 'JobState=COMPLETED' || true)
    [[ -z $bad ]] || fail "jobs not COMPLETED: $bad"
    echo "----- coordinator log (job $coordinator_job)"
    cat "$slurm_out/slurm/coordinator-$coordinator_job.out"
}
submit_and_wait first
for f in "$slurm_out"/slurm/worker-*.out; do
    log "$(basename "$f"): $(grep -c . "$f") lines, last: $(tail -n 1 "$f")"
done
ndone=$(awk -F, 'NR > 1 && $2 == "done"' "$slurm_out/jobs.csv" | wc -l)
ntotal=$(($(wc -l <"$slurm_out/jobs.csv") - 1))
((ndone == ntotal && ntotal > 0)) || fail "jobs.csv: $ndone of $ntotal chains done"
log "jobs.csv: $ndone chains done; chains per worker:"
awk -F, 'NR > 1 { n[$4]++ } END { for (w in n) printf "    %s %d\n", w, n[w] }' "$slurm_out/jobs.csv"

# --- 7. the same run with local workers --------------------------------------------------
phase "run locally"
local_out=$tmp/run-local
"$bin" run "$experiment" --profile "$profile" --out "$local_out" >"$tmp/local.log" 2>&1 ||
    { cat "$tmp/local.log"; fail "local causeway run"; }
tail -n 2 "$tmp/local.log"

# --- 8. compare ----------------------------------------------------------------------------
phase "compare"
mismatch=0
# The chains' Parquet shards: byte for byte.
(cd "$local_out/chains" && ls) >"$tmp/chains.local"
(cd "$slurm_out/chains" && ls) >"$tmp/chains.slurm"
if ! cmp -s "$tmp/chains.local" "$tmp/chains.slurm"; then
    log "MISMATCH: the chain file lists differ"
    diff "$tmp/chains.local" "$tmp/chains.slurm" | head -n 20
    mismatch=1
fi
nchains=0
while read -r f; do
    if [[ -f $slurm_out/chains/$f ]] && ! cmp -s "$local_out/chains/$f" "$slurm_out/chains/$f"; then
        log "MISMATCH: chains/$f"
        mismatch=1
    fi
    nchains=$((nchains + 1))
done <"$tmp/chains.local"
((nchains > 0)) || fail "no chain files in $local_out/chains"

# Tables: CSVs equal, except columns holding wall-clock time (header matching
# seconds|elapsed|wall), which are removed before comparing.
strip_timing() {
    awk '
    function split_csv(line, f,    n, i, c, q, cur) {
        n = 0; cur = ""; q = 0
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (c == "\"") { q = !q; cur = cur c }
            else if (c == "," && !q) { f[++n] = cur; cur = "" }
            else cur = cur c
        }
        f[++n] = cur
        return n
    }
    NR == 1 { nh = split_csv($0, h); for (i = 1; i <= nh; i++) drop[i] = (h[i] ~ /seconds|elapsed|wall/) }
    {
        n = split_csv($0, f); out = ""; sep = ""
        for (i = 1; i <= n; i++) if (!drop[i]) { out = out sep f[i]; sep = "," }
        print out
    }' "$1"
}
ntables=0
for f in "$local_out"/tables/*.csv; do
    name=$(basename "$f")
    other=$slurm_out/tables/$name
    if [[ ! -f $other ]]; then
        log "MISMATCH: tables/$name missing from the Slurm run"
        mismatch=1
        continue
    fi
    if ! diff <(strip_timing "$f") <(strip_timing "$other") >"$tmp/diff.$name"; then
        log "MISMATCH: tables/$name"
        head -n 20 "$tmp/diff.$name"
        mismatch=1
    fi
    ntables=$((ntables + 1))
done
((ntables > 0)) || fail "no tables in $local_out/tables"
((mismatch == 0)) || fail "the Slurm run and the local run differ"
log "identical: $nchains chain files (byte for byte) and $ntables tables (wall-clock columns removed)"

# --- 9. resubmit on the same run directory: resumes, with a stale coordinator.url there ----
if [[ ${SLURM_TEST_RESUME:-1} == 1 ]]; then
    phase "resubmit same run dir (resume)"
    (cd "$slurm_out/chains" && sha256sum -- *) >"$tmp/chains.sha256"
    submit_and_wait resume
    grep -q 'already stored' "$slurm_out/slurm/coordinator-$coordinator_job.out" ||
        log "note: the coordinator log does not say chains were already stored"
    (cd "$slurm_out/chains" && sha256sum --quiet -c "$tmp/chains.sha256") ||
        fail "chains changed when the run was resubmitted"
    [[ $(find "$slurm_out/chains" -type f | wc -l) == "$nchains" ]] || fail "the resubmitted run added chain files"
    log "resubmitted run finished; the $nchains chain files are unchanged"
fi
