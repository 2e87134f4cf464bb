#!/usr/bin/env bash
# `make bench` figures for live progress (pkg/controller/progress.c): what reading the workers' log
# tails every --progress-interval costs. The same run (2 workers, pgbench -P 1, select-only,
# BENCH_PROGRESS_SECONDS s, default 15) goes once per interval in BENCH_PROGRESS_INTERVALS
# (default "0 10 2"; 0 turns live progress off), each under a fresh operator, against a local
# PostgreSQL 15 through the real runner and the simulated cluster. Measured, per interval:
#   - pod-log requests and the bytes the API server sent back, per worker pod, counted inside the
#     simulated API server (a request hook preloaded into node, test/sim is unchanged); with 0 the
#     only reads are the final result's, so the difference to 0 is what progress costs;
#   - the operator's CPU time from apply until the run ended: the nanoseconds its threads ran
#     (/proc/PID/task/*/schedstat; utime/stime count 10 ms ticks, too coarse here).
# Env: BUILD (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
. test/lib/env.sh
[ -x "$BIN/pgbench-operator" ] && [ -x "$BIN/pgbench-runner" ] || fail "build $BIN first (make)"
DURATION="${BENCH_PROGRESS_SECONDS:-15}"
INTERVALS="${BENCH_PROGRESS_INTERVALS:-0 10 2}"

# counts GET .../pods/<pod>/log and the bytes of their answers, per pod, into $LOGSTATS_FILE
cat >"$TMP/count-logs.js" <<'JS'
'use strict';
const fs = require('fs');
const http = require('http');
const http2 = require('http2');
const stats = {};
function wrap(handler) {
  return function counted(req, res) {
    const m = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/?]+)\/log(\?|$)/.exec(req.url || '');
    if (m) {
      const s = stats[m[1]] || (stats[m[1]] = { requests: 0, bytes: 0 });
      s.requests++;
      const add = (c) => { if (c && typeof c !== 'function') s.bytes += Buffer.byteLength(c); };
      const write = res.write.bind(res);
      const end = res.end.bind(res);
      res.write = (c, ...a) => { add(c); return write(c, ...a); };
      res.end = (c, ...a) => { add(c); return end(c, ...a); };
    }
    return handler.call(this, req, res);
  };
}
const secure = http2.createSecureServer;
http2.createSecureServer = (opts, handler) => secure(opts, wrap(handler));
const plain = http.createServer;
http.createServer = (...a) => plain(...a.map((x) => (typeof x === 'function' ? wrap(x) : x)));
setInterval(() => fs.writeFileSync(process.env.LOGSTATS_FILE, JSON.stringify(stats)), 200).unref();
JS
export LOGSTATS_FILE="$TMP/logstats.json"
export NODE_OPTIONS="--require $TMP/count-logs.js"
env_start_pg
env_start_sim
unset NODE_OPTIONS
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{n += $1} END {printf "%d", n}'; }

for iv in $INTERVALS; do
    name="progress-$iv"
    OP_NAME="operator-$iv" env_start_operator --progress-interval "$iv" --log-level warn
    c0="$(cpu_ns "$OP_PID")"
    env_br_yaml "$name" "pgbench:
  init: {scale: 1}
  run: {clients: 2, durationSeconds: $DURATION, builtin: select-only, progressSeconds: 1}" 'workers: 2' | env_apply
    env_wait_phase "$name" Succeeded $((DURATION + 120))
    c1="$(cpu_ns "$OP_PID")"
    sleep 0.5 # the hook writes its counts every 200 ms
    env_stop_operator
    echo "$iv $(((c1 - c0) / 1000000))" >>"$TMP/cpu"
done

python3 - "$LOGSTATS_FILE" "$TMP/cpu" "$DURATION" <<'PY'
import json, re, sys
stats = json.load(open(sys.argv[1]))
cpu = dict(line.split() for line in open(sys.argv[2]))
duration = sys.argv[3]
base = None
for iv, ms in cpu.items():
    # the run Job's pods: progress-<iv>-run-<index>-<suffix> (the init pod is not read live)
    pods = {p: s for p, s in stats.items() if re.match(r"progress-%s-run-\d+-" % iv, p)}
    n = max(len(pods), 1)
    req = sum(s["requests"] for s in pods.values()) / n
    kib = sum(s["bytes"] for s in pods.values()) / n / 1024
    line = ("operator: progress interval %s: %.1f pod-log requests, %.1f KiB read per worker; "
            "operator CPU %d ms (%d workers, %s s run, -P 1)"
            % ("%s s" % iv if iv != "0" else "0 (off)", req, kib, int(ms), len(pods), duration))
    if iv == "0":
        base = (req, kib, int(ms))
    elif base:
        extra = req - base[0]
        line += "; live progress: +%.1f requests, +%.1f KiB per worker (%.1f KiB a read), %+d ms CPU" % (
            extra, kib - base[1], (kib - base[1]) / extra if extra > 0 else 0, int(ms) - base[2])
    print(line)
PY
