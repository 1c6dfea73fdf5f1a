#!/usr/bin/env bash
# Side-by-side comparison with the C++ on-the-fly reference solver on the
# same maps (same starts and exits: the seed files carry them), in one run.
# Runs alternate (peer, ours, peer, ours, ...) so machine drift hits both.
#
#   scripts/compare-peer.sh [RUNS] [MAP.txt ...]
#
# Without maps it generates den312d (from ../shared, border exits) and a
# 150 x 150 map with 20% random walls (6.4e8 states). Prints a markdown table
# of median wall time and peak memory, and the ratios. Needs g++ and
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
echo "| map | states | peer s | ours 1 thread s | ours all threads s | peer/ours (1 thread) | peer/ours (all) | peer peak | ours peak (1 thread) | ours bytes/state |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for map in "${maps[@]}"; do
  : > "$work/p"; : > "$work/s"; : > "$work/a"
  for _ in $(seq "$runs"); do
    measure "$work/cpp_implicit" "$map" >> "$work/p"
    measure "$bin" solve "$map" --engine sequential --quiet >> "$work/s"
    measure "$bin" solve "$map" --engine parallel --quiet >> "$work/a"
  done
  states=$("$bin" solve "$map" --json --quiet --engine sequential | python3 -c 'import json,sys; print(json.load(sys.stdin)["states"])')
  pt=$(cut -d' ' -f1 "$work/p" | median); st=$(cut -d' ' -f1 "$work/s" | median); at=$(cut -d' ' -f1 "$work/a" | median)
  pm=$(cut -d' ' -f2 "$work/p" | median); sm=$(cut -d' ' -f2 "$work/s" | median)
  python3 - "$map" "$states" "$pt" "$st" "$at" "$pm" "$sm" <<'PY'
import sys, os
m, n, pt, st, at, pm, sm = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
print(f"| {os.path.basename(m)} | {n:.2e} | {pt:.2f} | {st:.2f} | {at:.2f} | {pt/st:.2f}x | {pt/at:.2f}x "
      f"| {pm/1024:.0f} MiB | {sm/1024:.0f} MiB | {sm*1024/n:.2f} |")
PY
done
