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
for view in product orders realtime portfolio settings alerts; do
    run target/debug/solescope --screenshot "$out/$view.png" --view "$view" \
        --query "jordan 1 chicago" >/dev/null
    echo "$out/$view.png"
done
