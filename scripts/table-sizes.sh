#!/usr/bin/env bash
# Table sizes: solve each map with border exits and distances, save the
# table, print one markdown row per map (states, bits per state for values
# and for distances, file size, solve and save seconds).
#   scripts/table-sizes.sh MAP...        (e.g. ../shared/data/movingai/*.map)
# Needs a release build (cargo build --release).
set -euo pipefail
bin=${RETROGRADE:-target/release/retrograde}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "| map | states | values bits/state | distances bits/state | file | solve s | save s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for map in "$@"; do
    out=$("$bin" solve "$map" --exits border --dte-table --save "$dir/t.rtb" --json --quiet)
    python3 - "$map" "$out" <<'PY'
import json, os, sys
r = json.loads(sys.argv[2]); s = r["saved"]
print(f"| {os.path.basename(sys.argv[1])} | {r['states']:.3g} | {s['value_bits_per_state']:.4f} | "
      f"{s['dte_bits_per_state']:.4f} | {s['bytes']/2**20:.1f} MiB | {r['seconds']:.1f} | {s['seconds']:.2f} |")
PY
    rm -f "$dir/t.rtb"
done
