#!/usr/bin/env bash
# Builds a large set and then checks every position of it, as docs/performance.md, Large sets, describes:
# at the lowest priority the scheduler honours, with every line and the memory on record, and
# resumable: run it again after any interruption and the build starts at its first unfinished
# material, the check at its first material not recorded as checked.
#
#   scripts/large-set.sh [-r RAFLE] [-m SIZE] [-t TABLES] VARIANT PIECES DIR
#
# -r: the rafle binary (default: target/release/rafle of this checkout); -m: the memory
# budget of both steps (default 7.5G); -t: the tables to write, all (the default) or wdl (the
# check, which needs all three, is then left out). The logs go to DIR.logs/: generate.out and
# generate.err (the generator's line per material), verify.log, memory.log (the running
# step's VmHWM, VmRSS, RssAnon and RssFile in kB, once a minute), disk.log (the bytes of the
# data directory and of its work directory, once a minute) and chain.log (when each step
# started and ended, with its exit code). Start it in the background, e.g.
#   setsid scripts/large-set.sh brazilian 7 /data/b7 > /dev/null 2>&1 < /dev/null &
set -uo pipefail

usage() {
    echo "usage: $0 [-r RAFLE] [-m SIZE] [-t TABLES] VARIANT PIECES DIR" >&2
    exit 2
}

here=$(cd "$(dirname "$0")/.." && pwd)
rafle=$here/target/release/rafle
memory=7.5G
tables=all
while getopts "r:m:t:" opt; do
    case $opt in
        r) rafle=$OPTARG ;;
        m) memory=$OPTARG ;;
        t) tables=$OPTARG ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || usage
variant=$1 pieces=$2 dir=$3
[ -x "$rafle" ] || { echo "$0: no rafle binary at $rafle (cargo build --release)" >&2; exit 2; }
rafle=$(cd "$(dirname "$rafle")" && pwd)/$(basename "$rafle")
logs=${dir%/}.logs
mkdir -p "$dir" "$logs" || exit 1

# A session of its own competes with the rest of the machine as an equal, whatever its nice,
# where the kernel groups processes by session: lower the group (Linux only; else ignored).
echo 19 2>/dev/null > /proc/self/autogroup || true
low=(nice -n 19)
command -v chrt > /dev/null && low=(chrt -i 0 "${low[@]}")
timed=()
[ -x /usr/bin/time ] && timed=(/usr/bin/time -v)

note() {
    echo "=== $(date -u '+%F %T') $*" >> "$logs/chain.log"
}

# Bytes of the files under a directory (0 if it is not there).
bytes() {
    local b
    b=$(du -sb "$1" 2> /dev/null | cut -f1)
    echo "${b:-0}"
}

# Runs one step in the background, sampling its memory and the data directory's size until it
# ends; returns its exit code.
step() {
    local name=$1 out=$2 err=$3
    shift 3
    note "$name starts: $*"
    "${low[@]}" "${timed[@]}" "$@" >> "$out" 2>> "$err" &
    local pid=$! rafle_pid="" tick=0
    while kill -0 "$pid" 2> /dev/null; do
        # /usr/bin/time runs rafle as its child; chrt and nice give way to what they run.
        if [ -z "$rafle_pid" ]; then
            rafle_pid=$pid
            [ ${#timed[@]} -eq 0 ] || rafle_pid=$(pgrep -P "$pid" || true)
        fi
        if [ $((tick % 30)) -eq 1 ] && [ -n "$rafle_pid" ] && [ -r "/proc/$rafle_pid/status" ]; then
            echo "$(date -u '+%F %T') $name $(awk '/^(VmHWM|VmRSS|RssAnon|RssFile):/ {printf "%s %s ", $1, $2}' "/proc/$rafle_pid/status")" >> "$logs/memory.log"
            echo "$(date -u '+%F %T') $name $(bytes "$dir") $(bytes "$dir/$variant/.rafle-work")" >> "$logs/disk.log"
        fi
        tick=$((tick + 1))
        sleep 2
    done
    wait "$pid"
    local rc=$?
    note "$name exit $rc"
    return $rc
}

step generate "$logs/generate.out" "$logs/generate.err" "$rafle" generate --variant "$variant" \
    --pieces "$pieces" --tables "$tables" --memory "$memory" --data "$dir" || exit $?
[ "$tables" = all ] || exit 0
step verify "$logs/verify.log" "$logs/verify.log" "$rafle" verify --resume --variant "$variant" \
    --memory "$memory" --data "$dir"
