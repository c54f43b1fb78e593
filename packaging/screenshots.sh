#!/usr/bin/env bash
# Takes the README's and the metainfo's screenshots with the app itself (`--screenshot`), one per
# panel, on the demo catalogue. Needs a display: runs under xvfb-run when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
out=assets/screenshots
mkdir -p "$out"
cargo build --locked --quiet
run() {
    if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
        "$@"
    else
        xvfb-run -a -s "-screen 0 1280x800x24" "$@"
    fi
}
for view in product orders realtime portfolio settings alerts flips drops; do
    run target/debug/solescope --screenshot "$out/$view.png" --view "$view" \
        --query "jordan 1 chicago" >/dev/null
    echo "$out/$view.png"
done

# The live source: the window on KicksDB, here the mock KicksDB of the tests (no internet, no
# account), its key given as a user would (environment, then the key store of the run).
cargo build --locked --quiet --example mock_kicksdb
mock_out="$(mktemp)"
target/debug/examples/mock_kicksdb >"$mock_out" &
mock_pid=$!
trap 'kill "$mock_pid" 2>/dev/null || true; rm -f "$mock_out"' EXIT
for _ in $(seq 1 100); do [[ -s "$mock_out" ]] && break; sleep 0.1; done
live_home="$(mktemp -d)"
for view in product orders; do
    name=live; [[ "$view" == orders ]] && name=live-orders
    HOME="$live_home" XDG_DATA_HOME="$live_home/data" \
        SOLESCOPE_KICKSDB_URL="$(head -n 1 "$mock_out")" \
        SOLESCOPE_KICKSDB_KEY=KICKS-MOCK-TEST-0000-000000000000 \
        run target/debug/solescope --screenshot "$out/$name.png" --view "$view" --source kicksdb \
        --query "jordan 1 chicago" >/dev/null
    echo "$out/$name.png"
done
rm -rf "$live_home"

# Where to buy: the product view reading two Shopify storefronts (the mock storefront of the
# tests, one process per store, any free port) beside resale-a, on the Dunk Low 'Panda': the
# demo's, then the mock KicksDB's (the window's KicksDB service reads the same stores).
cargo build --locked --quiet --example mock_storefront
store_outs=()
store_pids=()
trap 'kill "$mock_pid" "${store_pids[@]}" 2>/dev/null || true; rm -f "$mock_out" "${store_outs[@]}"' EXIT
# Starts two stores selling HANDLE and sets store_args to their --retailer-store arguments.
start_stores() {
    local handle="$1" files=()
    for store in "11000 7,7.5,8,8.5,9,9.5,10,10.5,11,11.5,12" "11500 8,9,10,11,12,13"; do
        read -r cents sizes <<<"$store"
        out_file="$(mktemp)"
        target/debug/examples/mock_storefront --handle "$handle" \
            --price-cents "$cents" --sizes "$sizes" >"$out_file" &
        store_pids+=("$!")
        store_outs+=("$out_file")
        files+=("$out_file")
    done
    store_args=()
    for out_file in "${files[@]}"; do
        for _ in $(seq 1 100); do [[ -s "$out_file" ]] && break; sleep 0.1; done
        store_args+=(--retailer-store "$(awk '{print $NF; exit}' "$out_file")")
    done
}
start_stores nike-dunk-low-retro-panda-dd1391-100
run target/debug/solescope --screenshot "$out/where-to-buy.png" --view product \
    --query "dunk low panda" "${store_args[@]}" >/dev/null
echo "$out/where-to-buy.png"
start_stores nike-dunk-low-retro-white-black-2021
live_home="$(mktemp -d)"
HOME="$live_home" XDG_DATA_HOME="$live_home/data" \
    SOLESCOPE_KICKSDB_URL="$(head -n 1 "$mock_out")" \
    SOLESCOPE_KICKSDB_KEY=KICKS-MOCK-TEST-0000-000000000000 \
    run target/debug/solescope --screenshot "$out/where-to-buy-live.png" --view product \
    --source kicksdb --query "dunk low" "${store_args[@]}" >/dev/null
rm -rf "$live_home"
echo "$out/where-to-buy-live.png"

# Stores as catalogues: two realistic shops (the catalogue-crawl tests' mock: own handles, two
# pages each, apparel, a decoy, Vans the catalogue lacks), crawled and matched; the search for
# what only they sell lists it as retail only, and its product shows where it is sold.
shop_args=()
for _ in 1 2; do
    out_file="$(mktemp)"
    target/debug/examples/mock_storefront --sneaker-store >"$out_file" &
    store_pids+=("$!")
    store_outs+=("$out_file")
    for _ in $(seq 1 100); do [[ -s "$out_file" ]] && break; sleep 0.1; done
    shop_args+=(--retailer-store "$(awk '{print $NF; exit}' "$out_file")")
done
run target/debug/solescope --screenshot "$out/stores-search.png" --view product \
    --query "vans old skool" "${shop_args[@]}" >/dev/null
echo "$out/stores-search.png"
