#!/usr/bin/env bash
# `make bench` figure for the runner: TPS of runner-driven pgbench divided by bare pgbench with
# the same flags (select-only, 4 clients, 2 threads, 5 s), alternating runner/bare 3+3 times. The
# runner runs as in production: -P 1 progress parsed live, -l transaction logs turned into the
# percentile histogram, wait events sampled every second, server settings read.
# Prints: runner overhead ratio: 0.98 (runner X tps / bare Y tps; medians ...)
# Env: BENCH_CLIENTS BENCH_THREADS BENCH_DURATION BENCH_ROUNDS.
set -euo pipefail
. "$(dirname "$0")/../test/lib/env.sh"
RUNNER="$BIN/pgbench-runner"
[ -x "$RUNNER" ] || { echo "bench-runner: $RUNNER not built (make first)" >&2; exit 1; }
CLIENTS="${BENCH_CLIENTS:-4}"
THREADS="${BENCH_THREADS:-2}"
SECONDS_PER_RUN="${BENCH_DURATION:-5}"
ROUNDS="${BENCH_ROUNDS:-3}"

env_start_pg >/dev/null
"$RUNNER" pgbench init --scale 5 >/dev/null 2>"$TMP/init.err" || { cat "$TMP/init.err" >&2; exit 1; }

runner_tps() {
    "$RUNNER" pgbench run --clients "$CLIENTS" --threads "$THREADS" --duration "$SECONDS_PER_RUN" \
        --builtin select-only --no-vacuum --wait-events --server-settings \
        >"$TMP/runner.out" 2>"$TMP/runner.err" || { tail -5 "$TMP/runner.err" >&2; exit 1; }
    python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); assert r["summary"]["latencyP99Ms"] is not None; print(r["summary"]["tps"])' "$TMP/runner.out"
}
bare_tps() {
    pgbench -c "$CLIENTS" -j "$THREADS" -T "$SECONDS_PER_RUN" -b select-only -n \
        >"$TMP/bare.out" 2>"$TMP/bare.err" || { tail -5 "$TMP/bare.err" >&2; exit 1; }
    sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$TMP/bare.out"
}

runner_all=()
bare_all=()
for i in $(seq 1 "$ROUNDS"); do
    # alternate which goes first, so a drift in machine load hits both sides alike
    if [ $((i % 2)) -eq 1 ]; then
        runner_all+=("$(runner_tps)")
        bare_all+=("$(bare_tps)")
    else
        bare_all+=("$(bare_tps)")
        runner_all+=("$(runner_tps)")
    fi
    echo "  round $i: runner ${runner_all[-1]} tps, bare ${bare_all[-1]} tps" >&2
done
python3 - "${runner_all[*]}" "${bare_all[*]}" <<'PY'
import sys
r = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
# medians: one run disturbed by other load on the machine does not decide the figure
med = lambda xs: sorted(xs)[len(xs) // 2] if len(xs) % 2 else sum(sorted(xs)[len(xs) // 2 - 1:len(xs) // 2 + 1]) / 2
rm, bm = med(r), med(b)
print("runner overhead ratio: %.2f (runner %.0f tps / bare %.0f tps; medians of %d alternating runs each)"
      % (rm / bm, rm, bm, len(r)))
PY
