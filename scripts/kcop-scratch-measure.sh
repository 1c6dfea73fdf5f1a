#!/usr/bin/env bash
# Measures the bit-parallel k-cop engine in memory against the same solve
# with its arrays in scratch files (`--memory` below the need,
# `--scratch DIR`), side by side in one run: two cops on
# data/maps/movingai/maze-32-32-2.map (666 cells, 2.96e8 states) with the
# distance table, alternating memory / scratch runs. With BASE=path to
# another build, first the same solve in memory with that build and this
# one, alternating (CPU time is the figure to compare on a shared box).
# Wall time, CPU time and peak memory from /usr/bin/time. Run from the
# repository root after `cargo build --release`.
set -euo pipefail
BIN=${BIN:-target/release/retrograde}
MAP=${MAP:-data/maps/movingai/maze-32-32-2.map}
COPS=${COPS:-2} RUNS=${RUNS:-2} CAP=${CAP:-128M}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Runs a command, keeping its notes about scratch files; then its times.
measure() {
    local label=$1; shift
    /usr/bin/time -o "$TMP/time" -f "$label: %e s wall, %U s user, %S s system, %M KiB peak" \
        "$@" 2>&1 > /dev/null | grep -a "scratch files" | tr '\r' '\n' | grep -a "scratch files" | tail -1 || true
    cat "$TMP/time"
}

if [ -n "${BASE:-}" ]; then
    echo "== $COPS cops on $MAP, values only, in memory: $BASE against $BIN"
    for i in $(seq "$RUNS"); do
        measure "base   run $i" "$BASE" solve -q "$MAP" --cops "$COPS"
        measure "this   run $i" "$BIN" solve -q "$MAP" --cops "$COPS"
    done
fi
echo "== $COPS cops on $MAP, --dte-table: memory against --memory $CAP --scratch"
for i in $(seq "$RUNS"); do
    measure "memory  run $i" "$BIN" solve -q "$MAP" --cops "$COPS" --dte-table
    measure "scratch run $i" "$BIN" solve "$MAP" --cops "$COPS" --dte-table --memory "$CAP" --scratch "$TMP"
done
uptime
