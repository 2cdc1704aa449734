#!/usr/bin/env bash
# Runs every test: checks the Swift formatting, builds everything, validates openapi.yaml, runs the swift-testing suites
# (pure, in-process and live tiers), the consent pages' browser tests (headless Chromium),
# schemathesis against a live server, then short fuzzing runs of the HTTP parser and the JSON
# request bodies.
# BROWSER_TESTS=0 skips the browser tests; SCHEMATHESIS=0 skips schemathesis; FUZZ_SECONDS
# (default 20, per fuzzer) sets the fuzzing time, 0 skips it.
# Last, as root, docker/verify-image.sh builds docker/Dockerfile without a Docker engine and runs
# the image, also on a read-only root (3.5 to 8 minutes, mostly the release build in the image);
# VERIFY_IMAGE=0 skips it, and without root it is skipped with a note.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== format (swift format lint, .swift-format)"
scripts/check-format.sh

echo "== build"
swift build --build-tests

echo "== openapi.yaml"
scripts/validate-openapi.sh

echo "== deployment files (Dockerfile, compose, Kubernetes, systemd)"
scripts/validate-deploy.sh

echo "== swift test"
swift test --skip-build

# The same API suite on the PostgreSQL store: each TestApp in a fresh database of a
# real PostgreSQL the tests start themselves.
echo "== swift test: the API suite on PostgreSQL"
PERMISSION_TEST_STORE=postgres swift test --skip-build --filter PermissionAPITests

# The consent pages in a real browser: headless Chromium driven by Selenium against
# the permission-server just built, with axe-core; scripts/setup.sh installs what they need.
if [ "${BROWSER_TESTS:-1}" != "0" ]; then
    echo "== browser tests: the consent pages in headless Chromium (Tests/browser)"
    python3 Tests/browser/run.py --quiet --server "$(swift build --show-bin-path)/permission-server"
else
    echo "== browser tests: skipped (BROWSER_TESTS=0)"
fi

# Hostile input: schemathesis against a live server from openapi.yaml, all checks
# and phases, >= 1,000 generated calls, zero failures (see docs/testing.md, "Hostile-input
# testing"). It runs the permission-server just built.
if [ "${SCHEMATHESIS:-1}" != "0" ]; then
    echo "== schemathesis"
    SCHEMATHESIS_SERVER="$(swift build --show-bin-path)/permission-server" scripts/schemathesis.sh
fi

fuzz_seconds="${FUZZ_SECONDS:-20}"
if [ "$fuzz_seconds" != "0" ]; then
    echo "== fuzz: HTTP parser (${fuzz_seconds}s)"
    fuzz/run-parser-fuzzer.sh "$fuzz_seconds"
    echo "== fuzz: JSON request bodies (${fuzz_seconds}s)"
    fuzz/run-json-fuzzer.sh "$fuzz_seconds"
fi

# Container image: the real Dockerfile built with buildah and run as the manifests run it.
if [ "${VERIFY_IMAGE:-1}" = "0" ]; then
    echo "== container image: skipped (VERIFY_IMAGE=0)"
elif [ "$(id -u)" -ne 0 ]; then
    echo "== container image: skipped: needs root (debootstrap, buildah --isolation chroot, unshare)"
else
    echo "== container image (docker/verify-image.sh)"
    docker/verify-image.sh
fi
