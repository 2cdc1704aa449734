# Stage 30: the builder stand-in for swift:6.3-bookworm: the toolchain's Debian dependencies, git rules.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "builder stand-in: Swift $swift_version toolchain dependencies and package mirror"
mkdir -p "$tmp/builder"
: >"$tmp/builder/gitconfig"
mounts=(--volume "$toolchain:$toolchain:ro")
# Every url.<local folder>.insteadOf rule of this machine's git (the package mirror) goes into the
# stand-in's /etc/gitconfig, and the folder is bind-mounted read-only at the same path.
while read -r key value; do
    base="${key#url.}"
    base="${base%.insteadof}"
    git config -f "$tmp/builder/gitconfig" --add "url.$base.insteadOf" "$value"
    dir="${base%/}"
    if [ -d "$dir" ] && [[ " ${mounts[*]} " != *" $dir:"* ]]; then
        mounts+=(--volume "$dir:$dir:ro")
    fi
done < <(git config --get-regexp '^url\..*\.insteadof$' || true)
cat >"$tmp/builder/Containerfile" <<EOF
FROM $base_image
RUN export DEBIAN_FRONTEND=noninteractive && apt-get update -q && \\
    apt-get install -y -q --no-install-recommends binutils gcc git libc6-dev libstdc++-12-dev \\
        libcurl4-openssl-dev libedit-dev libpq-dev libsqlite3-dev libncurses-dev libpython3-dev libxml2-dev \\
        pkg-config uuid-dev tzdata ca-certificates zlib1g-dev && \\
    rm -rf /var/lib/apt/lists/*
COPY gitconfig /etc/gitconfig
ENV PATH=$toolchain/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
EOF
builder_hash="$(cat "$tmp/builder/Containerfile" "$tmp/builder/gitconfig" | sha256sum | cut -c1-12)"
builder_image="localhost/permission-verify/swift-builder:$swift_version-$builder_hash"
if ! buildah inspect --type image "$builder_image" >/dev/null 2>&1; then
    buildah bud --isolation chroot --pull=never -t "$builder_image" "$tmp/builder" >"$tmp/builder.log" 2>&1 \
        || { tail -n 30 "$tmp/builder.log" >&2; fail "builder stand-in"; }
fi
echo "   $builder_image; mounts: ${mounts[*]}"
done_step
