#!/usr/bin/env bash
# The include graph keeps the layering docs/design.md draws (make lint runs this):
#   - a package includes only itself and the packages it links against: the Makefile's deps_<pkg>
#     lines are the one list of allowed edges; a program (cmd/<prog>) includes its own files and
#     the packages of the library it links (PROG_PKG below); pkg/ never includes cmd/;
#   - no include cycle between packages, nor between the modules (x.c + x.h) of one package
#     (pkg/util aside: its log, buf and mem modules use each other by design).
# Prints each offending include (file:line) and each cycle; exits 1 when there is one.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

PROG_PKG="operator=controller runner=pg kubectl-pgbench=plugin gen-contract=bench"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

{ git ls-files 'pkg/*.[ch]' 'cmd/*.[ch]'; git ls-files --others --exclude-standard 'pkg/*.[ch]' 'cmd/*.[ch]'; } |
    xargs awk -v deps="$(sed -n 's/^deps_\([a-z]*\) := /\1=/p' Makefile | tr ' ' ',' | tr '\n' ' ')" \
        -v progs="$PROG_PKG" -v out="$work" '
BEGIN {
    n = split(deps, d, " ")
    for (i = 1; i <= n; i++) { split(d[i], kv, "="); allowed[kv[1]] = "," kv[2] "," }
    n = split(progs, p, " ")
    for (i = 1; i <= n; i++) { split(p[i], kv, "="); prog[kv[1]] = kv[2] }
    rc = 0
}
FNR == 1 {
    split(FILENAME, f, "/"); kind = f[1]; from = f[2]
    mod = f[length(f)]; sub(/\.[ch]$/, "", mod)
    ok = kind == "pkg" ? allowed[from] : allowed[prog[from]]
}
/^#include "(pkg|cmd)\// {
    inc = $2; gsub(/"/, "", inc)
    split(inc, t, "/"); tmod = t[length(t)]; sub(/\.[ch]$/, "", tmod)
    if (t[1] == "cmd" && kind == "pkg") { bad("pkg/ must not include cmd/") }
    else if (t[1] == "cmd" && t[2] != from) { bad("another program'"'"'s file") }
    else if (t[1] == "pkg" && index(ok, "," t[2] ",") == 0) {
        bad(kind "/" from " may include only pkg/{" substr(ok, 2, length(ok) - 2) "} (Makefile deps_)")
    }
    if (kind == "pkg" && t[1] == "pkg" && t[2] != from) print from, t[2] > (out "/packages")
    if (kind == t[1] && from == t[2] && tmod != mod && from != "util") print from "/" mod, from "/" tmod > (out "/modules")
}
function bad(why) { printf "%s:%d: includes %s: %s\n", FILENAME, FNR, inc, why; rc = 1 }
END { exit rc }'
rc=$?
for g in packages modules; do
    [ -s "$work/$g" ] || continue
    if ! sort -u "$work/$g" | tsort >/dev/null 2>"$work/$g.err"; then
        echo "include cycle between $g: $(grep -v 'input contains a loop' "$work/$g.err" | sed 's/^tsort: //' | tr '\n' ' ')"
        rc=1
    fi
done
[ "$rc" -eq 0 ] && echo "layers: no upward include, no include cycle"
exit "$rc"
