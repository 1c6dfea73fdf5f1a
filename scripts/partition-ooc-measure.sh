#!/usr/bin/env bash
# One cop's partitioned bands out of core on the bit engine, side by side
# with the same cluster in memory and the local bit engine out of core
# under the same total cap: for each round, N processes x W workers on
# loopback with --scratch and --memory CAP (scripts/cluster-local.sh), the
# same cluster without either, and one local solve on N * W threads with
# --scratch and --memory N * CAP; ROUNDS times in turn. Prints the wall time
# of each (from `date`), the peak resident memory of each process (the
# cluster's JSON `peak_memory_per_process`, the local solve's
# `/usr/bin/time -v`), the bytes read from and written to disk by all
# the processes (`/usr/bin/time -v`'s file system inputs and outputs:
# reads the page cache served are not counted), and the medians and
# ratios.
#
#   CAP=52M scripts/partition-ooc-measure.sh MAP [solve flags...]
#   scripts/make-map.py open 150 150 --walls 0.2 --seed 1 > /tmp/open150.txt
#   CAP=52M N=2 W=1 ROUNDS=3 scripts/partition-ooc-measure.sh /tmp/open150.txt
#
# Environment: RETROGRADE (a binary built with --features distributed;
# default target/release/retrograde), CAP (each process's --memory,
# required), N (processes, default 2), W (workers per process, default 1),
# ROUNDS (default 3), PORT (default 2301), SCRATCH (default: a temporary
# folder).
set -euo pipefail
if [ $# -lt 1 ] || [ -z "${CAP:-}" ]; then
    echo "usage: CAP=SIZE $0 MAP [solve flags...]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
map=$(realpath "$1")
shift
bin=$(realpath "${RETROGRADE:-$here/../target/release/retrograde}")
n=${N:-2} w=${W:-1} rounds=${ROUNDS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scratch=${SCRATCH:-$tmp/scratch}
mkdir -p "$scratch"
threads=$((n * w))
total=$(python3 -c "
import re, sys
m = re.fullmatch(r'(\d+(?:\.\d+)?)([KMG]?)', '$CAP')
print(int(float(m.group(1)) * {'': 1, 'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}[m.group(2)] * $n))")
echo "map: $map; flags: $*; $n processes x $w workers, --memory $CAP each; local on $threads threads, --memory $total; $rounds rounds"
# The cluster with `$@`, its report in $1.json and the rusage of all its
# processes in $1.time.
cluster() {
    local out=$1
    shift
    /usr/bin/time -v env RETROGRADE="$bin" PORT=${PORT:-2301} "$here/cluster-local.sh" "$n" "$map" "$@" \
        --workers "$w" --json --quiet > "$out.json" 2> "$out.time"
}
for ((i = 1; i <= rounds; i++)); do
    t0=$(date +%s.%N)
    cluster "$tmp/ooc" "$@" --scratch "$scratch" --memory "$CAP"
    t1=$(date +%s.%N)
    cluster "$tmp/mem" "$@"
    t2=$(date +%s.%N)
    /usr/bin/time -v "$bin" solve "$map" "$@" --threads "$threads" --scratch "$scratch" \
        --memory "$total" --json --quiet > "$tmp/local.json" 2> "$tmp/local.time"
    t3=$(date +%s.%N)
    python3 - "$tmp" "$t0" "$t1" "$t2" "$t3" "$i" >> "$tmp/rows" <<'PY'
import json, re, sys
tmp, t0, t1, t2, t3, i = sys.argv[1], *map(float, sys.argv[2:6]), sys.argv[6]
o = json.load(open(f"{tmp}/ooc.json"))
m = json.load(open(f"{tmp}/mem.json"))
l = json.load(open(f"{tmp}/local.json"))
for r in (o, m):
    assert r["counts"] == l["counts"] and r["levels"] == l["levels"] and r["kernel"] == "bitboard", "the solves disagree"
def field(path, name):
    return int(re.search(name + r": (\d+)", open(path).read()).group(1))
peak = field(f"{tmp}/local.time", r"Maximum resident set size \(kbytes\)") * 1024
io = lambda p: [field(p, r"File system inputs") * 512, field(p, r"File system outputs") * 512]
print(json.dumps({"round": int(i), "ooc_s": t1 - t0, "mem_s": t2 - t1, "local_s": t3 - t2,
                  "ooc_peaks": o["peak_memory_per_process"], "mem_peaks": m["peak_memory_per_process"],
                  "local_peak": peak, "ooc_io": io(f"{tmp}/ooc.time"), "local_io": io(f"{tmp}/local.time"),
                  "levels": l["levels"]}))
PY
    tail -1 "$tmp/rows"
done
python3 - "$tmp/rows" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
med = statistics.median
mib = 1 << 20
print(f"median wall: out of core {med([r['ooc_s'] for r in rows]):.2f} s, in memory {med([r['mem_s'] for r in rows]):.2f} s, "
      f"local out of core {med([r['local_s'] for r in rows]):.2f} s; ratios (round by round): "
      f"out of core / in memory {med([r['ooc_s'] / r['mem_s'] for r in rows]):.2f}x, "
      f"out of core / local out of core {med([r['ooc_s'] / r['local_s'] for r in rows]):.2f}x")
print(f"median peak: largest process out of core {med([max(r['ooc_peaks']) for r in rows]) / mib:.1f} MiB, "
      f"in memory {med([max(r['mem_peaks']) for r in rows]) / mib:.1f} MiB, local out of core {med([r['local_peak'] for r in rows]) / mib:.1f} MiB")
print(f"disk (block counts): cluster out of core read {med([r['ooc_io'][0] for r in rows]) / mib:.0f} MiB, wrote {med([r['ooc_io'][1] for r in rows]) / mib:.0f} MiB; "
      f"local read {med([r['local_io'][0] for r in rows]) / mib:.0f} MiB, wrote {med([r['local_io'][1] for r in rows]) / mib:.0f} MiB; {rows[0]['levels']} levels")
PY
