#!/usr/bin/env bash
# Runs a partitioned solve as N processes on this machine, over loopback TCP.
#
#   scripts/cluster-local.sh N MAP [solve flags...]
#   scripts/cluster-local.sh 3 data/movingai/arena.map --cop 5,20 --thief 40,30 --exits rim --workers 2 --json
#
# Runs from any folder: MAP, RETROGRADE and the paths among the flags
# (--save, --hostfile, --scen, ...) are read as the caller gave them,
# relative to the caller's folder.
#
# Process 0 prints the report on stdout; processes 1..N-1 run quietly (their
# errors still reach stderr). The exit status is the first non-zero one.
# Environment: RETROGRADE (a binary built with --features distributed;
# default: build target/release/retrograde), PORT (first port, default 2101:
# process i listens on PORT + i).
set -uo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 N MAP [solve flags...]" >&2
    exit 2
fi
n=$1
map=$2
shift 2
if [ -z "${RETROGRADE:-}" ]; then
    # The repository this script is in, built in its own target folder
    # (or $CARGO_TARGET_DIR); the solve itself stays in the caller's folder.
    root=$(cd "$(dirname "$0")/.." && pwd) || exit 2
    cargo build --release --quiet --features distributed --manifest-path "$root/Cargo.toml" || exit 2
    RETROGRADE=${CARGO_TARGET_DIR:-$root/target}/release/retrograde
fi
port=${PORT:-2101}
# Processes 1..N-1 run quietly (once: clap refuses a repeated --quiet).
quiet=--quiet
for arg in "$@"; do
    if [ "$arg" = --quiet ] || [ "$arg" = -q ]; then
        quiet=
    fi
done
pids=()
# On any exit, stop the processes this script started that still run.
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null
    done
}
trap cleanup EXIT
for ((i = 1; i < n; i++)); do
    "$RETROGRADE" solve "$map" "$@" --processes "$n" --process "$i" --port "$port" $quiet &
    pids+=($!)
done
"$RETROGRADE" solve "$map" "$@" --processes "$n" --process 0 --port "$port"
status=$?
for pid in "${pids[@]}"; do
    wait "$pid"
    s=$?
    if [ "$status" -eq 0 ] && [ "$s" -ne 0 ]; then
        status=$s
    fi
done
pids=()
exit "$status"
