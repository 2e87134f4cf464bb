#!/usr/bin/env bash
# A sweep whose client side saturates says so (issue 29, item 4), through the simulated cluster
# with real PostgreSQL and the real runner. The pods' processes are held to one CPU (taskset on
# the simulated cluster, whose pods are its child processes: what a CPU limit of 1 does to a real
# runner) and pgbench (-j 1) runs a custom script whose transaction is 3000 \set meta-commands,
# evaluated by pgbench itself, and one `SELECT 1`. The server has next to nothing to do and waits
# for pgbench (Client:ClientRead) while pgbench spends its one CPU on the expressions, so adding
# clients cannot add throughput: the load generator is the limit by construction. Clients 1, 2,
# 4, 8, 16 (3 s each): from 2 clients on, Client:* is at least half of every step's backend
# samples and each step's limit is its runs' verdict class: the client, with pgbench's CPU use as
# evidence and the fix. pgbench shares its CPU with the simulated cluster, so it may get well under
# the busy rule's share of it; its threads are on the CPU or waiting for it (schedstat) all the
# same, which names the client too; never inconclusive, never a cause inside the database
# (coherency, contention, WAL).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_plugin
taskset -a -p -c 0 "$SIM_PID" >/dev/null || fail "taskset of the simulated cluster"
env_start_operator

python3 - >"$TMP/heavy.sql" <<'PY'
print("\\set a random(1, 1000)")
for i in range(3000):
    print("\\set a abs(:a * 7 - %d) %% 1000003 + random(1, 9)" % i)
print("SELECT :a;")
PY
env_kubectl create configmap cpu --from-file=heavy.sql="$TMP/heavy.sql" >/dev/null

kubectl pgbench sweep "${PLUGIN_TARGET[@]}" --clients 1,2,4,8,16 --name busy --wait -- \
    -T 3 -j 1 -r -f cpu:heavy.sql >"$TMP/busy.out" 2>&1 || { cat "$TMP/busy.out" >&2; fail "sweep busy --wait"; }
cat "$TMP/busy.out" >&2
env_kubectl get bsw busy -o json >"$TMP/busy.json"
grep -Eq '^  verdict: .*the client \(load generator\) limits it from ' "$TMP/busy.out" ||
    fail "the --wait summary does not name the client side: $(python3 -c 'import json,sys; print(json.dumps([{k: s.get(k) for k in ("value", "limit", "classSharesPct", "runs")} for s in json.load(open(sys.argv[1]))["status"]["steps"]], indent=1))' "$TMP/busy.json" | head -c 6000)"
python3 - "$TMP/busy.json" <<'PY' || fail "client-limited sweep: $(head -c 4000 "$TMP/busy.json")"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
steps = sorted(st["steps"], key=lambda s: s["value"])
assert [s["value"] for s in steps] == [1, 2, 4, 8, 16], steps
for s in steps:
    r = s["runs"][0]
    client = sum(v for k, v in r["waitSharesPct"].items() if k.startswith("Client:"))
    print("clients %d: %.0f tps, Client:* %.1f %% of backend samples, limit %s" %
          (s["value"], s["tpsMean"], client, s["limit"]))
    if s["value"] >= 2:
        assert client >= 50, (s["value"], r["waitSharesPct"])
        assert abs(s["classSharesPct"]["client"] - client) < 0.5, s
        # the step's class is its run's verdict: the client, with pgbench's CPU time or its
        # threads' time on or waiting for a CPU as the evidence
        assert s["limit"]["class"] == r.get("verdictClass", "client"), (s, r)
        assert s["limit"]["class"] == "client", s
        assert "pgbench" in s["limit"]["evidence"], s
a = st["analysis"]
v = a["verdict"]
assert "coherency" not in v and "contention" not in v and "WAL" not in v, v
last = steps[-1]["limit"]
assert last["class"] == "client", last
assert "the client (load generator) limits it from " in v and "more workers" in v, v
first = 16  # the first of the run of client-limited steps up to the largest
for s in reversed(steps):
    if s.get("limit", {}).get("class") != "client":
        break
    first = s["value"]
assert ("limits it from %d client" % first) in v, (first, v)
print(v)
PY
pass "a sweep limited by pgbench's own CPU names the client side (the runs' verdicts), not the database"
