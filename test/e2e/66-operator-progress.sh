#!/usr/bin/env bash
# Live progress through the real runner and the simulated API server: while a 14 s run goes,
# status.progress (read from the workers' log records every 2 s) shows a tps that kubectl get's
# RESULT column (status.result, read through the real kubectl's table) follows, and it is gone
# when the run ends. A target whose host does not resolve shows condition TargetUnreachable (the
# runner's cause and how long it has waited) while the runner retries, long before the wait ends.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_start_sim

env_start_operator --start-delay 2 --progress-interval 2 --log-level info

env_br_yaml live 'pgbench: {init: {scale: 1}, run: {clients: 2, durationSeconds: 14, builtin: select-only}}' \
    'workers: 2' | env_apply

seen=()
live_ended() { # samples status.progress.tps and the RESULT column while Running; true once ended
    local phase tps result
    IFS='|' read -r phase tps result <<<"$(env_status live '{.status.phase}|{.status.progress.tps}|{.status.result}')"
    if [ "$phase" = Running ] && [ -n "$tps" ]; then
        seen+=("$tps")
        case "$result" in *"tps now"*)
            # the RESULT column shows it (or, updated between the two reads, a later one)
            [[ "$(env_kubectl get br live)" == *" tps now · "* ]] && live_result="$result" ;;
        esac
    fi
    case "$phase" in Succeeded | Failed) return 0 ;; *) return 1 ;; esac
}
env_wait_for "the run to end" 150 live_ended
env_wait_phase live Succeeded 1
env_kubectl get br live -o json >"$TMP/br.json"
[ "${#seen[@]}" -ge 2 ] || fail "status.progress seen ${#seen[@]} times while Running: ${seen[*]:-none}"
[ "$(printf '%s\n' "${seen[@]}" | sort -u | wc -l)" -ge 2 ] || fail "the live tps never moved: ${seen[*]}"
[ -n "${live_result:-}" ] || fail "the RESULT column did not follow the run"
python3 - "$TMP/br.json" <<'PY' || fail "after the run"
import json, sys
st = json.load(open(sys.argv[1]))["status"]
assert "progress" not in st, st.get("progress")
assert "tps now" not in st["result"] and " tps · p99 " in st["result"], st["result"]
PY
note "live tps while running: $(printf '%s\n' "${seen[@]}" | uniq | xargs); RESULT then: $live_result"

# a host that does not resolve: TargetUnreachable while the runner retries (target.connectRetrySeconds,
# 30 s by default)
cat <<EOF | env_apply
apiVersion: pgbench.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: nowhere}
spec:
  target: {host: no-such-host.invalid, database: $PGDATABASE, user: $PGUSER,
           passwordSecretRef: {name: pg-pass}, sslMode: disable}
  workload:
    pgbench:
      run: {clients: 1, durationSeconds: 5}
EOF
unreachable() { [ "$(env_status nowhere '.status.conditions[?(@.type=="TargetUnreachable")].status')" = True ]; }
env_wait_for "TargetUnreachable" 60 unreachable
msg="$(env_status nowhere '.status.conditions[?(@.type=="TargetUnreachable")].message')"
echo "$msg" | grep -q 'no-such-host.invalid' || fail "message does not name the host: $msg"
echo "$msg" | grep -Eq '\(dns\), retrying, [0-9]+ s of 30 s' || fail "message: $msg"
[ "$(env_status nowhere .status.phase)" = Running ] || fail "not Running while retrying"
env_kubectl get events --field-selector reason=TargetUnreachable -o name | grep -q . || fail "no TargetUnreachable event"
env_kubectl delete br nowhere >/dev/null
pass "live progress (${#seen[@]} samples) and TargetUnreachable: $msg"
