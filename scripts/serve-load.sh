#!/usr/bin/env bash
# Load test of `retrograde serve` on loopback: solves MAP with SOLVE FLAGS
# into a table (kept in bench-out/serve/, one folder per set of flags, and
# reused), serves it on a free port, runs
# examples/serve_load.rs against it (10^4 random queries from 8 clients,
# 10^3 malformed requests, health check), stops the server.
#
#   scripts/serve-load.sh MAP [SOLVE FLAGS...]
#   scripts/serve-load.sh ../shared/data/movingai/den312d.map --exits border --dte-table
#   scripts/serve-load.sh ../shared/data/movingai/Berlin_1_256.map --exits border
#     (values only: with --dte-table Berlin needs 2 more bytes per state, 9 GB)
#
# Environment: QUERIES, CLIENTS, MALFORMED override the counts.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n 2,13p "$0"; exit 2; }
map=$1; shift
name=$(basename "${map%.*}")
out=bench-out/serve/$(echo "$*" | cksum | cut -d' ' -f1); mkdir -p "$out"
table="$out/$name.rtb"
cargo build --release --quiet --example serve_load
cargo build --release --quiet
if [ ! -f "$table" ]; then
  echo "solving $map into $table"
  /usr/bin/time -f "solve: %e s, %M KiB peak" \
    target/release/retrograde solve "$map" "$@" --save "$table" --quiet
fi
target/release/retrograde serve "$table" --bind 127.0.0.1:0 > "$out/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 300); do
  url=$(sed -n 's/^serving at //p' "$out/serve.log")
  [ -n "$url" ] && break
  kill -0 $server 2>/dev/null || { cat "$out/serve.log"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "the server did not start"; cat "$out/serve.log"; exit 1; }
echo "server at $url (table $name)"
target/release/examples/serve_load "$url" "$name" \
  --queries "${QUERIES:-10000}" --clients "${CLIENTS:-8}" --malformed "${MALFORMED:-1000}"
