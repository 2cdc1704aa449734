# Stage 80: SIGTERM ends the server within 10 s with exit status 0.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
step "SIGTERM → graceful exit 0"
kill -TERM "$server_pid"
stop_rc=0
for _ in $(seq 1 100); do
    kill -0 "$run_pid" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$run_pid" 2>/dev/null && fail "the server did not exit within 10s of SIGTERM"
wait "$run_pid" || stop_rc=$?
run_pid=""
server_pid=""
[ "$stop_rc" -eq 0 ] || fail "the server exited $stop_rc after SIGTERM"
echo "   exited 0"
done_step
