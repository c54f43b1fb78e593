#!/usr/bin/env bash
# A newcomer's first start in KicksDB mode with two stores, as the real window under Xvfb: on a
# fresh home, `solescope --screenshot FILE.png --view product --source kicksdb --retailer-store A
# --retailer-store B` must settle and write its PNG within FIRST_START_LIMIT_SECS (60 s), against
# the tests' mock KicksDB and two mock Shopify stores (`examples/mock_kicksdb.rs`,
# `examples/mock_storefront.rs`, processes on 127.0.0.1: no internet).
#
#   bash .ci/first-start-check.sh     # after `cargo build --examples`; .ci/window-check.sh calls it
#
# The screenshot settles only once both stores' catalogues were read and matched against the
# KicksDB mirror and the search was asked again (src/app/screenshot.rs), so it fails when the
# stores are matched against a catalogue that is not there (the run then waits past the
# screenshot's own 120 s limit). It also fails when:
# - the PNG is blank (fewer than MIN_COLOURS distinct colours);
# - anything was written named like the demo catalogue (KicksDB mode never builds it);
# - the log has an error, or says a catalogue was missing ("no catalogue at").
# Uses the X display in $DISPLAY when there is one (window-check.sh's Xvfb), else starts Xvfb.
# SOLESCOPE_BIN: the binary (default target/debug/solescope). Prints the seconds it took.
set -euo pipefail
cd "$(dirname "$0")/.."

FIRST_START_LIMIT_SECS="${FIRST_START_LIMIT_SECS:-60}"
MIN_COLOURS="${MIN_COLOURS:-500}"
CONVERT=/usr/bin/convert

packages=(xvfb xauth imagemagick libgl1-mesa-dri libegl1 libgl1 libx11-6 libx11-xcb1 libxcb1
    libxcursor1 libxi6 libxrandr2 libxkbcommon0 libxkbcommon-x11-0)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("$package")
done
if ((${#missing[@]} > 0)); then
    echo "installing: ${missing[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

app="${SOLESCOPE_BIN:-target/debug/solescope}"
examples="${CARGO_TARGET_DIR:-target}/debug/examples"
# The mocks (a no-op after `cargo test`, which builds the examples), and the app unless given.
cargo build --locked --example mock_kicksdb --example mock_storefront
if [[ -z "${SOLESCOPE_BIN:-}" ]]; then
    cargo build --locked --bin solescope
fi

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [[ -n "${FIRST_START_KEEP:-}" ]]; then
        mkdir -p "$FIRST_START_KEEP"
        cp "$work"/*.png "$work"/*.log "$FIRST_START_KEEP"/ 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    [[ -s "$work/app.log" ]] && tail -n 30 "$work/app.log" >&2
    exit 1
}

# Starts "$@" with its output in $work/$name.log and waits (10 s at most) for the line of its
# log matching the extended regex $pattern; prints the first URL in it.
start_mock() {
    local name="$1" pattern="$2"
    shift 2
    "$@" >"$work/$name.log" 2>&1 &
    pids+=($!)
    local line=""
    for _ in $(seq 100); do
        line="$(grep -E -m1 "$pattern" "$work/$name.log" || true)"
        [[ -n "$line" ]] && break
        sleep 0.1
    done
    [[ -n "$line" ]] || fail "$name did not start: $(cat "$work/$name.log")"
    grep -oE 'http://127\.0\.0\.1:[0-9]+' <<<"$line" | head -n1
}

kicksdb="$(start_mock kicksdb '^http://' "$examples/mock_kicksdb")"
store_a="$(start_mock store-a 'Mock storefront on' "$examples/mock_storefront" --sneaker-store)"
store_b="$(start_mock store-b 'Mock storefront on' "$examples/mock_storefront" --sneaker-store)"
echo "mock KicksDB $kicksdb, stores $store_a and $store_b"

if [[ -z "${DISPLAY:-}" ]]; then
    display_number=99
    while [[ -e "/tmp/.X${display_number}-lock" || -e "/tmp/.X11-unix/X${display_number}" ]]; do
        display_number=$((display_number + 1))
    done
    export DISPLAY=":$display_number" XAUTHORITY="$work/Xauthority"
    touch "$XAUTHORITY"
    xauth -q add "$DISPLAY" . "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    Xvfb "$DISPLAY" -screen 0 1280x800x24 -nolisten tcp -auth "$XAUTHORITY" >"$work/xvfb.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        [[ -e "/tmp/.X11-unix/X${display_number}" ]] && break
        sleep 0.1
    done
fi

# A fresh home: nothing of an earlier start, and never the user's own.
home="$work/home"
mkdir -p "$home/data" "$home/config" "$home/cache"
mkdir -m 700 "$home/runtime"
started=$SECONDS
status=0
env -u DBUS_SESSION_BUS_ADDRESS -u WAYLAND_DISPLAY \
    HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" \
    XDG_CACHE_HOME="$home/cache" XDG_RUNTIME_DIR="$home/runtime" \
    SOLESCOPE_KICKSDB_KEY=KICKS-MOCK-TEST-0000-000000000000 SOLESCOPE_KICKSDB_URL="$kicksdb" \
    timeout "$((FIRST_START_LIMIT_SECS + 5))" "$app" --screenshot "$work/first-start.png" \
    --view product --source kicksdb --retailer-store "$store_a" --retailer-store "$store_b" \
    >"$work/app.log" 2>&1 || status=$?
took=$((SECONDS - started))
echo "first start in KicksDB mode with two stores: exit $status after $took s (limit $FIRST_START_LIMIT_SECS s)"
((status == 0)) || fail "the screenshot run failed (exit $status; 124: still waiting at the limit)"
((took <= FIRST_START_LIMIT_SECS)) || fail "the first start took $took s, over $FIRST_START_LIMIT_SECS s"
[[ -s "$work/first-start.png" ]] || fail "no screenshot written"
colours="$("$CONVERT" "$work/first-start.png" -format '%k' info:)"
echo "screenshot: $colours distinct colours (min $MIN_COLOURS)"
((colours >= MIN_COLOURS)) || fail "the screenshot looks blank"
demo="$(find "$home" -name 'demo-catalogue*' | head -n 3)"
[[ -z "$demo" ]] || fail "KicksDB mode wrote the demo catalogue: $demo"
if grep -E "no catalogue at|ERROR|panicked" "$work/app.log"; then
    fail "the first start logged errors"
fi
echo "first start check passed"
