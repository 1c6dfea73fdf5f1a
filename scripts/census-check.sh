#!/usr/bin/env bash
# Recomputes committed censuses with their check (`copnumber census --check`:
# every verdict against corner elimination, written apart from the solver)
# and compares each with data/census byte for byte; prints one row per order:
# graphs, dismantlable graphs, cop number 1 in the committed file, wall time.
#
# Usage: scripts/census-check.sh [connected|cubic] [N...]
#   connected (default): data/census/connected-N.txt, N = 1 to 10 by default
#   cubic: data/census/cubic-N.txt, N = 4, 6, ..., 20 by default
# Needs nauty (`nauty-geng`); RETROGRADE= another binary (default: the release
# build of $CARGO_TARGET_DIR or target/). Exit status 1 at the first difference.
set -euo pipefail
cd "$(dirname "$0")/.."
family=connected
if [ "${1:-}" = connected ] || [ "${1:-}" = cubic ]; then
  family=$1
  shift
fi
if [ $# -eq 0 ]; then
  if [ "$family" = connected ]; then set -- 1 2 3 4 5 6 7 8 9 10; else set -- 4 6 8 10 12 14 16 18 20; fi
fi
bin=${RETROGRADE:-${CARGO_TARGET_DIR:-target}/release/retrograde}
command -v nauty-geng >/dev/null || { echo "needs nauty-geng (apt-get install nauty)" >&2; exit 1; }
generator=(); [ "$family" = cubic ] && generator=(--generator 'nauty-geng -cq -d3 -D3 {n} {res}/{mod}')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| n | graphs | dismantlable (check) | cop number 1 (data/census) | same file | wall s |"
echo "| --- | ---: | ---: | ---: | --- | ---: |"
for n in "$@"; do
  want=data/census/$family-$n.txt
  start=$(date +%s.%N)
  "$bin" copnumber census --vertices "$n" "${generator[@]}" --check --json --quiet \
    --out "$work/$n" >"$work/$n.json"
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  same=yes
  cmp -s "$work/$n/census.txt" "$want" || same=no
  row=$(python3 - "$work/$n.json" "$want" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["check"]
ones = 0
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 4 and f[:3] == ["cops", "1", "graphs"]:
        ones = int(f[3])
ok = c["graphs"] == j["graphs"] and c["shards"] == j["shards"] and c["dismantlable"] == ones
print(f'{j["graphs"]} | {c["dismantlable"]} | {ones} | {"ok" if ok else "DIFFERENT"}')
EOF
)
  printf '| %s | %s | %s | %.1f |\n' "$n" "${row% | *}" "$same" "$wall"
  if [ "$same" != yes ] || [ "${row##* | }" != ok ]; then
    echo "n = $n: the census or its check differs from $want" >&2
    exit 1
  fi
done
