#!/usr/bin/env bash
# The several-cops engine's speed and scaling beside the one-cop engine's:
# for a several-cops game (default: two cops on room-32-32-4 with border
# exits, 3.2e8 states) and a one-cop map of similar state count (an open
# 126 x 126 map, 14% walls: 3.2e8 states), wall time, CPU time (user +
# sys) and CPU nanoseconds per state at 1, 2, 4, ... up to `nproc` threads,
# runs alternating between the two games, medians of RUNS. With OLD=BINARY
# the same several-cops game is also timed with that binary, alternating
# (paired before/after figures).
#
#   scripts/kcop-scaling.sh [RUNS]
#   KGAME="path/map.map --cops 2 --exits border" scripts/kcop-scaling.sh 3
#
# Run from the repository root after `cargo build --release`; reads
# ../shared/data/movingai/ when KGAME is left at its default.
set -euo pipefail
RUNS=${1:-3}
BIN=${BIN:-target/release/retrograde}
OLD=${OLD:-}
KGAME=${KGAME:-../shared/data/movingai/room-32-32-4.map --cops 2 --exits border}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 scripts/make-map.py open 126 126 --walls 0.14 --seed 1 > "$TMP/one.txt"
ONE="$TMP/one.txt --engine bitboard"

threads=(1)
t=2
while [ "$t" -le "$(nproc)" ]; do threads+=("$t"); t=$((t * 2)); done

# Prints "wall cpu states" of one solve.
one_run() {
  local bin=$1 t=$2
  shift 2
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e %U %S" -o "$TMP/time" "$bin" solve $* --threads "$t" --json -q > "$TMP/out.json"
  local states
  states=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["states"])' "$TMP/out.json")
  read -r wall user sys < "$TMP/time"
  echo "$wall $(echo "$user + $sys" | bc) $states"
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }

echo "| game | binary | threads | wall (s) | CPU (s) | CPU ns per state | speed-up |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
declare -A base
for t in "${threads[@]}"; do
  for run in $(seq "$RUNS"); do
    one_run "$BIN" "$t" "$KGAME" >> "$TMP/k-$t"
    [ -n "$OLD" ] && one_run "$OLD" "$t" "$KGAME" >> "$TMP/o-$t"
    one_run "$BIN" "$t" "$ONE" >> "$TMP/1-$t"
  done
  for kind in k o 1; do
    [ -f "$TMP/$kind-$t" ] || continue
    wall=$(cut -d' ' -f1 "$TMP/$kind-$t" | median)
    cpu=$(cut -d' ' -f2 "$TMP/$kind-$t" | median)
    states=$(head -1 "$TMP/$kind-$t" | cut -d' ' -f3)
    [ "$t" = 1 ] && base[$kind]=$wall
    case $kind in
      k) game="several cops: $KGAME"; bin=$BIN ;;
      o) game="several cops: $KGAME"; bin=$OLD ;;
      1) game="one cop: open 126 x 126, 14% walls"; bin=$BIN ;;
    esac
    ns=$(echo "scale=2; $cpu * 1000000000 / $states" | bc)
    up=$(echo "scale=2; ${base[$kind]} / $wall" | bc)
    echo "| $game | $bin | $t | $wall | $cpu | $ns | ${up}x |"
  done
done
