#!/usr/bin/env bash
# The service beside a Hummingbird 2 + GRDB peer (bench/peer) and nginx, in one run on loopback,
# so that every status-read and durable-write figure is a ratio from the same run (results in
# bench/RESULTS.md).
#
# For each size, two databases seeded alike (`permission-server migrate`, then
# bench/hot-path/seed.sql.template through lib.sh's seed_database), one for the release
# `permission-server` and one for the peer; both servers and nginx pinned to CPU 0, wrk to CPU 1:
#   - GET /v1/users/{u}/apps/{a}/authorizations/location for random seeded users and apps
#     (bench/hot-path/get.lua) on the service and the peer, and nginx serving a static body of the
#     size of the service's answer; ROUNDS rounds, alternating the order (service, peer, nginx;
#     nginx, peer, service; ...) so that the VM's drift falls on all three;
#   - durable writes: settings PUTs (bench/hot-path/put.lua), each a new record and its audit row
#     committed with synchronous=FULL, on the service and the peer, alternating which goes first;
#     afterwards each database's audit rows added are compared with the writes answered.
# The service runs with its default read cache, measured once the warm-up has loaded every record.
# Prints requests/s, p50, p99 and the server's CPU time per request for every run, then the
# medians over the rounds and the ratios service/peer and service/nginx (medians of the rounds').
# Kills exactly the PIDs it started. Needs swift, sqlite3, wrk, nginx, taskset, curl.
# Env: DURATION (10s), ROUNDS (3), CONNECTIONS (16), SIZES ("10000:100:100" = rows:users:apps),
#      PORT (18094), PEER_PORT (18095), NGINX_PORT (18096),
#      SERVER_BINARY (skip the service's build and use this binary).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
duration="${DURATION:-10s}"
rounds="${ROUNDS:-3}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
connections="${CONNECTIONS:-16}"
sizes="${SIZES:-10000:100:100}"
port="${PORT:-18094}"
peer_port="${PEER_PORT:-18095}"
nginx_port="${NGINX_PORT:-18096}"
# get.lua paces whenever PACE_MS is in its environment: these runs are all at saturation.
unset PACE_MS
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
echo "== building the peer (release)"
(cd "$here/peer" && swift build -c release --product permission-peer >"$prefix/peer-build.log" 2>&1) ||
    { tail -30 "$prefix/peer-build.log" >&2; exit 1; }
peer_bin="$here/peer/.build/release/permission-peer"

# The median over the rounds of ARRAY[KIND-ROWS-ROUND]: `rounds_of rps get-peer 10000`.
rounds_of() { # array kind rows
    local -n of="$1"
    local round values=()
    for round in $(seq 1 "$rounds"); do values+=("${of[$2-$3-$round]}"); done
    median "${values[@]}"
}

# The median over the rounds of A's requests/s divided by B's: `ratio get-product get-peer 10000`.
ratio() { # kind_a kind_b rows
    local round values=()
    for round in $(seq 1 "$rounds"); do
        values+=("$(awk -v a="${rps[$1-$3-$round]}" -v b="${rps[$2-$3-$round]}" 'BEGIN { printf "%.2f", a / b }')")
    done
    echo "$(median "${values[@]}") (rounds: ${values[*]})"
}

names=()
summary=()
for size in $sizes; do
    split_size "$size"
    echo "== seeding $rows authorizations ($users users x $apps apps), once for each server"
    seed_database "$server_bin" "$prefix/product-$rows.sqlite" "$users" "$apps"
    seed_database "$server_bin" "$prefix/peer-$rows.sqlite" "$users" "$apps"

    PERMISSION_BOOTSTRAP_ADMIN_KEY="$BENCH_API_KEY" taskset -c 0 "$server_bin" serve --host 127.0.0.1 --port "$port" \
        --database "$prefix/product-$rows.sqlite" --log-level warning --max-requests-per-connection 1000000 \
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
    wait_warm "$product" "$rows"

    sample="/v1/users/u1/apps/com.example.app2/authorizations/location"
    curl -fsS "${auth[@]}" "$product$sample" >"$prefix/body.json"
    curl -fsS "${auth[@]}" "$peer$sample" >"$prefix/peer-body.json"
    cmp -s "$prefix/body.json" "$prefix/peer-body.json" || { echo "the peer answers otherwise:" >&2; cat "$prefix/body.json" "$prefix/peer-body.json" >&2; exit 1; }
    start_nginx "$prefix/nginx-$rows" "$nginx_port" /body.json "$(cat "$prefix/body.json")"
    nginx="http://127.0.0.1:$nginx_port/body.json"
    curl -fsS "$nginx" | cmp -s - "$prefix/body.json" || { echo "nginx answers another body" >&2; exit 1; }

    echo "== warm-up ($rows rows; body $(wc -c <"$prefix/body.json") bytes)"
    for base in "$product" "$peer"; do
        USERS=$users APPS=$apps taskset -c 1 wrk -t1 -c"$connections" -d2s -s "$here/hot-path/get.lua" "$base" >/dev/null
    done
    taskset -c 1 wrk -t1 -c"$connections" -d2s "$nginx" >/dev/null

    for round in $(seq 1 "$rounds"); do
        echo "== round $round of $rounds: GET one authorization on the service, the peer and nginx, wrk -t1 -c$connections -d$duration"
        order=(product peer nginx)
        if ((round % 2 == 0)); then order=(nginx peer product); fi
        for kind in "${order[@]}"; do
            case "$kind" in
            product) USERS=$users APPS=$apps wrk_run "get-product-$rows-$round" "$product_pid" "$product" -s "$here/hot-path/get.lua" ;;
            peer) USERS=$users APPS=$apps wrk_run "get-peer-$rows-$round" "$peer_pid" "$peer" -s "$here/hot-path/get.lua" ;;
            nginx) wrk_run "nginx-$rows-$round" "$nginx_pid" "$nginx" ;;
            esac
        done
        names+=("get-product-$rows-$round" "get-peer-$rows-$round" "nginx-$rows-$round")
    done

    audit_product=$(sqlite3 "$prefix/product-$rows.sqlite" 'SELECT count(*) FROM audit')
    audit_peer=$(sqlite3 "$prefix/peer-$rows.sqlite" 'SELECT count(*) FROM audit')
    for round in $(seq 1 "$rounds"); do
        echo "== round $round of $rounds: durable writes (settings PUT) on the service and the peer, wrk -t1 -c$connections -d$duration"
        order=(product peer)
        if ((round % 2 == 0)); then order=(peer product); fi
        for kind in "${order[@]}"; do
            if [ "$kind" = product ]; then pid=$product_pid base=$product; else pid=$peer_pid base=$peer; fi
            PUT_TAG="$kind$round" USERS=$users APPS=$apps wrk_run "put-$kind-$rows-$round" "$pid" "$base" -s "$here/hot-path/put.lua"
        done
        names+=("put-product-$rows-$round" "put-peer-$rows-$round")
    done

    # Stopped first, so that the writes still in flight when wrk stopped are committed or dropped.
    kill -TERM "$product_pid" "$peer_pid" "$nginx_pid"
    wait "$product_pid" 2>/dev/null || true
    wait "$peer_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
    for kind in product peer; do
        answered=0
        for round in $(seq 1 "$rounds"); do
            answered=$((answered + $(awk '/requests in/ {print $1}' "$prefix/put-$kind-$rows-$round.wrk")))
        done
        before_var="audit_$kind"
        audited=$(( $(sqlite3 "$prefix/$kind-$rows.sqlite" 'SELECT count(*) FROM audit') - ${!before_var} ))
        # wrk counts only the answers it read: up to CONNECTIONS writes a run may be committed
        # unanswered when it stops, never the other way round.
        verdict="nothing lost"
        if ((audited < answered || audited > answered + connections * rounds)); then verdict="MISMATCH"; fi
        summary+=("$rows rows, $kind writes: answered $answered, audit rows +$audited ($verdict)")
    done
    rm -f "$prefix"/*-"$rows".sqlite*
done

printf '\n%-24s %12s %9s %9s %9s %9s  %s\n' run "requests/s" "p50 ms" "p99 ms" "µs/req" "user µs" notes
for name in "${names[@]}"; do
    printf '%-24s %12s %9s %9s %9s %9s  %s\n' "$name" "${rps[$name]}" "${p50[$name]}" "${p99[$name]}" \
        "${cpureq[$name]}" "${userreq[$name]}" "${notes[$name]:-}"
done
echo
for size in $sizes; do
    rows="${size%%:*}"
    for kind in get-product get-peer nginx put-product put-peer; do
        printf '%s rows, %-12s median of %s rounds: %9.0f requests/s, p50 %.3f ms, p99 %.3f ms, %.1f µs CPU a request (%.1f user)\n' \
            "$rows" "$kind" "$rounds" "$(rounds_of rps "$kind" "$rows")" "$(rounds_of p50 "$kind" "$rows")" \
            "$(rounds_of p99 "$kind" "$rows")" "$(rounds_of cpureq "$kind" "$rows")" "$(rounds_of userreq "$kind" "$rows")"
    done
    echo "$rows rows, GET service/peer: $(ratio get-product get-peer "$rows")"
    echo "$rows rows, GET service/nginx: $(ratio get-product nginx "$rows")"
    echo "$rows rows, PUT service/peer: $(ratio put-product put-peer "$rows")"
done
printf '%s\n' "${summary[@]}"
