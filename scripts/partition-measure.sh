#!/usr/bin/env bash
# Partitioned solves against the local bit engine, side by side: for each
# pair, N processes x W workers on loopback (scripts/cluster-local.sh) and
# then one local solve on N * W threads, PAIRS times in turn; the wall time
# of each (from `date`), the peak resident memory of each process (the
# cluster's own JSON `peak_memory_per_process`, the local solve's
# `/usr/bin/time -v`), the bytes exchanged, and the medians and ratios.
#
#   scripts/partition-measure.sh MAP [solve flags...]
#   N=2 W=1 PAIRS=3 scripts/partition-measure.sh /tmp/open150.txt
#
# Environment: RETROGRADE (a binary built with --features distributed;
# default target/release/retrograde), N (processes, default 2), W (workers
# per process, default 1), PAIRS (default 3), PORT (default 2301).
# Run from anywhere on a quiet machine; the maps of the measurements:
#   scripts/make-map.py open 150 150 --walls 0.2 --seed 1 > /tmp/open150.txt
set -euo pipefail
if [ $# -lt 1 ]; then
    echo "usage: $0 MAP [solve flags...]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
map=$(realpath "$1")
shift
bin=$(realpath "${RETROGRADE:-$here/../target/release/retrograde}")
n=${N:-2} w=${W:-1} pairs=${PAIRS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
threads=$((n * w))
echo "map: $map; flags: $*; $n processes x $w workers against $threads local threads; $pairs pairs"
for ((i = 1; i <= pairs; i++)); do
    t0=$(date +%s.%N)
    RETROGRADE="$bin" PORT=${PORT:-2301} "$here/cluster-local.sh" "$n" "$map" "$@" \
        --workers "$w" --json --quiet > "$tmp/cluster.json"
    t1=$(date +%s.%N)
    /usr/bin/time -v "$bin" solve "$map" "$@" --threads "$threads" --json --quiet \
        > "$tmp/local.json" 2> "$tmp/local.time"
    t2=$(date +%s.%N)
    python3 - "$tmp" "$t0" "$t1" "$t2" "$i" >> "$tmp/rows" <<'PY'
import json, re, sys
tmp, t0, t1, t2, i = sys.argv[1], *map(float, sys.argv[2:5]), sys.argv[5]
c = json.load(open(f"{tmp}/cluster.json"))
l = json.load(open(f"{tmp}/local.json"))
assert c["counts"] == l["counts"] and c["levels"] == l["levels"], "the two solves disagree"
peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(f"{tmp}/local.time").read()).group(1)) * 1024
print(json.dumps({"pair": int(i), "cluster_s": t1 - t0, "local_s": t2 - t1,
                  "peaks": c["peak_memory_per_process"], "local_peak": peak,
                  "bytes": c["exchange"]["bytes"], "levels": c["levels"], "engine": c.get("kernel")}))
PY
    tail -1 "$tmp/rows"
done
python3 - "$tmp/rows" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
med = lambda xs: statistics.median(xs)
mib = 1 << 20
ratio = med([r["cluster_s"] / r["local_s"] for r in rows])
peak = med([max(r["peaks"]) for r in rows])
local_peak = med([r["local_peak"] for r in rows])
print(f"median wall: cluster {med([r['cluster_s'] for r in rows]):.2f} s, local {med([r['local_s'] for r in rows]):.2f} s; "
      f"ratio (pair by pair) {ratio:.2f}x")
print(f"median peak: largest process {peak / mib:.1f} MiB, local {local_peak / mib:.1f} MiB; "
      f"ratio {peak / local_peak:.2f}x")
print(f"bytes exchanged: {rows[0]['bytes']} in {rows[0]['levels']} levels; kernel {rows[0]['engine']}")
PY
