#!/usr/bin/env bash
# TLS through the libpq environment: the test server gets a certificate from a throwaway CA;
# PGSSLMODE=verify-full with PGSSLROOTCERT = that CA connects and runs; a wrong CA is a "tls"
# failure (exit 3, not retried); the same holds for `pgbench init`.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_need_runner
command -v openssl >/dev/null || fail "openssl not installed"

# CA + server certificate for 127.0.0.1 (IP SAN, what verify-full checks for PGHOST=127.0.0.1)
cd "$TMP"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=test-ca" -keyout ca.key -out ca.crt 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=other-ca" -keyout other.key -out other.crt 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server.key -out server.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >san.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext \
    -out server.crt 2>/dev/null
cp server.crt server.key "$PG_DATADIR/"
chown postgres:postgres "$PG_DATADIR/server.crt" "$PG_DATADIR/server.key"
chmod 600 "$PG_DATADIR/server.key"
cat >>"$PG_DATADIR/postgresql.conf" <<CONF
ssl = on
ssl_cert_file = 'server.crt'
ssl_key_file = 'server.key'
CONF
env_psql_super -d postgres -c "SELECT pg_reload_conf()" >/dev/null
env_wait_for "ssl on" 10 bash -c "psql -X -h '$PG_SOCKDIR' -p '$PGPORT' -U postgres -d postgres -tAc 'SHOW ssl' | grep -qx on"
cd - >/dev/null

RC=0
PGSSLMODE=verify-full PGSSLROOTCERT="$TMP/ca.crt" "$RUNNER" pgbench init --scale 1 \
    >"$TMP/init.out" 2>"$TMP/init.err" || RC=$?
[ "$RC" -eq 0 ] || { cat "$TMP/init.err" >&2; fail "init over verify-full TLS: exit $RC"; }
RC=0
PGSSLMODE=verify-full PGSSLROOTCERT="$TMP/ca.crt" "$RUNNER" pgbench run --clients 2 --duration 2 \
    --builtin select-only --wait-events >"$TMP/run.out" 2>"$TMP/run.err" || RC=$?
[ "$RC" -eq 0 ] || { cat "$TMP/run.err" >&2; fail "run over verify-full TLS: exit $RC"; }
python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); assert r["complete"] and r["summary"]["tps"] > 0 and r["waitEvents"]["samples"] > 0' "$TMP/run.out" ||
    fail "TLS run result check failed"

for what in "run --clients 1 --duration 1" "init --scale 1"; do
    RC=0
    T0=$SECONDS
    # shellcheck disable=SC2086
    PGSSLMODE=verify-full PGSSLROOTCERT="$TMP/other.crt" "$RUNNER" pgbench $what --wait-timeout 30 \
        >"$TMP/bad.out" 2>"$TMP/bad.err" || RC=$?
    [ "$RC" -eq 3 ] || { cat "$TMP/bad.err" >&2; fail "wrong CA ($what): exit $RC, want 3"; }
    [ $((SECONDS - T0)) -le 8 ] || fail "wrong CA ($what): retried for $((SECONDS - T0)) s"
    python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); e=" ".join(r["errors"]); assert "(tls)" in e and "certificate" in e, e; print(r["errors"][0])' "$TMP/bad.out" ||
        fail "wrong CA ($what): not reported as a TLS failure"
done
pass "verify-full with PGSSLROOTCERT works; a wrong CA is a tls failure"
