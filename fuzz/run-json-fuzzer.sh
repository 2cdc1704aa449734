#!/usr/bin/env bash
# Builds the JSON request-body fuzzer (libFuzzer + AddressSanitizer) and runs it: StrictJSON.parse
# and WireDecoder.decode for every request body type; a decoded value must re-encode and decode
# to an equal value. Usage: fuzz/run-json-fuzzer.sh [SECONDS]   (default 30)
# Exits non-zero when the fuzzer finds a crash, a hang or a broken property; the input is left
# in fuzz/corpus-crashes/.
set -euo pipefail
seconds="${1:-30}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bin="fuzz/json-fuzzer.bin"
corpus="fuzz/corpus-json"
crashes="fuzz/corpus-crashes"
mkdir -p "$corpus" "$crashes"

# PermissionWire and the harness form one module, over the ByteText module fuzz/lib.sh builds.
# shellcheck source=fuzz/lib.sh
source fuzz/lib.sh
modules="$(mktemp -d)"
trap 'rm -rf "$modules"' EXIT
# shellcheck disable=SC2046 # the module path and object are two words on purpose
swiftc "${swift_fuzz_flags[@]}" -module-name PermissionWire Sources/PermissionWire/*.swift fuzz/JSONFuzzer.swift \
    $(build_bytetext "$modules") -o "$bin"

cp -n fuzz/seeds-json/* "$corpus"/ 2>/dev/null || true
"$bin" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=2048 \
    -dict=fuzz/json.dict -artifact_prefix="$crashes/" -print_final_stats=1
