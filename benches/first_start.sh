#!/usr/bin/env bash
# First starts, repeated: `serve` with no index or hit store kept (both removed before each
# trial, the catalogue in the page cache), the time until /search answers and the CPU the process
# had used by then. With two binaries, their trials alternate (A, B, A, B, ...), so a host whose
# speed drifts within the hour (this project's drifted by a third) weighs on both alike; a single
# first start (as benches/http_load.sh runs) is too noisy to judge a change to the build by.
#   bash benches/first_start.sh [products] [trials] [baseline binary]   (defaults 1000000, 3)
# Needs the catalogue that benches/http_load.sh leaves in SOLESCOPE_BENCH_DIR (default /tmp), and
# `curl`. SOLESCOPE_BENCH_BIN: the solescope binary judged (default target/dist/solescope, the
# shipped build: `cargo build --profile dist`);
# the optional third argument, another build measured in the same run (the baseline).
# Prints each trial, then min / median / max per binary; FAIL (exit 1) when the judged binary's
# median is over 5 s (the limit). The catalogue's index and hit store are kept aside during
# the trials and put back after.
set -euo pipefail
cd "$(dirname "$0")/.."
products="${1:-1000000}"
trials="${2:-3}"
baseline="${3:-}"
dir="${SOLESCOPE_BENCH_DIR:-/tmp}"
judged="${SOLESCOPE_BENCH_BIN:-./target/dist/solescope}"
catalogue="$dir/solescope-bench-$products.sqlite"
port=18098
limit_s=5
command -v curl >/dev/null || { echo "first_start: curl is missing"; exit 2; }
source benches/wrk/service.sh
require_files "$products" "$catalogue" "$judged" ${baseline:+"$baseline"}
server=
kept=()
for file in "$catalogue.search-index" "$catalogue.search-hits"; do
  if [ -e "$file" ]; then
    mv "$file" "$file.first-start"
    kept+=("$file")
  fi
done
# put_back: the index and hit store kept aside return (over whatever a trial left).
put_back() {
  for file in ${kept[@]+"${kept[@]}"}; do
    mv -f "$file.first-start" "$file"
  done
}
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; put_back' EXIT

# cpu_s PID: user and system CPU seconds the process has used.
cpu_s() {
  awk -v tick="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / tick}' "/proc/$1/stat"
}

# summary TIMES...: sets median, and line to "min / median / max".
summary() {
  local sorted
  sorted=$(printf '%s\n' "$@" | sort -g)
  median=$(awk '{v[NR] = $1} END{print v[int((NR + 1) / 2)]}' <<<"$sorted")
  line="min $(head -1 <<<"$sorted") / median $median / max $(tail -1 <<<"$sorted") s"
}

cat "$catalogue" >/dev/null
binaries=(${baseline:+"$baseline"} "$judged")
declare -A times
for trial in $(seq 1 "$trials"); do
  for bin in "${binaries[@]}"; do
    rm -f "$catalogue.search-index" "$catalogue.search-hits"
    serve /dev/null
    cpu=$(cpu_s "$server")
    stop
    echo "trial $trial, $bin: /search answers after $ready_s s, $cpu s of CPU by then; load $(cut -d' ' -f1-3 /proc/loadavg)"
    times[$bin]+="$ready_s "
    sleep 2
  done
done
if [ -n "$baseline" ]; then
  # shellcheck disable=SC2086 # one time per word
  summary ${times[$baseline]}
  echo "baseline $baseline: $line"
fi
# shellcheck disable=SC2086
summary ${times[$judged]}
echo "judged $judged: $line"
if awk "BEGIN{exit !($median > $limit_s)}"; then
  echo "FAIL: the median first start answered after $median s (limit $limit_s s)"
  exit 1
fi
echo "PASS: the median first start answered after $median s (limit $limit_s s)"
