'use strict';
// Lists in pages (limit/continue) as kube-apiserver serves them from etcd (lib/listpages.js): the
// token's form, pages that show the first page's state, remainingItemCount only without
// selectors, 410 with an inconsistent-continue token once that state is compacted, and 400 for
// malformed tokens.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startServer } = require('../lib/testkit');

const CM = '/api/v1/namespaces/default/configmaps';
const ALL_CM = '/api/v1/configmaps';

async function withServer(fn) {
  const api = await startServer();
  try {
    await fn(api);
  } finally {
    await api.close();
  }
}

async function mk(api, name, labels) {
  const r = await api.post(CM, { metadata: { name, labels } });
  assert.equal(r.status, 201, r.text);
}

// every page of a list from `path` (limit n); returns {names, pages}
async function pages(api, path, n, first) {
  const out = { names: [], pages: [] };
  let p = first || (await api.get(`${path}${path.includes('?') ? '&' : '?'}limit=${n}`));
  for (;;) {
    assert.equal(p.status, 200, p.text);
    out.pages.push(p.body);
    out.names.push(...p.body.items.map((o) => o.metadata.name));
    const c = p.body.metadata.continue;
    if (!c) return out;
    p = await api.get(`${path}${path.includes('?') ? '&' : '?'}limit=${n}&continue=${encodeURIComponent(c)}`);
  }
}

test('the continue token: base64url without padding of {v, rv, start: last key + NUL}, relative to the list', async () => {
  await withServer(async (api) => {
    for (const n of ['a', 'b', 'c']) await mk(api, n);
    const p = await api.get(`${CM}?limit=2`);
    const c = p.body.metadata.continue;
    assert.match(c, /^[A-Za-z0-9_-]+$/, 'URL-safe alphabet, no padding');
    const tok = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
    assert.deepEqual(tok, { v: 'meta.k8s.io/v1', rv: Number(p.body.metadata.resourceVersion), start: 'b\u0000' });
    const all = await api.get(`${ALL_CM}?limit=1`);
    const t2 = JSON.parse(Buffer.from(all.body.metadata.continue, 'base64url').toString('utf8'));
    assert.equal(t2.start, `${all.body.items[0].metadata.namespace}/${all.body.items[0].metadata.name}\u0000`,
      'across namespaces the key is namespace/name');
  });
});

test('every page shows the state of the first: later creates and deletes do not appear', async () => {
  await withServer(async (api) => {
    for (const n of ['c0', 'c1', 'c2', 'c3', 'c4']) await mk(api, n);
    const first = await api.get(`${CM}?limit=2`);
    const rv = first.body.metadata.resourceVersion;
    await mk(api, 'c2a'); // sorts into the pages still to come
    assert.equal((await api.del(`${CM}/c4`)).status, 200);
    const got = await pages(api, CM, 2, first);
    assert.deepEqual(got.names, ['c0', 'c1', 'c2', 'c3', 'c4']);
    for (const p of got.pages) assert.equal(p.metadata.resourceVersion, rv, 'every page at the first page\'s resourceVersion');
    const fresh = await pages(api, CM, 2);
    assert.deepEqual(fresh.names, ['c0', 'c1', 'c2', 'c2a', 'c3'], 'a new list sees the changes');
  });
});

test('remainingItemCount: the items after this page without selectors, absent with a label or field selector', async () => {
  await withServer(async (api) => {
    for (let i = 0; i < 5; i++) await mk(api, `m${i}`, { app: i % 2 ? 'odd' : 'even' });
    const total = (await api.get(CM)).body.items.length; // the namespace may hold others
    const p = await api.get(`${CM}?limit=2`);
    assert.equal(p.body.metadata.remainingItemCount, total - 2);
    const l = await api.get(`${CM}?limit=2&labelSelector=app%3Deven`);
    assert.equal(l.body.items.length, 2);
    assert.ok(l.body.metadata.continue);
    assert.equal(l.body.metadata.remainingItemCount, undefined, 'unknown with a label selector');
    const f = await api.get(`${CM}?limit=1&fieldSelector=metadata.namespace%3Ddefault`);
    assert.ok(f.body.metadata.continue);
    assert.equal(f.body.metadata.remainingItemCount, undefined, 'unknown with a field selector');
    const evens = await pages(api, `${CM}?labelSelector=app%3Deven`, 2);
    assert.deepEqual(evens.names, ['m0', 'm2', 'm4']);
  });
});

test('compacted: 410 Expired "too old to display a consistent list result" with a token that continues from now', async () => {
  await withServer(async (api) => {
    for (const n of ['k0', 'k1', 'k2', 'k3']) await mk(api, n);
    const first = await api.get(`${CM}?limit=2`);
    await mk(api, 'k5');
    assert.equal((await api.post('/sim/faults', { compact: true })).status, 200);
    const r = await api.get(`${CM}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.equal(r.status, 410);
    assert.equal(r.body.kind, 'Status');
    assert.equal(r.body.reason, 'Expired');
    assert.match(r.body.message, /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token in this response/);
    const tok = JSON.parse(Buffer.from(r.body.metadata.continue, 'base64url').toString('utf8'));
    assert.equal(tok.rv, -1, 'rv -1: continue at the latest resourceVersion');
    const rest = await pages(api, CM, 2, await api.get(`${CM}?limit=2&continue=${encodeURIComponent(r.body.metadata.continue)}`));
    assert.deepEqual(rest.names.filter((n) => n.startsWith('k')), ['k2', 'k3', 'k5'], 'the rest as it is now, k5 included');
    assert.equal(rest.pages[0].metadata.resourceVersion, api.store.rv());
  });
});

test('malformed continue tokens: 400 "continue key is not valid: ..."', async () => {
  await withServer(async (api) => {
    const enc = (o) => encodeURIComponent(Buffer.from(JSON.stringify(o)).toString('base64url'));
    const cases = [
      ['%25%25%25', /^continue key is not valid: illegal base64 data at input byte 0$/],
      [enc({ v: 'meta.k8s.io/v2', rv: 5, start: 'a\u0000' }), /server does not recognize this encoded version/],
      [enc({ v: 'meta.k8s.io/v1', rv: 0, start: 'a\u0000' }), /incorrect encoded start resourceVersion/],
      [enc({ v: 'meta.k8s.io/v1', rv: 5, start: '' }), /encoded start key empty/],
    ];
    for (const [c, re] of cases) {
      const r = await api.get(`${CM}?limit=1&continue=${c}`);
      assert.equal(r.status, 400, c);
      assert.equal(r.body.reason, 'BadRequest');
      assert.match(r.body.message, re);
    }
  });
});
