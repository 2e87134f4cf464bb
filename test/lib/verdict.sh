# shellcheck shell=bash
# Helpers of the verdict's end-to-end tests (issue 29), after test/lib/env.sh: each test builds a
# run whose limiting resource it knows, then checks the class and the evidence.

# verdict_check NAME PYTHON: BenchmarkRun NAME's object and full result into $TMP/NAME-br.json and
# $TMP/NAME.json, then PYTHON (statements) run with br, res (the result), d (status.diagnostics),
# v (the result's verdict), ev (its evidence) and st (serverStats, {} when absent) defined, and os
# (the test's exported variables in os.environ). A failed assertion dumps the run and fails the
# test; otherwise the verdict sentence is noted.
verdict_check() {
    local name="$1"
    env_kubectl get br "$name" -o json >"$TMP/$name-br.json"
    env_result_json "$name" >"$TMP/$name.json"
    python3 - "$TMP/$name-br.json" "$TMP/$name.json" "$2" <<'PY' || { env_dump_run "$name"; fail "$name: verdict"; }
import json, os, sys
br = json.load(open(sys.argv[1])); res = json.load(open(sys.argv[2]))
d = br["status"]["diagnostics"]; v = res["verdict"]; ev = v["evidence"]; st = res.get("serverStats", {})
exec(sys.argv[3])
PY
    note "$(env_status "$name" .status.diagnostics.verdict)"
}

# verdict_pg_restart [NAME=VALUE...]: env_start_pg's server restarted (pg_ctl restart -w), its
# postmaster (and so every backend) started with these environment variables, e.g.
# LD_PRELOAD=shim.so SHIM_MS=3; fails the test when it does not come back.
verdict_pg_restart() {
    runuser -u postgres -- env "$@" "$PG_BINDIR/pg_ctl" -D "$PG_DATADIR" -l "$PG_SOCKDIR/server.log" \
        -w -t 60 restart >/dev/null || { tail -20 "$PG_SOCKDIR/server.log" >&2; fail "restart with $* failed"; }
}
