#!/usr/bin/env bash
# A --rate run is rate-limited (issue 29): pgbench paced at 20 transactions a second by design
# does not measure capacity, whatever its waits. Class rate-limited, evidence the rate asked and
# the tps measured (close to it); the rule decides before any wait-event rule.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim
env_start_operator --progress-interval 2
env_br_yaml paced "pgbench: {init: {scale: 1}, run: {clients: 2, threads: 1, durationSeconds: 6, progressSeconds: 1, rate: 20}}" | env_apply
env_wait_phase paced Succeeded 120
k get br paced -o json >"$TMP/br.json"
env_result_json paced >"$TMP/result.json"
python3 - "$TMP/br.json" "$TMP/result.json" <<'PY' || { env_dump_run paced; fail "paced: verdict"; }
import json, sys
br = json.load(open(sys.argv[1])); res = json.load(open(sys.argv[2]))
d = br["status"]["diagnostics"]; v = res["verdict"]; ev = v["evidence"]
assert d["verdictClass"] == "rate-limited", (d["verdictClass"], d["verdict"])
assert v["rules"][0] == "RATE_SCHEDULE", v["rules"]
assert ev["ratePerSec"] == 20, ev
assert 10 <= ev["tps"] <= 30, ev
PY
note "$(env_status paced .status.diagnostics.verdict)"
pass "a --rate run is rate-limited"
