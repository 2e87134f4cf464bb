'use strict';
// Built-in kinds vs the real kube-apiserver: Go decoding errors (400 "cannot be handled as"),
// unknown fields per fieldValidation, OpenAPI/validation errors (422), defaulting, strategic
// merge patch, subresources (/status, /scale, /log), events.k8s.io <-> core Events, Leases.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startServer } = require('../lib/testkit');

let api;
const logs = {};
let lastLogOpts = null;
test.before(async () => {
  const fakeWorkload = { podLog: (ns, name, o) => { lastLogOpts = o; return logs[`${ns}/${name}/${o.container}`] ?? null; } };
  api = await startServer({ workload: () => fakeWorkload });
});
test.after(() => api.close());

const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const job = (name, spec = {}, podSpec = {}) => ({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name },
  spec: Object.assign({ template: { spec: Object.assign({ restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['true'] }] }, podSpec) } }, spec),
});

test('a wrong JSON type is a 400 "cannot be handled as a Job: json: cannot unmarshal ..."', async () => {
  const r = await api.post(JOBS, job('t1', { parallelism: 'two' }));
  assert.equal(r.status, 400);
  assert.equal(r.body.reason, 'BadRequest');
  assert.equal(r.body.message, 'Job in version "v1" cannot be handled as a Job: json: cannot unmarshal string into Go struct field JobSpec.spec.parallelism of type int32');
  const r2 = await api.post(JOBS, job('t2', {}, { containers: [{ name: 'main', image: 5 }] }));
  assert.equal(r2.body.message, 'Job in version "v1" cannot be handled as a Job: json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string');
  const r3 = await api.post(JOBS, job('t3', { template: 'x' }));
  assert.match(r3.body.message, /cannot unmarshal string into Go struct field JobSpec.spec.template of type v1.PodTemplateSpec$/);
  const r4 = await api.post(JOBS, job('t4', { backoffLimit: 1.5 }));
  assert.match(r4.body.message, /cannot unmarshal number 1.5 into Go struct field JobSpec.spec.backoffLimit of type int32$/);
  // quantities accept numbers, int-or-string accepts both
  const ok = await api.post(JOBS, job('t5', {}, { containers: [{ name: 'main', image: 'x', resources: { limits: { cpu: 1, memory: '64Mi' } }, ports: [{ containerPort: 80 }] }] }));
  assert.equal(ok.status, 201, ok.text);
});

test('unknown fields on built-ins: Strict 400 with the full path, Warn prunes with a warning', async () => {
  const body = job('u1', { foo: 1 }, { containers: [{ name: 'main', image: 'x', imagePulPolicy: 'Always' }] });
  const s = await api.post(`${JOBS}?fieldValidation=Strict`, body);
  assert.equal(s.status, 400);
  // Real: strict errors are listed in document order (template comes before foo here).
  assert.equal(s.body.message, 'Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field "spec.template.spec.containers[0].imagePulPolicy", unknown field "spec.foo"');
  const w = await api.post(JOBS, body);
  assert.equal(w.status, 201);
  assert.deepEqual(w.headers.warning.split(/,\s*(?=299)/), ['299 - "unknown field \\"spec.template.spec.containers[0].imagePulPolicy\\""', '299 - "unknown field \\"spec.foo\\""']);
  assert.equal(w.body.spec.foo, undefined);
});

test('invalid Job: 422 naming each field (restartPolicy, required name/image, Indexed without completions)', async () => {
  const r = await api.post(JOBS, job('bad', { completionMode: 'Indexed', parallelism: -1 }, { restartPolicy: 'Always', containers: [{ command: ['x'] }] }));
  assert.equal(r.status, 422);
  assert.equal(r.body.details.kind, 'Job');
  assert.equal(r.body.details.group, 'batch');
  const f = Object.fromEntries(r.body.details.causes.map((c) => [c.field, c]));
  assert.equal(f['spec.template.spec.restartPolicy'].message, 'Unsupported value: "Always": supported values: "OnFailure", "Never"');
  assert.equal(f['spec.template.spec.containers[0].name'].reason, 'FieldValueRequired');
  assert.equal(f['spec.template.spec.containers[0].image'].reason, 'FieldValueRequired');
  assert.equal(f['spec.completions'].message, 'Required value: when completion mode is Indexed');
  assert.equal(f['spec.parallelism'].message, 'Invalid value: -1: must be greater than or equal to 0');
  assert.match(r.body.message, /^Job.batch "bad" is invalid: \[/);
  const noRp = await api.post(JOBS, job('norp', {}, { restartPolicy: undefined }));
  assert.equal(noRp.status, 422, 'restartPolicy defaults to Always, which Jobs refuse');
  const name = await api.post(JOBS, job('Bad_Name'));
  assert.equal(name.status, 422);
  assert.equal(name.body.details.causes[0].field, 'metadata.name');
  assert.match(name.body.details.causes[0].message, /a lowercase RFC 1123 subdomain must consist of/);
  const enumBad = await api.post(JOBS, job('enum', {}, { containers: [{ name: 'main', image: 'x', imagePullPolicy: 'Sometimes' }] }));
  assert.equal(enumBad.status, 422);
  assert.equal(enumBad.body.details.causes[0].reason, 'FieldValueNotSupported');
});

test('Job pod-template labels are validated as label values (ValidatePodTemplateSpec: spec.template.labels, both causes, 63 bytes)', async () => {
  const tmpl = (labels) => job(`l${Object.keys(labels).length}x${Math.random().toString(36).slice(2, 7)}`, { template: { metadata: { labels }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'x' }] } } });
  const REGEX_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const emoji = await api.post(JOBS, tmpl({ team: '\u{1F680}' }));
  assert.equal(emoji.status, 422, emoji.text);
  // a Job without labels of its own gets the template's (batch/v1 SetDefaults_Job), so both fail
  const cause = (field) => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: "\u{1F680}": ${REGEX_MSG}` });
  assert.deepEqual(emoji.body.details.causes, [cause('metadata.labels'), cause('spec.template.labels')]);
  const own = tmpl({ team: '\u{1F680}' });
  own.metadata.labels = { app: 'bench' };
  const templateOnly = await api.post(JOBS, own);
  assert.deepEqual(templateOnly.body.details.causes, [cause('spec.template.labels')]);
  assert.match(templateOnly.body.message, /^Job\.batch "l1x\w+" is invalid: spec\.template\.labels: Invalid value: "\u{1F680}": a valid label/u);
  // 16 emoji are 64 bytes (16 UTF-16 pairs, 32 JS chars): too long and not matching
  const long = tmpl({ a: '\u{1F680}'.repeat(16) });
  long.metadata.labels = { app: 'bench' };
  const longR = await api.post(JOBS, long);
  assert.deepEqual(longR.body.details.causes.map((c) => c.message.replace(/^Invalid value: "[^"]*": /, '')), ['must be no more than 63 characters', REGEX_MSG]);
  const sixtyFour = tmpl({ a: 'x'.repeat(64) });
  sixtyFour.metadata.labels = { app: 'bench' };
  const sixtyFourR = await api.post(JOBS, sixtyFour);
  assert.deepEqual(sixtyFourR.body.details.causes.map((c) => [c.field, c.message.replace(/^Invalid value: "[^"]*": /, '')]), [['spec.template.labels', 'must be no more than 63 characters']]);
  const ok = await api.post(JOBS, tmpl({ a: 'x'.repeat(63), b: '', 'example.com/c': 'My_value.1' }));
  assert.equal(ok.status, 201, ok.text);
});

test('container resources: quantities must parse (400, ParseQuantity\'s error), be non-negative and requests <= limits (422, upstream paths)', async () => {
  const res = (resources, name) => job(name, {}, { containers: [{ name: 'main', image: 'x', resources }] });
  const bad = await api.post(JOBS, res({ requests: { cpu: 'lots' } }, 'q1'));
  assert.equal(bad.status, 400);
  assert.equal(bad.body.message, "Job in version \"v1\" cannot be handled as a Job: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  const suffix = await api.post(JOBS, res({ limits: { memory: '1kk' } }, 'q2'));
  assert.equal(suffix.body.message, "Job in version \"v1\" cannot be handled as a Job: unable to parse quantity's suffix");
  const neg = await api.post(JOBS, res({ requests: { cpu: '-100m', memory: '64Mi' }, limits: { memory: '-0.5Gi' } }, 'q3'));
  assert.equal(neg.status, 422, neg.text);
  assert.deepEqual(neg.body.details.causes, [
    { reason: 'FieldValueInvalid', field: 'spec.template.spec.containers[0].resources.limits[memory]', message: 'Invalid value: "-512Mi": must be greater than or equal to 0' },
    { reason: 'FieldValueInvalid', field: 'spec.template.spec.containers[0].resources.requests[cpu]', message: 'Invalid value: "-100m": must be greater than or equal to 0' },
    { reason: 'FieldValueInvalid', field: 'spec.template.spec.containers[0].resources.requests', message: 'Invalid value: "64Mi": must be less than or equal to memory limit of -512Mi' },
  ]);
  const over = await api.post(JOBS, res({ requests: { cpu: '1500m', memory: '1Gi' }, limits: { cpu: 1, memory: '2Gi' } }, 'q4'));
  assert.equal(over.status, 422, over.text);
  assert.deepEqual(over.body.details.causes, [
    { reason: 'FieldValueInvalid', field: 'spec.template.spec.containers[0].resources.requests', message: 'Invalid value: "1500m": must be less than or equal to cpu limit of 1' },
  ]);
  const name = await api.post(JOBS, res({ requests: { gpu: 1 } }, 'q5'));
  assert.deepEqual(name.body.details.causes.map((c) => [c.field, c.message]), [['spec.template.spec.containers[0].resources.requests[gpu]', 'Invalid value: "gpu": must be a standard resource for containers']]);
  const huge = await api.post(JOBS, res({ requests: { 'hugepages-2Mi': '2Mi', memory: '1Gi' }, limits: { 'hugepages-2Mi': '4Mi' } }, 'q6'));
  assert.deepEqual(huge.body.details.causes.map((c) => c.message), ['Invalid value: "2Mi": must be equal to hugepages-2Mi limit of 4Mi']);
  // a pod is checked the same way, at its own paths
  const pod = await api.post('/api/v1/namespaces/default/pods', { metadata: { name: 'negpod' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '-1' } } }] } });
  assert.deepEqual(pod.body.details.causes.map((c) => [c.field, c.message]), [['spec.containers[0].resources.requests[cpu]', 'Invalid value: "-1": must be greater than or equal to 0']]);
  const ok = await api.post(JOBS, res({ requests: { cpu: '0.5', memory: '1Gi', 'example.com/foo': 1 }, limits: { cpu: '500m', memory: 1073741824, 'example.com/foo': 1 } }, 'q7'));
  assert.equal(ok.status, 201, ok.text);
});

test('quantities print in canonical form as resource.Quantity.String() does', () => {
  const q = require('../lib/quantity');
  const canon = (s) => q.toString(q.parse(s));
  // the caller's string is kept when already canonical (the fast path's cache)
  for (const s of ['100m', '-100m', '1Mi', '1500Mi', '12e6', '1k', '2']) assert.equal(canon(s), s);
  assert.equal(canon('0.5'), '500m');
  assert.equal(canon('1000m'), '1');
  assert.equal(canon('1024Ki'), '1Mi');
  assert.equal(canon('1.5Gi'), '1536Mi');
  assert.equal(canon('0.1Gi'), '107374182400m', 'a fractional BinarySI value prints as DecimalSI');
  assert.equal(canon('0.0000000001'), '1n', 'rounded up to nano precision');
  assert.equal(canon('+100m'), '+100m', 'the fast path keeps even a leading plus');
  assert.equal(q.cmp(q.parse('1500m'), q.parse('1.5')), 0);
  assert.equal(q.cmp(q.parse('1Gi'), q.parse('1G')), 1);
});

test('Job defaults and generated selector as the apiserver sets them', async () => {
  const r = await api.post(JOBS, job('def'));
  assert.equal(r.status, 201);
  const s = r.body.spec;
  assert.equal(s.parallelism, 1);
  assert.equal(s.completions, 1);
  assert.equal(s.backoffLimit, 6);
  assert.equal(s.completionMode, 'NonIndexed');
  assert.equal(s.suspend, false);
  const uid = r.body.metadata.uid;
  assert.deepEqual(s.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
  assert.equal(s.template.metadata.labels['job-name'], 'def');
  assert.equal(s.template.metadata.labels['controller-uid'], uid);
  assert.equal(r.body.metadata.labels['batch.kubernetes.io/job-name'], 'def', 'labels copied from the template when the Job has none');
  const c = s.template.spec.containers[0];
  assert.equal(c.terminationMessagePath, '/dev/termination-log');
  assert.equal(c.terminationMessagePolicy, 'File');
  assert.equal(c.imagePullPolicy, 'Always', 'no tag means :latest');
  assert.equal(s.template.spec.dnsPolicy, 'ClusterFirst');
  assert.equal(r.body.metadata.generation, 1);
  assert.equal(r.body.status, undefined, 'status is dropped on create');
  // spec.template is immutable
  const u = structuredClone(r.body);
  u.spec.template.spec.containers[0].image = 'other';
  const ur = await api.put(`${JOBS}/def`, u);
  assert.equal(ur.status, 422);
  assert.ok(ur.body.details.causes.some((x) => x.field === 'spec.template' && /field is immutable/.test(x.message)));
});

test('strategic merge patch merges containers and env by name, honours $patch: delete', async () => {
  const P = '/api/v1/namespaces/default/pods';
  await api.post(P, { metadata: { name: 'smp' }, spec: { containers: [{ name: 'a', image: 'x:1', env: [{ name: 'A', value: '1' }] }, { name: 'b', image: 'y:1' }] } });
  const r = await api.patch(`${P}/smp`, { metadata: { labels: { l: 'v' } }, spec: { containers: [{ name: 'a', image: 'x:2' }] } }, 'application/strategic-merge-patch+json');
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.spec.containers.map((c) => [c.name, c.image]), [['a', 'x:2'], ['b', 'y:1']]);
  assert.deepEqual(r.body.spec.containers[0].env, [{ name: 'A', value: '1' }]);
  const cm = '/api/v1/namespaces/default/configmaps';
  await api.post(cm, { metadata: { name: 'smp', finalizers: ['a.b/c'] }, data: { x: '1' } });
  const f = await api.patch(`${cm}/smp`, { metadata: { finalizers: ['a.b/d'] }, data: { y: '2', x: null } }, 'application/strategic-merge-patch+json');
  assert.deepEqual(f.body.metadata.finalizers, ['a.b/c', 'a.b/d'], 'finalizers merge');
  assert.deepEqual(f.body.data, { y: '2' });
  // Pod spec is immutable apart from images (real: Forbidden "pod updates may not change fields...")
  const bad = await api.patch(`${P}/smp`, { spec: { containers: [{ name: 'a', command: ['x'] }] } }, 'application/strategic-merge-patch+json');
  assert.equal(bad.status, 422);
  assert.equal(bad.body.details.causes[0].reason, 'FieldValueForbidden');
});

test('pod status subresource, pod log, statefulset scale', async () => {
  const P = '/api/v1/namespaces/default/pods';
  const p = (await api.post(P, { metadata: { name: 'lp' }, spec: { containers: [{ name: 'c', image: 'x' }] } })).body;
  assert.equal(p.status.phase, 'Pending');
  p.status = { phase: 'Running' };
  const s = await api.put(`${P}/lp/status`, p);
  assert.equal(s.body.status.phase, 'Running');
  logs['default/lp/c'] = 'line1\nline2\n';
  const l = await api.get(`${P}/lp/log`);
  assert.equal(l.status, 200);
  assert.equal(l.text, 'line1\nline2\n');
  assert.equal((await api.get(`${P}/lp/log?container=zz`)).status, 400);
  assert.equal((await api.get(`${P}/nope/log`)).status, 404);
  // tailLines and limitBytes reach the kubelet; out-of-range values are ValidatePodLogOptions' 422
  assert.equal((await api.get(`${P}/lp/log?tailLines=3&limitBytes=7`)).status, 200);
  assert.equal(lastLogOpts.tailLines, 3);
  assert.equal(lastLogOpts.limitBytes, 7);
  const bad = await api.get(`${P}/lp/log?limitBytes=0&tailLines=-1`);
  assert.equal(bad.status, 422);
  assert.equal(bad.body.reason, 'Invalid');
  assert.equal(bad.body.message, 'PodLogOptions "lp" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]');

  const STS = '/apis/apps/v1/namespaces/default/statefulsets';
  const sts = { metadata: { name: 'db' }, spec: { serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'pg', image: 'postgres:15' }] } } } };
  const c = await api.post(STS, sts);
  assert.equal(c.status, 201, c.text);
  assert.equal(c.body.spec.replicas, 1);
  const sc = await api.get(`${STS}/db/scale`);
  assert.equal(sc.body.kind, 'Scale');
  assert.equal(sc.body.apiVersion, 'autoscaling/v1');
  assert.equal(sc.body.status.selector, 'app=db');
  const u = await api.put(`${STS}/db/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'db' }, spec: { replicas: 3 } });
  assert.equal(u.body.spec.replicas, 3);
  const after = (await api.get(`${STS}/db`)).body;
  assert.equal(after.spec.replicas, 3);
  assert.equal(after.metadata.generation, 2);
  const neg = await api.patch(`${STS}/db/scale`, { spec: { replicas: -1 } }, 'application/merge-patch+json');
  assert.equal(neg.status, 422);
  const mism = structuredClone(sts);
  mism.metadata.name = 'mism';
  mism.spec.template.metadata.labels = { app: 'other' };
  const mr = await api.post(STS, mism);
  assert.equal(mr.status, 422);
  assert.equal(mr.body.details.causes[0].field, 'spec.template.metadata.labels');
});

test('events.k8s.io/v1 and core/v1 Events are two views of the same objects', async () => {
  const E = '/apis/events.k8s.io/v1/namespaces/default/events';
  const ev = {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e1' }, eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'pgbench.dev/operator', reportingInstance: 'op-1', action: 'Run', reason: 'Started', type: 'Normal',
    regarding: { kind: 'Job', name: 'j', namespace: 'default', apiVersion: 'batch/v1' }, note: 'started',
  };
  const c = await api.post(E, ev);
  assert.equal(c.status, 201, c.text);
  const core = (await api.get('/api/v1/namespaces/default/events/e1')).body;
  assert.equal(core.kind, 'Event');
  assert.equal(core.apiVersion, 'v1');
  assert.equal(core.message, 'started');
  assert.equal(core.involvedObject.name, 'j');
  assert.equal(core.reportingComponent, 'pgbench.dev/operator');
  const sel = await api.get('/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dj,reason%3DStarted');
  assert.deepEqual(sel.body.items.map((i) => i.metadata.name), ['e1']);
  const missing = await api.post(E, Object.assign({}, ev, { metadata: { name: 'e2' }, eventTime: undefined }));
  assert.equal(missing.status, 422, 'events.k8s.io/v1 requires eventTime');
});

test('Leases: create, update with resourceVersion, conflict on a stale one', async () => {
  const L = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
  const c = await api.post(L, { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } });
  assert.equal(c.status, 201);
  const u = structuredClone(c.body);
  u.spec.holderIdentity = 'b';
  assert.equal((await api.put(`${L}/leader`, u)).status, 200);
  u.spec.holderIdentity = 'c';
  assert.equal((await api.put(`${L}/leader`, u)).status, 409);
  const bad = await api.post(L, { metadata: { name: 'l2' }, spec: { leaseDurationSeconds: 0 } });
  assert.equal(bad.status, 422);
});

test('protobuf request bodies (kubectl create <kind>, helm release Secrets) are decoded from the embedded message layouts', async () => {
  // k8s\0 + runtime.Unknown{typeMeta{v1, Secret}, raw: Secret{metadata{name}, data{k: v}, type}}
  const f = (n, b) => Buffer.concat([Buffer.from([(n << 3) | 2, b.length]), b]);
  const s = (x) => Buffer.from(x);
  const secret = Buffer.concat([f(1, f(1, s('pb'))), f(2, Buffer.concat([f(1, s('k')), f(2, s('v'))])), f(3, s('Opaque'))]);
  const body = Buffer.concat([s('k8s\0'), f(1, Buffer.concat([f(1, s('v1')), f(2, s('Secret'))])), f(2, secret)]);
  const r = await api.post('/api/v1/namespaces/default/secrets', body, { ct: 'application/vnd.kubernetes.protobuf' });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.body.data.k, Buffer.from('v').toString('base64'));
  const job = await api.post(JOBS, body, { ct: 'application/vnd.kubernetes.protobuf' });
  assert.equal(job.status, 400, 'a Secret is not a Job');
  assert.equal(job.body.message, 'the kind in the data (Secret) does not match the expected kind (Job)');
  const crd = await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body, { ct: 'application/vnd.kubernetes.protobuf' });
  assert.equal(crd.status, 415, 'no protobuf for apiextensions (as for custom resources)');
});

test('graceful pod deletion: a running pod gets deletionTimestamp + grace and stays until a delete with grace 0', async () => {
  const P = '/api/v1/namespaces/default/pods';
  const p = (await api.post(P, { metadata: { name: 'gr' }, spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 20, containers: [{ name: 'c', image: 'x' }] } })).body;
  p.status = { phase: 'Running' };
  await api.put(`${P}/gr/status`, p);
  const d = await api.del(`${P}/gr`);
  assert.equal(d.status, 200);
  assert.equal(d.body.metadata.deletionGracePeriodSeconds, 20);
  const dt = Date.parse(d.body.metadata.deletionTimestamp) - Date.now();
  assert.ok(dt > 15000 && dt <= 21000, 'deletionTimestamp is now + grace');
  assert.equal((await api.get(`${P}/gr`)).status, 200, 'still there (Terminating) until the kubelet confirms');
  const d0 = await api.del(`${P}/gr?gracePeriodSeconds=0`);
  assert.equal(d0.status, 200);
  assert.equal((await api.get(`${P}/gr`)).status, 404);
  // an unscheduled pod is deleted at once
  await api.post(P, { metadata: { name: 'unsched' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  await api.del(`${P}/unsched`);
  assert.equal((await api.get(`${P}/unsched`)).status, 404);
});
