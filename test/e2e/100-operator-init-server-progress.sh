#!/usr/bin/env bash
# An init at scale 50 (E2E_INIT_SCALE) with server-side generation (init.generation: server,
# pgbench -I dtGvp) through the real operator, runner and pgbench 15 on the simulated cluster:
# while pgbench loads, status.progress names the step and a partial row count of the total that
# grows (estimated from the database's growth: server-side generation prints no rows lines), and
# `kubectl get br`'s RESULT column shows it; once the run goes, the init's figures are gone. The
# init's result names the steps it ran and the database holds the rows.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim
env_need_runner
env_start_operator --progress-interval 1 --log-level info

SCALE="${E2E_INIT_SCALE:-50}" # 100 as in issue 31: about twice as long
env_br_yaml big "pgbench: {init: {scale: $SCALE, generation: server}, run: {clients: 1, durationSeconds: 2, builtin: select-only}}" |
    env_apply

partial=() table="" stale=""
loaded() { # samples the init's progress while it generates; true once the run is past the init
    local phase step rows total src result
    IFS='|' read -r phase step rows total src result <<<"$(env_status big \
        '{.status.phase}|{.status.progress.step}|{.status.progress.rows}|{.status.progress.rowsTotal}|{.status.progress.source}|{.status.result}')"
    # past the init, its figures are gone (env_poll discards output: the test fails after it)
    if [ "$phase" != Initializing ] && [ -n "$phase" ] && [ "$phase" != Pending ] &&
        { [ -n "$step" ] || [[ "$result" == init:* ]]; }; then
        stale="$phase: result '$result', step '$step'"
    fi
    if [ "$phase" = Initializing ] && [ "$step" = "generate (server-side)" ] && [ -n "$rows" ] &&
        [ "$rows" -gt 0 ] && [ "$rows" -lt "$total" ]; then
        [ "$src" = "database size" ] || fail "server-side progress from '$src'"
        [ "$total" -eq $((SCALE * 100000)) ] || fail "rowsTotal $total at scale $SCALE"
        partial+=("$rows")
        # the RESULT column of the real kubectl's table (or, moved on between the reads, a later one)
        [ -n "$table" ] || table="$(env_kubectl get br big | grep -F 'init: generate (server-side)' || true)"
    fi
    case "$phase" in Initializing | Pending | "") return 1 ;; *) return 0 ;; esac
}
env_wait_for "the init to end" 300 loaded
[ -z "$stale" ] || fail "the init's progress stayed: $stale"
env_wait_phase big Succeeded 120
[ "${#partial[@]}" -ge 1 ] || fail "no partial row count seen while the data loaded"
[ -n "$table" ] || fail "kubectl get br never showed the init's progress"
case "$table" in *" rows · "*"estimated from the database size"*) ;; *) fail "RESULT column: $table" ;; esac
[ "$(printf '%s\n' "${partial[@]}" | sort -un | wc -l)" -ge 2 ] ||
    fail "the row count never grew while loading: ${partial[*]}"

pod="$(env_kubectl get pods -l job-name=big-init -o name | head -1)"
[ -n "$pod" ] || fail "no init pod"
env_kubectl logs "$pod" >"$TMP/init.log"
python3 - "$TMP/init.log" "$SCALE" <<'PY' || fail "init log"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
res = lines[-1]
scale = int(sys.argv[2])
assert res["kind"] == "pgbench-init" and res["complete"], res
assert res["init"]["steps"] == "dtGvp", res["init"]
assert res["init"]["reason"].startswith("initialized scale %d in " % scale), res["init"]
recs = [l["progress"] for l in lines if "progress" in l]
gen = [r for r in recs if r.get("step") == "generate (server-side)" and 0 < r.get("rows", 0) < r["rowsTotal"]]
assert gen and all(r["source"] == "database size" and r["rowsPerSecond"] > 0 for r in gen), recs
steps = [r["step"] for r in recs]
assert steps[-1] == "done" and "vacuum" in steps and "primary keys" in steps, steps
PY
n="$(psql -XAtc 'SELECT count(*) FROM pgbench_accounts')"
[ "$n" -eq $((SCALE * 100000)) ] || fail "pgbench_accounts has $n rows"
[ "$(env_status big '{.status.progress}')" = "" ] || fail "status.progress stayed after the run"
pass "scale $SCALE server-side: partial rows seen $(printf '%s\n' "${partial[@]}" | uniq | xargs); RESULT: ${table//  / }"
