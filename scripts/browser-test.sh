#!/usr/bin/env bash
# The explorer page in a real browser: installs Debian's chromium and chromium-driver when
# missing, then runs the ignored test tests/browser.rs against `rafle serve` on small tables.
# Screenshots land in target/screenshots/. Extra arguments go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromedriver >/dev/null 2>&1 || ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
        echo "browser-test: chromium and chromedriver are missing; install them as root:" >&2
        echo "  apt-get install chromium chromium-driver" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

cargo test --workspace --locked "$@" --test browser -- --ignored --nocapture
