#!/usr/bin/env bash
# Lidraughts' tablebase routes against lidraughts' own TypeScript interfaces: installs
# TypeScript from the npm registry into target/tsc (node and npm from Debian when missing),
# then runs the ignored test of tests/lidraughts.rs, which type-checks live answers of
# `rafle serve` with `tsc --strict`. Extra arguments go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
        echo "lidraughts-test: node and npm are missing; install them as root:" >&2
        echo "  apt-get install nodejs npm" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi

tsc=$PWD/target/tsc/node_modules/.bin/tsc
if [ ! -x "$tsc" ]; then
    npm install --prefix target/tsc --no-audit --no-fund --silent typescript@5
fi
"$tsc" --version

# --workspace, as the test command builds: the same features, so nothing is compiled again.
RAFLE_TSC=$tsc cargo test --workspace --locked "$@" --test lidraughts -- --ignored --nocapture
