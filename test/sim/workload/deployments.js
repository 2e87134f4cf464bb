'use strict';
// Deployment and ReplicaSet controllers, in container mode only (otherwise hpa.js's
// WorkloadStatus reports a Deployment available without pods, which keeps the local-process
// tests fast). Modelled on pkg/controller/deployment and pkg/controller/replicaset:
// - a Deployment owns one ReplicaSet per pod template, `<name>-<pod-template-hash>`, labelled
//   and selecting `pod-template-hash`, annotated with `deployment.kubernetes.io/revision`;
// - the new ReplicaSet is scaled to spec.replicas; older ones to 0 (Recreate: at once;
//   RollingUpdate: once the new one's pods are all available — maxSurge/maxUnavailable are not
//   modelled beyond that);
// - a ReplicaSet creates pods `<rs>-<5 chars>` (through the API's admission, so Pod Security and
//   the service account check apply: a refusal is a FailedCreate event and a retry), deletes
//   surplus or failed ones, and counts ready ones (no minReadySeconds, probes are not run);
// - status and conditions as `kubectl rollout status` and helm's --wait read them
//   (observedGeneration, replicas, updatedReplicas, readyReplicas, availableReplicas,
//   Available/MinimumReplicasAvailable, Progressing/NewReplicaSetAvailable).

const crypto = require('crypto');
const U = require('./util');

let apiDefaults = null;
try {
  apiDefaults = require('../lib/builtin').defaults;
} catch (_) {
  apiDefaults = null;
}

const HASH_LABEL = 'pod-template-hash';
const REVISION = 'deployment.kubernetes.io/revision';
const SAFE = 'bcdfghjklmnpqrstvwxz2456789'; // rand.SafeEncodeString's alphabet
const RETRY_MS = 1000;

function templateHash(tpl) {
  const h = crypto.createHash('sha256').update(JSON.stringify(tpl || {})).digest();
  let s = '';
  for (let i = 0; i < 10; i++) s += SAFE[h[i] % SAFE.length];
  return s;
}

function controllerUid(o) {
  const r = ((o.metadata && o.metadata.ownerReferences) || []).find((x) => x.controller);
  return r ? r.uid : null;
}

function active(p) {
  const ph = p.status && p.status.phase;
  return !p.metadata.deletionTimestamp && ph !== 'Succeeded' && ph !== 'Failed';
}

function ready(p) {
  const c = ((p.status && p.status.conditions) || []).find((x) => x.type === 'Ready');
  return active(p) && !!c && c.status === 'True';
}

class DeploymentController {
  constructor(ctx) {
    this.store = ctx.store;
    this.log = ctx.log;
    this.queue = new U.WorkQueue('deployment', (k) => this.sync(k), this.log);
  }

  onEvent(ev) {
    const o = ev.object;
    const md = o.metadata || {};
    if (ev.res === 'apps/deployments') {
      if (ev.type !== 'DELETED') this.queue.add(`d|${md.namespace}|${md.name}`);
    } else if (ev.res === 'apps/replicasets') {
      if (ev.type !== 'DELETED') this.queue.add(`r|${md.namespace}|${md.name}`);
      this.enqueueOwner(o, 'Deployment', 'd');
    } else if (ev.res === 'core/pods') {
      this.enqueueOwner(o, 'ReplicaSet', 'r');
    }
  }

  enqueueOwner(o, kind, tag) {
    const r = ((o.metadata && o.metadata.ownerReferences) || []).find((x) => x.controller && x.kind === kind);
    if (r) this.queue.add(`${tag}|${o.metadata.namespace}|${r.name}`);
  }

  resync() {
    for (const d of this.store.list('apps/deployments', null)) this.queue.add(`d|${d.metadata.namespace}|${d.metadata.name}`);
    for (const r of this.store.list('apps/replicasets', null)) this.queue.add(`r|${r.metadata.namespace}|${r.metadata.name}`);
  }

  sync(k) {
    const [tag, ns, name] = k.split('|');
    if (tag === 'd') this.syncDeployment(ns, name);
    else this.syncReplicaSet(ns, name);
  }

  event(obj, kind, type, reason, message) {
    U.recordEvent(this.store, Object.assign({ apiVersion: 'apps/v1', kind }, obj), type, reason, message, kind === 'Deployment' ? 'deployment-controller' : 'replicaset-controller');
  }

  owned(res, ns, uid) {
    return this.store.list(res, ns, { filter: (o) => controllerUid(o) === uid });
  }

  // ---------------------------------------------------------------- Deployment
  syncDeployment(ns, name) {
    const d = this.store.get('apps/deployments', ns, name);
    if (!d || d.metadata.deletionTimestamp) return;
    const want = d.spec.replicas === undefined || d.spec.replicas === null ? 1 : d.spec.replicas;
    const hash = templateHash(d.spec.template);
    const rss = this.owned('apps/replicasets', ns, d.metadata.uid);
    let cur = rss.find((r) => ((r.metadata.labels || {})[HASH_LABEL]) === hash);
    const revs = rss.map((r) => Number((r.metadata.annotations || {})[REVISION]) || 0);
    const old = rss.filter((r) => r !== cur);
    const recreate = d.spec.strategy && d.spec.strategy.type === 'Recreate';
    if (!cur) {
      // Recreate: the old pods go first
      if (recreate && old.some((r) => (r.status && r.status.replicas) || r.spec.replicas)) {
        for (const r of old) this.scale(d, r, 0);
        return;
      }
      const tpl = JSON.parse(JSON.stringify(d.spec.template));
      tpl.metadata = tpl.metadata || {};
      tpl.metadata.labels = Object.assign({}, tpl.metadata.labels, { [HASH_LABEL]: hash });
      const sel = JSON.parse(JSON.stringify(d.spec.selector));
      sel.matchLabels = Object.assign({}, sel.matchLabels, { [HASH_LABEL]: hash });
      const rs = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: `${name}-${hash}`,
          namespace: ns,
          labels: Object.assign({}, tpl.metadata.labels),
          annotations: { [REVISION]: String(Math.max(0, ...revs) + 1), 'deployment.kubernetes.io/desired-replicas': String(want) },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: d.metadata.uid, controller: true, blockOwnerDeletion: true }],
        },
        spec: { replicas: want, selector: sel, template: tpl },
      };
      try {
        cur = this.store.create('apps/replicasets', rs);
      } catch (e) {
        this.log(`deployment ${ns}/${name}: creating ReplicaSet: ${e.message}`);
        this.queue.addAfter(`d|${ns}|${name}`, RETRY_MS);
        return;
      }
      this.event(d, 'Deployment', 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${cur.metadata.name} to ${want}`);
    } else if (cur.spec.replicas !== want) {
      this.scale(d, cur, want);
    }
    const curReady = (cur.status && cur.status.availableReplicas) || 0;
    if (recreate || curReady >= want) for (const r of old) this.scale(d, r, 0);
    this.deploymentStatus(d, cur, rss.filter((r) => r !== cur), want);
  }

  scale(d, rs, n) {
    if (rs.spec.replicas === n) return;
    const up = n > (rs.spec.replicas || 0);
    rs.spec.replicas = n;
    try {
      this.store.update('apps/replicasets', rs);
    } catch (e) {
      if (!U.isNotFound(e) && !U.isConflict(e)) throw e;
      this.queue.addAfter(`d|${d.metadata.namespace}|${d.metadata.name}`, RETRY_MS);
      return;
    }
    this.event(d, 'Deployment', 'Normal', 'ScalingReplicaSet', `Scaled ${up ? 'up' : 'down'} replica set ${rs.metadata.name} to ${n}`);
  }

  deploymentStatus(d, cur, old, want) {
    const n = (r, f) => (r.status && r.status[f]) || 0;
    const all = [cur].concat(old);
    const st = JSON.parse(JSON.stringify(d.status || {}));
    st.observedGeneration = d.metadata.generation;
    st.replicas = all.reduce((s, r) => s + n(r, 'replicas'), 0);
    st.updatedReplicas = n(cur, 'replicas');
    st.readyReplicas = all.reduce((s, r) => s + n(r, 'readyReplicas'), 0);
    st.availableReplicas = all.reduce((s, r) => s + n(r, 'availableReplicas'), 0);
    st.unavailableReplicas = Math.max(0, want - st.availableReplicas);
    const t = { lastUpdateTime: U.now() };
    if (st.availableReplicas >= want) U.setCondition(st, 'Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', t);
    else U.setCondition(st, 'Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', t);
    const complete = st.updatedReplicas === want && st.replicas === want && st.availableReplicas >= want;
    if (complete) U.setCondition(st, 'Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${cur.metadata.name}" has successfully progressed.`, t);
    else U.setCondition(st, 'Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "${cur.metadata.name}" is progressing.`, t);
    for (const f of ['readyReplicas', 'availableReplicas', 'updatedReplicas', 'unavailableReplicas', 'replicas']) if (st[f] === 0) delete st[f];
    const same = (a, b) => U.deepEqual(Object.assign({}, a, { conditions: (a.conditions || []).map((c) => [c.type, c.status, c.reason]) }),
      Object.assign({}, b, { conditions: (b.conditions || []).map((c) => [c.type, c.status, c.reason]) }));
    if (same(st, d.status || {})) return;
    d.status = st;
    try {
      this.store.update('apps/deployments', d, { subresource: 'status' });
    } catch (e) {
      if (!U.isNotFound(e) && !U.isConflict(e)) throw e;
    }
    const rev = (cur.metadata.annotations || {})[REVISION];
    if (rev && (d.metadata.annotations || {})[REVISION] !== rev) {
      const fresh = this.store.get('apps/deployments', d.metadata.namespace, d.metadata.name);
      if (!fresh) return;
      fresh.metadata.annotations = Object.assign({}, fresh.metadata.annotations, { [REVISION]: rev });
      try {
        this.store.update('apps/deployments', fresh);
      } catch (e) {
        if (!U.isNotFound(e) && !U.isConflict(e)) throw e;
      }
    }
  }

  // ---------------------------------------------------------------- ReplicaSet
  syncReplicaSet(ns, name) {
    const rs = this.store.get('apps/replicasets', ns, name);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const want = rs.spec.replicas === undefined || rs.spec.replicas === null ? 1 : rs.spec.replicas;
    const pods = this.owned('core/pods', ns, rs.metadata.uid);
    for (const p of pods) {
      if (p.status && p.status.phase === 'Failed' && !p.metadata.deletionTimestamp) this.deletePod(rs, p);
    }
    const live = pods.filter(active);
    for (let i = live.length; i < want; i++) {
      if (!this.createPod(rs)) {
        this.queue.addAfter(`r|${ns}|${name}`, RETRY_MS);
        break;
      }
    }
    // surplus: not-ready pods first, then the newest
    const surplus = live.slice().sort((a, b) => Number(ready(a)) - Number(ready(b)) || (b.metadata.creationTimestamp || '').localeCompare(a.metadata.creationTimestamp || ''));
    for (let i = 0; i < live.length - want; i++) this.deletePod(rs, surplus[i]);
    const now = this.owned('core/pods', ns, rs.metadata.uid).filter(active);
    const st = {
      replicas: now.length,
      fullyLabeledReplicas: now.length,
      readyReplicas: now.filter(ready).length,
      availableReplicas: now.filter(ready).length,
      observedGeneration: rs.metadata.generation,
    };
    for (const f of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) if (st[f] === 0) delete st[f];
    if (U.deepEqual(st, rs.status || {})) return;
    rs.status = st;
    try {
      this.store.update('apps/replicasets', rs, { subresource: 'status' });
    } catch (e) {
      if (!U.isNotFound(e) && !U.isConflict(e)) throw e;
    }
  }

  createPod(rs) {
    const tpl = JSON.parse(JSON.stringify(rs.spec.template || {}));
    const tmd = tpl.metadata || {};
    const md = {
      generateName: `${rs.metadata.name}-`,
      namespace: rs.metadata.namespace,
      labels: Object.assign({}, tmd.labels),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }],
    };
    if (tmd.annotations) md.annotations = tmd.annotations;
    const obj = { apiVersion: 'v1', kind: 'Pod', metadata: md, spec: tpl.spec || {} };
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
      this.event(rs, 'ReplicaSet', 'Warning', 'FailedCreate', `Error creating: ${e.message}`);
      return null;
    }
    this.event(rs, 'ReplicaSet', 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
    return pod;
  }

  deletePod(rs, pod) {
    try {
      this.store.delete('core/pods', pod.metadata.namespace, pod.metadata.name, { propagationPolicy: 'Background', graceful: true });
      this.event(rs, 'ReplicaSet', 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
    } catch (e) {
      if (!U.isNotFound(e)) throw e;
    }
  }

  stop() {
    this.queue.stop();
  }
}

module.exports = { DeploymentController, templateHash };
