# Stage 50: the image's configuration (image-config.py), no curl and no shared Swift runtime in it.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "image configuration"
buildah inspect --type image "$app_image" >"$tmp/image.json"
python3 "$verify/image-config.py" "$tmp/image.json" "$tmp/command" || fail "image configuration"
mapfile -d '' -t command <"$tmp/command"
tool_ctr="$(buildah from --pull=never --name "permission-verify-tools-$run_id" "$app_image")"
if in_image sh -c 'command -v curl' >/dev/null 2>&1; then fail "the runtime image contains curl"; fi
in_image ldd /usr/local/bin/permission-server >"$tmp/ldd.txt"
grep -q 'not found' "$tmp/ldd.txt" && { cat "$tmp/ldd.txt" >&2; fail "unresolved shared library"; }
grep -q 'libswiftCore' "$tmp/ldd.txt" && fail "the Swift runtime is linked dynamically"
echo "   links: $(awk '{print $1}' "$tmp/ldd.txt" | grep -v vdso | tr '\n' ' ')"
echo "   /data: $(in_image stat -c '%u:%g %a' /data)"
done_step
