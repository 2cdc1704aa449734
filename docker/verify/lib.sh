# Shared by docker/verify-image.sh and its stages (sourced, never run): progress lines, failure,
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
# the cleanup every exit path runs, and the helpers the stages drive the image with.

step() {
    echo "== $* (at $((SECONDS - started))s)"
    step_started=$SECONDS
}
done_step() { echo "   done in $((SECONDS - step_started))s"; }
fail() {
    echo "verify-image: FAIL: $*" >&2
    exit 1
}

# A free TCP port on 127.0.0.1.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A fresh bootstrap admin key secret.
new_admin_key() { echo "verify-admin-$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"; }

# A command in the image (a working container of it, not running the server).
in_image() { buildah run --isolation chroot "$tool_ctr" -- "$@"; }

# wait_ready URL PID WHERE: until URL/readyz answers 200 (at most 30 s), failing at once if PID
# (what was started to run the server) exits first. WHERE qualifies the failure messages.
wait_ready() {
    local _
    for _ in $(seq 1 150); do
        if curl -fsS -o /dev/null --max-time 2 "$1/readyz" 2>/dev/null; then return 0; fi
        kill -0 "$2" 2>/dev/null || fail "the server exited before it was ready$3"
        sleep 0.2
    done
    fail "/readyz did not answer 200 within 30s$3"
}

# The server is a descendant of the `buildah run` process ($run_pid); find it by walking that
# process's own tree.
find_server() {
    local pids="$run_pid" next pid
    for _ in 1 2 3 4 5; do
        next=""
        for pid in $pids; do
            if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "permission-serv" ]; then
                echo "$pid"
                return 0
            fi
            next="$next $(ps -o pid= --ppid "$pid" 2>/dev/null | tr '\n' ' ')"
        done
        pids="$next"
    done
    return 1
}

expect_status() { # expect_status CODE METHOD PATH [BODY] [KEY]: checks the status, body → $tmp/body
    local want="$1" method="$2" path="$3" body="${4:-}" key="${5-$admin_key}" got
    local args=(-sS -o "$tmp/body" -w '%{http_code}' --max-time 10 -X "$method")
    [ -n "$key" ] && args+=(-H "Authorization: Bearer $key")
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
    got="$(curl "${args[@]}" "$base_url$path")" || fail "curl $method $path"
    if [[ " $want " != *" $got "* ]]; then
        echo "   body: $(head -c 400 "$tmp/body")" >&2
        fail "$method $path answered $got, expected $want"
    fi
    echo "   $method $path → $got"
}
json_field() { # json_field EXPR: evaluates EXPR on the last body parsed as `j`
    python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$tmp/body" "$1"
}

# `docker exec` into the read-only run: the server's namespaces, root and working directory, as
# 10001:10001.
in_container() {
    env -i "${ro_env[@]}" setpriv --no-new-privs \
        nsenter --target "$ro_server_pid" --mount --pid --root --wd --setuid 10001 --setgid 10001 -- "$@"
}

# On every exit (the driver's EXIT trap): stops what was started, by PID, removes the working
# containers and, unless kept, the image; shows the server's last output on a failure.
cleanup() {
    local rc=$?
    set +e
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid"
        for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
        kill -0 "$server_pid" 2>/dev/null && kill -KILL "$server_pid"
    fi
    if [ -n "$run_pid" ]; then wait "$run_pid" 2>/dev/null; fi
    if [ -n "$ro_unshare_pid" ] && kill -0 "$ro_unshare_pid" 2>/dev/null; then
        [ -n "$ro_server_pid" ] && kill -TERM "$ro_server_pid" 2>/dev/null
        for _ in $(seq 1 50); do kill -0 "$ro_unshare_pid" 2>/dev/null || break; sleep 0.2; done
        # unshare --kill-child: the namespace's processes die with it, and its mounts with them.
        kill -0 "$ro_unshare_pid" 2>/dev/null && kill -KILL "$ro_unshare_pid"
        wait "$ro_unshare_pid" 2>/dev/null
    fi
    [ -n "$ro_ctr" ] && buildah rm "$ro_ctr" >/dev/null
    [ -n "$server_ctr" ] && buildah rm "$server_ctr" >/dev/null
    [ -n "$tool_ctr" ] && buildah rm "$tool_ctr" >/dev/null
    if [ "$keep_image" -eq 0 ] && buildah inspect --type image "$app_image" >/dev/null 2>&1; then
        buildah rmi "$app_image" >/dev/null
    fi
    if [ "$purge" -eq 1 ]; then
        buildah rmi "${builder_image:-}" "$base_image" >/dev/null 2>&1
        rm -rf "$work/rootfs"
    fi
    if [ $rc -ne 0 ] && [ -s "$server_log" ]; then
        echo "---- server output (last 40 lines of $(basename "$server_log"))" >&2
        tail -n 40 "$server_log" >&2
    fi
    # Nothing under $tmp is mounted in this namespace (step 6 mounts in its own); never delete
    # through a mount if that ever changes.
    if findmnt -rn -o TARGET | grep -q "^$tmp/"; then
        echo "verify-image: $tmp still has mounts; left in place" >&2
    else
        rm -rf "$tmp"
    fi
    echo "== total $((SECONDS - started))s, exit $rc"
}
