#!/usr/bin/env bash
# Issue 32.2: `kubectl pgbench run --wait` and `kubectl get -o wide` say what is happening.
#   1. --wait shows the live status.progress while the run goes ("N tps now", "S s of 8 s"), and
#      `kubectl get br -o wide` MESSAGE is the current state then, not the start barrier.
#   2. The end is one summary line of numbers: on a terminal (script(1) gives one) the progress
#      line is cleared, so the screen has exactly one line with a tps figure besides "tps now".
#   3. A host that does not resolve: --wait prints condition TargetUnreachable with its cause as
#      it appears, MESSAGE says it, and the run is Failed within the default 30 s retry window
#      (spec.target.connectRetrySeconds), counted from the run's creation, not from each runner's
#      start: --wait has ended with the resolver's message within 30 s of `kubectl pgbench run`'s
#      start; --connect-retry 3s makes it 3 s (the spec says so).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_plugin
env_start_operator --progress-interval 1 --log-level info

# ---- 1: live progress in --wait (not a terminal) and in MESSAGE
kubectl pgbench run "${PLUGIN_TARGET[@]}" --name live --init -s 1 --workers 2 --wait \
    -- -c 2 -S -T 8 -P 1 -n >"$TMP/live.out" 2>&1 &
pid=$!
messages=()
while kill -0 "$pid" 2>/dev/null; do
    if [ "$(env_status live .status.phase)" = Running ]; then
        m="$(env_kubectl get br live -o wide --no-headers 2>/dev/null | sed 's/.*  //')"
        [ -n "$m" ] && messages+=("$m")
    fi
    sleep 0.5
done
rc=0
wait "$pid" || rc=$?
cat "$TMP/live.out" >&2
[ "$rc" -eq 0 ] || fail "run --wait: exit $rc"
grep -Eq '^live Running +[0-9]+s +[0-9.,]+ tps now .* [0-9]+ s of 8 s' "$TMP/live.out" ||
    fail "--wait showed no live progress (status.progress)"
[ "$(grep -Ec ' tps now .* [0-9]+ s of 8 s' "$TMP/live.out")" -ge 2 ] || fail "the progress did not move"
printf '%s\n' "${messages[@]}" | sort -u >&2
printf '%s\n' "${messages[@]}" | grep -Eq '^pgbench runs on 2 of 2 workers: [0-9]+ s of 8 s, [0-9.,]+ tps now$' ||
    fail "-o wide MESSAGE never showed the current state while Running"
# the table once, after the progress lines: its tps line is the only one with numbers of the end
[ "$(grep -Ec '^  tps [0-9.]+ +latency avg' "$TMP/live.out")" -eq 1 ] || fail "not one summary line"

# ---- 2: on a terminal, the screen left after --wait has one line with a tps figure
script -qfec "kubectl pgbench run $(printf '%q ' "${PLUGIN_TARGET[@]}") --name tty --wait -- -c 1 -S -T 3 -P 1 -n" \
    /dev/null >"$TMP/tty.raw" 2>&1 || { cat -v "$TMP/tty.raw" >&2; fail "run --wait on a terminal"; }
python3 - "$TMP/tty.raw" <<'PY' || { cat -v "$TMP/tty.raw" >&2; fail "on a terminal"; }
import re, sys
raw = open(sys.argv[1], encoding="utf-8", errors="replace").read().replace("\r\n", "\n")
# what stays on screen: per line, the text after the last carriage return, escapes removed
screen = [re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", l.split("\r")[-1]) for l in raw.split("\n")]
# (a worker's own line and the diagnostics' sentences, which may quote the measured tps, are not
# summaries)
tps = [l for l in screen if re.search(r"\btps\b", l) and "tps now" not in l
       and not l.startswith(("  worker ", "  Little's law: ", "  verdict: "))]
assert len(tps) == 1, tps
assert re.match(r"^  tps [0-9.]+ +latency avg", tps[0]), tps
PY

# ---- 3: a host that does not resolve, the default retry window
start=$(date +%s.%N)
rc=0
kubectl pgbench run --host badhost.invalid --user "$PGUSER" --password-secret pg-pass --sslmode disable \
    --name badhost --wait --wait-timeout 90s -- -c 1 -T 5 >"$TMP/badhost.out" 2>&1 &
pid=$!
wide=""
while kill -0 "$pid" 2>/dev/null; do
    m="$(env_kubectl get br badhost -o wide --no-headers 2>/dev/null || true)"
    case "$m" in *" Running "*"could not translate host name"*) wide="$m" ;; esac
    sleep 0.5
done
wait "$pid" || rc=$?
took=$(python3 -c "import sys; print('%.1f' % ($(date +%s.%N) - $start))")
cat "$TMP/badhost.out" >&2
bad_took=$took
note "badhost: exit $rc after ${took}s; -o wide: ${wide:-never named the cause}"
[ "$rc" -eq 3 ] || fail "badhost: exit $rc, want 3 (the run failed)"
# once: the seconds it counts are no news
[ "$(grep -c '^badhost: TargetUnreachable: worker 0 waits for badhost.invalid:.*could not translate host name.* of 30 s$' "$TMP/badhost.out")" -eq 1 ] ||
    fail "--wait did not print TargetUnreachable with its cause once"
# printed as it appeared: before the run ended, i.e. above the result table
awk '/TargetUnreachable/ {c = NR} /^benchmarkrun badhost: Failed/ {t = NR} END {exit !(c && t && c < t)}' \
    "$TMP/badhost.out" || fail "the condition was not printed before the end"
grep -q 'could not translate host name' <<<"$wide" || fail "-o wide MESSAGE never named the cause"
# apply -> --wait's end (Failed seen, the plugin's start and its poll included): within the window
python3 -c "import sys; sys.exit(not $took <= 30.0)" ||
    fail "a host that does not resolve took ${took}s from apply to Failed (window 30 s)"
sed -n '/^benchmarkrun badhost: Failed/,$p' "$TMP/badhost.out" | grep -q 'could not translate host name' ||
    fail "--wait's end does not name the resolver's message"
[ "$(env_status badhost .status.phase)" = Failed ] || fail "badhost not Failed"
# the operator's own clock agrees: Failed within 30 s of creationTimestamp (both 1 s resolution)
env_kubectl get br badhost -o json | python3 -c '
import datetime, json, sys
o = json.load(sys.stdin)
t = lambda s: datetime.datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")
created = t(o["metadata"]["creationTimestamp"])
failed = [c for c in o["status"]["conditions"] if c["type"] == "Failed" and c["status"] == "True"]
assert failed, o["status"]["conditions"]
d = (t(failed[0]["lastTransitionTime"]) - created).total_seconds()
print("creation -> Failed condition: %d s" % d, file=sys.stderr)
assert d <= 30, d
' || fail "the Failed condition came more than 30 s after the run's creation"
env_status badhost .status.message | grep -q 'could not translate host name' ||
    fail "the failure does not name the cause: $(env_status badhost .status.message)"

# ---- --connect-retry: the spec field, a shorter window
start=$SECONDS
rc=0
kubectl pgbench run --host badhost.invalid --user "$PGUSER" --password-secret pg-pass --sslmode disable \
    --name quick --connect-retry 3s --wait --wait-timeout 60s -- -c 1 -T 5 >"$TMP/quick.out" 2>&1 || rc=$?
took=$((SECONDS - start))
[ "$rc" -eq 3 ] || { cat "$TMP/quick.out" >&2; fail "--connect-retry 3s: exit $rc, want 3"; }
[ "$(env_status quick .spec.target.connectRetrySeconds)" = 3 ] || fail "spec.target.connectRetrySeconds not 3"
[ "$took" -le 20 ] || fail "--connect-retry 3s took ${took}s to fail"
pass "live progress, one summary line, MESSAGE the current state; unresolvable host Failed ${bad_took}s after apply (window 30 s); --connect-retry 3s"
