# shellcheck shell=bash
# Shared by the bench scripts (sourced, not run): process cleanup, CPU accounting, wrk output.
# The sourcing script sets `prefix` (its temporary directory), `connections` and `duration`
# (wrk_run's), appends to `pids` and reads the arrays wrk_run fills.
# shellcheck disable=SC2034,SC2154

pids=()

# Kills exactly the PIDs the script started, waits for them, removes its temporary directory.
cleanup() {
    for pid in "${pids[@]}"; do
        if kill -0 "$pid" 2>/dev/null; then kill "$pid" 2>/dev/null || true; fi
    done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "${prefix:?}"
}

# CPU ticks (utime + stime, all threads) of a process.
# A process that ended meanwhile (a PostgreSQL backend whose connection closed) counts 0.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# The user-space part of `ticks`.
user_ticks() { awk '{print $14}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# CPU ticks of a process and its children (nginx's worker); `group_ticks PID user` counts user
# time only. Neither includes softirq time, which the kernel accounts to no process.
group_ticks() {
    local total=0 p
    for p in "$1" $(pgrep -P "$1" || true); do
        if [[ "${2:-}" == user ]]; then total=$((total + $(user_ticks "$p"))); else total=$((total + $(ticks "$p"))); fi
    done
    echo "$total"
}

# The release permission-server a bench runs: SERVER_BINARY when set, else built as
# docker/Dockerfile builds the shipped binary (scripts/build-release.sh: release, Swift runtime
# linked in, the hot functions laid out together) under ROOT.
bench_server_binary() { # root
    if [ -n "${SERVER_BINARY:-}" ]; then
        echo "$SERVER_BINARY"
        return
    fi
    echo "== building permission-server (scripts/build-release.sh)" >&2
    (cd "$1" && scripts/build-release.sh --scratch-path "$1/.build-bench-release" --product permission-server >/dev/null)
    echo "$1/.build-bench-release/release/permission-server"
}

# Creates DB with the real schema (`SERVER_BIN migrate`) and seeds USERS x APPS location
# authorizations into it (bench/hot-path/seed.sql.template); fails unless exactly that many rows.
# The secondary indexes of `authorizations` are dropped for the load and then created again from
# their own SQL (sorting once is minutes faster at 10,000,000 rows than updating five indexes
# row by row), so the database ends with the schema `migrate` made, whatever its indexes are.
seed_database() { # server_bin db users apps
    local server_bin="$1" db="$2" users="$3" apps="$4" template indexes count_indexes index_count
    template="$(dirname "${BASH_SOURCE[0]}")/hot-path/seed.sql.template"
    "$server_bin" migrate --database "$db" --log-level warning >/dev/null
    count_indexes="SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'authorizations' AND sql IS NOT NULL"
    index_count=$(sqlite3 "$db" "$count_indexes")
    indexes=$(sqlite3 "$db" "SELECT sql || ';' FROM sqlite_master WHERE type = 'index' AND tbl_name = 'authorizations' AND sql IS NOT NULL")
    sqlite3 "$db" "SELECT 'DROP INDEX \"' || name || '\";' FROM sqlite_master WHERE type = 'index' AND tbl_name = 'authorizations' AND sql IS NOT NULL" |
        sqlite3 "$db"
    sed -e "s/@USERS@/$users/g" -e "s/@APPS@/$apps/g" -e "/^-- @INDEXES@/r /dev/stdin" "$template" <<<"$indexes" |
        sqlite3 "$db" >/dev/null
    if [ "$(sqlite3 "$db" 'SELECT count(*) FROM authorizations')" != "$((users * apps))" ] ||
        [ "$(sqlite3 "$db" "$count_indexes")" != "$index_count" ]; then
        echo "seeding $db failed" >&2
        return 1
    fi
}

# Splits one SIZES entry, rows:users:apps, into the variables rows, users and apps; exits the
# script unless rows is users x apps.
split_size() { # rows:users:apps
    IFS=: read -r rows users apps <<<"$1"
    [ "$((users * apps))" = "$rows" ] || { echo "SIZES: $rows is not $users x $apps" >&2; exit 2; }
}

# wrk latency like 95.00us / 1.20ms / 2.00s → milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n *= 1; else if (v ~ /s$/) n *= 1000; printf "%.3f", n }'
}

# Waits (20 s at most) until URL answers 2xx; exits the script otherwise.
wait_up() { # url
    for _ in $(seq 1 200); do
        if curl -fsS -o /dev/null "$1" 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "nothing answers $1" >&2
    exit 1
}

# Waits until the read cache is warm: until it holds ROWS entries (the SQLite warm-up's records
# and users), or, for a table larger than the cache (ROWS above CAPACITY, the server's
# --read-cache-entries, 1,000,000 unless given), until its count has stopped growing (the
# warm-up stops once the cache is full): for 1 s at CAPACITY entries or more (users' entries
# count too), for 3 s below. Returns at once when the cache is off (no such series). Five
# minutes at most; exits the script otherwise.
wait_warm() { # base rows [capacity]
    local rows="$2" capacity="${3:-1000000}" entries last="" still=0
    for _ in $(seq 1 3000); do
        entries=$(curl -fsS "$1/metrics" | awk '$1 == "permission_read_cache_entries" { print $2 }')
        if [ -z "$entries" ]; then return 0; fi
        entries="${entries%.*}"
        if ((rows <= capacity && entries >= rows)); then return 0; fi
        if ((rows > capacity && entries > 0)); then
            if [ "$entries" = "$last" ]; then still=$((still + 1)); else still=0; fi
            if ((still >= 30 || (still >= 10 && entries >= capacity))); then return 0; fi
        fi
        last="$entries"
        sleep 0.1
    done
    echo "the read cache did not warm up: $entries entries" >&2
    exit 1
}

# The resident memory of a process from /proc/PID/status: VmRSS, RssAnon, RssFile in MiB.
memory_of() { # pid
    awk '/^VmRSS:/ { r = $2 } /^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 }
        END { printf "VmRSS %.0f MiB (RssAnon %.0f, RssFile %.0f)", r / 1024, a / 1024, f / 1024 }' "/proc/$1/status"
}

# Bytes a process passed to write(2) and its kin (`wchar` in /proc/PID/io: files and sockets),
# and the bytes it made the storage layer write (`write_bytes`): "wchar write_bytes".
io_of() { # pid
    awk '$1 == "wchar:" { w = $2 } $1 == "write_bytes:" { b = $2 } END { print w + 0, b + 0 }' "/proc/$1/io" 2>/dev/null || echo "0 0"
}

# Context switches (voluntary and not) of a process's threads alive now, summed over
# /proc/PID/task/*/status; a thread that ended takes its count with it, so wrk_run counts with
# `perf stat` (which follows threads started meanwhile) when it can, and with this otherwise.
ctxt_switches_of() { # pid
    cat "/proc/$1"/task/*/status 2>/dev/null | awk '/^(non)?voluntary_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}

# Whether `perf stat` can count a process's context switches here.
perf_counts=""
if command -v perf >/dev/null && perf stat -x, -e context-switches -o /dev/null true >/dev/null 2>&1; then perf_counts=yes; fi

# The service's write batches so far: "writes transactions" from the histogram
# sqlite_write_transaction_writes (_sum, _count; also with a permission_ prefix) on BASE/metrics.
write_batches_of() { # base
    curl -fsS "$1/metrics" | awk '
        $1 ~ /^(permission_)?sqlite_write_transaction_writes_sum($|\{)/ { s += $2 }
        $1 ~ /^(permission_)?sqlite_write_transaction_writes_count($|\{)/ { c += $2 }
        END { printf "%.0f %.0f\n", s, c }'
}

# The number after NAME= in LINE, a line of key=value fields (bench/sqlite-write/write.c's).
field_of() { sed -E "s/.*(^| )$1=([0-9.]+).*/\2/" <<<"$2"; }

# The median of a list of numbers (the middle one; the mean of the two middle ones).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One wrk run against a server, wrk pinned to CPU 1: -t1 -c$connections -d$duration --latency
# (the sourcing script sets both). Records under NAME requests/s, p50, p90 and p99 (ms), the CPU time
# wrk and the server (PID and its children) used, the server's CPU time per request answered and
# its user-space part (µs), the bytes PID passed to write(2) (wchar) and made the storage write
# (write_bytes) per request, its threads' context switches per request (`perf stat -p`, else
# /proc), and wrk's error lines; wrk's output goes to $prefix/NAME.wrk.
declare -A rps p50 p90 p99 wrkcpu srvcpu notes cpureq userreq wcharreq wbytesreq cswreq answered
wrk_run() { # name pid url [wrk args...]
    local name="$1" pid="$2" url="$3"; shift 3
    local before after user_before user_after io_before io_after csw_before csw_after out hz perf_pid
    hz="$(getconf CLK_TCK)"
    before=$(group_ticks "$pid")
    user_before=$(group_ticks "$pid" user)
    io_before=$(io_of "$pid")
    if [ -n "$perf_counts" ]; then
        taskset -c 1 perf stat -x, -e context-switches -p "$pid" -o "$prefix/$name.perf" &
        perf_pid=$!
        pids+=("$perf_pid")
    else
        csw_before=$(ctxt_switches_of "$pid")
    fi
    out=$( { /usr/bin/time -f "WRKCPU %U %S" taskset -c 1 wrk -t1 -c"$connections" -d"$duration" --latency "$@" "$url"; } 2>&1 )
    after=$(group_ticks "$pid")
    user_after=$(group_ticks "$pid" user)
    io_after=$(io_of "$pid")
    if [ -n "$perf_counts" ]; then
        kill -INT "$perf_pid"
        wait "$perf_pid" || true
        csw_before=0
        csw_after=$(awk -F, '$3 == "context-switches" { print $1 + 0 }' "$prefix/$name.perf")
    else
        csw_after=$(ctxt_switches_of "$pid")
    fi
    echo "$out" >"$prefix/$name.wrk"
    rps[$name]=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    answered[$name]=$(echo "$out" | awk '/requests in/ {print $1}')
    p50[$name]=$(to_ms "$(echo "$out" | awk '$1 == "50%" {print $2}')")
    p90[$name]=$(to_ms "$(echo "$out" | awk '$1 == "90%" {print $2}')")
    p99[$name]=$(to_ms "$(echo "$out" | awk '$1 == "99%" {print $2}')")
    wrkcpu[$name]=$(echo "$out" | awk '/WRKCPU/ {printf "%.2fs", $2 + $3}')
    srvcpu[$name]=$(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%.2fs", t / hz }')
    # Per request answered: the server's CPU time in microseconds and its user-space part (the
    # rest is system time; softirq time is in neither), its bytes written, its context switches.
    cpureq[$name]=$(awk -v t=$((after - before)) -v hz="$hz" -v n="${answered[$name]}" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
    userreq[$name]=$(awk -v t=$((user_after - user_before)) -v hz="$hz" -v n="${answered[$name]}" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
    wcharreq[$name]=$(awk -v a="$io_before" -v b="$io_after" -v n="${answered[$name]}" \
        'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.0f", (y[1] - x[1]) / n }')
    wbytesreq[$name]=$(awk -v a="$io_before" -v b="$io_after" -v n="${answered[$name]}" \
        'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.0f", (y[2] - x[2]) / n }')
    cswreq[$name]=$(awk -v t=$((csw_after - csw_before)) -v n="${answered[$name]}" 'BEGIN { printf "%.2f", t / n }')
    notes[$name]=$(echo "$out" | awk '/Non-2xx|Socket errors/' | tr '\n' ' ')
    return 0
}

# Starts nginx (one worker, pinned to CPU 0) in DIR, answering GET LOCATION on 127.0.0.1:PORT
# with BODY as a static application/json body (nginx's string escapes apply: `\n` is a newline);
# sets nginx_pid, appends it to pids and waits until it answers. Exits the script if BODY needs
# nginx quoting.
start_nginx() { # dir port location body
    local dir="$1" port="$2" location="$3" body="$4"
    if [[ "$body" == *[\'\$]* ]]; then echo "the body needs nginx quoting" >&2; exit 1; fi
    mkdir -p "$dir/logs" "$dir/tmp"
    cat >"$dir/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    client_body_temp_path $dir/tmp;
    proxy_temp_path $dir/tmp;
    fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp;
    scgi_temp_path $dir/tmp;
    server {
        listen 127.0.0.1:$port;
        location = $location {
            default_type application/json;
            return 200 '$body';
        }
    }
}
NGINX
    taskset -c 0 nginx -p "$dir" -c "$dir/nginx.conf" &
    nginx_pid=$!
    pids+=("$nginx_pid")
    wait_up "http://127.0.0.1:$port$location"
}

# The A/B scripts' settings (bench/write-ab.sh, bench/read-ab.sh): SERVER_BINARIES into the array
# `binaries`, ROUNDS (4), CONNECTIONS (16), DURATION (DEFAULT_DURATION) and PORT (DEFAULT_PORT)
# into rounds, connections, duration and port; exits the script when one is not usable.
ab_settings() { # default_duration default_port
    read -r -a binaries <<<"${SERVER_BINARIES:-}"
    ((${#binaries[@]} >= 1)) || { echo "SERVER_BINARIES: name at least one release permission-server" >&2; exit 2; }
    local binary value
    for binary in "${binaries[@]}"; do
        [ -x "$binary" ] || { echo "SERVER_BINARIES: $binary is not an executable file" >&2; exit 2; }
    done
    rounds="${ROUNDS:-4}"
    connections="${CONNECTIONS:-16}"
    duration="${DURATION:-$1}"
    port="${PORT:-$2}"
    for value in "$rounds" "$connections" "$port"; do
        [[ "$value" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS, CONNECTIONS and PORT must be positive integers" >&2; exit 2; }
    done
    [[ "$duration" =~ ^[1-9][0-9]*[smh]?$ ]] || { echo "DURATION must be like wrk's -d (10s, 1m)" >&2; exit 2; }
}

# The median of field F of the runs an A/B script kept for one binary: RUNS is their figures,
# separated by spaces within a run and by ";" between runs.
median_field() { # runs field
    local values=() run runs
    IFS=';' read -r -a runs <<<"$1"
    for run in "${runs[@]}"; do
        [ -n "$run" ] && values+=("$(awk -v f="$2" '{ print $f }' <<<"$run")")
    done
    median "${values[@]}"
}
