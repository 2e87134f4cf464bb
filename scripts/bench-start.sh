#!/usr/bin/env bash
# `make bench` figure for the start barrier (issue 18.6): the skew between the workers' first
# transactions in a multi-worker run, measured by PostgreSQL, not taken from the runners. A
# 3-worker run on the simulated cluster, one worker's pod held in ContainerCreating for
# BENCH_PULL_MS (8000; the sim's /sim/start-delay, a cold image pull); each transaction of the
# custom script inserts (application_name, clock_timestamp()), so the first row of each worker's
# application_name (pgbench-runner:<worker>:<token>) is when its load really began.
# Prints: start skew, 3 workers (worker 2 pulled its image 8 s): first transactions 0.004 s apart; ...
# Env: BUILD, BENCH_WORKERS (3), BENCH_PULL_MS (8000).
set -euo pipefail
. "$(dirname "$0")/../test/lib/env.sh"
WORKERS="${BENCH_WORKERS:-3}"
PULL_MS="${BENCH_PULL_MS:-8000}"
env_start_pg >/dev/null
env_start_sim >/dev/null
env_start_operator --log-level warn
env_psql_super -c "SET client_min_messages = warning; DROP TABLE IF EXISTS bench_first; CREATE TABLE bench_first (app text, t timestamptz);
GRANT INSERT ON bench_first TO $PGUSER;" >/dev/null
env_kubectl create configmap first --from-literal=first.sql="INSERT INTO bench_first SELECT current_setting('application_name'), clock_timestamp();" >/dev/null
env_kubectl create --raw /sim/start-delay -f - >/dev/null <<JSON
{"rules": [{"labels": {"pgbench.dev/role": "run", "batch.kubernetes.io/job-completion-index": "$((WORKERS - 1))"}, "ms": $PULL_MS}]}
JSON
env_br_yaml skew "pgbench:
  run: {clients: $WORKERS, threads: 1, durationSeconds: 3, scripts: [{configMapRef: {name: first, key: first.sql}}], noVacuum: true}" \
    "workers: $WORKERS" 'diagnostics: {replicaLag: false, waitEvents: false}' | env_apply
env_wait_phase skew Succeeded $((60 + PULL_MS / 1000))
env_kubectl get br skew -o json >"$TMP/br.json"
env_psql_super -At -F ' ' -c "SELECT split_part(app, ':', 2), extract(epoch FROM min(t)) FROM bench_first
WHERE app LIKE 'pgbench-runner:%' GROUP BY 1 ORDER BY 1" >"$TMP/first.txt"
python3 - "$TMP/br.json" "$TMP/first.txt" "$WORKERS" "$PULL_MS" <<'PY'
import json, sys
from datetime import datetime
st = json.load(open(sys.argv[1]))["status"]
first = {int(w): float(t) for w, t in (l.split() for l in open(sys.argv[2]) if l.strip())}
workers, pull = int(sys.argv[3]), int(sys.argv[4])
assert sorted(first) == list(range(workers)), first
barrier = datetime.fromisoformat(st["startAt"].replace("Z", "+00:00")).timestamp()
skew = max(first.values()) - min(first.values())
print("start skew, %d workers (worker %d pulled its image %.0f s): first transactions %.3f s apart; "
      "the first %.3f s after the barrier, the last %.3f s (WorkersSkewed: %s)"
      % (workers, workers - 1, pull / 1000, skew, min(first.values()) - barrier,
         max(first.values()) - barrier,
         next((c["status"] for c in st["conditions"] if c["type"] == "WorkersSkewed"), "absent")))
PY
