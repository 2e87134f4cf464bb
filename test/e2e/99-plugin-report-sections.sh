#!/usr/bin/env bash
# The report shows what the run measured and only that (issue 32, item 5), for a plain -r run
# without a warm-up cut on one worker: a Statement latencies section with the -r rows, p50 and p99
# per second beside the average on the latency plot, TPS titled without HPA (the run has none), no
# warm-up shading, no Replica lag, fio or empty wait-event section; the report says the numbers
# cover the whole run. Every problem is listed before the test fails, so a run against an older
# plugin names each missing bullet. A second run with other clients is compared as HTML (the page
# docs/plugin-compare.png shows; SAVE_COMPARE_SCREENSHOT keeps its screenshot).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
command -v chromium >/dev/null || fail "chromium is not installed (make deps)"
env_start_plugin
env_start_operator --log-level info
export KUBECTL_PGBENCH_POLL_MS=300
kubectl pgbench run "${PLUGIN_TARGET[@]}" --name plain --init -s 1 --wait \
    -- -c 2 -j 2 -T 5 -P 1 -r >"$TMP/run.out" 2>&1 || { cat "$TMP/run.out" >&2; fail "run"; }
kubectl pgbench run "${PLUGIN_TARGET[@]}" --name plain4 --wait \
    -- -c 4 -j 2 -T 5 -P 1 -r >"$TMP/run4.out" 2>&1 || { cat "$TMP/run4.out" >&2; fail "run 2"; }
k describe br plain >"$TMP/describe.txt"
kubectl pgbench report plain -o "$TMP/report.html" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
env_chromium_render "$TMP/report.html" "$TMP/dom.html" "$TMP/report.png" 2400

python3 - "$TMP/dom.html" "$TMP/describe.txt" <<'PY' || fail "report sections"
import re, sys
from html.parser import HTMLParser
dom = open(sys.argv[1]).read()
describe = open(sys.argv[2]).read()

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.svg, self.cur, self.series, self.titles, self.h2, self.tag = None, None, {}, [], [], []
        self.code_in_stmt, self.stmt, self.warm = False, [], 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tag.append(tag)
        if tag == "svg":
            self.svg = a.get("id")
        elif tag == "g" and self.svg and a.get("class") == "series":
            self.cur = a["data-label"]
            self.series.setdefault(self.svg, {})[self.cur] = 0
        elif tag == "circle" and self.svg and a.get("class") == "pt" and self.cur is not None:
            self.series[self.svg][self.cur] += 1
        elif tag == "g" and a.get("class") == "warmup":
            self.warm += 1
        elif a.get("id") == "statements":
            self.code_in_stmt = True
    def handle_endtag(self, tag):
        if self.tag:
            self.tag.pop()
        if tag == "svg":
            self.svg, self.cur = None, None
        if tag in ("table", "pre"):
            self.code_in_stmt = False
    def handle_data(self, d):
        last = self.tag[-1] if self.tag else ""
        if last == "title":
            self.titles.append(d)
        elif last == "h2":
            self.h2.append(d)
        elif self.code_in_stmt:
            self.stmt.append(d)

p = P()
p.feed(dom)
problems = []
def want(ok, what):
    if not ok:
        problems.append(what)
want("Statement latencies" in p.h2, "no Statement latencies section (sections: %s)" % p.h2)
want(any("UPDATE pgbench_accounts" in s for s in p.stmt), "no -r statement rows in the report")
lat = p.series.get("latency", {})
want(any(k.startswith("p99 per") and n >= 4 for k, n in lat.items()), "no per-second p99 line: %s" % lat)
want(any(k.startswith("p50 per") and n >= 4 for k, n in lat.items()), "no per-second p50 line: %s" % lat)
want(any(k.startswith("average latency") for k in lat), "no average latency line: %s" % lat)
want(not [t for t in p.titles if "HPA" in t], "an HPA title without an HPA: %s" % [t for t in p.titles if "HPA" in t])
want("TPS over time" in p.titles, "TPS plot title: %s" % p.titles)
want(p.warm == 0, "warm-up shading without a warm-up cut")
want("Replica lag" not in p.h2, "a Replica lag section without a replica")
want(not [h for h in p.h2 if "fio" in h], "a fio section on a pgbench run")
want(not re.search(r'class="none"', dom), "an empty section: %s" % re.findall(r'<p class="none">[^<]*', dom))
want("The numbers cover the whole run" in dom, "the report does not say the numbers cover the whole run")
want(not re.search(r"Window:\s+steady", describe), "describe names a steady window without a cut")
if problems:
    print("\n".join("- " + x for x in problems))
    sys.exit(1)
print("report sections ok:", p.h2)
PY

kubectl pgbench compare plain plain4 -o html "$TMP/compare.html" >/dev/null 2>"$TMP/err" || fail "compare: $(cat "$TMP/err")"
env_chromium_render "$TMP/compare.html" "$TMP/cdom.html" "$TMP/compare.png" 1700
grep -q 'id="compare"' "$TMP/cdom.html" || fail "compare page without its table"
[ -z "${SAVE_COMPARE_SCREENSHOT:-}" ] || cp "$TMP/compare.png" "$SAVE_COMPARE_SCREENSHOT"
pass "report of a plain -r run: statements, per-second p50/p99, only the sections the run has"
