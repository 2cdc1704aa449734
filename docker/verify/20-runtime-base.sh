# Stage 20: the runtime stand-in for debian:bookworm-slim, a debootstrapped bookworm imported as an image.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "runtime stand-in: debootstrap bookworm → $base_image"
mirror="${DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
    mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | grep -v '^[[:space:]]*#' | grep -oE 'https?://[^ ]+/debian/?( |$)' | head -1 | tr -d ' ')" || true
fi
mirror="${mirror:-http://deb.debian.org/debian}"
if buildah inspect --type image "$base_image" >/dev/null 2>&1; then
    echo "   cached"
elif [ ! -d "$work/rootfs/usr" ]; then
    echo "   debootstrap from $mirror"
    rm -rf "$work/rootfs.partial"
    mkdir -p "$work"
    debootstrap --variant=minbase bookworm "$work/rootfs.partial" "$mirror" >"$tmp/debootstrap.log" 2>&1 \
        || { tail -n 20 "$tmp/debootstrap.log" >&2; fail "debootstrap"; }
    mv "$work/rootfs.partial" "$work/rootfs"
fi
if ! buildah inspect --type image "$base_image" >/dev/null 2>&1; then
    echo "   podman import"
    tar -C "$work/rootfs" -c . | podman import - "$base_image" >/dev/null 2>"$tmp/import.log" \
        || { cat "$tmp/import.log" >&2; fail "podman import"; }
fi
done_step
