#!/usr/bin/env bash
# Throughput of /search under load from a separate process (wrk), as issues 16 and 17 measure it.
#   bash benches/http_load.sh [products ...]      (default 100000; e.g. `100000 1000000`)
# Needs `wrk` (apt-get install wrk). Environment:
#   SOLESCOPE_BENCH_DIR      where catalogues and query lists are kept and reused (default /tmp;
#                            a million products take several GB)
#   SOLESCOPE_BENCH_PROFILE  cargo profile of the binary (default release, fat LTO; `bench` with
#                            CARGO_PROFILE_BENCH_LTO=false builds faster)
#   SOLESCOPE_BENCH_SECONDS  length of each wrk run (default 10)
# Per catalogue size, in one run: generation time (when the catalogue is new), `serve` ready time
# on a first start (index built; from 50,000 products the hit store is built and the index saved
# after it answers, timed too) and a second (both read back), then wrk (2
# threads, 8 connections) on
#   1. baseline: /api/v2/subscriptions, the HTTP stack with no search or catalogue work;
#   2. /search on queries that never repeat (benches/wrk/distinct.lua, 150,000 distinct queries
#      of every class of benches/search.rs);
#   3. /search on the 16 repeating queries of benches/wrk/search.lua;
# each with req/s, p50, p99 and the service's resident memory (VmRSS, VmHWM) after it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${SOLESCOPE_BENCH_DIR:-/tmp}"
profile="${SOLESCOPE_BENCH_PROFILE:-release}"
seconds="${SOLESCOPE_BENCH_SECONDS:-10}"
port=18089
mkdir -p "$dir"
cargo build --profile "$profile" --quiet
bin=./target/release/solescope
bench=$(cargo bench --bench search --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\)).*/\1/p' | tail -1)
now() { date +%s.%N; }
since() { awk "BEGIN{printf \"%.2f\", $(now) - $1}"; }
rss() { grep -E 'VmRSS|VmHWM' "/proc/$1/status" | awk '{printf "%s %.0f MB  ", $1, $2/1024}'; }
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null || true' EXIT

serve() {
  local log=$1
  started=$(now)
  "$bin" serve --addr "127.0.0.1:$port" --catalogue "$catalogue" >"$log" 2>&1 &
  server=$!
  for _ in $(seq 1 6000); do
    curl -s -o /dev/null "http://127.0.0.1:$port/api/v2/subscriptions" && break
    sleep 0.01
  done
  echo "serve ready after $(since "$started") s ($2); $(rss "$server")"
}

for products in "${@:-100000}"; do
  catalogue="$dir/solescope-bench-${products}.sqlite"
  queries="$dir/solescope-bench-${products}.queries"
  echo "=== $products products; load average $(cut -d' ' -f1-3 /proc/loadavg) (2 cores)"
  if [ ! -f "$catalogue" ]; then
    started=$(now)
    "$bin" catalogue generate --products "$products" --seed 1 --as-of 2026-11-22 --out "$catalogue" >/dev/null 2>&1
    echo "generated in $(since "$started") s ($(du -h "$catalogue" | cut -f1))"
  fi
  [ -f "$queries" ] || "$bench" --write-queries "$catalogue" "$queries" 150000
  rm -f "$catalogue.search-index" "$catalogue.search-hits"
  serve "$dir/solescope-bench-serve-1.log" "first start: index built"
  # A large catalogue's hit store is built, and the index saved, after the start: wait for both.
  for _ in $(seq 1 3000); do
    grep -q "search index saved" "$dir/solescope-bench-serve-1.log" && break
    sleep 0.1
  done
  echo "  hit store built and index saved after $(since "$started") s; $(rss "$server")"
  kill "$server"; wait "$server" 2>/dev/null || true
  serve "$dir/solescope-bench-serve-2.log" "second start: index and hit store read back"
  sed 's/\x1b\[[0-9;]*m//g' "$dir"/solescope-bench-serve-[12].log | grep -oE 'search (index|hits) ready.*' | sed 's/^/  /' || true
  echo "--- baseline: /api/v2/subscriptions"
  wrk -t2 -c8 -d"${seconds}s" --latency -H "Authorization: demo-pro" "http://127.0.0.1:$port/api/v2/subscriptions" | grep -E "Requests/sec| 50%| 99%"
  echo "    $(rss "$server")"
  echo "--- /search, distinct queries (never repeat)"
  SOLESCOPE_QUERIES="$queries" wrk -t2 -c8 -d"${seconds}s" --latency -s benches/wrk/distinct.lua "http://127.0.0.1:$port" | grep -E "Requests/sec| 50%| 99%|distinct"
  echo "    $(rss "$server")"
  echo "--- /search, 16 repeating queries"
  wrk -t2 -c8 -d"${seconds}s" --latency -s benches/wrk/search.lua "http://127.0.0.1:$port" | grep -E "Requests/sec| 50%| 99%"
  echo "    $(rss "$server")"
  kill "$server"; wait "$server" 2>/dev/null || true
  server=
done
