#!/usr/bin/env bash
# AuthZEN evaluations beside the status read they ask (results in bench/RESULTS.md), on loopback:
#   - 10,000 stored authorizations (bench/hot-path/seed.sql.template, as permission-hot-path.sh
#     seeds them), the release `permission-server` pinned to CPU 0, wrk pinned to CPU 1, the read
#     cache warm before anything is measured;
#   - ROUNDS rounds of three wrk runs (-t1 -c64 -d$DURATION --latency, keep-alive), the order
#     rotating from round to round so that the VM's drift falls on all three:
#       get   GET one authorization (bench/hot-path/get.lua), the status read;
#       eval  POST /access/v1/evaluation for the same random keys (bench/hot-path/evaluate.lua);
#       batch POST /access/v1/evaluations with 10 items (BATCH=10, the same script);
#   - prints requests/s, p50, p99 and the server's CPU time per request of each run, and the
#     ratio eval / get (target >= 0.80) as the median of the rounds', with the same ratio read
#     from CPU per request; for the batch, decisions per second (10 per request).
# Kills exactly the PIDs it started. Needs swift (unless SERVER_BINARY), sqlite3, wrk, taskset, curl.
# Env: DURATION (10s), ROUNDS (3), CONNECTIONS (64), SIZE ("10000:100:100" = rows:users:apps),
#      BATCH (10), PORT (18093), SERVER_BINARY (skip the build and use this binary).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
duration="${DURATION:-10s}"
rounds="${ROUNDS:-3}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }
connections="${CONNECTIONS:-64}"
batch="${BATCH:-10}"
port="${PORT:-18093}"
IFS=: read -r rows users apps <<<"${SIZE:-10000:100:100}"
[ "$((users * apps))" = "$rows" ] || { echo "SIZE: $rows is not $users x $apps" >&2; exit 2; }
prefix="$(mktemp -d /tmp/permission-authzen.XXXXXX)"
export BENCH_API_KEY="${BENCH_API_KEY:-$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')}"
auth=(-H "Authorization: Bearer $BENCH_API_KEY")
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
trap cleanup EXIT
unset PACE_MS  # get.lua paces when it is set; these runs are all at saturation

for tool in wrk taskset sqlite3 curl; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y wrk sqlite3 curl util-linux)" >&2; exit 1; }
done

server_bin="$(bench_server_binary "$root")"
db="$prefix/authzen.sqlite"
echo "== seeding $rows authorizations ($users users x $apps apps)"
seed_database "$server_bin" "$db" "$users" "$apps"
PERMISSION_BOOTSTRAP_ADMIN_KEY="$BENCH_API_KEY" taskset -c 0 "$server_bin" serve --host 127.0.0.1 --port "$port" \
    --database "$db" --log-level warning --max-requests-per-connection 1000000 >"$prefix/server.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
base="http://127.0.0.1:$port"
wait_up "$base/readyz"
wait_warm "$base" "$rows"

# Every kind answers 200 with what it should before anything is measured.
curl -fsS "${auth[@]}" "$base/v1/users/u1/apps/com.example.app2/authorizations/location" | grep -q '"status":"authorized"'
curl -fsS "${auth[@]}" -H 'Content-Type: application/json' "$base/access/v1/evaluation" \
    -d '{"subject":{"type":"app","id":"com.example.app2"},"action":{"name":"location"},"resource":{"type":"user","id":"u1"}}' |
    grep -q '"decision":true'
USERS=$users APPS=$apps BATCH=$batch taskset -c 1 wrk -t1 -c4 -d1s -s "$here/hot-path/evaluate.lua" "$base" >"$prefix/check.wrk"
if grep -q 'Non-2xx' "$prefix/check.wrk"; then echo "evaluations answered non-2xx:" >&2; cat "$prefix/check.wrk" >&2; exit 1; fi

declare -A rps p50 p99 cpureq notes
run() { # name [wrk args...]
    local name="$1" before after out
    shift
    before=$(group_ticks "$server_pid")
    out=$(taskset -c 1 wrk -t1 -c"$connections" -d"${RUN_DURATION:-$duration}" --latency "$@" "$base" 2>&1)
    after=$(group_ticks "$server_pid")
    echo "$out" >"$prefix/$name.wrk"
    rps[$name]=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50[$name]=$(to_ms "$(echo "$out" | awk '$1 == "50%" {print $2}')")
    p99[$name]=$(to_ms "$(echo "$out" | awk '$1 == "99%" {print $2}')")
    cpureq[$name]=$(echo "$out" | awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" \
        '/requests in/ { printf "%.1f", t / hz * 1e6 / $1 }')
    notes[$name]=$(echo "$out" | awk '/Non-2xx|Socket errors/' | tr '\n' ' ')
}
get() { USERS=$users APPS=$apps run "get-$1" -s "$here/hot-path/get.lua"; }
evaluation() { USERS=$users APPS=$apps BATCH=1 run "eval-$1" -s "$here/hot-path/evaluate.lua"; }
batched() { USERS=$users APPS=$apps BATCH=$batch run "batch-$1" -s "$here/hot-path/evaluate.lua"; }

echo "== warm-up"
for kind in get evaluation batched; do
    RUN_DURATION=2s "$kind" warm
done

names=()
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds: wrk -t1 -c$connections -d$duration"
    case $((round % 3)) in
        1) get "$round"; evaluation "$round"; batched "$round" ;;
        2) evaluation "$round"; batched "$round"; get "$round" ;;
        0) batched "$round"; get "$round"; evaluation "$round" ;;
    esac
    names+=("get-$round" "eval-$round" "batch-$round")
done
kill -TERM "$server_pid"
wait "$server_pid" 2>/dev/null || true

printf '\n%-10s %12s %9s %9s %9s  %s\n' run "requests/s" "p50 ms" "p99 ms" "µs/req" notes
for name in "${names[@]}"; do
    printf '%-10s %12s %9s %9s %9s  %s\n' "$name" "${rps[$name]}" "${p50[$name]}" "${p99[$name]}" "${cpureq[$name]}" "${notes[$name]:-}"
done
ratios=() cpu_ratios=() gets=() evals=() batches=()
for round in $(seq 1 "$rounds"); do
    gets+=("${rps[get-$round]}")
    evals+=("${rps[eval-$round]}")
    batches+=("${rps[batch-$round]}")
    ratios+=("$(awk -v a="${rps[eval-$round]}" -v b="${rps[get-$round]}" 'BEGIN { printf "%.2f", a / b }')")
    cpu_ratios+=("$(awk -v a="${cpureq[eval-$round]}" -v b="${cpureq[get-$round]}" 'BEGIN { printf "%.2f", b / a }')")
done
echo
awk -v g="$(median "${gets[@]}")" -v e="$(median "${evals[@]}")" -v m="$(median "${ratios[@]}")" -v all="${ratios[*]}" \
    -v c="$(median "${cpu_ratios[@]}")" -v b="$(median "${batches[@]}")" -v n="$batch" -v r="$rows" \
    'BEGIN { printf "%d rows: evaluation %.0f/s against the status GET %.0f/s (medians); ratio %.2f, the median of the rounds (%s; target >= 0.80), by CPU per request %.2f; %d-item batch %.0f requests/s = %.0f decisions/s\n", r, e, g, m, all, c, n, b, b * n }'
