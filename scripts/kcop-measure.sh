#!/usr/bin/env bash
# Measures the bit-parallel k-cop engine (src/copnumber/) and `copnumber`:
#   1. three cops on a random connected 200-vertex graph of maximum degree 8
#      (C(202,3) * 200 * 2 = 5.4e8 states), every state solved;
#   2. `nauty-geng -c 10 | retrograde copnumber -` (all 11,716,571 connected
#      graphs on 10 vertices), with and without --counts, and the fraction
#      0/20 of it (if nauty-geng is installed).
# Wall time, CPU time and peak memory from /usr/bin/time. Run from the
# repository root after `cargo build --release`.
set -euo pipefail
BIN=${BIN:-target/release/retrograde}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
N=${N:-200} DEG=${DEG:-8} COPS=${COPS:-3} SEED=${SEED:-1}

python3 - "$N" "$DEG" "$SEED" > "$TMP/graph.txt" <<'PY'
import random, sys
n, deg, seed = map(int, sys.argv[1:])
rng = random.Random(seed)
edges, d = set(), [0] * n
# A random spanning tree first (connected), then random edges up to the
# degree bound.
order = list(range(n)); rng.shuffle(order)
for i in range(1, n):
    v = order[i]
    while True:
        u = order[rng.randrange(i)]
        if d[u] < deg:
            break
    edges.add((min(u, v), max(u, v))); d[u] += 1; d[v] += 1
tries = 0
while tries < 200000:
    tries += 1
    u, v = rng.randrange(n), rng.randrange(n)
    if u != v and d[u] < deg and d[v] < deg and (min(u, v), max(u, v)) not in edges:
        edges.add((min(u, v), max(u, v))); d[u] += 1; d[v] += 1
print(f"# random connected graph, {n} vertices, max degree {max(d)}, {len(edges)} edges, seed {seed}")
for u, v in sorted(edges):
    print(u, v)
PY

measure() {
    local label=$1; shift
    /usr/bin/time -f "$label: %e s wall, %U s user, %S s system, %M KiB peak" "$@"
}

# The king's graph of a 10 x 20 board (cops and thief move in 8
# directions): 200 vertices of maximum degree 8 where the game lasts many
# levels, unlike a random graph where three cops rarely win.
python3 - > "$TMP/king.txt" <<'PY'
R, C = 10, 20
print(f"# king's graph {R} x {C}")
for r in range(R):
    for c in range(C):
        for dr, dc in ((0, 1), (1, -1), (1, 0), (1, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < R and 0 <= cc < C:
                print(r * C + c, rr * C + cc)
PY

echo "== $COPS cops, random graph: $(head -1 "$TMP/graph.txt")"
measure "full solve" "$BIN" copnumber "$TMP/graph.txt" --full-solve "$COPS"
measure "cop number (at most 3 cops)" "$BIN" copnumber "$TMP/graph.txt" --max-cops 3
echo "== $COPS cops, $(head -1 "$TMP/king.txt")"
measure "full solve" "$BIN" copnumber "$TMP/king.txt" --full-solve "$COPS"

if command -v nauty-geng > /dev/null; then
    echo "== nauty-geng -c 10 0/20"
    measure "geng alone" bash -c "nauty-geng -cq 10 0/20 > /dev/null"
    measure "copnumber --counts" bash -c "nauty-geng -cq 10 0/20 | $BIN copnumber - --counts"
    measure "copnumber" bash -c "nauty-geng -cq 10 0/20 | $BIN copnumber - | tail -5"
    if [ "${FULL:-1}" = 1 ]; then
        echo "== nauty-geng -c 10 (all 11,716,571 connected graphs)"
        measure "geng alone" bash -c "nauty-geng -cq 10 > /dev/null"
        measure "copnumber --counts" bash -c "nauty-geng -cq 10 | $BIN copnumber - --counts"
        measure "copnumber" bash -c "nauty-geng -cq 10 | $BIN copnumber - | tail -6"
    fi
fi
uptime
