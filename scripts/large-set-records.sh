#!/usr/bin/env bash
# Copies what a large set's run (scripts/large-set.sh) has recorded so far into a folder of
# records/ as data, to be committed while the run goes on:
#   generate.log   the generator's line for each material finished, as printed
#   materials.csv  the same lines as CSV (the columns records/README.md gives)
#   chain.log      when each step started and ended; memory.log and disk.log, the samples of
#                  memory and of the data directory's size
#   SHA256SUMS     the sha256 of every table file written so far (each is renamed into place
#                  whole, so every one listed is final)
#
#   scripts/large-set-records.sh DIR RECORDS
#
# DIR is the run's data directory (its logs in DIR.logs), RECORDS the folder to write. Records
# of more materials than the run now has (a run started again on another machine) are left as
# they are until it passes them.
set -euo pipefail

[ $# -eq 2 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
dir=${1%/} out=$2
logs=$dir.logs
[ -d "$logs" ] || { echo "large-set-records: no logs at $logs" >&2; exit 1; }
mkdir -p "$out"
solved() { if [ -f "$1" ]; then grep -cE ' positions, [0-9.]+ s, ' "$1" || true; else echo 0; fi; }
if [ "$(solved "$logs/generate.err")" -lt "$(solved "$out/generate.log")" ]; then
    echo "large-set-records: $out records more materials than $logs: left as they are" >&2
    exit 1
fi

# Every process's lines, resumed ones included ("reused" lines stand for a material finished
# by an earlier process).
grep -hE '^[a-z]+ [KM]+v[KM]+: [0-9]+ positions|^[a-z]+: [0-9]+ materials' "$logs/generate.err" \
    > "$out/generate.log.tmp" || true
mv "$out/generate.log.tmp" "$out/generate.log"

{
    echo "variant,material,positions,seconds,million_positions_per_second,peak_memory_so_far,wdl_bytes,dtw_bytes,rules_bytes,longest_win,cursed_wins,blessed_losses"
    # The fields of each solved material's line, in its order ("reused" lines have no time).
    awk '/ positions, [0-9.]+ s, / {
        for (i = 1; i <= NF; i++) sub(/[:;,]$/, "", $i)
        printf "%s,%s,%s,%s,%s,%s %s,%s,%s,%s,%s,%s,%s\n", $1, $2, $3, $5, $7, $14, $15, $18,
            $20, $22, $25, $28, $31
    }' "$out/generate.log"
} > "$out/materials.csv.tmp"
mv "$out/materials.csv.tmp" "$out/materials.csv"

for log in chain.log memory.log disk.log; do
    [ ! -f "$logs/$log" ] || cp "$logs/$log" "$out/$log"
done

for variant in "$dir"/*/; do
    (cd "$variant" && find . -maxdepth 1 -type f \( -name '*.wdl' -o -name '*.dtw' -o -name '*.rules' \) \
        | sort | xargs -r sha256sum)
done > "$out/SHA256SUMS.tmp"
mv "$out/SHA256SUMS.tmp" "$out/SHA256SUMS"
echo "$out: $(($(wc -l < "$out/materials.csv") - 1)) materials, $(wc -l < "$out/SHA256SUMS") table files"
