'use strict';
// StatefulSet / Deployment status (no pods: status.replicas and readyReplicas follow
// spec.replicas at once) and a HorizontalPodAutoscaler (autoscaling/v2) controller.
//
// There is no metrics pipeline. Without a script, the HPA behaves as the real controller does
// when the resource metrics API returns nothing: it enforces minReplicas/maxReplicas on the
// target, and reports ScalingActive=False (FailedGetResourceMetric). A scripted scaler
// (POST /sim/hpa-script {namespace, name, steps: [{afterSeconds, replicas}]}) plays the role of
// the metrics: at each step the desired replica count (clamped to [minReplicas, maxReplicas]) is
// written to the target's spec.replicas and to the HPA status, so that a replica timeline can
// be tested. A missing scaleTargetRef gives AbleToScale=False / FailedGetScale (and
// ScalingActive=False), with the real messages.

const U = require('./util');

const TARGETS = {
  StatefulSet: 'apps/statefulsets',
  Deployment: 'apps/deployments',
  ReplicaSet: 'apps/replicasets',
};

function key(ns, name) {
  return `${ns}/${name}`;
}

class WorkloadStatus {
  constructor(ctx) {
    this.store = ctx.store;
    this.log = ctx.log;
    this.queue = new U.WorkQueue('workload-status', (k) => this.sync(k), this.log);
    // in container mode Deployments run pods (deployments.js) and get their status from them
    this.resources = ctx.containerMode ? ['apps/statefulsets'] : ['apps/statefulsets', 'apps/deployments'];
  }

  onEvent(ev) {
    if (ev.type === 'DELETED') return;
    if (this.resources.includes(ev.res)) {
      this.queue.add(`${ev.res}|${ev.object.metadata.namespace}|${ev.object.metadata.name}`);
    }
  }

  resync() {
    for (const res of this.resources) {
      for (const o of this.store.list(res, null)) this.queue.add(`${res}|${o.metadata.namespace}|${o.metadata.name}`);
    }
  }

  sync(k) {
    const [res, ns, name] = k.split('|');
    const o = this.store.get(res, ns, name);
    if (!o || o.metadata.deletionTimestamp) return;
    const replicas = o.spec && o.spec.replicas !== undefined && o.spec.replicas !== null ? o.spec.replicas : 1;
    const st = JSON.parse(JSON.stringify(o.status || {}));
    st.observedGeneration = o.metadata.generation;
    st.replicas = replicas;
    if (res === 'apps/statefulsets') {
      st.readyReplicas = replicas;
      st.currentReplicas = replicas;
      st.updatedReplicas = replicas;
      st.availableReplicas = replicas;
      const rev = `${name}-${U.randomHex(10)}`;
      st.currentRevision = st.currentRevision || rev;
      st.updateRevision = st.updateRevision || st.currentRevision;
      st.collisionCount = st.collisionCount || 0;
    } else {
      st.readyReplicas = replicas;
      st.updatedReplicas = replicas;
      st.availableReplicas = replicas;
      U.setCondition(st, 'Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', { lastUpdateTime: U.now() });
      U.setCondition(st, 'Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${name}-${(o.metadata.uid || '').replace(/-/g, '').slice(0, 10)}" has successfully progressed.`, { lastUpdateTime: U.now() });
    }
    for (const f of ['readyReplicas', 'availableReplicas', 'updatedReplicas', 'currentReplicas', 'replicas']) if (st[f] === 0) delete st[f];
    if (st.replicas === undefined) st.replicas = 0;
    if (U.deepEqual(st, o.status || {})) return;
    o.status = st;
    this.store.update(res, o, { subresource: 'status' });
  }

  stop() {
    this.queue.stop();
  }
}

class HPAController {
  constructor(ctx) {
    this.store = ctx.store;
    this.log = ctx.log;
    this.queue = new U.WorkQueue('horizontal-pod-autoscaler', (k) => this.sync(k), this.log);
    this.scripts = new Map(); // ns/name -> {uid?, start, steps, timers}
    this.resyncMs = ctx.hpaResyncMs;
    this.timer = setInterval(() => this.resync(), this.resyncMs);
    this.timer.unref();
  }

  onEvent(ev) {
    const md = ev.object.metadata || {};
    if (ev.res === 'autoscaling/horizontalpodautoscalers') {
      if (ev.type === 'DELETED') this.dropScript(key(md.namespace, md.name));
      else this.queue.add(key(md.namespace, md.name));
      return;
    }
    if (Object.values(TARGETS).includes(ev.res)) {
      for (const h of this.store.list('autoscaling/horizontalpodautoscalers', md.namespace)) {
        const ref = (h.spec && h.spec.scaleTargetRef) || {};
        if (ref.name === md.name && TARGETS[ref.kind] === ev.res) this.queue.add(key(md.namespace, h.metadata.name));
      }
    }
  }

  resync() {
    for (const h of this.store.list('autoscaling/horizontalpodautoscalers', null)) this.queue.add(key(h.metadata.namespace, h.metadata.name));
  }

  dropScript(k) {
    const s = this.scripts.get(k);
    if (!s) return;
    s.timers.forEach(clearTimeout);
    this.scripts.delete(k);
  }

  // POST /sim/hpa-script
  setScript(body) {
    if (!body || typeof body !== 'object') return { code: 400, body: { message: 'body must be a JSON object' } };
    const { namespace, name, steps } = body;
    if (!namespace || !name || !Array.isArray(steps)) {
      return { code: 400, body: { message: 'need {namespace, name, steps: [{afterSeconds, replicas}]}' } };
    }
    for (const s of steps) {
      if (typeof s !== 'object' || !(Number(s.afterSeconds) >= 0) || !Number.isInteger(s.replicas) || s.replicas < 0) {
        return { code: 400, body: { message: 'each step needs afterSeconds >= 0 and integer replicas >= 0' } };
      }
    }
    const hpa = this.store.get('autoscaling/horizontalpodautoscalers', namespace, name);
    if (!hpa) {
      return { code: 404, body: { message: `horizontalpodautoscalers.autoscaling "${name}" not found` } };
    }
    const k = key(namespace, name);
    this.dropScript(k);
    const script = { uid: hpa.metadata.uid, start: Date.now(), steps: steps.map((s) => ({ afterSeconds: Number(s.afterSeconds), replicas: s.replicas })), current: null, timers: [] };
    script.steps.sort((a, b) => a.afterSeconds - b.afterSeconds);
    for (const s of script.steps) {
      const t = setTimeout(() => {
        script.current = s.replicas;
        this.queue.add(k);
      }, s.afterSeconds * 1000);
      t.unref();
      script.timers.push(t);
    }
    this.scripts.set(k, script);
    this.queue.add(k);
    return { code: 200, body: { namespace, name, steps: script.steps } };
  }

  listScripts() {
    const out = [];
    for (const [k, s] of this.scripts) {
      const [namespace, name] = k.split('/');
      out.push({ namespace, name, startedAt: new Date(s.start).toISOString(), steps: s.steps, current: s.current });
    }
    return { code: 200, body: { items: out } };
  }

  sync(k) {
    const [ns, name] = k.split('/');
    const hpa = this.store.get('autoscaling/horizontalpodautoscalers', ns, name);
    if (!hpa || hpa.metadata.deletionTimestamp) return;
    const script = this.scripts.get(k);
    if (script && script.uid !== hpa.metadata.uid) this.dropScript(k);
    const spec = hpa.spec || {};
    const ref = spec.scaleTargetRef || {};
    const st = JSON.parse(JSON.stringify(hpa.status || {}));
    const oldJSON = JSON.stringify(hpa.status || {});
    st.conditions = st.conditions || [];
    const res = TARGETS[ref.kind];
    const group = U.groupOf(ref.apiVersion);
    const plural = res ? res.split('/')[1] : `${(ref.kind || '').toLowerCase()}s`;
    const target = res && (group === 'apps') ? this.store.get(res, ns, ref.name) : null;
    if (!target) {
      const gr = group && group !== 'core' ? `${plural}.${group}` : plural;
      const err = res && group === 'apps'
        ? `${gr} "${ref.name}" not found`
        : `no matches for kind "${ref.kind}" in group "${group === 'core' ? '' : group}"`;
      U.setCondition(st, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${err}`);
      U.setCondition(st, 'ScalingActive', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${err}`);
      st.currentReplicas = st.currentReplicas || 0;
      st.desiredReplicas = st.desiredReplicas || 0;
      this.write(hpa, st, oldJSON, 'Warning', 'FailedGetScale', err);
      return;
    }
    const cur = target.spec && target.spec.replicas !== undefined && target.spec.replicas !== null ? target.spec.replicas : 1;
    const min = spec.minReplicas === undefined || spec.minReplicas === null ? 1 : spec.minReplicas;
    const max = spec.maxReplicas;
    st.currentReplicas = (target.status && target.status.replicas) || cur;
    let desired = cur;
    let reason = null;
    if (cur === 0 && min !== 0) {
      U.setCondition(st, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
      st.desiredReplicas = 0;
      this.write(hpa, st, oldJSON);
      return;
    }
    const scripted = script && script.uid === hpa.metadata.uid && script.current !== null;
    if (scripted) {
      desired = script.current;
      // Synthetic metric consistent with the scripted recommendation:
      // desired = ceil(current * utilization / target)  =>  utilization = target * desired / current.
      const m = (spec.metrics || []).find((x) => x.type === 'Resource' && x.resource && x.resource.target && x.resource.target.type === 'Utilization');
      if (m && cur > 0) {
        const target = m.resource.target.averageUtilization || 80;
        st.currentMetrics = [{ type: 'Resource', resource: { name: m.resource.name, current: { averageUtilization: Math.round((target * desired) / cur) } } }];
      }
      U.setCondition(st, 'ScalingActive', 'True', 'ValidMetricFound', 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)');
    } else {
      U.setCondition(st, 'ScalingActive', 'False', 'FailedGetResourceMetric',
        'the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API');
    }
    if (desired > max) {
      desired = max;
      reason = 'TooManyReplicas';
      U.setCondition(st, 'ScalingLimited', 'True', 'TooManyReplicas', 'the desired replica count is more than the maximum replica count');
    } else if (desired < min) {
      desired = min;
      reason = 'TooFewReplicas';
      U.setCondition(st, 'ScalingLimited', 'True', 'TooFewReplicas', 'the desired replica count is less than the minimum replica count');
    } else {
      U.setCondition(st, 'ScalingLimited', 'False', 'DesiredWithinRange', 'the desired count is within the acceptable range');
    }
    st.desiredReplicas = desired;
    if (desired !== cur) {
      const t = this.store.get(res, ns, ref.name);
      t.spec = Object.assign({}, t.spec, { replicas: desired });
      this.store.update(res, t);
      st.lastScaleTime = U.now();
      st.currentReplicas = cur;
      U.setCondition(st, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`);
      const why = scripted ? (reason ? `${reason === 'TooManyReplicas' ? 'above' : 'below'} limit` : 'cpu resource utilization (percentage of request) above target')
        : reason === 'TooManyReplicas' ? 'Current number of replicas above Spec.MaxReplicas' : 'Current number of replicas below Spec.MinReplicas';
      U.recordEvent(this.store, Object.assign({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' }, hpa), 'Normal', 'SuccessfulRescale',
        `New size: ${desired}; reason: ${why}`, 'horizontal-pod-autoscaler');
    } else {
      U.setCondition(st, 'AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size');
    }
    const order = ['AbleToScale', 'ScalingActive', 'ScalingLimited'];
    st.conditions.sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
    if (!st.currentMetrics) delete st.currentMetrics;
    this.write(hpa, st, oldJSON);
  }

  write(hpa, st, oldJSON, evType, evReason, evMsg) {
    if (JSON.stringify(st) === oldJSON) return;
    const h = this.store.get('autoscaling/horizontalpodautoscalers', hpa.metadata.namespace, hpa.metadata.name);
    if (!h) return;
    const wasFailing = U.findCondition((h.status || {}).conditions, 'AbleToScale');
    h.status = st;
    this.store.update('autoscaling/horizontalpodautoscalers', h, { subresource: 'status' });
    if (evReason && !(wasFailing && wasFailing.reason === evReason)) {
      U.recordEvent(this.store, Object.assign({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' }, hpa), evType, evReason, evMsg, 'horizontal-pod-autoscaler');
    }
  }

  stop() {
    clearInterval(this.timer);
    for (const k of [...this.scripts.keys()]) this.dropScript(k);
    this.queue.stop();
  }
}

module.exports = { WorkloadStatus, HPAController };
