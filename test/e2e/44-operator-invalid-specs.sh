#!/usr/bin/env bash
# Invalid specs: those the API server's structural schema refuses are refused by kubectl with the
# field named; those that pass it each end Failed with reason InvalidSpec and a message naming the
# field and the fix. The sim runs with --no-cel, like an API server that does not evaluate the
# CRD's x-kubernetes-validations (before 1.25, or feature off): the cross-field rules then reach
# the operator, which re-checks them (40-operator-basic shows CEL refusing one at the API server).
# Fixing the spec of a refused run evaluates it again.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim --no-cel
env_start_operator --start-delay 0

T="target: {host: 127.0.0.1, port: $PGPORT, database: $PGDATABASE, user: $PGUSER, passwordSecretRef: {name: pg-pass}, sslMode: disable}"
apply_br() { # name spec-body (YAML lines, indented 2)
    printf 'apiVersion: pgbench.dev/v1alpha1\nkind: BenchmarkRun\nmetadata: {name: %s}\nspec:\n%s\n' "$1" "$2" |
        env_kubectl apply -f - 2>&1
}

# 1. refused by the API server (structural schema, fieldValidation=Strict from kubectl)
# Rows: spec lines after the target (\n-separated) | text expected in kubectl's error
i=0
while IFS='|' read -r spec expect; do
    [ -n "$spec" ] || continue
    i=$((i + 1))
    out="$(apply_br "schema$i" "  $T
$(printf '%b' "$spec")")" && fail "schema case $i accepted: $spec"
    echo "$out" | grep -q -- "$expect" || fail "schema case $i: expected '$expect' in: $out"
done <<'TABLE'
  workload: {pgbench: {run: {durationSeconds: 5, builtn: tpcb-like}}}|unknown field "spec.workload.pgbench.run.builtn"
  workload: {pgbench: {run: {durationSeconds: 5, builtin: tpcc}}}|spec.workload.pgbench.run.builtin
  workers: 0\n  workload: {pgbench: {run: {durationSeconds: 5}}}|spec.workers
  workload: {pgbench: {run: {durationSeconds: "five"}}}|spec.workload.pgbench.run.durationSeconds
TABLE
# a database that is a libpq connection string would override sslMode for pgbench alone: the
# CRD's pattern refuses it (the operator and the runner refuse it too: test_spec, e2e 34)
i=$((i + 1))
out="$(apply_br "schema$i" "  target: {host: 127.0.0.1, port: $PGPORT, user: $PGUSER, database: 'postgres sslmode=disable', sslMode: require}
  workload: {pgbench: {run: {durationSeconds: 5}}}")" && fail "a database with sslmode=disable was accepted"
echo "$out" | grep -q 'spec.target.database in body should match' || fail "schema case $i: $out"
i=$((i + 1))
out="$(apply_br "schema$i" "  target: {host: 127.0.0.1, port: $PGPORT, database: $PGDATABASE, user: 'postgresql://x', sslMode: require}
  workload: {pgbench: {run: {durationSeconds: 5}}}")" && fail "a user that is a URI was accepted"
echo "$out" | grep -q 'spec.target.user in body should match' || fail "schema case $i: $out"
nschema=$i

# 2. accepted by the schema, refused by the operator with a clear condition. extraArgs the
# runner would refuse are among them: the operator asks the runner's own allow-list, so such a
# run ends InvalidSpec before its init Job, not once its pods start.
# Rows: spec lines (\n-separated; TGT stands for the target) | expected message
i=0
while IFS='|' read -r spec expect; do
    [ -n "$spec" ] || continue
    i=$((i + 1))
    spec="$(printf '%b' "${spec//TGT/$T}")"
    apply_br "op$i" "$spec" >/dev/null || fail "op case $i refused by the API server: $spec"
    printf '%s\n' "$expect" >"$TMP/expect$i"
done <<'TABLE'
  TGT\n  workload: {pgbench: {run: {durationSeconds: 5, transactions: 100}}}|spec.workload.pgbench.run: set exactly one of durationSeconds or transactions
  TGT\n  workload: {pgbench: {run: {clients: 1}}}|spec.workload.pgbench.run: set exactly one of durationSeconds or transactions
  target: {host: 127.0.0.1, user: u, cnpg: {clusterName: pg}}\n  workload: {pgbench: {run: {durationSeconds: 5}}}|spec.target: set exactly one of host or cnpg
  target: {host: 127.0.0.1}\n  workload: {pgbench: {run: {durationSeconds: 5}}}|spec.target.user: required with target.host
  target: {cnpg: {clusterName: pg}, user: bench, passwordSecretRef: {name: other}}\n  workload: {pgbench: {run: {durationSeconds: 5}}}|spec.target.passwordSecretRef: the password comes from the CloudNativePG Secret pg-app
  TGT\n  workers: 4\n  workload: {pgbench: {run: {clients: 2, durationSeconds: 5}}}|spec.workload.pgbench.run.clients: 2 clients cannot be split over 4 workers
  target: {host: 127.0.0.1, user: u, sslMode: verify-full}\n  workload: {pgbench: {run: {durationSeconds: 5}}}|spec.target.caSecretRef: required with sslMode verify-full
  TGT\n  workload: {pgbench: {run: {durationSeconds: 5, extraArgs: ["-c", "50"]}}}|spec.workload.pgbench.run.extraArgs[0]: -c is set by the operator
  TGT\n  workload: {pgbench: {init: {scale: 1}, run: {durationSeconds: 5, extraArgs: ["-Dx=1", "--progress-timestamp"]}}}|spec.workload.pgbench.run.extraArgs[1]: '--progress-timestamp' is not allowed for pgbench run
  TGT\n  workload: {pgbench: {run: {durationSeconds: 5, extraArgs: ["--random-seed", "banana"]}}}|spec.workload.pgbench.run.extraArgs[0]: invalid value for '--random-seed'
  TGT\n  workload: {pgbench: {run: {durationSeconds: 5, latencyLimitMs: 10}}}|spec.workload.pgbench.run.latencyLimitMs: only allowed with rate
  TGT\n  workload: {pgbench: {run: {durationSeconds: 5}}}\n  hpa: {scaleTargetRef: {kind: StatefulSet, name: r}, minReplicas: 3, maxReplicas: 2}|spec.hpa.maxReplicas: must be >= minReplicas (3)
  target: {host: 127.0.0.1, user: u, database: éééééééééééééééééééééééééééééééé}\n  workload: {pgbench: {run: {durationSeconds: 5}}}|spec.target.database "éééééééééééééééééééééééééééééééé": is 64 bytes; PostgreSQL names are at most 63 bytes
  TGT\n  workload: {pgbench: {run: {durationSeconds: 5, builtin: select-only, builtinWeight: 0, scripts: [{configMapRef: {name: s, key: a.sql}, weight: 0}]}}}|spec.workload.pgbench.run: total script weight must not be zero (pgbench refuses to run)
  TGT\n  workload: {pgbench: {run: {durationSeconds: 5, builtinWeight: 2, scripts: [{configMapRef: {name: s, key: a.sql}}]}}}|spec.workload.pgbench.run.builtinWeight: the weight of run.builtin beside run.scripts
  workload: {fio: {volumeSize: 1Gi, jobs: [{name: a, rw: write, size: 600m}, {name: big, rw: write, size: 150m, numjobs: 2}]}}|spec.workload.fio.jobs[1] (big): size 150m x numjobs 2 = 300 MiB, 900 MiB with the jobs before it, does not fit volumeSize 1Gi: 889.6 MiB of it are usable
TABLE
n=$i
for i in $(seq 1 "$n"); do
    expect="$(cat "$TMP/expect$i")"
    env_wait_phase "op$i" Failed 30
    reason="$(env_status "op$i" '.status.conditions[?(@.type=="Failed")].reason')"
    msg="$(env_status "op$i" '.status.conditions[?(@.type=="Failed")].message')"
    [ "$reason" = InvalidSpec ] || fail "op$i: reason $reason ($msg)"
    case "$msg" in "$expect"*) ;; *) fail "op$i: message '$msg', expected '$expect'" ;; esac
    for j in init run; do
        env_kubectl get job "op$i-$j" >/dev/null 2>&1 && fail "op$i: a $j Job was created for an invalid spec"
    done
    note "op$i: $msg"
done

# 3. a name too long for the child names
long="a-benchmark-run-name-that-is-much-too-long-for-child-job-names"
apply_br "$long" "  $T
  workload: {pgbench: {run: {durationSeconds: 5}}}" >/dev/null
env_wait_phase "$long" Failed 30
env_status "$long" .status.message | grep -q 'metadata.name: at most 57 characters' || fail "long name message"

# 4. fixing the spec of a refused run evaluates it again, and it runs
"$BIN/pgbench-runner" pgbench init --scale 1 >/dev/null 2>&1 || fail "init failed"
apply_br op1 "  $T
  workload: {pgbench: {run: {transactions: 20, builtin: select-only}}}" >/dev/null
env_wait_phase op1 Succeeded 60
st="$(env_status op1 '{.status.conditions[?(@.type=="Failed")].status}/{.status.observedGeneration}')"
[ "$st" = "False/2" ] || fail "after the fix: Failed condition / observedGeneration = $st"
pass "$n operator-refused specs and $nschema schema-refused specs, each with a clear message"
