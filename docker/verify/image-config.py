"""The image configuration docker/verify-image.sh checks: a numeric non-root USER, VOLUME /data,
port 8080, STOPSIGNAL SIGTERM, the healthcheck subcommand as HEALTHCHECK, the database under
/data and an exec-form ENTRYPOINT/CMD of permission-server.

usage: image-config.py IMAGE_JSON COMMAND_OUT (writes the command, NUL-separated)
"""
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
