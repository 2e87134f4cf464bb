#!/usr/bin/env bash
# An init with client-side generation (init.generation: client: pgbench -I dtgvp, COPY from the
# init pod) and the table options (fillfactor, unloggedTables) through the real operator, runner and
# pgbench 15: the init's progress records count the rows from pgbench's own rows lines, the tables
# are created as asked, and the API server refuses init specs pgbench would (steps that do not
# match the generation, unknown step letters, a fill factor outside 10..100) naming the field.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim
env_need_runner
env_start_operator --progress-interval 1 --log-level info

env_br_yaml small 'pgbench: {init: {scale: 5, generation: client, fillfactor: 90, unloggedTables: true},
  run: {clients: 1, durationSeconds: 1, builtin: select-only}}' | env_apply
env_wait_phase small Succeeded 180

pod="$(env_kubectl get pods -l job-name=small-init -o name | head -1)"
[ -n "$pod" ] || fail "no init pod"
env_kubectl logs "$pod" >"$TMP/init.log"
python3 - "$TMP/init.log" <<'PY' || fail "init log"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
res = lines[-1]
assert res["kind"] == "pgbench-init" and res["complete"], res
assert res["init"]["steps"] == "dtgvp", res["init"]
# pgbench's own command line, as the runner logged it
started = [l["msg"] for l in lines if l.get("msg", "").startswith("starting ")]
assert started and " -I dtgvp " in started[0] and " -F 90 " in started[0] and "--unlogged-tables" in started[0], started
recs = [l["progress"] for l in lines if "progress" in l]
gen = [r for r in recs if r.get("step") == "generate (client-side)"]
assert gen and all(r["source"] == "pgbench" and r["rowsTotal"] == 500000 for r in gen), recs
assert gen[-1]["rows"] == 500000 and gen[-1]["rowsPerSecond"] > 0, gen
PY
read -r persistence options <<<"$(psql -XAt -F ' ' -c "SELECT relpersistence, array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'pgbench_accounts'")"
[ "$persistence" = u ] || fail "pgbench_accounts relpersistence $persistence, want u (unlogged)"
[ "$options" = fillfactor=90 ] || fail "pgbench_accounts reloptions '$options', want fillfactor=90"

# what pgbench would refuse never reaches it: the API server's schema and CEL rules
refused() { # NAME INIT-FIELDS MESSAGE-PART
    if env_br_yaml "$1" "pgbench: {init: {scale: 1, $2}, run: {clients: 1, durationSeconds: 1}}" |
        env_kubectl apply -f - >"$TMP/$1.out" 2>&1; then
        fail "init {$2} was accepted"
    fi
    grep -qF -- "$3" "$TMP/$1.out" || fail "init {$2}: $(cat "$TMP/$1.out")"
}
refused bad-match 'generation: server, steps: dtgvp' "init.steps must hold the generation's letter"
refused bad-both 'steps: dtgGvp' 'init.steps: keep one of g'
refused bad-letter 'steps: dtxvp' 'spec.workload.pgbench.init.steps'
refused bad-ff 'fillfactor: 5' 'spec.workload.pgbench.init.fillfactor'
refused bad-gen 'generation: gpu' 'spec.workload.pgbench.init.generation'
# the plugin's pgbench -i flags become the same spec, and the init Job's runner flags
"$BIN/kubectl-pgbench" run --host pg --user u --password-secret s --init -s 5 \
    --init-generation client -F 90 --unlogged-tables -I dtgvpf --index-tablespace idx_ts \
    --name plug --dry-run=client -o json -- -T 5 >"$TMP/plug.json" || fail "plugin dry run"
python3 - "$TMP/plug.json" <<'PY' || fail "plugin's init"
import json, sys
d = json.load(open(sys.argv[1]))
items = d.get("items", [d])
br = [i for i in items if i["kind"] == "BenchmarkRun"][0]
init = br["spec"]["workload"]["pgbench"]["init"]
assert init == {"scale": 5, "generation": "client", "steps": "dtgvpf", "fillfactor": 90,
                "unloggedTables": True, "indexTablespace": "idx_ts"}, init
job = [i for i in items if i["kind"] == "Job" and i["metadata"]["name"] == "plug-init"][0]
args = job["spec"]["template"]["spec"]["containers"][0]["args"]
for want in (["--generation", "client"], ["--init-steps", "dtgvpf"], ["--fillfactor", "90"],
             ["--unlogged-tables"], ["--index-tablespace", "idx_ts"]):
    i = args.index(want[0])
    assert args[i:i + len(want)] == want, args
PY
"$BIN/kubectl-pgbench" run --host pg --user u --password-secret s --init -s 1 -I dtGxp \
    --name plug --dry-run=client -- -T 5 >"$TMP/plug.err" 2>&1 && fail "-I dtGxp accepted"
grep -qF 'spec.workload.pgbench.init.steps: "dtGxp": use 1 to 32' "$TMP/plug.err" ||
    fail "plugin -I dtGxp: $(cat "$TMP/plug.err")"
pass "client-side init with fillfactor 90, unlogged tables; 5 invalid init specs refused"
