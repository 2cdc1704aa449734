#!/usr/bin/env bash
# The service on PostgreSQL beside SQLite, on loopback, in one run (results in bench/RESULTS.md,
# "PostgreSQL replicas"; the deployment in docs/operations.md). For each size (10,000 authorizations unless SIZES says otherwise):
#   - a throwaway PostgreSQL cluster: initdb into its own temporary directory (as nobody:nogroup
#     through setpriv when run as root, since PostgreSQL refuses root), trust authentication,
#     listening only on a Unix socket there, with fsync and synchronous_commit on (the product's
#     durability guarantee); left unpinned (see below); stopped by its PID at the end;
#   - the same users x apps grid of location authorizations seeded into a SQLite file
#     (bench/hot-path/seed.sql.template) and into a PostgreSQL database
#     (bench/hot-path/seed-postgres.sql.template), each created by `permission-server migrate`;
#   - the release `permission-server` on SQLite and on PostgreSQL (replica A), each pinned to
#     CPU 0, wrk pinned to CPU 1, keep-alive, --log-level warning;
#   - status GET (bench/hot-path/get.lua, random seeded keys, wrk -t1 -c64 --latency): ROUNDS
#     pairs alternating which store goes first, once SQLite's warm-up has loaded every record and
#     once replica A's read cache has been filled by wrk passes until a pass reads nothing new
#     from PostgreSQL (the read cache fills as records are read there); then each paced
#     (PACE_MS). Reports requests/s, p50, p99, PostgreSQL/SQLite (the median of the rounds'
#     ratios; target >= 0.9; beside it the same ratio from the server's CPU time per request),
#     wrk's CPU, the server's and PostgreSQL's CPU (the postmaster and its backends), and
#     replica A's read cache hits and misses over the measured runs;
#   - durable writes (bench/hot-path/put.lua: settings PUTs that each create a record and its
#     audit entry) at WRITE_CONNECTIONS (16): on SQLite; on replica A alone; and on replicas A
#     and B (B started for the run and stopped after it, both pinned to CPU 0, so two replicas
#     have the CPU one had), through two wrk processes at half the connections each, one per
#     replica: writes/s summed, p50 and p99 the higher of the two. ROUNDS rounds, the order
#     rotating. After each run the audit rows added are compared with the writes answered (the
#     writes still in flight when wrk stopped may add up to WRITE_CONNECTIONS more), and what the
#     commits cost: SQLite's writes per group-commit transaction and its mean time (/metrics),
#     PostgreSQL's WAL syncs per write and their mean time (pg_stat_wal); at the end
#     `permission-server audit verify` runs on both databases;
#   - cross-replica staleness (bench/staleness.py): STALENESS_COUNT times, one after the other,
#     a PUT on A flipping a record's status, then GETs on B (no Permission-Consistency) every
#     millisecond until B answers the new version: the time from A's answer to B's, p50/p99/max.
#     Meanwhile a light load runs on B: STALENESS_LOAD_CONNECTIONS paced GET connections.
# PostgreSQL is not pinned: it shares both CPUs with the rest. During cached reads it should be
# idle; the misses counter and its CPU column show whether it was.
# Kills exactly the PIDs it started. Needs swift, wrk, taskset, sqlite3, curl, psql, python3,
# the PostgreSQL server binaries (Debian's postgresql), setpriv when run as root.
# Env: DURATION (10s), ROUNDS (3), CONNECTIONS (64, status GET), WRITE_CONNECTIONS (16, an even
#      number), SIZES ("10000:100:100" = rows:users:apps, several separated by spaces),
#      PACE_MS (8: the paced GET run; each connection waits a random time, 8 ms on average,
#      after every response), STALENESS_COUNT (200), STALENESS_LOAD_CONNECTIONS (8; 0: none),
#      PORT (18191: SQLite; replica A PORT+1, replica B PORT+2), PG_PORT (5432: names the Unix
#      socket file only, nothing listens on TCP), PG_BINDIR (the newest /usr/lib/postgresql/N/bin),
#      SERVER_BINARY (skip the build and use this binary).
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
write_connections="${WRITE_CONNECTIONS:-16}"
if ! [[ "$write_connections" =~ ^[1-9][0-9]*[02468]$|^[2468]$ ]]; then
    echo "WRITE_CONNECTIONS must be an even positive integer" >&2; exit 2
fi
sizes="${SIZES:-10000:100:100}"
staleness_count="${STALENESS_COUNT:-200}"
staleness_load="${STALENESS_LOAD_CONNECTIONS:-8}"
port="${PORT:-18191}"
port_a=$((port + 1))
port_b=$((port + 2))
pg_port="${PG_PORT:-5432}"
prefix="$(mktemp -d /tmp/permission-pg-replicas.XXXXXX)"
pgdir=""
pg_pid=""
pg_start_time=""
# The servers need an API key (SPEC §6): a bootstrap admin key from a throwaway secret, sent by
# wrk (get.lua, put.lua read BENCH_API_KEY), curl and staleness.py.
export BENCH_API_KEY="${BENCH_API_KEY:-$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')}"
# The audit server key every command on PostgreSQL needs (docs/audit-chain.md, "Erasure and the audit keys");
# every server and command of the run, on SQLite too, uses this one.
export PERMISSION_AUDIT_KEY="${PERMISSION_AUDIT_KEY:-$(head -c 32 /dev/urandom | base64)}"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"

# The postmaster's start time (/proc/PID/stat field 22), to recognize it by its PID.
start_time_of() { awk '{ print $22 }' "/proc/$1/stat" 2>/dev/null || true; }

# Stops the cluster this script started, by the postmaster's PID (SIGINT: fast shutdown; SIGKILL
# after 30 s), and removes its directory.
stop_postgres() {
    if [ -n "$pg_pid" ] && [ "$(start_time_of "$pg_pid")" = "$pg_start_time" ]; then
        kill -INT "$pg_pid" 2>/dev/null || true
        for _ in $(seq 1 300); do
            [ "$(start_time_of "$pg_pid")" = "$pg_start_time" ] || break
            sleep 0.1
        done
        if [ "$(start_time_of "$pg_pid")" = "$pg_start_time" ]; then kill -KILL "$pg_pid" 2>/dev/null || true; fi
    fi
    pg_pid=""
    if [ -n "$pgdir" ]; then rm -rf "$pgdir"; fi
}
trap 'cleanup; stop_postgres' EXIT

for tool in wrk taskset sqlite3 curl psql python3; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y wrk sqlite3 curl postgresql python3 util-linux)" >&2; exit 1; }
done
pg_bin="${PG_BINDIR:-$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1)}"
[ -x "$pg_bin/initdb" ] || { echo "no PostgreSQL server binaries (apt-get install -y postgresql, or set PG_BINDIR)" >&2; exit 1; }

echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- Sources Package.swift || echo ' (with uncommitted changes to Sources)'); load: $(uptime)"
server_bin="$(bench_server_binary "$root")"

# The cluster: PostgreSQL refuses to run as root, so as root it runs as nobody:nogroup.
pgdir="$(mktemp -d /tmp/pgbench-XXXXXX)"
as_postgres=()
if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv >/dev/null || { echo "missing setpriv (apt-get install -y util-linux)" >&2; exit 1; }
    chown nobody:nogroup "$pgdir"
    as_postgres=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
echo "== PostgreSQL $("$pg_bin/postgres" --version | awk '{ print $3 }') in $pgdir (fsync on, synchronous_commit on)"
"${as_postgres[@]}" "$pg_bin/initdb" -D "$pgdir/data" -U postgres --auth=trust -E UTF8 --no-locale \
    --no-instructions >"$prefix/initdb.log" 2>&1 || { cat "$prefix/initdb.log" >&2; exit 1; }
"${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$pgdir' -c port=$pg_port -c fsync=on -c synchronous_commit=on -c track_wal_io_timing=on -c max_connections=100" \
    start >"$prefix/pg_ctl.log" 2>&1 || { cat "$prefix/pg_ctl.log" "$pgdir/server.log" >&2; exit 1; }
pg_pid="$(head -n 1 "$pgdir/data/postmaster.pid")"
pg_start_time="$(start_time_of "$pg_pid")"
[ -n "$pg_start_time" ] || { echo "no postmaster running" >&2; exit 1; }
pg_sql() { # database, then psql arguments
    local database="$1"; shift
    psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$pgdir" -p "$pg_port" -U postgres -d "$database" "$@"
}
if [ "$(pg_sql postgres -c 'SHOW fsync')" != on ] || [ "$(pg_sql postgres -c 'SHOW synchronous_commit')" != on ]; then
    echo "PostgreSQL is not durable: fsync or synchronous_commit is off" >&2; exit 1
fi

# CPU ticks of the cluster: the postmaster's own and its children's, the backends that have
# ended included (their time is the postmaster's cutime and cstime once it has reaped them).
pg_ticks() {
    echo $(($(awk '{ print $16 + $17 }' "/proc/$pg_pid/stat") + $(group_ticks "$pg_pid")))
}

# A series' value on /metrics (the series as printed, labels included); empty when absent.
metric() { # base series
    curl -fsS "$1/metrics" | awk -v s="$2" '$1 == s { print $2 }'
}
misses() { metric "$1" 'permission_read_cache_lookups_total{result="miss"}'; }
hits() { metric "$1" 'permission_read_cache_lookups_total{result="hit"}'; }

declare -A server_pid
start_server() { # name port database
    PERMISSION_BOOTSTRAP_ADMIN_KEY="$BENCH_API_KEY" taskset -c 0 "$server_bin" serve --host 127.0.0.1 --port "$2" \
        --database "$3" --log-level warning --max-requests-per-connection 1000000 >>"$prefix/server-$1.log" 2>&1 &
    server_pid[$1]=$!
    pids+=("$!")
    wait_up "http://127.0.0.1:$2/readyz"
}
stop_server() { # name
    kill -TERM "${server_pid[$1]}"
    wait "${server_pid[$1]}" 2>/dev/null || true
}

# One wrk, pinned to CPU 1, its output and CPU time into FILE.
wrk_to() { # file connections url [wrk args...]
    local file="$1" c="$2" url="$3"; shift 3
    { /usr/bin/time -f "WRKCPU %U %S" taskset -c 1 wrk -t1 -c"$c" -d"$duration" --latency "$@" "$url"; } >"$file" 2>&1
}

declare -A rps p50 p99 wrkcpu srvcpu cpureq pgcpu answered notes
# measure NAME "SERVER PIDS" CONNECTIONS "URLS" [wrk args...]: wrk against each URL at the same
# time, CONNECTIONS shared evenly (each process's PUT_TAG differs, so put.lua's users do too).
# Records requests/s (summed), p50 and p99 (the highest of the processes'), the requests
# answered, wrk's CPU, the servers' CPU (and per request, in µs) and PostgreSQL's.
measure() {
    local name="$1" servers="$2" c="$3" i p s0=0 s1=0 g0 g1 hz
    local -a urls wrks=()
    read -ra urls <<<"$4"
    shift 4
    hz="$(getconf CLK_TCK)"
    for p in $servers; do s0=$((s0 + $(group_ticks "$p"))); done
    g0=$(pg_ticks)
    for i in "${!urls[@]}"; do
        PUT_TAG="r$i" wrk_to "$prefix/$name.$i.wrk" $((c / ${#urls[@]})) "${urls[$i]}" "$@" &
        wrks+=("$!")
        pids+=("$!")
    done
    for p in "${wrks[@]}"; do wait "$p"; done
    g1=$(pg_ticks)
    for p in $servers; do s1=$((s1 + $(group_ticks "$p"))); done
    rps[$name]=$(cat "$prefix/$name".*.wrk | awk '/Requests\/sec/ { s += $2 } END { printf "%.0f", s }')
    answered[$name]=$(cat "$prefix/$name".*.wrk | awk '/requests in/ { s += $1 } END { print s }')
    p50[$name]=0; p99[$name]=0
    for i in "${!urls[@]}"; do
        p50[$name]=$(awk -v a="${p50[$name]}" -v b="$(to_ms "$(awk '$1 == "50%" { print $2 }' "$prefix/$name.$i.wrk")")" 'BEGIN { printf "%.3f", (a > b) ? a : b }')
        p99[$name]=$(awk -v a="${p99[$name]}" -v b="$(to_ms "$(awk '$1 == "99%" { print $2 }' "$prefix/$name.$i.wrk")")" 'BEGIN { printf "%.3f", (a > b) ? a : b }')
    done
    wrkcpu[$name]=$(cat "$prefix/$name".*.wrk | awk '/WRKCPU/ { s += $2 + $3 } END { printf "%.2fs", s }')
    srvcpu[$name]=$(awk -v t=$((s1 - s0)) -v hz="$hz" 'BEGIN { printf "%.2fs", t / hz }')
    cpureq[$name]=$(awk -v t=$((s1 - s0)) -v hz="$hz" -v n="${answered[$name]}" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
    pgcpu[$name]=$(awk -v t=$((g1 - g0)) -v hz="$hz" 'BEGIN { printf "%.2fs", t / hz }')
    notes[$name]=$(cat "$prefix/$name".*.wrk | awk '/Non-2xx|Socket errors/' | tr '\n' ' ')
}

# Fills replica A's read cache: 2 s wrk passes over the seeded keys until a pass reads no record
# from PostgreSQL (no new miss), 30 passes at most.
fill_cache() { # base users apps
    local before after
    for pass in $(seq 1 30); do
        before=$(misses "$1")
        USERS=$2 APPS=$3 taskset -c 1 wrk -t1 -c"$connections" -d2s -s "$here/hot-path/get.lua" "$1" >/dev/null
        after=$(misses "$1")
        echo "   pass $pass: $((after - before)) misses"
        if [ "$after" = "$before" ]; then return 0; fi
    done
    echo "replica A's read cache kept missing" >&2
    exit 1
}

audit_rows() { # store (sqlite | pg) rows
    if [ "$1" = sqlite ]; then sqlite3 "$prefix/hot-$2.sqlite" 'SELECT count(*) FROM audit'
    else pg_sql "bench_$2" -c 'SELECT count(*) FROM audit'; fi
}

# What commits cost during a write run, for its notes: SQLite's writes per group-commit
# transaction and a transaction's mean time (its /metrics); PostgreSQL's WAL syncs per write and
# their mean time (pg_stat_wal, with track_wal_io_timing on). Prints the counters; commit_note
# turns two readings into the note.
commit_counters() { # store rows base
    if [ "$1" = sqlite ]; then
        echo "$(metric "$3" sqlite_write_transaction_writes_sum) $(metric "$3" sqlite_write_transaction_writes_count) $(metric "$3" sqlite_write_transaction_duration_seconds_sum)"
    else
        # A backend reports its WAL statistics within about a second of going idle.
        sleep 2
        pg_sql "bench_$2" -F ' ' -c 'SELECT wal_sync, wal_sync_time FROM pg_stat_wal'
    fi
}
commit_note() { # store "before" "after" writes
    local -a b a
    read -ra b <<<"$2"
    read -ra a <<<"$3"
    if [ "$1" = sqlite ]; then
        awk -v w=$((${a[0]%.*} - ${b[0]%.*})) -v t=$((${a[1]%.*} - ${b[1]%.*})) -v d="$(awk -v x="${a[2]}" -v y="${b[2]}" 'BEGIN { print x - y }')" \
            'BEGIN { if (t > 0) printf "%.1f writes per transaction, %.2f ms each; ", w / t, d / t * 1000 }'
    else
        awk -v n=$((a[0] - b[0])) -v d="$(awk -v x="${a[1]}" -v y="${b[1]}" 'BEGIN { print x - y }')" -v w="$4" \
            'BEGIN { if (n > 0) printf "%.2f WAL syncs per write, %.2f ms each; ", n / w, d / n }'
    fi
}

names=()
declare -A summary
for size in $sizes; do
    IFS=: read -r rows users apps <<<"$size"
    [ "$((users * apps))" = "$rows" ] || { echo "SIZES: $rows is not $users x $apps" >&2; exit 2; }
    db="$prefix/hot-$rows.sqlite"
    uri="postgresql://postgres@/bench_$rows?host=$pgdir&port=$pg_port"
    echo "== seeding $rows authorizations ($users users x $apps apps) into SQLite and PostgreSQL"
    seed_database "$server_bin" "$db" "$users" "$apps"
    pg_sql postgres -c "CREATE DATABASE bench_$rows"
    "$server_bin" migrate --database "$uri" --log-level warning >/dev/null
    sed -e "s/@USERS@/$users/g" -e "s/@APPS@/$apps/g" "$here/hot-path/seed-postgres.sql.template" | pg_sql "bench_$rows" >/dev/null
    [ "$(pg_sql "bench_$rows" -c 'SELECT count(*) FROM authorizations')" = "$rows" ] || { echo "seeding PostgreSQL failed" >&2; exit 1; }

    start_server "sqlite-$rows" "$port" "$db"
    start_server "a-$rows" "$port_a" "$uri"
    base="http://127.0.0.1:$port"
    base_a="http://127.0.0.1:$port_a"
    base_b="http://127.0.0.1:$port_b"
    wait_warm "$base" "$rows"
    echo "== warm-up: SQLite 2 s; replica A until its read cache holds every record read"
    USERS=$users APPS=$apps taskset -c 1 wrk -t1 -c"$connections" -d2s -s "$here/hot-path/get.lua" "$base" >/dev/null
    fill_cache "$base_a" "$users" "$apps"
    hits_before=$(hits "$base_a"); misses_before=$(misses "$base_a")

    for round in $(seq 1 "$rounds"); do
        echo "== round $round of $rounds: status GET on SQLite and on PostgreSQL, wrk -t1 -c$connections -d$duration"
        if ((round % 2 == 0)); then USERS=$users APPS=$apps measure "get-pg-$rows-$round" "${server_pid[a-$rows]}" "$connections" "$base_a" -s "$here/hot-path/get.lua"; fi
        USERS=$users APPS=$apps measure "get-sqlite-$rows-$round" "${server_pid[sqlite-$rows]}" "$connections" "$base" -s "$here/hot-path/get.lua"
        if ((round % 2 == 1)); then USERS=$users APPS=$apps measure "get-pg-$rows-$round" "${server_pid[a-$rows]}" "$connections" "$base_a" -s "$here/hot-path/get.lua"; fi
        names+=("get-sqlite-$rows-$round" "get-pg-$rows-$round")
    done
    echo "== the same, paced: ${pace_ms} ms on average (exponential) between a connection's requests"
    PACE_MS=$pace_ms USERS=$users APPS=$apps measure "get-paced-sqlite-$rows" "${server_pid[sqlite-$rows]}" "$connections" "$base" -s "$here/hot-path/get.lua"
    PACE_MS=$pace_ms USERS=$users APPS=$apps measure "get-paced-pg-$rows" "${server_pid[a-$rows]}" "$connections" "$base_a" -s "$here/hot-path/get.lua"
    names+=("get-paced-sqlite-$rows" "get-paced-pg-$rows")
    hit_count=$(($(hits "$base_a") - hits_before)); miss_count=$(($(misses "$base_a") - misses_before))

    kinds=(sqlite pg1 pg2)
    for round in $(seq 1 "$rounds"); do
        echo "== round $round of $rounds: durable writes, $write_connections connections, $duration"
        for k in 0 1 2; do
            kind="${kinds[$(((k + round - 1) % 3))]}"
            name="put-$kind-$rows-$round"
            store=pg; target=$base_a
            if [ "$kind" = sqlite ]; then store=sqlite; target=$base; fi
            counters=$(commit_counters "$store" "$rows" "$target")
            before=$(audit_rows "$store" "$rows")
            case "$kind" in
                sqlite) APPS=$apps measure "$name" "${server_pid[sqlite-$rows]}" "$write_connections" "$base" -s "$here/hot-path/put.lua" ;;
                pg1) APPS=$apps measure "$name" "${server_pid[a-$rows]}" "$write_connections" "$base_a" -s "$here/hot-path/put.lua" ;;
                pg2)
                    start_server "b-$rows" "$port_b" "$uri"
                    APPS=$apps measure "$name" "${server_pid[a-$rows]} ${server_pid[b-$rows]}" "$write_connections" "$base_a $base_b" -s "$here/hot-path/put.lua"
                    stop_server "b-$rows"
                    ;;
            esac
            added=$(($(audit_rows "$store" "$rows") - before))
            acknowledged=${answered[$name]}
            notes[$name]="${notes[$name]}$(commit_note "$store" "$counters" "$(commit_counters "$store" "$rows" "$target")" "$added")"
            # Nothing lost: every answered write has its audit row; the rest were in flight.
            verdict="ok"
            if ((added < acknowledged || added > acknowledged + write_connections)); then verdict="MISMATCH"; fi
            notes[$name]="${notes[$name]}answered $acknowledged, audit rows +$added ($verdict)"
        done
        names+=("put-sqlite-$rows-$round" "put-pg1-$rows-$round" "put-pg2-$rows-$round")
    done

    echo "== staleness: $staleness_count writes on A, each polled on B until B answers it ($staleness_load paced GET connections on B meanwhile)"
    start_server "b-$rows" "$port_b" "$uri"
    load_pid=""
    if ((staleness_load > 0)); then
        PACE_MS=$pace_ms USERS=$users APPS=$apps taskset -c 1 wrk -t1 -c"$staleness_load" -d3600s -s "$here/hot-path/get.lua" "$base_b" >"$prefix/staleness-load.wrk" 2>&1 &
        load_pid=$!
        pids+=("$load_pid")
    fi
    staleness=$(USERS=$users APPS=$apps COUNT=$staleness_count SAMPLES_FILE="$prefix/staleness-$rows.txt" \
        python3 "$here/staleness.py" "$base_a" "$base_b")
    if [ -n "$load_pid" ]; then kill -TERM "$load_pid"; wait "$load_pid" 2>/dev/null || true; fi

    stop_server "b-$rows"; stop_server "a-$rows"; stop_server "sqlite-$rows"
    verify_sqlite=$("$server_bin" audit verify --database "$db" --log-level warning 2>&1 | tail -n 1) || verify_sqlite="FAILED: $verify_sqlite"
    verify_pg=$("$server_bin" audit verify --database "$uri" --log-level warning 2>&1 | tail -n 1) || verify_pg="FAILED: $verify_pg"

    ratios=() cpu_ratios=() sq=() pg=() w_sqlite=() w_pg1=() w_pg2=() q_sqlite=() q_pg1=() q_pg2=()
    for round in $(seq 1 "$rounds"); do
        sq+=("${rps[get-sqlite-$rows-$round]}"); pg+=("${rps[get-pg-$rows-$round]}")
        ratios+=("$(awk -v a="${rps[get-pg-$rows-$round]}" -v b="${rps[get-sqlite-$rows-$round]}" 'BEGIN { printf "%.2f", a / b }')")
        cpu_ratios+=("$(awk -v a="${cpureq[get-pg-$rows-$round]}" -v b="${cpureq[get-sqlite-$rows-$round]}" 'BEGIN { printf "%.2f", b / a }')")
        w_sqlite+=("${rps[put-sqlite-$rows-$round]}"); q_sqlite+=("${p99[put-sqlite-$rows-$round]}")
        w_pg1+=("${rps[put-pg1-$rows-$round]}"); q_pg1+=("${p99[put-pg1-$rows-$round]}")
        w_pg2+=("${rps[put-pg2-$rows-$round]}"); q_pg2+=("${p99[put-pg2-$rows-$round]}")
    done
    summary[$rows]=$(
        awk -v r="$rows" -v s="$(median "${sq[@]}")" -v p="$(median "${pg[@]}")" -v m="$(median "${ratios[@]}")" -v all="${ratios[*]}" -v c="$(median "${cpu_ratios[@]}")" \
            -v ps="${p99[get-paced-sqlite-$rows]}" -v pp="${p99[get-paced-pg-$rows]}" -v h="$hit_count" -v x="$miss_count" \
            'BEGIN { printf "%d rows: status GET on PostgreSQL %.0f/s against SQLite %.0f/s (medians); ratio %.2f, the median of the rounds (%s; target >= 0.90), by server CPU per request %.2f; paced p99 %.3f ms on PostgreSQL, %.3f ms on SQLite; replica A read cache over the measured runs: %d hits, %d misses (hit ratio %.5f)\n", r, p, s, m, all, c, pp, ps, h, x, (h + x) ? h / (h + x) : 0 }'
        echo "$rows rows: durable writes/s (median of rounds, p99 the median of the rounds' p99): SQLite $(median "${w_sqlite[@]}") (p99 $(median "${q_sqlite[@]}") ms), PostgreSQL one replica $(median "${w_pg1[@]}") (p99 $(median "${q_pg1[@]}") ms), two replicas $(median "${w_pg2[@]}") (p99 $(median "${q_pg2[@]}") ms)"
        echo "$rows rows: audit verify: SQLite: $verify_sqlite; PostgreSQL: $verify_pg"
        echo "$rows rows: cross-replica $staleness"
    )
    rm -f "$db" "$db-wal" "$db-shm"
done

printf '\n%-22s %11s %9s %9s %8s %8s %7s %8s  %s\n' run "requests/s" "p50 ms" "p99 ms" "wrk cpu" "srv cpu" "µs/req" "pg cpu" notes
for name in "${names[@]}"; do
    printf '%-22s %11s %9s %9s %8s %8s %7s %8s  %s\n' "$name" "${rps[$name]}" "${p50[$name]}" "${p99[$name]}" \
        "${wrkcpu[$name]}" "${srvcpu[$name]}" "${cpureq[$name]}" "${pgcpu[$name]}" "${notes[$name]:-}"
done
echo
for size in $sizes; do echo "${summary[${size%%:*}]}"; done
echo "== done; load: $(uptime)"
