'use strict';
// ownerReference garbage collection, StatefulSet status and the HPA (with the scripted scaler).
const test = require('node:test');
const assert = require('node:assert/strict');
const { cluster, waitFor, cond, job, jobPods } = require('../workload/testkit');

const cm = (name, owners) => ({
  apiVersion: 'v1', kind: 'ConfigMap',
  metadata: Object.assign({ name, namespace: 'default' }, owners ? { ownerReferences: owners } : {}),
  data: { k: 'v' },
});
const ref = (o, extra) => Object.assign({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid }, extra || {});

test('GC background: dependents of a deleted owner are deleted; a dependent with another live owner only loses the reference', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  const a = c.store.create('core/configmaps', cm('owner-a'));
  const b = c.store.create('core/configmaps', cm('owner-b'));
  c.store.create('core/configmaps', cm('only-a', [ref(a, { controller: true })]));
  c.store.create('core/configmaps', cm('a-and-b', [ref(a), ref(b)]));
  c.store.delete('core/configmaps', 'default', 'owner-a', { propagationPolicy: 'Background' });
  await waitFor(() => !c.store.get('core/configmaps', 'default', 'only-a'), 'only-a collected');
  const both = await waitFor(() => {
    const x = c.store.get('core/configmaps', 'default', 'a-and-b');
    return x && x.metadata.ownerReferences.length === 1 && x;
  }, 'dangling reference removed');
  assert.equal(both.metadata.ownerReferences[0].uid, b.metadata.uid);
  // A dependent created with an owner uid that does not exist is collected too.
  c.store.create('core/configmaps', cm('dangling', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner-b', uid: '00000000-0000-0000-0000-000000000000' }]));
  await waitFor(() => !c.store.get('core/configmaps', 'default', 'dangling'), 'dangling dependent collected');
  // An owner kind the registry cannot resolve is left alone.
  c.store.create('core/configmaps', cm('unknown-kind', [{ apiVersion: 'example.com/v1', kind: 'Nope', name: 'x', uid: '1' }]));
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(c.store.get('core/configmaps', 'default', 'unknown-kind'));
});

test('GC background: deleting a Job deletes its pods and kills their processes', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('batch/jobs', job('bg', { parallelism: 2, completions: 2 }, { containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'sleep 30'] }] }));
  await waitFor(() => jobPods(c.store, 'default', 'bg').filter((p) => p.status && p.status.phase === 'Running').length === 2, 'two running pods');
  c.store.delete('batch/jobs', 'default', 'bg', { propagationPolicy: 'Background' });
  assert.equal(c.store.get('batch/jobs', 'default', 'bg'), null, 'background: the owner goes first');
  await waitFor(() => jobPods(c.store, 'default', 'bg').length === 0, 'pods collected');
  await waitFor(() => c.wl._kubelet.pods.size === 0, 'kubelet dropped the pods');
});

test('GC foreground: the owner keeps foregroundDeletion + deletionTimestamp until blocking dependents are gone', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('batch/jobs', job('fg', {}, { containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'sleep 30'] }] }));
  const running = await waitFor(() => jobPods(c.store, 'default', 'fg').find((p) => p.status && p.status.phase === 'Running'), 'running pod');
  const seen = [];
  c.store.on('event', (ev) => {
    if (ev.res === 'batch/jobs' && ev.object.metadata.name === 'fg') seen.push({ type: ev.type, fins: ev.object.metadata.finalizers || [], dt: ev.object.metadata.deletionTimestamp, pods: jobPods(c.store, 'default', 'fg').length });
  });
  c.store.delete('batch/jobs', 'default', 'fg', { propagationPolicy: 'Foreground' });
  const j = c.store.get('batch/jobs', 'default', 'fg');
  assert.ok(j, 'owner still present');
  assert.ok(j.metadata.deletionTimestamp);
  assert.deepEqual(j.metadata.finalizers, ['foregroundDeletion']);
  await waitFor(() => !c.store.get('batch/jobs', 'default', 'fg'), 'owner removed after its dependents');
  const del = seen.find((e) => e.type === 'DELETED');
  assert.equal(del.pods, 0, 'no pod left when the owner disappears');
  assert.equal(c.store.get('core/pods', 'default', running.metadata.name), null);
});

test('StatefulSet status follows spec.replicas; HPA script scales the target over time, clamped to min/max', async (t) => {
  const c = cluster({ hpaResyncMs: 100 });
  t.after(() => c.close());
  c.store.create('apps/statefulsets', {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'pg-replicas', namespace: 'default' },
    spec: { replicas: 1, serviceName: 'pg', selector: { matchLabels: { app: 'pg' } }, template: { metadata: { labels: { app: 'pg' } }, spec: { containers: [{ name: 'pg', image: 'postgres' }] } } },
  });
  const sts = await waitFor(() => { const x = c.store.get('apps/statefulsets', 'default', 'pg-replicas'); return x.status && x.status.readyReplicas === 1 && x; }, 'sts status');
  assert.equal(sts.status.replicas, 1);
  assert.equal(sts.status.observedGeneration, 1);
  c.store.create('autoscaling/horizontalpodautoscalers', {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'br-hpa', namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'pg-replicas' }, minReplicas: 1, maxReplicas: 3,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
  });
  const idle = await waitFor(() => { const x = c.store.get('autoscaling/horizontalpodautoscalers', 'default', 'br-hpa'); return cond(x, 'ScalingActive') && x; }, 'HPA status');
  assert.equal(cond(idle, 'ScalingActive').status, 'False');
  assert.equal(cond(idle, 'ScalingActive').reason, 'FailedGetResourceMetric');
  assert.equal(idle.status.currentReplicas, 1);
  assert.equal(idle.status.desiredReplicas, 1);

  const timeline = [];
  c.store.on('event', (ev) => {
    if (ev.res === 'apps/statefulsets' && ev.type === 'MODIFIED' && ev.object.status) {
      const r = ev.object.status.readyReplicas;
      if (timeline[timeline.length - 1] !== r) timeline.push(r);
    }
  });
  const bad = c.wl.handleSim('POST', '/sim/hpa-script', { namespace: 'default', name: 'br-hpa', steps: [{ afterSeconds: -1, replicas: 2 }] });
  assert.equal(bad.code, 400);
  assert.equal(c.wl.handleSim('POST', '/sim/hpa-script', { namespace: 'default', name: 'missing', steps: [] }).code, 404);
  assert.equal(c.wl.handleSim('GET', '/sim/other', null), null);
  const ok = c.wl.handleSim('POST', '/sim/hpa-script', { namespace: 'default', name: 'br-hpa', steps: [{ afterSeconds: 0, replicas: 2 }, { afterSeconds: 0.5, replicas: 5 }, { afterSeconds: 1, replicas: 0 }] });
  assert.equal(ok.code, 200);
  await waitFor(() => timeline.includes(2) && timeline.includes(3) && timeline[timeline.length - 1] === 1, 'replicas 2 -> 3 (max) -> 1 (min)', 5000);
  assert.deepEqual(timeline, [1, 2, 3, 1], "readyReplicas: 1 (spec change seen first), 2, 3 (max), 1 (min)");
  const h = c.store.get('autoscaling/horizontalpodautoscalers', 'default', 'br-hpa');
  assert.equal(h.status.desiredReplicas, 1);
  assert.equal(cond(h, 'ScalingLimited').reason, 'TooFewReplicas');
  assert.equal(cond(h, 'ScalingActive').status, 'True');
  assert.ok(h.status.lastScaleTime);
  assert.equal(c.store.get('apps/statefulsets', 'default', 'pg-replicas').spec.replicas, 1);
  assert.equal(c.wl.handleSim('GET', '/sim/hpa-script', null).body.items.length, 1);
});

test('HPA whose scaleTargetRef does not exist: AbleToScale=False, FailedGetScale', async (t) => {
  const c = cluster({ hpaResyncMs: 100 });
  t.after(() => c.close());
  c.store.create('autoscaling/horizontalpodautoscalers', {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'lost', namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'nope' }, minReplicas: 1, maxReplicas: 2 },
  });
  const h = await waitFor(() => { const x = c.store.get('autoscaling/horizontalpodautoscalers', 'default', 'lost'); return cond(x, 'AbleToScale') && x; }, 'HPA condition');
  const a = cond(h, 'AbleToScale');
  assert.equal(a.status, 'False');
  assert.equal(a.reason, 'FailedGetScale');
  assert.equal(a.message, 'the HPA controller was unable to get the target\'s current scale: statefulsets.apps "nope" not found');
  assert.equal(cond(h, 'ScalingActive').status, 'False');
  assert.equal(cond(h, 'ScalingActive').reason, 'FailedGetScale');
});

test('GC through a custom resource owner: deleting a BenchmarkRun collects its Job, whose pods follow', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('apiextensions.k8s.io/customresourcedefinitions', {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'benchmarkruns.pgbench.dev' },
    spec: { group: 'pgbench.dev', scope: 'Namespaced', names: { plural: 'benchmarkruns', singular: 'benchmarkrun', kind: 'BenchmarkRun' },
      versions: [{ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  });
  const br = c.store.create('pgbench.dev/benchmarkruns', { apiVersion: 'pgbench.dev/v1alpha1', kind: 'BenchmarkRun', metadata: { name: 'br', namespace: 'default' }, spec: {} });
  const j = job('br-run', { completionMode: 'Indexed', completions: 2, parallelism: 2 }, { containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'sleep 30'] }] });
  j.metadata.ownerReferences = [{ apiVersion: 'pgbench.dev/v1alpha1', kind: 'BenchmarkRun', name: 'br', uid: br.metadata.uid, controller: true, blockOwnerDeletion: true }];
  c.store.create('batch/jobs', j);
  await waitFor(() => jobPods(c.store, 'default', 'br-run').filter((p) => p.status && p.status.phase === 'Running').length === 2, 'two running pods');
  c.store.delete('pgbench.dev/benchmarkruns', 'default', 'br', { propagationPolicy: 'Background' });
  await waitFor(() => !c.store.get('batch/jobs', 'default', 'br-run'), 'Job collected');
  await waitFor(() => jobPods(c.store, 'default', 'br-run').length === 0, 'pods collected');
});

test('GC orphan: deleting a Job with Orphan leaves its pods running, without the owner reference', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('batch/jobs', job('orph', {}, { containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'sleep 30'] }] }));
  const p = await waitFor(() => jobPods(c.store, 'default', 'orph').find((x) => x.status && x.status.phase === 'Running'), 'running pod');
  c.store.delete('batch/jobs', 'default', 'orph', { propagationPolicy: 'Orphan' });
  await waitFor(() => !c.store.get('batch/jobs', 'default', 'orph'), 'Job gone');
  await new Promise((r) => setTimeout(r, 200));
  const left = c.store.get('core/pods', 'default', p.metadata.name);
  assert.ok(left, 'pod kept');
  assert.equal(left.metadata.ownerReferences, undefined);
  assert.equal(left.metadata.finalizers, undefined, 'orphan pod loses the job-tracking finalizer (syncOrphanPod)');
  assert.equal(left.status.phase, 'Running');
});

test('deleting a namespace removes its Job and running pods (job-tracking finalizers released) and the namespace', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('core/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  c.store.create('batch/jobs', job('nsjob', { parallelism: 2, completions: 2 }, { containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'sleep 30'] }] }, 'bench'));
  await waitFor(() => jobPods(c.store, 'bench', 'nsjob').filter((p) => p.status && p.status.phase === 'Running').length === 2, 'two running pods');
  c.store.delete('core/namespaces', null, 'bench', {});
  await waitFor(() => !c.store.get('core/namespaces', null, 'bench'), 'namespace removed', 5000);
  assert.equal(c.store.list('core/pods', 'bench').length, 0);
  await waitFor(() => c.wl._kubelet.pods.size === 0, 'kubelet dropped the pods');
});

test('ClusterRole aggregation: built-in view/edit/admin take in labelled roles along the chain, and drop them again', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  const CR = 'rbac.authorization.k8s.io/clusterroles';
  const has = (name, group) => JSON.stringify(c.store.get(CR, null, name).rules || []).includes(group);
  await waitFor(() => has('view', 'batch') && has('edit', 'batch') && has('admin', 'rbac.authorization.k8s.io'), 'bootstrap roles aggregated');
  assert.ok(!has('view', 'rbac.authorization.k8s.io'), 'view does not get admin-only rules');
  const rule = { verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] };
  c.store.create(CR, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
    metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
    rules: [rule],
  });
  await waitFor(() => has('view', 'example.com') && has('edit', 'example.com') && has('admin', 'example.com'), 'view -> edit -> admin');
  const edit = c.store.get(CR, null, 'edit');
  assert.equal(edit.rules.filter((r) => JSON.stringify(r) === JSON.stringify(rule)).length, 1, 'each rule once');
  // hand-written rules of an aggregated role are replaced by the controller
  edit.rules = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
  c.store.update(CR, edit);
  await waitFor(() => !JSON.stringify(c.store.get(CR, null, 'edit').rules).includes('"*"'), 'hand-written rule replaced');
  const w = c.store.get(CR, null, 'widgets-view');
  delete w.metadata.labels;
  c.store.update(CR, w);
  await waitFor(() => !has('view', 'example.com') && !has('admin', 'example.com'), 'unlabelled role left out again');
});
