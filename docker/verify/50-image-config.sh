# Stage 50: the image's configuration (image-config.py), no curl and no shared Swift runtime in it,
# and the server's hot functions laid out first (scripts/build-release.sh).
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
# The first function docker/hot-text.order lists opens the program's code.
in_image cat /usr/local/bin/permission-server >"$tmp/permission-server"
# (awk reads to the end: an early exit would end readelf and nm with SIGPIPE, and the script.)
text_start=$(readelf -SW "$tmp/permission-server" |
    awk '!found { for (i = 1; i < NF; i++) if ($i == ".text") { print $(i + 2); found = 1 } }')
first=$(grep -m1 -v '^$' "$context/docker/hot-text.order")
first_at=$(nm --defined-only "$tmp/permission-server" | awk -v name="$first" '!found && $3 == name { print $1; found = 1 }')
if [ -z "$text_start" ] || [ "$first_at" != "$text_start" ]; then
    fail "the server's code does not open with $first (at ${first_at:-nowhere}, .text at ${text_start:-?}): not built by scripts/build-release.sh?"
fi
echo "   code: opens with $first, $(grep -cv '^$' "$context/docker/hot-text.order") functions laid out first"
rm -f "$tmp/permission-server"
echo "   /data: $(in_image stat -c '%u:%g %a' /data)"
done_step
