#!/usr/bin/env bash
# Help and parser from one table (pkg/util/opt.h), for every program and command: each flag that
# `--help` lists is one the parser takes (with a value when the help shows one), so a row cannot
# be documented and not parsed or the other way round; the refusals name the flag as written and
# suggest the closest one; -h and --help exit 0 and print to stdout. No cluster: every command is
# stopped by a trailing unknown flag before it would connect.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
export KUBECONFIG=/nonexistent

# flags_of: the long flags of a --help text on stdin, one "NAME VALUE?" per line ("yes" when the
# help shows a value after the name, "no" for a flag or an optional [=value]).
flags_of() {
    grep -E '^  (-[a-zA-Z], )?--[a-z0-9-]+(\[=[^]]*\])?( [^ ]+)?(  |$)' |
        sed -E 's/^  (-[a-zA-Z], )?--([a-z0-9-]+)(\[=[^]]*\])?( [^ ]+)?.*/\2 \4/' |
        awk '{ print $1, ($2 != "" ? "yes" : "no") }' | grep -v '^help '
}

# check_cmd LABEL CMD...: CMD --help lists flags; each is taken by CMD's parser.
check_cmd() {
    local label="$1" n=0
    shift
    "$@" --help >"$TMP/help.txt" 2>"$TMP/help.err" || fail "$label --help: exit $?: $(cat "$TMP/help.err")"
    [ ! -s "$TMP/help.err" ] || fail "$label --help wrote to stderr: $(cat "$TMP/help.err")"
    "$@" -h >"$TMP/h.txt" 2>&1 || fail "$label -h: exit $?"
    flags_of <"$TMP/help.txt" >"$TMP/flags.txt"
    while read -r name value; do
        local args=("--$name")
        [ "$value" = yes ] && args+=(1)
        "$@" "${args[@]}" --zz-end >"$TMP/out.txt" 2>&1 && fail "$label ${args[*]} --zz-end: exit 0"
        if grep -q -- "unknown flag --$name\b\|unknown flag --$name " "$TMP/out.txt"; then
            fail "$label: --help lists --$name, the parser does not take it: $(head -c 300 "$TMP/out.txt")"
        fi
        n=$((n + 1))
    done <"$TMP/flags.txt"
    [ "$n" -ge 1 ] || fail "$label --help lists no flags: $(cat "$TMP/help.txt")"
    note "$label: $n flags from --help, each taken by the parser"
}

check_cmd "pgbench-operator" "$BIN/pgbench-operator"
for c in "pgbench init" "pgbench run" "fio"; do
    # shellcheck disable=SC2086 # the words of the subcommand
    check_cmd "pgbench-runner $c" "$BIN/pgbench-runner" $c
done
for c in run sweep fio compare export logs report version; do
    check_cmd "kubectl pgbench $c" "$BIN/kubectl-pgbench" "$c"
done

# refusals: the flag as written, what it takes, the closest flag; exit 1 and nothing started
expect_refusal() { # WANT CMD...
    local want="$1" rc=0
    shift
    "$@" >"$TMP/out.txt" 2>&1 || rc=$?
    [ "$rc" -eq 1 ] || fail "$*: exit $rc, want 1: $(head -c 300 "$TMP/out.txt")"
    grep -qF -- "$want" "$TMP/out.txt" || fail "$*: '$want' not in: $(head -c 400 "$TMP/out.txt")"
}
expect_refusal 'unknown flag --wrokers (did you mean --workers?)' "$BIN/pgbench-operator" --wrokers 2
expect_refusal '--workers "0": expected an integer 1..256' "$BIN/pgbench-operator" --workers 0
expect_refusal '--lease-duration="1": expected 2 to 3600 seconds' "$BIN/pgbench-operator" --lease-duration=1
expect_refusal '--clients "0": expected an integer 1..100000' "$BIN/pgbench-runner" pgbench run --clients 0
expect_refusal 'unknown flag --clinets (did you mean --clients?)' "$BIN/pgbench-runner" pgbench run --clinets 2
expect_refusal '--rw needs a value (MODE)' "$BIN/pgbench-runner" fio --directory /tmp --rw
T=(--host db --user app --dry-run=client)
expect_refusal 'unknown flag --wrokers (did you mean --workers?)' "$BIN/kubectl-pgbench" run "${T[@]}" --wrokers 2
expect_refusal '--ttl "soon": expected seconds, or a duration' "$BIN/kubectl-pgbench" run "${T[@]}" --ttl soon
expect_refusal '--dry-run="maybe": expected one of none, client, server' "$BIN/kubectl-pgbench" run "${T[@]}" --dry-run=maybe
expect_refusal '-o "xml": expected one of json, yaml, csv' "$BIN/kubectl-pgbench" export a -o xml
expect_refusal '--stop-when-aborted="0": expected an integer 1..1000000' \
    "$BIN/kubectl-pgbench" sweep "${T[@]}" --clients 1,2 --stop-when-aborted=0
expect_refusal '-c "0": must be an integer >= 1' "$BIN/kubectl-pgbench" run "${T[@]}" -- -c 0

# what the parse took shows in the dry run: a bare --stop-when-aborted is 1, --workers N is every
# step's workers, pgbench's bundled -nr are two fields
"$BIN/kubectl-pgbench" sweep "${T[@]}" --name s --clients 4,8 --workers 3 --stop-when-aborted \
    -o json -- -T 5 -nr >"$TMP/sweep.json" || fail "sweep --dry-run=client: $(cat "$TMP/sweep.json")"
python3 - "$TMP/sweep.json" <<'PY' || fail "sweep dry run: $(head -c 600 "$TMP/sweep.json")"
import json, sys
sw = json.load(open(sys.argv[1]))["items"][0]["spec"]
assert sw["stopWhen"]["abortedClients"] == 1, sw
tmpl = sw["template"]
assert tmpl["workers"] == 3, tmpl
run = tmpl["workload"]["pgbench"]["run"]
assert run["noVacuum"] is True and run["perStatementLatencies"] is True and run["durationSeconds"] == 5, run
PY
pass "every --help flag of the operator, the runner's 3 commands and the plugin's 8 is parsed; refusals name the flag"
