#!/usr/bin/env bash
# Issue 32.1: kubectl pgbench run means what the same pgbench command line means on one machine.
#   1. -R is the total across workers, like -c: --workers 4 -- -c 8 -R 200 offers 200 tps in all,
#      as measured in the result (not 4 x 200), split over the pods as the clients are; the dry
#      run says so and the runner gets a plain decimal (--rate "50", never "5e+01").
#   2. Without --db-name the database is libpq's default, the user's name: --init puts the tables
#      where `pgbench` without DBNAME (PGDATABASE unset) looks for them, not into "postgres".
# The oracle is the real pgbench run on this machine with the same options: its tps, and the
# database libpq picks (psql's current_database()).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_plugin
env_start_operator --log-level info

# a role whose database is named after it, as a DBA would set one up (libpq's default)
env_psql_super -d postgres <<'SQL' >/dev/null || fail "could not create role dba"
CREATE ROLE dba LOGIN PASSWORD 'dba-secret';
CREATE DATABASE dba OWNER dba;
SQL
env_kubectl create secret generic dba-pass --from-literal=password=dba-secret >/dev/null
DBA_TARGET=(--host 127.0.0.1 --port "$PGPORT" --user dba --password-secret dba-pass --sslmode disable)
ONE_MACHINE=(env -u PGDATABASE PGUSER=dba PGPASSWORD=dba-secret PGHOST=127.0.0.1 PGPORT="$PGPORT")

# ---- the dry run: each pod's share, as plain decimals, said in the output
kubectl pgbench run --dry-run=client "${DBA_TARGET[@]}" --name split --workers 4 -- -c 10 -R 1001 -T 5 \
    >"$TMP/split.yaml" || fail "--dry-run=client"
grep -q '^# -c 10 -R 1001 are totals over 4 workers' "$TMP/split.yaml" ||
    fail "the dry run does not say that -c and -R are totals: $(grep '^#' "$TMP/split.yaml" || echo none)"
python3 - "$TMP/split.yaml" <<'PY' || fail "dry run: the split"
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
run = docs[-1]["spec"]["template"]["spec"]["containers"][0]
args = run["args"]
rate = args[args.index("--rate") + 1]
assert rate == "250.25", args  # worker 0's share, a plain decimal
env = {e["name"]: e.get("value") for e in run["env"]}
assert env["BENCH_CLIENTS_BY_INDEX"] == "3,3,2,2", env
assert env["BENCH_RATE_BY_INDEX"] == "250.25,250.25,250.25,250.25", env
assert sum(float(x) for x in env["BENCH_RATE_BY_INDEX"].split(",")) == 1001
assert env["PGDATABASE"] == "dba", env  # libpq's default: the user name
PY
kubectl pgbench run --dry-run=client "${DBA_TARGET[@]}" --name plain --workers 1 -- -c 1 -R 1000 -T 5 \
    >"$TMP/plain.yaml" || fail "--dry-run=client (one worker)"
grep -A1 -- '- --rate' "$TMP/plain.yaml" | grep -q '"1000"' ||
    fail "--rate is not a plain decimal: $(grep -A1 -- '- --rate' "$TMP/plain.yaml")"

# ---- the cluster: --init and a throttled run over 4 workers, no --db-name
kubectl pgbench run "${DBA_TARGET[@]}" --name total --init -s 1 --workers 4 --wait \
    -- -c 8 -j 4 -S -R 200 -T 8 -n >"$TMP/total.out" 2>&1 ||
    { cat "$TMP/total.out" >&2; env_dump_run total; fail "run --wait failed"; }

# where the tables went: the database pgbench on one machine connects to without DBNAME
libpq_db="$("${ONE_MACHINE[@]}" psql -X -Atc 'select current_database()')"
[ "$libpq_db" = dba ] || fail "libpq's default database is $libpq_db, want dba"
in_db() { env_psql_super -d "$1" -Atc "select count(*) from pg_tables where tablename = 'pgbench_accounts'"; }
[ "$(in_db dba)" = 1 ] || fail "--init did not put pgbench_accounts into dba (libpq's default)"
[ "$(in_db postgres)" = 0 ] || fail "--init put pgbench_accounts into postgres"
[ "$(env_status total .status.target)" = "127.0.0.1:$PGPORT/dba" ] ||
    fail "status.target: $(env_status total .status.target)"

# the same command line on this machine (its tables are the ones the pods created)
"${ONE_MACHINE[@]}" pgbench -c 8 -j 4 -S -R 200 -T 8 -n >"$TMP/local.out" 2>&1 ||
    { cat "$TMP/local.out" >&2; fail "pgbench on this machine failed"; }
local_tps="$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$TMP/local.out")"
[ -n "$local_tps" ] || { cat "$TMP/local.out" >&2; fail "no tps in pgbench's output"; }

env_result_json total >"$TMP/total.json"
env_kubectl get br total -o json >"$TMP/br.json"
python3 - "$TMP/br.json" "$TMP/total.json" "$local_tps" <<'PY' || fail "the offered rate"
import json, sys
br = json.load(open(sys.argv[1]))
res = json.loads(open(sys.argv[2]).read())
local = float(sys.argv[3])
tps = br["status"]["summary"]["tps"]
print(f"  pods: {tps:.1f} tps over 4 workers; one machine: {local:.1f} tps; requested 200", file=sys.stderr)
# the requested total, as measured: a Poisson schedule over 8 s (~1600 tx) stays within 20 %
assert abs(tps - 200) <= 40, f"the pods offered {tps} tps for -R 200 (a rate per worker would offer 4 x 200 = 800)"
assert abs(local - 200) <= 40, f"pgbench on one machine ran {local} tps for -R 200"
assert 0.8 <= tps / local <= 1.25, (tps, local)
# each worker offered its share, 50 tps; their settings add up to the command line's
shares = [round(w["tps"], 1) for w in sorted(res["workers"], key=lambda w: w["index"])]
assert len(shares) == 4 and all(30 <= t <= 70 for t in shares), shares
assert res["pgbench"]["rate"] == 200 and res["pgbench"]["clients"] == 8, res["pgbench"]
PY
pass "-R 200 over 4 workers offers $(env_status total .status.summary.tps) tps (one machine: $local_tps); tables in dba"
