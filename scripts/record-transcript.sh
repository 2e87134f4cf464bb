#!/usr/bin/env bash
# Records docs/transcript.md from a real run: kubectl get br, kubectl get br -o wide and kubectl
# describe br of the demo's kind of run (2 workers, progress every second for DURATION s,
# per-statement latencies, wait events, server settings and replica lag) through the real runner,
# a local PostgreSQL 15 with a streaming replica, the simulated cluster and the real kubectl.
#
#   scripts/record-transcript.sh [OUT]     OUT defaults to docs/transcript.md; - prints it
#
# BUILD (default build) names the build directory; DURATION (default 25) the run's -T.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/transcript.md}"
case "$out" in - | /*) ;; *) out="$PWD/$out" ;; esac
: "${BUILD:=build}"
make -s BUILD="$BUILD" "$BUILD/bin/pgbench-operator" "$BUILD/bin/pgbench-runner"
. test/lib/env.sh
env_tools
env_start_pg
env_start_replica
env_start_sim

env_kubectl create secret generic pg-app --from-literal=password="$PGPASSWORD" >/dev/null
env_start_operator --start-delay 2 --progress-interval 2 --log-level info

ENV_BR_SECRET=pg-app env_br_yaml tpcb-demo "pgbench:
  init: {scale: 2}
  run: {clients: 8, threads: 2, durationSeconds: ${DURATION:-25}, builtin: tpcb-like,
        perStatementLatencies: true, progressSeconds: 1}" 'workers: 2' \
    'diagnostics: {waitEvents: true, serverSettings: true, replicaLag: true}' >"$TMP/run.yaml"
env_apply "$TMP/run.yaml"

deadline=$((SECONDS + ${TIMEOUT:-300}))
running() { # once, 5 s into the run: the live RESULT (status.progress, every --progress-interval)
    local elapsed
    case "$(env_status tpcb-demo .status.phase)" in Succeeded | Failed) return 0 ;; esac
    elapsed="$(env_status tpcb-demo .status.progress.elapsedSeconds)"
    [ "${elapsed%.*}" -ge 5 ] 2>/dev/null && env_kubectl get br >"$TMP/running.txt"
}
ENV_POLL=1
env_wait_for "5 s of the run" "${TIMEOUT:-300}" running
env_wait_phase tpcb-demo Succeeded $((deadline - SECONDS))

# kubectl's own output, with the machine-specific port and pod suffixes as they came
{
    echo '# Transcript: kubectl get and describe of a finished run'
    echo
    echo 'Recorded by `scripts/record-transcript.sh` (do not edit by hand) from a real run: the runner'
    echo 'and pgbench against a local PostgreSQL 15 with a streaming replica, the simulated cluster,'
    echo "kubectl $(env_kubectl version --client -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])'). The run:"
    echo
    echo '```yaml'
    cat "$TMP/run.yaml"
    echo '```'
    if [ -s "$TMP/running.txt" ]; then
        echo
        echo 'While it runs (`kubectl get br -w` prints the same line at each update):'
        echo
        echo '```console'
        echo '$ kubectl get br'
        cat "$TMP/running.txt"
        echo '```'
    fi
    echo
    echo "When it has ended ($(env_kubectl describe br tpcb-demo | wc -l) lines of \`kubectl describe\`):"
    for cmd in "get br" "get br -o wide" "describe br tpcb-demo"; do
        echo
        echo '```console'
        echo "\$ kubectl $cmd"
        # shellcheck disable=SC2086
        env_kubectl $cmd
        echo '```'
    done
} >"$TMP/transcript.md"
if [ "$out" = - ]; then cat "$TMP/transcript.md"; else cp "$TMP/transcript.md" "$out"; fi
lines="$(env_kubectl describe br tpcb-demo | wc -l)"
echo "recorded ${out}: kubectl describe br is $lines lines" >&2
