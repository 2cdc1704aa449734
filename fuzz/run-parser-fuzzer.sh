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

# Only the HTTP1 sources: the rest of HTTPCore imports Logging.
swiftc -sanitize=fuzzer,address -parse-as-library -O -wmo -swift-version 6 \
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
    -module-name HTTPCore -package-name permission_service Sources/HTTPCore/HTTP1/*.swift fuzz/ParserFuzzer.swift -o "$bin"

cp -n fuzz/seeds-http/* "$corpus"/ 2>/dev/null || true
exec "$bin" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -dict=fuzz/http.dict -artifact_prefix="$crashes/" -print_final_stats=1
