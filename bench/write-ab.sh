#!/usr/bin/env bash
# Durable writes of two or more release servers side by side (an A/B of a change to the write
# path; the "Durable writes, one change at a time" rows of bench/RESULTS.md):
#   - one database seeded as bench/peer.sh seeds it (seed_database, with the first binary's
#     `migrate`); every run starts the binary, pinned to CPU 0, on a fresh copy of it, after a
#     `sync` and SETTLE seconds, so that one run's writeback does not fall on the next;
#   - settings PUTs that each create a record and its audit entry (bench/hot-path/put.lua, which
#     the service commits with synchronous=FULL), wrk -t1 -cCONNECTIONS pinned to CPU 1, after a
#     2 s warm-up;
#   - ROUNDS rounds in ABBA order (A B, B A, ...), because the VM's speed drifts by 10-25% from
#     minute to minute: compare the binaries within one run, never across runs;
#   - per run: writes/s, p99, the server's CPU time per write and its user part, context
#     switches per write, writes per commit (from /metrics), and whether every answered write has
#     its audit row ("lost" counts answered writes without one; rows of writes still in flight
#     when wrk stopped counting make "added" a little larger);
#   - then the medians of each binary over the rounds.
# Kills exactly the PIDs it started. Needs wrk, sqlite3, taskset, curl (perf for context switches
# that follow every thread; /proc otherwise).
# Env: SERVER_BINARIES (required: release permission-server binaries, separated by spaces),
#      ROUNDS (4), DURATION (10s), CONNECTIONS (16), SIZE ("10000:100:100" = rows:users:apps),
#      SETTLE (3), PORT (18120).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
ab_settings 10s 18120
settle="${SETTLE:-3}"
[[ "$settle" =~ ^[0-9]+$ ]] || { echo "SETTLE must be a whole number of seconds" >&2; exit 2; }
# put.lua paces whenever PACE_MS is in its environment: these runs are saturated.
unset PACE_MS
prefix="$(mktemp -d /tmp/write-ab.XXXXXX)"
trap cleanup EXIT

for tool in wrk sqlite3 taskset curl; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y wrk sqlite3 util-linux curl)" >&2; exit 1; }
done

split_size "${SIZE:-10000:100:100}"
echo "== seeding $rows authorizations ($users users x $apps apps)"
seed_database "${binaries[0]}" "$prefix/seed.sqlite" "$users" "$apps"
BENCH_API_KEY="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
export BENCH_API_KEY
base="http://127.0.0.1:$port"

audit_rows() { sqlite3 "$prefix/run.sqlite" "SELECT count(*) FROM audit"; }

declare -A results
# One run of binary number I in round R: prints its line and keeps its figures.
run_binary() { # index round
    local index="$1" round="$2" binary="${binaries[$1]}" pid name batches_before batches_after rows_before rows_after
    rm -f "$prefix/run.sqlite" "$prefix/run.sqlite-wal" "$prefix/run.sqlite-shm"
    cp "$prefix/seed.sqlite" "$prefix/run.sqlite"
    cp "$prefix/seed.sqlite.audit-key" "$prefix/run.sqlite.audit-key"
    sync
    sleep "$settle"
    PERMISSION_BOOTSTRAP_ADMIN_KEY="$BENCH_API_KEY" taskset -c 0 "$binary" serve --host 127.0.0.1 --port "$port" \
        --database "$prefix/run.sqlite" --log-level warning --max-requests-per-connection 1000000 \
        >"$prefix/server-$index-$round.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    wait_up "$base/readyz"
    PUT_TAG="warm$index$round" USERS=$users APPS=$apps taskset -c 1 wrk -t1 -c"$connections" -d2s \
        -s "$here/hot-path/put.lua" "$base" >/dev/null
    name="put-$index-$round"
    batches_before=$(write_batches_of "$base")
    rows_before=$(audit_rows)
    PUT_TAG="ab$index$round" USERS=$users APPS=$apps wrk_run "$name" "$pid" "$base" -s "$here/hot-path/put.lua"
    batches_after=$(write_batches_of "$base")
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    rows_after=$(audit_rows)
    local batch lost added=$((rows_after - rows_before))
    batch=$(awk -v a="$batches_before" -v b="$batches_after" \
        'BEGIN { split(a, x, " "); split(b, y, " "); n = y[2] - x[2]; printf "%.1f", (n > 0 ? (y[1] - x[1]) / n : 0) }')
    lost=$((answered[$name] > added ? answered[$name] - added : 0))
    printf '  round %d, %s: %s writes/s, p99 %s ms, %s µs CPU a write (user %s), %s context switches a write, %s writes a commit, %s answered, %s audit rows added, %s lost %s\n' \
        "$round" "$binary" "${rps[$name]}" "${p99[$name]}" "${cpureq[$name]}" "${userreq[$name]}" "${cswreq[$name]}" "$batch" \
        "${answered[$name]}" "$added" "$lost" "${notes[$name]}"
    results[$index]+="${rps[$name]} ${p99[$name]} ${cpureq[$name]} ${userreq[$name]} $batch;"
}

echo "== durable writes: wrk -t1 -c$connections -d$duration, $rounds rounds in ABBA order"
for round in $(seq 1 "$rounds"); do
    order=()
    for index in "${!binaries[@]}"; do
        if ((round % 2 == 1)); then order+=("$index"); else order=("$index" "${order[@]}"); fi
    done
    for index in "${order[@]}"; do run_binary "$index" "$round"; done
done

echo "== medians over $rounds rounds"
for index in "${!binaries[@]}"; do
    printf '  %s: %s writes/s, p99 %s ms, %s µs CPU a write (user %s), %s writes a commit\n' "${binaries[$index]}" \
        "$(median_field "${results[$index]}" 1)" "$(median_field "${results[$index]}" 2)" \
        "$(median_field "${results[$index]}" 3)" "$(median_field "${results[$index]}" 4)" "$(median_field "${results[$index]}" 5)"
done
