#!/usr/bin/env python3
"""Self-tests of scripts/validate_deploy.py: the repository's deployment files pass, and a copy
with one rule broken fails with the problem that names it.

Each case copies docker/, deploy/ and .dockerignore into a temporary folder, replaces one exact
text in one file (the case fails if that text is not there, so a case cannot pass by editing
nothing), and runs every check on the copy.

Usage: python3 scripts/test_validate_deploy.py   (scripts/validate-deploy.sh runs it)
"""

import shutil
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import validate_deploy  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

REPLICATED = "deploy/replicated/compose.yaml"
HAPROXY = "deploy/replicated/haproxy.cfg"
K8S_DEPLOYMENT = "deploy/kubernetes/replicated/deployment.yaml"
K8S_SECRETS = "deploy/kubernetes/replicated/secret-example.yaml"

# (what is broken, file, exact text, its replacement, a part of the problem expected)
CASES = [
    ("a release build without the Swift runtime linked in", "scripts/build-release.sh",
     "swift build -c release --static-swift-stdlib", "swift build -c release",
     "does not use --static-swift-stdlib"),
    ("the release build script not in the image's build context", "docker/Dockerfile",
     "COPY scripts/build-release.sh ./scripts/", "COPY scripts/setup.sh ./scripts/",
     "runs scripts/build-release.sh without copying it in"),
    ("one replica in the replicated compose", REPLICATED, "replicas: 3", "replicas: 1",
     "1 permission-server replica(s)"),
    ("a password in the replicas' URI", REPLICATED, "postgres://permissions@postgres:5432",
     "postgres://permissions:hunter2@postgres:5432", "holds a password"),
    ("a SQLite path in the replicated compose", REPLICATED,
     "PERMISSION_DATABASE: postgres://permissions@postgres:5432/permissions?sslmode=disable",
     "PERMISSION_DATABASE: /data/permissions.sqlite", "is not a postgres:// URI"),
    ("a password in the environment", REPLICATED, "      PERMISSION_LOG_FORMAT: json\n",
     "      PERMISSION_LOG_FORMAT: json\n      PGPASSWORD: hunter2\n", "environment PGPASSWORD holds a password"),
    ("PostgreSQL's password inline", REPLICATED, "POSTGRES_PASSWORD_FILE: /run/secrets/db-password",
     "POSTGRES_PASSWORD: hunter2", "environment POSTGRES_PASSWORD holds a password"),
    ("no password file for the replicas", REPLICATED,
     "      PERMISSION_DATABASE_PASSWORD_FILE: /run/secrets/db-password\n", "",
     "PERMISSION_DATABASE_PASSWORD_FILE is not one of the service's secret files"),
    ("no audit key file for the replicas", REPLICATED,
     "      PERMISSION_AUDIT_KEY_FILE: /run/secrets/audit-key\n", "",
     "PERMISSION_AUDIT_KEY_FILE is not one of the service's secret files"),
    ("the audit key in the environment", K8S_DEPLOYMENT,
     "            - name: PERMISSION_AUDIT_KEY_FILE\n              value: /run/secrets/keys/audit-key\n",
     "            - name: PERMISSION_AUDIT_KEY\n              valueFrom:\n                secretKeyRef:\n"
     "                  name: permission-server-keys\n                  key: audit-key\n",
     "PERMISSION_AUDIT_KEY is set"),
    ("the audit key file outside the Secret volume", K8S_DEPLOYMENT,
     "              value: /run/secrets/keys/audit-key\n", "              value: /tmp/audit-key\n",
     "PERMISSION_AUDIT_KEY_FILE '/tmp/audit-key' is not in a mounted Secret volume"),
    ("the audit key file naming a key the Secret lacks", K8S_DEPLOYMENT,
     "              - key: audit-key\n", "              - key: audit-key-old\n",
     "PERMISSION_AUDIT_KEY_FILE: Secret permission-server-keys has no key for audit-key"),
    ("the keys volume readable by others", K8S_DEPLOYMENT,
     "            secretName: permission-server-keys\n            defaultMode: 0440\n",
     "            secretName: permission-server-keys\n            defaultMode: 0444\n",
     "the Secret volume keys is readable by others"),
    ("no preStop pause on the replicas", K8S_DEPLOYMENT,
     "                command: [\"sleep\", \"5\"]\n", "                command: [\"true\"]\n",
     "no preStop pause"),
    ("a replica that publishes a port", REPLICATED, "    secrets:\n      - db-password\n      - audit-key\n    networks:\n      - database\n      - web\n",
     "    secrets:\n      - db-password\n      - audit-key\n    networks:\n      - database\n      - web\n    ports:\n      - \"8081:8080\"\n",
     "publishes a port (only the load balancer does)"),
    ("replicas that do not wait for a healthy database", REPLICATED, "condition: service_healthy",
     "condition: service_started", "does not depend on postgres being healthy"),
    ("a writable root in a replica", REPLICATED,
     "    user: \"10001:10001\"\n    read_only: true\n", "    user: \"10001:10001\"\n    read_only: false\n",
     "read_only is not true"),
    ("a replica running as root", REPLICATED, "user: \"10001:10001\"", "user: \"0:0\"",
     "user is not a numeric non-root uid"),
    ("no pg_isready healthcheck", REPLICATED, "[\"CMD\", \"pg_isready\",", "[\"CMD\", \"true\",",
     "not pg_isready"),
    ("HAProxy health-checks /healthz", HAPROXY, "uri /readyz", "uri /healthz", "health checks do not GET /readyz"),
    ("HAProxy without health checks", HAPROXY, "permission-server:8080 check resolvers",
     "permission-server:8080 resolvers", "is not health-checked"),
    ("HAProxy balancing leastconn", HAPROXY, "balance roundrobin", "balance leastconn",
     "does not balance roundrobin"),
    ("HAProxy cutting idle event streams", HAPROXY, "timeout server 60s", "timeout server 10s",
     "timeout server is under 30s"),
    ("HAProxy compressing responses", HAPROXY, "    balance roundrobin\n",
     "    balance roundrobin\n    compression algo gzip\n", "compression buffers event streams"),
    ("fewer HAProxy servers than replicas", HAPROXY, "server-template replica 3", "server-template replica 2",
     "2 server(s) for 3 replicas"),
    ("HAProxy on another port than the published one", HAPROXY, "bind :8080", "bind :9090",
     "are not bound"),
    ("the SQLite compose with replicas", "deploy/compose.yaml", "    deploy:\n      resources:\n",
     "    deploy:\n      replicas: 2\n      resources:\n", "deploy.replicas must be 1"),
    ("the SQLite StatefulSet with replicas", "deploy/kubernetes/statefulset.yaml", "replicas: 1", "replicas: 2",
     "replicas must be 1"),
    ("one replica in the Kubernetes Deployment", K8S_DEPLOYMENT, "replicas: 3", "replicas: 1",
     "expected at least 2"),
    ("the database URI as a plain value", K8S_DEPLOYMENT,
     "            - name: PERMISSION_DATABASE\n              valueFrom:\n                secretKeyRef:\n"
     "                  name: permission-server-database\n                  key: uri\n",
     "            - name: PERMISSION_DATABASE\n              value: postgres://permissions@db:5432/permissions\n",
     "PERMISSION_DATABASE does not come from a secretKeyRef"),
    ("a volume claim in the Deployment", K8S_DEPLOYMENT, "          emptyDir:\n            sizeLimit: 1Mi\n",
     "          persistentVolumeClaim:\n            claimName: permission-data\n", "volume data keeps state"),
    ("a Secret volume readable by others", K8S_DEPLOYMENT, "defaultMode: 0440", "defaultMode: 0444",
     "readable by others"),
    ("a rolling update that takes capacity away", K8S_DEPLOYMENT, "maxUnavailable: 0", "maxUnavailable: 1",
     "maxUnavailable is not 0"),
    ("no readiness on /readyz", K8S_DEPLOYMENT, "              path: /readyz", "              path: /healthz",
     "readinessProbe is not GET /readyz"),
    ("a password in the example URI", K8S_SECRETS, "postgres://REPLACE-user@", "postgres://REPLACE-user:pw@",
     "the URI holds a password"),
    ("an example value that is not marked", K8S_SECRETS, "password: REPLACE-with-the-database-password",
     "password: hunter2", "permission-server-database.password is not a placeholder marked REPLACE"),
    ("a usable admin key as the example's placeholder", K8S_SECRETS,
     "bootstrap-admin-key: REPLACE with a random secret, e.g. head -c 32 /dev/urandom | base64 | tr -d '/+='",
     "bootstrap-admin-key: REPLACE-with-a-random-secret-of-32-or-more-characters",
     "permission-server-keys.bootstrap-admin-key is a usable admin key"),
    ("a usable admin key in the single pod's example", "deploy/kubernetes/secret-example.yaml",
     "bootstrap-admin-key: REPLACE with a random secret, e.g. head -c 32 /dev/urandom | base64 | tr -d '/+='",
     "bootstrap-admin-key: replace-with-a-random-secret-of-32-or-more-characters",
     "is not a placeholder marked REPLACE"),
    ("the bootstrap key required with :? in compose", "deploy/compose.yaml",
     "${PERMISSION_BOOTSTRAP_ADMIN_KEY:-}", "${PERMISSION_BOOTSTRAP_ADMIN_KEY:?set it}",
     "PERMISSION_BOOTSTRAP_ADMIN_KEY is required with ${...:?}"),
    ("the bootstrap key required with :? in the replicated compose", REPLICATED,
     "${PERMISSION_BOOTSTRAP_ADMIN_KEY:-}", "${PERMISSION_BOOTSTRAP_ADMIN_KEY:?set it}",
     "PERMISSION_BOOTSTRAP_ADMIN_KEY is required with ${...:?}"),
    ("the bootstrap key required with ? in compose", "deploy/compose.yaml",
     "${PERMISSION_BOOTSTRAP_ADMIN_KEY:-}", "${PERMISSION_BOOTSTRAP_ADMIN_KEY?set it}",
     "PERMISSION_BOOTSTRAP_ADMIN_KEY is required with ${...:?}"),
    ("an item's own mode readable by others", "deploy/kubernetes/statefulset.yaml",
     "              - key: audit-key\n                path: audit-key\n",
     "              - key: audit-key\n                path: audit-key\n                mode: 0444\n",
     "readable by others (mode 444 for audit-key)"),
    ("the per-address share on behind a proxy", "deploy/kubernetes/replicated/configmap.yaml",
     '  PERMISSION_MAX_CONNECTIONS_PER_ADDRESS: "0"\n', "",
     "PERMISSION_MAX_CONNECTIONS_PER_ADDRESS is not 0"),
    ("the per-address share on in the single pod", "deploy/kubernetes/configmap.yaml",
     '  PERMISSION_MAX_CONNECTIONS_PER_ADDRESS: "0"\n', '  PERMISSION_MAX_CONNECTIONS_PER_ADDRESS: "256"\n',
     "PERMISSION_MAX_CONNECTIONS_PER_ADDRESS is not 0"),
    ("the single pod's audit key on the data volume", "deploy/kubernetes/statefulset.yaml",
     "              value: /run/secrets/keys/audit-key\n", "              value: /data/permissions.sqlite.audit-key\n",
     "PERMISSION_AUDIT_KEY_FILE '/data/permissions.sqlite.audit-key' is not in a mounted Secret volume"),
    ("no PodDisruptionBudget", "deploy/kubernetes/replicated/poddisruptionbudget.yaml",
     "kind: PodDisruptionBudget", "kind: ConfigMap", "no PodDisruptionBudget"),
    ("a systemd unit that restarts a wrong audit key", "deploy/systemd/permission-server.service",
     "RestartPreventExitStatus=64 65 66 73 78", "RestartPreventExitStatus=64 65 66 73",
     "RestartPreventExitStatus= lacks 78"),
]


class ValidateDeployTests(unittest.TestCase):
    def copy_of_repository(self) -> Path:
        folder = Path(tempfile.mkdtemp(prefix="validate-deploy-"))
        self.addCleanup(shutil.rmtree, folder)
        for name in ("docker", "deploy"):
            shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("secrets"))
        shutil.copy(ROOT / ".dockerignore", folder / ".dockerignore")
        (folder / "scripts").mkdir()
        shutil.copy(ROOT / "scripts/build-release.sh", folder / "scripts/build-release.sh")
        return folder

    def test_the_repository_passes(self):
        self.assertEqual(validate_deploy.run(ROOT), [])

    def test_a_clean_copy_passes(self):
        self.assertEqual(validate_deploy.run(self.copy_of_repository()), [])

    def test_each_broken_rule_is_reported(self):
        for what, file, old, new, expected in CASES:
            with self.subTest(what):
                root = self.copy_of_repository()
                path = root / file
                text = path.read_text()
                self.assertIn(old, text, f"the case's text is not in {file}")
                path.write_text(text.replace(old, new))
                problems = validate_deploy.run(root)
                self.assertTrue(any(expected in p for p in problems), f"expected {expected!r} among {problems}")


if __name__ == "__main__":
    unittest.main(verbosity=1)
