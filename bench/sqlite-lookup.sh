#!/usr/bin/env bash
# What the hot path's SQLite read costs by itself, at 10,000 and at 1,000,000 stored rows (see
# bench/RESULTS.md): bench/sqlite-lookup/lookup.c runs the server's statement in a loop on
# one read-only connection, pinned to CPU 0, with no HTTP and no Swift around it.
#   - the databases are seeded as bench/permission-hot-path.sh seeds them (seed_database);
#   - each MODE (mmap: the server's setting; cache: SQLite's page cache; cache-thp: that cache on
#     2 MiB pages) is timed ROUNDS times, the sizes alternating, and the median is printed, with
#     its ratio to the first size's figure in the same mode;
#   - with valgrind installed (MISSES=0 skips it), cachegrind counts the first-level and the
#     last-level data-cache misses of one lookup in the mmap mode: the difference between a run
#     of WARMUP lookups and one of WARMUP + MISS_COUNT, divided by MISS_COUNT, with the simulated
#     last-level cache as large as this CPU's L3 (rounded down to a power of two).
# Needs a C compiler (CC, default cc), libsqlite3-dev, sqlite3, taskset, swift (unless
# SERVER_BINARY is given: its `migrate` creates the schema).
# Env: ROUNDS (3), COUNT (500000 timed lookups), WARMUP (1000000), MODES ("mmap cache cache-thp"),
#      SIZES ("10000:100:100 1000000:10000:100" = rows:users:apps), MISSES (1 when valgrind is
#      installed), MISS_COUNT (50000), MISS_WARMUP (200000), SERVER_BINARY, CC.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
rounds="${ROUNDS:-3}"
count="${COUNT:-500000}"
warmup="${WARMUP:-1000000}"
modes="${MODES:-mmap cache cache-thp}"
sizes="${SIZES:-10000:100:100 1000000:10000:100}"
miss_count="${MISS_COUNT:-50000}"
miss_warmup="${MISS_WARMUP:-200000}"
misses="${MISSES:-$(command -v valgrind >/dev/null && echo 1 || echo 0)}"
for value in "$rounds" "$count" "$warmup" "$miss_count" "$miss_warmup"; do
    [[ "$value" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS, COUNT, WARMUP, MISS_COUNT and MISS_WARMUP must be positive integers" >&2; exit 2; }
done
prefix="$(mktemp -d /tmp/sqlite-lookup.XXXXXX)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
trap cleanup EXIT

for tool in "${CC:-cc}" sqlite3 taskset; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y gcc libsqlite3-dev sqlite3 util-linux)" >&2; exit 1; }
done
"${CC:-cc}" -O2 -Wall -Wextra -o "$prefix/lookup" "$here/sqlite-lookup/lookup.c" -lsqlite3

server_bin="$(bench_server_binary "$root")"  # for its migrate subcommand

names=()
for size in $sizes; do
    split_size "$size"
    echo "== seeding $rows authorizations ($users users x $apps apps)"
    seed_database "$server_bin" "$prefix/db-$rows.sqlite" "$users" "$apps"
    names+=("$rows:$users:$apps")
done

# One timed run: prints its microseconds per lookup.
time_lookups() { # rows users apps mode
    local out
    out=$(taskset -c 0 "$prefix/lookup" "$prefix/db-$1.sqlite" "$2" "$3" "$4" "$warmup" "$count")
    echo "$out" >>"$prefix/runs.log"
    echo "$out" | sed -E 's/.*microseconds_per_lookup=([0-9.]+).*/\1/'
}

declare -A times
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds"
    for mode in $modes; do
        for name in "${names[@]}"; do
            IFS=: read -r rows users apps <<<"$name"
            times["$rows $mode"]+="$(time_lookups "$rows" "$users" "$apps" "$mode") "
        done
    done
done

first_rows="${names[0]%%:*}"
echo
printf '%-10s %-10s %-18s %-22s %s\n' rows mode "µs per lookup" "ratio to $first_rows rows" "(the rounds)"
for mode in $modes; do
    read -ra values <<<"${times["$first_rows $mode"]}"
    base=$(median "${values[@]}")
    for name in "${names[@]}"; do
        rows="${name%%:*}"
        read -ra values <<<"${times["$rows $mode"]}"
        value=$(median "${values[@]}")
        printf '%-10s %-10s %-18s %-22s (%s)\n' "$rows" "$mode" "$value" \
            "$(awk -v a="$value" -v b="$base" 'BEGIN { printf "%.2f", a / b }')" "${times["$rows $mode"]% }"
    done
done
grep -q 'anon_huge_kb=[1-9]' "$prefix/runs.log" || [[ " $modes " != *" cache-thp "* ]] \
    || echo "note: cache-thp got no huge pages (see /sys/kernel/mm/transparent_hugepage/enabled)"

# The misses (cachegrind summary line LABEL) the MISS_COUNT lookups added at ROWS rows, per lookup.
misses_per_lookup() { # rows label
    local with without
    with=$(awk -v l="$2" 'index($0, l) { gsub(",", "", $4); print $4 }' "$prefix/cachegrind-$1-$miss_count.log")
    without=$(awk -v l="$2" 'index($0, l) { gsub(",", "", $4); print $4 }' "$prefix/cachegrind-$1-0.log")
    awk -v a="$with" -v b="$without" -v n="$miss_count" 'BEGIN { printf "%.1f", (a - b) / n }'
}

if [ "$misses" = 1 ]; then
    l3=$(lscpu -B 2>/dev/null | awk '/^L3 cache:/ { print $3; exit }')
    l3="${l3:-33554432}"
    ll=1
    while [ $((ll * 2)) -le "$l3" ]; do ll=$((ll * 2)); done
    echo
    echo "== cachegrind: data-cache misses per lookup (mmap; simulated last level $((ll >> 20)) MiB, 16-way)"
    printf '%-10s %-22s %s\n' rows "first-level misses" "last-level misses"
    for name in "${names[@]}"; do
        IFS=: read -r rows users apps <<<"$name"
        for n in 0 "$miss_count"; do
            valgrind --tool=cachegrind --cache-sim=yes --LL="$ll,16,64" --cachegrind-out-file=/dev/null \
                "$prefix/lookup" "$prefix/db-$rows.sqlite" "$users" "$apps" mmap "$miss_warmup" "$n" \
                >/dev/null 2>"$prefix/cachegrind-$rows-$n.log"
        done
        printf '%-10s %-22s %s\n' "$rows" "$(misses_per_lookup "$rows" 'D1  misses:')" \
            "$(misses_per_lookup "$rows" 'LLd misses:')"
    done
fi
