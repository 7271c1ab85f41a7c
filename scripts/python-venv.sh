#!/usr/bin/env bash
# Installs a hash-pinned set of PyPI packages into a venv of its own under .build:
#   scripts/python-venv.sh <label> <venv dir> <requirements file> <python statement that imports them>
# Every file is checked against the sha256 pinned in the requirements (pip --require-hashes,
# --no-deps: the file lists everything). Safe to run again: skipped when the venv holds the
# pinned set (a stamp of the requirements file's hash).
set -euo pipefail

LABEL="$1"
VENV="$2"
REQS="$3"
CHECK="$4"
STAMP="$VENV/requirements.sha256"

say() { printf '%s: %s\n' "$LABEL" "$*" >&2; }

want="$(sha256sum "$REQS" | cut -d' ' -f1)"
if [ -x "$VENV/bin/python" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
    say "present ($VENV)"
    exit 0
fi
python="$(command -v python3 || true)"
if [ -z "$python" ]; then
    say "python3 with venv is needed; install it with: apt-get install python3-venv"
    exit 1
fi
rm -rf "$VENV"
say "creating $VENV"
"$python" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r "$REQS"
"$VENV/bin/python" -c "$CHECK" \
    || { say "the installed packages do not import; see the errors above"; exit 1; }
echo "$want" > "$STAMP"
say "installed: $VENV"
