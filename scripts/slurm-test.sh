#!/usr/bin/env bash
# Brazilian up to PIECES generated through a real local Slurm cluster must be byte for byte a
# local 'rafle generate'; then a job is cancelled mid-run (scancel), the set resubmitted, and
# the result must still be identical, with no work file left.
#
#   scripts/slurm-test.sh [PIECES]    # PIECES 3 to 5, default 5
#
# Run it as root (the cluster's daemons run as root): it installs slurm-wlm and munge with
# apt-get when they are missing, starts the cluster with scripts/slurm-local.sh and stops it
# at the end, whatever happens. The node offers SLURM_LOCAL_CPUS CPUs (default 8, more than
# most test machines have) so that many jobs run side by side, as on a real cluster; each job
# takes one. About 1 minute for 4 pieces, 8 for 5, on 2 cores (after the release build).
# Set SLURM_LOCAL_DIR to keep this cluster apart from another one on the machine, and
# RAFLE_BIN to test that rafle binary instead of building the release one (CI passes the one
# its tests just built).
set -euo pipefail
cd "$(dirname "$0")/.."

pieces=${1:-5}
case $pieces in
3 | 4 | 5) ;;
*)
    echo "usage: $0 [PIECES]   (3, 4 or 5; default 5)" >&2
    exit 2
    ;;
esac

if [ -n "${RAFLE_BIN:-}" ]; then
    rafle=$(realpath -- "$RAFLE_BIN")
else
    cargo build --release --locked --quiet
    rafle=$PWD/target/release/rafle
fi
[ -x "$rafle" ] || { echo "slurm-test: no rafle binary at $rafle" >&2; exit 1; }
work=$(mktemp -d /tmp/rafle-slurm-test.XXXXXX)
export SLURM_LOCAL_CPUS=${SLURM_LOCAL_CPUS:-8}
trap 'scripts/slurm-local.sh stop >/dev/null; rm -rf "$work"' EXIT
scripts/slurm-local.sh start >/dev/null
export SLURM_CONF=${SLURM_LOCAL_DIR:-/tmp/rafle-slurm}/slurm.conf

# Waits until no job of the data directory $1 is queued or running.
drain() {
    while squeue --noheader --format=%k | grep -qxF "rafle:$1"; do sleep 1; done
}

# Tables (.wdl, .dtw, .rules) of a data directory.
count_tables() {
    find "$1/brazilian" -maxdepth 1 \( -name '*.wdl' -o -name '*.dtw' -o -name '*.rules' \) | wc -l
}

# Fails unless the tables of $1 and $2 are the same files, byte for byte.
same() {
    local count=0 f
    for f in "$1"/brazilian/*.wdl "$1"/brazilian/*.dtw "$1"/brazilian/*.rules; do
        cmp -s "$f" "$2/brazilian/${f##*/}" || {
            echo "slurm-test: ${f##*/} differs or is missing; the jobs' logs:" >&2
            grep -h '^rafle:' "$2"/slurm-logs/*.log >&2 || true
            exit 1
        }
        count=$((count + 1))
    done
    [ "$count" = "$tables" ] && [ "$(count_tables "$2")" = "$tables" ] ||
        { echo "slurm-test: $count tables, $tables expected" >&2; exit 1; }
    echo "slurm-test: $2: $tables tables byte-identical to $1"
}

# Fails unless the finishing job ran: every unit finished, no packed values left behind.
finished() {
    local left packed
    left=$(unfinished "$1")
    packed=$(find "$1/brazilian/.rafle-work" -name '*.packed' | wc -l)
    [ "$left" = 0 ] && [ "$packed" = 0 ] ||
        { echo "slurm-test: $1: $left units unfinished, $packed packed files left" >&2; exit 1; }
}

unfinished() {
    "$rafle" plan -v brazilian -p "$pieces" --data "$1" --json |
        python3 -c 'import json,sys; print(sum(not u["finished"] for u in json.load(sys.stdin)["units"]))'
}

"$rafle" generate -v brazilian -p "$pieces" --data "$work/local" >/dev/null 2>&1
tables=$(count_tables "$work/local")
units=$(unfinished "$work/fresh")

start=$SECONDS
"$rafle" slurm submit -v brazilian -p "$pieces" --data "$work/slurm" --cpus 1
drain "$work/slurm"
echo "slurm-test: the whole set through Slurm in $((SECONDS - start)) s"
same "$work/local" "$work/slurm"
finished "$work/slurm"

# Jobs cancelled part way: one running (if one runs at that moment) and one waiting for its
# dependencies. Their dependents leave the queue (kill-on-invalid-dep); the resubmission builds
# what is missing, resuming what the running one left.
"$rafle" slurm submit -v brazilian -p "$pieces" --data "$work/again" --cpus 1
until [ $((units - $(unfinished "$work/again"))) -ge $((units / 4)) ]; do sleep 0.2; done
# The first unit job of the data directory $work/again in state $1 (the last one listed if $2
# is "last": the waiting job furthest from running, so that a slow machine still finds it
# waiting).
unit_job() {
    squeue --noheader --states="$1" --format='%i %j %k' --sort=i |
        awk -v c="rafle:$work/again" -v which="${2:-first}" '
            $3 == c && $2 != "rafle-brazilian-finish" { id = $1; if (which == "first") exit }
            END { if (id != "") print id }'
}
# Jobs of a small set are short: give one a few seconds to be caught running.
running=""
for _ in $(seq 50); do
    running=$(unit_job RUNNING)
    [ -z "$running" ] || break
    sleep 0.1
done
waiting=$(unit_job PENDING last)
[ -n "$waiting" ] || { echo "slurm-test: no job left waiting to cancel" >&2; exit 1; }
for victim in $running $waiting; do
    echo "slurm-test: cancelling job $victim ($(squeue --noheader --job "$victim" --format='%j, %T' 2>/dev/null || echo 'just ended'))"
done
scancel $running $waiting || true
drain "$work/again"
left=$(unfinished "$work/again")
[ "$left" -gt 0 ] || { echo "slurm-test: the cancel left nothing to do" >&2; exit 1; }
echo "slurm-test: $left units left after the cancel; resubmitting"
"$rafle" slurm submit -v brazilian -p "$pieces" --data "$work/again" --cpus 1
drain "$work/again"
same "$work/local" "$work/again"
finished "$work/again"
echo "slurm-test: ok"
