'use strict';
// Shared helpers for the workload simulation (controllers + kubelet).

const crypto = require('crypto');

// RFC 3339 with second precision, as metav1.Time serialises.
function now(d) {
  return (d || new Date()).toISOString().replace(/\.\d+Z$/, 'Z');
}

function parseTime(s) {
  return s ? Date.parse(s) : NaN;
}

// Built-in kinds this simulation knows: apiVersion+kind -> resource id.
const KIND_RES = {
  'v1/Pod': 'core/pods',
  'v1/Secret': 'core/secrets',
  'v1/ConfigMap': 'core/configmaps',
  'v1/Service': 'core/services',
  'v1/PersistentVolumeClaim': 'core/persistentvolumeclaims',
  'v1/Namespace': 'core/namespaces',
  'v1/ServiceAccount': 'core/serviceaccounts',
  'v1/Event': 'core/events',
  'batch/v1/Job': 'batch/jobs',
  'apps/v1/StatefulSet': 'apps/statefulsets',
  'apps/v1/Deployment': 'apps/deployments',
  'apps/v1/ReplicaSet': 'apps/replicasets',
  'autoscaling/v2/HorizontalPodAutoscaler': 'autoscaling/horizontalpodautoscalers',
  'autoscaling/v1/HorizontalPodAutoscaler': 'autoscaling/horizontalpodautoscalers',
  'storage.k8s.io/v1/StorageClass': 'storage.k8s.io/storageclasses',
  'pgbench.dev/v1alpha1/BenchmarkRun': 'pgbench.dev/benchmarkruns',
};

function groupOf(apiVersion) {
  const i = (apiVersion || '').indexOf('/');
  return i < 0 ? 'core' : apiVersion.slice(0, i);
}

function errCode(e) {
  return e && (e.code || (e.status && e.status.code));
}

function isNotFound(e) {
  return errCode(e) === 404;
}

function isConflict(e) {
  return errCode(e) === 409;
}

// Label selector matching for {matchLabels, matchExpressions}.
function selectorMatches(sel, labels) {
  labels = labels || {};
  if (!sel) return false;
  for (const [k, v] of Object.entries(sel.matchLabels || {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions || []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const vals = e.values || [];
    switch (e.operator) {
      case 'In': if (!has || !vals.includes(labels[e.key])) return false; break;
      case 'NotIn': if (has && vals.includes(labels[e.key])) return false; break;
      case 'Exists': if (!has) return false; break;
      case 'DoesNotExist': if (has) return false; break;
      default: return false;
    }
  }
  return true;
}

function findCondition(conds, type) {
  return (conds || []).find((c) => c.type === type) || null;
}

// Set a condition; lastTransitionTime changes only when status changes.
// Returns true when something changed.
function setCondition(obj, type, status, reason, message, extra) {
  obj.conditions = obj.conditions || [];
  const t = now();
  let c = obj.conditions.find((x) => x.type === type);
  if (!c) {
    c = Object.assign({ type, status, lastTransitionTime: t }, extra || {});
    if (reason !== undefined && reason !== null) c.reason = reason;
    if (message !== undefined && message !== null) c.message = message;
    obj.conditions.push(c);
    return true;
  }
  let changed = false;
  if (c.status !== status) {
    c.status = status;
    c.lastTransitionTime = t;
    changed = true;
  }
  if ((reason || undefined) !== (c.reason || undefined)) {
    if (reason) c.reason = reason;
    else delete c.reason;
    changed = true;
  }
  if ((message || undefined) !== (c.message || undefined)) {
    if (message) c.message = message;
    else delete c.message;
    changed = true;
  }
  if (extra) {
    for (const [k, v] of Object.entries(extra)) {
      if (k === 'lastProbeTime' || k === 'lastUpdateTime') {
        if (changed) c[k] = v;
      } else if (c[k] !== v) {
        c[k] = v;
        changed = true;
      }
    }
  }
  return changed;
}

function deepEqual(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function randomHex(n) {
  return crypto.randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n);
}

// A keyed work queue: keys are deduplicated while waiting; one worker per
// queue, like a controller with one worker goroutine. Failed keys are retried
// with a short backoff.
class WorkQueue {
  constructor(name, handler, log) {
    this.name = name;
    this.handler = handler;
    this.log = log;
    this.pending = new Set();
    this.order = [];
    this.timers = new Map();
    this.running = false;
    this.stopped = false;
    this.failures = new Map();
    this.idleWaiters = [];
  }

  add(key) {
    if (this.stopped) return;
    if (!this.pending.has(key)) {
      this.pending.add(key);
      this.order.push(key);
    }
    this._kick();
  }

  addAfter(key, ms) {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const prev = this.timers.get(key);
    if (prev && prev.at <= Date.now() + ms) return;
    if (prev) clearTimeout(prev.t);
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    t.unref();
    this.timers.set(key, { t, at: Date.now() + ms });
  }

  _kick() {
    if (this.running || this.stopped) return;
    this.running = true;
    setImmediate(() => this._run());
  }

  async _run() {
    while (this.order.length && !this.stopped) {
      const key = this.order.shift();
      this.pending.delete(key);
      try {
        await this.handler(key);
        this.failures.delete(key);
      } catch (e) {
        const n = (this.failures.get(key) || 0) + 1;
        this.failures.set(key, n);
        if (!isConflict(e) && !isNotFound(e) && this.log) {
          this.log(`${this.name}: sync ${key} failed: ${e && e.stack ? e.stack : e}`);
        }
        this.addAfter(key, Math.min(50 * 2 ** Math.min(n, 6), 2000));
      }
    }
    this.running = false;
    if (!this.order.length) {
      const w = this.idleWaiters;
      this.idleWaiters = [];
      w.forEach((f) => f());
    }
  }

  stop() {
    this.stopped = true;
    for (const { t } of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}

// Record a core/v1 Event, best effort (as client-go's recorder: failures are logged, not fatal).
function recordEvent(store, involved, type, reason, message, component) {
  try {
    const md = involved.metadata || {};
    const t = now();
    store.create('core/events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        namespace: md.namespace || 'default',
        name: `${md.name}.${Date.now().toString(16)}${randomHex(4)}`,
      },
      involvedObject: {
        apiVersion: involved.apiVersion,
        kind: involved.kind,
        name: md.name,
        namespace: md.namespace,
        uid: md.uid,
        resourceVersion: md.resourceVersion,
      },
      reason,
      message,
      type,
      source: { component },
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
      reportingComponent: component,
      reportingInstance: '',
    });
  } catch (_) {
    // events are best effort
  }
}

module.exports = {
  now,
  parseTime,
  KIND_RES,
  groupOf,
  isNotFound,
  isConflict,
  selectorMatches,
  findCondition,
  setCondition,
  deepEqual,
  randomHex,
  WorkQueue,
  recordEvent,
};
