# Stage 60: the image's own ENTRYPOINT+CMD on 127.0.0.1:<free port> (host network), as uid 10001.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "run ${command[*]} as the image's user on 127.0.0.1"
port="$(free_port)"
admin_key="$(new_admin_key)"
base_url="http://127.0.0.1:$port"
server_ctr="$(buildah from --pull=never --name "permission-verify-server-$run_id" "$app_image")"
buildah run --isolation chroot \
    --env PERMISSION_HOST=127.0.0.1 --env "PERMISSION_PORT=$port" \
    --env "PERMISSION_BOOTSTRAP_ADMIN_KEY=$admin_key" --env PERMISSION_LOG_FORMAT=json \
    "$server_ctr" -- "${command[@]}" >"$tmp/server.log" 2>&1 &
run_pid=$!
wait_ready "$base_url" "$run_pid" ""
server_pid="$(find_server)" || fail "cannot find the server process under buildah run ($run_pid)"
server_uid="$(awk '/^Uid:/ {print $2}' "/proc/$server_pid/status")"
[ "$server_uid" = "10001" ] || fail "the server runs as uid $server_uid, not 10001"
echo "   pid $server_pid, uid $server_uid, port $port, ready after $((SECONDS - step_started))s"
done_step
