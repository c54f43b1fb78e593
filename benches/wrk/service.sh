# Shared by benches/http_load.sh, cold_restart.sh and first_start.sh (sourced, not run): starting the
# service, waiting until it answers, and reading wrk's figures. The caller sets `bin`, `port` and
# `catalogue`, and keeps `server` (the running service's pid) for its EXIT trap.

now() { date +%s.%N; }
since() { awk "BEGIN{printf \"%.2f\", $(now) - $1}"; }

# wrk's latency (850.00us, 3.91ms, 1.20s, 1.05m) in milliseconds.
to_ms() {
  awk '{v = $1; f = 1; if (v ~ /us$/) f = 0.001; else if (v ~ /ms$/) f = 1; else if (v ~ /m$/) f = 60000; else if (v ~ /s$/) f = 1000;
        gsub(/[a-z]+$/, "", v); printf "%.2f", v * f}'
}

# cpu_ticks PID: the user and system CPU time a process has used, in clock ticks (fields 14
# and 15 of /proc/PID/stat, counted after the command name, which may hold spaces).
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }

# run_wrk SECONDS ARGS...: sets rps, p50, p99 (ms), errors (non-2xx answers and socket errors),
# requests (answered), and the CPU time per request, in microseconds, of the service
# (`server_us`, from /proc/PID/stat) and of wrk (`wrk_us`, from `times` in the subshell that
# ran it).
run_wrk() {
  local duration=$1 out before ticks
  shift
  before=$(cpu_ticks "$server")
  # `times` prints the subshell's own CPU time, then its children's: wrk's.
  out=$(wrk -t2 -c8 -d"${duration}s" --latency "$@" && times)
  ticks=$(($(cpu_ticks "$server") - before))
  requests=$(awk '/requests in/{print $1}' <<<"$out")
  server_us=$(awk "BEGIN{printf \"%.0f\", $requests ? $ticks * 1e6 / $(getconf CLK_TCK) / $requests : 0}")
  wrk_us=$(tail -1 <<<"$out" | awk -v n="$requests" '
    function seconds(t,  m) { m = t; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", t); sub(/s$/, "", t); return 60 * m + t }
    {printf "%.0f", n ? (seconds($1) + seconds($2)) * 1e6 / n : 0}')
  rps=$(awk '/Requests\/sec/{printf "%.0f", $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out" | to_ms)
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out" | to_ms)
  errors=$(awk '/Non-2xx/{n += $NF} /Socket errors/{gsub(/,/, ""); n += $4 + $6 + $8 + $10} END{print n + 0}' <<<"$out")
  if grep -q "ran out" <<<"$out"; then
    echo "      (the query list ran out: some queries repeated)"
  fi
}

# serve LOG: starts the service and waits until /search answers; sets started and ready_s.
serve() {
  local log=$1
  started=$(now)
  "$bin" serve --addr "127.0.0.1:$port" --catalogue "$catalogue" >"$log" 2>&1 &
  server=$!
  # Every 10 ms, without a process per try until the port is open: a `curl` and a `sleep`
  # every 10 ms took 0.6 of a core (measured: 300 tries, 4.3 s of CPU), which a first start's
  # index build on two cores then shared. The port is tried with bash's /dev/tcp and the wait
  # is a `read` timing out on a pipe nothing writes to.
  local tick
  exec {tick}<> <(:)
  for _ in $(seq 1 12000); do
    if { : <>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null &&
      curl -sf -o /dev/null -H "Authorization: demo-pro" "http://127.0.0.1:$port/search?query=x"; then
      break
    fi
    kill -0 "$server" 2>/dev/null || { echo "$(basename "$0"): serve exited; see $log"; exit 2; }
    read -rt 0.01 -u "$tick" || true
  done
  exec {tick}>&-
  ready_s=$(since "$started")
}

stop() {
  kill "$server"
  wait "$server" 2>/dev/null || true
  server=
}

# require_files PRODUCTS FILE...: exits 2, naming the first missing file, unless every file is
# there (for the scripts that reuse what benches/http_load.sh PRODUCTS leaves behind).
require_files() {
  local products=$1 file
  shift
  for file in "$@"; do
    [ -e "$file" ] || { echo "$(basename "$0"): $file is missing (run benches/http_load.sh $products first)"; exit 2; }
  done
}
