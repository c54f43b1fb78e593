#!/usr/bin/env bash
# Throughput of /search under load from a separate process (wrk), as the search issue measures it.
#   bash benches/http_load.sh [products]      (default 100000; needs `wrk`: apt-get install wrk)
# Builds the release binary, generates a catalogue into /tmp (reused), serves it on 127.0.0.1,
# runs wrk (2 threads, 8 connections, 10 s) with mixed queries, and prints the service's RSS.
# Baseline in the same run: /api/v2/subscriptions, the HTTP stack with no search or catalogue work.
set -euo pipefail
cd "$(dirname "$0")/.."
products="${1:-100000}"
catalogue="/tmp/solescope-bench-${products}.sqlite"
port=18089
cargo build --release --quiet
[ -f "$catalogue" ] || ./target/release/solescope catalogue generate --products "$products" --seed 1 --as-of 2026-11-22 --out "$catalogue"
./target/release/solescope serve --addr "127.0.0.1:$port" --catalogue "$catalogue" >/tmp/solescope-bench-serve.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/api/v2/subscriptions" && break; sleep 0.2; done
echo "== baseline: /api/v2/subscriptions"
wrk -t2 -c8 -d10s --latency -H "Authorization: demo-pro" "http://127.0.0.1:$port/api/v2/subscriptions" | grep -E "Requests/sec|50%|99%"
echo "== /search, mixed queries (first pass warms the hit cache)"
wrk -t2 -c8 -d10s --latency -s benches/wrk/search.lua "http://127.0.0.1:$port" | grep -E "Requests/sec|50%|99%"
echo "== /search again, warm"
wrk -t2 -c8 -d10s --latency -s benches/wrk/search.lua "http://127.0.0.1:$port" | grep -E "Requests/sec|50%|99%"
echo "== service resident memory"
grep VmRSS "/proc/$server/status"
