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
#      `keys create`), SIGTERM → exit 0, then `audit verify`, `backup --to` and `migrate`;
#   6. runs it again as deploy/compose.yaml and deploy/kubernetes do, on a read-only root: the
#      image's root filesystem (buildah mount) bound read-only in a private mount and PID namespace
#      (unshare), with only /data (a fresh directory owned by 10001) and the manifests' own
#      writable temporary mounts (a tmpfs for compose's `tmpfs` and the StatefulSet's emptyDir;
#      the two must agree) writable, plus /proc, a read-only /sys and a minimal /dev; the server is
#      PID 1 there as 10001:10001 (chroot) with no capabilities and no-new-privileges: /readyz,
#      writes to / fail with EROFS, the healthcheck command, the bootstrap admin key, an app PUT, a
#      request POST and `backup --to` while serving, SIGTERM → exit 0, no warning logged, and the
#      container's writable layer unchanged.
#
# The built image and every working container are removed at the end. The debootstrap rootfs and
# the two stand-in base images are kept as a cache under $VERIFY_IMAGE_DIR and the local image
# store (localhost/permission-verify/*); the rootfs is bootstrapped only while the runtime stand-in
# image is missing. --purge removes them as well. Mounts of step 6 live in their own namespace and
# end with it; every exit path stops the processes this script started (by PID) and removes its
# containers.
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
ro_ctr=""
ro_unshare_pid=""
ro_server_pid=""
tmp="$(mktemp -d)"
server_log="$tmp/server.log"
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
trap cleanup EXIT

step "tools"
missing=()
for tool in debootstrap:debootstrap buildah:buildah podman:podman curl:curl python3:python3 git:git \
    unshare:util-linux nsenter:util-linux setpriv:util-linux findmnt:util-linux; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
python3 -c 'import yaml' 2>/dev/null || missing+=(python3-yaml)
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
if buildah inspect --type image "$base_image" >/dev/null 2>&1; then
    echo "   cached"
elif [ ! -d "$work/rootfs/usr" ]; then
    echo "   debootstrap from $mirror"
    rm -rf "$work/rootfs.partial"
    mkdir -p "$work"
    debootstrap --variant=minbase bookworm "$work/rootfs.partial" "$mirror" >"$tmp/debootstrap.log" 2>&1 \
        || { tail -n 20 "$tmp/debootstrap.log" >&2; fail "debootstrap"; }
    mv "$work/rootfs.partial" "$work/rootfs"
fi
if ! buildah inspect --type image "$base_image" >/dev/null 2>&1; then
    echo "   podman import"
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
        libcurl4-openssl-dev libedit-dev libpq-dev libsqlite3-dev libncurses-dev libpython3-dev libxml2-dev \\
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
# A kept image of an earlier run would be left untagged by the new build: remove it first.
if buildah inspect --type image "$app_image" >/dev/null 2>&1; then buildah rmi "$app_image" >/dev/null; fi
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
base_url="http://127.0.0.1:$port"
server_ctr="$(buildah from --pull=never --name "permission-verify-server-$run_id" "$app_image")"
buildah run --isolation chroot \
    --env PERMISSION_HOST=127.0.0.1 --env "PERMISSION_PORT=$port" \
    --env "PERMISSION_BOOTSTRAP_ADMIN_KEY=$admin_key" --env PERMISSION_LOG_FORMAT=json \
    "$server_ctr" -- "${command[@]}" >"$tmp/server.log" 2>&1 &
run_pid=$!
wait_ready "$base_url" "$run_pid" ""
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

step "read-only root filesystem, as deploy/compose.yaml and deploy/kubernetes run it"
# The manifests promise a read-only root with only /data and their temporary mounts writable.
# buildah run has no read-only option, so the image's root filesystem is mounted (buildah mount)
# and, in a private mount and PID namespace, bound read-only with what a runtime adds: /data (a
# fresh directory owned by 10001), a tmpfs for each writable temporary mount of the manifests,
# /proc, a read-only /sys and a minimal /dev with /dev/shm. The server is PID 1 there, runs as
# 10001:10001 with no capabilities and no-new-privileges, with the image's environment plus the
# compose file's settings, in the image's working directory.
python3 - "$tmp/image.json" "$repo/deploy/compose.yaml" "$repo/deploy/kubernetes/statefulset.yaml" \
    "$tmp/ro-env" "$tmp/ro-mounts" <<'EOF'
import json, re, sys
import yaml

image_path, compose_path, statefulset_path, env_out, mounts_out = sys.argv[1:]
problems = []

def tmpfs_size(quantity):
    """A Kubernetes quantity (64Mi) or a compose size (64m) as a tmpfs size= value."""
    match = re.fullmatch(r"(\d+)\s*([KMGkmg]i?)?[bB]?", str(quantity).strip())
    if not match:
        problems.append(f"cannot read the size {quantity!r}")
        return ""
    return match.group(1) + (match.group(2) or "")[:1].lower()

service = next(iter(yaml.safe_load(open(compose_path))["services"].values()))
if service.get("read_only") is not True:
    problems.append("compose: read_only is not true")
compose_tmp = {}
tmpfs = service.get("tmpfs") or []
for entry in [tmpfs] if isinstance(tmpfs, str) else tmpfs:
    path, _, options = entry.partition(":")
    sizes = [o.split("=", 1)[1] for o in options.split(",") if o.startswith("size=")]
    compose_tmp[path] = tmpfs_size(sizes[0]) if sizes else ""

pod = yaml.safe_load(open(statefulset_path))["spec"]["template"]["spec"]
container = pod["containers"][0]
if (container.get("securityContext") or {}).get("readOnlyRootFilesystem") is not True:
    problems.append("kubernetes: readOnlyRootFilesystem is not true")
volumes = {volume["name"]: volume for volume in pod.get("volumes") or []}
kube_tmp = {}
for mount in container.get("volumeMounts") or []:
    volume = volumes.get(mount["name"])
    if volume is None:  # a volume claim template: the database volume
        if mount["mountPath"] != "/data":
            problems.append(f"kubernetes: a claim is mounted at {mount['mountPath']}, not /data")
    elif "emptyDir" in volume and not mount.get("readOnly"):
        size = (volume["emptyDir"] or {}).get("sizeLimit")
        kube_tmp[mount["mountPath"]] = tmpfs_size(size) if size else ""
if set(compose_tmp) != set(kube_tmp):
    problems.append(f"writable temporary mounts differ: compose {sorted(compose_tmp)}, "
                    f"kubernetes {sorted(kube_tmp)}")

config = json.load(open(image_path))["Docker"]["config"]
env = dict(item.split("=", 1) for item in config.get("Env") or [])
# Runtimes supply PATH when the image has none, and HOME from the user's passwd entry (/data).
env.setdefault("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
env.setdefault("HOME", "/data")
for key, value in (service.get("environment") or {}).items():
    if "${" not in str(value):
        env[key] = str(value)
for problem in problems:
    print(f"   problem: {problem}", file=sys.stderr)
if problems:
    sys.exit(1)
with open(env_out, "wb") as out:
    out.write(b"\0".join(f"{k}={v}".encode() for k, v in env.items()))
with open(mounts_out, "w") as out:
    for path in sorted(compose_tmp):
        out.write(f"{path} {kube_tmp[path] or compose_tmp[path]}\n")
workdir = config.get("WorkingDir") or "/"
print(f"   writable: /data and tmpfs {', '.join(sorted(compose_tmp)) or '(none)'}; "
      f"workdir {workdir}; settings from the image and compose.yaml")
with open(env_out + ".workdir", "w") as out:
    out.write(workdir)
EOF
mapfile -d '' -t ro_env <"$tmp/ro-env"
server_log="$tmp/ro-server.log"
ro_workdir="$(cat "$tmp/ro-env.workdir")"
ro_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
ro_key="verify-admin-$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"
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
cat >"$tmp/ro-namespace.sh" <<'EOF'
# Runs in a new mount and PID namespace: builds the container's root, then execs "$@" in it.
set -eu
image_root="$1" root="$2" data="$3"
shift 3
mount --bind "$image_root" "$root"
mount -o remount,bind,ro "$root"
mount --bind "$data" "$root/data"
while [ "$1" != "--" ]; do
    path="${1%%:*}" size="${1#*:}"
    mount -t tmpfs -o "mode=1777,nosuid,nodev${size:+,size=$size}" tmpfs "$root$path"
    shift
done
shift
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys"
mount -t tmpfs -o mode=0755,size=64k,nosuid tmpfs "$root/dev"
for node in null zero full random urandom tty; do
    touch "$root/dev/$node"
    mount --bind "/dev/$node" "$root/dev/$node"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mkdir "$root/dev/shm"
mount -t tmpfs -o mode=1777,size=64m,nosuid,nodev,noexec shm "$root/dev/shm"
exec "$@"
EOF
unshare --mount --propagation private --pid --fork --kill-child \
    bash "$tmp/ro-namespace.sh" "$ro_image_root" "$tmp/ro-root" "$tmp/ro-data" "${tmp_mounts[@]}" -- \
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
# `docker exec`: the server's namespaces, root and working directory, as 10001:10001.
in_container() {
    env -i "${ro_env[@]}" setpriv --no-new-privs \
        nsenter --target "$ro_server_pid" --mount --pid --root --wd --setuid 10001 --setgid 10001 -- "$@"
}
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

echo "verify-image: OK"
