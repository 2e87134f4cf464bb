#!/usr/bin/env bash
# Server CPU is never guessed (issue 29): every transaction calls a PL/pgSQL function that only
# counts (a loop of 300,000 additions, no I/O, no locks), so the load's backends are busy on the
# server's CPU nearly all the time. This PostgreSQL has no pg_stat_kcache, so the server's CPU
# use is not measured: the verdict must not claim server CPU, must be inconclusive, and must
# name what would decide it (pg_stat_kcache); its evidence holds the backends' on-CPU share
# (which the construction makes dominant) and no serverCpuSeconds.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
. "$ROOT/test/lib/verdict.sh"
env_start_pg
env_start_sim
env_start_operator --progress-interval 2
psql -X -q -v ON_ERROR_STOP=1 <<'SQL' || fail "cannot create the function"
CREATE FUNCTION burn(n int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE s bigint := 0;
BEGIN
    FOR i IN 1..n LOOP s := s + i; END LOOP;
    RETURN s;
END $$;
SQL
[ "$(env_psql_super -At -c "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_kcache'")" = 0 ] ||
    fail "pg_stat_kcache is installed: this test needs it absent"
printf 'SELECT burn(300000);\n' >"$TMP/burn.sql"
k create configmap burn --from-file=burn.sql="$TMP/burn.sql" >/dev/null
env_br_yaml burn "pgbench: {run: {clients: 4, threads: 1, durationSeconds: 10, progressSeconds: 1, perStatementLatencies: true, scripts: [{configMapRef: {name: burn, key: burn.sql}}]}}" | env_apply
env_wait_phase burn Succeeded 180
verdict_check burn '
# the construction: the database time on CPU, the server waiting little for the client
assert ev["serverCpuSharePct"] >= 70 and ev["clientSharePct"] < 50, ev
# not measured, and not made up
assert st["serverCpuSeconds"] is None and "unknown" in st["serverCpu"], st
assert "serverCpuSeconds" not in ev, ev
assert v["class"] == "inconclusive" and d["verdictClass"] == "inconclusive", v
assert "CPU" not in v["rules"], v
# it names what would decide it
assert "pg_stat_kcache" in v["summary"] and "pg_stat_kcache" in d["verdict"], v["summary"]
'
pass "server CPU unknown without pg_stat_kcache: inconclusive, naming it"
