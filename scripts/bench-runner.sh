#!/usr/bin/env bash
# `make bench` figure for the runner: TPS of runner-driven pgbench divided by bare pgbench with
# the same flags (select-only, 4 clients, 2 threads, 10 s), alternating runner/bare runs. The
# runner runs as in production: -P 1 progress parsed live, -l transaction logs streamed into the
# percentile histogram, wait events sampled every second, server settings read.
#
# "Same flags" = the exact pgbench command line the runner used (-P 1 -l included), so the ratio
# is the runner's own overhead. A second line shows what the percentiles cost pgbench itself:
# bare pgbench with -P 1 -l against bare pgbench without them.
#
# Why 10 rounds of 10 s: on a small VM two identical bare runs differ by up to 20 % (where the
# scheduler puts pgbench's threads and the backends decides much), so one pair says little; and
# the first two seconds of any pgbench run are its warm-up (20-30 % below the steady rate), where
# a 5 s run would weigh the runner's start (its sampling connection, the first log read) four
# times as heavily as a real run of minutes does. The median of the per-round ratios is the
# figure; the mean with its 95 % interval beside it says how far the machine lets us trust it.
# Prints: runner overhead ratio: 0.98 (runner X tps / bare Y tps; ...)
# Env: BENCH_CLIENTS BENCH_THREADS BENCH_DURATION BENCH_ROUNDS.
set -euo pipefail
. "$(dirname "$0")/../test/lib/env.sh"
RUNNER="$BIN/pgbench-runner"
[ -x "$RUNNER" ] || { echo "bench-runner: $RUNNER not built (make first)" >&2; exit 1; }
CLIENTS="${BENCH_CLIENTS:-4}"
THREADS="${BENCH_THREADS:-2}"
SECONDS_PER_RUN="${BENCH_DURATION:-10}"
ROUNDS="${BENCH_ROUNDS:-10}"

env_start_pg >/dev/null
"$RUNNER" pgbench init --scale 5 >/dev/null 2>"$TMP/init.err" || { cat "$TMP/init.err" >&2; exit 1; }
# Warm-up, not measured: the first run after init reads the fresh tables into shared_buffers and
# would be round 1's first run, always the runner's.
pgbench -c "$CLIENTS" -j "$THREADS" -T 5 -b select-only -n >/dev/null 2>&1

# Prints "<tps> <runner CPU seconds>": the runner's own CPU (not pgbench's), read from
# /proc/<pid>/stat once it has exited and before it is reaped (waitid WNOWAIT: nothing polls
# while the load runs).
runner_tps() {
    python3 - "$TMP" "$RUNNER" pgbench run --clients "$CLIENTS" --threads "$THREADS" \
        --duration "$SECONDS_PER_RUN" --builtin select-only --no-vacuum --wait-events \
        --server-settings <<'PY' || { tail -5 "$TMP/runner.err" >&2; exit 1; }
import json, os, subprocess, sys
tmp, cmd = sys.argv[1], sys.argv[2:]
with open(tmp + "/runner.out", "wb") as out, open(tmp + "/runner.err", "wb") as err:
    p = subprocess.Popen(cmd, stdout=out, stderr=err)
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    f = open("/proc/%d/stat" % p.pid).read().rsplit(") ", 1)[1].split()
    cpu = (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    if p.wait() != 0:
        sys.exit(1)
r = json.loads(open(tmp + "/runner.out").read().splitlines()[-1])
assert r["summary"]["latencyP99Ms"] is not None and r["waitEvents"]["samples"] > 0
print(r["summary"]["tps"], cpu)
PY
}
# bare_tps [extra pgbench flags]
bare_tps() {
    rm -rf "$TMP/bare-logs" && mkdir -p "$TMP/bare-logs"
    pgbench -c "$CLIENTS" -j "$THREADS" -T "$SECONDS_PER_RUN" -b select-only -n "$@" \
        >"$TMP/bare.out" 2>"$TMP/bare.err" || { tail -5 "$TMP/bare.err" >&2; exit 1; }
    rm -rf "$TMP/bare-logs"
    sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$TMP/bare.out"
}
SAME=(-P 1 -l "--log-prefix=$TMP/bare-logs/pgbench_log")

runner_all=()
runner_cpu=()
bare_all=()
plain_all=()
for i in $(seq 1 "$ROUNDS"); do
    # alternate which goes first, so a drift in machine load hits both sides alike
    if [ $((i % 2)) -eq 1 ]; then
        read -r t c < <(runner_tps) && runner_all+=("$t") runner_cpu+=("$c")
        bare_all+=("$(bare_tps "${SAME[@]}")")
        plain_all+=("$(bare_tps)")
    else
        plain_all+=("$(bare_tps)")
        bare_all+=("$(bare_tps "${SAME[@]}")")
        read -r t c < <(runner_tps) && runner_all+=("$t") runner_cpu+=("$c")
    fi
    echo "  round $i: runner ${runner_all[-1]} tps, bare (same flags) ${bare_all[-1]} tps, bare without -P/-l ${plain_all[-1]} tps" >&2
done
python3 - "${runner_all[*]}" "${bare_all[*]}" "${plain_all[*]}" "${runner_cpu[*]}" "$SECONDS_PER_RUN" <<'PY'
import math, sys
r, b, p, cpu = ([float(x) for x in a.split()] for a in sys.argv[1:5])
seconds = float(sys.argv[5])
def med(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
# per-round ratios: runs next to each other share the machine's load; the median of them is
# robust to one disturbed round
ratios = [x / y for x, y in zip(r, b)]
ratio = med(ratios)
# Student's t, two-sided 95 %, for n-1 degrees of freedom (n <= 30 rounds; 1.96 beyond)
T95 = [12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13,
       2.12, 2.11, 2.10, 2.09, 2.09, 2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05]
def mean_interval(xs):
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, (T95[n - 2] if n - 2 < len(T95) else 1.96) * sd / math.sqrt(n)
mean, half = mean_interval(ratios)
print("runner overhead ratio: %.2f (median of %d per-round ratios, which ranged %.2f-%.2f; mean %.3f, 95 %% interval %.3f-%.3f; target >= 0.97; median tps: runner %.0f, bare %.0f)"
      % (ratio, len(r), min(ratios), max(ratios), mean, mean - half, mean + half, med(r), med(b)))
print("runner's own CPU: %.2f s per %.0f s run (%.1f %% of one core; the rest of the ratio's spread is machine noise)"
      % (med(cpu), seconds, 100 * med(cpu) / seconds))
pl = [y / z for y, z in zip(b, p)]
print("percentile logging cost in pgbench itself: %.2f (median of per-round ratios, which ranged %.2f-%.2f; median tps: bare with -P 1 -l %.0f, without %.0f)"
      % (med(pl), min(pl), max(pl), med(b), med(p)))
PY
