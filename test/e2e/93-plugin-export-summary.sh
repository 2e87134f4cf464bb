#!/usr/bin/env bash
# kubectl pgbench export for spreadsheets and notebooks (issue 32.4): `export A B C --table summary
# -o csv` is one row per run (settings, TPS, p50/p95/p99, failures); numbers are written at their
# shortest round-trip precision (never 17 digits); the timeline has every member of a point
# (stddevMs, failed, ...); -o json is indented by two spaces, not tabs; -o yaml exists.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_plugin
env_start_operator --log-level info
for r in "x1 2 1" "x2 4 1" "x3 4 2"; do
    set -- $r
    kubectl pgbench run "${PLUGIN_TARGET[@]}" --name "$1" --workers "$3" --init -s 1 --wait -- -c "$2" -T 2 \
        >"$TMP/$1.out" 2>&1 || { cat "$TMP/$1.out" >&2; fail "run $1"; }
done
kubectl pgbench export x1 x2 x3 --table summary -o csv >"$TMP/sum.csv" || fail "export --table summary"
kubectl pgbench export x1 -o csv --table timeline >"$TMP/tl.csv" || fail "export timeline"
kubectl pgbench export x1 -o json >"$TMP/x1.json" || fail "export json"
kubectl pgbench export x1 x2 --table summary -o yaml >"$TMP/sum.yaml" || fail "export yaml"
for n in x1 x2 x3; do
    env_kubectl get cm "$n-result" -o jsonpath='{.data.result\.json}' >"$TMP/$n.result.json"
done
cat "$TMP/sum.csv" >&2
python3 - "$TMP" <<'PY' || fail "export"
import csv, json, re, sys, yaml
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/sum.csv")))
assert [r["run"] for r in rows] == ["x1", "x2", "x3"], rows
assert [r["clients"] for r in rows] == ["2", "4", "4"] and [r["workers"] for r in rows] == ["1", "1", "2"]
for r in rows:
    res = json.load(open("%s/%s.result.json" % (d, r["run"])))["summary"]
    assert float(r["tps"]) == res["tps"], (r["tps"], res["tps"])  # exact, and ...
    for k in ("latencyP50Ms", "latencyP95Ms", "latencyP99Ms"):
        assert float(r[k]) == res[k], k
    assert abs(float(r["latencyAvgMs"]) - res["latencyAvgMs"]) <= 1e-14 * res["latencyAvgMs"]
    assert int(r["failedTransactions"]) == res["failedTransactions"]
    assert r["phase"] == "Succeeded" and r["serverVersion"].startswith("15.")
text = open(d + "/sum.csv").read() + open(d + "/tl.csv").read()
for num in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text):  # ... never 17 digits, and as short as
    digits = len(num.split("e")[0].replace("-", "").replace(".", "").lstrip("0"))  # round-trips allow
    assert digits <= 15, num
    if len(repr(float(num)).replace("-", "").replace(".", "").lstrip("0")) <= 15:
        assert float(num) == float(repr(float(num))) and len(num) <= len(repr(float(num))), num
tl = list(csv.DictReader(open(d + "/tl.csv")))
full = json.load(open(d + "/x1.result.json"))["timeline"]
for k in ("stddevMs", "failed"):
    assert k in tl[0], ("timeline column", k, list(tl[0]))
assert all(abs(float(r["stddevMs"]) - p["stddevMs"]) <= 1e-14 * abs(p["stddevMs"])
           for r, p in zip(tl, full)) and len(tl) == len(full)
raw = open(d + "/x1.json").read()
assert "\t" not in raw and raw.startswith('{\n  "name": "x1"'), raw[:40]
assert json.loads(raw)["timeline"][0]["stddevMs"] == full[0]["stddevMs"]
y = yaml.safe_load(open(d + "/sum.yaml"))
assert [r["run"] for r in y] == ["x1", "x2"] and y[0]["tps"] == float(rows[0]["tps"]), y
PY
env_plugin_refuses '--table "nope"' export x1 -o csv --table nope
pass "export: summary rows of several runs, shortest numbers, every timeline member, json/yaml"
