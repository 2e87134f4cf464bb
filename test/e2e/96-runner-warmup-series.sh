#!/usr/bin/env bash
# The runner's warm-up cut and per-second latency series against a real PostgreSQL 15 and the real
# pgbench (issue 32, item 5): a -T 8 -r run with --warmup 2 keeps the raw -l logs (a pgbench
# wrapper copies them before the runner removes them), and every number is checked against an
# independent oracle that sorts those raw values: the summary covers the steady window only
# (transactions, tps, average, p50/p99 within the histogram's 0.8 % of the nearest-rank value of
# the sorted steady latencies), warmup counts what was left out, latencySeries has per-second
# p50/p99 beside the count of each second, and the statements of -r are in the result.
set -euo pipefail
. "$(dirname "$0")/../lib/env.sh"
env_start_pg
env_need_runner

BENCH_TERMINATION_LOG="$TMP/init.term" "$RUNNER" pgbench init --scale 1 >"$TMP/init.out" 2>"$TMP/init.err" ||
    { tail -20 "$TMP/init.err" >&2; fail "init failed"; }

mkdir -p "$TMP/keep"
cat >"$TMP/pgbench-keep" <<SH
#!/bin/sh
# the real pgbench, then its -l logs copied where the test reads them
prefix=""
for a in "\$@"; do case "\$a" in --log-prefix=*) prefix="\${a#--log-prefix=}";; esac; done
rc=0
pgbench "\$@" || rc=\$?
[ -n "\$prefix" ] && cp "\$prefix".* "$TMP/keep/" 2>/dev/null
exit \$rc
SH
chmod +x "$TMP/pgbench-keep"

rc=0
PGBENCH="$TMP/pgbench-keep" BENCH_TXLOG_PUNCH=0 BENCH_TERMINATION_LOG="$TMP/run.term" \
    "$RUNNER" pgbench run --duration 8 --clients 4 --threads 2 --per-statement --warmup 2 \
    >"$TMP/run.out" 2>"$TMP/run.err" || rc=$?
[ "$rc" = 0 ] || { tail -20 "$TMP/run.err" >&2; fail "run exited $rc"; }
ls "$TMP"/keep/pgbench_log.* >/dev/null 2>&1 || fail "the wrapper kept no -l logs"

python3 - "$TMP/run.out" "$TMP"/keep/pgbench_log.* <<'PY' || fail "result does not match the raw -l logs"
import json, math, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()]
r = json.loads(lines[-1])
tx = []  # (epoch_us, latency_us or None for failed)
for path in sys.argv[2:]:
    for line in open(path):
        f = line.split()
        if not f:
            continue
        ep = int(f[4]) * 1000000 + int(f[5])
        tx.append((ep, int(f[2]) if f[2].isdigit() else None))
W = r.get("warmup")
assert W, "no warmup section: %s" % sorted(r)
S = r["summary"]
cut = W["cutEpochUs"]
ok_all = [t for t in tx if t[1] is not None]
steady = sorted(l for e, l in ok_all if e >= cut)
warm = [l for e, l in ok_all if e < cut]

def rank(vals, pct):  # nearest rank, on the sorted raw values
    return vals[max(1, math.ceil(pct / 100.0 * len(vals))) - 1]

def near(got_ms, want_us, what):
    tol = max(0.008 * want_us, 1.0)
    assert abs(got_ms * 1000 - want_us) <= tol, "%s: %r ms, raw values say %r us" % (what, got_ms, want_us)

assert W["seconds"] == 2, W
assert W["transactions"] == len(warm) and len(warm) > 0, (W, len(warm))
assert S["transactionsProcessed"] == len(steady), (S["transactionsProcessed"], len(steady))
last = max(e for e, _ in tx)
span = (last - cut) / 1e6
assert abs(W["steadySeconds"] - span) < 0.002, (W["steadySeconds"], span)
assert abs(S["tps"] - len(steady) / span) < 1e-6 * S["tps"] + 1e-9, (S["tps"], len(steady) / span)
assert abs(S["latencyAvgMs"] * 1000 - sum(steady) / len(steady)) < 0.5, (S["latencyAvgMs"], sum(steady) / len(steady))
near(S["latencyP50Ms"], rank(steady, 50), "summary p50")
near(S["latencyP99Ms"], rank(steady, 99), "summary p99")
assert S["histogramCount"] == len(steady)
assert isinstance(W["runTps"], (int, float)) and W["runTps"] > 0
# the series: every successful transaction, warm-up included, by second since the start
L = r["latencySeries"]
assert L["intervalSeconds"] == 1, L["intervalSeconds"]
start = L["startEpochUs"]
assert cut - start == 2000000, (cut, start)
# t = 0 is the start of the first transaction the runner read (pgbench's benchmark start). With
# -j 2 the threads' logs are read as they grow, so another thread's first transaction may have
# ended a little before it (0.5 ms seen): it counts in the first second; more than 50 ms is a bug
assert start in {e - l for e, l in ok_all}, start
assert start - min(e for e, _ in tx) < 50000, (start, min(e for e, _ in tx))
by = {}
for e, l in ok_all:
    by.setdefault(max(e - start, 0) // 1000000 + 1, []).append(l)
pts = {p["t"]: p for p in L["points"]}
assert sorted(pts) == sorted(by), (sorted(pts), sorted(by))
assert len(pts) >= 8, sorted(pts)
for t, vals in by.items():
    vals.sort()
    p = pts[t]
    assert p["count"] == len(vals), (t, p["count"], len(vals))
    near(p["p50Ms"], rank(vals, 50), "t=%d p50" % t)
    near(p["p99Ms"], rank(vals, 99), "t=%d p99" % t)
    assert sum(c for _, c in p["buckets"]) == len(vals)
# -r: the statements
st = r.get("statements") or []
assert any("UPDATE pgbench_accounts" in s["command"] for s in st), st
print("steady %d tx, warm-up %d tx, %d series points, p99 %.3f ms" % (len(steady), len(warm), len(pts), S["latencyP99Ms"]))
PY
pass "warm-up cut and per-second p50/p99 match the sorted raw -l logs"
