#!/usr/bin/env bash
# Issue 32.2: `kubectl pgbench run --wait` prints a blocking condition as it appears. The script's
# ConfigMap does not exist yet, so the worker pod cannot mount it: after the operator's 30 s grace
# condition WorkersBlocked is True, and --wait prints it with the kubelet's cause while it waits
# (not only the phase and a clock). Once the ConfigMap is created the run goes on and --wait ends
# with the result table (exit 0).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_plugin
env_start_operator --progress-interval 1 --log-level info

kubectl pgbench run "${PLUGIN_TARGET[@]}" --name blocked --wait --wait-timeout 150s \
    -- -f later-cm:s.sql -T 2 -n >"$TMP/blocked.out" 2>&1 &
pid=$!
said() { grep -q '^blocked: WorkersBlocked: .*later-cm' "$TMP/blocked.out"; }
env_wait_for "--wait to print WorkersBlocked (after the 30 s grace)" 70 said
kill -0 "$pid" 2>/dev/null || { cat "$TMP/blocked.out" >&2; fail "--wait ended while blocked"; }
[ "$(env_status blocked .status.phase)" = Running ] || fail "phase $(env_status blocked .status.phase), want Running"

printf 'SELECT 1;\n' >"$TMP/s.sql"
env_kubectl create configmap later-cm --from-file=s.sql="$TMP/s.sql" >/dev/null
rc=0
wait "$pid" || rc=$?
cat "$TMP/blocked.out" >&2
[ "$rc" -eq 0 ] || fail "run --wait: exit $rc once the ConfigMap exists"
[ "$(grep -c '^blocked: WorkersBlocked: ' "$TMP/blocked.out")" -eq 1 ] || fail "WorkersBlocked not printed once"
awk '/^blocked: WorkersBlocked: / {c = NR} /^benchmarkrun blocked: Succeeded/ {t = NR} END {exit !(c && t && c < t)}' \
    "$TMP/blocked.out" || fail "the condition was not printed while the run waited"
pass "--wait printed: $(grep '^blocked: WorkersBlocked: ' "$TMP/blocked.out" | cut -c1-160)"
