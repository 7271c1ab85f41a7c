#!/usr/bin/env bash
# Installs PyPI `prometheus-client` 0.21.1 into .build/prometheus-venv, hash-checked against
# scripts/prometheus-requirements.txt: an independent parser of Prometheus' text format,
# which StatusMetricsTests runs on the node's /metrics. `scripts/setup.sh --status` runs
# this (make test does). Safe to run again: skipped when the venv holds the pinned set.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec "$ROOT/scripts/python-venv.sh" prometheus-client "$ROOT/.build/prometheus-venv" \
    "$ROOT/scripts/prometheus-requirements.txt" \
    'from prometheus_client.parser import text_string_to_metric_families'
