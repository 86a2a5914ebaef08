#!/usr/bin/env bash
# Submit a causeway run to Slurm: one coordinator job, then a job array of workers.
#
#   deploy/slurm/submit.sh [options] EXPERIMENT.yaml [-- extra sbatch options for both jobs]
#
# Options (each also settable by the environment variable in brackets):
#   -d, --run-dir DIR       run directory, on a filesystem every node shares [CAUSEWAY_RUN_DIR]
#                           (default: runs/<the experiment's name> under the current directory)
#   -p, --profile P         quick | paper [CAUSEWAY_PROFILE, default quick]
#   -n, --workers N         number of worker array tasks [CAUSEWAY_WORKERS, default 2]
#   -c, --cpus N            CPUs per worker task; also the worker's --slots [CAUSEWAY_WORKER_CPUS, default 1]
#   -b, --bin PATH          causeway binary, visible from every node [CAUSEWAY_BIN, default: causeway on PATH]
#   -t, --token-file F      shared secret of coordinator and workers [CAUSEWAY_TOKEN_FILE,
#                           default RUN_DIR/token, created (mode 600) if missing]
#       --port P            coordinator port [CAUSEWAY_COORDINATOR_PORT, default 7700]
#       --worker-port P     first worker port; task i uses P+i [CAUSEWAY_WORKER_BASE_PORT, default 7800]
#   Also read: CAUSEWAY_RUN_ARGS / CAUSEWAY_WORKER_ARGS (extra causeway flags),
#   CAUSEWAY_COORDINATOR_SBATCH_ARGS / CAUSEWAY_WORKER_SBATCH_ARGS (extra sbatch options for one
#   of the two jobs), CAUSEWAY_ADVERTISE_HOST (host name to advertise instead of `hostname`),
#   and sbatch's own SBATCH_* variables (SBATCH_PARTITION, SBATCH_TIMELIMIT, SBATCH_ACCOUNT, ...).
#
# Prints the job ids, as `coordinator_job=ID` and `workers_job=ID`, and writes them to
# RUN_DIR/slurm/jobs.env. Resubmitting with the same run directory resumes the run: chains
# already stored are not run again.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "submit.sh: $*" >&2; exit 2; }

run_dir=${CAUSEWAY_RUN_DIR:-}
profile=${CAUSEWAY_PROFILE:-quick}
workers=${CAUSEWAY_WORKERS:-2}
cpus=${CAUSEWAY_WORKER_CPUS:-1}
bin=${CAUSEWAY_BIN:-}
token_file=${CAUSEWAY_TOKEN_FILE:-}
coordinator_port=${CAUSEWAY_COORDINATOR_PORT:-7700}
worker_port=${CAUSEWAY_WORKER_BASE_PORT:-7800}
experiment=
extra=()

while (($#)); do
    case $1 in
    -d | --run-dir) run_dir=${2:?}; shift 2 ;;
    -p | --profile) profile=${2:?}; shift 2 ;;
    -n | --workers) workers=${2:?}; shift 2 ;;
    -c | --cpus) cpus=${2:?}; shift 2 ;;
    -b | --bin) bin=${2:?}; shift 2 ;;
    -t | --token-file) token_file=${2:?}; shift 2 ;;
    --port) coordinator_port=${2:?}; shift 2 ;;
    --worker-port) worker_port=${2:?}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [[ -z $experiment ]] || die "one experiment file only"; experiment=$1; shift ;;
    esac
done

[[ -n $experiment ]] || { usage >&2; exit 2; }
[[ -f $experiment ]] || die "no such experiment file: $experiment"
[[ $workers =~ ^[1-9][0-9]*$ ]] || die "--workers must be a positive integer, not '$workers'"
[[ $cpus =~ ^[1-9][0-9]*$ ]] || die "--cpus must be a positive integer, not '$cpus'"
command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm submit host"

experiment=$(realpath "$experiment")
if [[ -z $run_dir ]]; then
    # As `causeway run` does by default: runs/<the experiment's name:>.
    name=$(sed -n 's/^name:[[:space:]]*["'\'']\{0,1\}\([A-Za-z0-9_.-]*\).*/\1/p' "$experiment" | head -n 1)
    run_dir=runs/${name:-$(basename "$experiment" .yaml)}
fi
mkdir -p "$run_dir/slurm"
run_dir=$(realpath "$run_dir")

if [[ -z $bin ]]; then
    bin=$(command -v causeway) || die "causeway not on PATH: pass --bin or set CAUSEWAY_BIN"
fi
[[ -x $bin ]] || die "not executable: $bin"
bin=$(realpath "$bin")

# The token: a random secret shared through the run directory (readable by the owner only).
if [[ -z $token_file ]]; then
    token_file=$run_dir/token
fi
if [[ ! -s $token_file ]]; then
    (
        umask 077
        od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$token_file"
    )
    echo "submit.sh: created token $token_file"
fi
chmod 600 "$token_file"
token_file=$(realpath "$token_file")

export CAUSEWAY_RUN_DIR=$run_dir CAUSEWAY_EXPERIMENT=$experiment CAUSEWAY_PROFILE=$profile \
    CAUSEWAY_BIN=$bin CAUSEWAY_TOKEN_FILE=$token_file CAUSEWAY_SLOTS=$cpus CAUSEWAY_WORKERS=$workers \
    CAUSEWAY_COORDINATOR_PORT=$coordinator_port CAUSEWAY_WORKER_BASE_PORT=$worker_port

# Whitespace-separated on purpose.
# shellcheck disable=SC2206
coordinator_sbatch=(${CAUSEWAY_COORDINATOR_SBATCH_ARGS:-})
# shellcheck disable=SC2206
worker_sbatch=(${CAUSEWAY_WORKER_SBATCH_ARGS:-})

# Nothing from an earlier submission may be taken for this one.
rm -f "$run_dir/slurm/workers.jobid"

coordinator_job=$(sbatch --parsable --chdir "$run_dir" \
    --output "$run_dir/slurm/coordinator-%j.out" \
    ${extra[@]+"${extra[@]}"} ${coordinator_sbatch[@]+"${coordinator_sbatch[@]}"} \
    "$here/coordinator.sbatch")
coordinator_job=${coordinator_job%%;*}
export CAUSEWAY_COORDINATOR_JOB=$coordinator_job

# after:ID = start once the coordinator has started, so workers do not hold nodes while the
# coordinator is still queued. They also wait for its URL themselves.
workers_job=$(sbatch --parsable --chdir "$run_dir" \
    --array "0-$((workers - 1))" --cpus-per-task "$cpus" \
    --dependency "after:$coordinator_job" \
    --output "$run_dir/slurm/worker-%A_%a.out" \
    ${extra[@]+"${extra[@]}"} ${worker_sbatch[@]+"${worker_sbatch[@]}"} \
    "$here/workers.sbatch")
workers_job=${workers_job%%;*}
printf '%s\n' "$workers_job" >"$run_dir/slurm/workers.jobid"

printf 'coordinator_job=%s\nworkers_job=%s\nrun_dir=%s\n' \
    "$coordinator_job" "$workers_job" "$run_dir" | tee "$run_dir/slurm/jobs.env"
