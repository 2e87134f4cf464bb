#!/usr/bin/env bash
# `make demo`: the whole system on this machine. Installs what is missing, builds, starts a local
# PostgreSQL and the simulated cluster, installs the chart with helm, runs the operator against
# the simulated cluster, applies an example and follows it to the end. Cleans up on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
make -s all
BUILD=build
. test/lib/env.sh
export KEEP_TMP=1
EXAMPLE="${EXAMPLE:-examples/01-tpcb-baseline.yaml}"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "PostgreSQL 15 on 127.0.0.1 and the simulated cluster"
env_start_pg
env_start_sim
env_tools
echo "PostgreSQL 127.0.0.1:$PGPORT, simulated API server $SIM_URL"

step "helm install pgbench-operator (CRD, RBAC, Deployment)"
helm --kubeconfig "$KUBECONFIG" install pgbench-operator charts/pgbench-operator \
    --namespace pgbench-system --create-namespace --wait=hookOnly
# The simulated cluster stores the operator's Deployment but runs only Job pods as processes,
# so the operator itself runs here, out of cluster, with the same flags.
env_start_operator --progress-interval 2 --log-level info

step "a database Secret and $EXAMPLE (shrunk for a laptop: DEMO sizes)"
env_kubectl create secret generic pg-app --from-literal=password="$PGPASSWORD" >/dev/null
SHRINK_DURATION="${DEMO_DURATION:-10}" SHRINK_CLIENTS=8 python3 scripts/shrink-example.py "$EXAMPLE" >"$TMP/example.yaml"
env_kubectl apply -f "$TMP/example.yaml"
name="$(env_kubectl get -f "$TMP/example.yaml" -o jsonpath='{.metadata.name}')"

step "progress (kubectl get benchmarkrun $name)"
last=""
follow() { # prints each new phase and, while Running, the live line on fd 3; true once it ended
    local phase
    phase="$(env_status "$name" .status.phase)"
    if [ "$phase" != "$last" ]; then
        echo "$(date +%T) phase: ${phase:-<none>}" >&3
        last="$phase"
    fi
    if [ "$phase" = Running ]; then # live progress: status.progress, in kubectl get's RESULT
        env_kubectl get benchmarkrun "$name" --no-headers 2>/dev/null | sed 's/^/  /' >&3 || true
    fi
    case "$phase" in Succeeded | Failed) return 0 ;; *) return 1 ;; esac
}
ENV_POLL=1 env_wait_for "$name to end" "${DEMO_TIMEOUT:-300}" follow 3>&1

step "kubectl get benchmarkruns (-o wide)"
env_kubectl get benchmarkruns
env_kubectl get benchmarkruns -o wide
step "kubectl describe benchmarkrun $name"
env_kubectl describe benchmarkrun "$name"
step "result summary (status.summary)"
env_kubectl get benchmarkrun "$name" -o jsonpath='{.status.summary}' | python3 -m json.tool
step "why it is as fast as it is: kubectl get br $name -o jsonpath='{.status.diagnostics.waitEvents}'"
env_kubectl get benchmarkrun "$name" -o jsonpath='{.status.diagnostics.waitEvents}{"\n"}'
step "what limits it, and what to try next: kubectl get br $name -o jsonpath='{.status.diagnostics.verdict}'"
env_kubectl get benchmarkrun "$name" -o jsonpath='{.status.diagnostics.verdict}{"\n"}'
[ "$last" = Succeeded ]
