#!/usr/bin/env bash
# Runs one `rafle generate` from an empty directory and samples the size of that directory
# once a second: the largest size the run reaches against the size of its final tables
# (docs/performance.md, Disk).
#
#   scripts/gauge-disk.sh RAFLE DIR -- GENERATE-ARGS...
#
# RAFLE is the binary, DIR the data directory (it must not exist, or be empty), GENERATE-ARGS
# what follows `rafle generate` (for example `--variant brazilian --pieces 6`; `--data DIR` is
# added). Prints the peak, the final tables' bytes and their ratio; the samples are kept in
# DIR.disk-samples (seconds since the start, bytes). It also keeps the largest size each
# material's band files reached (DIR.band-peaks: material, bytes) and prints their bytes a
# position over the materials solved into band files (positions as `rafle plan` gives them).
set -euo pipefail

usage() {
    sed -n '2,12p' "$0" >&2
    exit 2
}
[ $# -ge 3 ] && [ "$3" = -- ] || usage
rafle="$1" dir="$2"
shift 3
if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
    echo "gauge-disk: $dir is not empty" >&2
    exit 1
fi
mkdir -p "$dir"
samples="$dir.disk-samples"
: > "$samples"
"$rafle" generate "$@" --data "$dir" &
pid=$!
start=$(date +%s)
peak=0
# Bytes on disk of every file under DIR (allocated blocks: a reserved work file counts whole).
size() { du -s --block-size=1 "$dir" 2>/dev/null | cut -f1; }
bands="$dir.band-peaks"
declare -A band_peak=()
# The bytes of each material's band files now, finished and under way (`<material>.band-<b>`).
band_sizes() {
    find "$dir" -path '*/.rafle-work/*' -name '*.band-*' -printf '%f %s\n' 2>/dev/null \
        | sed -E 's/^(\.rafle-[0-9a-f]+\.)?([^.]+)(\.[a-z]+)?\.band-[0-9]+(\.tmp)? / \2 /' \
        | awk '{ s[$1] += $2 } END { for (m in s) print m, s[m] }'
}
while kill -0 "$pid" 2>/dev/null; do
    # du fails when a file goes while it walks, after printing the total all the same.
    now=$(size || true)
    now=${now:-0}
    [ "$now" -gt "$peak" ] && peak=$now
    echo "$(( $(date +%s) - start )) $now" >> "$samples"
    while read -r material bytes; do
        [ "$bytes" -gt "${band_peak[$material]:-0}" ] && band_peak[$material]=$bytes
    done < <(band_sizes)
    sleep 1
done
wait "$pid"
tables=$(find "$dir" \( -name '*.wdl' -o -name '*.dtw' -o -name '*.rules' \) -printf '%s\n' \
    | awk '{ s += $1 } END { print s + 0 }')
final=$(size)
[ "$final" -gt "$peak" ] && peak=$final
awk -v p="$peak" -v t="$tables" -v f="$final" 'BEGIN {
    printf "peak %.1f MiB, final directory %.1f MiB, tables %.1f MiB: peak / tables = %.2f\n",
        p / 1048576, f / 1048576, t / 1048576, p / t
}'
: > "$bands"
for material in "${!band_peak[@]}"; do echo "$material ${band_peak[$material]}"; done \
    | sort > "$bands"
# `rafle plan` takes the run's arguments but `--threads`.
plan_args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --threads) shift 2 ;;
    --threads=*) shift ;;
    *) plan_args+=("$1") && shift ;;
    esac
done
if [ -s "$bands" ]; then
    "$rafle" plan "${plan_args[@]}" --data "$dir" 2>/dev/null | awk -v list="$bands" '
        BEGIN { while ((getline line < list) > 0) { split(line, f, " "); peak[f[1]] = f[2] } }
        { split($1, name, "/"); if (name[2] in peak) { b += peak[name[2]]; n += $3; k++ } }
        END { if (n > 0) printf "band files: %.3f bytes a position at their largest, over %d materials (%.0f positions)\n", b / n, k, n }'
fi
