# Stage 10: the host tools the check needs (installed when missing) and the Swift toolchain on PATH.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "tools"
missing=()
for tool in debootstrap:debootstrap buildah:buildah podman:podman curl:curl python3:python3 git:git \
    unshare:util-linux nsenter:util-linux setpriv:util-linux findmnt:util-linux nm:binutils readelf:binutils; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
python3 -c 'import yaml' 2>/dev/null || missing+=(python3-yaml)
if [ ${#missing[@]} -gt 0 ]; then
    echo "   installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
swift_bin="$(command -v swift)" || fail "no swift on PATH: the builder stand-in uses this machine's toolchain"
toolchain="$(dirname "$(dirname "$(dirname "$(readlink -f "$swift_bin")")")")"
swift_version="$("$swift_bin" --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)"
echo "   toolchain $toolchain (Swift $swift_version)"
done_step
