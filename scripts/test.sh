#!/usr/bin/env bash
# Runs every test: builds everything, validates openapi.yaml, runs the swift-testing suites
# (pure, in-process and live tiers), then a short fuzzing run of the HTTP parser.
# FUZZ_SECONDS (default 20) sets the fuzzing time; 0 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== build"
swift build --build-tests

echo "== openapi.yaml"
scripts/validate-openapi.sh

echo "== deployment files (Dockerfile, compose, Kubernetes, systemd)"
scripts/validate-deploy.sh

echo "== swift test"
swift test --skip-build

fuzz_seconds="${FUZZ_SECONDS:-20}"
if [ "$fuzz_seconds" != "0" ] && [ -x fuzz/run-parser-fuzzer.sh ]; then
    echo "== fuzz (${fuzz_seconds}s)"
    fuzz/run-parser-fuzzer.sh "$fuzz_seconds"
fi
