#!/usr/bin/env bash
# What the version floor's triggers on `authorizations` cost a PostgreSQL write (results in
# bench/RESULTS.md, "The version floor's triggers on PostgreSQL"). The BEFORE INSERT trigger
# (`authorizations_above_version_floor`, schema migration 8) runs for every upsert of a record,
# new or not: it reads the one-row `version_floor`, and when the floor is above 0 (a user was
# erased once) and the record would be stored at or below it, checks by primary key whether the
# record exists. The statement-level AFTER DELETE trigger runs only for erasures and resets.
#
# A throwaway PostgreSQL (initdb into a temporary directory, as nobody:nogroup through setpriv
# when run as root, a Unix socket there, trust authentication, fsync on), migrated by
# `permission-server migrate`, seeded with SEED rows (generate_series, triggers off). Then pgbench
# runs the product's upsert (the statement and ON CONFLICT assignments of
# PostgresSession+Authorizations, prepared as the store prepares it) BATCH times per transaction, for new records of random users
# (what a write that creates a record does; BATCH as the writer's group commit), with
# synchronous_commit off so that the CPU a statement costs is not hidden under the WAL's sync:
#   - floor 0 (no user ever erased), trigger enabled / disabled;
#   - floor 1,000,000 (after an erasure), trigger enabled / disabled;
# ROUNDS rounds of DURATION seconds each, the four variants alternating in each round. Reports
# µs per upserted row (pgbench's mean latency / BATCH) and the medians.
# Kills exactly the PIDs it started. Needs the PostgreSQL server binaries and pgbench (Debian's
# postgresql), setpriv when run as root, and a built permission-server (SERVER_BINARY, else
# .build/release or .build/debug).
# Env: ROUNDS (5), DURATION (10), BATCH (16), SEED (100000), CLIENTS (1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
rounds="${ROUNDS:-5}"
duration="${DURATION:-10}"
batch="${BATCH:-16}"
seed="${SEED:-100000}"
clients="${CLIENTS:-1}"

bin=""
for candidate in /usr/lib/postgresql/*/bin; do [ -x "$candidate/pgbench" ] && bin="$candidate"; done
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "no PostgreSQL server binaries with pgbench (apt-get install -y postgresql)" >&2
    exit 1
fi
server_bin="${SERVER_BINARY:-}"
for candidate in "$root/.build/release/permission-server" "$root/.build/debug/permission-server"; do
    [ -z "$server_bin" ] && [ -x "$candidate" ] && server_bin="$candidate"
done
[ -x "$server_bin" ] || { echo "no permission-server built (swift build), or set SERVER_BINARY" >&2; exit 1; }

dir="$(mktemp -d /tmp/pgfloor-XXXXXX)"
as=()
if [ "$(id -u)" -eq 0 ]; then
    chown nobody:nogroup "$dir"
    as=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
pg_pid=""
cleanup() {
    if [ -n "$pg_pid" ] && kill -0 "$pg_pid" 2>/dev/null; then
        kill -INT "$pg_pid"
        for _ in $(seq 1 100); do kill -0 "$pg_pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pg_pid" 2>/dev/null && kill -KILL "$pg_pid"
    fi
    rm -rf "$dir"
}
trap cleanup EXIT

"${as[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale --no-instructions >"$dir/initdb.log"
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c port=5432 -c shared_buffers=256MB" start >/dev/null
pg_pid="$(head -1 "$dir/data/postmaster.pid")"
psql=("$bin/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$dir" -U postgres)
"${psql[@]}" -d postgres -c "CREATE DATABASE perm" >/dev/null
PERMISSION_AUDIT_KEY="$(head -c 32 /dev/urandom | base64)" "$server_bin" migrate \
    --database "postgresql://postgres@/perm?host=$dir&port=5432" >"$dir/migrate.log" 2>&1
"${psql[@]}" -d perm >/dev/null <<SQL
ALTER TABLE authorizations DISABLE TRIGGER authorizations_above_version_floor;
INSERT INTO authorizations (user_id, app, service, status, level, provisional, once, expires_at, reason, purpose,
    declined_levels, updated_at, version, purpose_language, button_confirmed, purpose_key, purpose_hash)
SELECT 'seed-' || n, 'com.example.app' || (n % 100), 'location', 'denied', NULL, false, false, NULL, 'userSet', NULL,
    '', 0, 1, NULL, false, NULL, NULL
FROM generate_series(1, $seed) AS n;
ALTER TABLE authorizations ENABLE TRIGGER authorizations_above_version_floor;
VACUUM ANALYZE authorizations;
SQL

# The product's upsert, BATCH rows of new random users per transaction.
script="$dir/upsert.sql"
{
    echo "BEGIN;"
    for i in $(seq 1 "$batch"); do
        echo "\\set u$i random(1, 2000000000)"
        echo "INSERT INTO authorizations (user_id, app, service, status, level, provisional, once, expires_at, reason, purpose, declined_levels, updated_at, version, purpose_language, button_confirmed, purpose_key, purpose_hash) VALUES ('bench-' || :u$i || '-' || :client_id, 'com.example.app7', 'location', 'denied', NULL, false, false, NULL, 'userSet', NULL, '', 0, 1, NULL, false, NULL, NULL) ON CONFLICT (user_id, app, service) DO UPDATE SET status = excluded.status, level = excluded.level, provisional = excluded.provisional, once = excluded.once, expires_at = excluded.expires_at, reason = excluded.reason, purpose = excluded.purpose, declined_levels = excluded.declined_levels, updated_at = excluded.updated_at, version = excluded.version, purpose_language = excluded.purpose_language, button_confirmed = excluded.button_confirmed, purpose_key = excluded.purpose_key, purpose_hash = excluded.purpose_hash;"
    done
    echo "COMMIT;"
} >"$script"
chmod a+r "$script"

variant() { # variant FLOOR on|off: sets the floor and the trigger, runs pgbench, prints µs per row
    local floor="$1" trigger="$2" latency
    "${psql[@]}" -d perm -c "UPDATE version_floor SET version = $floor WHERE id = 1" \
        -c "ALTER TABLE authorizations $([ "$trigger" = on ] && echo ENABLE || echo DISABLE) TRIGGER authorizations_above_version_floor" >/dev/null
    latency="$(PGOPTIONS="-c synchronous_commit=off" "$bin/pgbench" -h "$dir" -U postgres -n -M prepared -c "$clients" -j "$clients" \
        -T "$duration" -f "$script" perm 2>/dev/null | awk '/latency average/ {print $4}')"
    awk -v l="$latency" -v b="$batch" 'BEGIN { printf "%.2f", l * 1000 / b }'
}

echo "== $rounds rounds of ${duration}s, $batch upserts of new records per transaction, $seed rows seeded, $clients client(s)"
echo "   µs per upserted row: floor 0 trigger on / off; floor 1000000 trigger on / off"
declare -a zero_on zero_off high_on high_off
for round in $(seq 1 "$rounds"); do
    a="$(variant 0 on)"; b="$(variant 0 off)"; c="$(variant 1000000 on)"; d="$(variant 1000000 off)"
    zero_on+=("$a"); zero_off+=("$b"); high_on+=("$c"); high_off+=("$d")
    echo "   round $round: $a / $b; $c / $d"
done
# The trigger ran where it was on: rows written above a floor of 1,000,000 took the floor + 1.
raised="$("${psql[@]}" -d perm -c "SELECT count(*) FROM authorizations WHERE version = 1000001")"
[ "$raised" -gt 0 ] || { echo "the trigger never raised a version: nothing was measured" >&2; exit 1; }
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
echo "== medians (µs per row): floor 0: $(median "${zero_on[@]}") on, $(median "${zero_off[@]}") off;" \
    "floor 1000000: $(median "${high_on[@]}") on, $(median "${high_off[@]}") off"
