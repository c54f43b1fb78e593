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
mock_pid=""
cleanup() {
    for pid in "$server_pid" "$mock_pid"; do
        if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    done
    rm -rf "$work"
}
trap cleanup EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"

binary=target/debug/solescope
[[ -x "$binary" ]] || cargo build --locked
"$binary" catalogue generate --products 300 --seed 7 --as-of 2026-11-22 --out "$work/catalogue.sqlite"

# Starts `solescope serve "$@"` on 127.0.0.1:0 and sets `base` to its URL.
start_serve() {
    "$binary" serve --addr 127.0.0.1:0 "$@" >"$work/serve.out" 2>"$work/serve.err" &
    server_pid=$!
    base=""
    for _ in $(seq 1 100); do
        base="$(sed -n 's/^Serving .* on \(http:[^ ]*\)$/\1/p' "$work/serve.out")"
        [[ -n "$base" ]] && break
        kill -0 "$server_pid" || { cat "$work/serve.err"; exit 1; }
        sleep 0.1
    done
    [[ -n "$base" ]] || { echo "solescope serve did not start"; cat "$work/serve.err"; exit 1; }
}

fuzz() {
    local key="$1" examples="$2"
    echo "-- schemathesis, Authorization: $key, $base"
    (cd "$work" && "$work/venv/bin/schemathesis" run "$base/openapi.json" \
        -H "Authorization: $key" \
        --checks all \
        --max-examples "$examples" \
        --seed "$SEED" \
        --request-timeout 20 \
        --no-color)
}

# Loopback, so the demo keys are accepted; no simulated marketplace latency.
start_serve --catalogue "$work/catalogue.sqlite" --upstream-latency-ms 0
for key in demo-free demo-pro demo-ultra; do
    fuzz "$key" "$MAX_EXAMPLES"
done
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

# The same interface on live data: `serve --source kicksdb` against the mock KicksDB of the
# tests (examples/mock_kicksdb.rs), its key in the environment as a user would give it. Every
# shape it serves must match the same document; its own limits (60 real-time calls a minute)
# answer 429 as documented. The KicksDB budget is set well above what a run spends, so the
# shapes of the answers are fuzzed, not only the budget's 429 (which the tests check).
mock="target/debug/examples/mock_kicksdb"
[[ -x "$mock" ]] || cargo build --locked --example mock_kicksdb
"$mock" >"$work/mock.out" 2>"$work/mock.err" &
mock_pid=$!
mock_url=""
for _ in $(seq 1 100); do
    mock_url="$(head -n 1 "$work/mock.out" 2>/dev/null || true)"
    [[ -n "$mock_url" ]] && break
    sleep 0.1
done
[[ -n "$mock_url" ]] || { echo "the mock KicksDB did not start"; cat "$work/mock.err"; exit 1; }
SOLESCOPE_KICKSDB_KEY=KICKS-MOCK-TEST-0000-000000000000 \
    start_serve --source kicksdb --kicksdb-url "$mock_url" --catalogue "$work/mirror.sqlite" \
    --kicksdb-quota 100000000
for key in demo-free demo-ultra; do
    fuzz "$key" "$MAX_EXAMPLES"
done
