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

env_kubectl apply -f crds/benchmarkrun.yaml >/dev/null
env_kubectl create secret generic pg-app --from-literal=password="$PGPASSWORD" >/dev/null
env_bg operator "$BIN/pgbench-operator" --kubeconfig "$KUBECONFIG" --metrics-addr 0 \
    --start-delay 2 --progress-interval 2 >/dev/null

cat >"$TMP/run.yaml" <<EOF
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: tpcb-demo}
spec:
  target: {host: 127.0.0.1, port: $PGPORT, database: $PGDATABASE, user: $PGUSER,
           passwordSecretRef: {name: pg-app}, sslMode: disable}
  workload:
    pgbench:
      init: {scale: 2}
      run: {clients: 8, threads: 2, durationSeconds: ${DURATION:-25}, builtin: tpcb-like,
            perStatementLatencies: true, progressSeconds: 1}
  workers: 2
  diagnostics: {waitEvents: true, serverSettings: true, replicaLag: true}
EOF
env_kubectl apply -f "$TMP/run.yaml" >/dev/null

deadline=$((SECONDS + ${TIMEOUT:-300}))
while :; do
    phase="$(env_kubectl get br tpcb-demo -o jsonpath='{.status.phase}')"
    case "$phase" in Succeeded | Failed) break ;; esac
    # once, 5 s into the run: the live RESULT (status.progress, every --progress-interval)
    elapsed="$(env_kubectl get br tpcb-demo -o jsonpath='{.status.progress.elapsedSeconds}')"
    if [ ! -s "$TMP/running.txt" ] && [ "${elapsed%.*}" -ge 5 ] 2>/dev/null; then
        env_kubectl get br >"$TMP/running.txt"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
        tail -20 "$TMP/operator.log" >&2
        fail "the run did not end in 300 s (phase ${phase:-none})"
    fi
    sleep 1
done

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
[ "$phase" = Succeeded ] || { cat "$TMP/transcript.md" >&2; fail "the run $phase"; }
if [ "$out" = - ]; then cat "$TMP/transcript.md"; else cp "$TMP/transcript.md" "$out"; fi
lines="$(env_kubectl describe br tpcb-demo | wc -l)"
echo "recorded ${out}: kubectl describe br is $lines lines" >&2
