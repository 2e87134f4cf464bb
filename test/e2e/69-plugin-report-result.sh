#!/usr/bin/env bash
# kubectl pgbench report and compare -o html from the runs' full results (the ConfigMap that
# status.resultRef names): two 2-worker runs against real PostgreSQL; the report, rendered by real
# headless Chromium, draws one TPS and one latency line per worker beside the total, over the
# result's whole timeline, and the latency percentile curve (labelled axes, ticks 0/90/99, p50,
# p95 and p99 marked at the run's own percentiles); `compare A B -o html FILE` overlays both runs'
# curves under the text compare's table; export reads the full timeline; without the ConfigMap the
# report says it fell back to status. No script and no external asset in either page.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
command -v chromium >/dev/null || fail "chromium is not installed (make deps)"
env_start_plugin
env_start_operator --log-level info
kubectl pgbench run "${PLUGIN_TARGET[@]}" --name fast --init -s 2 --workers 2 --wait \
    -- -c 4 -j 2 -T 6 -P 1 >"$TMP/fast.out" 2>&1 || { cat "$TMP/fast.out" >&2; fail "run fast"; }
kubectl pgbench run "${PLUGIN_TARGET[@]}" --name slow --workers 2 --wait \
    -- -c 2 -j 1 -T 6 -P 1 -R 150 >"$TMP/slow.out" 2>&1 || { cat "$TMP/slow.out" >&2; fail "run slow"; }

# the operator names each run's result ConfigMap in status
for run in fast slow; do
    [ "$(env_status $run .status.resultRef.name)" = "$run-result" ] ||
        fail "$run: status.resultRef is $(env_status $run .status.resultRef)"
    env_kubectl get cm "$(env_status $run .status.resultRef.name)" \
        -o jsonpath='{.data.result\.json}' >"$TMP/$run-result.json"
    env_kubectl get br "$run" -o json >"$TMP/$run.json"
done

kubectl pgbench report fast -o "$TMP/report.html" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
kubectl pgbench compare fast slow -o html "$TMP/cmp.html" 2>"$TMP/err" || fail "compare: $(cat "$TMP/err")"
kubectl pgbench compare fast slow >"$TMP/cmp.txt" || fail "compare (text)"
kubectl pgbench compare fast slow -o html >"$TMP/cmp-stdout.html" || fail "compare -o html to stdout"
cmp -s "$TMP/cmp.html" "$TMP/cmp-stdout.html" || fail "compare: FILE and stdout differ"
rc=0
kubectl pgbench compare fast slow -o yaml 2>"$TMP/err" || rc=$?
if [ "$rc" -ne 1 ] || ! grep -q html "$TMP/err"; then fail "compare -o yaml: $rc $(cat "$TMP/err")"; fi
kubectl pgbench export fast -o csv --table timeline >"$TMP/timeline.csv" || fail "export"

env_chromium_render "$TMP/report.html" "$TMP/report-dom.html" "$TMP/report.png" 2800
env_chromium_render "$TMP/cmp.html" "$TMP/cmp-dom.html" "$TMP/cmp.png" 1660
[ -z "${SAVE_SCREENSHOT:-}" ] || cp "$TMP/report.png" "$SAVE_SCREENSHOT"
[ -z "${SAVE_COMPARE_SCREENSHOT:-}" ] || cp "$TMP/cmp.png" "$SAVE_COMPARE_SCREENSHOT"

python3 - "$TMP" <<'PY' || fail "page check"
import json, re, sys
from html.parser import HTMLParser
tmp = sys.argv[1]
res = {r: json.load(open("%s/%s-result.json" % (tmp, r))) for r in ("fast", "slow")}
brs = {r: json.load(open("%s/%s.json" % (tmp, r))) for r in ("fast", "slow")}

class P(HTMLParser):
    """Per svg: its series (label -> polyline points, circles), axis labels, tick labels, marks."""
    def __init__(self):
        super().__init__()
        self.svgs, self.cur, self.ser, self.tag, self.pre, self.text = {}, None, None, [], None, {}
        self.table, self.rows = None, {}  # tables by id: rows of cell texts
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id"):
            self.table = self.rows[a["id"]] = []
        elif tag == "tr" and self.table is not None:
            self.table.append([])
        elif tag in ("th", "td") and self.table is not None:
            self.table[-1].append("")
        if tag in ("table", "tr", "th", "td"):
            return
        self.tag.append(a.get("class", ""))
        if tag == "pre" and a.get("id"):
            self.pre = a["id"]; self.text[self.pre] = ""
        if tag == "svg":
            self.cur = self.svgs[a.get("id")] = {"series": {}, "labels": [], "ticks": [], "marks": {}}
        elif self.cur is None:
            return
        elif tag == "g" and a.get("class") == "series":
            self.ser = self.cur["series"][a["data-label"]] = {"points": 0, "dots": 0}
        elif tag == "polyline" and self.ser is not None:
            self.ser["points"] = len(a["points"].split())
        elif tag == "circle" and "pt" in a.get("class", "").split() and self.ser is not None:
            self.ser["dots"] += 1
        elif tag == "g" and a.get("class") == "mark":
            self.mark = float(a["data-y"])
    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        if tag in ("table", "tr", "th", "td"):
            return
        self.tag.pop()
        if tag == "svg":
            self.cur = None
        if tag == "g":
            self.ser = None
        if tag == "pre":
            self.pre = None
    def handle_data(self, d):
        if self.table is not None and self.table and self.table[-1]:
            self.table[-1][-1] += d
            return
        if self.pre:
            self.text[self.pre] += d
        if self.cur is None or not self.tag:
            return
        c = self.tag[-1].split()
        if "xl" in c or "yl" in c:
            self.cur["labels"].append(d)
        if "xt" in c:
            self.cur["ticks"].append(d)
        if "mkl" in c:
            self.cur["marks"][d.split()[0]] = self.mark

def parse(text):
    assert "<script" not in text.lower(), "a script"
    assert not re.search(r'\b(src|href)\s*=', text), "an external reference"
    assert "url(" not in text and "@import" not in text
    p = P(); p.feed(text); return p

def labelled(svg, what):
    assert len(svg["labels"]) == 2 and all(re.search(r"\(.+\)", l) for l in svg["labels"]), \
        (what, svg["labels"])

st = brs["fast"]["status"]
for name in ("report.html", "report-dom.html"):
    text = open("%s/%s" % (tmp, name)).read()
    assert "ConfigMap fast-result" in text, "the page does not say it read the result"
    p = parse(text)
    n = len(res["fast"]["timeline"])
    for sid, total in (("tps", "TPS, all workers (1/s)"), ("latency", "average latency, all workers (ms)")):
        s = p.svgs[sid]
        labelled(s, sid)
        assert s["series"][total]["points"] == n, (sid, s["series"][total], n)
        for w in range(2):
            ws = s["series"]["worker %d" % w]
            want = len(res["fast"]["workerResults"][w]["timeline"])
            assert ws["points"] == want >= 4 and ws["dots"] == want, (sid, w, ws, want)
    pc = p.svgs["percentiles"]
    labelled(pc, "percentiles")
    assert pc["ticks"][:3] == ["0", "90", "99"], pc["ticks"]
    (curve,) = pc["series"].values()
    assert curve["points"] >= 40, curve
    for k in ("p50", "p95", "p99"):
        want = st["summary"]["latencyMs"][k]
        assert abs(pc["marks"][k] - want) <= 0.01 * want, (k, pc["marks"][k], want)

text_cmp = open("%s/cmp.txt" % tmp).read()
for name in ("cmp.html", "cmp-dom.html"):
    p = parse(open("%s/%s" % (tmp, name)).read())
    # the same cells as the text table, the mark of a row that differs included
    table_text = text_cmp.split("\n\n")[0]  # the table; then the "why" lines
    text_rows = [re.split(r"\s{2,}", l.strip()) for l in table_text.splitlines()
                 if l.strip() and not l.startswith("* the runs differ")]
    html_rows = [[c.strip() for c in r if c.strip()] for r in p.rows["compare"]]
    assert [[re.sub(r"^\* ", "", c) for c in r] for r in html_rows] == \
        [[re.sub(r"^\* ", "", c) for c in r] for r in text_rows], (html_rows, text_rows)
    why = [l for l in text_cmp.splitlines() if l.startswith("why ")]
    assert why and all(l in p.text["why"] for l in why), (why, p.text.get("why"))
    marked = [r[0] for r in html_rows if r[0].startswith("* ")]
    assert marked == [l.split("  ")[0] for l in text_cmp.splitlines() if l.startswith("* ") and
                      not l.startswith("* the runs")], marked
    for sid in ("tps", "latency", "percentiles"):
        s = p.svgs[sid]
        labelled(s, sid)
        assert sorted(s["series"]) == ["fast", "slow"], (sid, s["series"])
        for r in ("fast", "slow"):
            assert s["series"][r]["points"] >= (4 if sid != "percentiles" else 40), (sid, r, s)
    assert p.svgs["tps"]["series"]["slow"]["points"] == len(res["slow"]["timeline"])

rows = open("%s/timeline.csv" % tmp).read().strip().split("\n")
assert "tps" in rows[0].split(",") and len(rows) == 1 + len(res["fast"]["timeline"]), rows[:3]
print("pages ok")
PY

# without the ConfigMap the report falls back to status and says so
env_kubectl delete cm "$(env_status slow .status.resultRef.name)" >/dev/null
kubectl pgbench report slow >"$TMP/slow.html" || fail "report without the ConfigMap"
grep -q "status only (ConfigMap slow-result: NotFound" "$TMP/slow.html" || fail "no fallback note"
grep -q 'id="percentiles"' "$TMP/slow.html" && fail "a percentile curve without a histogram"
grep -q 'data-label="worker 0"' "$TMP/slow.html" && fail "worker lines without the result"
pass "report and compare -o html: per-worker lines, percentile curves, full timelines, fallback"
