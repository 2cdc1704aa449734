#!/usr/bin/env python3
"""Structural checks of the container image recipe and the deployment manifests.

Complements the generic linters run by scripts/validate-deploy.sh (hadolint, kubernetes-validate,
systemd-analyze, haproxy -c) with the rules this service depends on: one SQLite writer, a numeric
non-root user, the database on /data, the probes on /healthz and /readyz, keys from a Secret, and a
hardened systemd unit; and for the replicas on PostgreSQL (deploy/replicated/,
deploy/kubernetes/replicated/): at least two replicas, a postgres:// URI without a password (from a
Secret on Kubernetes), the password from a secret file and in no environment value, no state in a
replica, only the load balancer publishing a port, and HAProxy balancing round robin with health
checks on /readyz and timeouts that let idle event streams live. Prints one line per problem and
exits 1 if there is any. scripts/test_validate_deploy.py checks that each rule catches a broken copy.

Usage: scripts/validate_deploy.py [REPO_ROOT]
"""

import json
import re
import sys
from pathlib import Path

import yaml

problems: list[str] = []


def check(condition: bool, where: str, message: str) -> bool:
    if not condition:
        problems.append(f"{where}: {message}")
    return condition


# --- Dockerfile ------------------------------------------------------------------------------

def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs with line continuations joined and comments dropped."""
    instructions, pending = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        whole = (pending + line).strip()
        pending = ""
        if whole:
            keyword, _, rest = whole.partition(" ")
            instructions.append((keyword.upper(), rest.strip()))
    return instructions


def image_reference_ok(reference: str) -> bool:
    """A pinned reference: a tag other than latest, or a digest."""
    if "@sha256:" in reference:
        return True
    name = reference.rsplit("/", 1)[-1]
    return ":" in name and not name.endswith(":latest")


def check_dockerfile(root: Path) -> None:
    where = "docker/Dockerfile"
    path = root / where
    if not check(path.is_file(), where, "missing"):
        return
    instructions = dockerfile_instructions(path.read_text())
    global_args: dict[str, str] = {}
    stages: list[list[tuple[str, str]]] = []
    for keyword, rest in instructions:
        if keyword == "FROM":
            stages.append([(keyword, rest)])
        elif not stages and keyword == "ARG":
            name, _, default = rest.partition("=")
            global_args[name.strip()] = default.strip().strip('"')
        elif stages:
            stages[-1].append((keyword, rest))
    if not check(len(stages) >= 2, where, "not a multi-stage build"):
        return
    for name in ("BUILDER_IMAGE", "RUNTIME_IMAGE"):
        default = global_args.get(name)
        if check(default is not None, where, f"no ARG {name} before the first FROM"):
            check(image_reference_ok(default), where, f"ARG {name}={default} is not pinned to a tag")
    check(stages[0][0][1].split()[0] in ("${BUILDER_IMAGE}", "$BUILDER_IMAGE"), where,
          "the first stage is not FROM ${BUILDER_IMAGE}")
    check(stages[-1][0][1].split()[0] in ("${RUNTIME_IMAGE}", "$RUNTIME_IMAGE"), where,
          "the final stage is not FROM ${RUNTIME_IMAGE}")
    for stage in stages:
        image = stage[0][1].split()[0]
        if not image.startswith("$"):
            check(image_reference_ok(image) or image in {"scratch"}, where, f"FROM {image} is not pinned")

    build_runs = " ".join(rest for keyword, rest in stages[0] if keyword == "RUN")
    # The release build may run through scripts/build-release.sh, which the Dockerfile copies in.
    build = build_runs
    if "scripts/build-release.sh" in build_runs:
        script = root / "scripts/build-release.sh"
        copied = any(keyword == "COPY" and "scripts/build-release.sh" in rest for keyword, rest in stages[0])
        if check(script.is_file() and copied, where, "runs scripts/build-release.sh without copying it in"):
            build += " " + " ".join(line for line in script.read_text().splitlines() if not line.lstrip().startswith("#"))
    check("--static-swift-stdlib" in build, where, "the build does not use --static-swift-stdlib")
    check("-c release" in build, where, "the build is not a release build")
    check("swift package resolve" in build_runs, where, "dependencies are not resolved in their own layer")

    final = {keyword: rest for keyword, rest in stages[-1]}
    user = final.get("USER", "")
    uid = user.split(":")[0]
    check(uid.isdigit() and int(uid) != 0, where, f"final USER must be a numeric non-root uid, is {user!r}")
    check("/data" in final.get("VOLUME", ""), where, "no VOLUME /data")
    check(final.get("EXPOSE", "").split() == ["8080"], where, "EXPOSE is not 8080")
    check(final.get("STOPSIGNAL") == "SIGTERM", where, "STOPSIGNAL is not SIGTERM")
    health = final.get("HEALTHCHECK", "")
    exec_form = re.search(r"CMD\s+(\[.*\])\s*$", health)
    if check(exec_form is not None, where, "HEALTHCHECK is not CMD in exec form"):
        command = json.loads(exec_form.group(1))
        check(command[:2] == ["permission-server", "healthcheck"], where,
              f"HEALTHCHECK runs {command}, not permission-server healthcheck")
    for keyword in ("ENTRYPOINT", "CMD"):
        value = final.get(keyword, "")
        check(value.startswith("["), where, f"{keyword} is not in exec form")
    check(json.loads(final.get("ENTRYPOINT", "[]"))[:1] == ["permission-server"], where,
          "ENTRYPOINT is not permission-server")
    env = final.get("ENV", "")
    check("PERMISSION_DATABASE=/data/" in env, where, "PERMISSION_DATABASE is not under /data")
    check("PERMISSION_HOST=0.0.0.0" in env, where, "PERMISSION_HOST is not 0.0.0.0 in the container")

    runtime_runs = " ".join(rest for keyword, rest in stages[-1] if keyword == "RUN")
    installed = set()
    for match in re.finditer(r"apt-get install ([^&|;]*)", runtime_runs):
        installed |= {word for word in match.group(1).split() if not word.startswith("-")}
    allowed = {"libsqlite3-0", "libcurl4", "libpq5", "ca-certificates"}
    check(installed <= allowed, where, f"the runtime installs more than {sorted(allowed)}: {sorted(installed)}")
    check("curl" not in installed, where, "the runtime image installs curl")
    check("rm -rf /var/lib/apt/lists" in runtime_runs, where, "the runtime keeps the apt lists")

    ignore = root / ".dockerignore"
    if check(ignore.is_file(), ".dockerignore", "missing"):
        patterns = {line.strip() for line in ignore.read_text().splitlines()}
        check(".build" in patterns or ".build/" in patterns, ".dockerignore", "does not exclude .build")


# --- Compose ---------------------------------------------------------------------------------

def check_compose(root: Path) -> None:
    where = "deploy/compose.yaml"
    path = root / where
    if not check(path.is_file(), where, "missing"):
        return
    document = yaml.safe_load(path.read_text())
    services = document.get("services") or {}
    if not check(len(services) == 1, where, f"expected one service, found {len(services)}"):
        return
    (name, service), = services.items()
    here = f"{where} services.{name}"
    check((service.get("deploy") or {}).get("replicas", 1) == 1, here,
          "deploy.replicas must be 1 (SQLite has one writer; deploy/replicated/ has the replicas)")
    check(service.get("restart") in {"always", "unless-stopped", "on-failure"}, here,
          f"restart policy is {service.get('restart')!r}")
    check(image_reference_ok(service.get("image", "")) or "build" in service, here,
          "neither a pinned image nor a build")
    build = service.get("build") or {}
    if build:
        context = root / "deploy" / build.get("context", ".")
        check((context / build.get("dockerfile", "Dockerfile")).is_file(), here,
              "build.dockerfile does not exist relative to build.context")
    volumes = service.get("volumes") or []
    data_mounts = [v for v in volumes if isinstance(v, str) and v.split(":")[1:2] == ["/data"]]
    if check(len(data_mounts) == 1, here, "no volume mounted at /data"):
        volume = data_mounts[0].split(":")[0]
        check(volume in (document.get("volumes") or {}), where, f"volume {volume} is not declared")
    health = (service.get("healthcheck") or {}).get("test") or []
    check(health[:3] == ["CMD", "permission-server", "healthcheck"], here,
          f"healthcheck test is {health}")
    environment = service.get("environment") or {}
    if isinstance(environment, list):
        environment = dict(item.split("=", 1) for item in environment)
    check(str(environment.get("PERMISSION_DATABASE", "")).startswith("/data/"), here,
          "PERMISSION_DATABASE is not on the /data volume")
    check(environment.get("PERMISSION_HOST") == "0.0.0.0", here, "PERMISSION_HOST is not 0.0.0.0")
    check("PERMISSION_BOOTSTRAP_ADMIN_KEY" in environment, here, "no PERMISSION_BOOTSTRAP_ADMIN_KEY")
    check_not_required(environment, here)
    user = str(service.get("user", ""))
    check(user.split(":")[0].isdigit() and user.split(":")[0] != "0", here, "user is not a numeric non-root uid")
    check(service.get("stop_signal", "SIGTERM") == "SIGTERM", here, "stop_signal is not SIGTERM")


def check_not_required(environment: dict, here: str) -> None:
    """`${VAR:?message}` makes compose fail every command (stop, exec, run) in a shell without
    VAR, not only the first `up`: the bootstrap key is needed once and then left unset."""
    for key, value in environment.items():
        # ${VAR:?message} and ${VAR?message} both stop compose when VAR is unset.
        required = re.search(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?\?", str(value or ""))
        check(required is None, here,
              f"{key} is required with ${{...:?}}: compose resolves it for every command, so stop, exec and run "
              "fail without it; use ${...:-}")


# --- Kubernetes ------------------------------------------------------------------------------

def check_container(container: dict, pod_security: dict, there: str) -> None:
    """The rules every permission-server container of a Kubernetes pod follows, on SQLite or not:
    a pinned image, the hardened securityContext, resources, port 8080 and the two probes."""
    check(image_reference_ok(container.get("image", "")), there, "image is not pinned to a tag")
    security = container.get("securityContext", {})
    check(security.get("readOnlyRootFilesystem") is True, there, "readOnlyRootFilesystem is not true")
    check(security.get("allowPrivilegeEscalation") is False, there, "allowPrivilegeEscalation is not false")
    check(security.get("runAsNonRoot", pod_security.get("runAsNonRoot")) is True, there, "not runAsNonRoot")
    uid = security.get("runAsUser", pod_security.get("runAsUser"))
    check(isinstance(uid, int) and uid > 0, there, "runAsUser is not a non-root uid")
    check("ALL" in security.get("capabilities", {}).get("drop", []), there, "capabilities do not drop ALL")
    resources_spec = container.get("resources", {})
    for kind in ("requests", "limits"):
        for unit in ("cpu", "memory"):
            check(unit in resources_spec.get(kind, {}), there, f"no resources.{kind}.{unit}")
    ports = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
    check(8080 in ports.values(), there, "containerPort 8080 is missing")
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = container.get(probe, {}).get("httpGet", {})
        check(get.get("path") == path, there, f"{probe} is not GET {path}")
        check(get.get("port") in ports or get.get("port") in ports.values(), there,
              f"{probe} port {get.get('port')} is not a container port")


def load_resources(folder: Path) -> dict[tuple[str, str], dict]:
    """(kind, name) → document, for every YAML document directly in folder."""
    resources: dict[tuple[str, str], dict] = {}
    for path in sorted(folder.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                resources[(document["kind"], document["metadata"]["name"] if "metadata" in document
                           else path.name)] = document
    return resources


def check_kubernetes(root: Path) -> None:
    folder = root / "deploy" / "kubernetes"
    resources = load_resources(folder)
    where = "deploy/kubernetes"
    sets = [doc for (kind, _), doc in resources.items() if kind == "StatefulSet"]
    if not check(len(sets) == 1, where, f"expected one StatefulSet, found {len(sets)}"):
        return
    sts = sets[0]
    here = f"{where} StatefulSet/{sts['metadata']['name']}"
    spec = sts["spec"]
    check(spec.get("replicas") == 1, here, "replicas must be 1 (SQLite has one writer)")
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"].get("labels", {})
    selector = spec["selector"].get("matchLabels", {})
    check(selector.items() <= labels.items(), here, "selector does not match the pod labels")

    claims = {c["metadata"]["name"]: c for c in spec.get("volumeClaimTemplates", [])}
    check(len(claims) >= 1, here, "no volumeClaimTemplates")
    for claim_name, claim in claims.items():
        check(claim["spec"].get("accessModes") == ["ReadWriteOnce"], here,
              f"claim {claim_name} is not ReadWriteOnce")

    governing = resources.get(("Service", spec.get("serviceName", "")))
    if check(governing is not None, here, f"serviceName {spec.get('serviceName')} is not defined"):
        check(governing["spec"].get("clusterIP") == "None", here, "the governing Service is not headless")

    pod_security = pod.get("securityContext", {})
    check(pod_security.get("runAsNonRoot") is True, here, "pod securityContext.runAsNonRoot is not true")
    secrets = check_example_secrets(resources, where)
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    containers = pod.get("containers", [])
    check(len(containers) == 1, here, "expected one container")
    for container in containers:
        there = f"{here} container {container['name']}"
        check_container(container, pod_security, there)
        mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
        data_claims = [name for name, mount in mounts.items() if mount == "/data"]
        check(bool(data_claims) and data_claims[0] in claims, there, "/data is not mounted from the claim template")
        env = {e["name"]: e for e in container.get("env", [])}
        key = env.get("PERMISSION_BOOTSTRAP_ADMIN_KEY", {}).get("valueFrom", {}).get("secretKeyRef")
        if check(key is not None, there, "PERMISSION_BOOTSTRAP_ADMIN_KEY does not come from a secretKeyRef"):
            secret = resources.get(("Secret", key["name"]))
            if check(secret is not None, there, f"no Secret {key['name']} (example) in {where}"):
                check(key["key"] in (secret.get("stringData") or secret.get("data") or {}), there,
                      f"Secret {key['name']} has no key {key['key']}")
        settings = {}
        for source in container.get("envFrom", []):
            name = source.get("configMapRef", {}).get("name")
            if name and check(("ConfigMap", name) in resources, there, f"ConfigMap {name} is not defined"):
                settings.update(resources[("ConfigMap", name)].get("data", {}))
        settings.update({n: e.get("value") for n, e in env.items() if "value" in e})
        check(str(settings.get("PERMISSION_DATABASE", "")).startswith("/data/"), there,
              "PERMISSION_DATABASE is not on /data")
        check(settings.get("PERMISSION_HOST") == "0.0.0.0", there, "PERMISSION_HOST is not 0.0.0.0")
        check("PERMISSION_AUDIT_KEY" not in env and "PERMISSION_AUDIT_KEY" not in settings, there,
              "PERMISSION_AUDIT_KEY is set; the audit key is a file from a Secret (PERMISSION_AUDIT_KEY_FILE)")
        # The key from a Secret, not the file the server would make on the data volume: a copy
        # of the volume alone must not read the sealed fields (docs/audit-chain.md).
        check_secret_files(settings, container, volumes, secrets, there, ("PERMISSION_AUDIT_KEY_FILE",))
        check_behind_a_proxy(settings, there)

    for (kind, name), document in resources.items():
        if kind != "Service":
            continue
        selector = document["spec"].get("selector", {})
        check(bool(selector) and selector.items() <= labels.items(), f"{where} Service/{name}",
              "selector does not match the StatefulSet's pods")
        container_ports = {p.get("name") for c in containers for p in c.get("ports", [])}
        container_ports |= {p["containerPort"] for c in containers for p in c.get("ports", [])}
        for port in document["spec"].get("ports", []):
            check(port.get("targetPort", port["port"]) in container_ports, f"{where} Service/{name}",
                  f"targetPort {port.get('targetPort')} is not a container port")

    check_kustomization(folder, where)


ADMIN_KEY_CHARACTERS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=")


def usable_admin_key(value: str) -> bool:
    """Whether the server would take `value` as PERMISSION_BOOTSTRAP_ADMIN_KEY (pk_<16 hex>_<random>,
    or 32-256 characters of A-Z a-z 0-9 -._~+/=): an example Secret applied as it is would then
    run with a published admin key."""
    value = value.strip()
    if value.startswith("pk_") and len(value) > 20 and all(c in "0123456789abcdef" for c in value[3:19]) \
            and value[19] == "_":
        return True
    return 32 <= len(value) <= 256 and set(value) <= ADMIN_KEY_CHARACTERS


def check_example_secrets(resources: dict, where: str) -> dict[str, dict]:
    """Every value of the example Secrets is a placeholder marked REPLACE, and none is a key the
    server would take; returns the Secrets' values by name."""
    secrets = {name: doc.get("stringData") or doc.get("data") or {}
               for (kind, name), doc in resources.items() if kind == "Secret"}
    for secret_name, values in secrets.items():
        for key, value in values.items():
            check("REPLACE" in str(value), f"{where}/secret-example.yaml",
                  f"{secret_name}.{key} is not a placeholder marked REPLACE")
            if key == "bootstrap-admin-key":
                check(not usable_admin_key(str(value)), f"{where}/secret-example.yaml",
                      f"{secret_name}.{key} is a usable admin key: applied as it is, the server would run "
                      "with a published one (a placeholder with a space is refused)")
    return secrets


def check_secret_files(settings: dict, container: dict, volumes: dict, secrets: dict, there: str,
                       names: tuple[str, ...]) -> None:
    """Each setting of `names` names a file in a Secret volume the container mounts, from a key
    the Secret has, readable by no one outside the pod's group."""
    mounts = {m["mountPath"].rstrip("/"): m["name"] for m in container.get("volumeMounts", [])}
    for setting in names:
        path = settings.get(setting, "")
        directory, _, file_name = path.rpartition("/")
        volume = volumes.get(mounts.get(directory, ""), {})
        secret_name = volume.get("secret", {}).get("secretName")
        if check(secret_name is not None, there, f"{setting} {path!r} is not in a mounted Secret volume"):
            items = {i["path"]: i for i in volume["secret"].get("items", [])}
            item = items.get(file_name)
            key = item["key"] if item else (file_name if not items else None)
            check(key is not None and key in secrets.get(secret_name, {}), there,
                  f"{setting}: Secret {secret_name} has no key for {file_name}")
            # An item's own mode overrides the volume's defaultMode for its file.
            mode = (item or {}).get("mode", volume["secret"].get("defaultMode", 0o644))
            check(mode & 0o007 == 0, there, f"the Secret volume {volume['name']} is readable by others "
                                            f"(mode {mode:o} for {file_name})")


def check_behind_a_proxy(settings: dict, there: str) -> None:
    """Clients reach the pods through an Ingress controller or another proxy: the per-address
    connection share is off, or it would cap them all together (docs/operations.md)."""
    check(str(settings.get("PERMISSION_MAX_CONNECTIONS_PER_ADDRESS")) == "0", there,
          "PERMISSION_MAX_CONNECTIONS_PER_ADDRESS is not 0: behind an Ingress or proxy every client shares its "
          "address")


def check_kustomization(folder: Path, where: str) -> None:
    kustomization = folder / "kustomization.yaml"
    if kustomization.is_file():
        listed = yaml.safe_load(kustomization.read_text()).get("resources", [])
        for entry in listed:
            check((folder / entry).is_file(), f"{where}/kustomization.yaml", f"lists missing {entry}")
        check("secret-example.yaml" not in listed, f"{where}/kustomization.yaml",
              "must not apply the example Secret")


# --- Replicas on PostgreSQL ------------------------------------------------------------------

HEARTBEAT_SECONDS = 15  # APIConfiguration.eventsHeartbeat: what an idle /v1/events stream writes


def postgres_uri_problem(value: str) -> str | None:
    """Why value is not a PostgreSQL URI without a password, or None if it is one."""
    if not re.match(r"postgres(ql)?://", value):
        return f"{value!r} is not a postgres:// URI"
    authority = value.split("://", 1)[1].split("/", 1)[0].split("?", 1)[0]
    if "@" in authority and ":" in authority.rsplit("@", 1)[0]:
        return "the URI holds a password (user:password@); use the password file"
    if re.search(r"[?&]password=", value):
        return "the URI holds a password= parameter; use the password file"
    return None


def holds_password(name: str, value: str) -> bool:
    """An environment entry that carries a database password itself (not the name of a file)."""
    if re.search(r"PASSWORD", name, re.IGNORECASE) and not name.upper().endswith("_FILE"):
        return True
    return re.search(r"://[^/@\s]*:[^/@\s]*@", value) is not None or "password=" in value.lower()


def environment_of(service: dict) -> dict[str, str]:
    environment = service.get("environment") or {}
    if isinstance(environment, list):
        environment = dict(item.split("=", 1) if "=" in item else (item, "") for item in environment)
    return {str(k): "" if v is None else str(v) for k, v in environment.items()}


def haproxy_sections(text: str) -> dict[str, list[list[str]]]:
    """'section name' → its lines split into words, comments dropped."""
    sections: dict[str, list[list[str]]] = {}
    current = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if not raw[0].isspace():
            current = sections.setdefault(" ".join(words), [])
        elif current is not None:
            current.append(words)
    return sections


def seconds(value: str) -> float:
    match = re.fullmatch(r"(\d+)(us|ms|s|m|h|d)?", value)
    if not match:
        raise ValueError(f"not a HAProxy time: {value}")
    scale = {"us": 1e-6, "ms": 1e-3, None: 1e-3, "s": 1, "m": 60, "h": 3600, "d": 86400}
    return int(match.group(1)) * scale[match.group(2)]


def check_haproxy_config(path: Path, where: str, upstream: str, replicas: int, published: set[int]) -> None:
    """Round robin over the replicas, each health-checked with GET /readyz, and timeouts that let
    an idle event stream (one heartbeat every HEARTBEAT_SECONDS) live."""
    sections = haproxy_sections(path.read_text())
    defaults = [words for name, lines in sections.items() if name.split()[0] == "defaults" for words in lines]
    check(any(words[:2] == ["mode", "http"] for words in defaults), where, "defaults are not mode http")
    backends = {name: lines for name, lines in sections.items() if name.split()[0] in ("backend", "listen")}
    if not check(len(backends) == 1, where, f"expected one backend, found {len(backends)}"):
        return
    (name, lines), = backends.items()
    here = f"{where} {name}"
    words_of = [" ".join(words) for words in lines]
    check("balance roundrobin" in words_of, here, "does not balance roundrobin")
    check("option httpchk" in words_of or any(w.startswith("option httpchk GET /readyz") for w in words_of),
          here, "no option httpchk")
    check(any(re.match(r"(http-check send meth GET uri /readyz( |$)|option httpchk GET /readyz( |$))", w)
              for w in words_of), here, "health checks do not GET /readyz")
    servers = 0
    for words in lines:
        if words[0] == "server" and len(words) >= 3:
            count, target = 1, words[2]
        elif words[0] == "server-template" and len(words) >= 4:
            bounds = words[2].split("-")
            count = int(bounds[-1]) - int(bounds[0]) + 1 if len(bounds) == 2 else int(bounds[0])
            target = words[3]
        else:
            continue
        servers += count
        check(target == upstream, here, f"server {words[1]} targets {target}, not {upstream}")
        check("check" in words[3:], here, f"server {words[1]} is not health-checked")
    check(servers >= replicas, here, f"{servers} server(s) for {replicas} replicas")
    for words in lines + defaults:
        check(words[0] != "compression", where, "compression buffers event streams")
        check(words[:2] != ["option", "http-buffer-request"], where, "option http-buffer-request")
    timeouts = {}
    for words in defaults + lines:
        if words[0] == "timeout" and len(words) >= 3:
            timeouts[words[1]] = seconds(words[2])
    for side in ("client", "server"):
        check(timeouts.get(side, 0) >= 2 * HEARTBEAT_SECONDS, where,
              f"timeout {side} is under {2 * HEARTBEAT_SECONDS}s: idle event streams (a heartbeat every "
              f"{HEARTBEAT_SECONDS}s) would be cut")
    bound = {int(words[1].rsplit(":", 1)[-1]) for name, lines_ in sections.items()
             if name.split()[0] in ("frontend", "listen") for words in lines_ if words[0] == "bind"}
    check(published <= bound, where, f"the published port(s) {sorted(published)} are not bound ({sorted(bound)})")


def check_replicated_compose(root: Path) -> None:
    where = "deploy/replicated/compose.yaml"
    path = root / where
    if not check(path.is_file(), where, "missing"):
        return
    folder = path.parent
    document = yaml.safe_load(path.read_text())
    services = document.get("services") or {}
    declared_secrets = document.get("secrets") or {}

    def is_server(service: dict) -> bool:
        return (service.get("build") or {}).get("dockerfile") == "docker/Dockerfile" \
            or str(service.get("image", "")).split(":")[0] == "permission-server"

    servers = {name: service for name, service in services.items() if is_server(service)}
    replicas = sum((service.get("deploy") or {}).get("replicas", 1) for service in servers.values())
    check(replicas >= 2, where, f"{replicas} permission-server replica(s); expected at least 2")
    databases = {name: s for name, s in services.items() if str(s.get("image", "")).startswith("postgres:")}
    balancers = {name: s for name, s in services.items() if name not in servers and name not in databases}
    check(len(databases) == 1, where, f"expected one postgres: service, found {len(databases)}")
    check(len(balancers) == 1, where, f"expected one load balancer service, found {sorted(balancers)}")

    for name, service in services.items():
        here = f"{where} services.{name}"
        for key, value in environment_of(service).items():
            check(not holds_password(key, value), here, f"environment {key} holds a password; use a secret file")
        check_not_required(environment_of(service), here)
        publishes = bool(service.get("ports"))
        check(publishes == (name in balancers), here,
              "publishes a port (only the load balancer does)" if publishes else "publishes no port")
        check(service.get("restart") in {"always", "unless-stopped", "on-failure"}, here,
              f"restart policy is {service.get('restart')!r}")
        check(service.get("read_only") is True, here, "read_only is not true")
        check("ALL" in (service.get("cap_drop") or []), here, "cap_drop does not hold ALL")
        check("no-new-privileges:true" in (service.get("security_opt") or []), here,
              "security_opt has no no-new-privileges:true")
        user = str(service.get("user", ""))
        check(user.split(":")[0].isdigit() and user.split(":")[0] != "0", here,
              "user is not a numeric non-root uid")
        for secret in service.get("secrets") or []:
            secret_name = secret if isinstance(secret, str) else secret.get("source")
            entry = declared_secrets.get(secret_name)
            if check(entry is not None, here, f"secret {secret_name} is not declared"):
                check("file" in entry, where, f"secret {secret_name} is not a file")

    database_name, database = next(iter(databases.items()), (None, {}))
    if database_name:
        here = f"{where} services.{database_name}"
        check(re.fullmatch(r"postgres:15([.-].*)?", database["image"]) is not None, here,
              f"image {database['image']} is not PostgreSQL 15")
        password_file = environment_of(database).get("POSTGRES_PASSWORD_FILE", "")
        check(password_file.startswith("/run/secrets/"), here, "POSTGRES_PASSWORD_FILE is not a secret file")
        test = (database.get("healthcheck") or {}).get("test") or []
        check(test[:2] == ["CMD", "pg_isready"], here, f"healthcheck test is {test}, not pg_isready")
        mounts = [v for v in database.get("volumes") or [] if isinstance(v, str)]
        named = [v.split(":")[0] for v in mounts if v.split(":")[1:2] == ["/var/lib/postgresql/data"]]
        if check(len(named) == 1, here, "no volume at /var/lib/postgresql/data"):
            check(named[0] in (document.get("volumes") or {}), where, f"volume {named[0]} is not declared")

    for name, service in servers.items():
        here = f"{where} services.{name}"
        build = service.get("build") or {}
        check((folder / build.get("context", ".") / build.get("dockerfile", "Dockerfile")).is_file(), here,
              "build.dockerfile does not exist relative to build.context")
        environment = environment_of(service)
        uri = environment.get("PERMISSION_DATABASE", "")
        problem = postgres_uri_problem(uri)
        if check(problem is None, here, f"PERMISSION_DATABASE: {problem}") and database_name:
            host = uri.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1].split(":")[0]
            check(host == database_name, here, f"PERMISSION_DATABASE points at {host}, not {database_name}")
        password_file = environment.get("PERMISSION_DATABASE_PASSWORD_FILE", "")
        secret_names = {s if isinstance(s, str) else s.get("source") for s in service.get("secrets") or []}
        check(password_file.startswith("/run/secrets/") and password_file.rsplit("/", 1)[-1] in secret_names,
              here, "PERMISSION_DATABASE_PASSWORD_FILE is not one of the service's secret files")
        check(environment.get("PERMISSION_HOST") == "0.0.0.0", here, "PERMISSION_HOST is not 0.0.0.0")
        check("PERMISSION_BOOTSTRAP_ADMIN_KEY" in environment, here, "no PERMISSION_BOOTSTRAP_ADMIN_KEY")
        key_file = environment.get("PERMISSION_AUDIT_KEY_FILE", "")
        check(key_file.startswith("/run/secrets/") and key_file.rsplit("/", 1)[-1] in secret_names, here,
              "PERMISSION_AUDIT_KEY_FILE is not one of the service's secret files (replicas share one audit key)")
        if database_name:
            condition = ((service.get("depends_on") or {}).get(database_name) or {}).get("condition") \
                if isinstance(service.get("depends_on"), dict) else None
            check(condition == "service_healthy", here, f"does not depend on {database_name} being healthy")
        volumes = [v for v in service.get("volumes") or []
                   if isinstance(v, dict) or not v.split(":")[0].startswith((".", "/"))]
        check(not volumes, here, f"a replica keeps no state, but mounts {volumes}")
        health = (service.get("healthcheck") or {}).get("test") or []
        check(health[:3] == ["CMD", "permission-server", "healthcheck"], here, f"healthcheck test is {health}")
        check(service.get("stop_signal", "SIGTERM") == "SIGTERM", here, "stop_signal is not SIGTERM")

    for name, service in balancers.items():
        here = f"{where} services.{name}"
        build = service.get("build") or {}
        dockerfile = folder / build.get("context", ".") / build.get("dockerfile", "Dockerfile")
        if check(dockerfile.is_file(), here, "the load balancer is not built from a Dockerfile here"):
            instructions = dockerfile_instructions(dockerfile.read_text())
            runs = " ".join(rest for keyword, rest in instructions if keyword == "RUN")
            check(re.search(r"apt-get install [^&|;]*\bhaproxy\b", runs) is not None, here,
                  "the image does not install Debian's haproxy package")
            users = [rest for keyword, rest in instructions if keyword == "USER"]
            check(bool(users) and users[-1].split(":")[0].isdigit() and users[-1].split(":")[0] != "0",
                  here, "the image's last USER is not a numeric non-root uid")
        published = set()
        for port in service.get("ports") or []:
            target = port.get("target") if isinstance(port, dict) else str(port).rsplit(":", 1)[-1]
            published.add(int(str(target).split("/")[0]))
        config = folder / "haproxy.cfg"
        if check(config.is_file(), where, "no haproxy.cfg next to it") and servers:
            upstream = f"{next(iter(servers))}:8080"
            check_haproxy_config(config, "deploy/replicated/haproxy.cfg", upstream, replicas, published)


def check_replicated_kubernetes(root: Path) -> None:
    where = "deploy/kubernetes/replicated"
    folder = root / where
    if not check(folder.is_dir(), where, "missing"):
        return
    resources = load_resources(folder)
    kinds = {kind for kind, _ in resources}
    check(not kinds & {"StatefulSet", "PersistentVolumeClaim"}, where,
          "replicas on PostgreSQL keep no volume: no StatefulSet, no PersistentVolumeClaim")
    deployments = [doc for (kind, _), doc in resources.items() if kind == "Deployment"]
    if not check(len(deployments) == 1, where, f"expected one Deployment, found {len(deployments)}"):
        return
    deployment = deployments[0]
    here = f"{where} Deployment/{deployment['metadata']['name']}"
    spec = deployment["spec"]
    check(spec.get("replicas", 1) >= 2, here, f"replicas is {spec.get('replicas', 1)}; expected at least 2")
    strategy = spec.get("strategy", {})
    check(strategy.get("type", "RollingUpdate") == "RollingUpdate", here, "the update strategy is not RollingUpdate")
    check(strategy.get("rollingUpdate", {}).get("maxUnavailable") == 0, here,
          "rollingUpdate.maxUnavailable is not 0 (an update would take capacity away)")
    labels = spec["template"]["metadata"].get("labels", {})
    check(spec["selector"].get("matchLabels", {}).items() <= labels.items(), here,
          "selector does not match the pod labels")
    pod = spec["template"]["spec"]
    pod_security = pod.get("securityContext", {})
    check(pod_security.get("runAsNonRoot") is True, here, "pod securityContext.runAsNonRoot is not true")
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for name, volume in volumes.items():
        check(not {"persistentVolumeClaim", "hostPath"} & volume.keys(), here, f"volume {name} keeps state")
    secrets = check_example_secrets(resources, where)

    containers = pod.get("containers", [])
    check(len(containers) == 1, here, "expected one container")
    for container in containers:
        there = f"{here} container {container['name']}"
        check_container(container, pod_security, there)
        env = {e["name"]: e for e in container.get("env", [])}
        settings: dict[str, str] = {}
        for source in container.get("envFrom", []):
            name = source.get("configMapRef", {}).get("name")
            if name and check(("ConfigMap", name) in resources, there, f"ConfigMap {name} is not defined"):
                settings.update(resources[("ConfigMap", name)].get("data", {}))
            check("secretRef" not in source, there, "envFrom a Secret: name each secret with secretKeyRef")
        literal = {n: str(e.get("value")) for n, e in env.items() if "value" in e}
        settings.update(literal)
        for name, value in settings.items():
            check(not holds_password(name, value), there, f"{name} holds a password; use the password file")
        check("PERMISSION_DATABASE" not in settings, there,
              "PERMISSION_DATABASE is a plain value; it comes from a Secret")
        check("PERMISSION_AUDIT_KEY" not in env and "PERMISSION_AUDIT_KEY" not in settings, there,
              "PERMISSION_AUDIT_KEY is set; the audit key is a file from a Secret (PERMISSION_AUDIT_KEY_FILE)")
        for name, key_in in (("PERMISSION_DATABASE", "uri"), ("PERMISSION_BOOTSTRAP_ADMIN_KEY", None)):
            ref = env.get(name, {}).get("valueFrom", {}).get("secretKeyRef")
            if not check(ref is not None, there, f"{name} does not come from a secretKeyRef"):
                continue
            if check(ref["name"] in secrets, there, f"no Secret {ref['name']} (example) in {where}") \
                    and check(ref["key"] in secrets[ref["name"]], there, f"Secret {ref['name']} has no key {ref['key']}"):
                value = str(secrets[ref["name"]][ref["key"]])
                if name == "PERMISSION_DATABASE":
                    problem = postgres_uri_problem(value)
                    check(problem is None, f"{where}/secret-example.yaml", f"{ref['name']}.{ref['key']}: {problem}")
        check_secret_files(settings, container, volumes, secrets, there,
                           ("PERMISSION_DATABASE_PASSWORD_FILE", "PERMISSION_AUDIT_KEY_FILE"))
        check_behind_a_proxy(settings, there)
        pre_stop = container.get("lifecycle", {}).get("preStop", {})
        command = pre_stop.get("exec", {}).get("command", [])
        pause = pre_stop.get("sleep", {}).get("seconds") or (
            int(command[1]) if len(command) == 2 and command[0] == "sleep" and command[1].isdigit() else 0)
        grace = pod.get("terminationGracePeriodSeconds", 30)
        check(0 < pause < grace, there, "no preStop pause shorter than terminationGracePeriodSeconds: a "
                                        "deleted pod stops accepting before the Service stops sending to it")

    budgets = [doc for (kind, _), doc in resources.items() if kind == "PodDisruptionBudget"]
    if check(len(budgets) == 1, where, "no PodDisruptionBudget"):
        budget = budgets[0]["spec"]
        check(budget.get("selector", {}).get("matchLabels", {}).items() <= labels.items(), where,
              "the PodDisruptionBudget does not select the Deployment's pods")
        check(budget.get("maxUnavailable", spec.get("replicas", 1) - budget.get("minAvailable", 0))
              < spec.get("replicas", 1), where, "the PodDisruptionBudget lets every replica go at once")
    container_ports = {p.get(k) for c in containers for p in c.get("ports", []) for k in ("name", "containerPort")}
    services = [(name, doc) for (kind, name), doc in resources.items() if kind == "Service"]
    check(bool(services), where, "no Service")
    for name, document in services:
        selector = document["spec"].get("selector", {})
        check(bool(selector) and selector.items() <= labels.items(), f"{where} Service/{name}",
              "selector does not match the Deployment's pods")
        for port in document["spec"].get("ports", []):
            check(port.get("targetPort", port["port"]) in container_ports, f"{where} Service/{name}",
                  f"targetPort {port.get('targetPort')} is not a container port")
    check_kustomization(folder, where)


# --- systemd ---------------------------------------------------------------------------------

def check_systemd(root: Path) -> None:
    where = "deploy/systemd/permission-server.service"
    path = root / where
    if not check(path.is_file(), where, "missing"):
        return
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
        elif current is not None:
            key, _, value = line.partition("=")
            current.setdefault(key.strip(), []).append(value.strip())
    service = sections.get("Service", {})

    def last(key: str) -> str:
        return (service.get(key) or [""])[-1]

    check(last("DynamicUser") == "yes" or last("User") not in ("", "root", "0"), where,
          "neither DynamicUser=yes nor a dedicated User=")
    for key, value in (("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                       ("PrivateTmp", "yes"), ("PrivateDevices", "yes"), ("RestrictSUIDSGID", "yes"),
                       ("KillSignal", "SIGTERM")):
        check(last(key) == value, where, f"{key} is not {value}")
    check(last("CapabilityBoundingSet") == "" and "CapabilityBoundingSet" in service, where,
          "CapabilityBoundingSet is not empty")
    state = last("StateDirectory")
    if check(state != "", where, "no StateDirectory"):
        database = next((v.split("=", 1)[1] for v in service.get("Environment", [])
                         if v.startswith("PERMISSION_DATABASE=")), "")
        check(database.startswith(f"/var/lib/{state}/"), where,
              f"PERMISSION_DATABASE {database!r} is not in the StateDirectory /var/lib/{state}")
    check(last("ExecStart").split()[1:2] == ["serve"], where, "ExecStart does not run `serve`")
    check(last("Restart") in ("on-failure", "always"), where, "no Restart= policy")
    # The exit statuses of refusals a restart cannot mend (docs/configuration.md, Exit codes).
    prevented = " ".join(service.get("RestartPreventExitStatus", [])).split()
    missing = [code for code in ("64", "65", "66", "73", "78") if code not in prevented]
    check(not missing, where,
          f"RestartPreventExitStatus= lacks {' '.join(missing)}: the unit restarts a permanent refusal")
    check("WantedBy" in sections.get("Install", {}), where, "no [Install] WantedBy=")
    check((root / "deploy/systemd/permission-server.env.example").is_file(), where,
          "no permission-server.env.example next to the unit")


STEPS = (check_dockerfile, check_compose, check_kubernetes, check_replicated_compose,
         check_replicated_kubernetes, check_systemd)


def run(root: Path) -> list[str]:
    """Every check on the tree at root; the problems found (empty when all pass)."""
    problems.clear()
    for step in STEPS:
        try:
            step(root)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, yaml.YAMLError) as error:
            problems.append(f"{step.__name__}: malformed input ({type(error).__name__}: {error})")
    return list(problems)


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    run(root)
    for problem in problems:
        print(f"problem: {problem}")
    print(f"structural checks: {'FAILED' if problems else 'ok'} ({len(problems)} problems)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
