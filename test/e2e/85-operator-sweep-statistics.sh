#!/usr/bin/env bash
# Honest statistics in a BenchmarkSweep (issue 29, item 5), through the simulated cluster with
# real PostgreSQL and the real runner:
#   1. 3 clients steps (1, 2, 4; 2 s each, one repeat): the USL fit is not ok (three parameters
#      through three points fit exactly), stepsNeeded 2; no step has a tpsStddev (one repeat:
#      unknown, not 0); the wait-event shares of each 2 s run rest on 10 or more sampling rounds
#      (at 1 Hz a 2 s run has 2), each step's limit says its rounds and whether they are weak; the
#      verdict agrees with the measured curve (computed here from the steps' tps).
#   2. one step with 2 repeats: tpsStddev is the sample standard deviation of the two runs' tps
#      (statistics.stdev here).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim
OP_NAME=operator1 env_start_operator

wait_phase() { ENV_KIND=bsw env_wait_phase "$@"; }
# sweep NAME VALUES REPEATS: a clients sweep of 2 s tpcb-like runs (scale 1) against the local
# database
sweep() {
    cat <<YAML
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkSweep
metadata:
  name: $1
spec:
  template:
    target: {host: 127.0.0.1, port: $PGPORT, database: $PGDATABASE, user: $PGUSER, passwordSecretRef: {name: pg-pass}, sslMode: disable}
    workload:
      pgbench:
        init: {scale: 1}
        run: {durationSeconds: 2, threads: 1}
  vary: {field: clients, values: [$2]}
  repeats: $3
YAML
}

# ---- 1. three steps ---------------------------------------------------------------------------
sweep three "1, 2, 4" 1 >"$TMP/three.yaml"
env_apply "$TMP/three.yaml"
wait_phase three Succeeded 200
env_kubectl get bsw three -o json >"$TMP/three.json"
python3 - "$TMP/three.json" <<'PY' || fail "three steps: $(cat "$TMP/three.json" | head -c 4000)"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
usl = st["analysis"]["usl"]
assert usl["ok"] is False and usl["stepsNeeded"] == 2 and usl["distinctClients"] == 3, usl
assert "2 more steps" in usl["reason"], usl
assert "lambda" not in usl and "sigmaInterval" not in usl, usl
for s in st["steps"]:
    assert len(s["runs"]) == 1 and "tpsStddev" not in s and "p99Stddev" not in s["latencyMs"], s
    r = s["runs"][0]
    # 2 s sampled every 100 ms from 50 ms in: about 20 rounds; 1 Hz would give 2
    assert r["waitRounds"] >= 10, r
    lim = s["limit"]
    assert lim["rounds"] == r["waitRounds"] and lim["weak"] == (lim["rounds"] < 20), (lim, r)
    # the step's class is its run's verdict's; the event that weighs most in it (a class some
    # wait event measures) is one the run sampled
    assert lim["class"] == r.get("verdictClass", lim["class"]), (lim, r)
    assert "event" not in lim or lim["event"] in r["waitSharesPct"], (lim, r)
    shares = s["classSharesPct"]
    assert abs(sum(shares.values()) - sum(r["waitSharesPct"].values())) < 0.5, (shares, r)
# the verdict against the curve measured: flat or falling from the first step -> "does not scale
# past 1 client"; a peak later and clearly above it -> that peak, and no fit
tps = [s["tpsMean"] for s in sorted(st["steps"], key=lambda s: s["value"])]
v = st["analysis"]["verdict"]
if max(tps) <= tps[0] * 1.01:
    assert v.startswith("does not scale past 1 client"), (tps, v)
elif max(tps) >= tps[0] * 1.05:
    peak = [1, 2, 4][tps.index(max(tps))]
    assert v.startswith("peak %.0f tps at %d client" % (max(tps), peak)), (tps, v)
    assert "no USL fit" in v and "2 more steps" in v, v
print(json.dumps({"tps": tps, "verdict": v}))
PY
note "three: $(env_kubectl get bsw three -o jsonpath='{.status.analysis.verdict}')"

# ---- 2. repeats: a spread ---------------------------------------------------------------------
sweep twice "2" 2 >"$TMP/twice.yaml"
env_apply "$TMP/twice.yaml"
wait_phase twice Succeeded 120
env_kubectl get bsw twice -o json >"$TMP/twice.json"
for r in 0 1; do env_kubectl get br "twice-s0-r$r" -o json >"$TMP/twice-r$r.json"; done
python3 - "$TMP/twice.json" "$TMP/twice-r0.json" "$TMP/twice-r1.json" <<'PY' || fail "repeats"
import json, statistics, sys
st = json.load(open(sys.argv[1]))["status"]
tps = [json.load(open(p))["status"]["summary"]["tps"] for p in sys.argv[2:4]]
s = st["steps"][0]
want = statistics.stdev(tps)
assert abs(s["tpsStddev"] - want) <= 1e-4 * max(want, 1), (s, tps, want)
assert abs(s["tpsMean"] - statistics.mean(tps)) <= 1e-6 * s["tpsMean"], (s, tps)
print("stddev %.3f of %s" % (s["tpsStddev"], tps))
PY
pass "3 steps: no fit, 2 more steps needed; one repeat: no stddev; 2 s runs sampled in >= 10 rounds; 2 repeats: stddev as statistics.stdev"
