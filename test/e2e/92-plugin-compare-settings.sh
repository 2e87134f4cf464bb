#!/usr/bin/env bash
# kubectl pgbench compare for DBAs (issue 32.3): a settings block where the rows that differ are
# marked (two real runs, 2 vs 4 clients, 1 vs 2 workers, simple vs prepared), shares compared in
# percentage points, the header aligned with its column, the same table as an HTML <table>; and
# runs repeated on each side (--repeats 3, or A1,A2,A3 lists): a 2 % TPS drop whose runs spread
# more than that is "within noise" and does not trip --fail-if-tps-drops 1, a 20 % one is beyond
# noise and does. The repeated runs are BenchmarkRuns in a namespace the operator does not
# watch, their status written through the status subresource with the numbers under test.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_plugin
env_start_operator --log-level info --namespace default

kubectl pgbench run "${PLUGIN_TARGET[@]}" --name few --init -s 1 --wait -- -c 2 -T 2 \
    >"$TMP/few.out" 2>&1 || { cat "$TMP/few.out" >&2; fail "run few"; }
kubectl pgbench run "${PLUGIN_TARGET[@]}" --name many --workers 2 --wait -- -c 4 -T 2 -M prepared \
    >"$TMP/many.out" 2>&1 || { cat "$TMP/many.out" >&2; fail "run many"; }

kubectl pgbench compare few many >"$TMP/cmp.out" || { cat "$TMP/cmp.out" >&2; fail "compare"; }
cat "$TMP/cmp.out" >&2
python3 - "$TMP/cmp.out" <<'PY' || fail "compare: settings block"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
def row(label):
    for l in lines:
        if re.match(r"^[* ] %s  " % re.escape(label), l):
            return l
    raise AssertionError("no row %r in\n%s" % (label, "\n".join(lines)))
for label in ("clients", "workers", "protocol"):  # these differ: marked
    assert row(label).startswith("* "), row(label)
for label in ("threads", "scale", "duration", "script", "server version"):  # these do not
    assert row(label).startswith("  "), row(label)
assert re.search(r"\b2\s+4$", row("clients")), row("clients")
assert re.search(r"simple\s+prepared$", row("protocol")), row("protocol")
assert re.search(r"\b15\.\d+", row("server version")), row("server version")
# the header's names end where their column's values end (right-aligned, as the numbers)
head, cl = lines[0], row("clients")
assert head.index("few") + 3 == re.search(r"2(?=\s+4$)", cl).end(), (head, cl)
assert head.index("many") + 4 == len(cl), (head, cl)
# percentages compare in percentage points, never as ratios
ll = row("Little's law deviation")
assert "pp)" in ll and "x)" not in ll, ll
for l in lines:
    if l.startswith("  wait "):
        assert "x)" not in l, l
PY

kubectl pgbench compare few many -o html "$TMP/cmp.html" 2>/dev/null || fail "compare -o html"
python3 - "$TMP/cmp.html" <<'PY' || fail "compare -o html: the table"
import re, sys
h = open(sys.argv[1]).read()
assert '<table class="cmp" id="compare">' in h, "no comparison table"
t = h[h.index('<table class="cmp"'):]
t = t[:t.index("</table>")]
assert re.search(r'<tr class="differs"><th>\* clients</th><td class="n">2</td><td class="n">4</td></tr>', t), t
assert re.search(r'<tr><th>threads</th>', t), t
assert '<th class="n">few</th><th class="n">many</th>' in t, t
assert "<pre id=\"compare\">" not in h
PY
env_chromium_render "$TMP/cmp.html" "$TMP/cmp.dom" "$TMP/cmp.png" 1400
grep -q 'class="differs"' "$TMP/cmp.dom" || fail "chromium: no marked row"

# ---- repeats: six runs whose status holds known numbers, in namespace noise (not watched)
k create namespace noise >/dev/null
mk() { # NAME TPS P99
    env_br_yaml "$1" $'pgbench:\n  run: {clients: 4, durationSeconds: 10}' | k -n noise apply -f - >/dev/null
    k -n noise patch br "$1" --subresource=status --type=merge -p \
        '{"status":{"phase":"Succeeded","summary":{"tps":'"$2"',"latencyMs":{"avg":4,"p99":'"$3"'}}}}' >/dev/null
}
# side a: mean 1000, stddev 30; side b: 2 % lower, the same spread; side c: 20 % lower
mk a1 1030 10; mk a2 970 10.5; mk a3 1000 9.5
mk b1 1010 10; mk b2 950 10.5; mk b3 980 9.5
mk c1 810 10; mk c2 790 10.5; mk c3 800 9.5
rc=0
kubectl pgbench -n noise compare a1 a2 a3 b1 b2 b3 --repeats 3 --fail-if-tps-drops 1 \
    >"$TMP/noise.out" 2>"$TMP/noise.err" || rc=$?
cat "$TMP/noise.out" "$TMP/noise.err" >&2
[ "$rc" -eq 0 ] || fail "2 % within noise: exit $rc, want 0"
grep -Eq '^TPS: b1…b3 \(3 runs\) 980 ± 30 against a1…a3 \(3 runs\) 1000 ± 30 \(-2\.0 %\): within noise \(Welch t -0\.82, df 4\.0, p 0\.46' "$TMP/noise.out" ||
    fail "no 'within noise' line for TPS"
grep -q 'within noise: --fail-if-tps-drops 1 not applied' "$TMP/noise.out" || fail "the gate does not say why it passes"
grep -Eq '^  TPS +1000 ± 30 +980 ± 30 \(0\.98x\)$' "$TMP/noise.out" || fail "no mean ± stddev cells"
rc=0
kubectl pgbench compare a1,a2,a3 c1,c2,c3 -n noise --fail-if-tps-drops 1 >"$TMP/c.out" 2>"$TMP/c.err" || rc=$?
cat "$TMP/c.out" "$TMP/c.err" >&2
[ "$rc" -eq 3 ] || fail "20 % beyond noise: exit $rc, want 3"
grep -q 'beyond noise' "$TMP/c.out" || fail "no 'beyond noise'"
grep -q 'c1…c3 (3 runs): TPS 800.0 is 20.0 % below' "$TMP/c.err" || fail "the gate's verdict"
# without repeats a single 2 % drop trips the gate: there is no measure of noise
rc=0
kubectl pgbench compare a3 b3 -n noise --fail-if-tps-drops 1 >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 3 ] || fail "single runs: exit $rc, want 3"
env_plugin_refuses "--repeats 4: give 4 runs per side" -n noise compare a1 a2 a3 b1 b2 b3 --repeats 4
pass "compare: settings marked, pp deltas, aligned text and HTML tables, repeats judged against noise"
