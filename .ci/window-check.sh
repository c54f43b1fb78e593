#!/usr/bin/env bash
# Starts the app in a real window under Xvfb and fails if what it draws is blank; then does the
# same for `solescope --screenshot` (the renderer's own read-back).
#
#   bash .ci/window-check.sh      # after `cargo build`; `.ci/run` calls it after the tests
#
# 1. Installs what it needs with apt if missing (Xvfb, xauth, xwd, ImageMagick, xdotool, and
#    Mesa's software OpenGL with the X11 libraries the window opens at run time).
# 2. Builds the debug binary (a no-op after `cargo test`: CI uses one profile).
# 3. Uses a fresh HOME / XDG_* in a temporary folder, so the app builds its own demo catalogue
#    and neither reads nor writes the user's; no session bus, so the real keyring is never
#    touched (the app falls back to a session-only key).
# 4. Starts Xvfb on a free display with a private cookie, starts `target/debug/solescope`,
#    waits for its window, then screenshots the root window every 2 s until two shots in a row
#    are identical and not blank (the start-up screen counts as blank), up to SETTLE_TIMEOUT_SECS.
# 5. Fails if the shot is blank: fewer than MIN_COLOURS distinct colours or a standard deviation
#    (0..1, all channels) below MIN_STDDEV. Then types a search into the window with xdotool
#    (`/` and text; then Down, Return to open the first hit: no screen coordinates needed) and
#    fails unless the window changes at each step and stays not blank.
# 6. Runs `solescope --screenshot FILE.png --view orders` on the same display and checks that PNG.
# Prints the figures it measured. The app, Xvfb and the temporary folder go away on exit
# (WINDOW_CHECK_KEEP=DIR keeps the screenshots and logs there).
set -euo pipefail
cd "$(dirname "$0")/.."

# A blank window (one colour, or a few from a failed GL clear) is far below these, and so is the
# start-up screen (about 300 colours, deviation 0.04: a heading and a progress bar on a plain
# background). The dashboard measured 2,700 to 4,300 colours and 0.12 to 0.20 (anti-aliased text in
# several colours, product pictures, charts).
MIN_COLOURS="${MIN_COLOURS:-500}"
MIN_STDDEV="${MIN_STDDEV:-0.08}"
# At least this many pixels must change when a product opens.
MIN_CHANGED_PIXELS="${MIN_CHANGED_PIXELS:-5000}"
SETTLE_TIMEOUT_SECS="${SETTLE_TIMEOUT_SECS:-90}"
# ImageMagick itself: /usr/local/bin/convert may be a stand-in that only converts to PPM.
CONVERT=/usr/bin/convert
COMPARE=/usr/bin/compare

echo "== system packages for the window check"
packages=(xvfb xauth x11-apps imagemagick xdotool
    libgl1-mesa-dri libegl1 libgl1 libx11-6 libx11-xcb1 libxcb1 libxcursor1 libxi6 libxrandr2
    libxkbcommon0 libxkbcommon-x11-0)
missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if ((${#missing[@]} > 0)); then
    echo "installing: ${missing[*]}"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

# SOLESCOPE_BIN checks another build (e.g. target/release/solescope) instead.
app="${SOLESCOPE_BIN:-target/debug/solescope}"
echo "== the binary: $app"
if [[ -z "${SOLESCOPE_BIN:-}" ]]; then
    cargo build --locked
fi

work="$(mktemp -d)"
xvfb_pid=""
app_pid=""
cleanup() {
    # Keep the screenshots and logs when asked (a CI artifact folder, or to look at a failure).
    if [[ -n "${WINDOW_CHECK_KEEP:-}" ]]; then
        mkdir -p "$WINDOW_CHECK_KEEP"
        cp "$work"/*.png "$work"/*.log "$WINDOW_CHECK_KEEP"/ 2>/dev/null || true
    fi
    for pid in "$app_pid" "$xvfb_pid"; do
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    rm -rf "$work"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    for log in "$work"/*.log; do
        [[ -s "$log" ]] || continue
        echo "--- last lines of $(basename "$log")" >&2
        tail -n 20 "$log" >&2
    done
    exit 1
}

# "colours stddev" of an image, stddev over all channels in 0..1.
figures() {
    "$CONVERT" "$1" -format '%k %[fx:standard_deviation]\n' info:
}

# Whether figures "$1 $2" (colours, deviation) are above both thresholds.
not_blank() {
    ((${1:-0} >= MIN_COLOURS)) &&
        awk -v s="${2:-0}" -v min="$MIN_STDDEV" 'BEGIN { exit !(s >= min) }'
}

# Fails unless the image at $1 (called $2 in messages) is not blank; prints its figures.
check_not_blank() {
    local colours stddev
    read -r colours stddev < <(figures "$1")
    printf '%s: %s distinct colours (min %s), standard deviation %s (min %s)\n' \
        "$2" "$colours" "$MIN_COLOURS" "$stddev" "$MIN_STDDEV"
    not_blank "$colours" "$stddev" || fail "$2 looks blank"
}

shoot() {
    xwd -root -silent | "$CONVERT" xwd:- "png:$1"
}

# A fresh home: the app builds its own demo catalogue there.
mkdir -p "$work/home" "$work/data" "$work/config" "$work/cache"
export HOME="$work/home" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" \
    XDG_CACHE_HOME="$work/cache" XDG_RUNTIME_DIR="$work/runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"
# No session bus (zbus would otherwise find the user's at $XDG_RUNTIME_DIR/bus): the user's
# keyring is never touched.
unset WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS

echo "== Xvfb"
display_number=99
while [[ -e "/tmp/.X${display_number}-lock" || -e "/tmp/.X11-unix/X${display_number}" ]]; do
    display_number=$((display_number + 1))
done
export DISPLAY=":$display_number" XAUTHORITY="$work/Xauthority"
touch "$XAUTHORITY"
xauth -q add "$DISPLAY" . "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
Xvfb "$DISPLAY" -screen 0 1280x800x24 -nolisten tcp -auth "$XAUTHORITY" >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 100); do
    xdotool getdisplaygeometry >/dev/null 2>&1 && break
    kill -0 "$xvfb_pid" 2>/dev/null || fail "Xvfb exited"
    sleep 0.1
done
echo "display $DISPLAY: $(xdotool getdisplaygeometry)"

echo "== the window"
started=$SECONDS
# No `timeout` here: every wait below is bounded, and the trap ends the app.
"$app" >"$work/app.log" 2>&1 &
app_pid=$!
windows=""
while [[ -z "$windows" ]]; do
    kill -0 "$app_pid" 2>/dev/null || fail "the app exited before opening its window"
    ((SECONDS - started < 60)) || fail "no Solescope window within 60 s"
    sleep 0.5
    windows="$(xdotool search --name '^Solescope$' 2>/dev/null || true)"
done
window="${windows%%$'\n'*}"
echo "window $window after $((SECONDS - started)) s"

# Settled: two identical shots in a row that are not blank (the start-up screen is below the
# thresholds, and its progress bar moves anyway).
previous=""
settled=""
shot=0
while ((SECONDS - started < SETTLE_TIMEOUT_SECS)); do
    sleep 2
    kill -0 "$app_pid" 2>/dev/null || fail "the app exited while starting"
    shot=$((shot + 1))
    shoot "$work/window-$shot.png"
    signature="$("$CONVERT" "$work/window-$shot.png" -format '%#' info:)"
    read -r colours stddev < <(figures "$work/window-$shot.png")
    echo "  shot $shot at $((SECONDS - started)) s: $colours colours, deviation $stddev"
    if [[ "$signature" == "$previous" ]] && not_blank "$colours" "$stddev"; then
        settled="$work/window-$shot.png"
        break
    fi
    previous="$signature"
done
[[ -n "$settled" ]] ||
    fail "the window was still blank or changing after $SETTLE_TIMEOUT_SECS s ($work/window-$shot.png: $colours colours, deviation $stddev)"
echo "settled after $((SECONDS - started)) s ($shot shots)"
check_not_blank "$settled" "window"

# Polls screenshots into $2 until at least MIN_CHANGED_PIXELS differ from $1 (about 30 s);
# prints the count; fails with $3 if they never do.
wait_for_change() {
    local changed=""
    for _ in $(seq 15); do
        sleep 2
        kill -0 "$app_pid" 2>/dev/null || fail "the app exited"
        shoot "$2"
        changed="$("$COMPARE" -metric AE "$1" "$2" null: 2>&1 || true)"
        changed="${changed%% *}"
        if [[ "$changed" =~ ^[0-9]+$ ]] && ((changed >= MIN_CHANGED_PIXELS)); then
            echo "pixels changed: $changed (min $MIN_CHANGED_PIXELS)"
            return
        fi
    done
    fail "$3 (pixels changed: ${changed:-?}, min $MIN_CHANGED_PIXELS)"
}

# Keys go through XTEST to the focused window (without a window manager, xdotool focuses it);
# no screen coordinates, so layout changes do not break this.
echo "== typing into the window: / jordan (the search box and the result list)"
xdotool windowfocus --sync "$window" 2>/dev/null || xdotool windowfocus "$window"
xdotool key --clearmodifiers slash
sleep 0.5
xdotool type --delay 50 jordan
wait_for_change "$settled" "$work/searched.png" "typing a search changed nothing"
check_not_blank "$work/searched.png" "window after the search"

echo "== Down, Return (opens the first hit in the product view)"
sleep 2 # let the results settle before comparing
shoot "$work/searched.png"
xdotool key Down Return
wait_for_change "$work/searched.png" "$work/opened.png" "opening a hit changed nothing"
check_not_blank "$work/opened.png" "window with a product open"
# The whole process: the window, its OpenGL driver and the in-process service.
echo "app memory: $(grep -E '^(VmRSS|VmHWM):' "/proc/$app_pid/status" | tr -s ' \t\n' ' ')"
if grep -E "panicked|ERROR" "$work/app.log"; then
    fail "the app logged errors"
fi

kill "$app_pid" 2>/dev/null || true
wait "$app_pid" 2>/dev/null || true
app_pid=""

echo "== solescope --screenshot --view orders"
started=$SECONDS
timeout 300 "$app" --screenshot "$work/orders.png" --view orders >"$work/screenshot.log" 2>&1 ||
    fail "solescope --screenshot failed (exit $?)"
echo "screenshot written in $((SECONDS - started)) s: $("$CONVERT" "$work/orders.png" -format '%wx%h' info:)"
check_not_blank "$work/orders.png" "screenshot --view orders"

echo "window check passed"
