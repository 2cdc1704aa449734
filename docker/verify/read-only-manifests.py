"""What a runtime gives the read-only run of docker/verify-image.sh, read from the manifests:
compose's read_only and tmpfs, the StatefulSet's readOnlyRootFilesystem, /data claim and emptyDirs
(the two sets of writable temporary mounts must agree), and the environment (the image's plus
compose's settings).

usage: read-only-manifests.py IMAGE_JSON COMPOSE STATEFULSET ENV_OUT MOUNTS_OUT
"""
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
