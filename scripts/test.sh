#!/usr/bin/env bash
# Runs every test: builds everything, validates openapi.yaml, runs the swift-testing suites
# (pure, in-process and live tiers), then short fuzzing runs of the HTTP parser and the JSON
# request bodies; RUN_SCHEMATHESIS=1 adds schemathesis against a live server.
# FUZZ_SECONDS (default 20, per fuzzer) sets the fuzzing time; 0 skips it.
# Last, as root, docker/verify-image.sh builds docker/Dockerfile without a Docker engine and runs
# the image, also on a read-only root (3.5 to 8 minutes, mostly the release build in the image);
# VERIFY_IMAGE=0 skips it, and without root it is skipped with a note.
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

# Hostile input (issue 4): schemathesis against a live server from openapi.yaml, all checks,
# >= 1,000 generated calls, zero failures. Not yet part of the default run: its last run
# (1,615 calls) still had 13 failures (see the README, "Hostile-input testing"), and a failing
# step here would hide every other result. RUN_SCHEMATHESIS=1 runs it.
if [ "${RUN_SCHEMATHESIS:-0}" = "1" ]; then
    echo "== schemathesis"
    scripts/schemathesis.sh
fi

fuzz_seconds="${FUZZ_SECONDS:-20}"
if [ "$fuzz_seconds" != "0" ]; then
    echo "== fuzz: HTTP parser (${fuzz_seconds}s)"
    fuzz/run-parser-fuzzer.sh "$fuzz_seconds"
    echo "== fuzz: JSON request bodies (${fuzz_seconds}s)"
    fuzz/run-json-fuzzer.sh "$fuzz_seconds"
fi

# Container image (issue 6): the real Dockerfile built with buildah and run as the manifests run it.
if [ "${VERIFY_IMAGE:-1}" = "0" ]; then
    echo "== container image: skipped (VERIFY_IMAGE=0)"
elif [ "$(id -u)" -ne 0 ]; then
    echo "== container image: skipped: needs root (debootstrap, buildah --isolation chroot, unshare)"
else
    echo "== container image (docker/verify-image.sh)"
    docker/verify-image.sh
fi
