#!/usr/bin/env bash
# Side-by-side comparison with the C++ on-the-fly reference solver on the
# same maps (same starts and exits: the seed files carry them), in one run.
# Runs alternate (peer, ours, peer, ours, ...) so machine drift hits both.
#
#   scripts/compare-peer.sh [RUNS] [MAP.txt ...]
#
# Without maps it generates den312d (from ../shared, border exits) and a
# 150 x 150 map with 20% random walls (6.4e8 states). Prints a markdown table
# of median wall time and peak memory of the peer, our default engine
# (bitboard) and --engine parallel (all cores), and the ratios. Needs g++ and
# /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}; shift || true
work=${TMPDIR:-/tmp}/retrograde-compare; mkdir -p "$work"
peer_src=../shared/peers/cpp_implicit.cpp
[ -f "$peer_src" ] || { echo "peer source $peer_src not found" >&2; exit 2; }
g++ -O2 -o "$work/cpp_implicit" "$peer_src"
cargo build --release --quiet
bin=target/release/retrograde
maps=("$@")
if [ ${#maps[@]} -eq 0 ]; then
  scripts/make-map.py convert ../shared/data/movingai/den312d.map > "$work/den312d.txt"
  scripts/make-map.py open 150 150 --walls 0.2 > "$work/open150-w20.txt"
  maps=("$work/den312d.txt" "$work/open150-w20.txt")
fi
measure() { # prints "seconds kilobytes" of one run
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2>/dev/null
  cat "$work/time"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| map | states | peer s | ours bitboard s | ours parallel s | peer/bitboard | peer/parallel | peer peak | bitboard peak | parallel peak | bitboard bytes/state |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for map in "${maps[@]}"; do
  : > "$work/p"; : > "$work/b"; : > "$work/a"
  for _ in $(seq "$runs"); do
    measure "$work/cpp_implicit" "$map" >> "$work/p"
    measure "$bin" solve "$map" --engine bitboard --no-summary --quiet >> "$work/b"
    measure "$bin" solve "$map" --engine parallel --no-summary --quiet >> "$work/a"
  done
  states=$("$bin" solve "$map" --json --quiet --no-summary | python3 -c 'import json,sys; print(json.load(sys.stdin)["states"])')
  col() { cut -d' ' -f"$2" "$work/$1" | median; }
  python3 - "$map" "$states" "$(col p 1)" "$(col b 1)" "$(col a 1)" "$(col p 2)" "$(col b 2)" "$(col a 2)" <<'PY'
import sys, os
m, n, pt, bt, at, pm, bm, am = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
print(f"| {os.path.basename(m)} | {n:.2e} | {pt:.2f} | {bt:.2f} | {at:.2f} | {pt/bt:.1f}x | {pt/at:.1f}x "
      f"| {pm/1024:.0f} MiB | {bm/1024:.0f} MiB | {am/1024:.0f} MiB | {bm*1024/n:.2f} |")
PY
done
