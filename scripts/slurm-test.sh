#!/usr/bin/env bash
# Brazilian up to 5 pieces generated through a real local Slurm cluster must be byte for byte
# a local 'rafle generate'; then a job is cancelled mid-run (scancel), the set resubmitted,
# and the result must still be identical. Starts the cluster with scripts/slurm-local.sh (as
# root) and stops it at the end, whatever happens. About 8 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --locked --quiet
rafle=$PWD/target/release/rafle
work=$(mktemp -d /tmp/rafle-slurm-test.XXXXXX)
scripts/slurm-local.sh start >/dev/null
export SLURM_CONF=${SLURM_LOCAL_DIR:-/tmp/rafle-slurm}/slurm.conf
trap 'scripts/slurm-local.sh stop >/dev/null; rm -rf "$work"' EXIT

# Waits until no job of the data directory $1 is queued or running.
drain() {
    while squeue --noheader --format=%k | grep -qxF "rafle:$1"; do sleep 2; done
}

# Fails unless the tables of $1 and $2 are the same files, byte for byte.
same() {
    local count=0 f
    for f in "$1"/brazilian/*.wdl "$1"/brazilian/*.dtw "$1"/brazilian/*.rules; do
        cmp -s "$f" "$2/brazilian/${f##*/}" || { echo "slurm-test: ${f##*/} differs" >&2; exit 1; }
        count=$((count + 1))
    done
    [ "$count" = 135 ] || { echo "slurm-test: $count tables, 135 expected" >&2; exit 1; }
    echo "slurm-test: $2: 135 tables byte-identical to $1"
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
    "$rafle" plan -v brazilian -p 5 --data "$1" --json |
        python3 -c 'import json,sys; print(sum(not u["finished"] for u in json.load(sys.stdin)["units"]))'
}

"$rafle" generate -v brazilian -p 5 --data "$work/local" >/dev/null 2>&1

start=$SECONDS
"$rafle" slurm submit -v brazilian -p 5 --data "$work/slurm" --cpus 1
drain "$work/slurm"
echo "slurm-test: the whole set through Slurm in $((SECONDS - start)) s"
same "$work/local" "$work/slurm"
finished "$work/slurm"

# A unit cancelled while it runs: its dependents leave the queue (kill-on-invalid-dep), the
# resubmission builds what is missing.
"$rafle" slurm submit -v brazilian -p 5 --data "$work/again" --cpus 1
victim=""
while [ -z "$victim" ]; do
    sleep 1
    done_units=$((45 - $(unfinished "$work/again")))
    if [ "$done_units" -ge 12 ]; then
        victim=$(squeue --noheader --states=RUNNING --format='%i %j %k' |
            awk -v c="rafle:$work/again" '$3 == c { print $1; exit }')
    fi
done
echo "slurm-test: cancelling job $victim ($(squeue --noheader --job "$victim" --format=%j))"
scancel "$victim"
drain "$work/again"
left=$(unfinished "$work/again")
[ "$left" -gt 0 ] || { echo "slurm-test: the cancel left nothing to do" >&2; exit 1; }
echo "slurm-test: $left units left after the cancel; resubmitting"
"$rafle" slurm submit -v brazilian -p 5 --data "$work/again" --cpus 1
drain "$work/again"
same "$work/local" "$work/again"
finished "$work/again"
echo "slurm-test: ok"
