#!/usr/bin/env bash
# What a durable write costs SQLite by itself, at each batch size (see bench/RESULTS.md):
# bench/sqlite-write/write.c writes the rows of the service's settings PUT for a new user (the
# record, the user's audit key, the audit entry) in transactions of BATCH writes, one SAVEPOINT a
# write, the writer's pragmas (synchronous = FULL, temp_store = MEMORY, ...), pinned to CPU 0,
# with no HTTP, no Swift, no encryption and no hashing. Its CPU time per write at the batch the
# service reaches (`writes per commit` in bench/peer.sh) is the least the service can spend on a
# write there, so 1,000,000 / that time is the most writes a second one core can commit, whatever
# the server around SQLite does.
#   - the database is seeded as bench/peer.sh seeds it (seed_database), and every run starts from
#     a fresh copy of it;
#   - each BATCH is timed ROUNDS times (the batches alternating), and the medians are printed;
#   - VARIANTS, one SQL text a line, each run on the copy before it is timed (e.g. "DROP INDEX
#     authorizations_by_service" to see what one index costs a write): every round times the
#     schema as `migrate` made it and then each variant, so that the VM's drift falls on all.
# Needs a C compiler (CC, default cc), libsqlite3-dev, sqlite3, taskset, swift (unless
# SERVER_BINARY is given: its `migrate` creates the schema).
# Env: ROUNDS (3), COUNT (30000 timed writes a run), BATCHES ("1 9 16 133 256"),
#      SIZE ("10000:100:100" = rows:users:apps), VARIANTS (none), SERVER_BINARY, CC.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
rounds="${ROUNDS:-3}"
count="${COUNT:-30000}"
batches="${BATCHES:-1 9 16 133 256}"
size="${SIZE:-10000:100:100}"
for value in "$rounds" "$count" $batches; do
    [[ "$value" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS, COUNT and BATCHES must be positive integers" >&2; exit 2; }
done
prefix="$(mktemp -d /tmp/sqlite-write.XXXXXX)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
trap cleanup EXIT

for tool in "${CC:-cc}" sqlite3 taskset; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y gcc libsqlite3-dev sqlite3 util-linux)" >&2; exit 1; }
done
"${CC:-cc}" -O2 -Wall -Wextra -o "$prefix/write" "$here/sqlite-write/write.c" -lsqlite3

server_bin="$(bench_server_binary "$root")"  # for its migrate subcommand
split_size "$size"
echo "== seeding $rows authorizations ($users users x $apps apps)"
seed_database "$server_bin" "$prefix/seed.sqlite" "$users" "$apps"

# The variants: 0 is the schema as `migrate` made it, then one a line of VARIANTS.
variants=("")
while IFS= read -r line; do
    if [ -n "$line" ]; then variants+=("$line"); fi
done <<<"${VARIANTS:-}"

# One timed run on a fresh copy of the seed with variant V: prints write.c's line.
time_writes() { # batch variant
    rm -f "$prefix/run.sqlite" "$prefix/run.sqlite-wal" "$prefix/run.sqlite-shm"
    cp "$prefix/seed.sqlite" "$prefix/run.sqlite"
    if [ -n "${variants[$2]}" ]; then sqlite3 "$prefix/run.sqlite" "${variants[$2]}" >/dev/null; fi
    taskset -c 0 "$prefix/write" "$prefix/run.sqlite" "$apps" "$1" "$count"
}

declare -A rate cpu user pages
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds"
    for v in "${!variants[@]}"; do
        for batch in $batches; do
            line="$(time_writes "$batch" "$v")"
            echo "   ${variants[$v]:-as migrated}: $line"
            rate[$v-$batch]+="$(field_of writes_per_second "$line") "
            cpu[$v-$batch]+="$(field_of cpu_us_per_write "$line") "
            user[$v-$batch]+="$(field_of user_us_per_write "$line") "
            pages[$v-$batch]+="$(field_of wal_pages_per_write "$line") "
        done
    done
done

echo
printf '%-7s %-12s %-22s %-14s %-22s %-22s %s\n' batch "writes/s" "µs of CPU per write" "(user part)" "WAL pages per write" "1,000,000 ÷ CPU time" schema
for v in "${!variants[@]}"; do
    for batch in $batches; do
        # shellcheck disable=SC2086
        c=$(median ${cpu[$v-$batch]})
        # shellcheck disable=SC2086
        printf '%-7s %-12s %-22s %-14s %-22s %-22s %s\n' "$batch" "$(median ${rate[$v-$batch]})" "$c" \
            "$(median ${user[$v-$batch]})" "$(median ${pages[$v-$batch]})" \
            "$(awk -v c="$c" 'BEGIN { printf "%.0f", 1000000 / c }')" "${variants[$v]:-as migrated}"
    done
done
