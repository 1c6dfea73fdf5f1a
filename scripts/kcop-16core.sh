#!/usr/bin/env bash
# Several cops on a many-core machine (issue 31): two cops on den312d at
# nproc threads, then at 1 thread (stopped at LIMIT seconds, default 12
# times the many-thread wall: enough to show a 10x speed-up or its
# absence), three cops on the 10 x 20 king's graph at both, and with
# R64=path/to/random-64-64-10.map two cops on it in memory (5.0e10 states,
# 9.0 GiB). Prints wall, user and system time and peak resident memory
# from /usr/bin/time -v, and each solve's levels and start distance.
#
#   scripts/kcop-16core.sh            # from the repository root
#   BIN=path/to/retrograde R64=... scripts/kcop-16core.sh
#
# Needs a release build (`cargo build --release`) and python3.
set -u
BIN=${BIN:-target/release/retrograde}
R64=${R64:-}
T=$(nproc)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 - "$TMP/king.txt" <<'PY'
import sys
w, h = 20, 10  # 10 rows of 20, numbered row by row
edges = set()
for r in range(h):
    for c in range(w):
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                rr, cc = r + dr, c + dc
                if (dr or dc) and 0 <= rr < h and 0 <= cc < w:
                    a, b = r * w + c, rr * w + cc
                    edges.add((min(a, b), max(a, b)))
open(sys.argv[1], "w").write("".join(f"{a} {b}\n" for a, b in sorted(edges)))
PY
WALL=0
run() {
  local name=$1 limit=$2
  shift 2
  local start end rc
  start=$(date +%s.%N)
  timeout "$limit" /usr/bin/time -v "$@" > "$TMP/out.json" 2> "$TMP/time"
  rc=$?
  end=$(date +%s.%N)
  WALL=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  local user sys peak
  user=$(awk -F': ' '/User time/ { print $2 }' "$TMP/time")
  sys=$(awk -F': ' '/System time/ { print $2 }' "$TMP/time")
  peak=$(awk -F': ' '/Maximum resident/ { print $2 }' "$TMP/time")
  if [ "$rc" = 124 ]; then
    echo "| $name | stopped at ${limit} s | | | |"
  else
    local info
    info=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["levels"], "levels, dte", d["dte"])' "$TMP/out.json")
    echo "| $name | $WALL s | $user + $sys s | $peak KiB | $info |"
  fi
}
D=data/movingai/den312d.map
PL="--cop 2,5 --cop 78,62 --thief 42,28"
echo "| run | wall | CPU (user + sys) | peak resident | solve |"
echo "| --- | ---: | ---: | ---: | --- |"
# shellcheck disable=SC2086
run "king's graph, 3 cops, $T threads" 120 "$BIN" solve "$TMP/king.txt" --graph --cops 3 --threads "$T" --json -q
run "king's graph, 3 cops, 1 thread" 300 "$BIN" solve "$TMP/king.txt" --graph --cops 3 --threads 1 --json -q
# shellcheck disable=SC2086
run "den312d, 2 cops, $T threads" 600 "$BIN" solve $D --cops 2 $PL --threads "$T" --json -q
LIMIT=${LIMIT:-$(awk -v w="$WALL" 'BEGIN { print int(w * 12) + 5 }')}
# shellcheck disable=SC2086
run "den312d, 2 cops, 1 thread" "$LIMIT" "$BIN" solve $D --cops 2 $PL --threads 1 --json -q
if [ -n "$R64" ]; then
  run "random-64-64-10, 2 cops, $T threads" 1800 "$BIN" solve "$R64" --cops 2 --cop 0,0 --cop 0,2 --thief 63,59 --threads "$T" --json -q
fi
