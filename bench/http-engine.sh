#!/usr/bin/env bash
# Compares the HTTPCore engine with nginx serving the same ~280-byte JSON body on loopback.
# Each server is pinned to CPU 0 and wrk to CPU 1 (taskset); wrk -t1 -c64 -d10s --latency runs
# against each with keep-alive, then paced (the same offered load for both, to compare tail
# latency below saturation), then with 'Connection: close'. Prints requests/s, p50,
# p99, the ratio, and the CPU time wrk and each server used. Kills exactly the PIDs it started.
# Needs: swift, wrk, nginx (apt-get install -y wrk nginx-light), taskset.
# Env: DURATION (default 10s), CONNECTIONS (64), SWIFT_PORT (18081), NGINX_PORT (18082),
#      PACE_MS (2: the paced run, bench/paced.lua, where both servers get the same offered load).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
duration="${DURATION:-10s}"
connections="${CONNECTIONS:-64}"
swift_port="${SWIFT_PORT:-18081}"
nginx_port="${NGINX_PORT:-18082}"
scratch="$root/.build-bench"
prefix="$(mktemp -d /tmp/http-engine-bench.XXXXXX)"
body='{"user":"u42","app":"com.example.maps","service":"location","status":"authorized","level":"whenInUse","provisional":false,"once":false,"expiresAt":null,"reason":"userConsent","purpose":"Your location is used to show nearby stops.","updatedAt":"2026-11-22T10:00:00Z","version":3}'
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
trap cleanup EXIT

for tool in wrk nginx taskset; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y wrk nginx-light util-linux)" >&2; exit 1; }
done

echo "== building http-bench-server (release)"
(cd "$here" && HTTPCORE_PACKAGE_ID="$(basename "$root" | tr '[:upper:]' '[:lower:]')" \
    swift build -c release --scratch-path "$scratch" --product http-bench-server >/dev/null)
server_bin="$scratch/release/http-bench-server"

taskset -c 0 "$server_bin" "$swift_port" >"$prefix/swift.out" 2>&1 &
swift_pid=$!
pids+=("$swift_pid")
# The same body and a newline (nginx's escape).
start_nginx "$prefix/nginx" "$nginx_port" /bench "$body\n"
wait_up "http://127.0.0.1:$swift_port/bench"
[ "$(curl -fsS "http://127.0.0.1:$swift_port/bench")" = "$(curl -fsS "http://127.0.0.1:$nginx_port/bench")" ] \
    || { echo "bodies differ" >&2; exit 1; }


declare -A rps p50 p99 wrkcpu srvcpu
run() { # name port extra-args...
    local name="$1" port="$2"; shift 2
    local before after out
    if [[ "$name" == nginx* ]]; then before=$(group_ticks "$nginx_pid"); else before=$(ticks "$swift_pid"); fi
    out=$( { /usr/bin/time -f "WRKCPU %U %S" taskset -c 1 wrk -t1 -c"$connections" -d"$duration" --latency "$@" \
        "http://127.0.0.1:$port/bench"; } 2>&1 )
    if [[ "$name" == nginx* ]]; then after=$(group_ticks "$nginx_pid"); else after=$(ticks "$swift_pid"); fi
    echo "$out" >"$prefix/$name.wrk"
    rps[$name]=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50[$name]=$(to_ms "$(echo "$out" | awk '$1 == "50%" {print $2}')")
    p99[$name]=$(to_ms "$(echo "$out" | awk '$1 == "99%" {print $2}')")
    wrkcpu[$name]=$(echo "$out" | awk '/WRKCPU/ {printf "%.2fs", $2 + $3}')
    srvcpu[$name]=$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2fs", t / hz }')
    local errors
    errors=$(echo "$out" | awk '/Non-2xx|Socket errors/' | tr '\n' ' ')
    [ -n "$errors" ] && echo "   $name: $errors"
    return 0
}

echo "== warm-up"
taskset -c 1 wrk -t1 -c"$connections" -d2s "http://127.0.0.1:$swift_port/bench" >/dev/null
taskset -c 1 wrk -t1 -c"$connections" -d2s "http://127.0.0.1:$nginx_port/bench" >/dev/null

echo "== keep-alive: wrk -t1 -c$connections -d$duration --latency"
run swift "$swift_port"
run nginx "$nginx_port"
echo "== keep-alive, paced: the same offered load for both (bench/paced.lua, PACE_MS=${PACE_MS:-2})"
run swift-paced "$swift_port" -s "$here/paced.lua"
run nginx-paced "$nginx_port" -s "$here/paced.lua"
echo "== Connection: close"
run swift-close "$swift_port" -H "Connection: close"
run nginx-close "$nginx_port" -H "Connection: close"

printf '\n%-12s %12s %10s %10s %10s %10s\n' server "requests/s" "p50 ms" "p99 ms" "wrk cpu" "srv cpu"
for name in swift nginx swift-paced nginx-paced swift-close nginx-close; do
    printf '%-12s %12s %10s %10s %10s %10s\n' "$name" "${rps[$name]}" "${p50[$name]}" "${p99[$name]}" "${wrkcpu[$name]}" "${srvcpu[$name]}"
done
awk -v a="${rps[swift]}" -v b="${rps[nginx]}" -v c="${rps[swift-close]}" -v d="${rps[nginx-close]}" \
    'BEGIN { printf "\nratio swift/nginx: keep-alive %.2f, Connection: close %.2f (target keep-alive >= 0.60)\n", a / b, c / d }'
echo "p99 at the same offered load (paced): swift ${p99[swift-paced]} ms, nginx ${p99[nginx-paced]} ms (target < 1 ms)"
