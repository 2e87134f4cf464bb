#!/usr/bin/env bash
# The simulated cluster in the foreground. Pods find the project's programs in build/bin.
set -euo pipefail
cd "$(dirname "$0")/.."
export SIM_BIN_PATH="${SIM_BIN_PATH:-$PWD/${BUILD:-build}/bin}"
export SIM_KUBECONFIG="${SIM_KUBECONFIG:-$PWD/build/sim/kubeconfig}"
mkdir -p "$(dirname "$SIM_KUBECONFIG")"
echo "kubeconfig: $SIM_KUBECONFIG   (export KUBECONFIG=$SIM_KUBECONFIG)" >&2
exec node test/sim/main.js --kubeconfig "$SIM_KUBECONFIG" "$@"
