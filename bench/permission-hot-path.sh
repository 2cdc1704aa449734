#!/usr/bin/env bash
# The permission service's hot path, beside nginx, on loopback (results in bench/RESULTS.md).
#
# For 10,000 and then 1,000,000 stored authorizations (a grid of users x apps for location,
# written by bench/hot-path/seed.sql.template through the sqlite3 shell into a database that
# `permission-server migrate` created, so the rows follow the real schema):
#   - the release `permission-server` pinned to CPU 0, wrk pinned to CPU 1;
#   - GET /v1/users/{u}/apps/{a}/authorizations/location for random seeded users and apps
#     (bench/hot-path/get.lua), wrk -t1 -c64 -d10s --latency, keep-alive;
#   - nginx (one worker, CPU 0) serving a static body of the same size in the same run;
#   - ROUNDS of the two, alternating which goes first (server, nginx; nginx, server; ...), so
#     that the VM's drift falls on both; the ratio reported is the median of the rounds';
#   - durable writes: settings PUTs (bench/hot-path/put.lua) at 64 connections, each one
#     committed with synchronous=FULL and audited; the audit rows are counted afterwards.
# The server runs with its default read cache, and each size is measured once the cache's
# warm-up has loaded every record (polled on /metrics); READ_CACHE_ENTRIES=0 measures without it.
# Prints requests/s, p50, p99, the ratio to nginx, the CPU time wrk and the server used, the
# server's CPU time per request with its user-space part, and the server's memory.
# Kills exactly the PIDs it started. Needs swift, sqlite3, wrk, nginx, taskset, curl.
# Env: DURATION (10s), ROUNDS (3), CONNECTIONS (64),
#      SIZES ("10000:100:100 1000000:10000:100" = rows:users:apps),
#      PORT (18091), NGINX_PORT (18092), SERVER_BINARY (skip the build and use this binary),
#      PACE_MS (8: the paced GET run, where server and nginx see the same offered load; each
#      connection waits a random time, 8 ms on average, after every response),
#      READ_CACHE_ENTRIES (unset: the server's default, --read-cache-entries).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
duration="${DURATION:-10s}"
rounds="${ROUNDS:-3}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
pace_ms="${PACE_MS:-8}"
# get.lua paces whenever PACE_MS is in its environment: only the paced runs below may pass it on.
unset PACE_MS
connections="${CONNECTIONS:-64}"
read_cache=()
if [ -n "${READ_CACHE_ENTRIES:-}" ]; then read_cache=(--read-cache-entries "$READ_CACHE_ENTRIES"); fi
sizes="${SIZES:-10000:100:100 1000000:10000:100}"
port="${PORT:-18091}"
nginx_port="${NGINX_PORT:-18092}"
prefix="$(mktemp -d /tmp/permission-hot-path.XXXXXX)"
# The server needs an API key (SPEC §6): a bootstrap admin key from a throwaway secret, sent by
# wrk (get.lua, put.lua read BENCH_API_KEY) and curl. Authentication is part of the hot path.
export BENCH_API_KEY="${BENCH_API_KEY:-$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')}"
auth=(-H "Authorization: Bearer $BENCH_API_KEY")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
trap cleanup EXIT

for tool in wrk nginx taskset sqlite3 curl; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y wrk nginx-light sqlite3 curl util-linux)" >&2; exit 1; }
done

server_bin="$(bench_server_binary "$root")"

# The server's resident memory: anonymous (its heap, the cache) and the peak, in MB.
memory_note() { # pid
    awk '/^RssAnon:/ { anon = $2 } /^VmHWM:/ { hwm = $2 } END { printf "RssAnon %.0f MB, VmHWM %.0f MB", anon / 1024, hwm / 1024 }' "/proc/$1/status"
}

declare -A memory

names=()
for size in $sizes; do
    split_size "$size"
    db="$prefix/hot-$rows.sqlite"
    echo "== seeding $rows authorizations ($users users x $apps apps)"
    seed_database "$server_bin" "$db" "$users" "$apps"

    PERMISSION_BOOTSTRAP_ADMIN_KEY="$BENCH_API_KEY" taskset -c 0 "$server_bin" serve --host 127.0.0.1 --port "$port" --database "$db" \
        --log-level warning --max-requests-per-connection 1000000 "${read_cache[@]}" >"$prefix/server-$rows.log" 2>&1 &
    server_pid=$!
    pids+=("$server_pid")
    base="http://127.0.0.1:$port"
    wait_up "$base/readyz"
    warm_started=$(date +%s.%N)
    wait_warm "$base" "$rows"
    warm_note="read cache warm after $(awk -v s="$warm_started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }') s, $(memory_note "$server_pid")"

    # nginx serves a body of exactly the size of one GET answer.
    sample_url="$base/v1/users/u1/apps/com.example.app2/authorizations/location"
    curl -fsS "${auth[@]}" "$sample_url" >"$prefix/body.json"
    body_bytes=$(wc -c <"$prefix/body.json")
    start_nginx "$prefix/nginx-$rows" "$nginx_port" /body.json "$(cat "$prefix/body.json")"
    [ "$(curl -fsS "http://127.0.0.1:$nginx_port/body.json" | wc -c)" = "$body_bytes" ] || { echo "nginx body differs" >&2; exit 1; }

    echo "== warm-up ($rows rows; body $body_bytes bytes)"
    USERS=$users APPS=$apps taskset -c 1 wrk -t1 -c"$connections" -d2s -s "$here/hot-path/get.lua" "$base" >/dev/null
    taskset -c 1 wrk -t1 -c"$connections" -d2s "http://127.0.0.1:$nginx_port/body.json" >/dev/null

    for round in $(seq 1 "$rounds"); do
        echo "== round $round of $rounds: GET one authorization and nginx, wrk -t1 -c$connections -d$duration"
        if ((round % 2 == 0)); then wrk_run "nginx-$rows-$round" "$nginx_pid" "http://127.0.0.1:$nginx_port/body.json"; fi
        USERS=$users APPS=$apps wrk_run "get-$rows-$round" "$server_pid" "$base" -s "$here/hot-path/get.lua"
        if ((round % 2 == 1)); then wrk_run "nginx-$rows-$round" "$nginx_pid" "http://127.0.0.1:$nginx_port/body.json"; fi
        names+=("get-$rows-$round" "nginx-$rows-$round")
    done
    echo "== the same, paced: ${pace_ms} ms on average (exponential) between a connection's requests, for both (p99 below saturation)"
    PACE_MS=$pace_ms USERS=$users APPS=$apps wrk_run "get-paced-$rows" "$server_pid" "$base" -s "$here/hot-path/get.lua"
    PACE_MS=$pace_ms wrk_run "nginx-paced-$rows" "$nginx_pid" "http://127.0.0.1:$nginx_port/body.json" -s "$here/paced.lua"
    echo "== durable writes (settings PUT), wrk -t1 -c$connections -d$duration"
    audit_before=$(sqlite3 "$db" 'SELECT count(*) FROM audit')
    USERS=$users APPS=$apps wrk_run "put-$rows" "$server_pid" "$base" -s "$here/hot-path/put.lua"
    names+=("get-paced-$rows" "nginx-paced-$rows" "put-$rows")
    memory["$rows"]="$warm_note; after the runs $(memory_note "$server_pid")"

    kill -TERM "$server_pid" "$nginx_pid"
    wait "$server_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
    written=$(awk '/requests in/ {print $1}' "$prefix/put-$rows.wrk")
    audited=$(( $(sqlite3 "$db" 'SELECT count(*) FROM audit') - audit_before ))
    notes[put-$rows]="${notes[put-$rows]}answered $written, audit rows +$audited"
    rm -f "$db" "$db-wal" "$db-shm"
done

printf '\n%-20s %12s %9s %9s %9s %9s %9s %9s  %s\n' run "requests/s" "p50 ms" "p99 ms" "wrk cpu" "srv cpu" "µs/req" "user µs" notes
for name in "${names[@]}"; do
    printf '%-20s %12s %9s %9s %9s %9s %9s %9s  %s\n' "$name" "${rps[$name]}" "${p50[$name]}" "${p99[$name]}" \
        "${wrkcpu[$name]}" "${srvcpu[$name]}" "${cpureq[$name]}" "${userreq[$name]}" "${notes[$name]:-}"
done
echo
declare -A median_rps median_nginx
for size in $sizes; do
    rows="${size%%:*}"
    ratios=() gets=() nginxes=() saturated=() cpu_ratios=()
    for round in $(seq 1 "$rounds"); do
        gets+=("${rps[get-$rows-$round]}")
        nginxes+=("${rps[nginx-$rows-$round]}")
        saturated+=("${p99[get-$rows-$round]}")
        ratios+=("$(awk -v a="${rps[get-$rows-$round]}" -v b="${rps[nginx-$rows-$round]}" 'BEGIN { printf "%.2f", a / b }')")
        cpu_ratios+=("$(awk -v a="${cpureq[get-$rows-$round]}" -v b="${cpureq[nginx-$rows-$round]}" 'BEGIN { printf "%.2f", b / a }')")
    done
    median_rps[$rows]=$(median "${gets[@]}")
    median_nginx[$rows]=$(median "${nginxes[@]}")
    awk -v r="$rows" -v a="${median_rps[$rows]}" -v b="${median_nginx[$rows]}" -v m="$(median "${ratios[@]}")" \
        -v all="${ratios[*]}" -v p="$(median "${saturated[@]}")" -v c="$(median "${cpu_ratios[@]}")" \
        -v q="${p99[get-paced-$rows]}" -v n="${p99[nginx-paced-$rows]}" \
        'BEGIN { printf "%d rows: GET %.0f/s against nginx %.0f/s (medians); ratio %.2f, the median of the rounds (%s; target >= 0.50), by CPU per request %.2f; p99 at saturation %.3f ms, paced %.3f ms (nginx paced %.3f ms; target < 1 ms)\n", r, a, b, m, all, c, p, q, n }'
    echo "$rows rows: server memory: ${memory[$rows]}"
done
first="${sizes%% *}"; last="${sizes##* }"
first="${first%%:*}"; last="${last%%:*}"
# Also against nginx in the same run, which takes out a machine that got slower in between.
awk -v a="${median_rps[$first]}" -v b="${median_rps[$last]}" -v na="${median_nginx[$first]}" -v nb="${median_nginx[$last]}" \
    -v f="$first" -v l="$last" \
    'BEGIN { printf "throughput %s rows / %s rows: %.2f, %.2f relative to nginx in the same run (target about 1)\n", l, f, b / a, (b / nb) / (a / na) }' \
    2>/dev/null || true
