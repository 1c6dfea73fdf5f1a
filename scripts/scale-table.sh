#!/usr/bin/env bash
# Reproduces the scale table in README.md ("Large maps"): parallel speed-up,
# the C++ on-the-fly peer side by side, Berlin_1_256 with border exits, and a
# forced out-of-core run checked against the in-memory values. Prints a
# markdown table; numbers come from /usr/bin/time (wall seconds, peak RSS).
#
#   scripts/scale-table.sh [--quick|--record]
#     --quick   skips the 2e9-state map
#     --record  adds the 3.8e10-state record: a 400 x 400 map with 14% walls,
#               sweep engine, --scratch with --memory 16G, then --verify
#               (about an hour here; needs 45 GB free under $TMPDIR)
# Needs g++, python3, /usr/bin/time and ../shared (maps and peer source).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${1:-}
work=${TMPDIR:-/tmp}/retrograde-scale; mkdir -p "$work/scratch"
g++ -O2 -o "$work/cpp_implicit" ../shared/peers/cpp_implicit.cpp
cargo build --release --quiet
bin=$PWD/target/release/retrograde
scripts/make-map.py open 150 150 --walls 0.2 > "$work/open150.txt"
scripts/make-map.py open 200 200 --walls 0.2 > "$work/open200.txt"
scripts/make-map.py open 170 170 --walls 0.2 > "$work/open170.txt"
[ "$quick" = --record ] && scripts/make-map.py open 400 400 --walls 0.14 > "$work/open400.txt"
scripts/make-map.py convert ../shared/data/movingai/Berlin_1_256.map > "$work/berlin.txt"

row() { # label, command...; prints "| label | states | seconds | peak | bytes/state | result |"
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/t" "$@" > "$work/o" 2> "$work/e" || { echo "| $label | failed: $(tail -1 "$work/e") |"; return; }
  python3 - "$label" "$work/t" "$work/o" <<'PY'
import json, sys
label, tfile, ofile = sys.argv[1:]
sec, kb = open(tfile).read().split()
out = open(ofile).read()
try:
    r = json.loads(out)
    states, res = r["states"], f'{r["result"]} dte {r["dte"]} ({r["counts"]["win"]}/{r["counts"]["loss"]}/{r["counts"]["draw"]})'
except ValueError:  # the peer's text output
    lines = dict(l.split(":", 1) for l in out.splitlines() if ":" in l)
    states = int(out.split("states ")[1].split()[0])
    w, l, d = (int(x) for x in lines["win"].replace("loss:", "").replace("draw:", "").split())
    res = f'{lines["result"].split()[0]} dte {out.split("dte: ")[1].split()[0]} ({w}/{l}/{d})'
print(f"| {label} | {states:.2e} | {float(sec):.1f} | {int(kb)/2**20:.2f} GiB | {int(kb)*1024/states:.2f} | {res} |")
PY
}
echo "| run | states | wall s | peak RSS | bytes/state | result (win/loss/draw) |"
echo "|---|---|---|---|---|---|"
maps=(open150); [ "$quick" = --quick ] || maps+=(open200)
for m in "${maps[@]}"; do
  row "$m: C++ peer, 1 thread" "$work/cpp_implicit" "$work/$m.txt"
  row "$m: sequential, 1 thread" "$bin" solve "$work/$m.txt" --engine sequential --json -q
  row "$m: parallel, 2 threads" "$bin" solve "$work/$m.txt" --engine parallel --threads 2 --json -q
done
row "Berlin_1_256, border exits: parallel" "$bin" solve "$work/berlin.txt" --engine parallel --json -q
row "open170 in memory: parallel" "$bin" solve "$work/open170.txt" --json -q
row "open170 --scratch --memory 256M: parallel" "$bin" solve "$work/open170.txt" --json -q --scratch "$work/scratch" --memory 256M
row "open170 --scratch --memory 256M: sweep" "$bin" solve "$work/open170.txt" --engine sweep --json -q --scratch "$work/scratch" --memory 256M
if [ "$quick" = --record ]; then
  row "open400 (3.8e10 states) --scratch --memory 16G --verify: sweep" "$bin" solve "$work/open400.txt" --engine sweep --json -q --verify --scratch "$work/scratch" --memory 16G
fi
