# pgbench-operator: the controller.
#   make images          (scripts/images.sh: podman, or docker buildx with ENGINE=docker)
#   docker build -f images/operator.Dockerfile --build-arg PGBO_VERSION=$(cat VERSION) \
#       --build-arg PGBO_COMMIT=$(git rev-parse --short HEAD) -t ghcr.io/pgbench-operator/operator:$(cat VERSION) .
# Stages:
#   build    Debian 12 (bookworm) with the -dev packages builds with the project's Makefile.
#   rootfs   bookworm-slim with the runtime packages the binary links against (the list
#            scripts/check-images.sh checks); images/rootfs.sh copies the binary and its ldd
#            closure, CA certificates and a passwd entry for 65532 into /rootfs.
#   (final)  FROM scratch with /rootfs only: no shell, no package manager. No libpq: the
#            operator never talks to PostgreSQL (the Makefile does not link it).
ARG DEBIAN_RELEASE=bookworm

FROM debian:${DEBIAN_RELEASE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential make pkg-config \
      libcurl4-openssl-dev libcjson-dev libyaml-dev libuv1-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb
WORKDIR /src
COPY Makefile VERSION ./
COPY cmd ./cmd
COPY pkg ./pkg
# the binary's --version and the image's labels come from the same VERSION file (no .git here:
# the commit comes in as a build argument)
ARG PGBO_VERSION
ARG PGBO_COMMIT=unknown
RUN test "${PGBO_VERSION}" = "$(cat VERSION)" \
      || { echo "PGBO_VERSION=${PGBO_VERSION} but VERSION says $(cat VERSION): pass --build-arg PGBO_VERSION=\$(cat VERSION)" >&2; exit 1; } \
 && make -j"$(nproc)" BUILD=/out WERROR=1 PGBO_COMMIT="${PGBO_COMMIT}" /out/bin/pgbench-operator \
 && strip /out/bin/pgbench-operator

FROM debian:${DEBIAN_RELEASE}-slim AS rootfs
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libcurl4 libuv1 libcjson1 libyaml-0-2 ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb
COPY --from=build /out/bin/pgbench-operator /usr/local/bin/pgbench-operator
COPY images/rootfs.sh /usr/local/bin/rootfs.sh
RUN sh /usr/local/bin/rootfs.sh /rootfs /usr/local/bin/pgbench-operator

FROM scratch
COPY --from=rootfs /rootfs /
ARG PGBO_VERSION
ARG PGBO_COMMIT=unknown
LABEL org.opencontainers.image.title="pgbench-operator" \
      org.opencontainers.image.description="Kubernetes operator that benchmarks PostgreSQL with pgbench and fio (BenchmarkRun)" \
      org.opencontainers.image.source="https://github.com/pgbench-operator/pgbench-operator" \
      org.opencontainers.image.version="${PGBO_VERSION}" \
      org.opencontainers.image.revision="${PGBO_COMMIT}" \
      org.opencontainers.image.licenses="Apache-2.0"
# 65532: the conventional "nonroot" uid/gid (in /etc/passwd); runs with a read-only root
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/pgbench-operator"]
