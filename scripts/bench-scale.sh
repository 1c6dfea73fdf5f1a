#!/usr/bin/env bash
# Explicit graph vs on the fly over growing maps: runs `retrograde bench` on
# generated open maps (border exits) of increasing size and writes
# bench-out/scale.csv, then plots time and memory against states
# (bench-out/scale.png, via scripts/plot-bench.py).
#
#   scripts/bench-scale.sh [SIDE ...]      default sides: 10 20 30 40 50 60 80
set -euo pipefail
cd "$(dirname "$0")/.."
sides=("$@"); [ ${#sides[@]} -gt 0 ] || sides=(10 20 30 40 50 60 80)
out=bench-out; mkdir -p "$out/maps"
cargo build --release --quiet
maps=()
for s in "${sides[@]}"; do
  scripts/make-map.py open "$s" "$s" --walls 0.2 --seed 3 > "$out/maps/open$s.txt"
  maps+=("$out/maps/open$s.txt")
done
target/release/retrograde bench "${maps[@]}" --engines explicit,sequential,parallel \
  --repeat 3 --export-csv "$out/scale.csv" --export-json "$out/scale.json"
python3 scripts/plot-bench.py "$out/scale.csv" "$out/scale.png"
