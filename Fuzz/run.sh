#!/usr/bin/env bash
# Builds the libFuzzer targets for the Transport module and runs each one in turn.
#
#   Fuzz/run.sh [runs]          runs defaults to 1000000 inputs per target
#
# Environment:
#   FUZZ_TARGETS    targets to run, space separated (default: all four)
#   FUZZ_MAX_TIME   safety cap in seconds per target (default: 3600)
#   FUZZ_BUILD_ONLY 1 to build and seed, then stop
#
# Everything it writes goes under .build/fuzz/: the instrumented modules, the target
# binaries, a working copy of the seed corpus (grown by the run, so Fuzz/corpus stays
# as committed), the logs and any crash artifacts. Exits non-zero if a target crashes,
# times out, runs out of memory, or stops at the time cap short of the requested runs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/.build/fuzz"
MODULES="$OUT/modules"
RUNS="${1:-1000000}"
MAX_TIME="${FUZZ_MAX_TIME:-3600}"
ALL_TARGETS=(FuzzFrameDecoder FuzzResponderHandshake FuzzHTTPParser FuzzJSON)
read -r -a TARGETS <<< "${FUZZ_TARGETS:-${ALL_TARGETS[*]}}"

say() { printf 'fuzz: %s\n' "$*" >&2; }

case "$RUNS" in
    '' | *[!0-9]*) say "runs must be a number, got '$RUNS'"; exit 2 ;;
esac

SWIFTC="$(command -v swiftc || true)"
if [ -z "$SWIFTC" ]; then
    say "swiftc not found on PATH"
    exit 1
fi
TOOLCHAIN_BIN="$(dirname "$(readlink -f "$SWIFTC")")"
# Symbolized stacks in crash reports; the toolchain ships its own symbolizer.
export ASAN_SYMBOLIZER_PATH="$TOOLCHAIN_BIN/llvm-symbolizer"
# Swift's own crash backtracer reads the dying process's memory, which ASan reports as a
# heap-buffer-overflow in the backtracer, hiding the real trap. With it off, a failed
# precondition reaches libFuzzer as SIGILL and is reported with its Swift stack.
export SWIFT_BACKTRACE=enable=no

cd "$ROOT"
mkdir -p "$MODULES"

# The C shims are system-library module maps; swiftc finds them through -I.
SHIMS=(-I Sources/CSodium -I Sources/CSecp256k1 -I Sources/CBitcoinKernel -I Sources/CLibUV)
# -O keeps preconditions (they are what the fuzzer is looking for to fail), -g gives
# line numbers in stacks. Instrumenting the libraries, not just the harness, is what
# gives libFuzzer coverage of the code under test.
INSTRUMENT=(-O -g -parse-as-library -sanitize=fuzzer,address)
# lld, because gold warns about ASan's local symbols on every link.
LINK=(-use-ld=lld -L "$MODULES" -lTransport -lBitcoin -lsodium -lsecp256k1 -luv)

# Rebuilds a module only when one of its sources (or a module it imports) is newer.
build_module() {
    local name="$1"; shift
    local library="$MODULES/lib$name.a"
    if [ -f "$library" ] && [ -z "$(find "Sources/$name" "$@" -newer "$library" -print -quit)" ]; then
        say "$name up to date"
        return
    fi
    say "building $name (instrumented)"
    local sources=()
    mapfile -t sources < <(find "Sources/$name" -name '*.swift' | sort)
    "$SWIFTC" "${INSTRUMENT[@]}" -wmo -module-name "$name" "${SHIMS[@]}" -I "$MODULES" \
        -emit-module -emit-module-path "$MODULES/$name.swiftmodule" \
        -emit-library -static -o "$library" "${sources[@]}"
}

build_module Bitcoin
build_module Transport "$MODULES/libBitcoin.a"

# The harnesses are ours, so they build with zero warnings or not at all.
for target in "${TARGETS[@]}"; do
    say "building $target"
    "$SWIFTC" "${INSTRUMENT[@]}" -warnings-as-errors "${SHIMS[@]}" -I "$MODULES" \
        "Fuzz/$target.swift" "${LINK[@]}" -o "$OUT/$target"
done
# The seed generator only calls the library, so it needs ASan (whose runtime also
# answers the coverage hooks in the instrumented modules) but not libFuzzer's main.
say "building SeedGenerator"
"$SWIFTC" -O -parse-as-library -sanitize=address -warnings-as-errors "${SHIMS[@]}" -I "$MODULES" \
    Fuzz/SeedGenerator.swift "${LINK[@]}" -o "$OUT/SeedGenerator"

# Fresh working corpora every run, so the reported numbers start from the same seeds.
rm -rf "$OUT/corpus" "$OUT/artifacts" "$OUT/logs"
mkdir -p "$OUT/corpus" "$OUT/artifacts" "$OUT/logs"
for target in "${TARGETS[@]}"; do
    cp -R "Fuzz/corpus/$target" "$OUT/corpus/$target"
    mkdir -p "$OUT/artifacts/$target"
done
# Handshake seeds from the current code overwrite the committed ones (same names), so a
# change to the prologue or pattern cannot leave the fuzzer with stale messages.
if [ -d "$OUT/corpus/FuzzResponderHandshake" ]; then
    "$OUT/SeedGenerator" "$OUT/corpus/FuzzResponderHandshake"
fi

if [ "${FUZZ_BUILD_ONLY:-0}" = 1 ]; then
    say "built into $OUT"
    exit 0
fi

# libFuzzer's own exec/s is whole runs over whole seconds, too coarse for short runs, so
# the table divides the executed inputs by the measured wall time (build excluded).
# Pulls "key: value" out of libFuzzer's last status line ("#N DONE cov: .. ft: ..").
status_field() { grep -E '^#[0-9]+' "$1" | tail -n 1 | sed -nE "s/.* $2: ([^ ]+).*/\\1/p"; }
stat_field() { sed -nE "s/^stat::$2: *([0-9]+)/\\1/p" "$1" | tail -n 1; }

failed=0
results=()
for target in "${TARGETS[@]}"; do
    log="$OUT/logs/$target.log"
    args=(-runs="$RUNS" -max_total_time="$MAX_TIME" -print_final_stats=1 -timeout=10
          -rss_limit_mb=2048 -artifact_prefix="$OUT/artifacts/$target/")
    if [ -f "Fuzz/dict/$target.dict" ]; then args+=(-dict="Fuzz/dict/$target.dict"); fi
    say "running $target for $RUNS inputs (cap ${MAX_TIME}s), log in $log"
    start=$(date +%s.%N)
    status=0
    "$OUT/$target" "${args[@]}" "$OUT/corpus/$target" > "$log" 2>&1 || status=$?
    seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    executed=$(stat_field "$log" number_of_executed_units)
    verdict=ok
    if [ "$status" -ne 0 ]; then
        verdict="FAILED (exit $status)"
        failed=1
        say "$target failed; its log ends:"
        tail -n 40 "$log" >&2
        ls -1 "$OUT/artifacts/$target" >&2 || true
    elif [ "${executed:-0}" -lt "$RUNS" ]; then
        verdict="SHORT (time cap)"
        failed=1
    fi
    results+=("$(printf '%-24s %10s %9.1f %8s %6s %7s %7s  %s' "$target" "${executed:-?}" "$seconds" \
        "$(awk -v n="${executed:-0}" -v s="$seconds" 'BEGIN { printf "%d", (s > 0 ? n / s : 0) }')" \
        "$(status_field "$log" cov)" \
        "$(status_field "$log" ft)" "$(stat_field "$log" peak_rss_mb)" "$verdict")")
done

printf '\n%-24s %10s %9s %8s %6s %7s %7s  %s\n' target inputs seconds exec/s cov ft rss_mb result
printf '%s\n' "${results[@]}"
exit "$failed"
