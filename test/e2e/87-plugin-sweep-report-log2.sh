#!/usr/bin/env bash
# The sweep page a DBA reads (issue 32, item 5), from a real 5-step sweep through the simulated
# cluster with real PostgreSQL, rendered by headless Chromium:
#   - clients 1, 2, 4, 8, 16 double: the x axis is log2, its ticks powers of two evenly spaced, and
#     every run's point sits at its clients value on that scale;
#   - five distinct client counts: the USL fit is ok, with jackknife intervals in status, and its
#     path follows the formula;
#   - the ideal linear scaling line lambda N (the fit's lambda);
#   - the marks' labels lie above every drawn point (they cover no data);
#   - the whole verdict is in the page, in a block that wraps;
#   - a chart of how the limiting classes share each step, a line per class the steps have, and
#     each step's limit in the table.
# SAVE_SCREENSHOT=path keeps the screenshot (docs/plugin-sweep-report.png is one).
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
command -v chromium >/dev/null || fail "chromium is not installed (make deps)"
env_start_plugin
env_start_operator

kubectl pgbench sweep "${PLUGIN_TARGET[@]}" --init -s 1 --clients 1,2,4,8,16 --name curve --wait -- \
    -T 3 -j 2 >"$TMP/curve.out" 2>&1 || { cat "$TMP/curve.out" >&2; fail "sweep curve --wait"; }
cat "$TMP/curve.out" >&2
grep -q '^  95 % intervals (jackknife): sigma ' "$TMP/curve.out" || fail "no intervals in the summary"
kubectl pgbench report sweep/curve -o "$TMP/sweep.html" 2>"$TMP/err" || fail "report: $(cat "$TMP/err")"
env_chromium_render "$TMP/sweep.html" "$TMP/dom.html" "$TMP/sweep.png" 1900
[ -z "${SAVE_SCREENSHOT:-}" ] || cp "$TMP/sweep.png" "$SAVE_SCREENSHOT"
env_kubectl get bsw curve -o json >"$TMP/curve.json"
python3 - "$TMP/sweep.html" "$TMP/dom.html" "$TMP/curve.json" <<'PY' || fail "report check"
import html, json, math, re, sys
src, dom = open(sys.argv[1]).read(), open(sys.argv[2]).read()
st = json.load(open(sys.argv[3]))["status"]
usl = st["analysis"]["usl"]
assert usl["ok"] and usl["distinctClients"] == 5 and "stepsNeeded" not in usl, usl
for k in ("sigma", "kappa"):
    lo, hi = usl[k + "Interval"]
    assert lo <= usl[k] <= hi, (k, usl)
runs = [(s["value"], r["tps"]) for s in st["steps"] for r in s["runs"] if r["phase"] == "Succeeded"]
for name, text in (("source", src), ("rendered DOM", dom)):
    svg = re.search(r'<svg id="sweep-tps".*?</svg>', text, re.S).group(0)
    assert "(log2 scale)" in svg, name
    xt = [(float(x), float(v)) for x, v in re.findall(r'class="xt" x="([\d.]+)"[^>]*>([\d.]+)<', svg)]
    yt = [(float(y) - 4, float(v)) for y, v in re.findall(r'class="yt" x="[\d.]+" y="([\d.]+)">([\d.]+)<', svg)]
    # ticks at 1, 2, 4, ... evenly spaced: log2 of the value is linear in pixels
    assert [v for _, v in xt] == [2 ** i for i in range(len(xt))] and len(xt) >= 5, (name, xt)
    gaps = [b[0] - a[0] for a, b in zip(xt, xt[1:])]
    assert max(gaps) - min(gaps) < 0.3, (name, gaps)
    (p0, v0), (p1, v1) = xt[0], xt[-1]
    fx = lambda p: 2 ** (math.log2(v0) + (p - p0) * (math.log2(v1) - math.log2(v0)) / (p1 - p0))
    (q0, w0), (q1, w1) = yt[0], yt[-1]
    fy = lambda q: w0 + (q - q0) * (w1 - w0) / (q1 - q0)
    ystep = abs(w1 - w0) / abs(q1 - q0)
    g = re.search(r'data-label="TPS of each run">(.*?)</g>', svg, re.S).group(1)
    pts = [(fx(float(a)), fy(float(b))) for a, b in re.findall(r'cx="([\d.]+)" cy="([\d.]+)"', g)]
    assert len(pts) == len(runs), (name, pts, runs)
    for (x, y), (v, t) in zip(pts, runs):
        assert abs(x - v) < 0.02 * v and abs(y - t) < ystep, (name, x, y, v, t)
    def path(label):
        m = re.search(r'data-label="' + re.escape(label) + r'"><polyline[^>]*points="([^"]+)"', svg)
        assert m, (name, label)
        return [tuple(map(float, p.split(","))) for p in m.group(1).split()]
    for X, Y in path("USL fit"):
        n = fx(X)
        want = usl["lambda"] * n / (1 + usl["sigma"] * (n - 1) + usl["kappa"] * n * (n - 1))
        assert abs(fy(Y) - want) <= ystep * 0.2 + 1e-6 * want, (name, n, fy(Y), want)
    ideal = path("ideal linear scaling (λN)")
    assert len(ideal) >= 50 and abs(fx(ideal[0][0]) - 1) < 0.02, (name, ideal[:2])
    for X, Y in ideal:
        assert abs(fy(Y) - usl["lambda"] * fx(X)) <= ystep * 0.2, (name, fx(X), fy(Y))
    # labels of the marks above every point drawn
    labels = [float(y) for y in re.findall(r'<text class="mkl[^"]*" x="[\d.]+" y="([\d.]+)"', svg)]
    ys = [float(y) for y in re.findall(r'<circle class="pt"[^>]*cy="([\d.]+)"', svg)]
    for m in re.finditer(r'<g class="series"[^>]*><polyline[^>]*points="([^"]*)"', svg):
        ys += [float(p.split(",")[1]) for p in m.group(1).split()]
    assert not labels or max(labels) + 4 < min(ys), (name, labels, min(ys))  # (unit test: always)
    # the whole verdict, in a block that wraps
    flat = html.unescape(re.sub(r"<[^>]+>", "", text))
    assert st["analysis"]["verdict"] in flat, name
    assert re.search(r'<pre id="summary" class="wrap">', text), name
    assert "white-space:pre-wrap" in text, name
    # the class shares: a line per class any step has
    classes = set()
    for s in st["steps"]:
        classes |= set(s.get("classSharesPct", {}))
    assert classes, st["steps"]
    csvg = re.search(r'<svg id="sweep-classes".*?</svg>', text, re.S).group(0)
    assert len(re.findall(r'<g class="series"', csvg)) == len(classes), (name, classes)
    cells = re.findall(r'<td class="limit">([^<]*)</td>', text)
    assert len(cells) == 5 and all(" rounds" in c for c in cells), (name, cells)
print("report ok: USL lambda %.1f sigma %.4f %s kappa %.5f %s; verdict: %s" % (
    usl["lambda"], usl["sigma"], usl["sigmaInterval"], usl["kappa"], usl["kappaInterval"],
    st["analysis"]["verdict"]))
PY
pass "sweep report: log2 axis, USL path with intervals, ideal lambda N, labels over no data, the whole verdict, class shares per step"
