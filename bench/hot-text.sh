#!/usr/bin/env bash
# Writes docker/hot-text.order anew: the functions of the release permission-server that a status
# read and a durable write run, hottest first, in the order scripts/build-release.sh lays them out
# at the start of the program's code.
#   - builds permission-server with scripts/build-release.sh into .build-bench-release, linked
#     again with lld's map of the program (-Map);
#   - runs bench/instructions.sh status and then write with HOT_FUNCTIONS (callgrind): the status
#     read's functions first, then the write's that the read does not run;
#   - keeps the functions the map shows in a section of their own (bench/hot-functions.py
#     movable): the linker moves sections, and one shared by many functions would come along
#     whole.
# Run it when the hot path changed (renamed or new functions are what the list misses:
# scripts/build-release.sh prints how many of the listed functions the binary has), then rebuild
# and compare with bench/read-ab.sh and bench/instructions.sh.
# Needs what bench/instructions.sh needs (valgrind, wrk, curl, python3, sqlite3), and binutils.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
prefix="$(mktemp -d /tmp/hot-text.XXXXXX)"
trap 'rm -rf "$prefix"' EXIT
scratch="$root/.build-bench-release"

echo "== building permission-server (scripts/build-release.sh) with the linker's map" >&2
# SwiftPM links again only when an input changed: the map needs a link.
rm -f "$scratch/release/permission-server"
(cd "$root" && scripts/build-release.sh --scratch-path "$scratch" --product permission-server \
    -Xlinker "-Map=$prefix/permission-server.map" >/dev/null)
# Valgrind 3.19 cannot read the release binary's DWARF; the symbols stay.
strip --strip-debug -o "$prefix/permission-server" "$scratch/release/permission-server"

HOT_FUNCTIONS="$prefix/hot.order" "$here/instructions.sh" status "$prefix/permission-server"
HOT_FUNCTIONS="$prefix/hot.order" "$here/instructions.sh" write "$prefix/permission-server" |
    awk '/^write:|functions added|writes a commit/'
python3 "$here/hot-functions.py" movable "$prefix/permission-server.map" <"$prefix/hot.order" >"$prefix/hot-text.order"
[ -s "$prefix/hot-text.order" ] || { echo "no functions found" >&2; exit 1; }
mv "$prefix/hot-text.order" "$root/docker/hot-text.order"
echo "docker/hot-text.order: $(wc -l <"$root/docker/hot-text.order") functions"
