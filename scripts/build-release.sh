#!/usr/bin/env bash
# The release build of the shipped binaries, as docker/Dockerfile and the benches in bench/ make
# them: `swift build -c release` with the Swift runtime linked in (--static-swift-stdlib), and the
# functions a status read and a durable write run laid out next to each other at the start of the
# program's code, in the order docker/hot-text.order lists them (each function in its own section,
# -function-sections, and lld's --symbol-ordering-file). At a low load a request finds its code
# out of the CPU's caches and TLB; together, the status read's code lies on about half as many
# pages and a tenth fewer cache lines (bench/RESULTS.md, "Status reads, one change at a time").
# A function the list names that the program no longer has is skipped; one it does not name keeps
# its place after the listed ones. bench/hot-text.sh writes the list anew from a release binary.
# SwiftPM does not compile again when only these flags change: build into a scratch path of its
# own (--scratch-path), or a clean one, never over objects `swift build -c release` made.
#
# Usage: scripts/build-release.sh [swift build options...]   e.g. --product permission-server
# Prints, after a build of permission-server, how many of the listed functions the binary has.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
order="$root/docker/hot-text.order"
[ -f "$order" ] || { echo "missing $order" >&2; exit 1; }
command -v ld.lld >/dev/null || [ -x "$(dirname "$(readlink -f "$(command -v swift)")")/ld.lld" ] ||
    { echo "the Swift toolchain's ld.lld is missing (it ships with Swift 6 toolchains)" >&2; exit 1; }

swift build -c release --static-swift-stdlib \
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
    -Xswiftc -use-ld=lld -Xlinker "--symbol-ordering-file=$order" -Xlinker --no-warn-symbol-ordering \
    "$@"

# What the layout still covers: the listed functions the binary defines.
if [[ " $* " == *" permission-server "* ]] && command -v nm >/dev/null; then
    bin="$(swift build -c release "$@" --show-bin-path 2>/dev/null | tail -1)"
    if [ -x "$bin/permission-server" ]; then
        listed=$(grep -cv '^$' "$order")
        found=$(nm --defined-only "$bin/permission-server" | awk '{ print $3 }' | sort -u |
            comm -12 - <(grep -v '^$' "$order" | sort -u) | wc -l)
        echo "hot-text: $found of $listed listed functions in permission-server (bench/hot-text.sh lists them anew)" >&2
    fi
fi
