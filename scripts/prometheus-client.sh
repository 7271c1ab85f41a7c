#!/usr/bin/env bash
# Installs PyPI `prometheus-client` 0.21.1 into .build/prometheus-venv, hash-checked against
# scripts/prometheus-requirements.txt: an independent parser of Prometheus' text format,
# which StatusMetricsTests runs on the node's /metrics. `scripts/setup.sh --status` runs
# this (make test does). Safe to run again: skipped when the venv holds the pinned set.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.build/prometheus-venv"
REQS="$ROOT/scripts/prometheus-requirements.txt"
STAMP="$VENV/requirements.sha256"

say() { printf 'prometheus-client: %s\n' "$*" >&2; }

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
"$VENV/bin/python" -c 'from prometheus_client.parser import text_string_to_metric_families' \
    || { say "the installed prometheus-client does not import; see the errors above"; exit 1; }
echo "$want" > "$STAMP"
say "installed: $VENV"
