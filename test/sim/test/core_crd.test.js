'use strict';
// CustomResourceDefinitions and custom objects vs the real apiextensions-apiserver:
// registration, structural-schema validation (422, one cause per field), unknown fields per
// fieldValidation, defaulting, status subresource, generation, patches, apply, Table output.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startServer, WIDGET_CRD, W, widget } = require('../lib/testkit');

let api;
test.before(async () => {
  api = await startServer();
  const r = await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', WIDGET_CRD);
  assert.equal(r.status, 201, r.text);
});
test.after(() => api.close());

test('a CRD is Established and NamesAccepted, and its group appears in discovery', async () => {
  const crd = (await api.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.sim.pgbench.dev')).body;
  const cond = Object.fromEntries(crd.status.conditions.map((c) => [c.type, c.status]));
  assert.equal(cond.Established, 'True');
  assert.equal(cond.NamesAccepted, 'True');
  assert.deepEqual(crd.status.storedVersions, ['v1']);
  assert.equal(crd.status.acceptedNames.plural, 'widgets');
  const g = await api.get('/apis/sim.pgbench.dev/v1');
  const names = g.body.resources.map((r) => r.name);
  assert.deepEqual(names, ['widgets', 'widgets/scale', 'widgets/status']);
  // Real: metadata.name must be <plural>.<group>.
  const bad = structuredClone(WIDGET_CRD);
  bad.metadata.name = 'wrong.sim.pgbench.dev';
  const r = await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', bad);
  assert.equal(r.status, 422);
  assert.match(r.body.message, /must be spec.names.plural\+"."\+spec.group/);
});

test('schema violations: 422 Invalid, one cause per field, with the real messages', async () => {
  const r = await api.post(W, widget('bad', { size: 0, mode: 'medium', name: 'ABCDEFGHIJKLMNOP', tags: ['a', 'b', 'c', 'd'], port: true }));
  assert.equal(r.status, 422);
  assert.equal(r.body.reason, 'Invalid');
  assert.equal(r.body.details.kind, 'Widget');
  assert.equal(r.body.details.group, 'sim.pgbench.dev');
  const byField = {};
  for (const c of r.body.details.causes) (byField[c.field] = byField[c.field] || []).push(c);
  assert.equal(byField['spec.size'][0].reason, 'FieldValueInvalid');
  assert.equal(byField['spec.size'][0].message, 'Invalid value: 0: spec.size in body should be greater than or equal to 1');
  assert.equal(byField['spec.mode'][0].reason, 'FieldValueNotSupported');
  assert.equal(byField['spec.mode'][0].message, 'Unsupported value: "medium": supported values: "fast", "slow"');
  assert.ok(byField['spec.name'].some((c) => c.reason === 'FieldValueTooLong'));
  assert.ok(byField['spec.name'].some((c) => c.message === 'Invalid value: "ABCDEFGHIJKLMNOP": spec.name in body should match \'^[a-z]+$\''));
  assert.equal(byField['spec.tags'][0].reason, 'FieldValueTooMany');
  assert.ok(byField['spec.port'], 'int-or-string rejects a boolean');
  assert.match(r.body.message, /^Widget.sim.pgbench.dev "bad" is invalid: \[/);

  const req = await api.post(W, widget('req', {}));
  assert.equal(req.status, 422);
  assert.deepEqual(req.body.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.size' }]);
  assert.equal(req.body.message, 'Widget.sim.pgbench.dev "req" is invalid: spec.size: Required value');

  const typ = await api.post(W, widget('typ', { size: 'three' }));
  assert.equal(typ.status, 422);
  assert.equal(typ.body.details.causes[0].message, 'Invalid value: "string": spec.size in body must be of type integer: "string"');
  const fmt = await api.post(W, widget('fmt', { size: 3, when: 'yesterday' }));
  assert.equal(fmt.status, 422);
  assert.equal(fmt.body.details.causes[0].field, 'spec.when');
  const i32 = await api.post(W, widget('i32', { size: 3, ratio: null, port: 'http' }));
  assert.equal(i32.status, 201, 'nullable accepts null; int-or-string accepts a string');
});

test('unknown fields follow fieldValidation: Strict 400, Warn (default) prunes + Warning 299, Ignore prunes silently', async () => {
  const body = widget('u1', { size: 2, sizee: 3, extra: { free: { form: 1 } } });
  const strict = await api.post(`${W}?fieldValidation=Strict`, body);
  assert.equal(strict.status, 400);
  assert.equal(strict.body.reason, 'BadRequest');
  assert.equal(strict.body.message, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.sizee"');
  const warn = await api.post(W, body);
  assert.equal(warn.status, 201);
  assert.equal(warn.headers.warning, '299 - "unknown field \\"spec.sizee\\""');
  assert.equal(warn.body.spec.sizee, undefined);
  assert.deepEqual(warn.body.spec.extra, { free: { form: 1 } }, 'x-kubernetes-preserve-unknown-fields keeps its subtree');
  const ign = await api.post(`${W}?fieldValidation=Ignore`, widget('u2', { size: 2, zzz: 1 }));
  assert.equal(ign.status, 201);
  assert.equal(ign.headers.warning, undefined);
  assert.equal(ign.body.spec.zzz, undefined);
  const badfv = await api.post(`${W}?fieldValidation=Loud`, widget('u3', { size: 2 }));
  assert.equal(badfv.status, 400);
});

test('defaults are applied; generation changes on spec changes only; custom resources require a resourceVersion on update', async () => {
  const c = await api.post(W, widget('gen', { size: 3 }));
  assert.equal(c.body.spec.mode, 'fast');
  assert.equal(c.body.spec.replicas, 1);
  assert.equal(c.body.metadata.generation, 1);
  const o = structuredClone(c.body);
  o.metadata.labels = { x: 'y' };
  const u1 = await api.put(`${W}/gen`, o);
  assert.equal(u1.body.metadata.generation, 1, 'metadata-only change');
  const o2 = structuredClone(u1.body);
  o2.spec.size = 4;
  const u2 = await api.put(`${W}/gen`, o2);
  assert.equal(u2.body.metadata.generation, 2);
  const o3 = structuredClone(u2.body);
  delete o3.metadata.resourceVersion;
  const u3 = await api.put(`${W}/gen`, o3);
  assert.equal(u3.status, 422);
  assert.equal(u3.body.details.causes[0].field, 'metadata.resourceVersion');
});

test('status subresource: /status ignores spec, the main resource ignores status; create drops status', async () => {
  const c = await api.post(W, Object.assign(widget('st', { size: 3 }), { status: { phase: 'Forged' } }));
  assert.equal(c.body.status, undefined);
  const s = structuredClone(c.body);
  s.spec.size = 50;
  s.status = { phase: 'Running', replicas: 2, conditions: [{ type: 'Ready', status: 'True' }] };
  const r = await api.put(`${W}/st/status`, s);
  assert.equal(r.status, 200);
  assert.equal(r.body.spec.size, 3);
  assert.equal(r.body.status.phase, 'Running');
  assert.equal(r.body.metadata.generation, 1);
  const m = structuredClone(r.body);
  m.status.phase = 'Hacked';
  const r2 = await api.put(`${W}/st`, m);
  assert.equal(r2.body.status.phase, 'Running');
  // status is validated against the schema too
  const bad = await api.patch(`${W}/st/status`, { status: { replicas: 'two' } }, 'application/merge-patch+json');
  assert.equal(bad.status, 422);
  assert.equal(bad.body.details.causes[0].field, 'status.replicas');
  // scale subresource
  const sc = await api.get(`${W}/st/scale`);
  assert.deepEqual(sc.body.spec, { replicas: 1 });
  assert.equal(sc.body.status.replicas, 2);
  const sp = await api.patch(`${W}/st/scale`, { spec: { replicas: 5 } }, 'application/merge-patch+json');
  assert.equal(sp.body.spec.replicas, 5);
  assert.equal((await api.get(`${W}/st`)).body.spec.replicas, 5);
});

test('a status write is one write: its managedFields in it, one resourceVersion, one watch event', async () => {
  // Regression: the sim stored the status, then the writer's managedFields in a second write, so
  // a status patch that added a field bumped the resourceVersion twice and sent two events; the
  // operator took the answer as the object's latest version but then saw the intermediate one
  // from the watch, and its next status write met a 409 (e2e 40's third conflict).
  const c = await api.post(W, widget('one', { size: 3 }));
  const rv0 = Number(c.body.metadata.resourceVersion);
  const w = api.watch(`${W}?watch=true&resourceVersion=${rv0}&fieldSelector=metadata.name%3Done`);
  const patch = (status, rv) => api.patch(`${W}/one/status?fieldManager=op`,
    { metadata: { resourceVersion: rv }, status }, 'application/merge-patch+json');
  const a = await patch({ phase: 'Running' }, String(rv0));
  assert.equal(a.status, 200, a.text);
  const b = await patch({ phase: 'Done', replicas: 2 }, a.body.metadata.resourceVersion); // a new field: managedFields change
  assert.equal(b.status, 200, b.text);
  assert.equal(Number(b.body.metadata.resourceVersion), Number(a.body.metadata.resourceVersion) + 1);
  const op = b.body.metadata.managedFields.find((e) => e.manager === 'op' && e.subresource === 'status');
  assert.ok(op && op.fieldsV1['f:status']['f:replicas'], JSON.stringify(b.body.metadata.managedFields));
  assert.deepEqual((await api.get(`${W}/one`)).body.metadata, b.body.metadata);
  await w.waitFor((x) => x.object.metadata.resourceVersion === b.body.metadata.resourceVersion);
  assert.deepEqual(w.events.map((x) => [x.type, x.object.metadata.resourceVersion]),
    [['MODIFIED', a.body.metadata.resourceVersion], ['MODIFIED', b.body.metadata.resourceVersion]]);
  w.close();
});

test('patches: merge and JSON patch on custom resources; strategic merge patch is 415 for them', async () => {
  await api.post(W, widget('p', { size: 3, tags: ['a'] }));
  const m = await api.patch(`${W}/p`, { spec: { size: 4, tags: null } }, 'application/merge-patch+json');
  assert.equal(m.status, 200);
  assert.equal(m.body.spec.size, 4);
  assert.equal(m.body.spec.tags, undefined);
  const j = await api.patch(`${W}/p`, [{ op: 'replace', path: '/spec/size', value: 5 }, { op: 'add', path: '/spec/tags', value: ['x'] }], 'application/json-patch+json');
  assert.equal(j.body.spec.size, 5);
  assert.deepEqual(j.body.spec.tags, ['x']);
  const t = await api.patch(`${W}/p`, [{ op: 'test', path: '/spec/size', value: 99 }], 'application/json-patch+json');
  assert.equal(t.status, 422);
  const inv = await api.patch(`${W}/p`, { spec: { size: 500 } }, 'application/merge-patch+json');
  assert.equal(inv.status, 422, 'patched result is validated');
  const smp = await api.patch(`${W}/p`, { spec: { size: 6 } }, 'application/strategic-merge-patch+json');
  assert.equal(smp.status, 415);
  assert.equal(smp.body.reason, 'UnsupportedMediaType');
  const strictPatch = await api.patch(`${W}/p?fieldValidation=Strict`, { spec: { bogus: 1 } }, 'application/merge-patch+json');
  assert.equal(strictPatch.status, 400);
  assert.match(strictPatch.body.message, /strict decoding error: unknown field "spec.bogus"/);
  const stale = await api.patch(`${W}/p`, { metadata: { resourceVersion: '1' }, spec: { size: 7 } }, 'application/merge-patch+json');
  assert.equal(stale.status, 409, 'a resourceVersion in a patch is a precondition');
  assert.equal((await api.patch(`${W}/nope`, { spec: {} }, 'application/merge-patch+json')).status, 404);
});

test('server-side apply: create if absent, fieldManager required, managedFields, removal of fields the manager dropped', async () => {
  const yaml = (spec) => `apiVersion: sim.pgbench.dev/v1\nkind: Widget\nmetadata:\n  name: ap\n  labels: {a: "1"}\nspec:\n${spec}`;
  const noMgr = await api.patch(`${W}/ap`, yaml('  size: 3\n'), 'application/apply-patch+yaml');
  assert.equal(noMgr.status, 422);
  assert.match(noMgr.body.message, /fieldManager: Required value: is required for apply patch/);
  const c = await api.patch(`${W}/ap?fieldManager=tester`, yaml('  size: 3\n  tags: [a, b]\n'), 'application/apply-patch+yaml');
  assert.equal(c.status, 201);
  const mf = c.body.metadata.managedFields.find((e) => e.manager === 'tester');
  assert.equal(mf.operation, 'Apply');
  assert.equal(mf.fieldsType, 'FieldsV1');
  assert.ok(mf.fieldsV1['f:spec']['f:size']);
  const u = await api.patch(`${W}/ap?fieldManager=tester`, yaml('  size: 4\n'), 'application/apply-patch+yaml');
  assert.equal(u.status, 200);
  assert.equal(u.body.spec.size, 4);
  assert.equal(u.body.spec.tags, undefined, 'a field dropped from the applied config is removed');
  assert.equal(u.body.spec.mode, 'fast', 'defaults stay');
  const again = await api.patch(`${W}/ap?fieldManager=tester`, yaml('  size: 4\n'), 'application/apply-patch+yaml');
  assert.equal(again.body.metadata.resourceVersion, u.body.metadata.resourceVersion, 'no-op apply does not write');
});

test('Table output: CRD additionalPrinterColumns (JSONPath, types) and default Name/Age', async () => {
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  const t = await api.get(`${W}?limit=500`, { accept });
  assert.equal(t.body.kind, 'Table');
  assert.equal(t.body.apiVersion, 'meta.k8s.io/v1');
  assert.deepEqual(t.body.columnDefinitions.map((c) => c.name), ['Name', 'Size', 'Mode', 'Ready', 'Age']);
  assert.deepEqual(t.body.columnDefinitions.map((c) => c.type), ['string', 'integer', 'string', 'string', 'date']);
  const row = t.body.rows.find((r) => r.cells[0] === 'st');
  assert.equal(row.cells[1], 3);
  assert.equal(row.cells[2], 'fast');
  assert.equal(row.cells[3], 'True');
  assert.match(row.cells[4], /^\d+s$/);
  assert.equal(row.object.kind, 'PartialObjectMetadata');
  const one = await api.get(`${W}/st`, { accept });
  assert.equal(one.body.rows.length, 1);
  const pods = await api.get('/api/v1/namespaces/default/pods', { accept });
  assert.deepEqual(pods.body.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name), ['Name', 'Ready', 'Status', 'Restarts', 'Age']);
});

test('deleting a CRD removes its resources from discovery and routing', async () => {
  const crd2 = structuredClone(WIDGET_CRD);
  crd2.metadata.name = 'gadgets.sim.pgbench.dev';
  crd2.spec.names = { kind: 'Gadget', plural: 'gadgets', singular: 'gadget' };
  crd2.spec.scope = 'Cluster';
  assert.equal((await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd2)).status, 201);
  const g = await api.post('/apis/sim.pgbench.dev/v1/gadgets', { apiVersion: 'sim.pgbench.dev/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 1 } });
  assert.equal(g.status, 201);
  assert.equal(g.body.metadata.namespace, undefined, 'cluster-scoped');
  assert.equal((await api.del('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.sim.pgbench.dev')).status, 200);
  assert.equal((await api.get('/apis/sim.pgbench.dev/v1/gadgets')).status, 404);
});

test('x-kubernetes-validations (CEL) are evaluated: message, fieldPath, reason, transition rules', async () => {
  const crd = structuredClone(WIDGET_CRD);
  crd.metadata.name = 'rules.sim.pgbench.dev';
  crd.spec.names = { kind: 'Rule', plural: 'rules', singular: 'rule' };
  const sch = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
  sch.properties.min = { type: 'integer' };
  sch.properties.max = { type: 'integer' };
  sch.properties.once = { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'once is immutable' }] };
  sch['x-kubernetes-validations'] = [
    { rule: '!has(self.min) || !has(self.max) || self.min <= self.max', message: 'min must be <= max' },
    { rule: 'self.size != 13', fieldPath: '.size', reason: 'FieldValueForbidden', message: 'unlucky' },
    { rule: 'self.size < 90' },
  ];
  assert.equal((await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  const R = '/apis/sim.pgbench.dev/v1/namespaces/default/rules';
  const mk = (name, spec) => ({ apiVersion: 'sim.pgbench.dev/v1', kind: 'Rule', metadata: { name }, spec });
  const r = await api.post(R, mk('r1', { size: 13, min: 5, max: 1 }));
  assert.equal(r.status, 422);
  assert.deepEqual(r.body.details.causes, [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "object": min must be <= max', field: 'spec' },
    { reason: 'FieldValueForbidden', message: 'Forbidden: unlucky', field: 'spec.size' },
  ]);
  const r2 = await api.post(R, mk('r2', { size: 95 }));
  assert.equal(r2.body.details.causes[0].message, 'Invalid value: "object": failed rule: self.size < 90');
  const ok = await api.post(R, mk('r3', { size: 3, once: 'a' }));
  assert.equal(ok.status, 201, 'transition rules do not run on create');
  const ch = await api.patch(`${R}/r3`, { spec: { once: 'b' } }, 'application/merge-patch+json');
  assert.equal(ch.status, 422);
  assert.equal(ch.body.details.causes[0].field, 'spec.once');
  assert.equal(ch.body.details.causes[0].message, 'Invalid value: "string": once is immutable');
  // type errors block rule evaluation, as on the real server
  const typ = await api.post(R, mk('r4', { size: 'x', min: 5, max: 1 }));
  assert.equal(typ.status, 422);
  assert.ok(typ.body.details.causes.some((c) => /some validation rules were not checked/.test(c.message)));
  assert.ok(!typ.body.details.causes.some((c) => /min must be/.test(c.message)));
});

test('server-side apply conflicts: 409 naming the other manager and field; force takes ownership', async () => {
  const y = (name, size, extra = '') => `apiVersion: sim.pgbench.dev/v1\nkind: Widget\nmetadata:\n  name: ${name}\nspec:\n  size: ${size}\n${extra}`;
  const A = 'application/apply-patch+yaml';
  assert.equal((await api.patch(`${W}/cf?fieldManager=alice`, y('cf', 3, '  tags: [x]\n'), A)).status, 201);
  // same value: shared ownership, no conflict
  assert.equal((await api.patch(`${W}/cf?fieldManager=bob`, y('cf', 3), A)).status, 200);
  const c = await api.patch(`${W}/cf?fieldManager=carol`, y('cf', 4), A);
  assert.equal(c.status, 409);
  assert.equal(c.body.reason, 'Conflict');
  assert.match(c.body.message, /^Apply failed with 2 conflicts: conflicts with "alice":\n- \.spec\.size\nconflicts with "bob":\n- \.spec\.size$/);
  assert.deepEqual(c.body.details.causes[0], { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.size' });
  // an Update manager (merge patch) owns what it changed
  assert.equal((await api.patch(`${W}/cf?fieldManager=editor`, { spec: { mode: 'slow' } }, 'application/merge-patch+json')).status, 200);
  const c2 = await api.patch(`${W}/cf?fieldManager=alice`, y('cf', 3, '  tags: [x]\n  mode: fast\n'), A);
  assert.equal(c2.status, 409);
  assert.equal(c2.body.message, 'Apply failed with 1 conflict: conflict with "editor" using sim.pgbench.dev/v1: .spec.mode');
  const f = await api.patch(`${W}/cf?fieldManager=alice&force=true`, y('cf', 3, '  tags: [x]\n  mode: fast\n'), A);
  assert.equal(f.status, 200);
  assert.equal(f.body.spec.mode, 'fast');
  assert.ok(!f.body.metadata.managedFields.some((e) => e.manager === 'editor'), 'editor lost its only field');
  // alice stops applying size: bob still owns it, so it stays; tags only alice owned: removed
  const d = await api.patch(`${W}/cf?fieldManager=alice`, y('cf', 3, '').replace('  size: 3\n', '  mode: fast\n'), A);
  assert.equal(d.status, 200, d.text);
  assert.equal(d.body.spec.size, 3);
  assert.equal(d.body.spec.tags, undefined);
});

test('re-applying an unchanged configuration with several managers does not write', async () => {
  const y = 'apiVersion: sim.pgbench.dev/v1\nkind: Widget\nmetadata:\n  name: nw\nspec:\n  size: 3\n';
  const A = 'application/apply-patch+yaml';
  await api.patch(`${W}/nw?fieldManager=m1`, y, A);
  await api.patch(`${W}/nw?fieldManager=m2`, y, A);
  const r1 = await api.patch(`${W}/nw?fieldManager=m1`, y, A);
  const r2 = await api.patch(`${W}/nw?fieldManager=m1`, y, A);
  assert.equal(r2.body.metadata.resourceVersion, r1.body.metadata.resourceVersion);
  assert.deepEqual(r2.body.metadata.managedFields.map((e) => e.manager), ['m1', 'm2']);
});
