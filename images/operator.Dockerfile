# syntax=docker/dockerfile:1.6
# pgbench-operator: the controller.
#   docker build -f images/operator.Dockerfile -t ghcr.io/pgbench-operator/operator:0.1.0 .
# Multi-stage: Debian 12 (bookworm) with the -dev packages builds with the project's Makefile;
# the runtime stage is bookworm-slim with only the shared libraries the binary links against
# (scripts/check-images.sh proves the list is complete: every ldd dependency of the binary
# resolves to one of these packages or their dependencies, and the binary runs in a rootfs
# made of only those packages). No libpq: the operator never talks to PostgreSQL (the Makefile
# does not link it), only the runner does.
ARG DEBIAN_RELEASE=bookworm

FROM debian:${DEBIAN_RELEASE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential make pkg-config \
      libcurl4-openssl-dev libcjson-dev libyaml-dev libuv1-dev zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Makefile ./
COPY cmd ./cmd
COPY pkg ./pkg
RUN make -j"$(nproc)" BUILD=/out WERROR=1 /out/bin/pgbench-operator \
 && strip /out/bin/pgbench-operator

FROM debian:${DEBIAN_RELEASE}-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libcurl4 libuv1 libcjson1 libyaml-0-2 ca-certificates \
 && rm -rf /var/lib/apt/lists/* /usr/share/doc /usr/share/man
COPY --from=build /out/bin/pgbench-operator /usr/local/bin/pgbench-operator
# 65532: the conventional "nonroot" uid/gid; no shell login, no home needed
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/pgbench-operator"]
