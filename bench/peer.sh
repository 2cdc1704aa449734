#!/usr/bin/env bash
# The service beside a Hummingbird 2 + GRDB peer (bench/peer) and nginx, in one run on loopback,
# so that every status-read and durable-write figure is a ratio from the same run (results in
# bench/RESULTS.md).
#
# For each size, one database seeded (`permission-server migrate`, then
# bench/hot-path/seed.sql.template through lib.sh's seed_database) and copied, one for the
# release `permission-server` and one for the peer; both servers and nginx pinned to CPU 0, wrk
# to CPU 1. For each number of connections in CONNECTIONS, at saturation:
#   - GET /v1/users/{u}/apps/{a}/authorizations/location for random seeded users and apps
#     (bench/hot-path/get.lua) on the service and the peer, and nginx serving a static body of the
#     size of the service's answer; ROUNDS rounds, alternating the order (service, peer, nginx;
#     nginx, peer, service; ...) so that the VM's drift falls on all three;
#   - durable writes: settings PUTs (bench/hot-path/put.lua), each a new record and its audit row
#     committed with synchronous=FULL, on the service and the peer, alternating which goes first.
#     Per write: the server's CPU time, the bytes it passed to write(2) (wchar, sockets included)
#     and made the storage write (write_bytes), its threads' context switches; for the service the
#     average batch per commit (the deltas of sqlite_write_transaction_writes_sum and _count on
#     /metrics). Once the writes in flight have settled, each database's audit rows added are
#     compared with the writes answered (up to CONNECTIONS more a run: committed, not answered).
#     After both, each round, the floor (bench/sqlite-write/write.c on its own copy of the seeded
#     database, pinned to CPU 0): the service's SQLite work for the same writes alone, at the batch
#     the service reached in that round; its CPU time per write bounds the service's writes/s on
#     one core (1,000,000 ÷ µs), and that bound over the peer's writes/s is the most any server
#     doing this SQLite work at this batch could reach against the peer in the round (FLOOR=0
#     skips it, e.g. to spare the copy of a 10,000,000-row file).
# Then, at PACE_CONNECTIONS, the same offered load to each server (each connection waits a random
# time, exponentially distributed, after every response): GETs on the service, the peer and nginx
# (PACE_MS on average), and PUTs on the service and the peer (PUT_PACE_MS on average; unset, it is
# chosen so that the offered rate is about half of the peer's saturated writes/s at the first
# CONNECTIONS value); ROUNDS rounds each; p50/p99 and the ratios of the p99s.
# The service runs with its default read cache (READ_CACHE_ENTRIES to change it), measured once
# the warm-up has filled it: every record, or as many as it holds when the table is larger. Its
# memory (VmRSS, RssAnon, RssFile) and the peer's are taken after the warm-up and after the runs.
# The service's connection limits (--max-connections 1024 and --max-connections-per-address 256
# by default) would refuse wrk's connections from one address at 256 and more: it is started with
# both at the largest of CONNECTIONS and PACE_CONNECTIONS plus 64 (the defaults when that is
# lower); the peer has no such limits. The open-file limit is raised to 65536 (or the script stops
# if it cannot reach the connections plus 256).
# Prints every run (requests/s, p50, p99, wrk's and the server's CPU time, per request: CPU time,
# its user part, wchar, write_bytes, context switches, batch per commit), then a summary per size
# and number of connections: the medians over the rounds, the ratios service/nginx and
# service/peer (medians of the rounds'), the paced p99s and their ratios, memory, seeding and
# warm-up times and the nothing-lost verdicts.
# Kills exactly the PIDs it started. Needs swift, sqlite3, wrk, nginx, taskset, curl.
# Env: DURATION (10s), ROUNDS (3), CONNECTIONS (16; a list such as "16 256 1024"),
#      SIZES ("10000:100:100" = rows:users:apps; e.g. "10000:100:100 1000000:10000:100
#      10000000:100000:100"), PACE_CONNECTIONS (the first of CONNECTIONS), PACE_MS (8),
#      PUT_PACE_MS (unset: derived as above), READ_CACHE_ENTRIES (unset: the service's default),
#      PORT (18094), PEER_PORT (18095), NGINX_PORT (18096),
#      SERVER_BINARY (skip the service's build and use this binary), FLOOR (1), FLOOR_COUNT
#      (30000 writes a floor run), CC (cc, for the floor).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
duration="${DURATION:-10s}"
rounds="${ROUNDS:-3}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
connections_list="${CONNECTIONS:-16}"
read -r -a connections_all <<<"$connections_list"
pace_connections="${PACE_CONNECTIONS:-${connections_all[0]}}"
for c in "${connections_all[@]}" "$pace_connections"; do
    [[ "$c" =~ ^[1-9][0-9]*$ ]] || { echo "CONNECTIONS and PACE_CONNECTIONS must be positive integers" >&2; exit 2; }
done
pace_ms="${PACE_MS:-8}"
put_pace_ms="${PUT_PACE_MS:-}"
for v in "$pace_ms" "$put_pace_ms"; do
    [[ -z "$v" || "$v" =~ ^[1-9][0-9]*$ ]] || { echo "PACE_MS and PUT_PACE_MS must be positive integers (ms)" >&2; exit 2; }
done
# get.lua and put.lua pace whenever PACE_MS is in their environment: only the paced runs pass it.
unset PACE_MS
sizes="${SIZES:-10000:100:100}"
floor="${FLOOR:-1}"
floor_count="${FLOOR_COUNT:-30000}"
[[ "$floor" =~ ^[01]$ && "$floor_count" =~ ^[1-9][0-9]*$ ]] || { echo "FLOOR must be 0 or 1, FLOOR_COUNT a positive integer" >&2; exit 2; }
port="${PORT:-18094}"
peer_port="${PEER_PORT:-18095}"
nginx_port="${NGINX_PORT:-18096}"
read_cache=()
capacity=1000000
if [ -n "${READ_CACHE_ENTRIES:-}" ]; then
    read_cache=(--read-cache-entries "$READ_CACHE_ENTRIES")
    capacity="$READ_CACHE_ENTRIES"
fi

# The service's connection limits, above every run's connections (and curl's for /metrics).
most=$pace_connections
for c in "${connections_all[@]}"; do if ((c > most)); then most=$c; fi; done
max_connections=$((most + 64 > 1024 ? most + 64 : 1024))
max_per_address=$((most + 64 > 256 ? most + 64 : 256))
# wrk and each server hold one descriptor a connection, plus their files.
if [ "$(ulimit -n)" != unlimited ] && (($(ulimit -n) < 65536)); then ulimit -n 65536 2>/dev/null || true; fi
if [ "$(ulimit -n)" != unlimited ] && (($(ulimit -n) < most + 256)); then
    echo "open files limit $(ulimit -n) is below $((most + 256)) for $most connections: raise ulimit -n (the hard limit is $(ulimit -Hn))" >&2
    exit 1
fi

prefix="$(mktemp -d /tmp/permission-peer.XXXXXX)"
# Both servers take the same throwaway key: the service as its bootstrap admin key, the peer as
# BENCH_API_KEY, which get.lua and put.lua send.
export BENCH_API_KEY="${BENCH_API_KEY:-$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')}"
auth=(-H "Authorization: Bearer $BENCH_API_KEY")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
trap cleanup EXIT

for tool in swift wrk nginx taskset sqlite3 curl; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y wrk nginx-light sqlite3 curl util-linux)" >&2; exit 1; }
done

server_bin="$(bench_server_binary "$root")"
if [ "$floor" = 1 ]; then
    command -v "${CC:-cc}" >/dev/null || { echo "missing ${CC:-cc} for the floor (apt-get install -y gcc libsqlite3-dev, or FLOOR=0)" >&2; exit 1; }
    "${CC:-cc}" -O2 -Wall -Wextra -o "$prefix/write" "$here/sqlite-write/write.c" -lsqlite3
fi
echo "== building the peer (release)"
(cd "$here/peer" && swift build -c release --product permission-peer >"$prefix/peer-build.log" 2>&1) ||
    { tail -30 "$prefix/peer-build.log" >&2; exit 1; }
peer_bin="$here/peer/.build/release/permission-peer"

# Run names are KIND-ROWS-GROUP-ROUND: KIND get-product, get-peer, nginx, put-product, put-peer;
# GROUP the number of connections, or `paced`.

# The median over the rounds of ARRAY[KIND-ROWS-GROUP-ROUND]: `rounds_of rps get-peer 10000 16`.
rounds_of() { # array kind rows group
    local -n of="$1"
    local round values=()
    for round in $(seq 1 "$rounds"); do values+=("${of[$2-$3-$4-$round]}"); done
    median "${values[@]}"
}

# The median over the rounds of ARRAY[A] / ARRAY[B], with the rounds':
# `ratio rps get-product get-peer 10000 16`.
ratio() { # array kind_a kind_b rows group
    local -n in="$1"
    local round values=()
    for round in $(seq 1 "$rounds"); do
        values+=("$(awk -v a="${in[$2-$4-$5-$round]}" -v b="${in[$3-$4-$5-$round]}" 'BEGIN { printf "%.2f", a / b }')")
    done
    echo "$(median "${values[@]}") (rounds: ${values[*]})"
}

# The audit rows of DB once the count has held still for 0.2 s (the writes in flight when wrk
# stopped are committed within milliseconds).
audit_rows() { # db
    local last now
    last=$(sqlite3 -cmd '.timeout 5000' "$1" 'SELECT count(*) FROM audit')
    for _ in $(seq 1 100); do
        sleep 0.2
        now=$(sqlite3 -cmd '.timeout 5000' "$1" 'SELECT count(*) FROM audit')
        if [ "$now" = "$last" ]; then break; fi
        last=$now
    done
    echo "$last"
}

# One PUT run of KIND (product or peer) named NAME, paced by PACE (ms; 0: saturated); for the
# service also the average batch per commit over the run.
declare -A batch
put_run() { # name kind pace tag
    local name="$1" kind="$2" pace="$3" pid base before after
    if [ "$kind" = product ]; then pid=$product_pid base=$product; else pid=$peer_pid base=$peer; fi
    if [ "$kind" = product ]; then before=$(write_batches_of "$base"); fi
    PACE_MS=$pace PUT_TAG="$4" USERS=$users APPS=$apps wrk_run "$name" "$pid" "$base" -s "$here/hot-path/put.lua"
    if [ "$kind" = product ]; then
        after=$(write_batches_of "$base")
        batch[$name]=$(awk -v a="$before" -v b="$after" \
            'BEGIN { split(a, x, " "); split(b, y, " "); if (y[2] > x[2]) printf "%.1f", (y[1] - x[1]) / (y[2] - x[2]); else print "-" }')
    else
        batch[$name]="-"
    fi
}

# The floor of round NAME: write.c on floor-ROWS.sqlite at the service's batch BATCH (rounded; 1
# when unknown). Fills the run table's columns it has: writes/s of its one thread, CPU per write
# (user part), the batch; and bound[NAME], 1,000,000 ÷ its CPU time per write.
declare -A bound
floor_run() { # name batch
    local name="$1" size line
    size=$(awk -v b="$2" 'BEGIN { if (b == "-") print 1; else printf "%d", b + 0.5 }')
    line=$(taskset -c 0 "$prefix/write" "$prefix/floor-$rows.sqlite" "$apps" "$size" "$floor_count")
    echo "   floor at a batch of $size: $line"
    rps[$name]=$(field_of writes_per_second "$line")
    cpureq[$name]=$(field_of cpu_us_per_write "$line")
    userreq[$name]=$(field_of user_us_per_write "$line")
    bound[$name]=$(awk -v c="${cpureq[$name]}" 'BEGIN { printf "%.0f", 1000000 / c }')
    batch[$name]=$size
    p50[$name]="-" p99[$name]="-" wrkcpu[$name]="-" srvcpu[$name]="-"
    wcharreq[$name]="-" wbytesreq[$name]="-" cswreq[$name]="-"
    notes[$name]="SQLite alone: at most ${bound[$name]} writes/s"
}

# The median over the rounds of the floor's bound over the peer's writes/s in GROUP, with the
# rounds'.
floor_ratio() { # rows group
    local round values=()
    for round in $(seq 1 "$rounds"); do
        values+=("$(awk -v a="${bound[floor-$1-$2-$round]}" -v b="${rps[put-peer-$1-$2-$round]}" 'BEGIN { printf "%.2f", a / b }')")
    done
    echo "$(median "${values[@]}") (rounds: ${values[*]})"
}

# The PUT runs of one group, rounds alternating which server goes first (then the floor when the
# group is saturated), then the nothing-lost verdict of each server for the group (audit rows
# added against writes answered).
declare -A verdict
# "nothing lost" when ADDED audit rows are the TOTAL writes answered plus at most SLACK.
lost_verdict() { # added total slack
    if (($1 >= $2 && $1 <= $2 + $3)); then echo "nothing lost"; else echo MISMATCH; fi
}

put_group() { # group pace
    local group="$1" pace="$2" round kind order added total slack
    local -A before=([product]=$(audit_rows "$prefix/product-$rows.sqlite") [peer]=$(audit_rows "$prefix/peer-$rows.sqlite"))
    for round in $(seq 1 "$rounds"); do
        echo "== round $round of $rounds: durable writes (settings PUT) on the service and the peer, wrk -t1 -c$connections -d$duration$([ "$pace" = 0 ] || echo ", paced $pace ms")"
        order=(product peer)
        if ((round % 2 == 0)); then order=(peer product); fi
        for kind in "${order[@]}"; do put_run "put-$kind-$rows-$group-$round" "$kind" "$pace" "$kind${group}r$round"; done
        names+=("put-product-$rows-$group-$round" "put-peer-$rows-$group-$round")
        if [ "$floor" = 1 ] && [ "$pace" = 0 ]; then
            floor_run "floor-$rows-$group-$round" "${batch[put-product-$rows-$group-$round]}"
            names+=("floor-$rows-$group-$round")
        fi
    done
    for kind in product peer; do
        total=0
        for round in $(seq 1 "$rounds"); do total=$((total + ${answered[put-$kind-$rows-$group-$round]})); done
        added=$(($(audit_rows "$prefix/$kind-$rows.sqlite") - before[$kind]))
        # wrk counts only the answers it read: up to CONNECTIONS writes a run may be committed
        # unanswered when it stops, never the other way round.
        slack=$((connections * rounds))
        verdict[$kind-$rows-$group]="answered $total, audit rows +$added ($(lost_verdict "$added" "$total" "$slack"))"
        answered_total[$kind]=$((answered_total[$kind] + total))
        slack_total[$kind]=$((slack_total[$kind] + slack))
    done
}

declare -A memory seconds answered_total slack_total put_pace audit_start
names=()
for size in $sizes; do
    split_size "$size"
    echo "== seeding $rows authorizations ($users users x $apps apps), copied for the peer"
    started=$(date +%s.%N)
    seed_database "$server_bin" "$prefix/product-$rows.sqlite" "$users" "$apps"
    seconds[seed-$rows]=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.0f", e - s }')
    cp "$prefix/product-$rows.sqlite" "$prefix/peer-$rows.sqlite"
    if [ "$floor" = 1 ]; then cp "$prefix/product-$rows.sqlite" "$prefix/floor-$rows.sqlite"; fi
    echo "   seeded in ${seconds[seed-$rows]} s"

    PERMISSION_BOOTSTRAP_ADMIN_KEY="$BENCH_API_KEY" taskset -c 0 "$server_bin" serve --host 127.0.0.1 --port "$port" \
        --database "$prefix/product-$rows.sqlite" --log-level warning --max-requests-per-connection 1000000 \
        --max-connections "$max_connections" --max-connections-per-address "$max_per_address" "${read_cache[@]}" \
        >"$prefix/product-$rows.log" 2>&1 &
    product_pid=$!
    pids+=("$product_pid")
    taskset -c 0 "$peer_bin" "$prefix/peer-$rows.sqlite" "$peer_port" >"$prefix/peer-$rows.log" 2>&1 &
    peer_pid=$!
    pids+=("$peer_pid")
    product="http://127.0.0.1:$port"
    peer="http://127.0.0.1:$peer_port"
    wait_up "$product/readyz"
    wait_up "$peer/readyz"
    started=$(date +%s.%N)
    wait_warm "$product" "$rows" "$capacity"
    seconds[warm-$rows]=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    cached=$(curl -fsS "$product/metrics" | awk '$1 == "permission_read_cache_entries" { print $2 }')
    memory[product-warm-$rows]="$(memory_of "$product_pid"), read cache ${cached:-off} entries"
    memory[peer-warm-$rows]=$(memory_of "$peer_pid")
    echo "   read cache warm after ${seconds[warm-$rows]} s: service ${memory[product-warm-$rows]}"

    sample="/v1/users/u1/apps/com.example.app2/authorizations/location"
    curl -fsS "${auth[@]}" "$product$sample" >"$prefix/body.json"
    curl -fsS "${auth[@]}" "$peer$sample" >"$prefix/peer-body.json"
    cmp -s "$prefix/body.json" "$prefix/peer-body.json" || { echo "the peer answers otherwise:" >&2; cat "$prefix/body.json" "$prefix/peer-body.json" >&2; exit 1; }
    start_nginx "$prefix/nginx-$rows" "$nginx_port" /body.json "$(cat "$prefix/body.json")"
    nginx="http://127.0.0.1:$nginx_port/body.json"
    curl -fsS "$nginx" | cmp -s - "$prefix/body.json" || { echo "nginx answers another body" >&2; exit 1; }

    echo "== warm-up ($rows rows; body $(wc -c <"$prefix/body.json") bytes)"
    for base in "$product" "$peer"; do
        USERS=$users APPS=$apps taskset -c 1 wrk -t1 -c"$pace_connections" -d2s -s "$here/hot-path/get.lua" "$base" >/dev/null
    done
    taskset -c 1 wrk -t1 -c"$pace_connections" -d2s "$nginx" >/dev/null

    audit_start=([product]=$(audit_rows "$prefix/product-$rows.sqlite") [peer]=$(audit_rows "$prefix/peer-$rows.sqlite"))
    answered_total=([product]=0 [peer]=0)
    slack_total=([product]=0 [peer]=0)
    for connections in "${connections_all[@]}"; do
        for round in $(seq 1 "$rounds"); do
            echo "== round $round of $rounds: GET one authorization on the service, the peer and nginx, wrk -t1 -c$connections -d$duration"
            order=(product peer nginx)
            if ((round % 2 == 0)); then order=(nginx peer product); fi
            for kind in "${order[@]}"; do
                case "$kind" in
                product) USERS=$users APPS=$apps wrk_run "get-product-$rows-$connections-$round" "$product_pid" "$product" -s "$here/hot-path/get.lua" ;;
                peer) USERS=$users APPS=$apps wrk_run "get-peer-$rows-$connections-$round" "$peer_pid" "$peer" -s "$here/hot-path/get.lua" ;;
                nginx) wrk_run "nginx-$rows-$connections-$round" "$nginx_pid" "$nginx" ;;
                esac
            done
            names+=("get-product-$rows-$connections-$round" "get-peer-$rows-$connections-$round" "nginx-$rows-$connections-$round")
        done
        put_group "$connections" 0
    done

    connections=$pace_connections
    # Half of the peer's saturated writes/s at the first CONNECTIONS value, offered by
    # PACE_CONNECTIONS connections that each wait PUT_PACE_MS on average: ms = connections / rate.
    put_pace[$rows]=${put_pace_ms:-$(awk -v c="$connections" -v r="$(rounds_of rps put-peer "$rows" "${connections_all[0]}")" \
        'BEGIN { p = 2 * c * 1000 / r; printf "%d", (p == int(p)) ? p : int(p) + 1 }')}
    for round in $(seq 1 "$rounds"); do
        echo "== round $round of $rounds: GET paced ($pace_ms ms on average between a connection's requests) on the service, the peer and nginx, wrk -t1 -c$connections -d$duration"
        order=(product peer nginx)
        if ((round % 2 == 0)); then order=(nginx peer product); fi
        for kind in "${order[@]}"; do
            case "$kind" in
            product) PACE_MS=$pace_ms USERS=$users APPS=$apps wrk_run "get-product-$rows-paced-$round" "$product_pid" "$product" -s "$here/hot-path/get.lua" ;;
            peer) PACE_MS=$pace_ms USERS=$users APPS=$apps wrk_run "get-peer-$rows-paced-$round" "$peer_pid" "$peer" -s "$here/hot-path/get.lua" ;;
            nginx) PACE_MS=$pace_ms wrk_run "nginx-$rows-paced-$round" "$nginx_pid" "$nginx" -s "$here/paced.lua" ;;
            esac
        done
        names+=("get-product-$rows-paced-$round" "get-peer-$rows-paced-$round" "nginx-$rows-paced-$round")
    done
    put_group paced "${put_pace[$rows]}"
    memory[product-after-$rows]=$(memory_of "$product_pid")
    memory[peer-after-$rows]=$(memory_of "$peer_pid")

    # Stopped first, so that the writes still in flight when wrk stopped are committed or dropped.
    kill -TERM "$product_pid" "$peer_pid" "$nginx_pid"
    wait "$product_pid" 2>/dev/null || true
    wait "$peer_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
    for kind in product peer; do
        added=$(($(sqlite3 "$prefix/$kind-$rows.sqlite" 'SELECT count(*) FROM audit') - audit_start[$kind]))
        total=${answered_total[$kind]}
        verdict[$kind-$rows-all]="answered $total, audit rows +$added ($(lost_verdict "$added" "$total" "${slack_total[$kind]}"))"
    done
    rm -f "$prefix"/*-"$rows".sqlite*
done

printf '\n%-28s %10s %8s %8s %8s %8s %8s %8s %8s %8s %7s %7s  %s\n' run "requests/s" "p50 ms" "p99 ms" "wrk cpu" "srv cpu" \
    "µs/req" "user µs" "wchar/r" "wbytes/r" "csw/r" "batch" notes
for name in "${names[@]}"; do
    printf '%-28s %10s %8s %8s %8s %8s %8s %8s %8s %8s %7s %7s  %s\n' "$name" "${rps[$name]}" "${p50[$name]}" "${p99[$name]}" \
        "${wrkcpu[$name]}" "${srvcpu[$name]}" "${cpureq[$name]}" "${userreq[$name]}" "${wcharreq[$name]}" "${wbytesreq[$name]}" \
        "${cswreq[$name]}" "${batch[$name]:-}" "${notes[$name]:-}"
done

# One line of medians for KIND in GROUP: requests/s, p50, p99, CPU per request (user), wrk's CPU.
medians() { # label kind rows group
    printf '  %-14s %9.0f/s  p50 %7.3f ms  p99 %7.3f ms  %7.1f µs CPU a request (%.1f user)  wrk CPU %ss' \
        "$1" "$(rounds_of rps "$2" "$3" "$4")" "$(rounds_of p50 "$2" "$3" "$4")" "$(rounds_of p99 "$2" "$3" "$4")" \
        "$(rounds_of cpureq "$2" "$3" "$4")" "$(rounds_of userreq "$2" "$3" "$4")" "$(rounds_of wrkcpu "$2" "$3" "$4" | tr -d s)"
    if [[ "$2" == put-* ]]; then
        printf '\n  %14s wchar %s B, write_bytes %s B, %s context switches a write' "" \
            "$(rounds_of wcharreq "$2" "$3" "$4")" "$(rounds_of wbytesreq "$2" "$3" "$4")" "$(rounds_of cswreq "$2" "$3" "$4")"
        if [ "$2" = put-product ]; then printf ', %s writes a commit' "$(rounds_of batch "$2" "$3" "$4")"; fi
    fi
    echo
}

echo
echo "Summary (medians of $rounds rounds of $duration; ratios are medians of the rounds' ratios)"
for size in $sizes; do
    rows="${size%%:*}"
    echo "== $rows rows: seeded in ${seconds[seed-$rows]} s, read cache warm after ${seconds[warm-$rows]} s"
    echo "  memory after warm-up: service ${memory[product-warm-$rows]}; peer ${memory[peer-warm-$rows]}"
    echo "  memory after the runs: service ${memory[product-after-$rows]}; peer ${memory[peer-after-$rows]}"
    for group in "${connections_all[@]}" paced; do
        if [ "$group" = paced ]; then
            echo "-- $rows rows, paced at $pace_connections connections: GET $pace_ms ms (offered about $((pace_connections * 1000 / pace_ms))/s), PUT ${put_pace[$rows]} ms (offered about $((pace_connections * 1000 / put_pace[$rows]))/s)"
        else
            echo "-- $rows rows, $group connections"
        fi
        medians "GET service" get-product "$rows" "$group"
        medians "GET peer" get-peer "$rows" "$group"
        medians "GET nginx" nginx "$rows" "$group"
        medians "PUT service" put-product "$rows" "$group"
        medians "PUT peer" put-peer "$rows" "$group"
        if [ "$group" = paced ]; then
            echo "  GET p99 service/nginx: $(ratio p99 get-product nginx "$rows" "$group") (target <= 1.5)"
            echo "  GET p99 service/peer: $(ratio p99 get-product get-peer "$rows" "$group")"
            echo "  PUT p99 service/peer: $(ratio p99 put-product put-peer "$rows" "$group") (target <= 1); p50: $(ratio p50 put-product put-peer "$rows" "$group")"
        else
            echo "  GET requests/s service/nginx: $(ratio rps get-product nginx "$rows" "$group")"
            echo "  GET requests/s service/peer: $(ratio rps get-product get-peer "$rows" "$group")"
            echo "  PUT writes/s service/peer: $(ratio rps put-product put-peer "$rows" "$group") (target >= 3); p99: $(ratio p99 put-product put-peer "$rows" "$group") (target <= 1)"
            if [ "$floor" = 1 ]; then
                echo "  PUT floor, SQLite alone at the service's batch: $(rounds_of cpureq floor "$rows" "$group") µs of CPU a write ($(rounds_of userreq floor "$rows" "$group") user), at most $(rounds_of bound floor "$rows" "$group") writes/s on one core"
                echo "  PUT floor's writes/s bound/peer: $(floor_ratio "$rows" "$group"); service CPU a write/floor: $(ratio cpureq put-product floor "$rows" "$group")"
            fi
        fi
        echo "  nothing lost: service ${verdict[product-$rows-$group]}; peer ${verdict[peer-$rows-$group]}"
    done
    echo "  nothing lost over every write to $rows rows, counted after the servers stopped: service ${verdict[product-$rows-all]}; peer ${verdict[peer-$rows-all]}"
done
