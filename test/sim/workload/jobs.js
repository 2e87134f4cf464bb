'use strict';
// Job controller (batch/v1), modelled on kubernetes pkg/controller/job as of 1.31+:
// - pods carry the batch.kubernetes.io/job-tracking finalizer; a finished pod is counted in
//   status.succeeded / status.failed, then the finalizer is removed;
// - a pod that is being deleted and did not succeed counts as failed (podReplacementPolicy
//   TerminatingOrFailed, the default), and is replaced at once;
// - finishing goes through the interim SuccessCriteriaMet / FailureTarget conditions; the
//   terminal Complete / Failed condition (same reason and message) is added once no pod of the
//   Job is still running or terminating;
// - Indexed jobs: pods named <job>-<index>-<random>, hostname <job>-<index>, the completion
//   index as annotation and label, JOB_COMPLETION_INDEX from the annotation through fieldRef;
//   status.completedIndexes in the "0-2,4" interval format;
// - pod failure backoff: base * 2^(failures since last success - 1), capped at 10 minutes.
//   The real base is 10s; the simulation defaults to 1s (opts.jobBackoffMs) to keep tests fast.
// - ttlSecondsAfterFinished: the TTL-after-finished controller deletes the Job with Foreground
//   propagation (as upstream) once the TTL after its Complete/Failed condition has passed.

const U = require('./util');

let apiDefaults = null;
try {
  apiDefaults = require('../lib/builtin').defaults;
} catch (_) {
  apiDefaults = null;
}

const TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
const INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
const MAX_BACKOFF_MS = 10 * 60 * 1000;

function jobKey(ns, name) {
  return `${ns}/${name}`;
}

function controllerRef(obj) {
  return ((obj.metadata && obj.metadata.ownerReferences) || []).find((r) => r.controller) || null;
}

function isTerminal(p) {
  const ph = p.status && p.status.phase;
  return ph === 'Succeeded' || ph === 'Failed';
}

function isReady(p) {
  const c = U.findCondition(p.status && p.status.conditions, 'Ready');
  return !!(c && c.status === 'True');
}

function hasTracking(p) {
  return (p.metadata.finalizers || []).includes(TRACKING_FINALIZER);
}

function podIndex(p) {
  const a = (p.metadata.annotations || {})[INDEX_ANNOTATION];
  if (a === undefined || !/^\d+$/.test(a)) return -1;
  return Number(a);
}

// "1,3-5,7" <-> sorted array of ints.
function parseIndexes(s) {
  const out = new Set();
  for (const part of (s || '').split(',').filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) continue;
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    for (let i = a; i <= b; i++) out.add(i);
  }
  return out;
}

function formatIndexes(set) {
  const xs = [...set].sort((a, b) => a - b);
  const parts = [];
  for (let i = 0; i < xs.length;) {
    let j = i;
    while (j + 1 < xs.length && xs[j + 1] === xs[j] + 1) j++;
    parts.push(i === j ? String(xs[i]) : `${xs[i]}-${xs[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

function isFinished(job) {
  const conds = (job.status && job.status.conditions) || [];
  return conds.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

function finishedCondition(job) {
  const conds = (job.status && job.status.conditions) || [];
  return conds.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') || null;
}

// pkg/controller/job/pod_failure_policy.go: the first matching rule decides.
// Returns {countFailed, action, message} (message set for FailJob).
function matchPodFailurePolicy(policy, pod) {
  const st = pod.status || {};
  const ns = pod.metadata.namespace;
  const name = pod.metadata.name;
  const matchExit = (req) => {
    const pick = (list) => (list || []).find((cs) => {
      const t = cs.state && cs.state.terminated;
      if (!t || t.exitCode === 0) return false;
      if (req.containerName && req.containerName !== cs.name) return false;
      const inValues = (req.values || []).includes(t.exitCode);
      return req.operator === 'NotIn' ? !inValues : inValues;
    });
    return pick(st.containerStatuses) || pick(st.initContainerStatuses) || null;
  };
  const rules = policy.rules || [];
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    let message = null;
    if (r.onExitCodes) {
      const cs = matchExit(r.onExitCodes);
      if (!cs) continue;
      message = `Container ${cs.name} for pod ${ns}/${name} failed with exit code ${cs.state.terminated.exitCode} matching ${r.action} rule at index ${i}`;
    } else if (r.onPodConditions) {
      const pc = r.onPodConditions.find((req) => (st.conditions || []).some((c) => c.type === req.type && c.status === (req.status || 'True')));
      if (!pc) continue;
      message = `Pod ${ns}/${name} has condition ${pc.type} matching ${r.action} rule at index ${i}`;
    } else {
      continue;
    }
    switch (r.action) {
      case 'Ignore': return { countFailed: false, action: 'Ignore' };
      case 'FailJob': return { countFailed: true, action: 'FailJob', message };
      case 'Count': return { countFailed: true, action: 'Count' };
      default: continue; // FailIndex needs backoffLimitPerIndex (not modelled)
    }
  }
  return { countFailed: true, action: null };
}

class JobController {
  constructor(ctx) {
    this.store = ctx.store;
    this.log = ctx.log;
    this.backoffBaseMs = ctx.jobBackoffMs;
    this.backoff = new Map(); // job uid -> {failures, last}
    this.startMs = new Map(); // job uid -> {s: status.startTime, ms: precise start}
    this.queue = new U.WorkQueue('job-controller', (k) => this.sync(k), this.log);
    this.orphanQueue = new U.WorkQueue('job-orphans', (k) => this.syncOrphanPod(k), this.log);
  }

  onEvent(ev) {
    const md = ev.object.metadata || {};
    if (ev.res === 'batch/jobs') {
      if (ev.type === 'DELETED') {
        this.backoff.delete(md.uid);
        this.startMs.delete(md.uid);
      }
      this.queue.add(jobKey(md.namespace, md.name));
      return;
    }
    if (ev.res !== 'core/pods') return;
    const ref = controllerRef(ev.object);
    if (ref && ref.kind === 'Job' && U.groupOf(ref.apiVersion) === 'batch') {
      const job = this.store.get('batch/jobs', md.namespace, ref.name);
      if (job && job.metadata.uid === ref.uid) {
        this.queue.add(jobKey(md.namespace, ref.name));
        return;
      }
    }
    if (ev.type !== 'DELETED' && hasTracking(ev.object)) this.orphanQueue.add(jobKey(md.namespace, md.name));
  }

  resync() {
    for (const j of this.store.list('batch/jobs', null)) this.queue.add(jobKey(j.metadata.namespace, j.metadata.name));
    for (const p of this.store.list('core/pods', null)) if (hasTracking(p)) this.orphanQueue.add(jobKey(p.metadata.namespace, p.metadata.name));
  }

  // A pod with the tracking finalizer whose Job is gone: drop the finalizer (syncOrphanPod).
  syncOrphanPod(key) {
    const [ns, name] = key.split('/');
    const pod = this.store.get('core/pods', ns, name);
    if (!pod || !hasTracking(pod)) return;
    const ref = controllerRef(pod);
    if (ref && ref.kind === 'Job') {
      const job = this.store.get('batch/jobs', ns, ref.name);
      if (job && job.metadata.uid === ref.uid && !isFinished(job) && !job.metadata.deletionTimestamp) return;
      if (job && job.metadata.uid === ref.uid) {
        this.queue.add(jobKey(ns, ref.name));
        return;
      }
    }
    this.removeFinalizer(pod);
  }

  removeFinalizer(pod) {
    const p = this.store.get('core/pods', pod.metadata.namespace, pod.metadata.name);
    if (!p || p.metadata.uid !== pod.metadata.uid || !hasTracking(p)) return;
    p.metadata.finalizers = p.metadata.finalizers.filter((f) => f !== TRACKING_FINALIZER);
    if (!p.metadata.finalizers.length) delete p.metadata.finalizers;
    try {
      this.store.update('core/pods', p);
    } catch (e) {
      if (!U.isNotFound(e)) throw e;
    }
  }

  event(job, type, reason, message) {
    U.recordEvent(this.store, Object.assign({ apiVersion: 'batch/v1', kind: 'Job' }, job), type, reason, message, 'job-controller');
  }

  newPod(job, index) {
    const tpl = JSON.parse(JSON.stringify(job.spec.template || {}));
    const tmd = tpl.metadata || {};
    const name = job.metadata.name;
    const uid = job.metadata.uid;
    const labels = Object.assign({}, tmd.labels, {
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': name,
      'controller-uid': uid,
      'job-name': name,
    });
    const annotations = Object.assign({}, tmd.annotations);
    const spec = tpl.spec || {};
    let generateName = `${name}-`;
    if (index >= 0) {
      annotations[INDEX_ANNOTATION] = String(index);
      labels[INDEX_ANNOTATION] = String(index);
      generateName = `${name}-${index}-`;
      if (!spec.hostname) spec.hostname = `${name}-${index}`;
      const envVar = { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${INDEX_ANNOTATION}']` } } };
      for (const c of (spec.containers || []).concat(spec.initContainers || [])) {
        // addCompletionIndexEnvVariable: a variable the template already defines wins.
        c.env = c.env || [];
        if (!c.env.some((e) => e.name === 'JOB_COMPLETION_INDEX')) c.env.push(envVar);
      }
    }
    for (const c of (spec.containers || []).concat(spec.initContainers || [])) {
      if (c.terminationMessagePath === undefined) c.terminationMessagePath = '/dev/termination-log';
      if (c.terminationMessagePolicy === undefined) c.terminationMessagePolicy = 'File';
    }
    if (spec.terminationGracePeriodSeconds === undefined) spec.terminationGracePeriodSeconds = 30;
    const md = {
      generateName,
      namespace: job.metadata.namespace,
      labels,
      finalizers: [TRACKING_FINALIZER],
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name, uid, controller: true, blockOwnerDeletion: true }],
    };
    if (Object.keys(annotations).length) md.annotations = annotations;
    return { apiVersion: 'v1', kind: 'Pod', metadata: md, spec };
  }

  deletePod(job, pod) {
    try {
      // Through the API: graceful, the kubelet finishes the deletion.
      this.store.delete('core/pods', pod.metadata.namespace, pod.metadata.name, { propagationPolicy: 'Background', graceful: true });
      this.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
    } catch (e) {
      if (!U.isNotFound(e)) throw e;
    }
  }

  sync(key) {
    const [ns, name] = key.split('/');
    const job = this.store.get('batch/jobs', ns, name);
    if (!job) return;
    const spec = job.spec || {};
    const uid = job.metadata.uid;
    const owned = (p) => {
      const r = controllerRef(p);
      return r && r.uid === uid;
    };
    const pods = this.store.list('core/pods', ns, { owner: uid, filter: owned });
    const status = JSON.parse(JSON.stringify(job.status || {}));
    const oldStatus = JSON.stringify(job.status || {});

    if (isFinished(job)) {
      for (const p of pods) if (hasTracking(p)) this.removeFinalizer(p);
      this.handleTTL(job);
      return;
    }

    const indexed = spec.completionMode === 'Indexed';
    const parallelism = spec.parallelism === undefined || spec.parallelism === null ? 1 : spec.parallelism;
    let completions = spec.completions;
    if (completions === undefined) completions = spec.parallelism === undefined || spec.parallelism === null ? 1 : null;
    const backoffLimit = spec.backoffLimit === undefined || spec.backoffLimit === null ? 6 : spec.backoffLimit;
    const suspended = !!spec.suspend;
    const nowMs = Date.now();

    // ---- count finished pods that still carry the tracking finalizer
    const toUntrack = [];
    let newSucceeded = 0;
    let newFailed = 0;
    const succeededIdx = parseIndexes(status.completedIndexes);
    const pfp = spec.podFailurePolicy;
    // podReplacementPolicy Failed (the default with a podFailurePolicy): a terminating pod is
    // neither counted as failed nor replaced until it reaches phase Failed.
    const onlyFailed = spec.podReplacementPolicy === 'Failed' || (spec.podReplacementPolicy === undefined && !!pfp);
    let failJobMessage = null;
    for (const p of pods) {
      const ph = p.status && p.status.phase;
      if (indexed && ph === 'Succeeded') {
        const ix = podIndex(p);
        if (ix >= 0 && completions !== null && ix < completions) succeededIdx.add(ix);
      }
      if (!hasTracking(p)) continue;
      if (ph === 'Succeeded') {
        newSucceeded++;
        toUntrack.push(p);
      } else if (ph === 'Failed' || (p.metadata.deletionTimestamp && !pfp && !onlyFailed)) {
        // With a podFailurePolicy only the Failed phase counts (isPodFailed).
        const m = pfp && ph === 'Failed' ? matchPodFailurePolicy(pfp, p) : null;
        if (m && m.message && !failJobMessage) failJobMessage = m.message;
        if (!m || m.countFailed) newFailed++;
        toUntrack.push(p);
      }
    }
    const bo = this.backoff.get(uid) || { failures: 0, last: 0 };
    if (newSucceeded) bo.failures = 0;
    if (newFailed) {
      bo.failures += newFailed;
      bo.last = nowMs;
    }
    this.backoff.set(uid, bo);
    if (indexed) status.succeeded = succeededIdx.size;
    else status.succeeded = (status.succeeded || 0) + newSucceeded;
    status.failed = (status.failed || 0) + newFailed;
    if (indexed) {
      const s = formatIndexes(succeededIdx);
      if (s) status.completedIndexes = s;
      else delete status.completedIndexes;
    }
    if (!status.startTime && !suspended) {
      status.startTime = U.now();
      this.startMs.set(uid, { s: status.startTime, ms: nowMs });
    }

    let active = pods.filter((p) => !isTerminal(p) && !p.metadata.deletionTimestamp);
    const terminatingCount = () => this.store.list('core/pods', ns, {
      owner: uid,
      filter: (p) => owned(p) && p.metadata.deletionTimestamp && !isTerminal(p),
    }).length;

    // ---- finished?
    let finishing = null; // {type: 'FailureTarget'|'SuccessCriteriaMet', reason, message}
    const ft = U.findCondition(status.conditions, 'FailureTarget');
    const scm = U.findCondition(status.conditions, 'SuccessCriteriaMet');
    if (scm && scm.status === 'True') finishing = { type: 'SuccessCriteriaMet', reason: scm.reason, message: scm.message };
    else if (ft && ft.status === 'True') finishing = { type: 'FailureTarget', reason: ft.reason, message: ft.message };
    else if (failJobMessage) finishing = { type: 'FailureTarget', reason: 'PodFailurePolicy', message: failJobMessage };
    else if (status.failed > backoffLimit || this.pastBackoffLimitOnFailure(spec, pods, backoffLimit)) {
      finishing = { type: 'FailureTarget', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    } else if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null && !suspended && status.startTime) {
      // metav1.Time has second precision; use the precise start when this controller set it.
      const sm = this.startMs.get(uid);
      const startMs = sm && sm.s === status.startTime ? sm.ms : U.parseTime(status.startTime);
      const left = startMs + spec.activeDeadlineSeconds * 1000 - nowMs;
      if (left <= 0) finishing = { type: 'FailureTarget', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
      else this.queue.addAfter(key, left + 5);
    }

    const deleting = !!job.metadata.deletionTimestamp;
    let manageErr = null;
    if (!finishing) {
      // ---- manageJob (not while the Job itself is being deleted)
      if (deleting) {
        // keep counting, create nothing
      } else if (suspended) {
        for (const p of active) this.deletePod(job, p);
        active = [];
        if (U.setCondition(status, 'Suspended', 'True', 'JobSuspended', 'Job suspended', { lastProbeTime: U.now() })) {
          this.event(job, 'Normal', 'Suspended', 'Job suspended');
        }
        delete status.startTime;
      } else {
        const sc = U.findCondition(status.conditions, 'Suspended');
        if (sc && sc.status === 'True') {
          U.setCondition(status, 'Suspended', 'False', 'JobResumed', 'Job resumed', { lastProbeTime: U.now() });
          this.event(job, 'Normal', 'Resumed', 'Job resumed');
          status.startTime = U.now();
        }
        const backoffMs = bo.failures > 0 ? Math.min(this.backoffBaseMs * 2 ** (bo.failures - 1), MAX_BACKOFF_MS) : 0;
        const waitMs = bo.failures > 0 ? bo.last + backoffMs - nowMs : 0;
        const terminating = onlyFailed ? pods.filter((p) => p.metadata.deletionTimestamp && !isTerminal(p)) : [];
        try {
          if (indexed) {
            active = this.manageIndexed(job, active, succeededIdx, completions, parallelism, waitMs, key, terminating);
          } else {
            active = this.manageNonIndexed(job, active, status.succeeded, completions, parallelism, waitMs, key, terminating.length);
          }
        } catch (e) {
          // syncJob: a failed pod create (FailedCreate) still lets the status (startTime, so
          // activeDeadlineSeconds counts) be written; the error makes the sync retry with backoff.
          manageErr = e;
          active = this.store.list('core/pods', ns, { owner: uid, filter: (p) => owned(p) && !isTerminal(p) && !p.metadata.deletionTimestamp });
        }
      }
      const done = !deleting && (completions === null ? status.succeeded > 0 && active.length === 0 : status.succeeded >= completions && active.length === 0);
      if (done) finishing = { type: 'SuccessCriteriaMet', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
    }

    if (finishing) {
      // When the Job is finished every non-terminated pod is considered failed.
      for (const p of pods) {
        if (p.metadata.deletionTimestamp && !isTerminal(p) && hasTracking(p) && !toUntrack.includes(p) && finishing.type === 'FailureTarget') {
          status.failed += 1;
          toUntrack.push(p);
        }
      }
      for (const p of active) this.deletePod(job, p);
      if (active.length) {
        // Deleted pods that did not succeed are failures (TerminatingOrFailed).
        for (const p of active) {
          const cur = this.store.get('core/pods', ns, p.metadata.name);
          if (cur && hasTracking(cur) && cur.metadata.uid === p.metadata.uid) {
            status.failed += 1;
            toUntrack.push(cur);
          }
        }
        active = [];
      }
      const t = U.now();
      U.setCondition(status, finishing.type, 'True', finishing.reason, finishing.message, { lastProbeTime: t });
    }

    status.active = active.length;
    status.ready = active.filter(isReady).length;

    // Persist the counters before dropping finalizers, as trackJobStatusAndRemoveFinalizers.
    this.writeStatus(job, status, oldStatus);
    for (const p of toUntrack) this.removeFinalizer(p);

    status.terminating = terminatingCount();
    if (finishing && status.terminating === 0) {
      const t = U.now();
      if (finishing.type === 'SuccessCriteriaMet') {
        U.setCondition(status, 'Complete', 'True', finishing.reason, finishing.message, { lastProbeTime: t });
        status.completionTime = t;
        this.event(job, 'Normal', 'Completed', 'Job completed');
      } else {
        U.setCondition(status, 'Failed', 'True', finishing.reason, finishing.message, { lastProbeTime: t });
        this.event(job, 'Warning', finishing.reason, finishing.message);
      }
    } else if (finishing) {
      this.queue.addAfter(key, 200);
    }
    const cur = this.store.get('batch/jobs', ns, name);
    if (!cur || cur.metadata.uid !== uid) return;
    this.writeStatus(cur, status, JSON.stringify(cur.status || {}));
    if (finishing && status.terminating === 0) this.queue.add(key); // TTL, finalizers
    if (manageErr) throw manageErr;
  }

  // restartPolicy OnFailure: container restarts of running/pending pods count against the limit.
  pastBackoffLimitOnFailure(spec, pods, backoffLimit) {
    if (((spec.template || {}).spec || {}).restartPolicy !== 'OnFailure') return false;
    let restarts = 0;
    for (const p of pods) {
      const ph = p.status && p.status.phase;
      if (ph !== 'Running' && ph !== 'Pending') continue;
      for (const cs of (p.status.initContainerStatuses || []).concat(p.status.containerStatuses || [])) restarts += cs.restartCount || 0;
    }
    return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit;
  }

  writeStatus(job, status, oldJSON) {
    const s = Object.assign({}, status);
    for (const f of ['active', 'succeeded', 'failed']) if (!s[f]) delete s[f];
    if (s.terminating === undefined) s.terminating = 0;
    s.uncountedTerminatedPods = s.uncountedTerminatedPods || {};
    if (JSON.stringify(s) === oldJSON) return;
    const j = this.store.get('batch/jobs', job.metadata.namespace, job.metadata.name);
    if (!j || j.metadata.uid !== job.metadata.uid) return;
    j.status = s;
    this.store.update('batch/jobs', j, { subresource: 'status' });
  }

  canCreate(waitMs, key) {
    if (waitMs > 0) {
      this.queue.addAfter(key, waitMs + 5);
      return false;
    }
    return true;
  }

  create(job, index) {
    const obj = this.newPod(job, index);
    // Pods created by the controller go through the API server's defaulting, as on a cluster.
    if (apiDefaults) {
      try {
        apiDefaults('core/pods', obj, { create: true });
      } catch (_) {
        // defaulting is best effort
      }
    }
    let pod;
    try {
      pod = this.store.create('core/pods', obj);
    } catch (e) {
      // as the real controller: an event, and the sync fails (retried with backoff)
      this.event(job, 'Warning', 'FailedCreate', `Error creating: ${e.message}`);
      throw e;
    }
    this.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
    return pod;
  }

  manageNonIndexed(job, active, succeeded, completions, parallelism, waitMs, key, terminatingCount) {
    let want;
    if (completions === null) want = succeeded > 0 ? 0 : parallelism;
    else want = Math.max(0, Math.min(parallelism, completions - succeeded));
    want = Math.max(0, want - (terminatingCount || 0));
    if (active.length > want) {
      // Prefer removing not-ready, then newest pods.
      const sorted = active.slice().sort((a, b) => (isReady(a) - isReady(b)) || String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)));
      const extra = sorted.slice(0, active.length - want);
      for (const p of extra) this.deletePod(job, p);
      const gone = new Set(extra.map((p) => p.metadata.uid));
      return active.filter((p) => !gone.has(p.metadata.uid));
    }
    if (active.length < want && this.canCreate(waitMs, key)) {
      const out = active.slice();
      for (let i = active.length; i < want; i++) out.push(this.create(job, -1));
      return out;
    }
    return active;
  }

  manageIndexed(job, active, succeededIdx, completions, parallelism, waitMs, key, terminating) {
    const keep = [];
    const held = new Set((terminating || []).map(podIndex));
    for (const p of active) {
      const ix = podIndex(p);
      // Pods with an invalid, out-of-range, already succeeded or duplicate index go away.
      if (ix < 0 || ix >= completions || succeededIdx.has(ix) || held.has(ix)) {
        this.deletePod(job, p);
        continue;
      }
      held.add(ix);
      keep.push(p);
    }
    let room = parallelism - keep.length - (terminating || []).length;
    if (room <= 0) return keep;
    const pending = [];
    for (let i = 0; i < completions && pending.length < room; i++) if (!succeededIdx.has(i) && !held.has(i)) pending.push(i);
    if (!pending.length || !this.canCreate(waitMs, key)) return keep;
    for (const i of pending) {
      keep.push(this.create(job, i));
      room--;
    }
    return keep;
  }

  handleTTL(job) {
    const ttl = job.spec && job.spec.ttlSecondsAfterFinished;
    if (ttl === undefined || ttl === null || job.metadata.deletionTimestamp) return;
    const fc = finishedCondition(job);
    const finishedAt = U.parseTime((fc && fc.lastTransitionTime) || (job.status && job.status.completionTime));
    if (Number.isNaN(finishedAt)) return;
    const left = finishedAt + ttl * 1000 - Date.now();
    const key = jobKey(job.metadata.namespace, job.metadata.name);
    if (left > 0) {
      this.queue.addAfter(key, left + 5);
      return;
    }
    try {
      this.store.delete('batch/jobs', job.metadata.namespace, job.metadata.name, {
        propagationPolicy: 'Foreground',
        preconditions: { uid: job.metadata.uid },
      });
    } catch (e) {
      if (!U.isNotFound(e) && !U.isConflict(e)) throw e;
    }
  }

  stop() {
    this.queue.stop();
    this.orphanQueue.stop();
  }
}

module.exports = { JobController, parseIndexes, formatIndexes, TRACKING_FINALIZER, INDEX_ANNOTATION };
