#!/usr/bin/env bash
# The Python package (python/) as a user gets it: a new virtual environment under
# target/python-venv (removed and made again each run), maturin, pytest and py-draughts from
# PyPI, the package installed with `pip install ./python`, then its tests (python/tests)
# against the rafle binary (RAFLE_BIN, default target/debug/rafle, which `cargo test` builds).
#
# The wheel is built with cargo's dev profile (dependencies optimized, as the workspace sets)
# to keep the run short: a release build (`pip install ./python` without
# MATURIN_PEP517_ARGS) takes minutes on 2 cores. RAFLE_PY_PROFILE=release tests that one.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
        echo "python-test: python3 with venv is missing; install it as root:" >&2
        echo "  apt-get install python3 python3-venv" >&2
        exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >/dev/null
fi

venv=target/python-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "maturin>=1.9.4,<2" "pytest>=7" "py-draughts>=1.10,<2"
MATURIN_PEP517_ARGS="--profile ${RAFLE_PY_PROFILE:-dev}" \
    "$venv/bin/python" -m pip install -q ./python
export RAFLE_BIN="${RAFLE_BIN:-target/debug/rafle}"
if [ ! -x "$RAFLE_BIN" ]; then
    cargo build --locked --bin rafle
fi
# From python/, but the package imported is the installed one (python/python is not on the
# path): the tests see what `pip install` put in the environment.
cd python
RAFLE_BIN="$(cd .. && realpath "$RAFLE_BIN")" "../$venv/bin/python" -m pytest -q "$@"
