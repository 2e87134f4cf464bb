#!/usr/bin/env bash
# `make bench` figures for the operator, on the simulated cluster over loopback:
#   1. operator heap (RssAnon) with BENCH_RUNS BenchmarkRuns and their Jobs (and Pods) in the
#      cluster (<= 16 MiB at 10,000), what its informer caches hold (/metrics cached_bytes), and
#      its heap in use and free but held (/metrics heap_bytes: live data against fragments)
#   2. time until all BENCH_RUNS BenchmarkRuns applied at once have their run Jobs (<= 10 s per
#      1,000), the operator's CPU time per run and the simulated API server's per request
#      (GET /sim/stats) over that burst
#   3. the operator's share of CR -> Job latency: one CR at a time (created -> its run Job's ADDED
#      event), each followed by a Job created directly (created -> its ADDED event) in the same
#      sim; the share is the difference of the p99s (<= 2 ms). The CRs are pgbench runs (their
#      pods wait for the missing Secret pg-app: nothing runs), whose run Job is the operator's
#      first write (issue 31.4: the status follows it); a fio run creates its claim first
#   4. aggregation memory: e2e 110's 64-worker run (real runner and PostgreSQL): how much the
#      operator's peak (VmHWM) grew while it collected the 64 results, against their JSON's size
#      (BENCH_AGGREGATION=0 skips it)
#
# The benchmark pods must exist but need not run, so every run stays Running (the largest cached
# state: spec, status, a Job and a Pod per run). No PostgreSQL is needed. Two ways:
#   BENCH_MODE=pending (default): fio runs whose StorageClass does not exist; their PVC never
#     binds and their pod stays Pending (unschedulable), as on a real cluster; no process runs.
#   BENCH_MODE=sleep: pgbench runs whose pod really starts; the sim's SIM_BIN_PATH points at a
#     directory whose "pgbench-runner" only sleeps (1,000 local processes).
# Env: BUILD (default build), BENCH_RUNS (10000), BENCH_LATENCY_SAMPLES (200), BENCH_MODE.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
. test/lib/env.sh
RUNS="${BENCH_RUNS:-10000}"
SAMPLES="${BENCH_LATENCY_SAMPLES:-200}"
[ -x "$BIN/pgbench-operator" ] || fail "$BIN/pgbench-operator not built"

# 4. first, on a quiet machine: the 64-worker run has its own PostgreSQL, sim and operator
if [ "${BENCH_AGGREGATION:-1}" = 1 ]; then
    BUILD="$BUILD" bash test/e2e/110-operator-64-workers.sh >"$TMP/agg.log" 2>&1 ||
        { tail -20 "$TMP/agg.log" >&2; fail "the 64-worker run (e2e 110) failed"; }
    sed -n 's/^aggregation memory: /operator: aggregation memory, 64 workers: /p' "$TMP/agg.log"
fi

mkdir -p "$TMP/bin"
printf '#!/bin/sh\nexec sleep 3600\n' >"$TMP/bin/pgbench-runner"
chmod +x "$TMP/bin/pgbench-runner"
BIN="$TMP/bin" env_start_sim
env_kubectl create namespace bench >/dev/null
env_kubectl create namespace lat >/dev/null
env_kubectl create namespace direct >/dev/null
env_start_operator --log-level warn --start-delay 0 --workers 16

cat >"$TMP/driver.js" <<'JS'
'use strict';
// Creates BenchmarkRuns through the API and watches run Jobs appear (loopback HTTPS).
const fs = require('fs');
const https = require('https');
const [kubeconfig, runs, samples, opPid, simPid, opUrl] = process.argv.slice(2);
function cpuSeconds(pid) { // utime + stime
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
const kc = fs.readFileSync(kubeconfig, 'utf8');
const server = new URL(kc.match(/server:\s*(\S+)/)[1]);
const ca = Buffer.from(kc.match(/certificate-authority-data:\s*(\S+)/)[1], 'base64');
const token = kc.match(/token:\s*(\S+)/)[1];
const agent = new https.Agent({ keepAlive: true, maxSockets: 32, ca });
const base = { hostname: server.hostname, port: server.port, agent,
  headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } };

function request(method, path, body) {
  return new Promise((resolve, reject) => {
    const req = https.request({ ...base, method, path }, (res) => {
      let data = '';
      res.on('data', (c) => { data += c; });
      res.on('end', () => (res.statusCode < 300 ? resolve(data) : reject(new Error(`${method} ${path}: ${res.statusCode} ${data}`))));
    });
    req.on('error', reject);
    if (body) req.write(JSON.stringify(body));
    req.end();
  });
}

const seen = new Map(); // ns/job -> hrtime ms
const waiters = new Map();
function watchJobs() {
  return new Promise((resolve) => {
    const req = https.request({ ...base, agent: new https.Agent({ ca }), method: 'GET',
      path: '/apis/batch/v1/jobs?watch=1' }, (res) => {
      let buf = '';
      res.on('data', (c) => {
        const now = performance.now();
        buf += c;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i); buf = buf.slice(i + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line);
          if (ev.type !== 'ADDED') continue;
          const k = `${ev.object.metadata.namespace}/${ev.object.metadata.name}`;
          if (!seen.has(k)) seen.set(k, now);
          const w = waiters.get(k);
          if (w) { waiters.delete(k); w(now); }
        }
      });
      resolve();
    });
    req.end();
  });
}
function waitJob(k) {
  if (seen.has(k)) return Promise.resolve(seen.get(k));
  return new Promise((resolve) => waiters.set(k, resolve));
}
function br(ns, name) {
  if ((process.env.BENCH_MODE || 'pending') === 'pending') // pods stay Pending: no such class
    return { apiVersion: 'pgbench.dev/v1alpha1', kind: 'BenchmarkRun', metadata: { name, namespace: ns },
      spec: { workload: { fio: { storageClassName: 'none', jobs: [{ name: 'a', rw: 'read', runtimeSeconds: 600 }] } } } };
  return pgbenchBr(ns, name);
}
function pgbenchBr(ns, name) {
  return { apiVersion: 'pgbench.dev/v1alpha1', kind: 'BenchmarkRun', metadata: { name, namespace: ns },
    spec: { target: { host: 'pg-rw.db.svc', user: 'app', passwordSecretRef: { name: 'pg-app' } },
      workload: { pgbench: { run: { clients: 2, durationSeconds: 600 } } }, workers: 1 } };
}
// A Job as the operator's would be, made directly (suspended: the latency ends at its ADDED event)
function job(ns, name) {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: ns },
    spec: { suspend: true, template: { spec: { restartPolicy: 'Never',
      containers: [{ name: 'runner', image: 'pgbench-runner', command: ['pgbench-runner'] }] } } } };
}
async function simStats() { return JSON.parse(await request('GET', '/sim/stats')); }
function pct(a, p) { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.ceil(p / 100 * s.length) - 1)]; }
function memKiB(field) { // VmRSS = RssAnon (the heap: caches, buffers) + RssFile (shared libraries' pages)
  const m = fs.readFileSync(`/proc/${opPid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`));
  return Number(m[1]);
}
const rssKiB = () => memKiB('VmRSS');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

(async () => {
  await watchJobs();
  await sleep(300);
  // 3. N runs applied at once (bounded client concurrency, as kubectl apply -f dir would be)
  const n = Number(runs);
  const cpu0 = [cpuSeconds(opPid), cpuSeconds(simPid)];
  const req0 = (await simStats()).requests;
  const t0 = performance.now();
  const names = Array.from({ length: n }, (_, i) => `br-${i}`);
  let next = 0;
  const creators = Array.from({ length: 32 }, async () => {
    while (next < n) { const name = names[next++]; await request('POST', '/apis/pgbench.dev/v1alpha1/namespaces/bench/benchmarkruns', br('bench', name)); }
  });
  const allJobs = Promise.all(names.map((x) => waitJob(`bench/${x}-run`)));
  await Promise.all(creators);
  const tApplied = performance.now();
  const done = await allJobs;
  const tAll = Math.max(...done) - t0;
  const cpu = [cpuSeconds(opPid) - cpu0[0], cpuSeconds(simPid) - cpu0[1]];
  const simRequests = (await simStats()).requests - req0;
  // 1. RSS once everything has settled (every pod started, queue drained)
  let last = -1, stable = 0;
  for (let i = 0; i < 120 && stable < 3; i++) {
    await sleep(1000);
    const r = rssKiB();
    stable = r === last ? stable + 1 : 0;
    last = r;
  }
  const rss = rssKiB(), anon = memKiB('RssAnon'), file = memKiB('RssFile');
  const metrics = await (await fetch(`${opUrl}/metrics`)).text();
  const cachedKiB = {};
  for (const m of metrics.matchAll(/cached_bytes\{resource="(\w+)"\} (\d+)/g)) cachedKiB[m[1]] = Number(m[2]) / 1024;
  const heapKiB = {}; // read before /metrics formats its answer (which takes MiBs at 10,000 runs)
  for (const m of metrics.matchAll(/heap_bytes\{state="(\w+)"\} (\d+)/g)) heapKiB[m[1]] = Number(m[2]) / 1024;
  // 3. latency, one CR at a time, with the runs still there; each followed by a direct Job
  const lat = [], direct = [];
  // each sample starts on a settled sim (the operator's writes after the Job, the sim's pod for
  // it), and the two kinds alternate which goes first
  const viaCr = async (name) => {
    const s = performance.now();
    await request('POST', '/apis/pgbench.dev/v1alpha1/namespaces/lat/benchmarkruns', pgbenchBr('lat', name));
    lat.push(await waitJob(`lat/${name}-run`) - s);
    await sleep(50);
  };
  const viaJob = async (name) => {
    const s = performance.now();
    await request('POST', '/apis/batch/v1/namespaces/direct/jobs', job('direct', name));
    direct.push(await waitJob(`direct/${name}`) - s);
    await sleep(50);
  };
  for (let i = 0; i < Number(samples); i++) {
    const name = `lat-${i}`;
    if (i % 2) { await viaJob(name); await viaCr(name); } else { await viaCr(name); await viaJob(name); }
  }
  console.log(JSON.stringify({ runs: n, applySeconds: (tApplied - t0) / 1000, allJobsSeconds: tAll / 1000,
    rssKiB: rss, rssAnonKiB: anon, rssFileKiB: file, cachedKiB, heapKiB, operatorCpuSeconds: cpu[0], simCpuSeconds: cpu[1], simRequests,
    latencyP50Ms: pct(lat, 50), latencyP99Ms: pct(lat, 99), latencyMaxMs: Math.max(...lat),
    directP50Ms: pct(direct, 50), directP99Ms: pct(direct, 99), directMaxMs: Math.max(...direct), samples: lat.length }));
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
JS

node "$TMP/driver.js" "$KUBECONFIG" "$RUNS" "$SAMPLES" "$OP_PID" "$SIM_PID" "$OP_URL" >"$TMP/result.json" ||
    { tail -20 "$OP_LOG" >&2; fail "the driver failed"; }
python3 - "$TMP/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def mark(ok): return "ok" if ok else "MISSED"
n = r["runs"]
anon = r["rssAnonKiB"] / 1024
print("operator: heap (RssAnon) with %d BenchmarkRuns + their Jobs and Pods: %.2f MiB (target <= 16 MiB at 10,000 runs) %s"
      % (n, anon, mark(anon <= 16)))
print("operator:   RSS %.2f MiB, of which shared-library pages (RssFile) %.2f MiB; the informer caches hold %s"
      % (r["rssKiB"] / 1024, r["rssFileKiB"] / 1024,
         ", ".join("%s %.2f MiB" % (k, v / 1024) for k, v in sorted(r["cachedKiB"].items()))))
h = r.get("heapKiB", {})
if "used" in h:
    print("operator:   the allocator's heap: %.2f MiB in use, %.2f MiB free but held (fragments); %.2f KiB in use per run"
          % (h["used"] / 1024, h["free"] / 1024, h["used"] / n))
goal = 10.0 * n / 1000
print("operator: %d BenchmarkRuns applied at once: all run Jobs created after %.2f s (applying took %.2f s; target <= %.0f s, 10 s per 1,000) %s"
      % (n, r["allJobsSeconds"], r["applySeconds"], goal, mark(r["allJobsSeconds"] <= goal)))
print("operator: CPU per run %.3f ms (%.2f s for the %d runs); the simulated API server's per request %.3f ms (%.2f s for %d requests)"
      % (r["operatorCpuSeconds"] * 1000 / n, r["operatorCpuSeconds"], n,
         r["simCpuSeconds"] * 1000 / max(1, r["simRequests"]), r["simCpuSeconds"], r["simRequests"]))
share = r["latencyP99Ms"] - r["directP99Ms"]
print("operator: CR created -> run Job created: p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d runs; a Job created directly: p50 %.2f ms, p99 %.2f ms"
      % (r["latencyP50Ms"], r["latencyP99Ms"], r["latencyMaxMs"], r["samples"], r["directP50Ms"], r["directP99Ms"]))
print("operator: its share of CR -> Job latency (p99 difference): %.2f ms (target <= 2 ms) %s; p50 difference %.2f ms"
      % (share, mark(share <= 2), r["latencyP50Ms"] - r["directP50Ms"]))
PY
