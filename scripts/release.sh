#!/usr/bin/env bash
# The release's artifacts, made the same way by .github/workflows/release.yml and, locally,
# `make release-dry-run`. One version: the VERSION file (scripts/check-versions.sh checks).
#
# usage: scripts/release.sh plugin-archive OUTDIR
#            OUTDIR/kubectl-pgbench_linux_<arch>.tar.gz for this machine's architecture: a release
#            build of bin/kubectl-pgbench linked with rpath $ORIGIN/../lib, and lib/ with the
#            shared libraries it needs beyond glibc (libcurl, libuv, cJSON, libyaml and theirs), so
#            that it runs on any glibc >= Debian 12's without installing them
#        scripts/release.sh artifacts OUTDIR [--registry REG] [--base-url URL] [--arches "amd64 arm64"]
#            with the plugin archives already in OUTDIR: the chart package
#            (pgbench-operator-<version>.tgz), install.yaml with the release's image references
#            (REG/operator:<version>, REG/runner:<version>), the CRDs, the krew manifest
#            (pgbench.yaml) with the archives' sha256 sums and URLs under URL, and SHA256SUMS
#        scripts/release.sh dry-run [OUTDIR]
#            every step that needs no registry, into OUTDIR (default build/release): the images
#            (scripts/images.sh --if-missing: reused when up to date), the plugin archive of this
#            architecture (arm64's is built by the workflow on an arm64 emulator), the artifacts,
#            then scripts/check-versions.sh over all of them; prints each artifact and the time
#   REG default ghcr.io/pgbench-operator; URL default the GitHub release of v<version>.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
VERSION="$(cat VERSION)"
REGISTRY="ghcr.io/pgbench-operator"
BASE_URL="https://github.com/pgbench-operator/pgbench-operator/releases/download/v$VERSION"
ARCHES="amd64 arm64"

plugin_archive() { # OUTDIR
    local out="$1" arch build=build/release-plugin stage
    arch="$(dpkg --print-architecture)"
    mkdir -p "$out"
    rm -f "$build/bin/kubectl-pgbench" # LDFLAGS is no dependency of the link: link again
    # $ORIGIN for the dynamic loader (make turns $$ into $, the quotes keep the recipe's shell off
    # it); DT_RPATH, not RUNPATH, so that libcurl's own dependencies are found in lib/ as well
    make -s BUILD="$build" CFLAGS="-O2 -g" LDFLAGS="-Wl,--disable-new-dtags,-rpath,'\$\$ORIGIN/../lib'" \
        "$build/bin/kubectl-pgbench" >&2
    stage="$(mktemp -d)"
    mkdir -p "$stage/bin" "$stage/lib"
    cp "$build/bin/kubectl-pgbench" "$stage/bin/"
    strip "$stage/bin/kubectl-pgbench"
    # the libraries beyond glibc (which every Linux it targets has, and which must match its ld.so)
    ldd "$build/bin/kubectl-pgbench" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
        grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv)\.so' | while read -r lib; do
        cp -L "$lib" "$stage/lib/"
    done
    cp README.md "$stage/"
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(git log -1 --format=%ct 2>/dev/null || date +%s)" \
        -C "$stage" -czf "$out/kubectl-pgbench_linux_$arch.tar.gz" .
    rm -rf "$stage"
    # it runs from the unpacked archive with its own libraries
    stage="$(mktemp -d)"
    tar -C "$stage" -xzf "$out/kubectl-pgbench_linux_$arch.tar.gz"
    "$stage/bin/kubectl-pgbench" --version >/dev/null || { rm -rf "$stage"; echo "release: the unpacked plugin does not run" >&2; exit 1; }
    ldd "$stage/bin/kubectl-pgbench" | grep -q "$stage/bin/../lib/libcurl" ||
        { rm -rf "$stage"; echo "release: the plugin does not load libcurl from its archive" >&2; exit 1; }
    rm -rf "$stage"
    echo "$out/kubectl-pgbench_linux_$arch.tar.gz"
}

artifacts() { # OUTDIR
    local out="$1" helm chart sums
    helm="$(scripts/render-install.sh --which-helm)"
    mkdir -p "$out"
    # the packaged chart's default images are the release's (a fork publishes under its owner)
    chart="$(mktemp -d)"
    cp -r charts/pgbench-operator "$chart/"
    sed -i "s#^  repository: ghcr.io/pgbench-operator/#  repository: $REGISTRY/#" "$chart/pgbench-operator/values.yaml"
    "$helm" package "$chart/pgbench-operator" --destination "$out" >/dev/null
    rm -rf "$chart"
    scripts/render-install.sh --install-yaml --set "image.repository=$REGISTRY/operator" \
        --set "runnerImage.repository=$REGISTRY/runner" >"$out/install.yaml"
    cp crds/benchmarkrun.yaml crds/benchmarksweep.yaml "$out/"
    scripts/krew-manifest.sh --base-url "$BASE_URL" --archive-dir "$out" --arches "$ARCHES" >"$out/pgbench.yaml"
    sums="$(mktemp)"
    (cd "$out" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | sort | xargs sha256sum >"$sums")
    chmod 644 "$sums"
    mv "$sums" "$out/SHA256SUMS"
}

cmd="${1:-}"
shift || true
case "$cmd" in
plugin-archive)
    [ $# -eq 1 ] || { echo "usage: scripts/release.sh plugin-archive OUTDIR" >&2; exit 2; }
    plugin_archive "$1" ;;
artifacts)
    out="${1:?usage: scripts/release.sh artifacts OUTDIR [--registry REG] [--base-url URL] [--arches LIST]}"
    shift
    while [ $# -gt 0 ]; do
        case "$1" in
        --registry) REGISTRY="$2"; shift 2 ;;
        --base-url) BASE_URL="$2"; shift 2 ;;
        --arches) ARCHES="$2"; shift 2 ;;
        *) echo "release: unknown argument $1" >&2; exit 2 ;;
        esac
    done
    artifacts "$out" ;;
dry-run)
    out="${1:-build/release}"
    start=$SECONDS
    rm -rf "$out"
    mkdir -p "$out"
    scripts/images.sh --if-missing
    ARCHES="$(dpkg --print-architecture)"
    plugin_archive "$out" >/dev/null
    artifacts "$out"
    make -s BUILD=build/release-plugin all >/dev/null
    scripts/check-versions.sh --bin build/release-plugin/bin --images --install "$out/install.yaml" \
        --krew "$out/pgbench.yaml" --registry "$REGISTRY" | tail -1
    (cd "$out" && sha256sum --quiet -c SHA256SUMS)
    echo "release: dry run of v$VERSION in $((SECONDS - start)) s; artifacts in $out:"
    find "$out" -maxdepth 1 -type f -printf '  %-45f %9s bytes\n' | sort
    echo "release: not done here (they need a registry or GitHub): pushing the images (amd64 + arm64)," \
        "signing, SBOM/provenance attestations, pushing the chart, the arm64 plugin archive, the GitHub release"
    ;;
*) sed -n '2,24p' "$0"; exit 2 ;;
esac
