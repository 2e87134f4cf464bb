#!/usr/bin/env bash
# /metrics of a real operator against the simulated cluster: `promtool check metrics` accepts it;
# a finished run's gauges (tps, latency quantiles and average in seconds, failed transactions,
# phase) carry the values of its status; a Retry-After answer shows in the retries counter; once
# the run is deleted its series are gone while another run's stay. The chart's Grafana dashboard
# renders as a ConfigMap only when enabled, and every metric its queries use is in /metrics.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

DASHBOARD="$ROOT/charts/pgbench-operator/dashboards/pgbench-operator.json"

env_start_operator --log-level info
scrape() { curl -fsS "$OP_URL/metrics" >"$1" || fail "GET /metrics"; }

# The first status write of run m1 is answered 429 with Retry-After: 1; the client retries it.
env_sim_fault '{"failNext": 1, "code": 429, "retryAfter": 1, "path": "/benchmarkruns/m1/status"}'
env_br_yaml m1 'pgbench: {init: {scale: 1}, run: {clients: 2, threads: 1, durationSeconds: 2}}' | env_apply
env_wait_phase m1 Succeeded
# m2 uses the tables m1 created
env_br_yaml m2 'pgbench: {run: {clients: 1, threads: 1, transactions: 50}}' | env_apply
env_wait_phase m2 Succeeded
env_kubectl get br m1 -o json >"$TMP/m1.json"
env_kubectl get br m2 -o json >"$TMP/m2.json"
scrape "$TMP/metrics.txt"

# 1. the real tool accepts the text
if command -v promtool >/dev/null 2>&1; then
    promtool check metrics <"$TMP/metrics.txt" >"$TMP/promtool.txt" 2>&1 ||
        { cat "$TMP/promtool.txt" >&2; fail "promtool check metrics refused /metrics"; }
    [ ! -s "$TMP/promtool.txt" ] || { cat "$TMP/promtool.txt" >&2; fail "promtool check metrics: lint problems"; }
    note "promtool check metrics: ok ($(promtool --version 2>&1 | head -1))"
else
    note "SKIPPED promtool check: promtool is not installed (scripts/deps.sh installs Debian's prometheus)"
fi

# 2. the runs' series carry their status values, in base units
python3 - "$TMP/metrics.txt" "$TMP/m1.json" "$TMP/m2.json" <<'PY' || fail "per-run series do not match the status"
import json, re, sys

sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
label = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
series = {}
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    m = sample.match(line)
    assert m, "unparsable sample line: " + line
    labels = tuple(sorted(label.findall(m.group(2) or "")))
    series[(m.group(1), labels)] = float(m.group(3))

def get(metric, **labels):
    return series.get((metric, tuple(sorted(labels.items()))))

phases = ["Pending", "Initializing", "Running", "Collecting", "Succeeded", "Failed"]
for path in sys.argv[2:]:
    br = json.load(open(path))
    ns, name = br["metadata"]["namespace"], br["metadata"]["name"]
    s = br["status"]["summary"]
    run = dict(namespace=ns, name=name)  # the phase's labels
    # the values also carry the verdict's class, as status has it
    who = dict(run, verdict=br["status"]["diagnostics"]["verdictClass"])
    tps = get("pgbench_operator_benchmarkrun_tps", **who)
    assert tps == s["tps"] and tps > 0, (name, "tps", tps, s["tps"])
    lat = s["latencyMs"]
    for q, key in (("0.5", "p50"), ("0.9", "p90"), ("0.95", "p95"), ("0.99", "p99"), ("0.999", "p999")):
        v = get("pgbench_operator_benchmarkrun_latency_seconds", quantile=q, **who)
        assert v is not None and v == lat[key] / 1000, (name, q, v, lat[key])
    avg = get("pgbench_operator_benchmarkrun_latency_average_seconds", **who)
    assert avg == lat["avg"] / 1000, (name, "avg", avg, lat["avg"])
    failed = get("pgbench_operator_benchmarkrun_failed_transactions", **who)
    assert failed == s.get("failed"), (name, "failed", failed, s.get("failed"))
    for p in phases:
        v = get("pgbench_operator_benchmarkrun_phase", phase=p, **run)
        assert v == (1 if p == "Succeeded" else 0), (name, p, v)
    print(f"{name}: tps {tps} p99 {get('pgbench_operator_benchmarkrun_latency_seconds', quantile='0.99', **who)} s "
          f"avg {avg} s failed {failed}")
assert get("pgbench_operator_benchmarkruns", phase="Succeeded") == 2
retries = get("pgbench_operator_api_retries_total")
assert retries is not None and retries >= 1, ("retries", retries)
print("api retries", retries)
PY

# 3. every metric the dashboard queries is in /metrics (names of samples and of declared families)
python3 - "$DASHBOARD" "$TMP/metrics.txt" <<'PY' || fail "the dashboard uses metrics the operator does not serve"
import json, re, sys
dash = json.load(open(sys.argv[1]))
queries = []
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("expr", "definition") and isinstance(v, str):
                queries.append(v)
            elif k == "query" and isinstance(v, str):
                queries.append(v)
            else:
                walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(dash)
assert len([q for q in queries if "pgbench_operator_" in q]) >= 10, queries
served = set()
for line in open(sys.argv[2]):
    m = re.match(r"# TYPE (\S+) ", line) or re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", line)
    if m:
        served.add(m.group(1))
used = set()
for q in queries:
    used |= set(re.findall(r"\b((?:pgbench_operator|process)_[a-zA-Z0-9_:]*)", q))
missing = sorted(used - served)
assert not missing, f"not in /metrics: {missing}"
for want in ("pgbench_operator_benchmarkrun_tps", "pgbench_operator_benchmarkrun_latency_seconds",
             "pgbench_operator_benchmarkruns", "pgbench_operator_reconcile_total",
             "pgbench_operator_queue_depth", "pgbench_operator_api_retries_total"):
    assert want in used, f"the dashboard does not show {want}"
print(f"dashboard: {len(queries)} queries, {len(used)} metrics, all served")
PY

# 4. deleting a run removes its series, not the other run's
env_kubectl delete br m1 --wait=false >/dev/null
gone() {
    scrape "$TMP/after.txt"
    ! grep -q 'name="m1"' "$TMP/after.txt"
}
env_wait_for "m1's series to disappear from /metrics" 20 gone
grep -q '^pgbench_operator_benchmarkrun_tps{namespace="default",name="m2",verdict="[a-z-]*"} ' "$TMP/after.txt" ||
    fail "m2's tps went with m1: $(grep benchmarkrun_tps "$TMP/after.txt")"
grep -q '^pgbench_operator_benchmarkrun_phase{namespace="default",name="m2",phase="Succeeded"} 1$' "$TMP/after.txt" ||
    fail "m2's phase missing after deleting m1"
grep -q '^pgbench_operator_benchmarkruns{phase="Succeeded"} 1$' "$TMP/after.txt" ||
    fail "runs by phase still count m1: $(grep '^pgbench_operator_benchmarkruns{' "$TMP/after.txt")"

# 5. the chart: the dashboard ConfigMap only when enabled, holding the JSON file as it is
HELM="$(cd "$ROOT" && scripts/render-install.sh --which-helm)" || fail "no helm"
CHART="$ROOT/charts/pgbench-operator"
"$HELM" template r "$CHART" --namespace ops >"$TMP/default.yaml" || fail "helm template (default)"
"$HELM" template r "$CHART" --namespace ops --set grafanaDashboard.enabled=true \
    --set grafanaDashboard.annotations.grafana_folder=Databases >"$TMP/dash.yaml" ||
    fail "helm template (grafanaDashboard.enabled)"
"$HELM" lint --strict "$CHART" --set grafanaDashboard.enabled=true --set grafanaDashboard.namespace=monitoring \
    >"$TMP/lint.txt" 2>&1 || { cat "$TMP/lint.txt" >&2; fail "helm lint with the dashboard"; }
for bad in 'grafanaDashboard.enabled=yes' 'grafanaDashboard.namespace=Bad_NS' 'grafanaDashboard.nosuch=1'; do
    if "$HELM" template r "$CHART" --set "$bad" >/dev/null 2>&1; then fail "values schema accepted $bad"; fi
done
python3 - "$TMP/default.yaml" "$TMP/dash.yaml" "$DASHBOARD" <<'PY' || fail "dashboard ConfigMap"
import json, sys, yaml
def maps(path):
    return [d for d in yaml.safe_load_all(open(path)) if d and d["kind"] == "ConfigMap"]
assert not maps(sys.argv[1]), "a ConfigMap in the default render"
cms = maps(sys.argv[2])
assert len(cms) == 1, cms
cm = cms[0]
md = cm["metadata"]
assert md["labels"].get("grafana_dashboard") == "1", md["labels"]
assert md["namespace"] == "ops", md
assert md["annotations"] == {"grafana_folder": "Databases"}, md
assert list(cm["data"]) == ["pgbench-operator.json"], list(cm["data"])
assert json.loads(cm["data"]["pgbench-operator.json"]) == json.load(open(sys.argv[3])), "JSON differs from the file"
print("dashboard ConfigMap:", md["name"])
PY
"$HELM" template r "$CHART" --set metrics.serviceMonitor.enabled=true --show-only templates/servicemonitor.yaml |
    grep -q 'honorLabels: true' || fail "the ServiceMonitor must honour the series' namespace label"

pass "promtool-clean /metrics; per-run series equal the status and go with the run; dashboard consistent"
