'use strict';
// The CEL cost budget of CRD validation rules vs kube-apiserver 1.25.0 (lib/cel-cost.js): a rule
// whose estimated cost x cardinality exceeds StaticEstimatedCostLimit (1e7), or a schema whose
// rules add up to more than StaticEstimatedCRDCostLimit (1e8), makes the CRD create/update a 422
// Invalid with the upstream messages (k8s.io/apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go, getCostErrorMessage). Expected costs below are
// worked out by hand from cel-go v0.12.4's checker/cost.go, not by calling the estimator.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const yaml = require('js-yaml');
const { startServer } = require('../lib/testkit');
const celCost = require('../lib/cel-cost');

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const SHIPPED = path.join(__dirname, '..', '..', '..', 'crds', 'benchmarkrun.yaml');
const HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
const RULE_100X = `Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${HINT}`;
const SCHEMA = 'spec.validation.openAPIV3Schema';

let api;
test.before(async () => {
  api = await startServer();
});
test.after(() => api.close());

const shipped = () => yaml.load(fs.readFileSync(SHIPPED, 'utf8'));

// A one-version CRD named <plural>.cost.sim.pgbench.dev whose spec schema is specSchema.
function crdWith(plural, specSchema, extra = {}) {
  const kind = plural[0].toUpperCase() + plural.slice(1, -1);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.cost.sim.pgbench.dev` },
    spec: {
      group: 'cost.sim.pgbench.dev',
      scope: 'Namespaced',
      names: { kind, plural, singular: plural.slice(0, -1), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: Object.assign({ type: 'object', properties: { spec: specSchema } }, extra) } }],
    },
  };
}

const RULES = [
  { at: ['target'], field: 'properties[spec].properties[target]', bad: 'has(self.host) != has(self.cnpg)', good: 'has(self.host) ? !has(self.cnpg) : has(self.cnpg)' },
  { at: ['workload'], field: 'properties[spec].properties[workload]', bad: 'has(self.pgbench) != has(self.fio)', good: 'has(self.pgbench) ? !has(self.fio) : has(self.fio)' },
  { at: ['workload', 'pgbench', 'run'], field: 'properties[spec].properties[workload].properties[pgbench].properties[run]', bad: 'has(self.durationSeconds) != has(self.transactions)', good: 'has(self.durationSeconds) ? !has(self.transactions) : has(self.transactions)' },
];

function ruleNode(crd, at) {
  let n = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
  for (const k of at) n = n.properties[k];
  return n['x-kubernetes-validations'][0];
}

test('the shipped BenchmarkRun CRD is accepted (its rules are within the 1.25 budget)', async () => {
  const crd = shipped();
  const r = await api.post(CRDS, crd);
  assert.equal(r.status, 201, r.text);
  for (const x of RULES) assert.equal(ruleNode(crd, x.at).rule, x.good, 'the shipped CRD uses the rewritten form');
  // and the rewritten rules still refuse what they must
  const ns = '/apis/pgbench.dev/v1alpha1/namespaces/default/benchmarkruns';
  const run = (name, spec) => ({ apiVersion: 'pgbench.dev/v1alpha1', kind: 'BenchmarkRun', metadata: { name }, spec });
  const both = await api.post(ns, run('both', { target: { host: 'pg', user: 'u', cnpg: { clusterName: 'c' } }, workload: { pgbench: { run: { durationSeconds: 10 } } } }));
  assert.equal(both.status, 422);
  assert.ok(both.body.details.causes.some((c) => c.field === 'spec.target' && /exactly one of target.host or target.cnpg/.test(c.message)), both.text);
  const none = await api.post(ns, run('none', { target: { host: 'pg', user: 'u' }, workload: { pgbench: { run: {} } } }));
  assert.equal(none.status, 422);
  assert.ok(none.body.details.causes.some((c) => c.field === 'spec.workload.pgbench.run' && /exactly one of run.durationSeconds/.test(c.message)), none.text);
  const ok = await api.post(ns, run('ok', { target: { host: 'pg', user: 'u' }, workload: { pgbench: { run: { transactions: 5 } } } }));
  assert.equal(ok.status, 201, ok.text);
  assert.equal((await api.del(`${CRDS}/benchmarkruns.pgbench.dev`)).status, 200);
});

for (const x of RULES) {
  test(`\`${x.bad}\` on spec.${x.at.join('.')} is refused as by kube-apiserver 1.25.0: 422, Forbidden, estimated rule cost more than 100x`, async () => {
    const crd = shipped();
    ruleNode(crd, x.at).rule = x.bad;
    const r = await api.post(CRDS, crd);
    assert.equal(r.status, 422, r.text);
    assert.equal(r.body.reason, 'Invalid');
    assert.equal(r.body.details.kind, 'CustomResourceDefinition');
    assert.equal(r.body.details.group, 'apiextensions.k8s.io');
    const field = `${SCHEMA}.${x.field}.x-kubernetes-validations[0].rule`;
    assert.deepEqual(r.body.details.causes[0], { reason: 'FieldValueForbidden', message: RULE_100X, field });
    assert.ok(r.body.message.startsWith(`CustomResourceDefinition.apiextensions.k8s.io "benchmarkruns.pgbench.dev" is invalid: [${field}: ${RULE_100X}, `), r.body.message);
    // ~1.8e18 is also over the whole-schema budget: the rule is named, then the total
    assert.deepEqual(r.body.details.causes.slice(1), [
      { reason: 'FieldValueForbidden', message: 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema', field },
      { reason: 'FieldValueForbidden', message: `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${HINT}`, field: SCHEMA },
    ]);
    assert.equal((await api.get(`${CRDS}/benchmarkruns.pgbench.dev`)).status, 404, 'nothing stored');
    // the same logic as a conditional is accepted
    ruleNode(crd, x.at).rule = x.good;
    const ok = await api.post(CRDS, crd);
    assert.equal(ok.status, 201, ok.text);
    // and an update back to the refused form is refused too (1.25 has no cost ratcheting)
    ruleNode(ok.body, x.at).rule = x.bad;
    const up = await api.put(`${CRDS}/benchmarkruns.pgbench.dev`, ok.body);
    assert.equal(up.status, 422, up.text);
    assert.equal(up.body.details.causes[0].field, field);
    assert.equal((await api.del(`${CRDS}/benchmarkruns.pgbench.dev`)).status, 200);
  });
}

test('all three refused at once: one cause per rule, in the order the server walks the schema (children first)', async () => {
  const crd = shipped();
  for (const x of RULES) ruleNode(crd, x.at).rule = x.bad;
  const r = await api.post(CRDS, crd);
  assert.equal(r.status, 422);
  const rules = r.body.details.causes.filter((c) => c.message === RULE_100X).map((c) => c.field);
  assert.deepEqual(rules, [
    `${SCHEMA}.properties[spec].properties[target].x-kubernetes-validations[0].rule`,
    `${SCHEMA}.properties[spec].properties[workload].properties[pgbench].properties[run].x-kubernetes-validations[0].rule`,
    `${SCHEMA}.properties[spec].properties[workload].x-kubernetes-validations[0].rule`,
  ]);
});

// Estimates of single rules (self = the node below), each checked against a value computed by hand.
const est = (rule, s) => celCost.estimateExpression(rule, s, false).max;
const STR = (maxLength) => (maxLength === undefined ? { type: 'string' } : { type: 'string', maxLength });

test('estimates follow cel-go v0.12.4: has() operands are unsized, schema bounds size the rest', () => {
  const obj = { type: 'object', properties: { a: STR(10), b: STR(), n: { type: 'integer' }, l: { type: 'array', maxItems: 10, items: { type: 'integer' } }, e: { type: 'string', enum: ['x', 'yy'] } } };
  // has(): size unknown [0, 2^64-1]; equality = ceil(float64(2^64-1) * 0.1), no argument cost
  assert.equal(est('has(self.a) != has(self.b)', obj), BigInt(Math.ceil(2 ** 64 * 0.1)));
  assert.equal(est('has(self.a) == has(self.b)', obj), BigInt(Math.ceil(2 ** 64 * 0.1)));
  // conditional: cond 0 + max(!has = 1, has = 0)
  assert.equal(est('has(self.a) ? !has(self.b) : has(self.b)', obj), 1n);
  // string equality: min(4 x maxLength = 40, len('abc') = 3) x 0.1 -> 1, plus self(1) + select(1)
  assert.equal(est("self.a == 'abc'", obj), 3n);
  // unbounded string vs itself: (3 MiB - 2) x 0.1 = 314572.6 -> 314573, plus 2 + 2
  assert.equal(est('self.b == self.b', obj), 314577n);
  // an enum does not bound a string in 1.25
  assert.equal(est('self.e == self.e', obj), 314577n);
  // integers have size 0: equality costs only its arguments
  assert.equal(est('self.n == 1', obj), 2n);
  // in: size of the list literal (2) + self.e (2) + list creation (10)
  assert.equal(est("self.e in ['x', 'yy']", obj), 14n);
  // all(): range 2 + init 0 + result 1 + maxItems 10 x (cond 2 + step 1 + (x > 0: 1 + 1))
  assert.equal(est('self.l.all(x, x > 0)', obj), 53n);
  // exists(): range 2 + 0 + 1 + 10 x (cond 3 + step 1 + 2)
  assert.equal(est('self.l.exists(x, x > 0)', obj), 63n);
  // size() is O(1) in 1.25: 1 + its argument (2); <= on ints 1
  assert.equal(est('size(self.b) <= 57', obj), 4n);
  // comparing two function results: both unsized, refused by 1.25.0 (kubernetes/kubernetes#111769)
  assert.ok(est('size(self.a) == size(self.b)', obj) > 10n ** 9n);
  // a function the 1.25 environment does not know: product of its input sizes, never free
  assert.equal(est('nosuch(self.a, self.a)', obj), 40n * 40n + 4n);
  assert.ok(est('nosuch(self.b, self.b)', obj) > 10n ** 12n);
});

test('cardinality: rules under a list cost maxItems times more, or as many items as fit in 3 MiB when unbounded', async () => {
  const item = (maxLength) => ({ type: 'object', properties: { a: STR(maxLength), b: STR(maxLength) }, 'x-kubernetes-validations': [{ rule: 'self.a == self.b', message: 'a must equal b' }] });
  // unbounded list of unbounded strings: (314573 + 4) x 3 MiB / (len('{}') + 1) -> refused
  const r = await api.post(CRDS, crdWith('lists', { type: 'object', properties: { l: { type: 'array', items: item() } } }));
  assert.equal(r.status, 422, r.text);
  assert.deepEqual(r.body.details.causes[0], { reason: 'FieldValueForbidden', message: RULE_100X, field: `${SCHEMA}.properties[spec].properties[l].items.x-kubernetes-validations[0].rule` });
  // maxItems 100, maxLength 64: (ceil(256 x 0.1) = 26 + 4) x 100 = 3000 -> accepted
  const checked = celCost.checkSchema({ type: 'object', properties: { l: { type: 'array', maxItems: 100, items: item(64) } } }, 'x');
  assert.deepEqual(checked.rules.map((x) => [x.maxCost, x.cardinality, x.cost]), [[30n, 100n, 3000n]]);
  const ok = await api.post(CRDS, crdWith('lists', { type: 'object', properties: { l: { type: 'array', maxItems: 100, items: item(64) } } }));
  assert.equal(ok.status, 201, ok.text);
  assert.equal((await api.del(`${CRDS}/lists.cost.sim.pgbench.dev`)).status, 200);
});

test('per-rule factor under 100x is printed as Go does (%.1f), and the whole-schema budget (1e8) with its top rules', async () => {
  // 4 x 50,000,000 x 0.1 = 20,000,000, + 4 for the arguments: factor 2.0000004 -> "2.0x"
  const big = await api.post(CRDS, crdWith('bigs', { type: 'object', properties: { a: STR(50000000), b: STR(50000000) }, 'x-kubernetes-validations': [{ rule: 'self.a == self.b' }] }));
  assert.equal(big.status, 422, big.text);
  assert.equal(big.body.details.causes[0].message, `Forbidden: estimated rule cost exceeds budget by factor of 2.0x ${HINT}`);
  // eleven rules of exactly 10,000,000 (4 x 24,999,990 x 0.1 + 4): none over the per-rule limit,
  // 110,000,000 together: factor 1.1 is printed with %f
  const props = {};
  const rules = [];
  for (let i = 0; i < 11; i++) {
    props[`a${i}`] = STR(24999990);
    rules.push({ rule: `self.a${i} == self.a${i}` });
  }
  const many = await api.post(CRDS, crdWith('manies', { type: 'object', properties: props, 'x-kubernetes-validations': rules }));
  assert.equal(many.status, 422, many.text);
  const causes = many.body.details.causes;
  assert.equal(causes.length, 5, 'the 4 most expensive rules, then the total');
  for (const c of causes.slice(0, 4)) {
    assert.match(c.field, /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[\d+\]\.rule$/);
    assert.equal(c.message, 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema');
  }
  assert.deepEqual(causes[4], { reason: 'FieldValueForbidden', field: SCHEMA, message: `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.100000x ${HINT}` });
  // ten of them fit
  const ten = await api.post(CRDS, crdWith('manies', { type: 'object', properties: props, 'x-kubernetes-validations': rules.slice(0, 10) }));
  assert.equal(ten.status, 201, ten.text);
  assert.equal((await api.del(`${CRDS}/manies.cost.sim.pgbench.dev`)).status, 200);
});

test('per-version schemas that differ are checked under spec.versions[i].schema; a rule that does not parse is refused', async () => {
  const crd = crdWith('versions', { type: 'object', properties: { a: { type: 'boolean' }, b: { type: 'boolean' } } });
  const v2 = structuredClone(crd.spec.versions[0]);
  v2.name = 'v2';
  v2.storage = false;
  v2.schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [{ rule: 'has(self.a) != has(self.b)' }];
  crd.spec.versions.push(v2);
  const r = await api.post(CRDS, crd);
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.details.causes[0].field, 'spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
  assert.equal(r.body.details.causes[0].message, RULE_100X);

  const bad = await api.post(CRDS, crdWith('syntaxes', { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a ==', message: 'm' }] }));
  assert.equal(bad.status, 422, bad.text);
  assert.equal(bad.body.details.causes[0].field, `${SCHEMA}.properties[spec].x-kubernetes-validations[0].rule`);
  assert.match(bad.body.details.causes[0].message, /^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.a ==", Message:"m"\}: compilation failed: /);
});
