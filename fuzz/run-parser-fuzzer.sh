#!/usr/bin/env bash
# Builds the HTTP/1.1 parser fuzzer (libFuzzer + AddressSanitizer) and runs it.
# Usage: fuzz/run-parser-fuzzer.sh [SECONDS]   (default 30)
# Exits non-zero when the fuzzer finds a crash, a hang or a broken property; the input is left
# in fuzz/corpus-crashes/.
set -euo pipefail
seconds="${1:-30}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bin="fuzz/parser-fuzzer.bin"
corpus="fuzz/corpus-parser"
crashes="fuzz/corpus-crashes"
mkdir -p "$corpus" "$crashes"

# Only the HTTP1 sources (the rest of HTTPCore imports Logging), over the ByteText module
# fuzz/lib.sh builds.
# shellcheck source=fuzz/lib.sh
source fuzz/lib.sh
modules="$(mktemp -d)"
trap 'rm -rf "$modules"' EXIT
# shellcheck disable=SC2046 # the module path and object are two words on purpose
swiftc "${swift_fuzz_flags[@]}" -module-name HTTPCore Sources/HTTPCore/HTTP1/*.swift fuzz/ParserFuzzer.swift \
    $(build_bytetext "$modules") -o "$bin"

cp -n fuzz/seeds-http/* "$corpus"/ 2>/dev/null || true
"$bin" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -dict=fuzz/http.dict -artifact_prefix="$crashes/" -print_final_stats=1
