'use strict';
// API server double vs documented kube-apiserver behaviour: auth, discovery, CRUD semantics,
// selectors, pagination. Each test names the real behaviour it pins down.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startServer } = require('../lib/testkit');

let api;
test.before(async () => {
  api = await startServer();
});
test.after(() => api.close());

const CM = '/api/v1/namespaces/default/configmaps';
const cm = (name, data = { a: '1' }, labels) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });

test('requests without a valid bearer token get 401 with an Unauthorized Status', async () => {
  // Real: anonymous auth disabled -> 401, body metav1.Status{reason: Unauthorized, code: 401}.
  for (const token of [null, 'wrong']) {
    const r = await api.get('/api/v1/namespaces', { token });
    assert.equal(r.status, 401);
    assert.equal(r.body.kind, 'Status');
    assert.equal(r.body.reason, 'Unauthorized');
    assert.equal(r.body.code, 401);
  }
});

test('discovery: /version, /api, /apis and group-version resource lists with subresources', async () => {
  const v = await api.get('/version');
  assert.equal(v.status, 200);
  assert.match(v.body.gitVersion, /^v1\.\d+/);
  const a = await api.get('/api');
  assert.deepEqual(a.body.versions, ['v1']);
  assert.equal(a.body.kind, 'APIVersions');
  // Real (1.30+): aggregated discovery when the client asks for it, legacy otherwise.
  const agg = await api.get('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' });
  assert.equal(agg.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  assert.equal(agg.body.kind, 'APIGroupDiscoveryList');
  assert.equal(agg.body.apiVersion, 'apidiscovery.k8s.io/v2');
  const batch = agg.body.items.find((i) => i.metadata.name === 'batch');
  const jobs = batch.versions[0].resources.find((r) => r.resource === 'jobs');
  assert.deepEqual(jobs.responseKind, { group: 'batch', version: 'v1', kind: 'Job' });
  assert.equal(jobs.scope, 'Namespaced');
  assert.deepEqual(jobs.subresources.map((x) => x.subresource), ['status']);
  const core = await api.get('/api', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json' });
  assert.equal(core.body.apiVersion, 'apidiscovery.k8s.io/v2beta1');
  assert.equal(core.body.items[0].versions[0].version, 'v1');
  const apis = await api.get('/apis', { accept: 'application/json, */*' });
  assert.equal(apis.headers['content-type'], 'application/json');
  assert.equal(apis.body.kind, 'APIGroupList');
  const names = apis.body.groups.map((g) => g.name);
  for (const g of ['batch', 'apps', 'autoscaling', 'coordination.k8s.io', 'events.k8s.io', 'rbac.authorization.k8s.io', 'storage.k8s.io', 'apiextensions.k8s.io']) {
    assert.ok(names.includes(g), g);
  }
  const v1 = await api.get('/api/v1');
  const res = Object.fromEntries(v1.body.resources.map((r) => [r.name, r]));
  assert.equal(v1.body.groupVersion, 'v1');
  assert.equal(res.pods.kind, 'Pod');
  assert.ok(res.pods.verbs.includes('watch'));
  assert.deepEqual(res['pods/log'].verbs, ['get']);
  assert.deepEqual(res['pods/status'].verbs, ['get', 'patch', 'update']);
  assert.equal(res.namespaces.namespaced, false);
  const apps = await api.get('/apis/apps/v1');
  const scale = apps.body.resources.find((r) => r.name === 'statefulsets/scale');
  // Real: the scale subresource is autoscaling/v1 Scale.
  assert.equal(scale.group, 'autoscaling');
  assert.equal(scale.version, 'v1');
  assert.equal(scale.kind, 'Scale');
  const hpa = await api.get('/apis/autoscaling');
  assert.equal(hpa.body.preferredVersion.version, 'v2');
  assert.equal((await api.get('/apis/nope.example.com/v1')).status, 404);
});

test('openapi v3 advertises fieldValidation on PATCH so kubectl validates server-side', async () => {
  const root = await api.get('/openapi/v3');
  assert.ok(root.body.paths['apis/batch/v1'].serverRelativeURL.startsWith('/openapi/v3/apis/batch/v1?hash='));
  const doc = await api.get(root.body.paths['apis/batch/v1'].serverRelativeURL);
  const p = doc.body.paths['/apis/batch/v1/namespaces/{namespace}/jobs/{name}'].patch;
  assert.deepEqual(p['x-kubernetes-group-version-kind'], { group: 'batch', version: 'v1', kind: 'Job' });
  assert.ok(p.parameters.some((x) => x.name === 'fieldValidation' && x.in === 'query'));
  // openapi v2 is served as (minimal) protobuf, with the content type Go's mime parser accepts.
  const v2 = await api.get('/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
  assert.equal(v2.status, 200);
  assert.equal(v2.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
});

test('create/get/update: 201, AlreadyExists 409, NotFound 404, Conflict 409 on a stale resourceVersion', async () => {
  const c = await api.post(CM, cm('crud'));
  assert.equal(c.status, 201);
  assert.ok(c.body.metadata.uid);
  assert.match(c.body.metadata.resourceVersion, /^\d+$/);
  assert.match(c.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(c.body.metadata.generation, undefined, 'configmaps have no generation');
  const dup = await api.post(CM, cm('crud'));
  assert.equal(dup.status, 409);
  assert.equal(dup.body.reason, 'AlreadyExists');
  assert.equal(dup.body.message, 'configmaps "crud" already exists');
  assert.deepEqual(dup.body.details, { name: 'crud', group: '', kind: 'configmaps' });
  const nf = await api.get(`${CM}/nope`);
  assert.equal(nf.status, 404);
  assert.equal(nf.body.reason, 'NotFound');
  assert.equal(nf.body.message, 'configmaps "nope" not found');
  const jnf = await api.get('/apis/batch/v1/namespaces/default/jobs/nope');
  assert.equal(jnf.body.message, 'jobs.batch "nope" not found');

  const upd = structuredClone(c.body);
  upd.data.a = '2';
  const u = await api.put(`${CM}/crud`, upd);
  assert.equal(u.status, 200);
  assert.ok(Number(u.body.metadata.resourceVersion) > Number(c.body.metadata.resourceVersion));
  const stale = await api.put(`${CM}/crud`, upd); // still carries the old resourceVersion
  assert.equal(stale.status, 409);
  assert.equal(stale.body.reason, 'Conflict');
  assert.equal(stale.body.message, 'Operation cannot be fulfilled on configmaps "crud": the object has been modified; please apply your changes to the latest version and try again');
  // Real: a no-op update does not bump the resourceVersion.
  const same = await api.put(`${CM}/crud`, u.body);
  assert.equal(same.body.metadata.resourceVersion, u.body.metadata.resourceVersion);
  // Real: name in body and URL must agree.
  const bad = await api.put(`${CM}/other`, u.body);
  assert.equal(bad.status, 400);
});

test('generateName, global monotonic resourceVersion, missing namespace 404', async () => {
  const a = await api.post(CM, { metadata: { generateName: 'gen-' }, data: {} });
  assert.equal(a.status, 201);
  assert.match(a.body.metadata.name, /^gen-[a-z0-9]{5}$/);
  const b = await api.post('/api/v1/namespaces/default/secrets', { metadata: { name: 's1' }, stringData: { k: 'v' } });
  assert.ok(Number(b.body.metadata.resourceVersion) > Number(a.body.metadata.resourceVersion), 'one counter for every kind');
  // Real: stringData is write-only and merged into data.
  assert.equal(b.body.data.k, Buffer.from('v').toString('base64'));
  assert.equal(b.body.stringData, undefined);
  assert.equal(b.body.type, 'Opaque');
  const noName = await api.post(CM, { metadata: {}, data: {} });
  assert.equal(noName.status, 422);
  assert.equal(noName.body.details.causes[0].field, 'metadata.name');
  const noNs = await api.post('/api/v1/namespaces/absent/configmaps', cm('x'));
  assert.equal(noNs.status, 404);
  assert.equal(noNs.body.message, 'namespaces "absent" not found');
});

test('label selectors: =, ==, !=, in, notin, exists, !key; bad syntax 400', async () => {
  await api.post(CM, cm('l1', {}, { app: 'a', tier: 'web' }));
  await api.post(CM, cm('l2', {}, { app: 'b', tier: 'db' }));
  await api.post(CM, cm('l3', {}, { app: 'c' }));
  const names = async (sel) => (await api.get(`${CM}?labelSelector=${encodeURIComponent(sel)}`)).body.items.map((i) => i.metadata.name).filter((n) => /^l\d$/.test(n));
  assert.deepEqual(await names('app=a'), ['l1']);
  assert.deepEqual(await names('app==b'), ['l2']);
  assert.deepEqual(await names('app!=a,app'), ['l2', 'l3']);
  assert.deepEqual(await names('app in (a,c)'), ['l1', 'l3']);
  assert.deepEqual(await names('app notin (a),app'), ['l2', 'l3']);
  assert.deepEqual(await names('tier'), ['l1', 'l2']);
  assert.deepEqual(await names('app,!tier'), ['l3']);
  const bad = await api.get(`${CM}?labelSelector=${encodeURIComponent('app in a')}`);
  assert.equal(bad.status, 400);
});

test('field selectors: metadata.name/namespace everywhere, status.phase on pods, others 400', async () => {
  const r = await api.get(`${CM}?fieldSelector=metadata.name%3Dl2`);
  assert.deepEqual(r.body.items.map((i) => i.metadata.name), ['l2']);
  const r2 = await api.get(`/api/v1/configmaps?fieldSelector=metadata.namespace%3Ddefault,metadata.name!%3Dl2`);
  assert.ok(r2.body.items.length >= 2 && !r2.body.items.some((i) => i.metadata.name === 'l2'));
  await api.post('/api/v1/namespaces/default/pods', { metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  const pods = await api.get('/api/v1/namespaces/default/pods?fieldSelector=status.phase%3DPending');
  assert.deepEqual(pods.body.items.map((i) => i.metadata.name), ['p1'], 'a new pod is Pending');
  const none = await api.get('/api/v1/namespaces/default/pods?fieldSelector=status.phase%3DRunning');
  assert.equal(none.body.items.length, 0);
  const bad = await api.get(`${CM}?fieldSelector=data.a%3D1`);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.message, 'field label not supported: data.a');
});

test('lists: kind XList, items without apiVersion/kind for built-ins, limit/continue pagination', async () => {
  for (let i = 0; i < 5; i++) await api.post('/api/v1/namespaces/default/serviceaccounts', { metadata: { name: `sa${i}` } });
  const p1 = await api.get('/api/v1/namespaces/default/serviceaccounts?limit=2');
  assert.equal(p1.body.kind, 'ServiceAccountList');
  assert.equal(p1.body.apiVersion, 'v1');
  assert.equal(p1.body.items.length, 2);
  assert.equal(p1.body.items[0].kind, undefined);
  assert.equal(p1.body.items[0].metadata.name, 'default', 'the ServiceAccount controller made one per namespace');
  assert.ok(p1.body.metadata.continue);
  assert.equal(p1.body.metadata.remainingItemCount, 4, 'the namespace\'s default account + sa0..sa4');
  const seen = p1.body.items.map((i) => i.metadata.name);
  let cont = p1.body.metadata.continue;
  while (cont) {
    const p = await api.get(`/api/v1/namespaces/default/serviceaccounts?limit=2&continue=${encodeURIComponent(cont)}`);
    assert.equal(p.status, 200);
    seen.push(...p.body.items.map((i) => i.metadata.name));
    cont = p.body.metadata.continue;
  }
  assert.deepEqual(seen, ['default', 'sa0', 'sa1', 'sa2', 'sa3', 'sa4']);
  const garbage = await api.get('/api/v1/namespaces/default/serviceaccounts?limit=2&continue=%%%');
  assert.equal(garbage.status, 400);
});

test('cluster-scoped vs namespaced paths; unknown resources 404', async () => {
  assert.equal((await api.get('/api/v1/namespaces/default')).body.kind, 'Namespace');
  assert.equal((await api.get('/api/v1/namespaces/default/namespaces')).status, 404);
  assert.equal((await api.get('/api/v1/widgets')).status, 404);
  const all = await api.get('/api/v1/configmaps');
  assert.equal(all.status, 200);
  assert.equal(all.body.kind, 'ConfigMapList');
});

test('dryRun=All validates and returns the object without persisting it', async () => {
  const r = await api.post(`${CM}?dryRun=All`, cm('dry'));
  assert.equal(r.status, 201);
  assert.equal(r.body.metadata.name, 'dry');
  assert.equal((await api.get(`${CM}/dry`)).status, 404);
  const bad = await api.post(`${CM}?dryRun=Some`, cm('dry'));
  assert.equal(bad.status, 422);
});

test('finalizers: DELETE sets deletionTimestamp and keeps the object until finalizers are removed', async () => {
  await api.post(CM, { metadata: { name: 'fin', finalizers: ['sim.pgbench.dev/hold'] }, data: {} });
  const d = await api.del(`${CM}/fin`);
  assert.equal(d.status, 200);
  assert.ok(d.body.metadata.deletionTimestamp);
  const g = await api.get(`${CM}/fin`);
  assert.ok(g.body.metadata.deletionTimestamp);
  // Real: finalizers may be removed, not added, once deletionTimestamp is set; the update
  // that empties them deletes the object.
  g.body.metadata.finalizers = [];
  const u = await api.put(`${CM}/fin`, g.body);
  assert.equal(u.status, 200);
  assert.equal((await api.get(`${CM}/fin`)).status, 404);
  // Immediate deletion of a built-in without finalizers returns a Success Status.
  await api.post(CM, cm('gone'));
  const d2 = await api.del(`${CM}/gone`);
  assert.equal(d2.body.kind, 'Status');
  assert.equal(d2.body.status, 'Success');
  assert.equal((await api.del(`${CM}/gone`)).status, 404);
  // Preconditions.
  const c = await api.post(CM, cm('pre'));
  const pd = await api.del(`${CM}/pre`, { body: { preconditions: { uid: 'not-the-uid' } } });
  assert.equal(pd.status, 409);
  assert.match(pd.body.message, /Precondition failed: UID in precondition: not-the-uid/);
  assert.equal((await api.del(`${CM}/pre`, { body: { preconditions: { uid: c.body.metadata.uid } } })).status, 200);
});

test('namespaces: Terminating, content deleted, then the namespace; no new content while terminating', async () => {
  const ns = await api.post('/api/v1/namespaces', { metadata: { name: 'doomed' } });
  assert.equal(ns.body.status.phase, 'Active');
  assert.equal(ns.body.metadata.labels['kubernetes.io/metadata.name'], 'doomed');
  assert.deepEqual(ns.body.spec.finalizers, ['kubernetes']);
  await api.post('/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'held', finalizers: ['sim.pgbench.dev/hold'] } });
  await api.post('/api/v1/namespaces/doomed/secrets', { metadata: { name: 's' } });
  const d = await api.del('/api/v1/namespaces/doomed');
  assert.equal(d.body.status.phase, 'Terminating');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal((await api.get('/api/v1/namespaces/doomed/secrets/s')).status, 404);
  const blocked = await api.post('/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'new' } });
  assert.equal(blocked.status, 403);
  assert.match(blocked.body.message, /because it is being terminated/);
  assert.equal((await api.get('/api/v1/namespaces/doomed')).body.status.phase, 'Terminating');
  const held = (await api.get('/api/v1/namespaces/doomed/configmaps/held')).body;
  held.metadata.finalizers = [];
  await api.put('/api/v1/namespaces/doomed/configmaps/held', held);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal((await api.get('/api/v1/namespaces/doomed')).status, 404);
});

test('ownerReferences: Foreground deletion waits for dependents; Orphan strips the references', async () => {
  const owner = (await api.post(CM, cm('owner'))).body;
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, blockOwnerDeletion: true };
  await api.post(CM, { metadata: { name: 'dep', ownerReferences: [ref] } });
  const d = await api.del(`${CM}/owner`, { body: { propagationPolicy: 'Foreground' } });
  assert.equal(d.status, 202);
  assert.ok(d.body.metadata.finalizers.includes('foregroundDeletion'));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal((await api.get(`${CM}/dep`)).status, 404);
  assert.equal((await api.get(`${CM}/owner`)).status, 404);

  const o2 = (await api.post(CM, cm('owner2'))).body;
  await api.post(CM, { metadata: { name: 'dep2', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner2', uid: o2.metadata.uid }] } });
  await api.del(`${CM}/owner2`, { body: { propagationPolicy: 'Orphan' } });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal((await api.get(`${CM}/owner2`)).status, 404);
  const dep2 = await api.get(`${CM}/dep2`);
  assert.equal(dep2.status, 200);
  assert.equal(dep2.body.metadata.ownerReferences, undefined);
});

test('metadata validation: no new finalizers on an object being deleted; ownerReferences complete', async () => {
  await api.post(CM, { metadata: { name: 'fin2', finalizers: ['sim.pgbench.dev/a'] } });
  await api.del(`${CM}/fin2`);
  const g = (await api.get(`${CM}/fin2`)).body;
  g.metadata.finalizers.push('sim.pgbench.dev/b');
  const r = await api.put(`${CM}/fin2`, g);
  assert.equal(r.status, 422);
  assert.equal(r.body.details.causes[0].message, 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"sim.pgbench.dev/b"}');
  const bad = await api.post(CM, { metadata: { name: 'ref', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '' }] } });
  assert.equal(bad.status, 422);
  assert.ok(bad.body.details.causes.some((c) => c.field.startsWith('metadata.ownerReferences')));
  const badFin = await api.post(CM, { metadata: { name: 'badfin', finalizers: ['nodomain'] } });
  assert.equal(badFin.status, 422);
  assert.match(badFin.body.details.causes[0].message, /name is neither a standard finalizer name nor is it fully qualified/);
});

test('creating an object that carries a resourceVersion is a 500 from the storage layer', async () => {
  // Real: etcd3 store Create -> "resourceVersion should not be set on objects to be created"
  // (code 500, no reason); an unparseable one (e.g. "-1") is ignored (kubernetes#113847).
  const r = await api.post(CM, { metadata: { name: 'withrv', resourceVersion: '42' } });
  assert.equal(r.status, 500);
  assert.equal(r.body.message, 'resourceVersion should not be set on objects to be created');
  assert.equal(r.body.reason, undefined);
  assert.equal((await api.post(CM, { metadata: { name: 'withrv', resourceVersion: '-1' } })).status, 201);
});

test('list resourceVersion semantics: too large 504 Timeout, Exact needs the current state, match needs a version', async () => {
  const rv = Number(api.store.rv());
  const big = await api.get(`${CM}?resourceVersion=${rv + 1000}`);
  assert.equal(big.status, 504);
  assert.equal(big.body.reason, 'Timeout');
  assert.match(big.body.message, /^Timeout: Too large resource version: \d+, current: \d+$/);
  assert.equal((await api.get(`${CM}?resourceVersionMatch=NotOlderThan`)).status, 400);
  assert.equal((await api.get(`${CM}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`)).status, 200);
  assert.equal((await api.get(`${CM}?resourceVersion=${api.store.rv()}&resourceVersionMatch=Exact`)).status, 200);
  assert.equal((await api.get(`${CM}?resourceVersion=0`)).status, 200);
});

test('ServiceAccount admission: a pod whose service account does not exist is refused with 403', async () => {
  const r = await api.post('/api/v1/namespaces/default/pods', { metadata: { name: 'nosa' }, spec: { serviceAccountName: 'ghost', containers: [{ name: 'c', image: 'x' }] } });
  assert.equal(r.status, 403);
  assert.equal(r.body.reason, 'Forbidden');
  assert.equal(r.body.message, 'pods "nosa" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found');
  await api.post('/api/v1/namespaces', { metadata: { name: 'fresh' } });
  const ok = await api.post('/api/v1/namespaces/fresh/pods', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  assert.equal(ok.status, 201, 'a new namespace has its default account at once');
  assert.equal(ok.body.spec.serviceAccountName, 'default');
});

test('malformed JSON is a 400 with encoding/json wording', async () => {
  const r = await api.post(CM, '{"metadata": }');
  assert.equal(r.status, 400);
  assert.equal(r.body.message, "couldn't get version/kind; json parse error: invalid character '}' looking for beginning of value");
});

test('TokenRequest tokens authenticate as the service account and are authorized by RBAC; short durations 422', async () => {
  const r = await api.post('/api/v1/namespaces/default/serviceaccounts/default/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
  assert.equal(r.status, 201);
  assert.equal(r.body.kind, 'TokenRequest');
  const token = r.body.status.token;
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  assert.equal(claims.sub, 'system:serviceaccount:default:default');
  // RBAC applies to service-account tokens: nothing is granted by default ...
  const denied = await api.get('/api/v1/namespaces', { token });
  assert.equal(denied.status, 403);
  assert.equal(denied.body.message, 'namespaces is forbidden: User "system:serviceaccount:default:default" cannot list resource "namespaces" in API group "" at the cluster scope');
  assert.equal((await api.get('/apis', { token })).status, 200, 'discovery is open to every authenticated user');
  const getCm = await api.get('/api/v1/namespaces/default/configmaps/x', { token });
  assert.equal(getCm.body.message, 'configmaps "x" is forbidden: User "system:serviceaccount:default:default" cannot get resource "configmaps" in API group "" in the namespace "default"');
  // ... until a binding grants it
  await api.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'ns-reader' }, rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] }] });
  await api.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { metadata: { name: 'ns-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ns-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }] });
  assert.equal((await api.get('/api/v1/namespaces', { token })).status, 200);
  assert.equal((await api.del('/api/v1/namespaces/kube-public', { token })).status, 403);
  await api.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'logs' }, rules: [{ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }] });
  await api.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { metadata: { name: 'logs' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'logs' }, subjects: [{ kind: 'Group', name: 'system:serviceaccounts:default' }] });
  assert.equal((await api.get('/api/v1/namespaces/default/pods/nope/log', { token })).status, 404, 'pods/log granted: the pod is just missing');
  assert.equal((await api.get('/api/v1/namespaces/default/pods/nope', { token })).status, 403, 'pods themselves are not');
  const short = await api.post('/api/v1/namespaces/default/serviceaccounts/default/token', { spec: { expirationSeconds: 60 } });
  assert.equal(short.status, 422);
  assert.equal(short.body.details.causes[0].field, 'spec.expirationSeconds');
  assert.equal((await api.post('/api/v1/namespaces/default/serviceaccounts/ghost/token', { spec: {} })).status, 404);
});
