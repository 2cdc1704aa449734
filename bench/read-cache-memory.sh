#!/usr/bin/env bash
# The server's resident memory with the read cache loaded (results in bench/RESULTS.md, "Memory
# and the read cache"). No load generator: it only starts the release `permission-server` on a
# seeded database (bench/hot-path/seed.sql.template, users x apps location authorizations), waits
# until the warm-up has loaded every record (polled on /metrics), reads /proc/PID/status and
# /proc/PID/smaps_rollup, then does the same with the cache off (--read-cache-entries 0) and
# prints the cache's bytes per record: RssAnon loaded minus RssAnon without the cache, over rows.
# Kills exactly the PIDs it started. Needs swift (unless SERVER_BINARY), sqlite3, curl.
# Env: SERVER_BINARY (skip the build and use this binary), USERS (10000), APPS (100),
#      PORT (18093), SETTLE (2: seconds to wait after the warm-up before reading /proc),
#      DATABASE (a database seeded earlier with USERS x APPS rows, kept; else a temporary one).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
users="${USERS:-10000}"
apps="${APPS:-100}"
rows=$((users * apps))
port="${PORT:-18093}"
settle="${SETTLE:-2}"
prefix="$(mktemp -d /tmp/permission-cache-memory.XXXXXX)"
export BENCH_API_KEY="${BENCH_API_KEY:-$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')}"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
trap cleanup EXIT

for tool in sqlite3 curl; do
    command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
server_bin="$(bench_server_binary "$root")"

db="${DATABASE:-$prefix/cache-memory.sqlite}"
if [ ! -s "$db" ]; then
    echo "== seeding $rows authorizations ($users users x $apps apps) into $db"
    seed_database "$server_bin" "$db" "$users" "$apps"
fi
[ "$(sqlite3 "$db" 'SELECT count(*) FROM authorizations')" = "$rows" ] || { echo "$db does not hold $rows rows" >&2; exit 1; }

# kB of one field of /proc/PID/status or /proc/PID/smaps_rollup.
field() { awk -v f="$2:" '$1 == f { print $2 }' "$1"; }

declare -A anon
measure() { # name [serve args...]
    local name="$1" pid base started; shift
    PERMISSION_BOOTSTRAP_ADMIN_KEY="$BENCH_API_KEY" "$server_bin" serve --host 127.0.0.1 --port "$port" --database "$db" \
        --log-level warning "$@" >"$prefix/server-$name.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    base="http://127.0.0.1:$port"
    wait_up "$base/readyz"
    started=$(date +%s.%N)
    wait_warm "$base" "$rows"
    local warm
    warm=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    # One status read, so that the path a request takes is mapped in both runs.
    curl -fsS -o /dev/null -H "Authorization: Bearer $BENCH_API_KEY" \
        "$base/v1/users/u1/apps/com.example.app2/authorizations/location"
    sleep "$settle"
    cp "/proc/$pid/status" "$prefix/status-$name"
    cp "/proc/$pid/smaps_rollup" "$prefix/smaps-$name"
    anon[$name]=$(field "$prefix/status-$name" RssAnon)
    awk -v n="$name" -v w="$warm" '
        $1 == "VmRSS:" { rss = $2 } $1 == "RssAnon:" { an = $2 } $1 == "RssFile:" { file = $2 }
        $1 == "VmHWM:" { hwm = $2 } $1 == "Threads:" { threads = $2 }
        END { printf "%-10s VmRSS %4.0f MiB  RssAnon %4.0f MiB  RssFile %4.0f MiB  VmHWM %4.0f MiB  threads %s  (ready %s s after /readyz)\n",
              n, rss / 1024, an / 1024, file / 1024, hwm / 1024, threads, w }' "$prefix/status-$name"
    echo "           smaps_rollup: Pss_Anon $(field "$prefix/smaps-$name" Pss_Anon) kB, Pss_File $(field "$prefix/smaps-$name" Pss_File) kB"
    curl -fsS "$base/metrics" | awk '$1 == "permission_read_cache_entries" { print "           permission_read_cache_entries " $2 }'
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null || true
}

echo "== $rows records ($users users x $apps apps), $server_bin"
measure cache
measure no-cache --read-cache-entries 0
awk -v a="${anon[cache]}" -v b="${anon[no-cache]}" -v r="$rows" \
    'BEGIN { printf "read cache: %.1f bytes per record (RssAnon %.0f MiB loaded - %.0f MiB without the cache, over %d records)\n", (a - b) * 1024 / r, a / 1024, b / 1024, r }'
