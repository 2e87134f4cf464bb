#!/usr/bin/env bash
# Makes debian:bookworm and debian:bookworm-slim available to the container engine, so that
# images/*.Dockerfile build unchanged where no registry can be reached.
#
# usage: images/debian-base.sh [--force] [RELEASE]      (RELEASE default: bookworm)
#   For each of debian:RELEASE and debian:RELEASE-slim: nothing when the engine already has it;
#   else `pull` when a registry answers (PULL=0 skips trying); else it is built from Debian's
#   archive with mmdebstrap and tagged docker.io/library/debian:TAG locally, which is the name a
#   pull would give it. --force rebuilds from the archive even when present.
#   MIRROR (default http://deb.debian.org/debian) and SECURITY_MIRROR (default
#   http://deb.debian.org/debian-security) choose the archive.
#
# What is built is the official images' recipe (debuerreotype) on a minbase variant:
#   - merged /usr;
#   - apt: docker-clean (no .deb or pkgcache kept after install/update), no translations,
#     gzipped indexes, suggests not kept by autoremove; dpkg: force-unsafe-io;
#   - -slim also excludes docs, man pages, info and locales from every package dpkg installs
#     (/etc/dpkg/dpkg.cfg.d/docker), keeping copyrights;
#   - apt lists, caches and logs are empty; CMD ["bash"].
# Recommends: the official images do not turn them off; the Dockerfiles pass
# --no-install-recommends themselves.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/container-engine.sh
. "$ROOT/scripts/container-engine.sh"
FORCE=0
RELEASE=bookworm
while [ $# -gt 0 ]; do
    case "$1" in
    --force) FORCE=1 ;;
    -h | --help) sed -n '2,22p' "$0"; exit 0 ;;
    -*) echo "debian-base: unknown option $1" >&2; exit 2 ;;
    *) RELEASE="$1" ;;
    esac
    shift
done
engine_detect || { echo "debian-base: no container engine (podman or docker); run make deps" >&2; exit 2; }
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
WORK="$ROOT/build/debian-base"
mkdir -p "$WORK"

# the official images' apt and dpkg settings (debuerreotype-minimizing-config, -slimify)
write_config() { # dir slim
    local d="$1"
    mkdir -p "$d/etc/apt/apt.conf.d" "$d/etc/dpkg/dpkg.cfg.d"
    cat >"$d/etc/apt/apt.conf.d/docker-clean" <<'CONF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CONF
    echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$d/etc/apt/apt.conf.d/docker-autoremove-suggests"
    echo 'Acquire::GzipIndexes "true";' >"$d/etc/apt/apt.conf.d/docker-gzip-indexes"
    echo 'Acquire::Languages "none";' >"$d/etc/apt/apt.conf.d/docker-no-languages"
    echo 'force-unsafe-io' >"$d/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
    if [ "$2" = 1 ]; then
        cat >"$d/etc/dpkg/dpkg.cfg.d/docker" <<'CONF'
# This is the "slim" variant of the Debian base image.
# Many files which are normally unnecessary in containers are excluded,
# and this configuration file keeps them that way.
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
CONF
    fi
}

build_one() { # tag slim
    local tag="$1" slim="$2" conf="$WORK/config-$1" tar="$WORK/$1.tar"
    rm -rf "$conf"
    write_config "$conf" "$slim"
    echo "debian-base: building debian:$tag from $MIRROR with mmdebstrap"
    command -v mmdebstrap >/dev/null || { echo "debian-base: mmdebstrap not installed; run make deps" >&2; exit 2; }
    # shellcheck disable=SC2016 # "$1" in the hooks is mmdebstrap's argument: the root being built
    # setup hook: the configuration is in place before the first package is unpacked, so -slim's
    # path-excludes apply to every package; customize hook: what dpkg did not exclude (the
    # essential set is extracted before dpkg runs) and the run-time leftovers go
    mmdebstrap --variant=minbase --mode=root --format=tar \
        --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
        --setup-hook="cp -a '$conf/.' \"\$1/\"" \
        --customize-hook="if [ $slim = 1 ]; then cd \"\$1\" && find usr/share/doc -mindepth 1 -not -name copyright -not -type d -delete && find usr/share/doc -mindepth 1 -type d -empty -delete && rm -rf usr/share/man/* usr/share/info/* usr/share/groff/* usr/share/linda/* usr/share/lintian/overrides/* usr/share/locale/*; fi" \
        --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb "$1"/var/log/*.log "$1"/var/log/apt/* "$1"/tmp/*; : >"$1/etc/machine-id"' \
        "$RELEASE" "$tar" \
        "deb $MIRROR $RELEASE main" \
        "deb $MIRROR $RELEASE-updates main" \
        "deb $SECURITY_MIRROR $RELEASE-security main" >"$WORK/$tag.log" 2>&1 ||
        { tail -20 "$WORK/$tag.log" >&2; echo "debian-base: mmdebstrap failed (log $WORK/$tag.log)" >&2; exit 1; }
    "$ENGINE" import --change 'CMD ["bash"]' "$tar" "docker.io/library/debian:$tag" >/dev/null 2>"$WORK/$tag.import.log" ||
        { cat "$WORK/$tag.import.log" >&2; echo "debian-base: $ENGINE import failed" >&2; exit 1; }
    rm -f "$tar"
    rm -rf "$conf"
}

for tag in "$RELEASE" "$RELEASE-slim"; do
    slim=0
    [ "$tag" = "$RELEASE" ] || slim=1
    ref="docker.io/library/debian:$tag"
    if [ "$FORCE" = 0 ] && engine_image_exists "$ref"; then
        echo "debian-base: debian:$tag present"
        continue
    fi
    if [ "$FORCE" = 0 ] && [ "${PULL:-1}" != 0 ] &&
        timeout "${PULL_TIMEOUT:-20}" "$ENGINE" pull -q "$ref" >/dev/null 2>&1; then
        echo "debian-base: debian:$tag pulled"
        continue
    fi
    start=$SECONDS
    build_one "$tag" "$slim"
    echo "debian-base: debian:$tag built in $((SECONDS - start)) s, $(engine_image_field "$ref" '{{.Size}}' | awk '{printf "%.1f MB", $1 / 1e6}')"
done
