#!/usr/bin/env bash
# Network round trips limit a run built to pay them (issue 29): the runner reaches PostgreSQL
# through test/lib/delay-proxy.py, which holds every chunk 10 ms in each direction, so each
# statement pays a 20 ms round trip the server never sees. select-only (one statement per
# transaction) with 2 clients: the server is idle, waiting for the client, nearly all the time.
# The oracle is the proxy: the class is network, the SELECT 1 probe measured the injected 20 ms
# (plus the local round trip), and the transaction's latency is about that round trip. The same
# workload without the proxy is not classed network.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
. "$ROOT/test/lib/verdict.sh"
export DELAY_MS=10
env_start_pg
env_start_sim
env_start_operator --progress-interval 2
PROXY_PORT="$(env_free_port)"
env_bg proxy python3 "$ROOT/test/lib/delay-proxy.py" "$PROXY_PORT" 127.0.0.1 "$PGPORT" "$DELAY_MS" >/dev/null
env_wait_for "the delay proxy" 20 grep -q '^ready' "$TMP/proxy.log"

workload="pgbench: {run: {clients: 2, threads: 1, durationSeconds: 10, progressSeconds: 1, perStatementLatencies: true, builtin: select-only}}"
env_br_yaml init "pgbench: {init: {scale: 1}, run: {clients: 1, durationSeconds: 1}}" | env_apply
env_wait_phase init Succeeded 180
PGPORT="$PROXY_PORT" env_br_yaml far "$workload" | env_apply
env_wait_phase far Succeeded 180
verdict_check far '
injected = 2 * float(os.environ["DELAY_MS"])  # the proxy holds the request, then the answer
# the probe saw the injected round trip, plus the proxy and the loopback (from 1 ms to 15 ms seen
# on a loaded 2-core machine: the proxy is a Python process that waits for a CPU like the rest)
assert injected <= res["network"]["rttMs"] <= injected * 2, res["network"]
assert ev["rttMs"] == res["network"]["rttMs"], ev
# one statement a transaction: the transaction is about one round trip
assert ev["statementsPerTx"] == 1, ev
assert injected <= ev["latencyAvgMs"] <= injected * 2.5, ev
assert ev["rttSharePct"] >= 60, ev
assert ev["clientSharePct"] >= 80, ev
assert v["class"] == "network" and v["rules"][0] == "ROUND_TRIPS", v
assert d["verdictClass"] == "network", (d["verdictClass"], d["verdict"])
'

# the same workload straight to the server: no round trip to blame
env_br_yaml near "$workload" | env_apply
env_wait_phase near Succeeded 180
verdict_check near '
assert res["network"]["rttMs"] < float(os.environ["DELAY_MS"]), res["network"]
assert v["class"] != "network", v
'
pass "network round trips: a 2 x $DELAY_MS ms delay proxy"
