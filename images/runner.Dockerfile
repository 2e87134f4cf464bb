# pgbench-runner: the program in every BenchmarkRun pod, with pgbench and fio.
#   make images          (scripts/images.sh: podman, or docker buildx with ENGINE=docker)
#   docker build -f images/runner.Dockerfile --build-arg PGBO_VERSION=$(cat VERSION) \
#       --build-arg PGBO_COMMIT=$(git rev-parse --short HEAD) -t ghcr.io/pgbench-operator/runner:$(cat VERSION) .
#
# pgbench version: PG_MAJOR, default 15 (Debian 12's own PostgreSQL 15). To run the load with
# another pgbench, build with another major; it then comes from the PostgreSQL Global
# Development Group's apt repository (apt.postgresql.org), and so does libpq5:
#   make images IMAGE_BUILD_ARGS="--build-arg PG_MAJOR=17"   (or docker build --build-arg PG_MAJOR=17 ...)
# then point BenchmarkRuns at it with spec.image (or the chart's runnerImage / --runner-image).
# The result JSON's pgbench.version (last line of each worker's log) records which pgbench ran.
#
# Stages:
#   build   Debian 12 with the -dev packages; `make` builds pgbench-runner.
#   fio     fio from Debian's source package (3.33 in bookworm), built where only libaio and
#           zlib are installed, so configure finds no other engine; --disable-native keeps it
#           portable. Debian's binary package links librados/librbd, glusterfs, libnuma and
#           brings python tools (~100 MB) that a storage probe on a directory never uses.
#   pgbench Debian ships pgbench in the server package postgresql-NN (whose LLVM/ICU
#           dependencies would add ~150 MB); the package is only unpacked here and the one
#           binary is copied: at run time pgbench needs libpq5 and libc only.
#   rootfs  bookworm-slim with the runtime packages (the list scripts/check-images.sh checks);
#           images/rootfs.sh copies the three programs, their ldd closure, CA certificates and a
#           passwd entry for 65532 into /rootfs.
#   (final) FROM scratch with /rootfs only.
ARG DEBIAN_RELEASE=bookworm
ARG PG_MAJOR=15

FROM debian:${DEBIAN_RELEASE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential make pkg-config \
      libcurl4-openssl-dev libcjson-dev libyaml-dev libpq-dev libuv1-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb
WORKDIR /src
COPY Makefile VERSION ./
COPY cmd ./cmd
COPY pkg ./pkg
ARG PGBO_VERSION
ARG PGBO_COMMIT=unknown
RUN test "${PGBO_VERSION}" = "$(cat VERSION)" \
      || { echo "PGBO_VERSION=${PGBO_VERSION} but VERSION says $(cat VERSION): pass --build-arg PGBO_VERSION=\$(cat VERSION)" >&2; exit 1; } \
 && make -j"$(nproc)" BUILD=/out WERROR=1 PGBO_COMMIT="${PGBO_COMMIT}" /out/bin/pgbench-runner \
 && strip /out/bin/pgbench-runner

FROM debian:${DEBIAN_RELEASE} AS fio
# deb-src for `apt-get source`: the official images list their sources in deb822
# (debian.sources), a base made with mmdebstrap (images/debian-base.sh) in sources.list
RUN set -eux; \
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then \
      sed -i 's/^Types: deb$/Types: deb deb-src/' /etc/apt/sources.list.d/debian.sources; \
    else \
      sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >/etc/apt/sources.list.d/deb-src.list; \
    fi; \
    apt-get update; \
    apt-get install -y --no-install-recommends build-essential dpkg-dev libaio-dev zlib1g-dev; \
    rm -rf /var/cache/apt/*.bin /var/cache/apt/archives/*.deb; \
    mkdir /fio && cd /fio; \
    apt-get source --only-source fio; \
    rm -rf /var/lib/apt/lists/*; \
    cd fio-*/; \
    ./configure --disable-native; \
    grep -q '^CONFIG_LIBAIO=y' config-host.mak; \
    make -j"$(nproc)" fio; \
    strip fio; \
    cp fio /usr/local/bin/fio

FROM debian:${DEBIAN_RELEASE} AS pgbench
ARG PG_MAJOR
ARG DEBIAN_RELEASE
COPY images/pgdg.sh /usr/local/bin/pgdg.sh
RUN set -eux; \
    sh /usr/local/bin/pgdg.sh "${PG_MAJOR}" "${DEBIAN_RELEASE}"; \
    cd /tmp; \
    apt-get download "postgresql-${PG_MAJOR}" "postgresql-client-${PG_MAJOR}"; \
    for deb in ./*.deb; do dpkg-deb -x "$deb" /extract; done; \
    test -x "/extract/usr/lib/postgresql/${PG_MAJOR}/bin/pgbench"; \
    cp "/extract/usr/lib/postgresql/${PG_MAJOR}/bin/pgbench" /pgbench; \
    rm -rf /var/lib/apt/lists/* /tmp/*.deb /extract

FROM debian:${DEBIAN_RELEASE}-slim AS rootfs
ARG PG_MAJOR
ARG DEBIAN_RELEASE
COPY images/pgdg.sh /usr/local/bin/pgdg.sh
RUN set -eux; \
    sh /usr/local/bin/pgdg.sh "${PG_MAJOR}" "${DEBIAN_RELEASE}"; \
    apt-get install -y --no-install-recommends \
      libcurl4 libuv1 libcjson1 libyaml-0-2 libpq5 libaio1 zlib1g ca-certificates; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/apt/archives/*.deb
COPY --from=build /out/bin/pgbench-runner /usr/local/bin/pgbench-runner
COPY --from=pgbench /pgbench /usr/local/bin/pgbench
COPY --from=fio /usr/local/bin/fio /usr/local/bin/fio
COPY images/rootfs.sh /usr/local/bin/rootfs.sh
RUN sh /usr/local/bin/rootfs.sh /rootfs /usr/local/bin/pgbench-runner /usr/local/bin/pgbench /usr/local/bin/fio

FROM scratch
COPY --from=rootfs /rootfs /
ARG PG_MAJOR
ARG PGBO_VERSION
ARG PGBO_COMMIT=unknown
LABEL org.opencontainers.image.title="pgbench-runner" \
      org.opencontainers.image.description="pgbench-operator's benchmark runner with pgbench ${PG_MAJOR} and fio" \
      org.opencontainers.image.source="https://github.com/pgbench-operator/pgbench-operator" \
      org.opencontainers.image.version="${PGBO_VERSION}" \
      org.opencontainers.image.revision="${PGBO_COMMIT}" \
      org.opencontainers.image.licenses="Apache-2.0"
# the runner execs $PGBENCH and $FIO (default: looked up on PATH)
ENV PATH=/usr/local/bin:/usr/bin \
    PG_MAJOR=${PG_MAJOR} \
    PGBENCH=/usr/local/bin/pgbench \
    FIO=/usr/local/bin/fio
# writable scratch: the operator mounts an emptyDir on /tmp (readOnlyRootFilesystem) and the
# fio PVC where fio writes
WORKDIR /tmp
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/pgbench-runner"]
