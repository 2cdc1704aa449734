#!/usr/bin/env bash
# Runs schemathesis (property-based API testing from openapi.yaml) against a live server.
# Usage: scripts/schemathesis.sh [--max-examples N | --long] [--seed S]
#        scripts/schemathesis.sh --install   (only install the pinned schemathesis; setup.sh)
#
# Builds permission-server (debug), starts it on 127.0.0.1 port 0 with a temporary database,
# a bootstrap admin key and a failed-authentication allowance large enough that the bursts of
# bad keys schemathesis sends get the 401 it checks for rather than 429 (the limiter itself is
# tested by PermissionAPITests and EndToEndTests), reads the port from its log, makes a few
# prompts (see below), runs every phase (examples, coverage, fuzzing, stateful over the
# openapi.yaml links) with every check and a fixed seed, prints how many calls were made, stops
# the server by PID and exits non-zero on any failure or on fewer than 1,000 calls.
# SCHEMATHESIS_VENV (default .build-schemathesis/venv) holds the pinned schemathesis install;
# SCHEMATHESIS_SCRATCH is the build's scratch path; SCHEMATHESIS_SERVER a prebuilt binary.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

version="4.32.5"
max_examples=20
seed=20261122
install_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --install) install_only=1; shift ;;
        --max-examples) max_examples="$2"; shift 2 ;;
        --long) max_examples=400; shift ;;
        --seed) seed="$2"; shift 2 ;;
        *) echo "usage: $0 [--max-examples N | --long] [--seed S] | --install" >&2; exit 2 ;;
    esac
done

venv="${SCHEMATHESIS_VENV:-$root/.build-schemathesis/venv}"
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$version"; then
    echo "== installing schemathesis $version into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "schemathesis==$version"
fi
if [ "$install_only" -eq 1 ]; then
    "$venv/bin/schemathesis" --version
    exit 0
fi

server="${SCHEMATHESIS_SERVER:-}"
if [ -z "$server" ]; then
    scratch="${SCHEMATHESIS_SCRATCH:-.build-schemathesis}"
    echo "== build permission-server"
    swift build --scratch-path "$scratch" --product permission-server
    server="$(swift build --scratch-path "$scratch" --show-bin-path)/permission-server"
fi

work="$(mktemp -d)"
admin_key="pk_5c4e0a1b2c3d4e5f_c2NoZW1hdGhlc2lzIGJvb3RzdHJhcCBhZG1pbiBrZXk"  # pk_<16 hex id>_<43 base64url>, the SPEC §6 key format
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid"
        for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid"; fi
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

echo "== start server"
PERMISSION_BOOTSTRAP_ADMIN_KEY="$admin_key" "$server" serve --host 127.0.0.1 --port 0 \
    --database "$work/permissions.sqlite" --log-level notice --max-body-bytes 65536 \
    --auth-failure-burst 1000000 \
    >"$work/server.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 1 100); do
    port="$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$work/server.log" | head -n 1)"
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "server exited" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { cat "$work/server.log" >&2; echo "no port in the server log" >&2; exit 1; }
echo "server pid $server_pid on port $port"

# Prompts for the prompt operations to read and answer: a prompt needs an app with its purpose
# strings first, which no generated request makes, so without these GET /v1/prompts/{id} and
# its decision only ever met 404. One location request per seed user, for an app of their own;
# their ids go to a dictionary that scripts/schemathesis.toml draws half of those operations'
# ids from. The reset examples (`{"service": "all"}`) cancel them early in the run, so the
# decisions meet 409 prompt-not-pending and the reads a cancelled prompt: the happy path of a
# decision is left to the Swift tests.
base="http://127.0.0.1:$port"
auth=(-H "Authorization: Bearer $admin_key" -H "Content-Type: application/json")
curl -fsS -o /dev/null -X PUT "${auth[@]}" "$base/v1/apps/com.example.seed" -d '{"name": "Seed", "purposeStrings": {
    "NSLocationWhenInUseUsageDescription": "Your location is used to show nearby stops."}}'
: >"$work/prompt-ids.dict"
for user in seed-a seed-b seed-c seed-d; do
    curl -fsS -X POST "${auth[@]}" "$base/v1/users/$user/apps/com.example.seed/authorizations/location/request" \
        -d '{"level": "whenInUse"}' \
        | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["prompt"]["id"]))' >>"$work/prompt-ids.dict"
done
echo "== seeded $(wc -l <"$work/prompt-ids.dict") pending prompts"
cp scripts/schemathesis.toml "$work/schemathesis.toml"  # beside the dictionary it names

echo "== schemathesis $version: all checks, all phases, $max_examples examples per operation, seed $seed"
status=0
"$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" run openapi.yaml --url "$base" \
    --header "Authorization: Bearer $admin_key" \
    --checks all --phases examples,coverage,fuzzing,stateful \
    --max-examples "$max_examples" --seed "$seed" --workers 1 \
    --request-timeout 10 --suppress-health-check too_slow,filter_too_much \
    --report har --report-har-path "$work/calls.har" || status=$?

calls="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["log"]["entries"]))' "$work/calls.har")"
echo "== schemathesis made $calls calls (exit $status)"
if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "the server died during the run" >&2
    tail -n 50 "$work/server.log" >&2
    status=1
fi
if [ "$status" -eq 0 ] && [ "$calls" -lt 1000 ]; then
    echo "fewer than 1,000 calls; raise --max-examples" >&2
    status=1
fi
exit "$status"
