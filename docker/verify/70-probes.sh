# Stage 70: /healthz, /readyz, and the HEALTHCHECK command against the server and a closed port.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "probes and the image's healthcheck command"
expect_status 200 GET /healthz "" ""
expect_status 200 GET /readyz "" ""
buildah run --isolation chroot --env "PERMISSION_PORT=$port" "$server_ctr" -- permission-server healthcheck \
    || fail "permission-server healthcheck exited non-zero against a ready server"
echo "   permission-server healthcheck → 0"
dead_port="$(free_port)"
if buildah run --isolation chroot "$server_ctr" -- permission-server healthcheck --port "$dead_port" --timeout 2 \
    >/dev/null 2>&1; then
    fail "permission-server healthcheck exited 0 with nothing listening"
fi
echo "   permission-server healthcheck --port <closed> → non-zero"
done_step
