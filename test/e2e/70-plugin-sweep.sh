#!/usr/bin/env bash
# kubectl pgbench sweep, and report / compare of BenchmarkSweeps, through the simulated cluster
# with real PostgreSQL:
#   1. --dry-run=client prints a BenchmarkSweep that real kubectl applies as it is, with the same
#      spec as the one the plugin creates itself; --dry-run=server creates nothing; refusals.
#   2. a 3-step clients sweep (1,2,4, 2 s runs) with --wait: a line per step, then the analysis;
#      exit 0. A second sweep (2 workers' worth of threads) for compare.
#   3. report sweep/NAME: one HTML file rendered by headless Chromium with the TPS and p99 plots
#      against clients (log2: 1, 2, 4 doubles), every run a point; 3 steps are too few for a USL
#      fit (stepsNeeded 2, the page says why there is no curve; e2e 87 draws one).
#   4. compare of the two sweeps: a row per clients value with ratios to the first; -o html.
#   5. the sweep's Events (StepStarted/StepCompleted x3, SweepSucceeded) and its /metrics series
#      (promtool check metrics), which go with the sweep.
#   6. --wait-timeout passing first: exit 3.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
command -v chromium >/dev/null || fail "chromium is not installed (make deps)"
env_start_plugin
env_crds

# ---- 1. dry runs (no operator yet: nothing acts on the sweeps) -------------------------------
flags=(--init -s 1 --clients 1,2,4 --stop-when-failures-pct 5 --stop-when-p99-ms 5000)
kubectl pgbench sweep "${PLUGIN_TARGET[@]}" "${flags[@]}" --name dry --dry-run=client -- -T 2 -j 1 \
    >"$TMP/dry.yaml" || fail "dry run"
grep -q '^kind: BenchmarkSweep$' "$TMP/dry.yaml" || fail "dry run: $(cat "$TMP/dry.yaml")"
env_kubectl apply -f "$TMP/dry.yaml" >/dev/null || fail "kubectl apply of the dry run refused"
kubectl pgbench sweep "${PLUGIN_TARGET[@]}" "${flags[@]}" --name direct -- -T 2 -j 1 >"$TMP/direct.out" ||
    fail "sweep create: $(cat "$TMP/direct.out")"
grep -qx 'benchmarksweep.pgbench.dev/direct created' "$TMP/direct.out" || fail "$(cat "$TMP/direct.out")"
env_kubectl get bsw dry -o json >"$TMP/dry.json"
env_kubectl get bsw direct -o json >"$TMP/direct.json"
python3 - "$TMP/dry.json" "$TMP/direct.json" <<'PY' || fail "the applied dry run differs from the created sweep"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["spec"] == b["spec"], (a["spec"], b["spec"])
assert a["metadata"]["labels"] == b["metadata"]["labels"], (a["metadata"], b["metadata"])
s = a["spec"]
assert s["vary"] == {"field": "clients", "values": [1, 2, 4]}, s
assert s["stopWhen"] == {"failedPct": 5, "p99Ms": 5000}, s
assert s["template"]["workload"]["pgbench"]["run"] == {"durationSeconds": 2, "threads": 1}, s
assert s["template"]["target"]["passwordSecretRef"]["name"] == "pg-pass", s
PY
kubectl pgbench sweep "${PLUGIN_TARGET[@]}" "${flags[@]}" --name srv --dry-run=server -- -T 2 \
    >"$TMP/srv.yaml" || fail "server dry run"
grep -q 'name: srv' "$TMP/srv.yaml" || fail "server dry run printed: $(cat "$TMP/srv.yaml")"
env_kubectl get bsw srv >/dev/null 2>&1 && fail "--dry-run=server created the sweep"
rc=0
kubectl pgbench sweep "${PLUGIN_TARGET[@]}" --clients 1,2 --dry-run -- -c 4 2>"$TMP/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "pgbench's -c and --clients" "$TMP/err" || fail "-c with --clients: $rc $(cat "$TMP/err")"
env_kubectl delete bsw dry direct >/dev/null

# ---- 2. two real sweeps, followed ---------------------------------------------------------
env_start_operator
kubectl pgbench sweep "${PLUGIN_TARGET[@]}" --init -s 1 --clients 1,2,4 --name gp3 --wait -- -T 2 -j 1 \
    >"$TMP/gp3.out" 2>&1 || { cat "$TMP/gp3.out" >&2; fail "sweep gp3 --wait"; }
cat "$TMP/gp3.out" >&2
for i in 1 2 3; do
    v=$((1 << (i - 1)))
    grep -Eq "^step $i/3 clients=$v: [0-9.]+ tps p99 [0-9.]+ ms$" "$TMP/gp3.out" ||
        fail "no line for step $i: $(cat "$TMP/gp3.out")"
done
grep -q '^benchmarksweep gp3: Succeeded (3 of 3 steps)$' "$TMP/gp3.out" || fail "no summary"
grep -Eq '^  peak [0-9.]+ tps at clients=[124]' "$TMP/gp3.out" || fail "no peak line"
grep -q '^  verdict: ' "$TMP/gp3.out" || fail "no verdict"
kubectl pgbench sweep "${PLUGIN_TARGET[@]}" --clients 1,2,4 --name nvme --wait -- -T 2 -j 2 -M prepared \
    >"$TMP/nvme.out" 2>&1 || { cat "$TMP/nvme.out" >&2; fail "sweep nvme --wait"; }

# ---- 3. report ----------------------------------------------------------------------------
kubectl pgbench report sweep/gp3 -o "$TMP/sweep.html" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
kubectl pgbench report gp3 >"$TMP/sweep2.html" || fail "report of a plain sweep NAME"
cmp -s "$TMP/sweep.html" "$TMP/sweep2.html" || fail "sweep/gp3 and gp3 differ"
env_chromium_render "$TMP/sweep.html" "$TMP/dom.html" "$TMP/sweep.png" 1600
[ -z "${SAVE_SCREENSHOT:-}" ] || cp "$TMP/sweep.png" "$SAVE_SCREENSHOT"
env_kubectl get bsw gp3 -o json >"$TMP/gp3.json"
python3 - "$TMP/sweep.html" "$TMP/dom.html" "$TMP/sweep.png" "$TMP/gp3.json" <<'PY' || fail "report check"
import json, math, re, struct, sys
src, dom, png = open(sys.argv[1]).read(), open(sys.argv[2]).read(), open(sys.argv[3], "rb").read()
st = json.load(open(sys.argv[4]))["status"]
assert "<script" not in src.lower() and not re.search(r'\b(src|href)\s*=', src)
runs = [(s["value"], r["tps"]) for s in st["steps"] for r in s["runs"] if r["phase"] == "Succeeded"]
usl = st["analysis"]["usl"]
for name, text in (("source", src), ("rendered DOM", dom)):
    svg = re.search(r'<svg id="sweep-tps".*?</svg>', text, re.S)
    assert svg, name + ": no svg#sweep-tps"
    svg = svg.group(0)
    for lab in ("clients", "TPS (transactions/s)"):
        assert re.search(r'class="[xy]l"[^>]*>' + re.escape(lab) + "<", svg), (name, lab)
    # tick labels give the pixel -> value map of each axis
    xt = [(float(x), float(v)) for x, v in re.findall(r'class="xt" x="([\d.]+)"[^>]*>([\d.]+)<', svg)]
    yt = [(float(y) - 4, float(v)) for y, v in re.findall(r'class="yt" x="[\d.]+" y="([\d.]+)">([\d.]+)<', svg)]
    def lin(t):
        (p0, v0), (p1, v1) = t[0], t[-1]
        return lambda p: v0 + (p - p0) * (v1 - v0) / (p1 - p0)
    def log2(t):  # ticks at powers of two, evenly spaced: log2 of the value is linear
        (p0, v0), (p1, v1) = t[0], t[-1]
        return lambda p: 2 ** (math.log2(v0) + (p - p0) * (math.log2(v1) - math.log2(v0)) / (p1 - p0))
    assert [v for _, v in xt] == [2 ** i for i in range(len(xt))], (name, xt)
    fx, fy = log2(xt), lin(yt)
    g = re.search(r'data-label="TPS of each run">(.*?)</g>', svg, re.S).group(1)
    pts = [(fx(float(a)), fy(float(b))) for a, b in re.findall(r'cx="([\d.]+)" cy="([\d.]+)"', g)]
    assert len(pts) == len(runs), (name, pts, runs)
    ystep = abs(yt[-1][1] - yt[0][1]) / abs(yt[-1][0] - yt[0][0])
    for (x, y), (v, t) in zip(pts, runs):
        assert abs(x - v) < 0.05 and abs(y - t) < ystep, (name, x, y, v, t)
    # three parameters through 3 points fit exactly and say nothing: no fit, 2 more steps
    assert not usl["ok"] and usl["stepsNeeded"] == 2 and usl["distinctClients"] == 3, usl
    assert 'data-label="USL fit"' not in svg, name
    assert "no USL curve: not enough data: 3 distinct" in text, name
    assert 'id="sweep-p99"' in text and "latency p99 (ms)" in text
    assert st["analysis"]["verdict"].replace("&", "&amp;")[:30] in text.replace("&#39;", "'")
assert png[:8] == b"\x89PNG\r\n\x1a\n"
print("sweep report ok: %d runs, %s" % (len(runs), usl["reason"]))
PY

# ---- 4. compare ---------------------------------------------------------------------------
kubectl pgbench compare gp3 sweep/nvme >"$TMP/cmp.txt" 2>"$TMP/err" || fail "compare: $(cat "$TMP/err")"
cat "$TMP/cmp.txt" >&2
head -1 "$TMP/cmp.txt" | grep -Eq '^clients +gp3 tps +gp3 p99 +nvme tps +nvme p99$' || fail "compare header"
for v in 1 2 4; do
    grep -Eq "^$v +[0-9.]+ +[0-9.]+ ms +[0-9.]+ \([0-9.]+x\) +[0-9.]+ ms \([0-9.]+x\)$" "$TMP/cmp.txt" ||
        fail "compare: no ratios for clients=$v"
done
grep -Eq '^peak tps ' "$TMP/cmp.txt" && grep -Eq '^knee at clients' "$TMP/cmp.txt" &&
    grep -Eq '^USL N\* \(clients\)' "$TMP/cmp.txt" || fail "compare: no analysis rows"
kubectl pgbench compare gp3 nvme -o html "$TMP/cmp.html" 2>"$TMP/err" || fail "compare -o html: $(cat "$TMP/err")"
grep -q '<svg id="compare-tps"' "$TMP/cmp.html" && grep -q 'data-label="nvme"' "$TMP/cmp.html" ||
    fail "compare -o html: no overlaid curves"

# ---- 5. Events and metrics ----------------------------------------------------------------
env_kubectl get events --field-selector involvedObject.name=gp3 -o json >"$TMP/ev.json"
python3 - "$TMP/ev.json" <<'PY' || fail "sweep Events"
import json, sys
ev = json.load(open(sys.argv[1]))["items"]
got = sorted((e["type"], e["reason"]) for e in ev if e["involvedObject"]["kind"] == "BenchmarkSweep")
want = sorted([("Normal", "StepStarted")] * 3 + [("Normal", "StepCompleted")] * 3 + [("Normal", "SweepSucceeded")])
assert got == want, got
msgs = [e["message"] for e in ev if e["reason"] == "StepCompleted"]
assert any(m.startswith("step 3/3 clients=4: ") and " tps, p99 " in m for m in msgs), msgs
PY
curl -fsS "$OP_URL/metrics" >"$TMP/metrics.txt" || fail "/metrics"
grep -q '^pgbench_operator_benchmarksweep_phase{namespace="default",name="gp3",phase="Succeeded"} 1$' "$TMP/metrics.txt" ||
    fail "no phase series: $(grep benchmarksweep "$TMP/metrics.txt")"
grep -q '^pgbench_operator_benchmarksweep_step{namespace="default",name="gp3"} 3$' "$TMP/metrics.txt" || fail "step series"
grep -Eq '^pgbench_operator_benchmarksweep_peak_tps\{namespace="default",name="nvme"\} [0-9.e+]+$' "$TMP/metrics.txt" || fail "peak_tps series"
if command -v promtool >/dev/null; then
    promtool check metrics <"$TMP/metrics.txt" >"$TMP/promtool.txt" 2>&1 || fail "promtool: $(cat "$TMP/promtool.txt")"
fi
env_kubectl delete bsw nvme >/dev/null
env_wait_for "nvme's series gone" 30 sh -c "! curl -fsS $OP_URL/metrics | grep -q 'benchmarksweep_phase{namespace=\"default\",name=\"nvme\"'"

# ---- 6. --wait that gives up: exit 3 ---------------------------------------------------------
rc=0
kubectl pgbench sweep "${PLUGIN_TARGET[@]}" --clients 1,2 --name slow --wait-timeout 2s -- -T 30 \
    >"$TMP/slow.out" 2>&1 || rc=$?
[ "$rc" -eq 3 ] && grep -q 'benchmarksweep slow not finished after --wait-timeout 2s' "$TMP/slow.out" ||
    fail "--wait-timeout: exit $rc: $(cat "$TMP/slow.out")"
env_kubectl delete bsw slow --wait=false >/dev/null

pass "sweep: dry runs apply as created, 2 sweeps followed, report in Chromium (log2 axis, no fit on 3 steps), compare with ratios, Events and metrics"
