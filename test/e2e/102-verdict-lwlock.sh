#!/usr/bin/env bash
# Internal contention (LWLock) limits a run built to fight over two buffers (issue 29): 32 clients
# on 2 cores, each transaction a PL/pgSQL loop of 40 single-row INSERTs into one table with a
# bigserial primary key. Every insert goes to the heap's last page and the index's rightmost
# page, so the backends queue for those buffers' content locks (LWLock:BufferContent), the more
# so as a holder loses its CPU to one of the 31 others. No row is shared (no Lock:* on rows), no
# disk is read. The oracle is the construction: the class is lwlock, its evidence the LWLock
# share of the database's samples, and BufferContent is the database's most sampled wait.
# (Checked by sampling pg_stat_activity by hand first: ~75 % of the database's samples were
# LWLock:BufferContent, 20 inserts per call; 1 insert per call leaves pgbench itself the limit.)
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
. "$ROOT/test/lib/verdict.sh"
env_start_pg
env_start_sim
env_start_operator --progress-interval 2
psql -X -q -v ON_ERROR_STOP=1 <<'SQL' || fail "cannot create the table"
CREATE TABLE feed (id bigserial PRIMARY KEY, v int);
CREATE FUNCTION feed_in(n int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1..n LOOP INSERT INTO feed (v) VALUES (i); END LOOP;
END $$;
SQL
printf 'SELECT feed_in(40);\n' >"$TMP/feed.sql"
k create configmap feed --from-file=feed.sql="$TMP/feed.sql" >/dev/null
env_br_yaml feed "pgbench: {run: {clients: 32, threads: 2, durationSeconds: 12, progressSeconds: 1, protocol: prepared, scripts: [{configMapRef: {name: feed, key: feed.sql}}]}}" | env_apply
env_wait_phase feed Succeeded 180
verdict_check feed '
events = res["waitEvents"]["events"]
db = {k: n for k, n in events.items() if not k.startswith("Client:")}
assert max(db, key=db.get) == "LWLock:BufferContent", events
assert ev["lwlockSharePct"] >= 50, ev
assert v["class"] == "lwlock" and v["rules"][0] == "LWLOCKS", v
assert d["verdictClass"] == "lwlock", (d["verdictClass"], d["verdict"])
'
rows="$(psql -X -At -c "SELECT count(*) FROM feed")"
[ "$rows" -gt 0 ] || fail "nothing was inserted"
pass "internal contention: 32 clients inserting at one table's last page"
