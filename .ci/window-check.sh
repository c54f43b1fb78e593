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
#    and neither reads nor writes the user's; a private session bus on which nothing can be
#    started (no Secret Service: the real keyring is never touched, the app falls back to a
#    session-only key), with the accessibility bus (at-spi-bus-launcher) on it, turned on as a
#    screen reader turns it on (org.a11y.Status IsEnabled); BROWSER is a script that records
#    the URLs it is given.
# 4. Starts Xvfb on a free display with a private cookie, starts `target/debug/solescope`,
#    waits for its window, then screenshots the root window every 2 s until two shots in a row
#    are identical and not blank (the start-up screen counts as blank), up to SETTLE_TIMEOUT_SECS.
# 5. Fails if the shot is blank: fewer than MIN_COLOURS distinct colours or a standard deviation
#    (0..1, all channels) below MIN_STDDEV. Then drives the window with xdotool (keys only, no
#    screen coordinates) and checks each step by what the app itself did, from its log (the
#    client logs every request's URL at debug level) and from the region of the window that
#    step must change:
#    - the `/` shortcut with the focus elsewhere: Escape takes the focus out of the search box
#      (which has it from the first frame), then `/` and `jordan`; the app must send a search
#      for exactly `jordan` (a `/` typed into a box that kept the focus would make it `/jordan`,
#      and text typed while no box has the focus is sent nowhere);
#    - a hit opened: Down, Return must make the app fetch `/api/v2/products/{id}` for the id of
#      the first hit of that search (asked of the app's own service here, with the same URL),
#      and change at least MIN_DETAIL_CHANGED_PIXELS of the detail pane (right of the list; a
#      highlighted row in the list does not count).
#    - the accessibility tree (eframe's `accesskit`): .ci/atspi.py finds the window on the
#      AT-SPI bus, as a screen reader does, with at least MIN_A11Y_NAMED named descendants;
#    - Copy (eframe's `clipboard`): a click on the Copy button beside the style code (found in
#      that tree by its description, clicked with the pointer at its place) must put the
#      product's style code on the X clipboard (read with xclip; it held other text before);
#    - a link (eframe's `links`): a click on the product's `resale_b ↗` link must hand the
#      product's resale_b URL (from the service) to $BROWSER.
# 6. Logs the time to first results the app reports ("first results shown N ms after the window
#    opened") for this first start, which built the demo catalogue, and for a second start that
#    reuses it, and prints both.
# 7. Runs `solescope --screenshot FILE.png --view orders` on the same display and checks that PNG
#    shows a chart: at least MIN_CHART_LINE_PIXELS pixels of the first series' line colour
#    spread over at least MIN_CHART_LINE_WIDTH columns of the content area (a locked or error
#    panel has none). WINDOW_CHECK_TIER=free runs it with a free key, where orders are locked:
#    the check must then fail.
# 8. Runs .ci/first-start-check.sh on the same display: a first start in KicksDB mode with two
#    stores (mock processes), on a fresh home, must settle within 60 s.
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
# At least this many pixels must change when the search runs.
MIN_CHANGED_PIXELS="${MIN_CHANGED_PIXELS:-5000}"
# The detail pane: everything right of the hit list (380 px wide at 1280x800) below the top bar.
DETAIL_CROP="${DETAIL_CROP:-890x770+390+30}"
# Opening a product filled 140,000 pixels of it; a highlighted row changes none of it.
MIN_DETAIL_CHANGED_PIXELS="${MIN_DETAIL_CHANGED_PIXELS:-20000}"
# The orders charts: right of the hit list, below the figure tiles.
CHART_CROP="${CHART_CROP:-880x670+400+130}"
# The first series' colour (src/ui/orders.rs, the series palette). The 52-week orders
# screenshot measured 5,400 such pixels across 746 columns; a lock or error panel has none.
CHART_LINE_COLOUR="${CHART_LINE_COLOUR:-#1f77b4}"
MIN_CHART_LINE_PIXELS="${MIN_CHART_LINE_PIXELS:-300}"
MIN_CHART_LINE_WIDTH="${MIN_CHART_LINE_WIDTH:-400}"
# The demo key's tier for the orders screenshot (free: orders are locked, the check must fail).
WINDOW_CHECK_TIER="${WINDOW_CHECK_TIER:-pro}"
SETTLE_TIMEOUT_SECS="${SETTLE_TIMEOUT_SECS:-90}"
# Named nodes of the window on the AT-SPI bus with a product open (tabs, fields, buttons, labels,
# links); without the accesskit feature the window is not on the bus at all.
MIN_A11Y_NAMED="${MIN_A11Y_NAMED:-60}"
# ImageMagick itself: /usr/local/bin/convert may be a stand-in that only converts to PPM.
CONVERT=/usr/bin/convert
COMPARE=/usr/bin/compare

echo "== system packages for the window check"
packages=(xvfb xauth x11-apps imagemagick xdotool xclip
    dbus-daemon at-spi2-core python3-pyatspi libglib2.0-bin
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
bus_pid=""
atspi_pid=""
clipboard_pid=""
cleanup() {
    # Keep the screenshots and logs when asked (a CI artifact folder, or to look at a failure).
    if [[ -n "${WINDOW_CHECK_KEEP:-}" ]]; then
        mkdir -p "$WINDOW_CHECK_KEEP"
        cp "$work"/*.png "$work"/*.log "$WINDOW_CHECK_KEEP"/ 2>/dev/null || true
    fi
    for pid in "$app_pid" "$clipboard_pid" "$xvfb_pid"; do
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    # The launcher runs in a process group of its own with the accessibility bus and registry
    # it starts.
    if [[ -n "$atspi_pid" ]]; then
        kill -- "-$atspi_pid" 2>/dev/null || true
        wait "$atspi_pid" 2>/dev/null || true
    fi
    if [[ -n "$bus_pid" ]]; then
        kill "$bus_pid" 2>/dev/null || true
    fi
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

# A fresh home: the app builds its own demo catalogue there. Cargo and rustup keep finding the
# toolchain and the crates where they were (first-start-check.sh runs cargo under this home).
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
mkdir -p "$work/home" "$work/data" "$work/config" "$work/cache"
export HOME="$work/home" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" \
    XDG_CACHE_HOME="$work/cache" XDG_RUNTIME_DIR="$work/runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"
# Never the user's session bus (zbus would find it at $XDG_RUNTIME_DIR/bus): the user's keyring
# is never touched.
unset WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS

echo "== a private session bus with the accessibility bus on it"
# No <servicedir>: nothing is started on demand, so no Secret Service (the app keeps its key
# for the session) and no dconf.
cat >"$work/session-bus.conf" <<EOF
<busconfig>
  <type>session</type>
  <listen>unix:dir=$work</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
{
    read -r DBUS_SESSION_BUS_ADDRESS
    read -r bus_pid
} < <(dbus-daemon --config-file="$work/session-bus.conf" --fork --print-address=1 --print-pid=1)
export DBUS_SESSION_BUS_ADDRESS
# The launcher keeps IsEnabled in GSettings: without dconf, in memory. setsid: its own process
# group, ended whole on exit.
GSETTINGS_BACKEND=memory setsid /usr/libexec/at-spi-bus-launcher --launch-immediately \
    >"$work/atspi.log" 2>&1 &
atspi_pid=$!
a11y_bus=""
for _ in $(seq 100); do
    a11y_bus="$(gdbus call --session --dest org.a11y.Bus --object-path /org/a11y/bus \
        --method org.a11y.Bus.GetAddress 2>/dev/null || true)"
    [[ -n "$a11y_bus" ]] && break
    kill -0 "$atspi_pid" 2>/dev/null || fail "at-spi-bus-launcher exited"
    sleep 0.1
done
[[ -n "$a11y_bus" ]] || fail "the accessibility bus did not start"
# What a screen reader (Orca) sets when it starts: AccessKit publishes the tree only then.
gdbus call --session --dest org.a11y.Bus --object-path /org/a11y/bus \
    --method org.freedesktop.DBus.Properties.Set org.a11y.Status IsEnabled '<true>' >/dev/null
echo "session bus $DBUS_SESSION_BUS_ADDRESS, accessibility bus $a11y_bus"

# The browser: a script that records the URL it is given.
cat >"$work/browser.sh" <<EOF
#!/bin/sh
printf '%s\\n' "\$1" >>"$work/opened-urls.txt"
EOF
chmod +x "$work/browser.sh"
export BROWSER="$work/browser.sh"

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

# The client logs each request's URL at debug level: the proof of what the keys did.
export SOLESCOPE_LOG="info,solescope::service=warn,solescope::client=debug"

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

# Waits (about 30 s) until the app's log has a line matching the extended regex $1 after its
# first $2 lines; prints the first such line; fails with $3 if none comes.
wait_for_log() {
    local line=""
    for _ in $(seq 60); do
        line="$(tail -n +"$(($2 + 1))" "$work/app.log" | grep -E -m1 -- "$1" || true)"
        if [[ -n "$line" ]]; then
            printf '%s\n' "$line"
            return
        fi
        kill -0 "$app_pid" 2>/dev/null || fail "the app exited"
        sleep 0.5
    done
    fail "$3"
}

log_lines() {
    wc -l <"$work/app.log"
}

# Pixels that differ between $1 and $2 inside the crop geometry $3.
changed_in() {
    local changed
    "$CONVERT" "$1" -crop "$3" +repage "$work/crop-before.png"
    "$CONVERT" "$2" -crop "$3" +repage "$work/crop-after.png"
    changed="$("$COMPARE" -metric AE "$work/crop-before.png" "$work/crop-after.png" null: 2>&1 || true)"
    printf '%s\n' "${changed%% *}"
}

# GET $1 (a path with query) from the app's own service with the demo key, by bash's /dev/tcp:
# prints the body. Used only to learn which product is the first hit.
service_get() {
    local host_port="${service_url#http://}"
    host_port="${host_port%%/*}"
    exec 3<>"/dev/tcp/${host_port%:*}/${host_port##*:}"
    printf 'GET %s HTTP/1.0\r\nHost: %s\r\nAuthorization: demo-pro\r\n\r\n' "$1" "$host_port" >&3
    sed '1,/^\r$/d' <&3
    exec 3<&-
}

service_url="$(grep -o -m1 'demo service at http://[0-9.]*:[0-9]*' "$work/app.log" | sed 's/^demo service at //' || true)"
[[ -n "$service_url" ]] || fail "the app did not log its service's address"
echo "the app's service: $service_url"

# Keys go through XTEST to the focused window (without a window manager, xdotool focuses it);
# no screen coordinates, so layout changes do not break this.
echo "== Escape, then / jordan (the shortcut focuses the search box from elsewhere)"
xdotool windowfocus --sync "$window" 2>/dev/null || xdotool windowfocus "$window"
# The search box has the focus from the first frame; Escape takes it away.
xdotool key --clearmodifiers Escape
sleep 0.5
before_search=$(log_lines)
xdotool key --clearmodifiers slash
sleep 0.5
xdotool type --delay 50 jordan
# The search is sent after a short pause in typing. Exactly `jordan`: a `/` typed into a box
# that kept the focus would be sent too, as `%2Fjordan`.
searched_line="$(wait_for_log 'GET .*/search\?query=[^"[:space:][:cntrl:]&]*jordan' "$before_search" \
    "the app sent no search for \"jordan\" after Escape, / and typing: the / shortcut did not focus the search box")"
if ! grep -Eq 'GET .*/search\?query=jordan([^A-Za-z0-9_%.-]|$)' <<<"$searched_line"; then
    printf '%s\n' "$searched_line"
    fail "the search sent was not exactly \"jordan\": the / went into the search box (it kept the focus after Escape) instead of focusing it"
fi
search_path="$(grep -o '/search?query=jordan[^"[:space:][:cntrl:]]*' <<<"$searched_line" | head -n1 || true)"
echo "search sent: $search_path"
wait_for_change "$settled" "$work/searched.png" "typing a search changed nothing on screen"
check_not_blank "$work/searched.png" "window after the search"

echo "== Down, Return (opens the first hit in the product view)"
sleep 2 # let the results settle before comparing
shoot "$work/searched.png"
first_hit="$(service_get "$search_path" | grep -o '"id":"[^"]*"' | head -n1 | cut -d'"' -f4 || true)"
[[ -n "$first_hit" ]] || fail "could not learn the first hit of $search_path from $service_url"
echo "first hit of the search: $first_hit"
before_open=$(log_lines)
# Apart: the app reads Return only once a hit is highlighted, and both keys can land in one frame.
xdotool key Down
sleep 0.5
xdotool key Return
wait_for_log "GET .*/api/v2/products/${first_hit}([^A-Za-z0-9_%.-]|\$)" "$before_open" \
    "the app did not fetch the first hit ($first_hit) after Down, Return" >/dev/null
echo "the app fetched the first hit's product: /api/v2/products/$first_hit"
detail_changed=0
for _ in $(seq 15); do
    sleep 2
    kill -0 "$app_pid" 2>/dev/null || fail "the app exited"
    shoot "$work/opened.png"
    detail_changed="$(changed_in "$work/searched.png" "$work/opened.png" "$DETAIL_CROP")"
    [[ "$detail_changed" =~ ^[0-9]+$ ]] && ((detail_changed >= MIN_DETAIL_CHANGED_PIXELS)) && break
done
echo "detail pane pixels changed: $detail_changed (min $MIN_DETAIL_CHANGED_PIXELS, region $DETAIL_CROP)"
[[ "$detail_changed" =~ ^[0-9]+$ ]] && ((detail_changed >= MIN_DETAIL_CHANGED_PIXELS)) ||
    fail "the detail pane did not show the opened product"
check_not_blank "$work/opened.png" "window with a product open"
# The open product as the app's service answers it: its style code and resale_b link.
product_field() {
    service_get "/api/v2/products/$first_hit" | /usr/bin/python3 -c "$1"
}
atspi() {
    timeout 60 /usr/bin/python3 .ci/atspi.py "$@"
}

echo "== accessibility: the window on the AT-SPI bus, with named children"
tree_report="$(atspi tree "$app_pid" 2>&1)" ||
    fail "the accessibility tree is not published (eframe feature accesskit): $tree_report"
printf '%s\n' "$tree_report"
grep -q "frame 'Solescope'" <<<"$tree_report" ||
    fail "the app's window on the AT-SPI bus is not a frame named Solescope"
named="$(grep -o -m1 '[0-9]* named descendants' <<<"$tree_report" | tr -dc 0-9)"
((${named:-0} >= MIN_A11Y_NAMED)) ||
    fail "the window has ${named:-0} named descendants on the AT-SPI bus (min $MIN_A11Y_NAMED)"

echo "== Copy beside the style code puts it on the X clipboard"
sku="$(product_field 'import json, sys; print(json.load(sys.stdin)["data"]["sku"])')"
[[ -n "$sku" ]] || fail "could not learn the style code of $first_hit"
# Other text on the clipboard first (xclip serves it until another owner takes over).
printf 'held before the copy' | xclip -selection clipboard -i -quiet >/dev/null 2>&1 &
clipboard_pid=$!
sleep 0.5
read -r x y < <(atspi centre "$app_pid" "push button" "Copy the style code") ||
    fail "no Copy button for the style code in the accessibility tree"
xdotool mousemove --sync "$x" "$y" click 1
clipboard=""
for _ in $(seq 20); do
    sleep 0.5
    clipboard="$(timeout 5 xclip -o -selection clipboard 2>/dev/null || true)"
    [[ "$clipboard" == "$sku" ]] && break
done
[[ "$clipboard" == "$sku" ]] ||
    fail "after a click on Copy at $x,$y the X clipboard holds \"$clipboard\", not the style code $sku (eframe feature clipboard)"
echo "clipboard after Copy at $x,$y: $clipboard"

echo "== the resale_b link opens the product's page in the browser"
url="$(product_field 'import json, sys
links = json.load(sys.stdin)["data"]["links"]
print(next((l["link"] for l in links if l["target"] == "resale_b"), ""))')"
[[ -n "$url" ]] || fail "the product $first_hit has no resale_b link"
read -r x y < <(atspi centre "$app_pid" link "resale_b ↗") ||
    fail "no resale_b link in the accessibility tree"
xdotool mousemove --sync "$x" "$y" click 1
opened=""
for _ in $(seq 20); do
    sleep 0.5
    opened="$(cat "$work/opened-urls.txt" 2>/dev/null || true)"
    [[ -n "$opened" ]] && break
done
[[ "$opened" == "$url" ]] ||
    fail "after a click on the resale_b link at $x,$y, \$BROWSER was given \"$opened\", not $url (eframe feature links)"
echo "BROWSER was given: $opened"

# The whole process: the window, its OpenGL driver and the in-process service.
echo "app memory: $(grep -E '^(VmRSS|VmHWM):' "/proc/$app_pid/status" | tr -s ' \t\n' ' ')"
if grep -E "panicked|ERROR" "$work/app.log"; then
    fail "the app logged errors"
fi
first_start_ms="$(grep -o -m1 'first results shown [0-9]* ms' "$work/app.log" | tr -dc 0-9 || true)"
[[ -n "$first_start_ms" ]] || fail "the app did not log its time to first results"

kill "$app_pid" 2>/dev/null || true
wait "$app_pid" 2>/dev/null || true
app_pid=""

echo "== a second start, reusing the demo catalogue"
mv "$work/app.log" "$work/app-first.log"
"$app" >"$work/app.log" 2>&1 &
app_pid=$!
second_line="$(wait_for_log 'first results shown [0-9]+ ms' 0 \
    "the second start logged no time to first results")"
second_start_ms="$(grep -o 'first results shown [0-9]* ms' <<<"$second_line" | tr -dc 0-9)"
kill "$app_pid" 2>/dev/null || true
wait "$app_pid" 2>/dev/null || true
app_pid=""
mv "$work/app.log" "$work/app-second.log"
echo "time to first results: first start (demo catalogue built) $first_start_ms ms, second start (catalogue reused) $second_start_ms ms"

echo "== solescope --screenshot --view orders --tier $WINDOW_CHECK_TIER"
started=$SECONDS
timeout 300 "$app" --screenshot "$work/orders.png" --view orders --tier "$WINDOW_CHECK_TIER" \
    >"$work/screenshot.log" 2>&1 ||
    fail "solescope --screenshot failed (exit $?)"
echo "screenshot written in $((SECONDS - started)) s: $("$CONVERT" "$work/orders.png" -format '%wx%h' info:)"
check_not_blank "$work/orders.png" "screenshot --view orders"
# Pixels of the line colour in the chart area: the count, and the width of their bounding box.
read -r line_pixels line_width < <("$CONVERT" "$work/orders.png" -crop "$CHART_CROP" +repage \
    -fuzz 8% -fill black +opaque "$CHART_LINE_COLOUR" -fill white -opaque "$CHART_LINE_COLOUR" \
    -colorspace gray -threshold 50% \
    -format '%[fx:round(mean*w*h)] ' -write info: -trim -format '%[fx:mean>0?w:0]\n' info: 2>/dev/null)
((${line_pixels:-0} > 0)) || line_width=0 # -trim leaves one pixel of an empty mask
echo "chart line: $line_pixels pixels of $CHART_LINE_COLOUR (min $MIN_CHART_LINE_PIXELS) over $line_width columns (min $MIN_CHART_LINE_WIDTH), region $CHART_CROP"
((${line_pixels:-0} >= MIN_CHART_LINE_PIXELS && ${line_width:-0} >= MIN_CHART_LINE_WIDTH)) ||
    fail "the orders screenshot shows no chart"

echo "== a first start in KicksDB mode with two stores, on a fresh home (.ci/first-start-check.sh)"
SOLESCOPE_BIN="$app" bash .ci/first-start-check.sh

echo "window check passed"
