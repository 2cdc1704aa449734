# Stage 95: on the read-only root: EROFS on /, the writable mounts, the API, backup while serving, a clean stop.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "checks on the read-only root"
if in_container touch /permission-verify-probe 2>"$tmp/probe.err"; then fail "the root filesystem is writable"; fi
grep -q 'Read-only file system' "$tmp/probe.err" || fail "writing / failed for another reason: $(cat "$tmp/probe.err")"
for spec in /data "${tmp_mounts[@]}"; do
    probe="${spec%%:*}/permission-verify-probe"
    in_container touch "$probe" || fail "${spec%%:*} is not writable for 10001"
    in_container rm "$probe"
done
echo "   / is read-only (EROFS); writable for 10001: /data${tmp_mounts[*]:+ }${tmp_mounts[*]%%:*}"
base_url="$ro_url" admin_key="$ro_key"
in_container permission-server healthcheck || fail "permission-server healthcheck on the read-only root"
echo "   permission-server healthcheck → 0"
expect_status 200 GET /v1/services
expect_status "200 201" PUT "/v1/apps/com.example.readonly" \
    '{"name": "Read-only", "purposeStrings": {"NSCameraUsageDescription": "Scan tickets with the camera."}}'
expect_status 202 POST "/v1/users/u7/apps/com.example.readonly/authorizations/camera/request" '{"level": "full"}'
in_container permission-server backup --to /data/backup.sqlite >/dev/null || fail "backup --to /data while serving"
[ -s "$tmp/ro-data/backup.sqlite" ] || fail "backup wrote nothing"
echo "   permission-server backup --to /data/backup.sqlite while serving → 0"
kill -TERM "$ro_server_pid"
for _ in $(seq 1 100); do
    kill -0 "$ro_unshare_pid" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$ro_unshare_pid" 2>/dev/null && fail "the read-only server did not exit within 10s of SIGTERM"
stop_rc=0
wait "$ro_unshare_pid" || stop_rc=$?
ro_unshare_pid=""
ro_server_pid=""
[ "$stop_rc" -eq 0 ] || fail "the read-only server exited $stop_rc after SIGTERM"
# A clean stop checkpoints and closes every connection: the database is one file again.
for suffix in -wal -shm; do
    [ ! -e "$tmp/ro-data/permissions.sqlite$suffix" ] || fail "permissions.sqlite$suffix left in /data after a clean stop"
done
echo "   SIGTERM → exit 0, /data/permissions.sqlite alone (no -wal, no -shm)"
if grep -qE '"level":"(warning|error|critical)"' "$server_log"; then
    grep -E '"level":"(warning|error|critical)"' "$server_log" | head -n 10 >&2
    fail "the server logged warnings or errors on the read-only root"
fi
if [ -n "$ro_upper" ]; then
    find "$ro_upper" -mindepth 1 | sort >"$tmp/upper.after"
    cmp -s "$tmp/upper.before" "$tmp/upper.after" \
        || fail "the container's root filesystem changed: $(comm -13 "$tmp/upper.before" "$tmp/upper.after" | head -n 5)"
fi
echo "   /data after the run: $(cd "$tmp/ro-data" && stat -c '%n (%s bytes, %u:%g)' -- * | tr '\n' ' ')"
done_step
