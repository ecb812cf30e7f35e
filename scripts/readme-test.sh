#!/usr/bin/env bash
# The manual's setup blocks run as a new user runs them. Every ```sh block marked
# `<!-- docs-test: ci: REASON -->` in README.md, docs/c.md and docs/python.md (the release C
# library and the C example, `pip install` of the Python package) runs as written, with
# `bash -e`, page after page, in a fresh copy of the repository (its tracked and untracked
# files, without target/ and data/); then the README's Rust example runs as the body of a
# `main`, and its Python session as a doctest from the copy's root, where `draughts/` is
# rafle's own crate folder.
#
# - `data/` holds what the README's install block's `rafle generate` would (that block stays
#   unrun: its release build and the default set take 4 minutes): Brazilian up to 4 pieces and
#   international up to 3, built by RAFLE_BIN (default target/debug/rafle, which `cargo test`
#   builds).
# - `pip` is that of a new virtual environment, first on PATH. Its wheel is built with cargo's
#   dev profile (MATURIN_PEP517_ARGS, as scripts/python-test.sh does) into the repository's
#   target directory, whose dependencies are built already: a user's release build takes
#   minutes longer and gives the same package.
# - Other blocks run without CARGO_TARGET_DIR: they name `target/release` as a user's build has
#   it, so the copy builds its own.
#
# About 4 minutes on 2 cores after `cargo test` (the release library most of it). Extra
# arguments: pages to take the blocks from instead of the three.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    echo "readme-test: python3 with venv is missing (apt-get install python3 python3-venv)" >&2
    exit 1
fi
rafle_bin=$(realpath "${RAFLE_BIN:-target/debug/rafle}")
if [ ! -x "$rafle_bin" ]; then
    cargo build --locked --bin rafle
fi
pages=("$@")
if [ ${#pages[@]} = 0 ]; then
    pages=(README.md docs/c.md docs/python.md)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rafle-readme.XXXXXX")
trap 'rm -rf "$work"' EXIT
copy=$work/rafle
mkdir "$copy"
git ls-files -z --cached --others --exclude-standard |
    grep -zv -e '^target/' -e '^data/' |
    tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null |
    tar -xf - -C "$copy"

"$rafle_bin" generate --variant brazilian --pieces 4 --data "$copy/data" >/dev/null 2>&1
"$rafle_bin" generate --variant international --pieces 3 --data "$copy/data" >/dev/null 2>&1
python3 -m venv "$work/venv"

# The body of each ```sh block of page $1 whose marker is `docs-test: ci:` (with $2 = rust:
# each ```rust block), NUL after each.
ci_blocks() {
    python3 - "$1" "${2:-sh}" <<'PY'
import sys

lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
marked, body, before = False, None, ""
for line in lines:
    if body is None:
        fence = line.strip()
        if fence.startswith("```"):
            lang = fence[3:].strip()
            if sys.argv[2] == "rust":
                marked = lang == "rust"
            else:
                marked = lang in ("sh", "bash", "shell") and before.startswith(
                    "<!-- docs-test: ci:"
                )
            body = []
        elif fence:
            before = fence
    elif line.strip() == "```":
        if marked:
            sys.stdout.write("\n".join(body) + "\n\0")
        body, before = None, ""
    else:
        body.append(line)
PY
}

step() { echo "readme-test: $1 ($((SECONDS - start)) s)"; start=$SECONDS; }
start=$SECONDS
for page in "${pages[@]}"; do
    found=0
    while IFS= read -r -d '' block; do
        found=$((found + 1))
        echo "readme-test: $page, block $found:"
        sed 's/^/    /' <<<"$block"
        if grep -q 'pip install' <<<"$block"; then
            target=${CARGO_TARGET_DIR:-$root/target}
            (cd "$copy" && PATH="$work/venv/bin:$PATH" CARGO_TARGET_DIR="$target" \
                MATURIN_PEP517_ARGS="--profile dev" bash -e -o pipefail -c "$block")
        else
            (cd "$copy" && env -u CARGO_TARGET_DIR PATH="$work/venv/bin:$PATH" \
                bash -e -o pipefail -c "$block")
        fi
        step "$page, block $found passed"
    done < <(ci_blocks "$copy/$page")
    if [ "$found" = 0 ]; then
        echo "readme-test: $page has no block marked 'docs-test: ci:'" >&2
        exit 1
    fi
done

# The README's Rust example, as the body of a `main` returning a Result, built against the
# release crates the C block built (a program of the C library's crate, which depends on
# rafle-probe alone) and run from the copy's root.
rust=0
while IFS= read -r -d '' block; do
    rust=$((rust + 1))
    mkdir -p "$copy/capi/src/bin"
    printf 'fn main() -> Result<(), Box<dyn std::error::Error>> {\n%s\nOk(())\n}\n' "$block" \
        >"$copy/capi/src/bin/readme-$rust.rs"
    (cd "$copy" && env -u CARGO_TARGET_DIR cargo run --release --quiet -p rafle-capi \
        --bin "readme-$rust")
    step "README.md's Rust block $rust passed"
done < <(ci_blocks "$copy/README.md" rust)

# The README's Python session, from the copy's root as a reader types it after the blocks.
# Its ```python blocks, the rest of the page blanked, as python/tests/test_docs.py reads them.
(cd "$copy" && "$work/venv/bin/python" - <<'PY'
import doctest, sys

lines, kept, inside = open("README.md", encoding="utf-8").read().splitlines(), [], False
for line in lines:
    fence = line.strip()
    if not inside and fence in ("```python", "```pycon"):
        inside = True
        kept.append("")
    elif inside and fence == "```":
        inside = False
        kept.append("")
    else:
        kept.append(line if inside else "")
# From the root, as `python` typed there: the current directory first on the path.
sys.path.insert(0, "")
test = doctest.DocTestParser().get_doctest("\n".join(kept) + "\n", {}, "README.md", "README.md", 0)
flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
result = doctest.DocTestRunner(optionflags=flags).run(test)
sys.exit(1 if result.failed or not result.attempted else 0)
PY
)
step "README.md's Python session passed from the repository's root"
echo "readme-test: every block passed"
