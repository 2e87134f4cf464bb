#!/usr/bin/env bash
# kubectl pgbench run --warmup 2 -- -r on 2 workers, then report and describe (issue 32, item 5):
# the report shows the statement latencies of -r, per-second p50 and p99 beside the average, the
# warm-up shaded on both time plots, and only the sections the run has (no HPA in a title without
# an HPA, no Replica lag or fio section without them), as headless Chromium renders it; describe
# says which window the numbers cover. The statement latencies (pgbench -r has no time window)
# are labelled as the whole run's, warm-up included, in describe, the report and the export
# (csv column "covers", json statementsCover). The aggregate's series is the workers' per-second
# histograms merged: its counts are their sums, and its p99 falls in the bucket of the
# nearest-rank value of the workers' bucket counts put together (never an average of their p99s).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
command -v chromium >/dev/null || fail "chromium is not installed (make deps)"
env_start_plugin
env_start_operator --log-level info
export KUBECTL_PGBENCH_POLL_MS=300
env_plugin_refuses "warmupSeconds: 10 leaves nothing of durationSeconds 8" run "${PLUGIN_TARGET[@]}" \
    --name w --warmup 10 --dry-run=client -- -T 8
env_plugin_refuses '--warmup "soon"' run "${PLUGIN_TARGET[@]}" --name w --warmup soon --dry-run=client -- -T 8
kubectl pgbench run "${PLUGIN_TARGET[@]}" --name warm --init -s 1 --workers 2 --warmup 2 --wait \
    -- -c 4 -j 2 -T 8 -P 1 -r >"$TMP/run.out" 2>&1 || { cat "$TMP/run.out" >&2; fail "run"; }

k describe br warm >"$TMP/describe.txt"
grep -q "Window:.*steady window: 2 s to" "$TMP/describe.txt" ||
    { grep -n -i "window" "$TMP/describe.txt" >&2 || true; fail "describe does not say which window the numbers cover"; }
# pgbench -r has no window: describe says its statement latencies include the warm-up
grep -Eq "Window:.*statement latencies.*whole run.*warm-up included" "$TMP/describe.txt" ||
    { grep -n -i "window" "$TMP/describe.txt" >&2 || true; fail "describe does not say the statement latencies cover the whole run"; }

# the export labels them too: csv a last column "covers", json the run's statementsCover
kubectl pgbench export warm --table statements -o csv >"$TMP/st.csv" || fail "export statements csv"
kubectl pgbench export warm --table statements -o json >"$TMP/st.json" || fail "export statements json"
python3 - "$TMP/st.csv" "$TMP/st.json" <<'PY' || { cat "$TMP/st.csv" >&2; fail "export does not say what the statements cover"; }
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and any("UPDATE pgbench_accounts" in r["command"] for r in rows), rows
for r in rows:
    assert "whole run" in r["covers"] and "2 s of warm-up included" in r["covers"], r
j = json.load(open(sys.argv[2]))
assert j["statements"] and "2 s of warm-up included" in j["statementsCover"], j.get("statementsCover")
print("export:", rows[0]["covers"])
PY

env_result_json warm >"$TMP/result.json"
python3 - "$TMP/result.json" <<'PY' || fail "the merged series is not the workers' histograms merged"
import json, math, sys
r = json.load(open(sys.argv[1]))
def bucket(i):  # pkg/bench/histogram.h: [low, high] of bucket index i
    if i < 128:
        return i, i
    e = (i - 128) // 128 + 7
    shift = e - 7
    low = ((i % 128) + 128) << shift
    return low, low + (1 << shift) - 1
W = r["warmup"]
assert W["seconds"] == 2 and W["transactions"] > 0, W
ws = [w for w in r["workerResults"] if w]
assert len(ws) == 2, len(ws)
assert r["summary"]["transactionsProcessed"] == sum(w["summary"]["transactionsProcessed"] for w in ws)
assert W["transactions"] == sum(w["warmup"]["transactions"] for w in ws)
agg = {p["t"]: p for p in r["latencySeries"]["points"]}
assert len(agg) >= 8, sorted(agg)
per_t = {}
for w in ws:
    for p in w["latencySeries"]["points"]:
        per_t.setdefault(p["t"], []).extend(p["buckets"])
assert sorted(per_t) == sorted(agg), (sorted(per_t), sorted(agg))
checked = 0
for t, pairs in per_t.items():
    counts = {}
    for i, c in pairs:
        counts[i] = counts.get(i, 0) + c
    n = sum(counts.values())
    assert agg[t]["count"] == n, (t, agg[t]["count"], n)
    want = math.ceil(0.99 * n)
    seen = 0
    for i in sorted(counts):
        seen += counts[i]
        if seen >= want:
            break
    lo, hi = bucket(i)
    got = agg[t]["p99Ms"] * 1000
    assert lo <= got <= hi + 1, (t, got, lo, hi)
    assert "buckets" not in agg[t]
    checked += 1
print("%d merged points checked, warm-up %d tx left out" % (checked, W["transactions"]))
PY

kubectl pgbench report warm -o "$TMP/report.html" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
env_chromium_render "$TMP/report.html" "$TMP/dom.html" "$TMP/report.png" 2800
[ -z "${SAVE_SCREENSHOT:-}" ] || cp "$TMP/report.png" "$SAVE_SCREENSHOT"
python3 - "$TMP/dom.html" <<'PY' || fail "report check"
import re, sys
from html.parser import HTMLParser
dom = open(sys.argv[1]).read()

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.svg, self.series, self.warm, self.titles, self.h2, self.stmt = None, {}, {}, [], [], []
        self.tag, self.in_stmt, self.row = [], False, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tag.append(tag)
        if tag == "svg":
            self.svg = a.get("id")
        elif tag == "g" and self.svg and a.get("class") == "series":
            self.series.setdefault(self.svg, {})[a["data-label"]] = 0
            self.cur = a["data-label"]
        elif tag == "circle" and self.svg and a.get("class") == "pt" and self.svg in self.series:
            self.series[self.svg][self.cur] += 1
        elif tag == "g" and a.get("class") == "warmup":
            self.warm[self.svg] = float(a["data-to"])
        elif tag == "table" and a.get("id") == "statements":
            self.in_stmt = True
    def handle_endtag(self, tag):
        if self.tag:
            self.tag.pop()
        if tag == "svg":
            self.svg = None
        if tag == "table":
            self.in_stmt = False
    def handle_data(self, d):
        if self.tag and self.tag[-1] == "title":
            self.titles.append(d)
        if self.tag and self.tag[-1] == "h2":
            self.h2.append(d)
        if self.in_stmt and self.tag and self.tag[-1] == "code":
            self.stmt.append(d)

p = P()
p.feed(dom)
assert "Statement latencies" in p.h2, p.h2
assert any("UPDATE pgbench_accounts" in s for s in p.stmt), p.stmt
lat = p.series.get("latency", {})
assert "p99 per 1 s (ms)" in lat and lat["p99 per 1 s (ms)"] >= 8, lat
assert "p50 per 1 s (ms)" in lat and lat["p50 per 1 s (ms)"] >= 8, lat
assert any(k.startswith("average latency") for k in lat), lat
assert p.warm.get("tps") == 2 and p.warm.get("latency") == 2, p.warm
assert not [t for t in p.titles if "HPA" in t], p.titles
assert "Replica lag" not in p.h2 and not [h for h in p.h2 if "fio" in h], p.h2
assert re.search(r"The numbers cover steady window: 2 s to", dom), "no window sentence"
# the statement latencies say they are the whole run's, the 2 s warm-up in them
m = re.search(r'<p id="statements-cover">([^<]*)</p>', dom)
assert m and "whole run" in m.group(1) and "first 2 s of warm-up included" in m.group(1), m and m.group(1)
print("report ok:", sorted(lat), "warm-up", p.warm, "sections", p.h2)
PY
pass "report of a -r --warmup 2 run: statements, per-second p50/p99, warm-up shaded, no empty sections; describe names the window"
