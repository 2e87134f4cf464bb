'use strict';
// Helpers shared by test/sim/test/workload*.test.js.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Store } = require('../store');
const workload = require('./index');

function cluster(opts = {}) {
  const store = new Store();
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-test-'));
  const logs = [];
  const wl = workload.start(store, Object.assign({ tmpDir, log: (s) => logs.push(s), jobBackoffMs: 100, restartBackoffMs: 100, maxGraceSeconds: 1, downwardDelayMs: 0 }, opts));
  return {
    store,
    wl,
    tmpDir,
    logs,
    async close() {
      await wl.stop();
      fs.rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}

async function waitFor(fn, what, timeoutMs = 10000) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = fn();
    if (last) return last;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function cond(obj, type) {
  return ((obj && obj.status && obj.status.conditions) || []).find((c) => c.type === type) || null;
}

function job(name, spec, podSpec, ns = 'default') {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: ns },
    spec: Object.assign({ template: { metadata: { labels: { app: name } }, spec: Object.assign({ restartPolicy: 'Never' }, podSpec) } }, spec),
  };
}

function pod(name, spec, ns = 'default', meta = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: Object.assign({ name, namespace: ns }, meta), spec: Object.assign({ restartPolicy: 'Never' }, spec) };
}

function jobPods(store, ns, jobName) {
  return store.list('core/pods', ns, { labelSelector: `batch.kubernetes.io/job-name=${jobName}` });
}

module.exports = { cluster, waitFor, cond, job, pod, jobPods };
