# shellcheck shell=bash
# Shared by the bench scripts (sourced, not run): process cleanup, CPU accounting, wrk output.
# The sourcing script sets `prefix` (its temporary directory) and appends to `pids`.

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
# docker/Dockerfile builds the shipped binary (release, Swift runtime linked in) under ROOT.
bench_server_binary() { # root
    if [ -n "${SERVER_BINARY:-}" ]; then
        echo "$SERVER_BINARY"
        return
    fi
    echo "== building permission-server (release, --static-swift-stdlib)" >&2
    (cd "$1" && swift build -c release --static-swift-stdlib --scratch-path "$1/.build-bench-hot-path" \
        --product permission-server >/dev/null)
    echo "$1/.build-bench-hot-path/release/permission-server"
}

# Creates DB with the real schema (`SERVER_BIN migrate`) and seeds USERS x APPS location
# authorizations into it (bench/hot-path/seed.sql.template); fails unless exactly that many rows.
seed_database() { # server_bin db users apps
    local server_bin="$1" db="$2" users="$3" apps="$4" template
    template="$(dirname "${BASH_SOURCE[0]}")/hot-path/seed.sql.template"
    "$server_bin" migrate --database "$db" --log-level warning >/dev/null
    sed -e "s/@USERS@/$users/g" -e "s/@APPS@/$apps/g" "$template" | sqlite3 "$db" >/dev/null
    if [ "$(sqlite3 "$db" 'SELECT count(*) FROM authorizations')" != "$((users * apps))" ]; then
        echo "seeding $db failed" >&2
        return 1
    fi
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

# Waits until the read cache holds at least $2 entries (the SQLite warm-up's records and users),
# unless the cache is off (no such series). Two minutes at most.
wait_warm() { # base entries
    local entries
    for _ in $(seq 1 1200); do
        entries=$(curl -fsS "$1/metrics" | awk '$1 == "permission_read_cache_entries" { print $2 }')
        if [ -z "$entries" ] || [ "${entries%.*}" -ge "$2" ]; then return 0; fi
        sleep 0.1
    done
    echo "the read cache did not warm up: $entries entries" >&2
    exit 1
}

# The median of a list of numbers (the middle one; the mean of the two middle ones).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
