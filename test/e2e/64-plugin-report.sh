#!/usr/bin/env bash
# kubectl pgbench report: a finished run (2 workers, a streaming replica for the lag samples)
# becomes one self-contained HTML file; real headless Chromium renders it and takes a screenshot;
# the SVG plots exist with points, axis labels with units and legends; no script and no external
# asset is referenced.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
command -v chromium >/dev/null || fail "chromium is not installed (make deps)"
env_start_pg
env_start_replica
env_start_sim
export PATH="$BIN:$PATH" KUBECTL_PGBENCH_POLL_MS=300
env_start_operator --log-level info
kubectl pgbench run --host 127.0.0.1 --port "$PGPORT" --user "$PGUSER" --password-secret pg-pass \
    --db-name "$PGDATABASE" --sslmode disable --name rep --init -s 2 --workers 2 --wait \
    -- -c 4 -j 2 -T 6 -P 1 >"$TMP/run.out" 2>&1 || { cat "$TMP/run.out" >&2; fail "run"; }

kubectl pgbench report rep -o "$TMP/report.html" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
kubectl pgbench report rep >"$TMP/stdout.html" || fail "report to stdout"
cmp -s "$TMP/report.html" "$TMP/stdout.html" || fail "-o and stdout differ"
rc=0
kubectl pgbench report nosuch -o "$TMP/x.html" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "not found" "$TMP/err" || fail "report of a missing run: $rc"

# rendered by a real browser: the DOM after layout, and a screenshot
env_chromium_render "$TMP/report.html" "$TMP/dom.html" "$TMP/report.png" 2600
[ -z "${SAVE_SCREENSHOT:-}" ] || cp "$TMP/report.png" "$SAVE_SCREENSHOT"

python3 - "$TMP/report.html" "$TMP/dom.html" "$TMP/report.png" <<'PY' || fail "report check"
import re, struct, sys
from html.parser import HTMLParser
src = open(sys.argv[1]).read()
dom = open(sys.argv[2]).read()
# self-contained: no scripts, no external references
assert "<script" not in src.lower(), "a script"
assert not re.search(r'\b(src|href)\s*=', src), "an external reference"
assert "url(" not in src and "@import" not in src

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.svgs, self.cur, self.cls = {}, None, []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.cur = a.get("id")
            self.svgs[self.cur] = {"points": 0, "labels": [], "legend": 0}
        elif self.cur:
            c = a.get("class", "")
            if "pt" in c.split():
                self.svgs[self.cur]["points"] += 1
            if tag == "g" and c == "legend":
                self.svgs[self.cur]["legend"] += 1
        self.cls.append(dict(attrs).get("class", ""))
    def handle_endtag(self, tag):
        if tag == "svg":
            self.cur = None
        if self.cls:
            self.cls.pop()
    def handle_data(self, d):
        if self.cur and self.cls and self.cls[-1] in ("xl", "yl"):
            self.svgs[self.cur]["labels"].append(d)

for name, text in (("source", src), ("rendered DOM", dom)):
    p = P()
    p.feed(text)
    for sid in ("tps", "latency", "waits", "lag"):
        s = p.svgs.get(sid)
        assert s, "%s: no svg#%s" % (name, sid)
        assert s["points"] >= 2, "%s: svg#%s has %d points" % (name, sid, s["points"])
        assert s["labels"] and all(re.search(r"\(.+\)", l) for l in s["labels"]), \
            "%s: svg#%s axis labels without units: %s" % (name, sid, s["labels"])
    for sid in ("tps", "latency", "lag"):
        assert p.svgs[sid]["legend"] >= 1 and len(p.svgs[sid]["labels"]) == 2, (sid, p.svgs[sid])
# the TPS plot holds one point per timeline point of status
assert 'id="spec"' in src and 'id="server"' in src and "shared_buffers" in src
png = open(sys.argv[3], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n"
w, h = struct.unpack(">II", png[16:24])
assert w >= 800 and h >= 1000, (w, h)
print("report ok: %d bytes, screenshot %dx%d" % (len(src), w, h))
PY
pass "report: self-contained HTML, rendered by headless Chromium, plots with points and labelled axes"
