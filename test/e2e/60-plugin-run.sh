#!/usr/bin/env bash
# kubectl pgbench run, as kubectl finds it on PATH, against the simulated cluster and a real
# PostgreSQL: --init and pgbench's own options become a BenchmarkRun the operator runs; --wait
# follows it to the result table (exit 0), a run that fails exits 3; every refused flag is named
# in its message and creates nothing. Then compare (ratios, thresholds), export (json, csv) and
# logs (every worker's lines prefixed with its index) on the finished runs.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_plugin

kubectl plugin list 2>/dev/null | grep -q "$BIN/kubectl-pgbench" || fail "kubectl does not find the plugin"
env_kubectl create secret generic pg-wrong --from-literal=password=nope >/dev/null
env_start_operator --log-level info

# ---- refused flags: each names the flag, exits 1 and creates nothing
refuse() { env_plugin_refuses "$@"; } # WANT ARGS...
refuse "--aggregate-interval" run "${PLUGIN_TARGET[@]}" --name r -- -c 2 --aggregate-interval 5
refuse "-l" run "${PLUGIN_TARGET[@]}" --name r -- -c 2 -l
refuse "--log-prefix" run "${PLUGIN_TARGET[@]}" --name r -- --log-prefix=x
refuse "--progress-timestamp" run "${PLUGIN_TARGET[@]}" --name r -- --progress-timestamp
refuse "-d" run "${PLUGIN_TARGET[@]}" --name r -- -d
refuse "--init -s N" run "${PLUGIN_TARGET[@]}" --name r -- -i
refuse "--host" run "${PLUGIN_TARGET[@]}" --name r -- -h otherhost
refuse "--user" run "${PLUGIN_TARGET[@]}" --name r -- -U other
refuse "CONFIGMAP:KEY" run "${PLUGIN_TARGET[@]}" --name r -- -f local.sql
refuse "-c \"0\"" run "${PLUGIN_TARGET[@]}" --name r -- -c 0
refuse "workers" run "${PLUGIN_TARGET[@]}" --name r --workers 4 -- -c 2
refuse "-T and -t" run "${PLUGIN_TARGET[@]}" --name r -- -T 5 -t 5
refuse "unknown flag --frobnicate" run "${PLUGIN_TARGET[@]}" --frobnicate
refuse "a target is required" run --name r -- -c 1
refuse "--host needs --user" run --host db --name r
refuse "--init needs -s N" run "${PLUGIN_TARGET[@]}" --init
refuse "--dry-run=\"maybe\"" run "${PLUGIN_TARGET[@]}" --dry-run=maybe
refuse "--cnpg and --host" run --cnpg pg --host db
refuse "expects Secret missing" run --host db --user u --password-secret missing --name r
refuse "has no key \"pw\"" run --host db --user u --password-secret pg-pass/pw --name r
refuse "--ttl \"soon\"" run "${PLUGIN_TARGET[@]}" --ttl soon
refuse "--fail-if-tps-drops" compare a b --fail-if-tps-drops lots
refuse "-o \"xml\"" export a -o xml
refuse "unknown command" frobnicate
[ -z "$(env_kubectl get br -o name)" ] || fail "a refused command created a BenchmarkRun"

# ---- a run followed to its result (not a TTY: plain progress lines, then the table)
kubectl pgbench run "${PLUGIN_TARGET[@]}" --name base --init -s 1 --workers 2 --ttl 10m --wait \
    -- -c 4 -j 2 -T 3 -P 1 -r -M prepared >"$TMP/base.out" 2>&1 ||
    { cat "$TMP/base.out" >&2; fail "run --wait failed"; }
cat "$TMP/base.out" >&2
grep -q '^benchmarkrun.pgbench.dev/base created$' "$TMP/base.out" || fail "no created line"
grep -q '^benchmarkrun base: Succeeded' "$TMP/base.out" || fail "no result table"
grep -Eq '^  tps [0-9.]+ +latency avg [0-9.]+ ms' "$TMP/base.out" || fail "no tps line"
[ "$(grep -Ec '^  worker [01] base-run-[01]-[a-z0-9]+( on node [^ :]+)?: ok, [0-9.]+ tps, [0-9]+ tx, avg ' "$TMP/base.out")" -eq 2 ] ||
    fail "no line per worker"
env_kubectl get br base -o json >"$TMP/base.json"
python3 - "$TMP/base.json" <<'PY' || fail "the BenchmarkRun does not carry the pgbench options"
import json, sys
br = json.load(open(sys.argv[1]))
run = br["spec"]["workload"]["pgbench"]["run"]
want = {"clients": 4, "threads": 2, "durationSeconds": 3, "progressSeconds": 1,
        "perStatementLatencies": True, "protocol": "prepared"}
assert {k: run.get(k) for k in want} == want, run  # the rest are the CRD's defaults
assert "transactions" not in run and "builtin" not in run, run
assert br["spec"]["workload"]["pgbench"]["init"]["scale"] == 1
assert br["spec"]["workers"] == 2 and br["spec"]["ttlSecondsAfterFinished"] == 600
assert br["status"]["summary"]["tps"] > 0
PY

# a second run, pgbench's select-only at a throttled rate: slower than base
kubectl pgbench run "${PLUGIN_TARGET[@]}" --name slow --wait -- -c 2 -T 3 -S -R 50 -n \
    >"$TMP/slow.out" 2>&1 || { cat "$TMP/slow.out" >&2; fail "second run failed"; }

# ---- a run that fails (authentication): --wait exits 3 with the table
rc=0
kubectl pgbench run --host 127.0.0.1 --port "$PGPORT" --user "$PGUSER" --password-secret pg-wrong \
    --db-name "$PGDATABASE" --sslmode disable --name broken --wait -- -c 1 -T 2 \
    >"$TMP/broken.out" 2>&1 || rc=$?
[ "$rc" -eq 3 ] || { cat "$TMP/broken.out" >&2; fail "failed run: exit $rc, want 3"; }
grep -q '^benchmarkrun broken: Failed' "$TMP/broken.out" || fail "failed run: no table"

# ---- compare: ratios against the first run; thresholds exit 3 naming the run
kubectl pgbench compare base slow >"$TMP/cmp.out" || fail "compare failed"
cat "$TMP/cmp.out" >&2
grep -Eq '^  TPS +[0-9.]+ +[0-9.]+ \(0\.[0-9]+x\)$' "$TMP/cmp.out" || fail "compare: no TPS ratio"
for row in "latency p50" "latency p95" "latency p99" "failed" "Little's law deviation" "wait [A-Za-z]"; do
    grep -q "^  $row" "$TMP/cmp.out" || fail "compare: no row $row"
done
rc=0
kubectl pgbench compare base slow --fail-if-tps-drops 10 >/dev/null 2>"$TMP/cmp.err" || rc=$?
[ "$rc" -eq 3 ] || fail "--fail-if-tps-drops: exit $rc, want 3"
grep -q "^slow: TPS .* below base" "$TMP/cmp.err" || fail "threshold message: $(cat "$TMP/cmp.err")"
kubectl pgbench compare base slow --fail-if-tps-drops 100 --fail-if-p99-grows 100000 >/dev/null ||
    fail "thresholds not crossed but compare failed"
rc=0
kubectl pgbench compare base nosuch >/dev/null 2>"$TMP/cmp.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q 'nosuch.*not found' "$TMP/cmp.err" || fail "compare of a missing run: $rc"

# ---- export: json holds status's summary, and from the result ConfigMap (status.resultRef) the
# full timeline and the workers' and statements' rows; csv has a header per table
kubectl pgbench export base -o json >"$TMP/exp.json" || fail "export json"
kubectl pgbench export base -o csv >"$TMP/exp.csv" || fail "export csv"
kubectl pgbench export base -o csv --table workers >"$TMP/workers.csv" || fail "export workers"
env_kubectl get cm base-result -o jsonpath='{.data.result\.json}' >"$TMP/result.json" ||
    fail "no result ConfigMap base-result"
python3 - "$TMP/base.json" "$TMP/exp.json" "$TMP/exp.csv" "$TMP/workers.csv" "$TMP/result.json" <<'PY' || fail "export"
import csv, io, json, sys
st = json.load(open(sys.argv[1]))["status"]
exp = json.load(open(sys.argv[2]))
full = json.load(open(sys.argv[5]))["timeline"]
res = json.load(open(sys.argv[5]))
def same(a, b):  # export writes numbers to 15 significant digits
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-14 * max(abs(a), abs(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b
for k in ("statements", "workers"):  # the rows as they are, but nulls
    assert same(exp[k], [{f: v for f, v in r.items() if v is not None} for r in res[k]]), k
assert len(st["workers"]) == 2 and len(st["statements"]) == len(
    [s for s in res["statements"] if not s["command"].startswith("\\")]), st
assert same(exp["summary"], st["summary"])
assert exp["source"] == "result", exp["source"]
assert same([p["tps"] for p in exp["timeline"]], [p["tps"] for p in full]), "timeline"
blocks = open(sys.argv[3]).read().split("\n\n")
assert len(blocks) == 3, len(blocks)
tl = list(csv.DictReader(io.StringIO(blocks[0])))
assert same([float(r["tps"]) for r in tl], [p["tps"] for p in full])
stm = list(csv.DictReader(io.StringIO(blocks[1])))
assert [r["command"] for r in stm] == [s["command"] for s in res["statements"]]
w = list(csv.DictReader(open(sys.argv[4])))
assert [int(r["index"]) for r in w] == [0, 1] and all(r["pod"] for r in w), w
assert [int(r["transactionsProcessed"]) for r in w] == [r["transactionsProcessed"] for r in res["workers"]], w
PY

# ---- logs: the init pod's and each worker's, prefixed
kubectl pgbench logs base >"$TMP/logs.out" || fail "logs failed"
for p in '[init] ' '[0] ' '[1] '; do
    grep -qF "$p" "$TMP/logs.out" || fail "logs: no line prefixed '$p'"
done
[ "$(grep -cv '^\[\(init\|0\|1\)\] ' "$TMP/logs.out")" -eq 0 ] || fail "logs: unprefixed lines"
grep -F '[1] ' "$TMP/logs.out" | grep -q '"schemaVersion":1' || fail "logs: worker 1's result line missing"
pass "run --wait, refused flags, a failed run, compare, export and logs"
