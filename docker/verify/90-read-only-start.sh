# Stage 90: the image run as deploy/compose.yaml and deploy/kubernetes run it, on a read-only root.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "read-only root filesystem, as deploy/compose.yaml and deploy/kubernetes run it"
# The manifests promise a read-only root with only /data and their temporary mounts writable.
# buildah run has no read-only option, so the image's root filesystem is mounted (buildah mount)
# and, in a private mount and PID namespace, bound read-only with what a runtime adds: /data (a
# fresh directory owned by 10001), a tmpfs for each writable temporary mount of the manifests,
# /proc, a read-only /sys and a minimal /dev with /dev/shm. The server is PID 1 there, runs as
# 10001:10001 with no capabilities and no-new-privileges, with the image's environment plus the
# compose file's settings, in the image's working directory.
python3 "$verify/read-only-manifests.py" "$tmp/image.json" "$repo/deploy/compose.yaml" \
    "$repo/deploy/kubernetes/statefulset.yaml" "$tmp/ro-env" "$tmp/ro-mounts" || fail "the manifests' read-only settings"
mapfile -d '' -t ro_env <"$tmp/ro-env"
server_log="$tmp/ro-server.log"
ro_workdir="$(cat "$tmp/ro-env.workdir")"
ro_port="$(free_port)"
ro_key="$(new_admin_key)"
ro_env+=(PERMISSION_HOST=127.0.0.1 "PERMISSION_PORT=$ro_port" "PERMISSION_BOOTSTRAP_ADMIN_KEY=$ro_key")
ro_ctr="$(buildah from --pull=never --name "permission-verify-readonly-$run_id" "$app_image")"
ro_image_root="$(buildah mount "$ro_ctr")"
ro_upper="$(findmnt -n -o OPTIONS --mountpoint "$ro_image_root" | tr ',' '\n' | sed -n 's/^upperdir=//p')"
[ -n "$ro_upper" ] && find "$ro_upper" -mindepth 1 | sort >"$tmp/upper.before"
mkdir -m 0700 "$tmp/ro-root" "$tmp/ro-data"
chown 10001:10001 "$tmp/ro-data"
chmod 0750 "$tmp/ro-data"
tmp_mounts=()
while read -r path size; do
    [ -n "$path" ] && tmp_mounts+=("$path:$size")
done <"$tmp/ro-mounts"
unshare --mount --propagation private --pid --fork --kill-child \
    bash "$verify/read-only-namespace.sh" "$ro_image_root" "$tmp/ro-root" "$tmp/ro-data" "${tmp_mounts[@]}" -- \
    env -i "${ro_env[@]}" setpriv --no-new-privs \
    chroot --userspec=10001:10001 --groups=10001 "$tmp/ro-root" \
    env --chdir="$ro_workdir" "${command[@]}" >"$server_log" 2>&1 &
ro_unshare_pid=$!
ro_url="http://127.0.0.1:$ro_port"
wait_ready "$ro_url" "$ro_unshare_pid" " on the read-only root"
ro_server_pid="$(ps -o pid= --ppid "$ro_unshare_pid" | tr -d ' ')"
[ "$(cat "/proc/$ro_server_pid/comm" 2>/dev/null)" = "permission-serv" ] \
    || fail "the child of unshare ($ro_server_pid) is not the server"
ro_status="$(grep -E '^(Uid|Gid|Groups|NSpid|CapEff|NoNewPrivs):' "/proc/$ro_server_pid/status" | tr -s '\t' ' ')"
grep -q '^Uid: 10001 10001 10001 10001$' <<<"$ro_status" || fail "not uid 10001: $ro_status"
grep -q '^Gid: 10001 10001 10001 10001$' <<<"$ro_status" || fail "not gid 10001: $ro_status"
grep -q '^NSpid: [0-9]* 1$' <<<"$ro_status" || fail "the server is not PID 1 in its namespace: $ro_status"
grep -q '^CapEff: 0000000000000000$' <<<"$ro_status" || fail "the server has capabilities: $ro_status"
echo "   pid $ro_server_pid (PID 1 inside), uid/gid 10001, no capabilities, no-new-privileges, port $ro_port"
done_step
