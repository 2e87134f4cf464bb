#!/usr/bin/env bash
# The BenchmarkSweep status contract (pkg/bench/sweep_fields.def) against a real sweep: the test
# reads the table (pgbench-gen-contract json sweep), so a row added there is checked without
# editing this file.
#   1. a clients sweep of two steps (1, 2 clients, 2 s runs) ends Succeeded; every value at a
#      status path of the table has the row's type, lists are within their maxItems, every row
#      marked "always" is there, and no key of status is missing from the table (nothing written
#      outside the contract; conditions' own members aside).
#   2. every run entry's field copied from its run (the table's from column) equals the run's own
#      status value at that path (tps, latencyMs.p50/p99, transactions, failed, ...).
#   3. the sweep's run cache keeps those paths: the generated keep-list names each of them.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim
env_start_operator

env_apply <<EOF2
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkSweep
metadata: {name: contract}
spec:
  vary: {field: clients, values: [1, 2]}
  template:
    target: {host: 127.0.0.1, port: $PGPORT, database: $PGDATABASE, user: $PGUSER,
             passwordSecretRef: {name: pg-pass}, sslMode: disable}
    workload:
      pgbench:
        init: {scale: 1}
        run: {clients: 1, threads: 1, durationSeconds: 2}
EOF2
ENV_KIND=bsw env_wait_phase contract Succeeded 200
env_kubectl get bsw contract -o json >"$TMP/sw.json"
env_kubectl get br -l pgbench.dev/sweep=contract -o json >"$TMP/runs.json"
"$BIN/pgbench-gen-contract" json sweep >"$TMP/table.json"
python3 - "$TMP/sw.json" "$TMP/runs.json" "$TMP/table.json" <<'PY' || fail "the sweep's status does not keep the contract"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
runs = {r["metadata"]["name"]: r["status"] for r in json.load(open(sys.argv[2]))["items"]}
rows = json.load(open(sys.argv[3]))
types = {"number": (int, float), "integer": (int,), "boolean": (bool,), "string": (str,),
         "time": (str,), "map": (dict,), "object": (dict,), "list": (list,), "numbers": (list,),
         "strings": (list,), "phase": (str,), "conditions": (list,), "interval": (list,)}
by_path = {r["status"]: r for r in rows}

def values(obj, path):
    """(concrete path, value) at a status path, expanding "x[]" over the list's items."""
    head, _, rest = path.partition(".")
    if head.endswith("[]"):
        for i, item in enumerate(obj.get(head[:-2], []) if isinstance(obj, dict) else []):
            for p, v in values(item, rest) if rest else [(f"[{i}]", item)]:
                yield f"{head[:-2]}[{i}].{p}", v
        return
    v = obj.get(head) if isinstance(obj, dict) else None
    if v is None:
        yield head, None
    elif rest:
        for p, w in values(v, rest):
            yield f"{head}.{p}", w
    else:
        yield head, v

problems, checked = [], 0
for r in rows:
    for p, v in values(st, r["status"]):
        if v is None:
            if r["presence"] == "always" and "[]" not in r["status"]:
                problems.append("missing: status." + r["status"])
            continue
        checked += 1
        t = types[r["type"]]
        if not isinstance(v, t) or (r["type"] != "boolean" and isinstance(v, bool)):
            problems.append(f"status.{p}: {v!r} is not {r['type']}")
        if r.get("maxItems") and len(v) > r["maxItems"]:
            problems.append(f"status.{p}: {len(v)} items, more than {r['maxItems']}")

# every key status holds is a row (a list's items by their rows "x[].k")
def keys(obj, prefix):
    for k, v in obj.items():
        path = prefix + k
        row = by_path.get(path)
        if row is None:
            problems.append("status." + path + ": not in the table")
        elif row["type"] in ("object",) and isinstance(v, dict):
            keys(v, path + ".")
        elif row["type"] == "list":
            for item in v:
                keys(item, path + "[].")
keys(st, "")

# run entries: the copied fields equal the run's own status
copies = [r for r in rows if r.get("from")]
assert len(copies) >= 5, copies
n_copies = 0
for step in st["steps"]:
    for e in step["runs"]:
        run = runs[e["name"]]
        for r in copies:
            rel = r["status"].split("steps[].runs[].", 1)[1]
            mine = e
            for k in rel.split("."):
                mine = mine.get(k) if isinstance(mine, dict) else None
            theirs = run
            for k in r["from"].split("."):
                theirs = theirs.get(k) if isinstance(theirs, dict) else None
            if theirs is None:
                if mine is not None:
                    problems.append(f"{e['name']}: {rel} {mine!r} but the run has no {r['from']}")
                continue
            n_copies += 1
            if mine is None or abs(mine - theirs) > 1e-6 * max(1, abs(theirs)):
                problems.append(f"{e['name']}: {rel} {mine!r}, the run's {r['from']} {theirs!r}")
assert not problems, "\n".join(problems)
assert n_copies >= 2 * 5, n_copies
print(f"checked {checked} status values against {len(rows)} rows, {n_copies} copies of run fields")
PY
note "status keeps the sweep contract"

# ---- 3. the sweep's run cache keeps what the entries copy --------------------------------------
python3 - "$TMP/table.json" "$ROOT/pkg/controller/cache_keep.h" <<'PY' || fail "the sweep's run cache drops a field its entries copy"
import json, re, sys
rows = json.load(open(sys.argv[1]))
h = open(sys.argv[2]).read()
keep = re.search(r"ctrl_keep_sweep_run\[\] = \{(.*?)NULL", h, re.S).group(1)
kept = re.findall(r'"([^"]+)"', keep)
for r in rows:
    if r.get("from"):
        assert any(r["from"] == k or r["from"].startswith(k + ".") for k in kept), (r["from"], kept)
PY
note "ok"
