#!/usr/bin/env bash
# shellcheck disable=SC2034  # the stages (docker/verify/*.sh) read the variables set here
# Builds docker/Dockerfile and checks the image on a machine that has no Docker engine and cannot
# pull images (Debian 12, root): the two base images are stood in by local ones (a debootstrapped
# bookworm; a builder with this machine's Swift toolchain and package mirror bind-mounted
# read-only), the unchanged Dockerfile is built with `buildah bud --isolation chroot`, then the
# server is run inside the image and driven with curl, once as the image runs it and once on a
# read-only root as deploy/compose.yaml and deploy/kubernetes run it.
#
# The checks are the stages docker/verify/NN-*.sh, sourced in order (each begins with a line
# saying what it checks; --help lists them), sharing docker/verify/lib.sh.
#
# The built image and every working container are removed at the end. The debootstrap rootfs and
# the two stand-in base images are kept as a cache under $VERIFY_IMAGE_DIR and the local image
# store (localhost/permission-verify/*); the rootfs is bootstrapped only while the runtime stand-in
# image is missing. --purge removes them as well. Mounts of the read-only run live in their own
# namespace and end with it; every exit path stops the processes this script started (by PID) and
# removes its containers.
#
# Usage: docker/verify-image.sh [--probes-only] [--keep-image] [--reuse-image] [--purge] [--context DIR]
#   --probes-only  only /healthz, /readyz, the healthcheck and SIGTERM (no API walkthrough)
#   --keep-image   keep the built image (localhost/permission-server:verify)
#   --reuse-image  skip the build when a kept image exists (implies --keep-image)
#   --purge        also remove the cached rootfs and stand-in base images at the end
#   --context DIR  build context (default: the repository root)
# Environment: VERIFY_IMAGE_DIR (cache, default .build-image-verify), DEBIAN_MIRROR.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${VERIFY_IMAGE_DIR:-$repo/.build-image-verify}"
context="$repo"
probes_only=0
keep_image=0
reuse_image=0
purge=0
while [ $# -gt 0 ]; do
    case "$1" in
        --probes-only) probes_only=1 ;;
        --keep-image) keep_image=1 ;;
        --reuse-image) reuse_image=1; keep_image=1 ;;
        --purge) purge=1 ;;
        --context) context="$(cd "$2" && pwd)"; shift ;;
        -h|--help)
            sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
            echo "Stages:"
            for stage in "$repo"/docker/verify/[0-9][0-9]-*.sh; do sed -n '1s/^# /  /p' "$stage"; done
            exit 0 ;;
        *) echo "verify-image: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

if [ "$(id -u)" -ne 0 ]; then
    echo "verify-image: needs root (debootstrap and buildah --isolation chroot)" >&2
    exit 2
fi

base_image="localhost/permission-verify/debian:bookworm"
app_image="localhost/permission-server:verify"
run_id="$$"
server_ctr=""
tool_ctr=""
run_pid=""
server_pid=""
ro_ctr=""
ro_unshare_pid=""
ro_server_pid=""
tmp="$(mktemp -d)"
server_log="$tmp/server.log"
started=$SECONDS
step_started=$SECONDS
verify="$repo/docker/verify"
# shellcheck disable=SC1091  # docker/verify/*.sh are checked on their own
source "$verify/lib.sh"
trap cleanup EXIT

for stage in "$verify"/[0-9][0-9]-*.sh; do
    # shellcheck disable=SC1090
    source "$stage"
done

echo "verify-image: OK"
