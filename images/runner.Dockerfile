# syntax=docker/dockerfile:1.6
# pgbench-runner: the program in every BenchmarkRun pod, with pgbench and fio.
#   docker build -f images/runner.Dockerfile -t ghcr.io/pgbench-operator/runner:0.1.0 .
#
# pgbench version: PG_MAJOR, default 15 (Debian 12's own PostgreSQL 15). To run the load with
# another pgbench, build with another major; it then comes from the PostgreSQL Global
# Development Group's apt repository (apt.postgresql.org), and so does libpq5:
#   docker build -f images/runner.Dockerfile --build-arg PG_MAJOR=17 -t my/runner:pg17 .
# then point BenchmarkRuns at it with spec.image (or the chart's runnerImage / --runner-image).
# The result JSON's pgbench.version (last line of each worker's log) records which pgbench ran.
#
# Stages:
#   build   Debian 12 with the -dev packages; `make` builds pgbench-runner.
#   pgbench Debian ships pgbench in the server package postgresql-NN (whose LLVM/ICU
#           dependencies would add ~150 MB); the package is only unpacked here and the one
#           binary is copied: at run time pgbench needs libpq5 and libc only.
#   runtime bookworm-slim with only runtime packages. scripts/check-images.sh proves the list
#           is complete: every ldd dependency of pgbench-runner, pgbench and fio resolves to a
#           listed package or one of their dependencies, and each runs in a rootfs made of
#           only those packages.
ARG DEBIAN_RELEASE=bookworm
ARG PG_MAJOR=15

FROM debian:${DEBIAN_RELEASE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential make pkg-config \
      libcurl4-openssl-dev libcjson-dev libyaml-dev libpq-dev libuv1-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Makefile ./
COPY cmd ./cmd
COPY pkg ./pkg
RUN make -j"$(nproc)" BUILD=/out WERROR=1 /out/bin/pgbench-runner \
 && strip /out/bin/pgbench-runner

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
    cp "/extract/usr/lib/postgresql/${PG_MAJOR}/bin/pgbench" /pgbench

FROM debian:${DEBIAN_RELEASE}-slim
ARG PG_MAJOR
ARG DEBIAN_RELEASE
COPY images/pgdg.sh /usr/local/bin/pgdg.sh
RUN set -eux; \
    sh /usr/local/bin/pgdg.sh "${PG_MAJOR}" "${DEBIAN_RELEASE}"; \
    rm /usr/local/bin/pgdg.sh; \
    apt-get install -y --no-install-recommends \
      libcurl4 libuv1 libcjson1 libyaml-0-2 libpq5 ca-certificates fio; \
    rm -rf /var/lib/apt/lists/* /usr/share/doc /usr/share/man
COPY --from=build /out/bin/pgbench-runner /usr/local/bin/pgbench-runner
COPY --from=pgbench /pgbench /usr/local/bin/pgbench
# the runner execs $PGBENCH and $FIO (default: looked up on PATH)
ENV PG_MAJOR=${PG_MAJOR} \
    PGBENCH=/usr/local/bin/pgbench \
    FIO=/usr/bin/fio
# writable scratch: the operator mounts an emptyDir on /tmp (readOnlyRootFilesystem) and the
# fio PVC where fio writes
WORKDIR /tmp
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/pgbench-runner"]
