'use strict';
// Workload simulation: the controllers and kubelet a Job needs, driven by store events.
//
//   const wl = require('./workload').start(store, {binPath, tmpDir, log});
//   wl.podLog(ns, name, {container, tailLines, previous, limitBytes, sinceSeconds, sinceTime (ns),
//     timestamps}) -> string | null; wl.podLogReader(ns, name, opts) -> LogReader | null (follow)
//   wl.handleSim(method, path, body) -> {code, body} | null
//   await wl.stop()
//
// Options (all optional):
//   binPath          array or colon-separated string of directories searched for command[0]
//                    (default: env SIM_BIN_PATH)
//   tmpDir           where pod dirs, logs and PVC dirs live (default: a fresh dir under os.tmpdir())
//   log              function(string) for diagnostics (default: silent)
//   jobBackoffMs     base of the Job pod-failure backoff (default 1000; upstream uses 10s)
//   restartBackoffMs base of the container restart backoff (default 1000; upstream uses 10s)
//   maxGraceSeconds  cap on terminationGracePeriodSeconds before SIGKILL (default 3)
//   hpaResyncMs      HPA resync period (default 1000; upstream uses 15s)
//   downwardDelayMs  how late a changed label/annotation reaches a downwardAPI volume: ms, or
//                    "MIN-MAX" / [min, max] drawn uniformly per change (default: env
//                    SIM_DOWNWARD_DELAY_MS, else "50-1170", what the real v1.25 node showed)
//   nodes            how many nodes the kubelet registers and the scheduler places pods on
//                    (default: env SIM_NODES, else 1: node "sim-node"; scheduler.js)
//   containerMode    run pods from their images through podman (default: env SIM_CONTAINER_MODE=1);
//                    Deployments then run pods too (deployments.js)
//   apiServer        {host, port, ca}: what in-cluster pods are given (container mode)
//   issueToken       (namespace, serviceAccount) -> token the API server accepts (container mode)

const fs = require('fs');
const os = require('os');
const path = require('path');
const { Kubelet } = require('./kubelet');
const { JobController } = require('./jobs');
const { GarbageCollector } = require('./gc');
const { WorkloadStatus, HPAController } = require('./hpa');
const { ClusterRoleAggregation } = require('./aggregation');
const { DeploymentController } = require('./deployments');
const { PodmanRuntime } = require('./podman');
const { nodeCount } = require('./scheduler');

// [min, max] ms from a number, "N", "MIN-MAX" or [min, max]; an error names SIM_DOWNWARD_DELAY_MS.
function delayRange(v) {
  const parts = Array.isArray(v) ? v : String(v).split('-');
  const r = parts.map(Number);
  if (r.length === 1) r.push(r[0]);
  if (r.length !== 2 || !r.every((x) => Number.isFinite(x) && x >= 0) || r[0] > r[1] || String(v).trim() === '') {
    throw new Error(`SIM_DOWNWARD_DELAY_MS (downwardDelayMs) ${JSON.stringify(v)}: want milliseconds, N or MIN-MAX with 0 <= MIN <= MAX, e.g. 50-1170`);
  }
  return r;
}

function start(store, opts = {}) {
  const downwardDelayMs = delayRange(opts.downwardDelayMs !== undefined ? opts.downwardDelayMs
    : process.env.SIM_DOWNWARD_DELAY_MS || '50-1170');
  let binPath = opts.binPath !== undefined ? opts.binPath : process.env.SIM_BIN_PATH || '';
  if (typeof binPath === 'string') binPath = binPath.split(':');
  binPath = binPath.filter(Boolean).map((d) => path.resolve(d));
  const ownTmp = !opts.tmpDir;
  const tmpDir = opts.tmpDir || fs.mkdtempSync(path.join(os.tmpdir(), 'sim-workload-'));
  fs.mkdirSync(tmpDir, { recursive: true });
  const ctx = {
    store,
    binPath,
    tmpDir,
    log: opts.log || (() => {}),
    jobBackoffMs: opts.jobBackoffMs !== undefined ? opts.jobBackoffMs : 1000,
    restartBackoffMs: opts.restartBackoffMs !== undefined ? opts.restartBackoffMs : 1000,
    maxGraceSeconds: opts.maxGraceSeconds !== undefined ? opts.maxGraceSeconds : 3,
    hpaResyncMs: opts.hpaResyncMs !== undefined ? opts.hpaResyncMs : 1000,
    downwardDelayMs,
    nodes: nodeCount(opts.nodes !== undefined ? opts.nodes : process.env.SIM_NODES),
    containerMode: opts.containerMode !== undefined ? !!opts.containerMode : process.env.SIM_CONTAINER_MODE === '1',
    apiServer: opts.apiServer || null,
    issueToken: opts.issueToken || null,
  };
  if (ctx.containerMode) ctx.runtime = opts.runtime || new PodmanRuntime({ instance: path.basename(tmpDir) });
  const kubelet = new Kubelet(ctx);
  const jobs = new JobController(ctx);
  const gc = new GarbageCollector(ctx);
  const workloads = new WorkloadStatus(ctx);
  const hpa = new HPAController(ctx);
  const aggregation = new ClusterRoleAggregation(ctx);
  const parts = [gc, jobs, kubelet, workloads, hpa, aggregation];
  if (ctx.containerMode) parts.push(new DeploymentController(ctx));

  const onEvent = (ev) => {
    for (const p of parts) {
      try {
        p.onEvent(ev);
      } catch (e) {
        ctx.log(`workload: event handler failed: ${e && e.stack ? e.stack : e}`);
      }
    }
  };
  store.on('event', onEvent);
  // Pod processes run in their own process groups (no TTY, detached): if this process exits
  // without stop(), do not leave them behind.
  const onExit = () => kubelet.killAllNow();
  process.on('exit', onExit);
  // State loaded from disk (or created before start) produces no events: look at everything once.
  for (const p of parts) p.resync();

  function handleSim(method, urlPath, body) {
    const p = urlPath.split('?')[0].replace(/\/+$/, '');
    if (p === '/sim/hpa-script') {
      if (method === 'POST') return hpa.setScript(typeof body === 'string' ? safeJSON(body) : body);
      if (method === 'GET') return hpa.listScripts();
      return { code: 405, body: { message: `method ${method} not allowed on ${p}` } };
    }
    if (p === '/sim/start-delay') {
      if (method === 'POST') return kubelet.setStartDelays(typeof body === 'string' ? safeJSON(body) : body);
      if (method === 'GET') return { code: 200, body: { rules: kubelet.startDelays || [] } };
      return { code: 405, body: { message: `method ${method} not allowed on ${p}` } };
    }
    return null;
  }

  let stopped = null;
  function stop() {
    if (stopped) return stopped;
    store.removeListener('event', onEvent);
    process.removeListener('exit', onExit);
    for (const p of parts) if (p !== kubelet) p.stop();
    stopped = kubelet.stop().then(() => {
      if (ownTmp) fs.rmSync(tmpDir, { recursive: true, force: true });
    });
    return stopped;
  }

  return {
    podLog: (ns, name, o) => kubelet.podLog(ns, name, o || {}),
    podLogReader: (ns, name, o) => kubelet.podLogReader(ns, name, o || {}),
    handleSim,
    stop,
    tmpDir,
    // for tests
    _kubelet: kubelet,
    _jobs: jobs,
  };
}

function safeJSON(s) {
  try {
    return JSON.parse(s);
  } catch (_) {
    return null;
  }
}

module.exports = { start };
