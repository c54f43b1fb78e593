#!/usr/bin/env bash
# Start time of the window: a candidate build against a baseline build, measured in the same run.
#
#   bash benches/desktop_start.sh BASELINE_BIN CANDIDATE_BIN [RUNS]
#
# e.g. the app built without eframe's accesskit/clipboard/links features as the baseline and with
# them as the candidate. Under Xvfb (installed like .ci/window-check.sh does if missing), with a
# fresh HOME whose demo catalogue is built once by a warm-up start, each binary is started RUNS
# times (5), alternating which goes first, and timed from exec to
#   - window: the Solescope window exists on the display (xdotool, polled every 20 ms);
#   - results: the app logs "first results shown" (the first search answered and drawn).
# No session bus and no screen reader: the start a user without assistive technology gets.
# Prints each binary's size and p50/p90/max of both times, then PASS, or FAIL (exit 1) when the
# candidate's p50 exceeds the baseline's by more than 25 % + 150 ms (noise on a shared machine).
set -euo pipefail

baseline="${1:?usage: desktop_start.sh BASELINE_BIN CANDIDATE_BIN [RUNS]}"
candidate="${2:?usage: desktop_start.sh BASELINE_BIN CANDIDATE_BIN [RUNS]}"
runs="${3:-5}"
# Slower than this and the candidate fails: p50 > baseline p50 * RATIO + SLACK_MS.
RATIO="${RATIO:-1.25}"
SLACK_MS="${SLACK_MS:-150}"

for package in xvfb xauth xdotool; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
            xvfb xauth xdotool libgl1-mesa-dri libegl1 libgl1 libx11-6 libx11-xcb1 libxcb1 \
            libxcursor1 libxi6 libxrandr2 libxkbcommon0 libxkbcommon-x11-0
        break
    fi
done

work="$(mktemp -d)"
xvfb_pid=""
app_pid=""
cleanup() {
    for pid in "$app_pid" "$xvfb_pid"; do
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/home" "$work/data" "$work/config" "$work/cache"
export HOME="$work/home" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" \
    XDG_CACHE_HOME="$work/cache" XDG_RUNTIME_DIR="$work/runtime"
mkdir -m 700 "$XDG_RUNTIME_DIR"
unset WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS
export SOLESCOPE_LOG="info"

display_number=120
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
    sleep 0.1
done

now_ms() {
    echo $(($(date +%s%N) / 1000000))
}

# Starts $1, sets window_ms and results_ms (from exec), and ends it.
one_start() {
    local started
    window_ms=""
    results_ms=""
    started=$(now_ms)
    "$1" >"$work/app.log" 2>&1 &
    app_pid=$!
    while [[ -z "$results_ms" ]]; do
        kill -0 "$app_pid" 2>/dev/null || {
            tail -n 5 "$work/app.log" >&2
            echo "the app exited" >&2
            exit 1
        }
        if (($(now_ms) - started > 120000)); then
            echo "no first results within 120 s" >&2
            exit 1
        fi
        if [[ -z "$window_ms" ]] && xdotool search --name '^Solescope$' >/dev/null 2>&1; then
            window_ms=$(($(now_ms) - started))
        fi
        if grep -q 'first results shown' "$work/app.log"; then
            results_ms=$(($(now_ms) - started))
        fi
        sleep 0.02
    done
    kill "$app_pid" 2>/dev/null || true
    wait "$app_pid" 2>/dev/null || true
    app_pid=""
    window_ms="${window_ms:-$results_ms}"
}

echo "== warm-up start (builds the demo catalogue)"
one_start "$baseline"

declare -a base_window base_results cand_window cand_results
for ((run = 1; run <= runs; run++)); do
    if ((run % 2)); then order=(baseline candidate); else order=(candidate baseline); fi
    for which in "${order[@]}"; do
        if [[ "$which" == baseline ]]; then
            one_start "$baseline"
            base_window+=("$window_ms")
            base_results+=("$results_ms")
        else
            one_start "$candidate"
            cand_window+=("$window_ms")
            cand_results+=("$results_ms")
        fi
        echo "  run $run $which: window $window_ms ms, first results $results_ms ms"
    done
done

# "p50 p90 max" (nearest rank) of the numbers given.
percentiles() {
    printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
        p50 = v[int((NR * 50 + 99) / 100)]; p90 = v[int((NR * 90 + 99) / 100)]
        printf "%d %d %d\n", p50, p90, v[NR] }'
}

verdict=PASS
report() {
    local name="$1" binary="$2" window results
    window="$(percentiles "${@:3:$runs}")"
    results="$(percentiles "${@:$((3 + runs)):$runs}")"
    printf '%-9s %s (%s bytes): window p50/p90/max %s ms; first results p50/p90/max %s ms\n' \
        "$name" "$binary" "$(stat -c %s "$binary")" "${window// //}" "${results// //}"
}
report baseline "$baseline" "${base_window[@]}" "${base_results[@]}"
report candidate "$candidate" "${cand_window[@]}" "${cand_results[@]}"

for what in window results; do
    if [[ "$what" == window ]]; then
        base_p50="$(percentiles "${base_window[@]}" | cut -d' ' -f1)"
        cand_p50="$(percentiles "${cand_window[@]}" | cut -d' ' -f1)"
    else
        base_p50="$(percentiles "${base_results[@]}" | cut -d' ' -f1)"
        cand_p50="$(percentiles "${cand_results[@]}" | cut -d' ' -f1)"
    fi
    limit="$(awk -v b="$base_p50" -v r="$RATIO" -v s="$SLACK_MS" 'BEGIN { printf "%d", b * r + s }')"
    echo "$what p50: candidate $cand_p50 ms, baseline $base_p50 ms, limit $limit ms"
    ((cand_p50 <= limit)) || verdict=FAIL
done
echo "$verdict"
[[ "$verdict" == PASS ]]
