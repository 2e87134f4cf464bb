#!/usr/bin/env bash
# Builds the container images, daemonless with podman (Debian's; `make deps` installs it), or with
# docker buildx when ENGINE=docker. No registry is needed: where debian:bookworm(-slim) cannot be
# pulled, images/debian-base.sh builds them from Debian's archive first.
#
# usage: scripts/images.sh [--if-missing] [--save DIR] [operator|runner]...   (default: both)
#        scripts/images.sh --ref operator|runner   print the image's reference, build nothing
#   --if-missing  build an image only when its tag is absent or was built from other sources
#                 (label io.pgbench-operator.sources: a hash of every file its build reads and of
#                 IMAGE_BUILD_ARGS); cheap when nothing changed, so `make test` calls it
#   --save DIR    also write DIR/<image>.tar (docker-archive: `kind load image-archive`,
#                 `k3d image import`, `podman load`)
# Environment:
#   IMAGE_REGISTRY    default ghcr.io/pgbench-operator: the references the chart's defaults use,
#                     <registry>/operator:<VERSION> and <registry>/runner:<VERSION>
#   IMAGE_TAG         default the VERSION file
#   IMAGE_BUILD_ARGS  extra build arguments, e.g. "--build-arg PG_MAJOR=17" (needs apt.postgresql.org)
#   ENGINE            podman (default when installed) or docker
# Prints each image's reference, size (uncompressed, as the engine reports it) and budget, and
# exits 1 when an image exceeds its budget (IMAGE_BUDGET_MB_operator / _runner override them).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/container-engine.sh
. scripts/container-engine.sh

# size budgets in MB (10^6 bytes), checked after every build and by e2e 74
# shellcheck disable=SC2034 # read through ${!budget} in report()
{
    BUDGET_MB_operator="${IMAGE_BUDGET_MB_operator:-30}"
    BUDGET_MB_runner="${IMAGE_BUDGET_MB_runner:-80}"
}

IF_MISSING=0
SAVE=""
REF_ONLY=0
NAMES=()
while [ $# -gt 0 ]; do
    case "$1" in
    --if-missing) IF_MISSING=1 ;;
    --save) SAVE="$2"; shift ;;
    --ref) REF_ONLY=1 ;;
    -h | --help) sed -n '2,22p' "$0"; exit 0 ;;
    operator | runner) NAMES+=("$1") ;;
    *) echo "images: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ ${#NAMES[@]} -gt 0 ] || NAMES=(operator runner)
REGISTRY="${IMAGE_REGISTRY:-ghcr.io/pgbench-operator}"
TAG="${IMAGE_TAG:-$(cat VERSION)}"
if [ "$REF_ONLY" = 1 ]; then
    for name in "${NAMES[@]}"; do echo "$REGISTRY/$name:$TAG"; done
    exit 0
fi
if ! engine_detect; then
    # make test calls --if-missing: without any engine the image tests skip, and say so
    if [ "$IF_MISSING" = 1 ]; then
        echo "images: no container engine (podman or docker); the image tests will skip"
        exit 0
    fi
    echo "images: no container engine: install podman (make deps) or docker" >&2
    exit 2
fi

# version and commit as the Makefile defines them (the binaries' --version)
read -r VERSION COMMIT < <(make -s --no-print-directory print-version)
# shellcheck disable=SC2206 # word splitting of the extra arguments is intended
EXTRA=(${IMAGE_BUILD_ARGS:-})

# what an image's build reads: the files its .dockerignore lets in, and the Dockerfile
sources_hash() {
    local name="$1"
    {
        printf '%s\n' "${IMAGE_BUILD_ARGS:-}"
        find Makefile VERSION cmd pkg images/rootfs.sh images/pgdg.sh "images/$name.Dockerfile" \
            "images/$name.Dockerfile.dockerignore" -type f -print0 | sort -z | xargs -0 sha256sum
    } | sha256sum | cut -c1-64
}

report() { # name ref
    local bytes budget
    bytes="$(engine_image_field "$2" '{{.Size}}')"
    budget="BUDGET_MB_$1"
    awk -v n="$1" -v r="$2" -v b="$bytes" -v max="${!budget}" 'BEGIN {
        mb = b / 1e6
        printf "images: %-8s %s  %.1f MB (budget %d MB)%s\n", n, r, mb, max, (mb > max ? "  OVER BUDGET" : "")
        exit(mb > max)
    }'
}

base_done=0
status=0
for name in "${NAMES[@]}"; do
    ref="$REGISTRY/$name:$TAG"
    hash="$(sources_hash "$name")"
    if [ "$IF_MISSING" = 1 ] && engine_image_exists "$ref" &&
        [ "$(engine_image_field "$ref" '{{index .Config.Labels "io.pgbench-operator.sources"}}')" = "$hash" ]; then
        echo "images: $name up to date"
        report "$name" "$ref" || status=1
        continue
    fi
    if [ "$base_done" = 0 ]; then
        images/debian-base.sh
        base_done=1
    fi
    start=$SECONDS
    args=(-f "images/$name.Dockerfile" -t "$ref"
        --build-arg "PGBO_VERSION=$VERSION" --build-arg "PGBO_COMMIT=$COMMIT"
        --label "io.pgbench-operator.sources=$hash" "${EXTRA[@]}")
    mkdir -p build/images
    log="build/images/$name.build.log"
    echo "images: building $ref with $ENGINE (log $log)"
    case "$ENGINE" in
    podman)
        # podman 4.3 does not read <Dockerfile>.dockerignore by itself, BuildKit does
        podman build --layers --pull=never --ignorefile "images/$name.Dockerfile.dockerignore" \
            "${args[@]}" . >"$log" 2>&1 ;;
    docker) docker buildx build --load "${args[@]}" . >"$log" 2>&1 ;;
    esac || { tail -30 "$log" >&2; echo "images: building $name failed (log $log)" >&2; exit 1; }
    echo "images: $name built in $((SECONDS - start)) s"
    report "$name" "$ref" || status=1
    if [ -n "$SAVE" ]; then
        mkdir -p "$SAVE"
        rm -f "$SAVE/$name.tar"
        case "$ENGINE" in
        podman) podman save -q --format docker-archive -o "$SAVE/$name.tar" "$ref" ;;
        docker) docker save -o "$SAVE/$name.tar" "$ref" ;;
        esac
        echo "images: saved $SAVE/$name.tar"
    fi
done
exit "$status"
