#!/usr/bin/env bash
# Installs ElectrumX (PyPI `e-x` 2.0.0) with plyvel for its LevelDB store into
# .build/electrumx-venv, every file hash-checked against scripts/electrumx-*requirements.txt.
# Only the tests that run a real Electrum server need it (the electrumx-* scenarios), so
# `make setup` does not run this; `make electrumx` and `scripts/setup.sh --electrumx` do.
# Safe to run again: skipped when the venv holds exactly the pinned set.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.build/electrumx-venv"
BUILD_REQS="$ROOT/scripts/electrumx-build-requirements.txt"
REQS="$ROOT/scripts/electrumx-requirements.txt"
STAMP="$VENV/requirements.sha256"

say() { printf 'electrumx: %s\n' "$*" >&2; }

want="$(cat "$BUILD_REQS" "$REQS" | sha256sum | cut -d' ' -f1)"
if [ -x "$VENV/bin/electrumx_server" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
    say "ElectrumX present ($VENV/bin/electrumx_server)"
    exit 0
fi

# The hashes are those of CPython 3.11's wheels: another interpreter would need other files.
python="$(command -v python3.11 || command -v python3 || true)"
if [ -z "$python" ] || ! "$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    say "CPython 3.11 is needed (the pinned wheels are cp311); install it with: apt-get install python3.11 python3.11-venv"
    exit 1
fi

rm -rf "$VENV"
say "creating $VENV"
"$python" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps)
say "installing the pinned setuptools (to build e-x's sdist)"
"${pip[@]}" -r "$BUILD_REQS"
say "installing e-x 2.0.0, plyvel and their dependencies (hash-checked)"
"${pip[@]}" --no-build-isolation -r "$REQS"
"$VENV/bin/python" -c 'import electrumx, plyvel, aiorpcx, aiohttp' \
    || { say "the installed ElectrumX does not import; see the errors above"; exit 1; }
echo "$want" > "$STAMP"
say "ElectrumX installed: $VENV/bin/electrumx_server"
