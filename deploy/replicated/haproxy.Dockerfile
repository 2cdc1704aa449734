# syntax=docker/dockerfile:1
#
# The load balancer of deploy/replicated/compose.yaml: HAProxy from Debian 12's own package, on the
# same base image as the server. It is the version scripts/validate-deploy.sh checks haproxy.cfg
# with (`haproxy -c`, from the same Debian package), so what CI validates is what runs.
#
#   docker build -f deploy/replicated/haproxy.Dockerfile -t permission-haproxy deploy/replicated
ARG RUNTIME_IMAGE=debian:bookworm-slim
FROM ${RUNTIME_IMAGE}

LABEL org.opencontainers.image.title="permission-haproxy" \
      org.opencontainers.image.description="HAProxy (Debian package) in front of permission-server replicas"

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# A fixed system uid for the package's haproxy user, created before the package (whose postinst
# keeps an existing system user), so that compose can name it numerically.
# hadolint ignore=DL3008
RUN export DEBIAN_FRONTEND=noninteractive \
    && groupadd --system --gid 998 haproxy \
    && useradd --system --uid 998 --gid 998 --home-dir /var/lib/haproxy --no-create-home \
        --shell /usr/sbin/nologin haproxy \
    && apt-get update -q \
    && apt-get install -y -q --no-install-recommends haproxy \
    && rm -rf /var/lib/apt/lists/*

COPY haproxy.cfg /etc/haproxy/haproxy.cfg
RUN haproxy -c -q -f /etc/haproxy/haproxy.cfg

USER 998:998
EXPOSE 8080

# SIGUSR1 is HAProxy's soft stop: it stops listening and lets open requests finish (event streams
# are ended by `hard-stop-after` in haproxy.cfg; their clients resume with Last-Event-ID).
STOPSIGNAL SIGUSR1

ENTRYPOINT ["haproxy", "-db", "-f", "/etc/haproxy/haproxy.cfg"]
