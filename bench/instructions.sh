#!/usr/bin/env bash
# Instructions per request under callgrind: starts a server binary under valgrind, warms it up,
# zeroes the counters, drives it with wrk (one thread, 4 keep-alive connections) for DURATION,
# dumps, and divides the server's instruction count by the requests wrk completed. Also counts the
# code a request runs as 64-byte cache lines (bench/code-lines.py: the lines holding an
# instruction that at least half the requests ran) and the 4 KiB pages they lie on, which tell
# what a request costs when it finds the CPU's caches and TLB cold, as at a paced load, better
# than the instruction count (a loop's body counts once). Kills exactly the PIDs it started.
#   bench/instructions.sh engine SERVER_BINARY          # http-bench-server, GET /bench
#   bench/instructions.sh status SERVER_BINARY [ROWS]   # permission-server, GET one authorization
#   bench/instructions.sh write SERVER_BINARY [ROWS]    # permission-server, durable settings PUTs
#   bench/instructions.sh nginx [NGINX_BINARY]          # nginx (one process), a static body of a
#                                                       # status read's size: the reference
# The write mode drives bench/hot-path/put.lua over 16 connections (each write a new record and its
# audit entry, as bench/peer.sh does) and also splits a write's instructions by where they run
# (inclusive counts of the functions below, from callgrind_annotate; demangled with `swift
# demangle` when swift is installed). Under valgrind the server is many times slower, so its batches
# are larger than at full speed, and the kernel's share (pwrite, fdatasync, the sockets) is not
# counted at all: read it beside bench/sqlite-write.sh and the CPU times of bench/peer.sh.
# Valgrind 3.19 cannot read the release permission-server's DWARF: pass a copy made with
# `strip --strip-debug -o COPY permission-server` (it keeps the symbols callgrind_annotate shows).
# Needs valgrind (callgrind_control), wrk, curl, python3, sqlite3 (status, write), nginx (nginx).
# Env: DURATION (10s), PORT (18095), HOT_FUNCTIONS (a file: the binary's own functions that ran
#      half an instruction a request or more are appended to it, hottest first, those it already
#      lists left out; bench/hot-text.sh uses it to write docker/hot-text.order).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
mode="${1:-}"; binary="${2:-}"; rows="${3:-10000}"
if [ "$mode" = nginx ] && [ -z "$binary" ]; then
    binary="$(command -v nginx || true)"
    [ -n "$binary" ] || { echo "missing nginx (apt-get install -y nginx-light)" >&2; exit 1; }
fi
[ -n "$binary" ] || { echo "usage: $0 engine|status|write BINARY [ROWS], or $0 nginx [NGINX_BINARY]" >&2; exit 2; }
duration="${DURATION:-10s}"
port="${PORT:-18095}"
prefix="$(mktemp -d /tmp/instructions.XXXXXX)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
curl_args=()
wrk_connections=4
# The linker orders symbols by their names as the object files spell them.
callgrind=(valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$prefix/cg.out")
if [ -n "${HOT_FUNCTIONS:-}" ]; then callgrind+=(--demangle=no); fi
trap cleanup EXIT

case "$mode" in
engine)
    url="http://127.0.0.1:$port/bench"
    wrk_args=("$url")
    "${callgrind[@]}" "$binary" "$port" >"$prefix/server.log" 2>&1 &
    ;;
nginx)
    # One process (no master), so that callgrind follows the one that serves; the body is a
    # status read's for a record never asked for (219 bytes), as bench/peer.sh gives nginx.
    body='{"app":"com.example.app2","expiresAt":null,"once":false,"provisional":false,"purpose":null,"reason":"default","service":"location","status":"notDetermined","updatedAt":"1970-01-01T00:00:00.000Z","user":"u1","version":0}'
    mkdir -p "$prefix/nginx/logs" "$prefix/nginx/tmp"
    cat >"$prefix/nginx/nginx.conf" <<NGINX
worker_processes 1;
master_process off;
daemon off;
pid $prefix/nginx/nginx.pid;
error_log $prefix/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $prefix/nginx/tmp;
    proxy_temp_path $prefix/nginx/tmp;
    fastcgi_temp_path $prefix/nginx/tmp;
    uwsgi_temp_path $prefix/nginx/tmp;
    scgi_temp_path $prefix/nginx/tmp;
    server {
        listen 127.0.0.1:$port;
        location = /body.json {
            default_type application/json;
            return 200 '$body';
        }
    }
}
NGINX
    url="http://127.0.0.1:$port/body.json"
    wrk_args=("$url")
    "${callgrind[@]}" "$binary" -p "$prefix/nginx" -c "$prefix/nginx/nginx.conf" \
        >"$prefix/server.log" 2>&1 &
    ;;
status | write)
    users=100; apps=$((rows / users))
    db="$prefix/db.sqlite"
    seed_database "$binary" "$db" "$users" "$apps"
    url="http://127.0.0.1:$port/v1/users/u1/apps/com.example.app2/authorizations/location"
    if [ "$mode" = status ]; then
        wrk_args=(-s "$here/hot-path/get.lua" "http://127.0.0.1:$port")
    else
        wrk_connections=16
        wrk_args=(-s "$here/hot-path/put.lua" "http://127.0.0.1:$port")
    fi
    BENCH_API_KEY="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
    export USERS=$users APPS=$apps BENCH_API_KEY
    curl_args=(-H "Authorization: Bearer $BENCH_API_KEY")
    PERMISSION_BOOTSTRAP_ADMIN_KEY="$BENCH_API_KEY" "${callgrind[@]}" "$binary" serve --host 127.0.0.1 --port "$port" \
        --database "$db" --log-level warning --max-requests-per-connection 1000000 >"$prefix/server.log" 2>&1 &
    ;;
*) echo "usage: $0 engine|status|write BINARY [ROWS], or $0 nginx [NGINX_BINARY]" >&2; exit 2 ;;
esac
server_pid=$!
pids+=("$server_pid")
for _ in $(seq 1 600); do
    if curl -fsS -o /dev/null "${curl_args[@]}" "$url" 2>/dev/null; then break; fi
    sleep 0.1
done
curl -fsS -o /dev/null "${curl_args[@]}" "$url"
wrk -t1 -c"$wrk_connections" -d3s "${wrk_args[@]}" >/dev/null
if [ "$mode" = write ]; then batches_before=$(write_batches_of "http://127.0.0.1:$port"); fi
callgrind_control -z "$server_pid" >/dev/null
out=$(wrk -t1 -c"$wrk_connections" -d"$duration" "${wrk_args[@]}")
callgrind_control -d "$server_pid" >/dev/null
sleep 1
requests=$(echo "$out" | awk '/requests in/ {print $1}')
dump=$(find "$prefix" -name 'cg.out.*' -printf '%T@ %p\n' | sort -rn | head -1 | cut -d' ' -f2-)
instructions=$(awk '/^summary:|^totals:/ {print $2; exit}' "$dump")
read -r code_lines code_kib code_pages < <(python3 "$here/code-lines.py" "$dump" "$requests")
awk -v i="$instructions" -v r="$requests" -v m="$mode" -v l="$code_lines" -v k="$code_kib" -v p="$code_pages" \
    'BEGIN { printf "%s: %d requests, %.0f instructions per request, %d cache lines of code (%d KiB) on %d pages\n", m, r, i / r, l, k, p }'

if [ -n "${HOT_FUNCTIONS:-}" ]; then
    touch "$HOT_FUNCTIONS"
    before=$(wc -l <"$HOT_FUNCTIONS")
    python3 "$here/hot-functions.py" "$dump" "$requests" "$binary" >"$prefix/hot.all"
    awk 'FILENAME == ARGV[1] { listed[$0] = 1; next } !($0 in listed)' "$HOT_FUNCTIONS" "$prefix/hot.all" \
        >"$prefix/hot.new"
    cat "$prefix/hot.new" >>"$HOT_FUNCTIONS"
    echo "$mode: $(wc -l <"$prefix/hot.new") functions added to $HOT_FUNCTIONS after its $before"
fi

[ "$mode" = write ] || exit 0
awk -v a="$batches_before" -v b="$(write_batches_of "http://127.0.0.1:$port")" \
    'BEGIN { split(a, x, " "); split(b, y, " "); if (y[2] > x[2]) printf "%.1f writes a commit under valgrind\n", (y[1] - x[1]) / (y[2] - x[2]) }'
# Where a write's instructions run: inclusive counts (a function with what it calls) per write.
# The rows overlap where one calls another (the writer's batch runs the body, which seals).
callgrind_annotate --inclusive=yes --threshold=100 "$dump" >"$prefix/inclusive.txt" 2>/dev/null
callgrind_annotate --threshold=100 "$dump" >"$prefix/exclusive.txt" 2>/dev/null
for file in inclusive exclusive; do
    if command -v swift >/dev/null; then swift demangle --simplified <"$prefix/$file.txt" >"$prefix/$file.names"
    else cp "$prefix/$file.txt" "$prefix/$file.names"; fi
done
# The largest count on a line matching PATTERN (grep -E) in FILE, per write.
per_write() { # file pattern
    grep -E "$2" "$prefix/$1.names" | awk -v r="$requests" '{ gsub(",", "", $1); if ($1 + 0 > max) max = $1 + 0 }
        END { printf "%.0f", max / r }'
}
# The sum of the counts on lines matching PATTERN in FILE, per write.
sum_per_write() { # file pattern
    grep -E "$2" "$prefix/$1.names" | awk -v r="$requests" '{ gsub(",", "", $1); sum += $1 } END { printf "%.0f", sum / r }'
}
echo "instructions per write, inclusive (the rows overlap):"
printf '  %-62s %s\n' \
    "HTTP: reading, parsing and routing a request (processInput)" "$(per_write inclusive 'HTTPConnection\.processInput\(\)')" \
    "  of which decoding the JSON body (WireDecoder.decode)" "$(per_write inclusive 'static WireDecoder\.decode<')" \
    "HTTP: a response sent (HTTPDeferredResponse.complete)" "$(per_write inclusive 'HTTPDeferredResponse\.complete\(')" \
    "the writer's batches, commits included (DatabaseWriter.run)" "$(per_write inclusive 'DatabaseWriter\.run\(')" \
    "  the write's body: rules, rows, audit entry (changeBody closure)" "$(per_write inclusive 'closure #1 in PermissionService\.changeBody')" \
    "  the audit entry (AuditChain.record)" "$(per_write inclusive 'AuditChain\.record<')" \
    "    the user's key (read, or drawn and inserted), the seals" "$(per_write inclusive 'SubjectSealer\.seal\(')" \
    "  SQLite, every statement (sqlite3_step)" "$(per_write inclusive ':sqlite3_step ')" \
    "malloc and free, themselves (exclusive)" "$(sum_per_write exclusive ':(malloc|free|cfree[^ ]*|_int_malloc|_int_free|malloc_consolidate|unlink_chunk[^ ]*) ')" \
    "reference counting, itself (exclusive swift_retain/release)" "$(sum_per_write exclusive ':swift_(retain|release|bridgeObjectRetain|bridgeObjectRelease) ')"
