#!/usr/bin/env bash
# Every run has a deadline: a `transactions` run against a target that cannot finish in time (here
# 100 million transactions per client, timeoutSeconds 15) no longer waits forever. At the
# deadline the runner stops pgbench (BENCH_DEADLINE_AT) and reports what it measured; the run
# ends Failed with reason DeadlineExceeded and the partial results stay in status. The run Job
# carries the same deadline (activeDeadlineSeconds = start delay + timeout + 15 s), and so does the
# init Job (timeoutSeconds applies to each phase).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

env_start_operator
env_kubectl create secret generic forever-pass --from-literal=password="$PGPASSWORD" >/dev/null

ENV_BR_SECRET=forever-pass env_br_yaml forever \
    'pgbench: {init: {scale: 1}, run: {clients: 2, transactions: 100000000, builtin: select-only, progressSeconds: 1}}' \
    'timeoutSeconds: 15' 'diagnostics: {replicaLag: false}' | env_apply

env_wait_for "init Job" 30 env_kubectl get job forever-init
[ "$(env_kubectl get job forever-init -o jsonpath='{.spec.activeDeadlineSeconds}')" = 15 ] ||
    fail "init Job activeDeadlineSeconds: $(env_kubectl get job forever-init -o jsonpath='{.spec.activeDeadlineSeconds}')"
env_wait_for "run Job" 60 env_kubectl get job forever-run
[ "$(env_kubectl get job forever-run -o jsonpath='{.spec.activeDeadlineSeconds}')" = $((1 + 15 + 15)) ] ||
    fail "run Job activeDeadlineSeconds: $(env_kubectl get job forever-run -o jsonpath='{.spec.activeDeadlineSeconds}')"
env_kubectl get job forever-run -o json >"$TMP/run-job.json"
env_kubectl get br forever -o json >"$TMP/br-running.json"
python3 - "$TMP/run-job.json" "$TMP/br-running.json" <<'PY' || fail "BENCH_DEADLINE_AT is not the Running entry + start delay 1 + 15"
import json, sys
from datetime import datetime
job, br = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
running = [c for c in br["status"]["conditions"] if c["type"] == "Running"][0]
entry = int(datetime.fromisoformat(running["lastTransitionTime"].replace("Z", "+00:00")).timestamp())
env = {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
assert env["BENCH_DEADLINE_AT"] == str(entry + 1 + 15), (env, running)
PY

env_wait_phase forever Failed 60
env_kubectl get br forever -o json >"$TMP/br.json"
env_result_json forever >"$TMP/forever-result.json"
python3 - "$TMP/br.json" "$TMP/run-job.json" "$TMP/forever-result.json" <<'PY' || { env_kubectl get br forever -o yaml >&2; fail "status after the deadline"; }
import json, sys
from datetime import datetime
st = json.load(open(sys.argv[1]))["status"]
job = json.load(open(sys.argv[2]))
conds = {c["type"]: c for c in st["conditions"]}
assert st["phase"] == "Failed", st["phase"]
# not before the deadline (a clock read, not a sleep: the test may be slow, the run must not be early)
env = {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
failed_at = datetime.fromisoformat(conds["Failed"]["lastTransitionTime"].replace("Z", "+00:00")).timestamp()
assert failed_at >= int(env["BENCH_DEADLINE_AT"]), (conds["Failed"], env["BENCH_DEADLINE_AT"])
assert conds["Failed"]["reason"] == "DeadlineExceeded", conds["Failed"]
msg = conds["Failed"]["message"]
assert msg.startswith("the run exceeded its deadline (spec.timeoutSeconds 15 s, from the run's start): worker 0 (pod forever-run-0-"), msg
assert "deadline: pgbench was still running at the run's deadline" in msg, msg
assert st["message"] == msg
w = json.load(open(sys.argv[3]))["workers"][0]  # the row, in the result ConfigMap
assert w["exitCode"] == 2 and w["complete"] is False, w
assert st["workers"][0].startswith("0 %s on node %s: exit code 2: " % (w["pod"], w["node"])), st["workers"]
# the partial results: what pgbench did before it was stopped (its progress lines and the
# percentiles of its transaction logs; a stopped pgbench prints no final report)
assert st["summary"]["latencyMs"]["p99"] > 0, st.get("summary")
tps = [float(x) for x in st.get("timeline", {}).get("tps", "").split()]
assert len(tps) >= 5, st.get("timeline")
assert all(x > 0 for x in tps[1:-1]), st["timeline"]
assert "WorkersBlocked" not in conds, conds
print(msg)
PY
pass "a transactions run that cannot finish ends Failed DeadlineExceeded at timeoutSeconds, partial results kept"
