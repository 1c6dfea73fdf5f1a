#!/usr/bin/env bash
# One cop beyond memory: the bitboard engine in memory against the same
# solve out of core (`--memory CAP --scratch DIR`), paired in one run.
#
#   scripts/ooc-measure.sh MAP CAP [RUNS]
#
# For each run, in memory then out of core: wall time, CPU time, peak
# resident memory, and the bytes read from and written to the disk (the
# kernel's block I/O counts for the process, `read_bytes` and
# `write_bytes` of /proc/PID/io, as getrusage reports them to
# /usr/bin/time), and the page faults (each maps a 4 KiB page of the files
# back in, from the page cache or the disk); then the ratio of the out-of-core wall time to the
# in-memory one, and whether the two agree (result, counts, levels).
# MEMORY=0 skips the in-memory solve (a map larger than RAM; its figures
# then come from a larger machine). SCRATCH=DIR puts the scratch files
# there (default: a temporary folder). BIN=path picks the build. Run from
# the repository root after `cargo build --release`.
set -euo pipefail
MAP=${1:?usage: scripts/ooc-measure.sh MAP CAP [RUNS]}
CAP=${2:?usage: scripts/ooc-measure.sh MAP CAP [RUNS]}
RUNS=${3:-1}
BIN=${BIN:-target/release/retrograde}
MEMORY=${MEMORY:-1}
TMP=$(mktemp -d)
SCRATCH=${SCRATCH:-$TMP}
trap 'rm -rf "$TMP"' EXIT

# Runs one solve; prints its figures and keeps its JSON answer in $TMP/$1.json.
measure() {
    local label=$1; shift
    /usr/bin/time -o "$TMP/time" -f "%e %U %S %M %I %O %R %F" \
        "$BIN" solve "$MAP" --json "$@" > "$TMP/$label.json" 2> "$TMP/$label.err" || {
        cat "$TMP/$label.err" >&2
        exit 1
    }
    read -r wall user sys peak blocks_in blocks_out minor major < "$TMP/time"
    python3 - "$label" "$wall" "$user" "$sys" "$peak" "$blocks_in" "$blocks_out" "$minor" "$major" "$TMP/$label.json" <<'EOF'
import json, sys
label, wall, user, sys_, peak, bin_, bout, minor, major, path = sys.argv[1:]
r = json.load(open(path))
gib = lambda b: b / 2**30
print(f"{label:8} wall {float(wall):8.1f} s  cpu {float(user):8.1f} + {float(sys_):7.1f} s  "
      f"peak {gib(int(peak) * 1024):6.2f} GiB  read {gib(int(bin_) * 512):7.1f} GiB  "
      f"written {gib(int(bout) * 512):7.1f} GiB  faults {int(minor) + int(major):,} "
      f"({gib((int(minor) + int(major)) * 4096):.1f} GiB of pages)  levels {r.get('levels')}  "
      f"result {r.get('result')} in {r.get('dte')}")
EOF
    echo "$wall" > "$TMP/$label.wall"
}

key() {
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r.get("result"), r.get("dte"), r.get("counts"), r.get("levels"))' "$1"
}

echo "== $MAP: in memory against --memory $CAP --scratch, $(nproc) cores, $(date -u +%FT%TZ)"
"$BIN" solve "$MAP" --memory "$CAP" --scratch "$SCRATCH" --plan
for i in $(seq "$RUNS"); do
    if [ "$MEMORY" != 0 ]; then
        measure memory -q
    fi
    measure scratch -q --memory "$CAP" --scratch "$SCRATCH"
    if [ "$MEMORY" != 0 ]; then
        python3 -c "import sys; print(f'ratio out of core / in memory: {float(sys.argv[2]) / float(sys.argv[1]):.2f}x')" \
            "$(cat "$TMP/memory.wall")" "$(cat "$TMP/scratch.wall")"
        if [ "$(key "$TMP/memory.json")" = "$(key "$TMP/scratch.json")" ]; then
            echo "answers agree: $(key "$TMP/scratch.json")"
        else
            echo "ANSWERS DIFFER: memory $(key "$TMP/memory.json") / scratch $(key "$TMP/scratch.json")"
            exit 1
        fi
    else
        echo "answer: $(key "$TMP/scratch.json")"
    fi
done
