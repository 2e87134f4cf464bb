# shellcheck shell=bash
# Sourced by every script that runs a container engine (scripts/images.sh, images/debian-base.sh,
# the e2e tests that run images). Sets ENGINE to podman (daemonless, from Debian; `make deps`
# installs it) or docker (with buildx), and points podman (and the buildah it builds with) at the
# repository's images/containers.conf (runc, ulimits within the sandbox's hard limits) without
# touching the machine's own configuration.
#   ENGINE=podman|docker   choose; default: podman when installed, else docker
# engine_detect returns 1 when none is installed (callers decide: fail, or skip a test).

_engine_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$_engine_root/images/containers.conf}"

engine_detect() {
    if [ -n "${ENGINE:-}" ]; then
        case "$ENGINE" in podman | docker) ;; *) echo "ENGINE=$ENGINE: use podman or docker" >&2; return 1 ;; esac
        command -v "$ENGINE" >/dev/null 2>&1 || { echo "ENGINE=$ENGINE: not installed" >&2; return 1; }
        return 0
    fi
    local e
    for e in podman docker; do
        if command -v "$e" >/dev/null 2>&1; then
            ENGINE="$e"
            return 0
        fi
    done
    return 1
}

# engine_image_exists REF: the image is in local storage
engine_image_exists() {
    "$ENGINE" image inspect "$1" >/dev/null 2>&1
}

# engine_image_field REF GOFORMAT: one field of an image's inspect output ({{.Size}}, a label...)
engine_image_field() {
    "$ENGINE" image inspect --format "$2" "$1"
}
