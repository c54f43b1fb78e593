#!/usr/bin/env bash
# Throughput of /search under load from a separate process (wrk), as the search issue measures it.
#   bash benches/http_load.sh [products]      (default 100000; needs `wrk`: apt-get install wrk)
# Builds the release binary and the search bench, generates a catalogue into /tmp (reused),
# writes 150,000 distinct queries drawn from it (every class of benches/search.rs), serves it on
# 127.0.0.1 and runs wrk (2 threads, 8 connections, 10 s each), in one run:
#   1. baseline: /api/v2/subscriptions, the HTTP stack with no search or catalogue work;
#   2. /search on queries that never repeat (benches/wrk/distinct.lua);
#   3. /search on the 16 repeating queries of benches/wrk/search.lua (the hit cache helps).
# Then the service's RSS and how long `serve` took to be ready (index read back or built).
set -euo pipefail
cd "$(dirname "$0")/.."
products="${1:-100000}"
catalogue="/tmp/solescope-bench-${products}.sqlite"
queries="/tmp/solescope-bench-${products}.queries"
port=18089
cargo build --release --quiet
bench=$(cargo bench --bench search --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\)).*/\1/p' | tail -1)
[ -f "$catalogue" ] || ./target/release/solescope catalogue generate --products "$products" --seed 1 --as-of 2026-11-22 --out "$catalogue"
[ -f "$queries" ] || "$bench" --write-queries "$catalogue" "$queries" 150000
started=$(date +%s.%N)
./target/release/solescope serve --addr "127.0.0.1:$port" --catalogue "$catalogue" >/tmp/solescope-bench-serve.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do curl -s -o /dev/null "http://127.0.0.1:$port/api/v2/subscriptions" && break; sleep 0.05; done
echo "== serve ready after $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $started}") s ($(grep -o 'source=[A-Za-z]*' /tmp/solescope-bench-serve.log | head -1))"
echo "== baseline: /api/v2/subscriptions"
wrk -t2 -c8 -d10s --latency -H "Authorization: demo-pro" "http://127.0.0.1:$port/api/v2/subscriptions" | grep -E "Requests/sec|50%|99%"
echo "== /search, distinct queries (never repeat)"
SOLESCOPE_QUERIES="$queries" wrk -t2 -c8 -d10s --latency -s benches/wrk/distinct.lua "http://127.0.0.1:$port" | grep -E "Requests/sec|50%|99%|distinct"
echo "== /search, 16 repeating queries (hit cache warm after the first pass)"
wrk -t2 -c8 -d10s --latency -s benches/wrk/search.lua "http://127.0.0.1:$port" | grep -E "Requests/sec|50%|99%"
echo "== service resident memory"
grep VmRSS "/proc/$server/status"
