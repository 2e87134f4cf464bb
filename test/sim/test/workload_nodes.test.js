'use strict';
// Simulated nodes and scheduler (workload/scheduler.js): Node objects, nodeName, nodeSelector,
// taints and cordons, topologySpreadConstraints and preferred pod affinity, as kube-scheduler.
const test = require('node:test');
const assert = require('node:assert/strict');
const { cluster, waitFor, cond, pod } = require('../workload/testkit');
const S = require('../workload/scheduler');
const { validate } = require('../lib/builtin');

// The API server's causes for a pod with this spec, as "field: message".
const builtinCauses = (extra) => validate('core/pods', pod('v', ...sleeper(extra))).map((x) => `${x.field}: ${x.message}`);

const sleeper = (extra = {}, labels = { app: 'w' }) => [{ containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'sleep 30'] }], ...extra }, 'default', { labels }];
const getPod = (c, name) => c.store.get('core/pods', 'default', name);
const bound = (c, name) => waitFor(() => { const p = getPod(c, name); return p && p.spec.nodeName && p; }, `${name} bound`);
const spread = (when, maxSkew = 1) => ({ topologySpreadConstraints: [{ maxSkew, topologyKey: S.HOSTNAME, whenUnsatisfiable: when, labelSelector: { matchLabels: { app: 'w' } } }] });
const unschedulable = (c, name) => waitFor(() => {
  const p = getPod(c, name);
  const sc = cond(p, 'PodScheduled');
  return sc && sc.status === 'False' && sc.reason === 'Unschedulable' && sc;
}, `${name} unschedulable`);

test('one node by default: sim-node, Ready, labelled; pods report nodeName and hostIP 127.0.0.1', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  const nodes = c.store.list('core/nodes', null);
  assert.deepEqual(nodes.map((n) => n.metadata.name), ['sim-node']);
  assert.equal(nodes[0].metadata.labels[S.HOSTNAME], 'sim-node');
  assert.equal(cond(nodes[0], 'Ready').status, 'True');
  c.store.create('core/pods', pod('p', ...sleeper()));
  const p = await waitFor(() => { const x = getPod(c, 'p'); return x && x.status && x.status.hostIP && x; }, 'hostIP');
  assert.equal(p.spec.nodeName, 'sim-node');
  assert.equal(p.status.hostIP, '127.0.0.1');
});

test('SIM_NODES=4: four nodes with their own addresses; a bad count names SIM_NODES', async (t) => {
  const c = cluster({ nodes: 4 });
  t.after(() => c.close());
  const nodes = c.store.list('core/nodes', null).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  assert.deepEqual(nodes.map((n) => n.metadata.name), ['sim-node-1', 'sim-node-2', 'sim-node-3', 'sim-node-4']);
  assert.deepEqual(nodes.map((n) => S.nodeIP(n)), ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']);
  assert.throws(() => S.nodeCount('zero'), /SIM_NODES \(nodes\) "zero": want a whole number of nodes from 1 to 64/);
  assert.throws(() => S.nodeCount('0'), /SIM_NODES/);
});

test('nodeName: the scheduler is bypassed; a pod for an unknown node stays Pending and unbound', async (t) => {
  const c = cluster({ nodes: 3 });
  t.after(() => c.close());
  c.store.create('core/pods', pod('fixed', ...sleeper({ nodeName: 'sim-node-3' })));
  const p = await waitFor(() => { const x = getPod(c, 'fixed'); return x && x.status && x.status.hostIP && x; }, 'fixed running');
  assert.equal(p.spec.nodeName, 'sim-node-3');
  assert.equal(p.status.hostIP, '127.0.0.4');
  c.store.create('core/pods', pod('ghost', ...sleeper({ nodeName: 'elsewhere' })));
  await new Promise((r) => setTimeout(r, 200));
  const g = getPod(c, 'ghost');
  assert.ok(!g.status || !g.status.hostIP, 'no kubelet runs it');
  assert.equal(cond(g, 'PodScheduled'), null, 'no scheduler decision for a pod with nodeName');
});

test('nodeSelector and required node affinity filter nodes; no match is the scheduler message', async (t) => {
  const c = cluster({ nodes: 3 });
  t.after(() => c.close());
  const n2 = c.store.get('core/nodes', null, 'sim-node-2');
  n2.metadata.labels.disk = 'nvme';
  c.store.update('core/nodes', n2);
  for (let i = 0; i < 4; i++) c.store.create('core/pods', pod(`sel-${i}`, ...sleeper({ nodeSelector: { disk: 'nvme' } })));
  for (let i = 0; i < 4; i++) assert.equal((await bound(c, `sel-${i}`)).spec.nodeName, 'sim-node-2');
  c.store.create('core/pods', pod('aff', ...sleeper({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: S.HOSTNAME, operator: 'NotIn', values: ['sim-node-1', 'sim-node-2'] }] }] } } } })));
  assert.equal((await bound(c, 'aff')).spec.nodeName, 'sim-node-3');
  c.store.create('core/pods', pod('none', ...sleeper({ nodeSelector: { disk: 'tape' } })));
  const sc = await unschedulable(c, 'none');
  assert.equal(sc.message, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
});

test('cordoned, tainted and NotReady nodes take no pods; uncordoning schedules the waiting pod', async (t) => {
  const c = cluster({ nodes: 3 });
  t.after(() => c.close());
  const edit = (name, fn) => { const n = c.store.get('core/nodes', null, name); fn(n); c.store.update('core/nodes', n); };
  edit('sim-node-1', (n) => { n.spec.unschedulable = true; });
  edit('sim-node-2', (n) => { n.spec.taints = [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]; });
  const n3 = c.store.get('core/nodes', null, 'sim-node-3');
  cond(n3, 'Ready').status = 'False';
  c.store.update('core/nodes', n3, { subresource: 'status' });
  c.store.create('core/pods', pod('wait', ...sleeper()));
  const sc = await unschedulable(c, 'wait');
  assert.equal(sc.message, "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
  c.store.create('core/pods', pod('tol', ...sleeper({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }] })));
  assert.equal((await bound(c, 'tol')).spec.nodeName, 'sim-node-2');
  edit('sim-node-1', (n) => { delete n.spec.unschedulable; });
  assert.equal((await bound(c, 'wait')).spec.nodeName, 'sim-node-1');
});

test('topologySpreadConstraints ScheduleAnyway, maxSkew 1: 4 pods on 4 nodes, one each; 8 pods two each', async (t) => {
  const c = cluster({ nodes: 4 });
  t.after(() => c.close());
  for (let i = 0; i < 8; i++) c.store.create('core/pods', pod(`s-${i}`, ...sleeper(spread('ScheduleAnyway'))));
  const per = new Map();
  for (let i = 0; i < 8; i++) {
    const n = (await bound(c, `s-${i}`)).spec.nodeName;
    per.set(n, (per.get(n) || 0) + 1);
    if (i === 3) assert.equal(per.size, 4, 'the first four pods went to four nodes');
  }
  assert.deepEqual([...per.values()], [2, 2, 2, 2]);
});

test('DoNotSchedule: a pod that would exceed maxSkew waits (the scheduler message), and goes once allowed', async (t) => {
  const c = cluster({ nodes: 2 });
  t.after(() => c.close());
  const edit = (name, fn) => { const n = c.store.get('core/nodes', null, name); fn(n); c.store.update('core/nodes', n); };
  edit('sim-node-2', (n) => { n.spec.unschedulable = true; });
  c.store.create('core/pods', pod('d-0', ...sleeper(spread('DoNotSchedule'))));
  assert.equal((await bound(c, 'd-0')).spec.nodeName, 'sim-node-1');
  // node 2 is cordoned but still a domain of the constraint (its count is 0): a second pod on
  // node 1 would make the skew 2
  c.store.create('core/pods', pod('d-1', ...sleeper(spread('DoNotSchedule'))));
  const sc = await unschedulable(c, 'd-1');
  assert.equal(sc.message, "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
  edit('sim-node-2', (n) => { delete n.spec.unschedulable; });
  assert.equal((await bound(c, 'd-1')).spec.nodeName, 'sim-node-2');
  // a pod the selector does not match is not held by the constraint of the others
  c.store.create('core/pods', pod('other', ...sleeper({}, { app: 'x' })));
  await bound(c, 'other');
});

test('DoNotSchedule: a node without the topology key is refused', () => {
  const nodes = [S.nodeObject('a', 0, 2), S.nodeObject('b', 1, 2)];
  delete nodes[1].metadata.labels[S.HOSTNAME];
  const p = { metadata: { name: 'p', namespace: 'default', labels: { app: 'w' } }, spec: spread('DoNotSchedule') };
  assert.equal(S.filterNode(p, nodes[1], nodes, []), "node(s) didn't match pod topology spread constraints (missing required label)");
  assert.equal(S.filterNode(p, nodes[0], nodes, []), null);
  assert.equal(S.place(p, nodes, []).node.metadata.name, 'a');
});

test('preferred pod affinity on the pods themselves packs them on one node', async (t) => {
  const c = cluster({ nodes: 4 });
  t.after(() => c.close());
  const pack = { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: S.HOSTNAME, labelSelector: { matchLabels: { app: 'w' } } } }] } } };
  const nodes = new Set();
  for (let i = 0; i < 4; i++) {
    c.store.create('core/pods', pod(`k-${i}`, ...sleeper(pack)));
    nodes.add((await bound(c, `k-${i}`)).spec.nodeName);
  }
  assert.equal(nodes.size, 1);
});

test('pod validation: topologySpreadConstraints as the API server checks them', () => {
  const causes = builtinCauses({ topologySpreadConstraints: [
    { maxSkew: 0, topologyKey: S.HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 },
    { maxSkew: 1, topologyKey: '', whenUnsatisfiable: 'Sometimes' },
    { maxSkew: 1, topologyKey: S.HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway' },
  ] });
  assert.deepEqual(causes.sort(), [
    'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
    'spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway',
    'spec.topologySpreadConstraints[1].topologyKey: Required value: can not be empty',
    'spec.topologySpreadConstraints[1].whenUnsatisfiable: Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"',
    'spec.topologySpreadConstraints[2]: Duplicate value: "{kubernetes.io/hostname, ScheduleAnyway}"',
  ]);
});
