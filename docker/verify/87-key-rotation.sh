# Stage 87: the audit server key rotated as operations.md tells a container's operator (not with --probes-only).
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
# On the stopped database, in the image: a new key made with the image's own tools, `audit
# rotate-key`, the retired key copied out and the new one moved to where the server reads it; then
# the retired key opens nothing (78), and the server starts again on the new one as the image runs
# it and reads the audit log of a user whose key was wrapped again.
if [ "$probes_only" -eq 0 ]; then
    step "audit server key rotation on the stopped database (operations.md, \"Rotating the audit key\")"
    in_server() { buildah run --isolation chroot "$server_ctr" -- "$@"; }
    in_server sh -c 'umask 077 && head -c 32 /dev/urandom | base64 > /data/new.audit-key' || fail "making the new key"
    in_server permission-server audit rotate-key --new-key-file /data/new.audit-key >"$tmp/rotate.log" 2>&1 ||
        fail "audit rotate-key: $(cat "$tmp/rotate.log")"
    echo "   audit rotate-key --new-key-file /data/new.audit-key → 0"
    in_server cat /data/permissions.sqlite.audit-key >"$tmp/retired.audit-key" || fail "copying the retired key out"
    in_server mv /data/new.audit-key /data/permissions.sqlite.audit-key || fail "moving the new key in place"
    [ "$(in_server stat -c '%a %u' /data/permissions.sqlite.audit-key)" = "600 10001" ] ||
        fail "the new key is not 0600 and the server's: $(in_server stat -c '%a %u' /data/permissions.sqlite.audit-key)"
    retired_rc=0
    buildah run --isolation chroot --env "PERMISSION_AUDIT_KEY=$(cat "$tmp/retired.audit-key")" "$server_ctr" -- \
        permission-server keys list >"$tmp/retired.log" 2>&1 || retired_rc=$?
    [ "$retired_rc" -eq 78 ] || fail "the retired key was not refused with 78 ($retired_rc): $(cat "$tmp/retired.log")"
    echo "   the retired key → 78"
    buildah run --isolation chroot \
        --env PERMISSION_HOST=127.0.0.1 --env "PERMISSION_PORT=$port" --env PERMISSION_LOG_FORMAT=json \
        "$server_ctr" -- "${command[@]}" >"$tmp/rotated-server.log" 2>&1 &
    run_pid=$!
    wait_ready "$base_url" "$run_pid" " on the new key"
    server_pid="$(find_server)" || fail "cannot find the server process under buildah run ($run_pid)"
    expect_status 200 GET "/v1/audit?user=u42"
    grep -q '"audit.key.rotated"' <(curl -sS --max-time 10 -H "Authorization: Bearer $admin_key" "$base_url/v1/audit?action=audit.key.rotated") ||
        fail "no audit.key.rotated entry"
    echo "   served on the new key: u42's audit log read, one audit.key.rotated entry"
    kill -TERM "$server_pid"
    for _ in $(seq 1 100); do
        kill -0 "$run_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$run_pid" 2>/dev/null && fail "the server on the new key did not exit within 10s of SIGTERM"
    stop_rc=0
    wait "$run_pid" || stop_rc=$?
    run_pid=""
    server_pid=""
    [ "$stop_rc" -eq 0 ] || fail "the server on the new key exited $stop_rc after SIGTERM"
    done_step
fi
