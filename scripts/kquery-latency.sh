#!/usr/bin/env bash
# Query latency of two-cop tables, side by side: saves the same solve with
# this build (format 5, states in thief tiles) and, when given, with an
# older binary (e.g. format 4, states by cop multiset), then times probes,
# whole queries (the probe and every move rated) and heatmaps on each,
# alternating, with examples/probe_latency (this build's reader).
#
#   scripts/kquery-latency.sh [SIDE] [OLD_BINARY]     default side: 32
#
# The map: `make-map.py open SIDE SIDE --walls 0.12 --seed 1`, every free
# border cell an exit, distances kept. Files go to bench-out/kquery/.
set -euo pipefail
cd "$(dirname "$0")/.."
side=${1:-32}
old=${2:-}
out=bench-out/kquery; mkdir -p "$out"
cargo build --release --quiet
cargo build --release --quiet --example probe_latency
new=target/release/retrograde
scripts/make-map.py open "$side" "$side" --walls 0.12 --seed 1 > "$out/m$side.txt"
flags=(--cops 2 --exits border --dte-table -q)
"$new" solve "$out/m$side.txt" "${flags[@]}" --save "$out/m$side-new.rtb"
tables=("$out/m$side-new.rtb")
if [ -n "$old" ]; then
  "$old" solve "$out/m$side.txt" "${flags[@]}" --save "$out/m$side-old.rtb"
  tables+=("$out/m$side-old.rtb")
fi
for t in "${tables[@]}"; do "$new" info "$t" | grep -E "format version|size:"; done
uptime
for run in 1 2; do
  for t in "${tables[@]}"; do
    echo "== run $run: $t"
    target/release/examples/probe_latency "$t" 20000 --cold | tail -3
  done
done
uptime
