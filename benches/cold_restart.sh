#!/usr/bin/env bash
# Restarts after a cold page cache, repeated: the first second of /search (distinct queries, wrk,
# 8 connections) right after each restart, beside a restart with the files still cached (the
# baseline, measured in the same run). One cold restart (as benches/http_load.sh runs) is too
# noisy to judge a change by: the first second's p99 varied from 41 to 97 ms between trials.
#   bash benches/cold_restart.sh [products] [trials]      (defaults 1000000 and 5)
# Needs the catalogue, its index and hit store and the query list that benches/http_load.sh
# leaves in SOLESCOPE_BENCH_DIR (default /tmp), and `wrk`, `vmtouch`, `curl`.
# SOLESCOPE_BENCH_BIN: the solescope binary (default target/release/solescope).
# Prints each trial, then p50 and max of the trials' p99 for cold and cached restarts; FAIL (exit
# 1) when the median cold trial's first-second p99 is 50 ms or more (issue 25's limit).
set -euo pipefail
cd "$(dirname "$0")/.."
products="${1:-1000000}"
trials="${2:-5}"
dir="${SOLESCOPE_BENCH_DIR:-/tmp}"
bin="${SOLESCOPE_BENCH_BIN:-./target/release/solescope}"
catalogue="$dir/solescope-bench-$products.sqlite"
queries="$dir/solescope-bench-$products.queries"
port=18097
limit_ms=50
for tool in wrk vmtouch curl; do
  command -v "$tool" >/dev/null || { echo "cold_restart: $tool is missing"; exit 2; }
done
for file in "$catalogue" "$catalogue.search-index" "$catalogue.search-hits" "$queries" "$bin"; do
  [ -e "$file" ] || { echo "cold_restart: $file is missing (run benches/http_load.sh $products first)"; exit 2; }
done
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null || true' EXIT

# wrk's latency (850.00us, 3.91ms, 1.20s) in milliseconds.
to_ms() {
  awk '{v = $1; f = 1; if (v ~ /us$/) f = 0.001; else if (v ~ /ms$/) f = 1; else if (v ~ /s$/) f = 1000;
        gsub(/[a-z]+$/, "", v); printf "%.2f", v * f}'
}

# restart SKIP: starts the service, waits until /search answers, runs wrk for one second on the
# query list from SKIP; prints "req/s p99_ms".
restart() {
  "$bin" serve --addr "127.0.0.1:$port" --catalogue "$catalogue" >/dev/null 2>&1 &
  server=$!
  until curl -s -o /dev/null -H 'Authorization: demo-pro' "http://127.0.0.1:$port/search?query=zz"; do
    kill -0 "$server" 2>/dev/null || { echo "cold_restart: serve exited" >&2; exit 2; }
    sleep 0.05
  done
  local out
  out=$(SOLESCOPE_QUERIES="$queries" SOLESCOPE_QUERIES_SKIP="$1" wrk -t2 -c8 -d1s --latency \
    -s benches/wrk/distinct.lua "http://127.0.0.1:$port")
  kill "$server"
  wait "$server" 2>/dev/null || true
  server=
  echo "$(awk '/Requests\/sec/{printf "%.0f", $2}' <<<"$out") $(awk '$1 == "99%" {print $2}' <<<"$out" | to_ms)"
}

cold=()
cached=()
for trial in $(seq 1 "$trials"); do
  vmtouch -q -e "$catalogue" "$catalogue.search-index" "$catalogue.search-hits"
  read -r rps p99 < <(restart $((60000 + trial * 4000)))
  cold+=("$p99")
  echo "trial $trial cold:   $rps req/s, p99 $p99 ms"
  read -r rps p99 < <(restart $((62000 + trial * 4000)))
  cached+=("$p99")
  echo "trial $trial cached: $rps req/s, p99 $p99 ms"
done
summary() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {printf "p50 %.2f ms, max %.2f ms", v[int((NR + 1) / 2)], v[NR]}'; }
echo "cached restarts (baseline), first-second p99 over $trials trials: $(summary "${cached[@]}")"
echo "cold restarts, first-second p99 over $trials trials: $(summary "${cold[@]}")"
median=$(printf '%s\n' "${cold[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
if awk "BEGIN{exit !($median < $limit_ms)}"; then
  echo "PASS  median cold first-second p99 $median ms (limit $limit_ms ms)"
else
  echo "FAIL  median cold first-second p99 $median ms (limit $limit_ms ms)"
  exit 1
fi
