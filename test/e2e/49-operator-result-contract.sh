#!/usr/bin/env bash
# The result contract end to end: a pgbench run of 2 workers against a primary with a streaming
# replica, every diagnostic on, through the real runner, the aggregate and the (simulated) API
# server. Every status field the contract table (pkg/bench/fields.c) marks "always" or
# "diagnostics" must be in the BenchmarkRun's status, typed as the table says. The test reads the
# table (pgbench-gen-contract json), so a row added there is checked without editing this file.
# The run goes 16 s with a progress point a second (status' timeline series: every point; the
# replica lag samples: only in the result ConfigMap). Every time in status is RFC 3339, and
# `kubectl describe br` (the real kubectl) of this run and of the demo's run stays within a line
# budget.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_replica
env_start_sim

env_start_operator --start-delay 2 --log-level info

env_br_yaml contract 'pgbench:
  init: {scale: 2}
  run: {clients: 4, threads: 2, durationSeconds: 16, perStatementLatencies: true, progressSeconds: 1}' \
    'workers: 2' 'diagnostics: {waitEvents: true, serverSettings: true, replicaLag: true}' | env_apply

env_wait_phase contract Succeeded 150

# the README's question, answered from kubectl
waits="$(env_status contract .status.diagnostics.waitEvents)"
[ -n "$waits" ] || fail "status.diagnostics.waitEvents is empty"
note "waitEvents: $waits"

env_kubectl get br contract -o json >"$TMP/br.json"
"$BIN/pgbench-gen-contract" json >"$TMP/table.json"
python3 - "$TMP/br.json" "$TMP/table.json" <<'PY' || fail "status does not hold what the contract promises"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
rows = json.load(open(sys.argv[2]))
types = {"number": (int, float), "integer": (int,), "boolean": (bool,), "string": (str,),
         "time": (str,), "map": (dict,), "object": (dict,), "list": (list,),
         "numbers": (list,), "strings": (list,), "phase": (str,), "time or integer": (str, int),
         "conditions": (list,), "interval": (list,)}

def values(obj, path):
    """Every value at a status path, expanding "x[]" over the list's items."""
    head, sep, rest = path.partition(".")
    if head.endswith("[]"):
        items = obj.get(head[:-2]) if isinstance(obj, dict) else None
        if not isinstance(items, list) or not items:
            return [None]
        return [v for it in items for v in (values(it, rest) if rest else [it])]
    v = obj.get(head) if isinstance(obj, dict) else None
    return values(v, rest) if sep else [v]

problems, checked = [], 0
for r in rows:
    if "status" not in r or r["presence"] not in ("always", "diagnostics"):
        continue
    want = types[r["type"]]
    for v in values(st, r["status"]):
        checked += 1
        if v is None:
            problems.append("missing: status.%s" % r["status"])
        elif not isinstance(v, want) or (r["type"] == "integer" and isinstance(v, float) and v != int(v)) \
                or (r["type"] != "boolean" and isinstance(v, bool)):
            problems.append("status.%s: %r is not %s" % (r["status"], v, r["type"]))
        elif r.get("maxItems") and len(v) > r["maxItems"]:
            problems.append("status.%s: %d items, more than %d" % (r["status"], len(v), r["maxItems"]))
assert not problems, "\n".join(problems)
# the diagnostics: one sentence each (checked against the result ConfigMap's numbers below)
assert sorted(st["diagnostics"]) == ["server", "verdict", "verdictClass", "waitEvents"], \
    st["diagnostics"]
assert all(isinstance(v, str) for v in st["diagnostics"].values()), st["diagnostics"]
assert len(st["workers"]) == 2
assert not [c for c in st.get("conditions", []) if c["type"] == "WorkersSkewed" and c["status"] == "True"]
# the generation the run started with has its own field; SpecLocked comes only with a spec change
assert st["startedGeneration"] == 1, st.get("startedGeneration")
assert not [c for c in st["conditions"] if c["type"] == "SpecLocked"], st["conditions"]
# RESULT and FAILED (kubectl get) from the summary: its tps and p99, failed + aborted
# (summary.aborted only when a client aborted: none did here)
assert "aborted" not in st["summary"] and st["failed"] == st["summary"]["failed"], (st["failed"], st["summary"])
assert st["result"].endswith(" ms") and " tps · p99 " in st["result"], st["result"]
print("checked %d status values against %d contract rows" % (checked, len(rows)))

# every time in status is RFC 3339 (startAt aside: it is changing to it in its own commit)
import re
rfc3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
time_paths = {r["status"] for r in rows if r.get("status") and r["type"] == "time"}
def times(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from times(v, path + "." + k if path else k)
    elif isinstance(obj, list):
        for v in obj:
            yield from times(v, path + "[]")
    elif isinstance(obj, str) and (re.search(r"(Time|time|At)$", path) or path in time_paths):
        yield path, obj
bad = ["%s: %s" % (p, v) for p, v in times(st) if p != "startAt" and not rfc3339.match(v)]
assert not bad, "not RFC 3339: %s" % bad
# key names read alike in kubectl describe: it spells a key out as words ("Latency Ms") only when
# the key has no digit, so a camelCase key with one ("latencyP99Ms") would print as it is beside
# spelled-out ones; a digit belongs in a short lower-case key of a group (summary.latencyMs.p99)
def keys(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield path + k
            yield from keys(v, path + k + ".")
    elif isinstance(obj, list):
        for v in obj:
            yield from keys(v, path + "[].")
mixed = [k for k in keys(st) if re.search(r"[A-Z][^.]*$", k) and re.search(r"\d[^.]*$", k)]
assert not mixed, "camelCase keys with a digit: %s" % mixed
assert sorted(st["summary"]["latencyMs"]) == ["avg", "max", "p50", "p90", "p95", "p99", "p999"], st["summary"]
# the capped lists were longer than their caps: the caps and the even spacing are what we see
# the timeline as series, one string of numbers per member, as many points each
assert sorted(st["timeline"]) == ["elapsedSeconds", "latencyMs", "tps"], st["timeline"]
series = {k: [float(x) for x in v.split()] for k, v in st["timeline"].items()}
assert 12 <= len(series["tps"]) <= 60 and series["elapsedSeconds"][-1] >= 12, st["timeline"]
assert len(set(len(v) for v in series.values())) == 1, st["timeline"]
# status.startAt is the barrier and each worker's line says when it ran: the window is in the
# result ConfigMap only
assert "window" not in st, st["window"]
PY
env_kubectl get cm "$(env_status contract .status.resultRef.name)" -o json >"$TMP/cm.json"
python3 - "$TMP/br.json" "$TMP/cm.json" "$TMP/table.json" <<'PY' || fail "the result ConfigMap lacks what status left out"
import json, re, sys
st = json.load(open(sys.argv[1]))["status"]
res = json.loads(json.load(open(sys.argv[2]))["data"]["result.json"])
table = json.load(open(sys.argv[3]))
# the workers started together on the barrier: the totals cover the whole run
assert res["window"]["coveragePct"] >= 90 and res["window"]["lateSeconds"] < 1, res["window"]
# the worker rows: every field the table names for them (the controller's pod, exit code and
# verdict too), the numbers each runner's own result says (workerResults); status a line each
keys = {r["path"][len("workers[]."):] for r in table if r.get("path", "").startswith("workers[].")}
assert len(res["workers"]) == 2 and len(st["workers"]) == 2, (res["workers"], st["workers"])
for r in res["workers"]:
    assert set(r) == keys, (sorted(r), sorted(keys))
    own = res["workerResults"][r["index"]]
    assert own["worker"] == r["index"] and r["pod"].startswith("contract-run-%d-" % r["index"]), r
    s, win = own["summary"], own["window"]
    assert (r["tps"], r["transactionsProcessed"], r["failedTransactions"], r["abortedClients"],
            r["latencyAvgMs"], r["lateSeconds"], r["endSeconds"], r["exitCode"], r["complete"]) == (
        s["tps"], s["transactionsProcessed"], s["failedTransactions"], s["abortedClients"],
        s["latencyAvgMs"], win["lateSeconds"], win["endSeconds"], own["exitCode"], True), (r, s, win)
    assert r["message"] == "ok", r
    assert st["workers"][r["index"]] == "%d %s on node %s: ok, %.1f tps, %d tx, avg %.2f ms, from %+.3f s to %.3f s" % (
        r["index"], r["pod"], r["node"], r["tps"], r["transactionsProcessed"], r["latencyAvgMs"],
        r["lateSeconds"], r["endSeconds"]), (st["workers"], r)
# the statement rows: each latency between the workers' own; status a line per SQL statement
for x in res["statements"]:
    own = [y["latencyMs"] for w in res["workerResults"] for y in w["statements"] if y["command"] == x["command"]]
    assert len(own) == 2 and min(own) - 1e-9 <= x["latencyMs"] <= max(own) + 1e-9, (x, own)
sql = [x for x in res["statements"] if not x["command"].startswith("\\")]
# each line is its row's latency to 3 decimals, compared as a number: the row is a weighted mean,
# and cJSON's 15-digit text of it may be an ulp off, enough to round a tie the other way
def line_ok(line, x):
    lat, ms, cmd = line.partition(" ms  ")
    return ms and cmd == x["command"] and abs(float(lat) - x["latencyMs"]) <= 0.0005 + 1e-12
assert len(sql) >= 5 and len(st["statements"]) == len(sql) and all(map(line_ok, st["statements"], sql)), \
    (st["statements"], sql)
d = st["diagnostics"]
def num(v, decimals=1):
    """v as the sentences print it: to that many decimals, without trailing zeros"""
    return ("%.*f" % (decimals, v)).rstrip("0").rstrip(".")
# the numbers behind the diagnostics are the workers' own, merged; status words them
w = res["waitEvents"]
assert w["samples"] >= 4 and w["backendSamples"] >= w["samples"], w
shares = w["sharesPct"]
assert abs(sum(shares.values()) - 100) < 1, shares
order = sorted(shares.items(), key=lambda kv: (-kv[1], kv[0]))[:12]
assert d["waitEvents"].startswith(", ".join("%s %s %%" % (k, num(v)) for k, v in order)), (d, order)
assert " of %d backend samples in %d rounds" % (w["backendSamples"], w["samples"]) in d["waitEvents"], (d, w)
assert (re.search(r"\b\d+ rounds? skipped", d["waitEvents"]) is not None) == (w.get("skippedTicks", 0) > 0), (d, w)
srv = res["server"]
assert srv["shared_buffers"] == "128MB" and srv["inRecovery"] is False, srv
assert d["server"].startswith("PostgreSQL %s, primary, database %s " % (srv["version"], srv["database"])), (d, srv)
# the dataset check is part of the server's sentence: the ratio before shared_buffers; its warning
# is the verdict's (DATASET_IN_MEMORY)
ds = res["checks"]["dataset"]
import re
m = re.search(r" MiB, ([0-9.]+) of shared_buffers 128 MiB", d["server"])
assert m and abs(float(m.group(1)) - ds["ratio"]) <= 0.0005 + 0.005 * ds["ratio"], (d["server"], ds)
v = res["verdict"]
assert ("DATASET_IN_MEMORY" in v["warnings"]) == ds["fitsInSharedBuffers"], (v, ds)
# then the replica's sentence, on the server's line
rep = res["checks"]["replica"]
assert rep["caughtUp"] is True and rep["role"] == "primary", rep
assert len(rep["lagSamplesMs"]) >= 8 and max(rep["lagSamplesMs"]) <= rep["maxLagMs"] + 0.001, rep
assert d["server"].endswith("shared_buffers 128 MiB; replication: primary: caught up: %s; max lag %s ms during the run" % (
    rep["message"], num(rep["maxLagMs"]))), (d, rep)
# the verdict: status' sentence is the result's, then Little's law; the class is the result's
assert d["verdict"].startswith(v["summary"] + " Little's law: ") and d["verdictClass"] == v["class"], (d, v)
ll = res["checks"]["littlesLaw"]
assert d["verdict"].endswith(" Little's law: 4 clients / %s ms predict %s tps; measured %s tps (%+.2f %%)" % (
    num(ll["latencyAvgMs"], 2), num(ll["predictedTps"]), num(ll["measuredTps"]), ll["deviationPct"])), (d, ll)
# what the sweep reads instead: the same deviation from status' clients, latency and tps
pred = st["clients"] / (st["summary"]["latencyMs"]["avg"] / 1000)
assert abs((st["summary"]["tps"] - pred) / pred * 100 - ll["deviationPct"]) < 1e-3, (st["summary"], ll)
assert "barrier" in res["window"], res["window"]
PY

# kubectl describe within a line budget, counted per section (printed, so a regression names the
# section that grew): describe_budget NAME TOTAL RESULTS fails when the whole output has TOTAL
# lines or more, or status' results (what the projection controls) RESULTS or more.
describe_budget() {
    env_kubectl describe br "$1" >"$TMP/describe-$1.txt"
    python3 - "$TMP/describe-$1.txt" "$2" "$3" <<'PY' || fail "kubectl describe br $1 is too long"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
total_budget, results_budget = int(sys.argv[2]), int(sys.argv[3])
sections, top, sub = {}, None, None
for l in lines:
    if re.match(r"^\S", l):
        top, sub = l.split(":")[0], None
    elif top == "Status" and re.match(r"^  \S", l):
        sub = l.strip().split(":")[0]
    key = "Status." + sub if top == "Status" and sub else top
    sections[key] = sections.get(key, 0) + 1
results = sum(n for k, n in sections.items() if k.startswith("Status.") and k not in (
    "Status.Conditions", "Status.Phase", "Status.Message", "Status.Observed Generation",
    "Status.Start Time", "Status.Completion Time", "Status.Start At", "Status.Target",
    "Status.Target User", "Status.Clients", "Status.Started Generation"))
print("describe: %d lines, %d of them status results: %s" % (len(lines), results, sections))
assert results < results_budget, "status results take %d lines (budget %d)" % (results, results_budget)
assert len(lines) < total_budget, "%d lines (budget %d)" % (len(lines), total_budget)
PY
}

# This run (2 workers, 16 progress points, statements, every diagnostic, a replica): 421 lines
# before status kept a sketch of the timeline; 269 with a 12-point list; 187 with three series
# strings; 124 with a line per worker and statement and a sentence per diagnostic; 113 since the
# window, the restated spec defaults, the dataset's own sentence and the stddev left status.
describe_budget contract 120 45

# The demo's run (`make demo`: examples/01-tpcb-baseline.yaml shrunk as scripts/demo.sh does, 10 s,
# 8 clients, 1 worker), the workload issue 15's "describe under 120 lines" is about: 285 lines, 184,
# 131, 119 now.
env_kubectl create secret generic pg-app --from-literal=password="$PGPASSWORD" >/dev/null
SHRINK_DURATION=10 SHRINK_CLIENTS=8 python3 "$ROOT/scripts/shrink-example.py" \
    "$ROOT/examples/01-tpcb-baseline.yaml" | env_apply
env_wait_phase tpcb-baseline Succeeded 150
describe_budget tpcb-baseline 120 45
pass "every promised status field is present and typed"
