#!/usr/bin/env bash
# kubectl pgbench keeps kubectl's habits (issue 32.7): kubectl's flags before or after the
# command (-n NS report X), "did you mean" for a mistyped command, version (plugin, operator,
# CRDs), logs -f following the workers while they run, and logs --raw printing pgbench's own
# report (the init job's lines too).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_plugin
k create namespace other >/dev/null
k -n other create secret generic pg-pass --from-literal=password="$PGPASSWORD" >/dev/null
env_start_operator --log-level info --leader-elect

# ---- global flags before the command
kubectl pgbench -n other run "${PLUGIN_TARGET[@]}" --name hab --init -s 1 -- -c 2 -j 2 -T 4 -P 1 -r \
    >"$TMP/run.out" 2>&1 || { cat "$TMP/run.out" >&2; fail "-n other run"; }
[ -n "$(k -n other get br hab -o name)" ] || fail "-n before run: not created in namespace other"

# ---- logs -f while it runs: lines arrive before the run ends, and it returns when it ends
kubectl pgbench logs -f hab --namespace=other >"$TMP/follow.out" 2>"$TMP/follow.err" &
fpid=$!
env_wait_for "a worker's progress record while running" 60 \
    bash -c "grep -q '^\[0\] .*\"progress\"' '$TMP/follow.out'"
phase=$(env_status other/hab .status.phase)
[ "$phase" = Running ] || fail "logs -f: the first worker line came only in phase $phase"
timeout 90 tail --pid=$fpid -f /dev/null || fail "logs -f did not end with the run"
wait $fpid || fail "logs -f: exit $?: $(cat "$TMP/follow.err")"
[ "$(env_status other/hab .status.phase)" = Succeeded ] || fail "run hab did not succeed"
grep -q '^\[init\] ' "$TMP/follow.out" || fail "logs -f: no init lines"
grep -q '^\[0\] .*"schemaVersion":1' "$TMP/follow.out" || fail "logs -f: no result line"

# ---- logs --raw: pgbench's own report, as pgbench prints it
kubectl pgbench --context "$(k config current-context)" logs hab --raw -n other >"$TMP/raw.out" ||
    fail "logs --raw"
cat "$TMP/raw.out" >&2
grep -q '^\[init\] done in [0-9.]* s' "$TMP/raw.out" || fail "--raw: no init report"
grep -Eq '^\[0\] transaction type: <builtin: TPC-B \(sort of\)>$' "$TMP/raw.out" || fail "--raw: no report"
grep -Eq '^\[0\] number of clients: 2$' "$TMP/raw.out" || fail "--raw: clients line"
grep -Eq '^\[0\] tps = [0-9.]+ \(without initial connection time\)$' "$TMP/raw.out" || fail "--raw: tps line"
grep -Eq '^\[0\] statement latencies in milliseconds' "$TMP/raw.out" || fail "--raw: -r's statement latencies"
grep -Eq '^\[0\] progress: [0-9.]+ s, ' "$TMP/raw.out" || fail "--raw: -P lines"
! grep -q 'schemaVersion\|"level"' "$TMP/raw.out" || fail "--raw: runner records"

# ---- flags before the command with other commands; the namespace they name is used
kubectl pgbench -n other report hab -o "$TMP/hab.html" 2>/dev/null || fail "-n other report"
grep -q '<h1>' "$TMP/hab.html" || fail "report: no page"
kubectl pgbench --namespace other export hab -o json >/dev/null || fail "--namespace other export"
rc=0
kubectl pgbench report hab -o "$TMP/x.html" 2>"$TMP/nf.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q 'namespace default' "$TMP/nf.err" || fail "without -n: exit $rc, $(cat "$TMP/nf.err")"

# ---- did you mean
env_plugin_refuses 'Did you mean this?' reprot hab
kubectl pgbench reprot hab >/dev/null 2>"$TMP/dym.err" || true
grep -qP '^\treport$' "$TMP/dym.err" || fail "no suggestion of report: $(cat "$TMP/dym.err")"
kubectl pgbench comapre a b >/dev/null 2>"$TMP/dym.err" || true
grep -qP '^\tcompare$' "$TMP/dym.err" || fail "no suggestion of compare"
kubectl pgbench -n other frobnicate >/dev/null 2>"$TMP/dym.err" || true
! grep -q 'Did you mean' "$TMP/dym.err" || fail "a suggestion for nonsense"

# ---- version: plugin, operator (its Lease), CRDs
kubectl pgbench version >"$TMP/version.out" || { cat "$TMP/version.out" >&2; fail "version"; }
cat "$TMP/version.out" >&2
v=$(cat "$ROOT/VERSION")
grep -Fxq "plugin: $(kubectl pgbench --version)" "$TMP/version.out" || fail "version: plugin"
grep -Fq "operator: $("$BIN/pgbench-operator" --version) (Lease " "$TMP/version.out" ||
    fail "version: operator"
grep -Eq "^operator: .* \(Lease [a-z0-9-]+/pgbench-operator, held by .+\)$" "$TMP/version.out" ||
    fail "version: the operator's Lease"
grep -Eq "^operator: pgbench-operator $v \(commit " "$TMP/version.out" || fail "version: operator's version"
grep -q '^CRD benchmarkruns.pgbench.dev: v1alpha1 (served, storage)$' "$TMP/version.out" || fail "version: CRD"
grep -q '^CRD benchmarksweeps.pgbench.dev: v1alpha1 (served, storage)$' "$TMP/version.out" || fail "version: sweep CRD"
pass "global flags before the command, did you mean, version, logs -f and --raw"
