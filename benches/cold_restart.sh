#!/usr/bin/env bash
# Restarts after a cold page cache, repeated: the first second of /search (distinct queries, wrk,
# 8 connections) right after each restart, beside a restart with the files still cached (the
# baseline, measured in the same run). One cold restart (as benches/http_load.sh runs) is too
# noisy to judge a change by: the first second's p99 varied from 41 to 97 ms between trials.
#   bash benches/cold_restart.sh [products] [trials]      (defaults 1000000 and 5)
# Needs the catalogue, its index and hit store and the query list that benches/http_load.sh
# leaves in SOLESCOPE_BENCH_DIR (default /tmp), and `wrk`, `vmtouch`, `curl`.
# SOLESCOPE_BENCH_BIN: the solescope binary (default target/dist/solescope, the
# shipped build: `cargo build --profile dist`).
# Prints each trial, then p50 and max of the trials' p99 for cold and cached restarts; FAIL (exit
# 1) when the median cold trial's first-second p99 is 50 ms or more (the limit).
set -euo pipefail
cd "$(dirname "$0")/.."
products="${1:-1000000}"
trials="${2:-5}"
dir="${SOLESCOPE_BENCH_DIR:-/tmp}"
bin="${SOLESCOPE_BENCH_BIN:-./target/dist/solescope}"
catalogue="$dir/solescope-bench-$products.sqlite"
queries="$dir/solescope-bench-$products.queries"
port=18097
limit_ms=50
for tool in wrk vmtouch curl; do
  command -v "$tool" >/dev/null || { echo "cold_restart: $tool is missing"; exit 2; }
done
source benches/wrk/service.sh
require_files "$products" "$catalogue" "$catalogue.search-index" "$catalogue.search-hits" \
  "$queries" "$bin"
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null || true' EXIT

# restart SKIP: starts the service, waits until /search answers, runs wrk for one second of
# distinct queries from SKIP (sets rps and p99), stops it.
restart() {
  serve /dev/null
  SOLESCOPE_QUERIES="$queries" SOLESCOPE_QUERIES_SKIP="$1" run_wrk 1 -s benches/wrk/distinct.lua \
    "http://127.0.0.1:$port"
  stop
}

cold=()
cached=()
for trial in $(seq 1 "$trials"); do
  vmtouch -q -e "$catalogue" "$catalogue.search-index" "$catalogue.search-hits"
  restart $((60000 + trial * 4000))
  cold+=("$p99")
  echo "trial $trial cold:   $rps req/s, p99 $p99 ms"
  restart $((62000 + trial * 4000))
  cached+=("$p99")
  echo "trial $trial cached: $rps req/s, p99 $p99 ms"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
summary() { printf 'p50 %.2f ms, max %.2f ms' "$(median "$@")" "$(printf '%s\n' "$@" | sort -g | tail -1)"; }
echo "cached restarts (baseline), first-second p99 over $trials trials: $(summary "${cached[@]}")"
echo "cold restarts, first-second p99 over $trials trials: $(summary "${cold[@]}")"
median=$(median "${cold[@]}")
if awk "BEGIN{exit !($median < $limit_ms)}"; then
  echo "PASS  median cold first-second p99 $median ms (limit $limit_ms ms)"
else
  echo "FAIL  median cold first-second p99 $median ms (limit $limit_ms ms)"
  exit 1
fi
