#!/usr/bin/env bash
# Instructions per request under callgrind: starts a server binary under valgrind, warms it up,
# zeroes the counters, drives it with wrk (one thread, 4 keep-alive connections) for DURATION,
# dumps, and divides the server's instruction count by the requests wrk completed. Kills
# exactly the PIDs it started.
#   bench/instructions.sh engine SERVER_BINARY          # http-bench-server, GET /bench
#   bench/instructions.sh status SERVER_BINARY [ROWS]   # permission-server, GET one authorization
# Valgrind 3.19 cannot read the release permission-server's DWARF: pass a copy made with
# `strip --strip-debug -o COPY permission-server` (it keeps the symbols callgrind_annotate shows).
# Needs valgrind (callgrind_control), wrk, curl, sqlite3 (status). Env: DURATION (10s), PORT (18095).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
mode="$1"; binary="$2"; rows="${3:-10000}"
duration="${DURATION:-10s}"
port="${PORT:-18095}"
prefix="$(mktemp -d /tmp/instructions.XXXXXX)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
curl_args=()
trap cleanup EXIT

case "$mode" in
engine)
    url="http://127.0.0.1:$port/bench"
    wrk_args=("$url")
    valgrind --tool=callgrind --callgrind-out-file="$prefix/cg.out" "$binary" "$port" >"$prefix/server.log" 2>&1 &
    ;;
status)
    users=100; apps=$((rows / users))
    db="$prefix/db.sqlite"
    seed_database "$binary" "$db" "$users" "$apps"
    url="http://127.0.0.1:$port/v1/users/u1/apps/com.example.app2/authorizations/location"
    wrk_args=(-s "$here/hot-path/get.lua" "http://127.0.0.1:$port")
    BENCH_API_KEY="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
    export USERS=$users APPS=$apps BENCH_API_KEY
    curl_args=(-H "Authorization: Bearer $BENCH_API_KEY")
    PERMISSION_BOOTSTRAP_ADMIN_KEY="$BENCH_API_KEY" valgrind --tool=callgrind --callgrind-out-file="$prefix/cg.out" "$binary" serve --host 127.0.0.1 --port "$port" \
        --database "$db" --log-level warning --max-requests-per-connection 1000000 >"$prefix/server.log" 2>&1 &
    ;;
*) echo "usage: $0 engine|status BINARY [ROWS]" >&2; exit 2 ;;
esac
server_pid=$!
pids+=("$server_pid")
for _ in $(seq 1 600); do
    if curl -fsS -o /dev/null "${curl_args[@]}" "$url" 2>/dev/null; then break; fi
    sleep 0.1
done
curl -fsS -o /dev/null "${curl_args[@]}" "$url"
wrk -t1 -c4 -d3s "${wrk_args[@]}" >/dev/null
callgrind_control -z "$server_pid" >/dev/null
out=$(wrk -t1 -c4 -d"$duration" "${wrk_args[@]}")
callgrind_control -d "$server_pid" >/dev/null
sleep 1
requests=$(echo "$out" | awk '/requests in/ {print $1}')
dump=$(ls -t "$prefix"/cg.out.* | head -1)
instructions=$(awk '/^summary:|^totals:/ {print $2; exit}' "$dump")
awk -v i="$instructions" -v r="$requests" -v m="$mode" \
    'BEGIN { printf "%s: %d requests, %.0f instructions per request\n", m, r, i / r }'
