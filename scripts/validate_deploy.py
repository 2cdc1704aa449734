#!/usr/bin/env python3
"""Structural checks of the container image recipe and the deployment manifests.

Complements the generic linters run by scripts/validate-deploy.sh (hadolint, kubernetes-validate,
systemd-analyze) with the rules this service depends on: one SQLite writer, a numeric non-root
user, the database on /data, the probes on /healthz and /readyz, keys from a Secret, and a
hardened systemd unit. Prints one line per problem and exits 1 if there is any.

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
    check("--static-swift-stdlib" in build_runs, where, "the build does not use --static-swift-stdlib")
    check("-c release" in build_runs, where, "the build is not a release build")
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
    user = str(service.get("user", ""))
    check(user.split(":")[0].isdigit() and user.split(":")[0] != "0", here, "user is not a numeric non-root uid")
    check(service.get("stop_signal", "SIGTERM") == "SIGTERM", here, "stop_signal is not SIGTERM")


# --- Kubernetes ------------------------------------------------------------------------------

def check_kubernetes(root: Path) -> None:
    folder = root / "deploy" / "kubernetes"
    resources: dict[tuple[str, str], dict] = {}
    for path in sorted(folder.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                resources[(document["kind"], document["metadata"]["name"] if "metadata" in document
                           else path.name)] = document
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
    containers = pod.get("containers", [])
    check(len(containers) == 1, here, "expected one container")
    for container in containers:
        there = f"{here} container {container['name']}"
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

    kustomization = folder / "kustomization.yaml"
    if kustomization.is_file():
        listed = yaml.safe_load(kustomization.read_text()).get("resources", [])
        for entry in listed:
            check((folder / entry).is_file(), f"{where}/kustomization.yaml", f"lists missing {entry}")
        check("secret-example.yaml" not in listed, f"{where}/kustomization.yaml",
              "must not apply the example Secret")


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
    check("WantedBy" in sections.get("Install", {}), where, "no [Install] WantedBy=")
    check((root / "deploy/systemd/permission-server.env.example").is_file(), where,
          "no permission-server.env.example next to the unit")


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    for step in (check_dockerfile, check_compose, check_kubernetes, check_systemd):
        try:
            step(root)
        except (KeyError, TypeError, ValueError, AttributeError, yaml.YAMLError) as error:
            problems.append(f"{step.__name__}: malformed input ({type(error).__name__}: {error})")
    for problem in problems:
        print(f"problem: {problem}")
    print(f"structural checks: {'FAILED' if problems else 'ok'} ({len(problems)} problems)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
