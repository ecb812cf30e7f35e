#!/usr/bin/env bash
# Times `rafle generate` for several builds, one after the other in the same sitting, so that
# their ratio holds on a shared, noisy machine (docs/performance.md, Generation).
#
#   scripts/gauge-generation.sh [-v VARIANT] [-p PIECES] [-t TABLES] [-r ROUNDS] REV...
#
# REV is a commit of this repository (built with `cargo build --release --locked` in a
# temporary clone, once) or `.` for the working tree (built in place). Each round runs every
# build in turn from an empty directory:
#   /usr/bin/time -v rafle generate --variant VARIANT --pieces PIECES [--tables TABLES] --data DIR
# (`--tables` only when -t is given: builds from before it do not take it), and prints wall
# clock, CPU seconds, peak resident memory and the sha256 of the table files, which must agree
# between builds. Defaults: brazilian, 6 pieces, 1 round.
#
# Environment:
#   GAUGE_DIR    where clones, binaries and data go (default: a new directory under /tmp)
#   PAUSE_PIDS   process ids to stop (SIGSTOP) while measuring and continue afterwards, e.g. a
#                long generation in the background
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
    sed -n '2,18p' "$0" >&2
    exit 2
}

variant=brazilian pieces=6 tables= rounds=1
while getopts "v:p:t:r:" opt; do
    case "$opt" in
        v) variant="$OPTARG" ;;
        p) pieces="$OPTARG" ;;
        t) tables="$OPTARG" ;;
        r) rounds="$OPTARG" ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
if [ ! -x /usr/bin/time ]; then
    echo "gauge-generation: /usr/bin/time is missing (Debian: apt-get install time)" >&2
    exit 1
fi

dir="${GAUGE_DIR:-$(mktemp -d /tmp/rafle-gauge.XXXXXX)}"
mkdir -p "$dir/bin"
names=()
for rev in "$@"; do
    if [ "$rev" = . ]; then
        name=worktree
        (cd "$repo" && cargo build --release --locked --quiet)
        cp "$repo/target/release/rafle" "$dir/bin/$name"
    else
        name="$(git -C "$repo" rev-parse --short "$rev")"
        if [ ! -x "$dir/bin/$name" ]; then
            rm -rf "$dir/clone-$name"
            git clone --quiet "$repo" "$dir/clone-$name"
            git -C "$dir/clone-$name" checkout --quiet "$name"
            (cd "$dir/clone-$name" && cargo build --release --locked --quiet)
            cp "$dir/clone-$name/target/release/rafle" "$dir/bin/$name"
        fi
    fi
    names+=("$name")
done

continue_paused() {
    for pid in ${PAUSE_PIDS:-}; do kill -CONT "$pid" 2>/dev/null || true; done
}
trap continue_paused EXIT
for pid in ${PAUSE_PIDS:-}; do kill -STOP "$pid"; done

table_files_sha() {
    (cd "$1" && find . -name '*.wdl' -o -name '*.dtw' -o -name '*.rules' | sort | xargs -r sha256sum |
        sha256sum | cut -c1-16)
}

printf '%-10s %5s %10s %10s %12s %s\n' build round wall_s cpu_s max_rss_MiB tables_sha256
for round in $(seq 1 "$rounds"); do
    for name in "${names[@]}"; do
        # Named by the tables asked for too, so that a second gauge of the other kind in the
        # same GAUGE_DIR keeps the first one's per-material lines.
        run="$name${tables:+-$tables}"
        data="$dir/data-$run"
        rm -rf "$data"
        mkdir -p "$data"
        args=(generate --variant "$variant" --pieces "$pieces" --data "$data")
        [ -n "$tables" ] && args+=(--tables "$tables")
        /usr/bin/time -v -o "$dir/time-$run" "$dir/bin/$name" "${args[@]}" >/dev/null 2>"$dir/log-$run"
        awk -v name="$name" -v round="$round" -v sha="$(table_files_sha "$data")" '
            /Elapsed \(wall clock\)/ { n = split($NF, t, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + t[i] }
            /User time/ { cpu += $NF }
            /System time/ { cpu += $NF }
            /Maximum resident/ { rss = $NF / 1024 }
            END { printf "%-10s %5d %10.1f %10.1f %12.0f %s\n", name, round, wall, cpu, rss, sha }
        ' "$dir/time-$run"
    done
done
echo "builds, data and logs: $dir"
