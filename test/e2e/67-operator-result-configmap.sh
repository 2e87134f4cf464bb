#!/usr/bin/env bash
# Results that last: the result ConfigMap <run>-result (issue 15.4).
#  1. A 2-worker run against the real PostgreSQL: status.resultRef names the ConfigMap; it is owned
#     by the run (controller, blockOwnerDeletion) and labelled like its other children; its
#     result.json summary equals status.summary field by field (through the contract table, as
#     status rounds it), its histogramHdr decoded by a second implementation (hdr-histogram-js)
#     has the histogram's count and the p99 of status (within the bucket), workerResults holds
#     both workers' own results with their full timelines, nothing was downsampled.
#  2. The Jobs and their pods deleted: the ConfigMap stays. The run deleted: the garbage collector
#     removes it.
#  3. A ConfigMap of that name left by an earlier run of the same name (the operator's label, stale
#     data) is replaced; one that is someone else's (no such label) is left alone: the run still
#     Succeeds, without resultRef, and a Warning Event ResultConfigMapFailed says why.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim
HDR="$ROOT/test/sim/node_modules/hdr-histogram-js"
[ -d "$HDR" ] || fail "hdr-histogram-js missing (make deps installs test/sim's node modules)"
env_start_operator # with the CRDs and Secret pg-pass

run_br() { # name workers [init]
    env_br_yaml "$1" "pgbench: {${3:+$3, }run: {clients: 4, threads: 2, durationSeconds: 4, progressSeconds: 1, builtin: select-only}}" \
        "workers: $2" | env_apply
}

# the ConfigMaps of case 3 exist before their runs
k create configmap stale-result --from-literal=result.json='{"old":true}' >/dev/null
k label configmap stale-result pgbench.dev/benchmarkrun=stale >/dev/null
k create configmap taken-result --from-literal=result.json='{"mine":true}' >/dev/null

run_br keep 2 "init: {scale: 2}"
env_wait_phase keep Succeeded 150
run_br stale 1
run_br taken 1

# ---- 1. the ConfigMap of a finished run --------------------------------------------------------
k get br keep -o json >"$TMP/br.json"
k get configmap keep-result -o json >"$TMP/cm.json" || fail "no ConfigMap keep-result"
"$BIN/pgbench-gen-contract" json >"$TMP/table.json"
python3 - "$TMP/br.json" "$TMP/cm.json" "$TMP/table.json" "$TMP/result.json" <<'PY' || fail "the result ConfigMap does not hold the run's result"
import json, sys
br, cm, rows = (json.load(open(p)) for p in sys.argv[1:4])
st = br["status"]
assert st["resultRef"] == {"name": "keep-result", "key": "result.json"}, st.get("resultRef")
md = cm["metadata"]
refs = md.get("ownerReferences", [])
assert len(refs) == 1, refs
ref = refs[0]
assert (ref["kind"], ref["name"], ref["uid"]) == ("BenchmarkRun", "keep", br["metadata"]["uid"]), ref
assert ref["apiVersion"] == "pgbench.dev/v1alpha1" and ref["controller"] is True and ref["blockOwnerDeletion"] is True, ref
assert md["labels"]["pgbench.dev/benchmarkrun"] == "keep", md["labels"]
assert md["labels"]["app.kubernetes.io/managed-by"] == "pgbench-operator", md["labels"]
assert list(cm["data"]) == ["result.json"], list(cm["data"])
assert len(json.dumps(cm)) < 900 * 1024
res = json.loads(cm["data"]["result.json"])
open(sys.argv[4], "w").write(json.dumps(res))
# summary: every summary row that status carries, at status' precision
n = 0
for r in rows:
    p, s = r.get("path", ""), r.get("status", "")
    if not p.startswith("summary.") or not s.startswith("summary."):
        continue
    def at(obj, path):  # a dotted path: status groups some (summary.latencyMs.p99)
        for k in path.split("."):
            obj = obj.get(k) if isinstance(obj, dict) else None
        return obj
    want = at(st, s)
    got = at(res, p)
    if want is None:
        assert got is None or (r["presence"] == "when not 0" and got == 0), (p, got)
        continue
    got = round(got) if r["type"] == "integer" else round(got, 6)
    assert abs(got - want) <= 1e-6 * max(1, abs(want)), (p, got, s, want)
    n += 1
assert n >= 8, n
assert res["kind"] == "pgbench" and res["complete"] is True
assert "downsampled" not in res, res["downsampled"]
# the full timeline, and the workers' own results
tl = res["timeline"]
assert len(tl) >= 3, len(tl)
ntl = len(st.get("timeline", {}).get("elapsedSeconds", "").split())
assert len(tl) >= ntl, (len(tl), ntl)
wr = res["workerResults"]
assert [w["worker"] for w in wr] == [0, 1], [w.get("worker") for w in wr]
for w in wr:
    assert w["kind"] == "pgbench" and len(w["timeline"]) >= 3 and w["histogram"]["count"] > 0, w.keys()
    assert w["summary"]["transactionsProcessed"] > 0
assert sum(w["summary"]["transactionsProcessed"] for w in wr) == res["summary"]["transactionsProcessed"]
assert sum(w["histogram"]["count"] for w in wr) == res["histogram"]["count"]
print("summary: %d fields equal, timeline %d points, workers %s" % (n, len(tl), [len(w["timeline"]) for w in wr]))
PY
p99="$(env_status keep .status.summary.latencyMs.p99)"
HDR="$HDR" P99_MS="$p99" node - "$TMP/result.json" <<'JS' || fail "histogramHdr does not decode to the run's histogram"
const hdr = require(process.env.HDR);
const res = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
if (!res.histogramHdr || !res.histogramHdr.startsWith("HISTFAAA")) throw new Error("no V2 compressed histogramHdr");
const h = hdr.decodeFromCompressedBase64(res.histogramHdr);
if (h.totalCount !== res.histogram.count) throw new Error(`count ${h.totalCount}, histogram says ${res.histogram.count}`);
// hdr-histogram-js answers the highest value of the p99's bucket (< 0.8 % wide); status the
// bucket's midpoint, in ms
const hi = h.getValueAtPercentile(99), lo = h.lowestEquivalentValue(hi), p99 = Number(process.env.P99_MS) * 1000;
if (!(p99 >= lo - 1 && p99 <= hi + 1)) throw new Error(`p99: status ${p99} us, hdr-histogram-js bucket [${lo}, ${hi}] us`);
console.log(`hdr: count ${h.totalCount}, p99 bucket [${lo}, ${hi}] us, status ${p99} us`);
JS
note "ConfigMap keep-result holds the run's result"

# ---- 2. it outlives the Jobs, not the run ----------------------------------------------------
k delete job keep-run keep-init --wait=true >/dev/null
no_pods() { [ -z "$(k get pods -l pgbench.dev/benchmarkrun=keep -o name 2>/dev/null)" ]; }
env_wait_for "the run's pods to go after their Jobs were deleted" 30 no_pods
sleep 2 # a reconcile of the run after its Jobs went
k get configmap keep-result >/dev/null 2>&1 || fail "ConfigMap keep-result went with the Jobs"
[ "$(env_status keep .status.phase)" = Succeeded ] || fail "the run changed after its Jobs were deleted"
k delete br keep --wait=true >/dev/null
no_cm() { ! k get configmap keep-result >/dev/null 2>&1; }
env_wait_for "ConfigMap keep-result to go with its run" 30 no_cm
note "the ConfigMap survived the Jobs and was collected with the run"

# ---- 3. a ConfigMap already there ------------------------------------------------------------
env_wait_phase stale Succeeded 90
env_wait_phase taken Succeeded 90
k get br stale -o json >"$TMP/stale-br.json"
k get configmap stale-result -o json >"$TMP/stale-cm.json"
k get br taken -o json >"$TMP/taken-br.json"
k get configmap taken-result -o json >"$TMP/taken-cm.json"
k get events --field-selector involvedObject.name=taken -o json >"$TMP/taken-events.json"
python3 - "$TMP" <<'PY' || fail "a ConfigMap already there was not handled"
import json, os, sys
d = lambda n: json.load(open(os.path.join(sys.argv[1], n)))
br, cm = d("stale-br.json"), d("stale-cm.json")
assert br["status"]["resultRef"]["name"] == "stale-result"
res = json.loads(cm["data"]["result.json"])
assert "old" not in res and res["summary"]["tps"] > 0 and len(res["workerResults"]) == 1, list(res)
assert cm["metadata"]["ownerReferences"][0]["uid"] == br["metadata"]["uid"], cm["metadata"]
br, cm, evs = d("taken-br.json"), d("taken-cm.json"), d("taken-events.json")
assert "resultRef" not in br["status"], br["status"].get("resultRef")
assert br["status"]["summary"]["tps"] > 0
assert cm["data"] == {"result.json": '{"mine":true}'} and not cm["metadata"].get("ownerReferences"), cm
warn = [e for e in evs["items"] if e["reason"] == "ResultConfigMapFailed"]
assert warn and warn[0]["type"] == "Warning" and "not this run's" in warn[0]["message"], [(e["reason"], e["message"]) for e in evs["items"]]
print(warn[0]["message"])
PY
pass "the result ConfigMap holds the whole result, outlives the Jobs and goes with the run"
