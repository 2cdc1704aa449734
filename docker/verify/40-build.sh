# Stage 40: buildah bud of the unchanged docker/Dockerfile with the two stand-ins as its base images.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "build docker/Dockerfile (context $context)"
if [ "$reuse_image" -eq 1 ] && buildah inspect --type image "$app_image" >/dev/null 2>&1; then
    echo "   reusing the kept $app_image"
else
    # A kept image of an earlier run would be left untagged by the new build: remove it first.
    if buildah inspect --type image "$app_image" >/dev/null 2>&1; then buildah rmi "$app_image" >/dev/null; fi
    buildah bud --isolation chroot --pull=never --format docker \
        --build-arg "BUILDER_IMAGE=$builder_image" --build-arg "RUNTIME_IMAGE=$base_image" \
        "${mounts[@]}" -f "$repo/docker/Dockerfile" -t "$app_image" "$context" >"$tmp/build.log" 2>&1 \
        || { tail -n 60 "$tmp/build.log" >&2; fail "buildah bud"; }
    grep -E '^(STEP|COMMIT)|Build of product' "$tmp/build.log" | sed 's/^/   /'
fi
done_step
