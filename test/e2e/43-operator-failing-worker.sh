#!/usr/bin/env bash
# A failing worker: the run ends Failed with the partial results of the workers that finished,
# and the condition names the failed pod and its error. Worker 1 is made to fail for real: a
# wrapper placed before the runner in the sim's SIM_BIN_PATH gives it a wrong password (after the
# other worker finished), so the real runner reports the real authentication error.
# Then a run where every worker fails (wrong Secret) reports the error of worker 0's pod.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
mkdir -p "$TMP/wbin"
cat >"$TMP/wbin/pgbench-runner" <<EOF
#!/usr/bin/env bash
if [ "\${JOB_COMPLETION_INDEX:-}" = 1 ]; then sleep 7; export PGPASSWORD=not-the-password; fi
exec "$BIN/pgbench-runner" "\$@"
EOF
chmod +x "$TMP/wbin/pgbench-runner"
BIN="$TMP/wbin" env_start_sim

env_kubectl create secret generic bad-pass --from-literal=password=wrong-secret >/dev/null
env_start_operator

br() { # name secret workers
    ENV_BR_SECRET="$2" env_br_yaml "$1" "pgbench: {run: {clients: $3, durationSeconds: 3, builtin: select-only}}" "workers: $3"
}
env_psql_super -d "$PGDATABASE" -c 'SELECT 1' >/dev/null
# tables for select-only (as the bench role, through the runner's own init)
"$BIN/pgbench-runner" pgbench init --scale 1 >/dev/null 2>&1 || fail "init failed"

br partial pg-pass 2 | env_apply
env_wait_phase partial Failed 120
env_kubectl get br partial -o json >"$TMP/partial.json"
env_result_json partial >"$TMP/partial-result.json"
python3 - "$TMP/partial.json" "$TMP/partial-result.json" <<'PY' || fail "partial-results check failed"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
res = json.load(open(sys.argv[2]))
conds = {c["type"]: c for c in st["conditions"]}
f = conds["Failed"]
assert f["status"] == "True" and f["reason"] == "WorkerFailed", f
m = f["message"]
assert "worker 1 (pod partial-run-1-" in m, m
assert "password authentication failed" in m, m
assert st["message"] == m
rows = {r["index"]: r for r in res["workers"]}  # the rows, in the result ConfigMap
assert rows[0]["complete"] is True and rows[0]["tps"] > 0, rows[0]
assert rows[1]["complete"] is False and rows[1]["exitCode"] != 0, rows[1]
assert "password authentication failed" in rows[1]["message"], rows[1]
# status: a line each, the failed worker's saying why
lines = st["workers"]
def head(r):  # "<index> <pod> on node <node>" (the node when the pod was bound)
    return "%d %s%s" % (r["index"], r["pod"], " on node " + r["node"] if r.get("node") else "")
assert len(lines) == 2 and lines[0].startswith(head(rows[0]) + ": ok, "), lines
assert lines[1].startswith("%s: %s" % (head(rows[1]), rows[1]["message"])), lines
assert "password authentication failed" in lines[1], lines
# partial results are kept in the summary
assert st["summary"]["transactions"] > 0 and st["summary"]["tps"] > 0, st["summary"]
print(m)
PY
ev="$(env_kubectl get events --field-selector involvedObject.name=partial,reason=Failed -o jsonpath='{.items[0].type}/{.items[0].message}')"
echo "$ev" | grep -q '^Warning/worker 1 (pod partial-run-1-' || fail "no Warning event naming the pod: $ev"

br allbad bad-pass 1 | env_apply
env_wait_phase allbad Failed 60
msg="$(env_kubectl get br allbad -o jsonpath='{.status.conditions[?(@.type=="Failed")].message}')"
echo "$msg" | grep -q 'worker 0 (pod allbad-run-0-.*password authentication failed' || fail "message: $msg"
if env_kubectl get br allbad -o json | grep -q wrong-secret; then fail "the password leaked into status"; fi
pass "failed workers are named with their error; partial results kept"
