#!/usr/bin/env bash
# Status reads of two or more release servers and nginx side by side (an A/B of a change to the
# read path or the HTTP engine; the "Status reads, one change at a time" rows of
# bench/RESULTS.md):
#   - one database seeded as bench/peer.sh seeds it (seed_database, with the first binary's
#     `migrate`); each binary serves its own copy of it, all of them started at once, pinned to
#     CPU 0, and measured once their read caches hold every record; nginx (one worker, CPU 0)
#     serves a static body of the size of one answer beside them;
#   - GET one authorization of a random seeded (user, app) (bench/hot-path/get.lua; nginx
#     bench/paced.lua), wrk -t1 -cCONNECTIONS pinned to CPU 1, each connection waiting PACE_MS
#     milliseconds on average (exponentially distributed) after every response: the same offered
#     load for every server, below saturation, where latency compares them; PACE_MS=0 saturates;
#   - ROUNDS rounds, nginx and the binaries in one order and then the reverse (ABBA), because the
#     VM's speed drifts by 10-25% from minute to minute: compare within one run, never across;
#   - per run: requests/s, p50, p90 and p99, the CPU time per request and its user part; after
#     the rounds, each binary's read cache counters (hits, misses, entries, evictions, clears);
#   - then each one's medians over the rounds, and each binary's p50 and p99 over nginx's of the
#     same round (the median of the rounds' ratios).
# Kills exactly the PIDs it started. Needs wrk, nginx, sqlite3, taskset, curl.
# Env: SERVER_BINARIES (required: release permission-server binaries, separated by spaces),
#      ROUNDS (4), DURATION (15s), CONNECTIONS (16), PACE_MS (8), SIZE ("10000:100:100" =
#      rows:users:apps), PORT (18130: the binaries on PORT, PORT+1, ...; nginx below PORT),
#      HOT_USERS and HOT_SHARE (get.lua's skewed load: that share of the reads to the first
#      HOT_USERS users; unset, uniform).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
ab_settings 15s 18130
pace_ms="${PACE_MS:-8}"
[[ "$pace_ms" =~ ^[0-9]+$ ]] || { echo "PACE_MS must be a whole number of milliseconds (0: saturated)" >&2; exit 2; }
# get.lua reads these itself, and wrk runs on with its default requests when the script fails.
[[ "${HOT_USERS:-0}" =~ ^[0-9]+$ ]] || { echo "HOT_USERS must be a whole number of users" >&2; exit 2; }
[[ "${HOT_SHARE:-0.9}" =~ ^(0(\.[0-9]+)?|1(\.0+)?|\.[0-9]+)$ ]] || { echo "HOT_SHARE must be a share from 0 to 1" >&2; exit 2; }
((port > 1 && port + ${#binaries[@]} <= 65535)) || { echo "PORT leaves no room for nginx and the binaries" >&2; exit 2; }
# get.lua and paced.lua pace whenever PACE_MS is in their environment: only paced runs pass it on.
unset PACE_MS
prefix="$(mktemp -d /tmp/read-ab.XXXXXX)"
trap cleanup EXIT

for tool in wrk nginx sqlite3 taskset curl; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y wrk nginx-light sqlite3 util-linux curl)" >&2; exit 1; }
done

split_size "${SIZE:-10000:100:100}"
echo "== seeding $rows authorizations ($users users x $apps apps)"
seed_database "${binaries[0]}" "$prefix/seed.sqlite" "$users" "$apps"
BENCH_API_KEY="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
export BENCH_API_KEY

server_pids=()
for index in "${!binaries[@]}"; do
    cp "$prefix/seed.sqlite" "$prefix/run-$index.sqlite"
    cp "$prefix/seed.sqlite.audit-key" "$prefix/run-$index.sqlite.audit-key"
    PERMISSION_BOOTSTRAP_ADMIN_KEY="$BENCH_API_KEY" taskset -c 0 "${binaries[$index]}" serve --host 127.0.0.1 \
        --port $((port + index)) --database "$prefix/run-$index.sqlite" --log-level warning \
        --max-requests-per-connection 1000000 >"$prefix/server-$index.log" 2>&1 &
    server_pids+=("$!")
    pids+=("$!")
done
for index in "${!binaries[@]}"; do
    wait_up "http://127.0.0.1:$((port + index))/readyz"
    wait_warm "http://127.0.0.1:$((port + index))" "$rows"
done

nginx_port=$((port - 1))
curl -fsS -H "Authorization: Bearer $BENCH_API_KEY" \
    "http://127.0.0.1:$port/v1/users/u1/apps/com.example.app2/authorizations/location" >"$prefix/body.json"
start_nginx "$prefix/nginx" "$nginx_port" /body.json "$(cat "$prefix/body.json")"

# Target T: "nginx" or a binary's index. Runs it once in round R and keeps its figures.
declare -A results
run_target() { # target round
    local target="$1" round="$2" name="get-$1-$2" label pid url script=()
    if [ "$target" = nginx ]; then
        label=nginx pid=$nginx_pid url="http://127.0.0.1:$nginx_port/body.json"
        if ((pace_ms > 0)); then script=(-s "$here/paced.lua"); fi
    else
        label="${binaries[$target]}" pid="${server_pids[$target]}" url="http://127.0.0.1:$((port + target))"
        script=(-s "$here/hot-path/get.lua")
    fi
    # Both scripts pace while PACE_MS is in their environment.
    if ((pace_ms > 0)); then local -x PACE_MS=$pace_ms; fi
    USERS=$users APPS=$apps wrk_run "$name" "$pid" "$url" "${script[@]}"
    printf '  round %d, %s: %s requests/s, p50 %s, p90 %s, p99 %s ms, %s µs CPU a request (user %s) %s\n' \
        "$round" "$label" "${rps[$name]}" "${p50[$name]}" "${p90[$name]}" "${p99[$name]}" "${cpureq[$name]}" \
        "${userreq[$name]}" "${notes[$name]}"
    results[$target]+="${rps[$name]} ${p50[$name]} ${p90[$name]} ${p99[$name]} ${cpureq[$name]} ${userreq[$name]};"
}

targets=(nginx "${!binaries[@]}")
echo "== warm-up"
for target in "${targets[@]}"; do
    if [ "$target" = nginx ]; then
        taskset -c 1 wrk -t1 -c"$connections" -d2s "http://127.0.0.1:$nginx_port/body.json" >/dev/null
    else
        USERS=$users APPS=$apps taskset -c 1 wrk -t1 -c"$connections" -d2s -s "$here/hot-path/get.lua" \
            "http://127.0.0.1:$((port + target))" >/dev/null
    fi
done
if ((pace_ms > 0)); then load="paced, $pace_ms ms on average between a connection's requests"; else load=saturated; fi
echo "== status reads: wrk -t1 -c$connections -d$duration, $load; $rounds rounds in ABBA order"
for round in $(seq 1 "$rounds"); do
    order=("${targets[@]}")
    if ((round % 2 == 0)); then
        order=()
        for ((i = ${#targets[@]} - 1; i >= 0; i--)); do order+=("${targets[$i]}"); done
    fi
    for target in "${order[@]}"; do run_target "$target" "$round"; done
done
echo "== read caches after the rounds (/metrics, warm-up included)"
for index in "${!binaries[@]}"; do
    printf '  %s:%s\n' "${binaries[$index]}" "$(curl -fsS "http://127.0.0.1:$((port + index))/metrics" |
        awk '$1 ~ /^permission_read_cache_/ { sub(/^permission_read_cache_/, "", $1); printf " %s %s", $1, $2 }')"
done

# Field F (1: requests/s, 2: p50, 3: p90, 4: p99, 5: CPU, 6: user) of target T's run in round R.
field_of_run() { # target round field
    local runs
    IFS=';' read -r -a runs <<<"${results[$1]}"
    awk -v f="$3" '{ print $f }' <<<"${runs[$(($2 - 1))]}"
}
ratio_to_nginx() { # target field
    local values=() round
    for round in $(seq 1 "$rounds"); do
        values+=("$(awk -v a="$(field_of_run "$1" "$round" "$2")" -v b="$(field_of_run nginx "$round" "$2")" \
            'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')")
    done
    echo "$(median "${values[@]}") (rounds ${values[*]})"
}

echo "== medians over $rounds rounds"
for target in "${targets[@]}"; do
    if [ "$target" = nginx ]; then label=nginx; else label="${binaries[$target]}"; fi
    printf '  %s: %s requests/s, p50 %s, p90 %s, p99 %s ms, %s µs CPU a request (user %s)\n' "$label" \
        "$(median_field "${results[$target]}" 1)" "$(median_field "${results[$target]}" 2)" \
        "$(median_field "${results[$target]}" 3)" "$(median_field "${results[$target]}" 4)" \
        "$(median_field "${results[$target]}" 5)" "$(median_field "${results[$target]}" 6)"
    if [ "$target" != nginx ]; then
        printf '    over nginx: p50 %s, p99 %s\n' "$(ratio_to_nginx "$target" 2)" "$(ratio_to_nginx "$target" 4)"
    fi
done
