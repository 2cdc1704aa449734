#!/usr/bin/env bash
# Builds docker/Dockerfile and checks the image on a machine that has no Docker engine and cannot
# pull images (Debian 12, root): the two base images are stood in by local ones, then the server
# is run inside the image and driven with curl.
#
#   1. debootstrap a minimal bookworm rootfs from the apt mirror; import it as a local image
#      (the runtime stand-in for debian:bookworm-slim);
#   2. build a builder stand-in for swift:6.3-bookworm from it: the Swift toolchain's Debian
#      dependencies, this machine's git url.insteadOf rules (the local package mirror), and PATH;
#      the toolchain and the mirror folders themselves are bind-mounted read-only during the build;
#   3. `buildah bud --isolation chroot` of the unchanged docker/Dockerfile with BUILDER_IMAGE and
#      RUNTIME_IMAGE pointing at the stand-ins;
#   4. checks the image config (numeric non-root USER, /data volume, port, STOPSIGNAL, HEALTHCHECK,
#      exec-form ENTRYPOINT/CMD), that the runtime has no curl and no shared Swift runtime;
#   5. runs the image's own ENTRYPOINT+CMD on 127.0.0.1:<free port> (host network), waits for
#      /readyz, checks the process runs as uid 10001, runs the HEALTHCHECK command in the image,
#      a curl walkthrough (app, request, prompt, decision, status, audit, a key made with
#      `keys create`), SIGTERM → exit 0, then `audit verify`, `backup --to` and `migrate`.
#
# The built image and every working container are removed at the end. The debootstrap rootfs and
# the two stand-in base images are kept as a cache under $VERIFY_IMAGE_DIR and the local image
# store (localhost/permission-verify/*); --purge removes them as well.
#
# Usage: docker/verify-image.sh [--probes-only] [--keep-image] [--reuse-image] [--purge] [--context DIR]
#   --probes-only  only /healthz, /readyz, the healthcheck and SIGTERM (no API walkthrough)
#   --keep-image   keep the built image (localhost/permission-server:verify)
#   --reuse-image  skip the build when a kept image exists (implies --keep-image)
#   --purge        also remove the cached rootfs and stand-in base images at the end
#   --context DIR  build context (default: the repository root)
# Environment: VERIFY_IMAGE_DIR (cache, default .build-image-verify), DEBIAN_MIRROR.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${VERIFY_IMAGE_DIR:-$repo/.build-image-verify}"
context="$repo"
probes_only=0
keep_image=0
reuse_image=0
purge=0
while [ $# -gt 0 ]; do
    case "$1" in
        --probes-only) probes_only=1 ;;
        --keep-image) keep_image=1 ;;
        --reuse-image) reuse_image=1; keep_image=1 ;;
        --purge) purge=1 ;;
        --context) context="$(cd "$2" && pwd)"; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "verify-image: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

if [ "$(id -u)" -ne 0 ]; then
    echo "verify-image: needs root (debootstrap and buildah --isolation chroot)" >&2
    exit 2
fi

base_image="localhost/permission-verify/debian:bookworm"
app_image="localhost/permission-server:verify"
run_id="$$"
server_ctr=""
tool_ctr=""
run_pid=""
server_pid=""
tmp="$(mktemp -d)"
started=$SECONDS
step_started=$SECONDS

step() {
    echo "== $* (at $((SECONDS - started))s)"
    step_started=$SECONDS
}
done_step() { echo "   done in $((SECONDS - step_started))s"; }
fail() {
    echo "verify-image: FAIL: $*" >&2
    exit 1
}

cleanup() {
    local rc=$?
    set +e
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid"
        for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
        kill -0 "$server_pid" 2>/dev/null && kill -KILL "$server_pid"
    fi
    if [ -n "$run_pid" ]; then wait "$run_pid" 2>/dev/null; fi
    [ -n "$server_ctr" ] && buildah rm "$server_ctr" >/dev/null
    [ -n "$tool_ctr" ] && buildah rm "$tool_ctr" >/dev/null
    if [ "$keep_image" -eq 0 ] && buildah inspect --type image "$app_image" >/dev/null 2>&1; then
        buildah rmi "$app_image" >/dev/null
    fi
    if [ "$purge" -eq 1 ]; then
        buildah rmi "${builder_image:-}" "$base_image" >/dev/null 2>&1
        rm -rf "$work/rootfs"
    fi
    if [ $rc -ne 0 ] && [ -s "$tmp/server.log" ]; then
        echo "---- server output (last 40 lines)" >&2
        tail -n 40 "$tmp/server.log" >&2
    fi
    rm -rf "$tmp"
    echo "== total $((SECONDS - started))s, exit $rc"
}
trap cleanup EXIT

step "tools"
missing=()
for tool in debootstrap:debootstrap buildah:buildah podman:podman curl:curl python3:python3 git:git; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "   installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
swift_bin="$(command -v swift)" || fail "no swift on PATH: the builder stand-in uses this machine's toolchain"
toolchain="$(dirname "$(dirname "$(dirname "$(readlink -f "$swift_bin")")")")"
swift_version="$("$swift_bin" --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)"
echo "   toolchain $toolchain (Swift $swift_version)"
done_step

step "runtime stand-in: debootstrap bookworm → $base_image"
mirror="${DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
    mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | grep -v '^[[:space:]]*#' | grep -oE 'https?://[^ ]+/debian/?( |$)' | head -1 | tr -d ' ')" || true
fi
mirror="${mirror:-http://deb.debian.org/debian}"
if [ ! -d "$work/rootfs/usr" ]; then
    echo "   debootstrap from $mirror"
    rm -rf "$work/rootfs.partial"
    mkdir -p "$work"
    debootstrap --variant=minbase bookworm "$work/rootfs.partial" "$mirror" >"$tmp/debootstrap.log" 2>&1 \
        || { tail -n 20 "$tmp/debootstrap.log" >&2; fail "debootstrap"; }
    mv "$work/rootfs.partial" "$work/rootfs"
fi
if ! buildah inspect --type image "$base_image" >/dev/null 2>&1; then
    tar -C "$work/rootfs" -c . | podman import - "$base_image" >/dev/null 2>"$tmp/import.log" \
        || { cat "$tmp/import.log" >&2; fail "podman import"; }
fi
done_step

step "builder stand-in: Swift $swift_version toolchain dependencies and package mirror"
mkdir -p "$tmp/builder"
: >"$tmp/builder/gitconfig"
mounts=(--volume "$toolchain:$toolchain:ro")
# Every url.<local folder>.insteadOf rule of this machine's git (the package mirror) goes into the
# stand-in's /etc/gitconfig, and the folder is bind-mounted read-only at the same path.
while read -r key value; do
    base="${key#url.}"
    base="${base%.insteadof}"
    git config -f "$tmp/builder/gitconfig" --add "url.$base.insteadOf" "$value"
    dir="${base%/}"
    if [ -d "$dir" ] && [[ " ${mounts[*]} " != *" $dir:"* ]]; then
        mounts+=(--volume "$dir:$dir:ro")
    fi
done < <(git config --get-regexp '^url\..*\.insteadof$' || true)
cat >"$tmp/builder/Containerfile" <<EOF
FROM $base_image
RUN export DEBIAN_FRONTEND=noninteractive && apt-get update -q && \\
    apt-get install -y -q --no-install-recommends binutils gcc git libc6-dev libstdc++-12-dev \\
        libcurl4-openssl-dev libedit-dev libsqlite3-dev libncurses-dev libpython3-dev libxml2-dev \\
        pkg-config uuid-dev tzdata ca-certificates zlib1g-dev && \\
    rm -rf /var/lib/apt/lists/*
COPY gitconfig /etc/gitconfig
ENV PATH=$toolchain/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
EOF
builder_hash="$(cat "$tmp/builder/Containerfile" "$tmp/builder/gitconfig" | sha256sum | cut -c1-12)"
builder_image="localhost/permission-verify/swift-builder:$swift_version-$builder_hash"
if ! buildah inspect --type image "$builder_image" >/dev/null 2>&1; then
    buildah bud --isolation chroot --pull=never -t "$builder_image" "$tmp/builder" >"$tmp/builder.log" 2>&1 \
        || { tail -n 30 "$tmp/builder.log" >&2; fail "builder stand-in"; }
fi
echo "   $builder_image; mounts: ${mounts[*]}"
done_step

step "build docker/Dockerfile (context $context)"
if [ "$reuse_image" -eq 1 ] && buildah inspect --type image "$app_image" >/dev/null 2>&1; then
    echo "   reusing the kept $app_image"
else
buildah bud --isolation chroot --pull=never --format docker \
    --build-arg "BUILDER_IMAGE=$builder_image" --build-arg "RUNTIME_IMAGE=$base_image" \
    "${mounts[@]}" -f "$repo/docker/Dockerfile" -t "$app_image" "$context" >"$tmp/build.log" 2>&1 \
    || { tail -n 60 "$tmp/build.log" >&2; fail "buildah bud"; }
grep -E '^(STEP|COMMIT)|Build of product' "$tmp/build.log" | sed 's/^/   /'
fi
done_step

step "image configuration"
buildah inspect --type image "$app_image" >"$tmp/image.json"
python3 - "$tmp/image.json" "$tmp/command" <<'EOF'
import json, sys
image = json.load(open(sys.argv[1]))
config = image["Docker"]["config"]
problems = []
user = config.get("User", "")
uid = user.split(":")[0]
if not uid.isdigit() or int(uid) == 0:
    problems.append(f"USER must be a numeric non-root uid, is {user!r}")
if "/data" not in (config.get("Volumes") or {}):
    problems.append("no VOLUME /data")
if "8080/tcp" not in (config.get("ExposedPorts") or {}):
    problems.append("port 8080 not exposed")
if config.get("StopSignal") != "SIGTERM":
    problems.append(f"STOPSIGNAL is {config.get('StopSignal')!r}")
health = config.get("Healthcheck") or {}
if health.get("Test", [])[:3] != ["CMD", "permission-server", "healthcheck"]:
    problems.append(f"HEALTHCHECK is {health.get('Test')!r}")
env = dict(item.split("=", 1) for item in config.get("Env") or [])
if env.get("PERMISSION_DATABASE") != "/data/permissions.sqlite":
    problems.append("PERMISSION_DATABASE is not /data/permissions.sqlite")
command = (config.get("Entrypoint") or []) + (config.get("Cmd") or [])
if not command or command[0] != "permission-server":
    problems.append(f"ENTRYPOINT/CMD is {command!r}")
for problem in problems:
    print(f"   problem: {problem}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"   user {user}, volume /data, 8080/tcp, SIGTERM, healthcheck {health['Test'][1:]}, "
      f"command {command}")
with open(sys.argv[2], "wb") as out:
    out.write(b"\0".join(arg.encode() for arg in command))
EOF
mapfile -d '' -t command <"$tmp/command"
tool_ctr="$(buildah from --pull=never --name "permission-verify-tools-$run_id" "$app_image")"
in_image() { buildah run --isolation chroot "$tool_ctr" -- "$@"; }
if in_image sh -c 'command -v curl' >/dev/null 2>&1; then fail "the runtime image contains curl"; fi
in_image ldd /usr/local/bin/permission-server >"$tmp/ldd.txt"
grep -q 'not found' "$tmp/ldd.txt" && { cat "$tmp/ldd.txt" >&2; fail "unresolved shared library"; }
grep -q 'libswiftCore' "$tmp/ldd.txt" && fail "the Swift runtime is linked dynamically"
echo "   links: $(awk '{print $1}' "$tmp/ldd.txt" | grep -v vdso | tr '\n' ' ')"
echo "   /data: $(in_image stat -c '%u:%g %a' /data)"
done_step

step "run ${command[*]} as the image's user on 127.0.0.1"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
admin_key="verify-admin-$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"
base_url="http://127.0.0.1:$port"
server_ctr="$(buildah from --pull=never --name "permission-verify-server-$run_id" "$app_image")"
buildah run --isolation chroot \
    --env PERMISSION_HOST=127.0.0.1 --env "PERMISSION_PORT=$port" \
    --env "PERMISSION_BOOTSTRAP_ADMIN_KEY=$admin_key" --env PERMISSION_LOG_FORMAT=json \
    "$server_ctr" -- "${command[@]}" >"$tmp/server.log" 2>&1 &
run_pid=$!
ready=0
for _ in $(seq 1 150); do
    if curl -fsS -o /dev/null --max-time 2 "$base_url/readyz" 2>/dev/null; then ready=1; break; fi
    kill -0 "$run_pid" 2>/dev/null || fail "the server exited before it was ready"
    sleep 0.2
done
[ "$ready" -eq 1 ] || fail "/readyz did not answer 200 within 30s"
# The server is a descendant of the `buildah run` process started above; find it by walking
# that process's own tree.
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
server_pid="$(find_server)" || fail "cannot find the server process under buildah run ($run_pid)"
server_uid="$(awk '/^Uid:/ {print $2}' "/proc/$server_pid/status")"
[ "$server_uid" = "10001" ] || fail "the server runs as uid $server_uid, not 10001"
echo "   pid $server_pid, uid $server_uid, port $port, ready after $((SECONDS - step_started))s"
done_step

step "probes and the image's healthcheck command"
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
expect_status 200 GET /healthz "" ""
expect_status 200 GET /readyz "" ""
buildah run --isolation chroot --env "PERMISSION_PORT=$port" "$server_ctr" -- permission-server healthcheck \
    || fail "permission-server healthcheck exited non-zero against a ready server"
echo "   permission-server healthcheck → 0"
dead_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
if buildah run --isolation chroot "$server_ctr" -- permission-server healthcheck --port "$dead_port" --timeout 2 \
    >/dev/null 2>&1; then
    fail "permission-server healthcheck exited 0 with nothing listening"
fi
echo "   permission-server healthcheck --port <closed> → non-zero"
done_step

if [ "$probes_only" -eq 0 ]; then
    step "curl walkthrough (SPEC §4, §6)"
    app="com.example.maps"
    expect_status 401 GET /v1/services "" ""
    expect_status 200 GET /v1/services
    expect_status "200 201" PUT "/v1/apps/$app" \
        '{"name": "Maps", "purposeStrings": {"NSCameraUsageDescription": "Scan tickets with the camera."}}'
    expect_status 202 POST "/v1/users/u42/apps/$app/authorizations/camera/request" '{"level": "full"}'
    prompt_id="$(json_field 'j.get("id") or j["prompt"]["id"]')"
    expect_status 200 GET "/v1/users/u42/prompts?state=pending"
    grep -q "$prompt_id" "$tmp/body" || fail "the pending prompts do not list $prompt_id"
    expect_status 200 POST "/v1/prompts/$prompt_id/decision" '{"choice": "allow"}'
    expect_status 200 GET "/v1/users/u42/apps/$app/authorizations/camera"
    [ "$(json_field 'j["status"], j["reason"]')" = "('authorized', 'userConsent')" ] \
        || fail "camera is not authorized by userConsent: $(cat "$tmp/body")"
    expect_status 200 GET "/v1/audit?user=u42"
    grep -q "$prompt_id" "$tmp/body" || fail "the audit log does not mention $prompt_id"
    buildah run --isolation chroot "$server_ctr" -- permission-server keys create --role admin --name verify \
        >"$tmp/key.txt" || fail "permission-server keys create"
    # The secret is printed once: as JSON {"secret": ...} or as the last word of the output.
    new_key="$(python3 -c '
import json, sys
text = open(sys.argv[1]).read()
try:
    print(json.loads(text)["secret"])
except (ValueError, KeyError, TypeError):
    print(text.split()[-1] if text.split() else "")
' "$tmp/key.txt")"
    [ -n "$new_key" ] || fail "keys create printed no secret"
    expect_status 200 GET /v1/services "" "$new_key"
    done_step
fi

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

step "maintenance subcommands on the stopped database"
buildah run --isolation chroot "$server_ctr" -- permission-server migrate || fail "migrate"
echo "   migrate → 0"
if [ "$probes_only" -eq 0 ]; then
    buildah run --isolation chroot "$server_ctr" -- permission-server audit verify || fail "audit verify"
    echo "   audit verify → 0"
fi
buildah run --isolation chroot "$server_ctr" -- permission-server backup --to /data/backup.sqlite || fail "backup"
buildah run --isolation chroot "$server_ctr" -- test -s /data/backup.sqlite || fail "backup wrote nothing"
echo "   backup --to /data/backup.sqlite → 0 ($(buildah run --isolation chroot "$server_ctr" -- stat -c '%s bytes, owner %u' /data/backup.sqlite))"
done_step

echo "verify-image: OK"
