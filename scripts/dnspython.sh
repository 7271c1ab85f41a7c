#!/usr/bin/env bash
# Installs PyPI `dnspython` 2.7.0 into .build/dnspython-venv, hash-checked against
# scripts/dnspython-requirements.txt: an independent DNS library, which the pkarr codec's
# tests (DNSPythonCrossCheckTests) run both ways. `scripts/setup.sh --pkarr` runs this (make
# test does). Safe to run again: skipped when the venv holds the pinned set.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec "$ROOT/scripts/python-venv.sh" dnspython "$ROOT/.build/dnspython-venv" \
    "$ROOT/scripts/dnspython-requirements.txt" 'import dns.message, dns.rdtypes.svcbbase'
