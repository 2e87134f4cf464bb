#!/usr/bin/env bash
# A sweep whose client side saturates says so (issue 29, item 4), through the simulated cluster
# with real PostgreSQL and the real runner. The pods' processes are held to one CPU (taskset on
# the simulated cluster, whose pods are its child processes: what a CPU limit of 1 does to a real
# runner) and pgbench (-j 1) runs a custom script whose transaction is 3000 \set meta-commands,
# evaluated by pgbench itself, and one `SELECT 1`. The server has next to nothing to do and waits
# for pgbench (Client:ClientRead) while pgbench spends its one CPU on the expressions, so adding
# clients cannot add throughput: the load generator is the limit by construction. Clients 1, 2,
# 4, 8, 16 (3 s each): every step from 2 clients on is limited by the client (Client:* at least
# half of the backend samples), the verdict names the client with its evidence and the fix, and
# never coherency or contention inside the database.
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
grep -q '^  verdict: .*the client side limits it from ' "$TMP/busy.out" ||
    fail "the --wait summary does not blame the client: $(python3 -c 'import json,sys; print(json.dumps([{k: s.get(k) for k in ("value", "limit", "classSharesPct", "runs")} for s in json.load(open(sys.argv[1]))["status"]["steps"]], indent=1))' "$TMP/busy.json" | head -c 6000)"
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
        assert s["limit"]["class"] == "client" and s["limit"]["shareOf"] == "backendSamples", s
        assert s["limit"]["event"].startswith("Client:"), s
        assert abs(s["classSharesPct"]["client"] - client) < 0.5, s
a = st["analysis"]
v = a["verdict"]
assert "the client side limits it from " in v and "add workers" in v, v
assert "coherency" not in v and "contention" not in v.split(";", 1)[1], v
# the step the verdict names is the first of the run of client-limited steps up to the largest
first = 16
for s in reversed(steps):
    if s.get("limit", {}).get("class") != "client":
        break
    first = s["value"]
assert ("limits it from %d client" % first) in v, (first, v)
print(v)
PY
pass "a sweep limited by pgbench's own CPU blames the client, with its Client:* share, not the database"
