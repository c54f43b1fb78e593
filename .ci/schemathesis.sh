#!/usr/bin/env bash
# Runs schemathesis (a property-based API fuzzer from PyPI, pinned) against `solescope serve`
# on a small generated catalogue, once per demo key, with every check on; any failure fails CI.
# Reuses the debug binary the tests built (one build profile in CI). Examples per operation are
# bounded so the three runs take about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
# Bounded and reproducible: the same seed explores the same cases on every run.
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-30}"
SEED="${SCHEMATHESIS_SEED:-1}"

if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv python3-pip
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"

binary=target/debug/solescope
[[ -x "$binary" ]] || cargo build --locked
"$binary" catalogue generate --products 300 --seed 7 --as-of 2026-11-22 --out "$work/catalogue.sqlite"

# Loopback, so the demo keys are accepted; no simulated marketplace latency.
"$binary" serve --addr 127.0.0.1:0 --catalogue "$work/catalogue.sqlite" --upstream-latency-ms 0 \
    >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
base=""
for _ in $(seq 1 100); do
    base="$(sed -n 's/^Serving .* on \(http:[^ ]*\)$/\1/p' "$work/serve.out")"
    [[ -n "$base" ]] && break
    kill -0 "$server_pid" || { cat "$work/serve.err"; exit 1; }
    sleep 0.1
done
[[ -n "$base" ]] || { echo "solescope serve did not start"; cat "$work/serve.err"; exit 1; }

cd "$work"
for key in demo-free demo-pro demo-ultra; do
    echo "-- schemathesis, Authorization: $key"
    "$work/venv/bin/schemathesis" run "$base/openapi.json" \
        -H "Authorization: $key" \
        --checks all \
        --max-examples "$MAX_EXAMPLES" \
        --seed "$SEED" \
        --request-timeout 20 \
        --no-color
done
