#!/usr/bin/env bash
# `make bench` figure for the init: server-side generation (init.generation: server, pgbench -I
# dtGvp: INSERT ... SELECT generate_series in the server) against client-side generation (client,
# -I dtgvp: COPY streamed from pgbench) at one scale, through the runner as the init Job runs it,
# against env_start_pg's PostgreSQL on this machine, alternating the two, BENCH_INIT_ROUNDS rounds.
# Prints the medians and their ratio, for the whole init and for the generation step alone
# (pgbench's own "done in" line). On one machine the client's COPY crosses no network, which
# favours client-side generation; over a real network the 22 GB of a scale-1500 COPY do not.
# Prints: init server/client: 0.85x the time at scale 10 (server 2.1 s, client 2.5 s; ...)
# Env: BENCH_INIT_SCALE (default 10), BENCH_INIT_ROUNDS (default 3).
set -euo pipefail
. "$(dirname "$0")/../test/lib/env.sh"
RUNNER="$BIN/pgbench-runner"
[ -x "$RUNNER" ] || { echo "bench-init: $RUNNER not built (make first)" >&2; exit 1; }
SCALE="${BENCH_INIT_SCALE:-10}"
ROUNDS="${BENCH_INIT_ROUNDS:-3}"

env_start_pg >/dev/null

# init GENERATION: prints "<init seconds> <generate-step seconds>"
init_once() {
    "$RUNNER" --log-format json pgbench init --scale "$SCALE" --generation "$1" \
        >"$TMP/init.out" 2>"$TMP/init.err" || { tail -5 "$TMP/init.err" >&2; exit 1; }
    python3 - "$TMP/init.out" "$TMP/init.err" "$1" <<'PY'
import json, re, sys
res = json.loads(open(sys.argv[1]).read().splitlines()[-1])
want = "dtGvp" if sys.argv[3] == "server" else "dtgvp"
assert res["complete"] and res["init"]["steps"] == want, res["init"]
gen = None
for line in open(sys.argv[2]):
    if line.startswith("{"):
        m = re.search(r"(server|client)-side generate ([0-9.]+) s", json.loads(line).get("msg", ""))
        if m:
            gen = float(m.group(2))
assert gen is not None, "no 'done in' line from pgbench"
print(res["init"]["durationSeconds"], gen)
PY
}

: >"$TMP/times"
for _ in $(seq "$ROUNDS"); do
    for g in server client; do
        echo "$g $(init_once "$g")" >>"$TMP/times"
    done
done
python3 - "$TMP/times" "$SCALE" "$ROUNDS" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {g: [statistics.median(float(r[i]) for r in rows if r[0] == g) for i in (1, 2)]
       for g in ("server", "client")}
(s, sg), (c, cg) = med["server"], med["client"]
print("init server/client: %.2fx the time at scale %s (server %.2f s, client %.2f s; generation "
      "step alone %.2fx: %.2f s against %.2f s; medians of %s rounds, alternating)"
      % (s / c, sys.argv[2], s, c, sg / cg, sg, cg, sys.argv[3]))
PY
