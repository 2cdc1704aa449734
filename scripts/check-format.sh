#!/usr/bin/env bash
# Checks that every Swift file is formatted as .swift-format says (swift-format, the
# toolchain's own `swift format`): one indentation and wrapping style across targets. Prints the
# places that differ and exits 1; `scripts/check-format.sh --fix` rewrites them in place.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Plugins bench/Package.swift bench/Sources bench/peer/Package.swift bench/peer/Sources fuzz)
if [ "${1:-}" = "--fix" ]; then
    swift format format --in-place --recursive --parallel "${paths[@]}"
else
    swift format lint --strict --recursive --parallel "${paths[@]}"
fi
