'use strict';
// Watches vs the real apiserver: initial ADDED events, resume from a resourceVersion, label
// and field selectors (objects leaving the selection are DELETED), bookmarks,
// sendInitialEvents, timeoutSeconds, 410 Expired as an ERROR event.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startServer } = require('../lib/testkit');

let api;
test.before(async () => {
  api = await startServer({ bookmarkMs: 100 });
});
test.after(() => api.close());

const CM = '/api/v1/namespaces/default/configmaps';

test('watch without resourceVersion starts with ADDED for existing objects, then streams changes', async () => {
  await api.post(CM, { metadata: { name: 'w-a' }, data: { v: '1' } });
  const w = api.watch(`${CM}?watch=true&fieldSelector=metadata.name%3Dw-a`);
  const added = await w.waitFor((e) => e.type === 'ADDED');
  assert.equal(added.object.kind, 'ConfigMap');
  assert.equal(added.object.apiVersion, 'v1');
  const cur = (await api.get(`${CM}/w-a`)).body;
  cur.data.v = '2';
  await api.put(`${CM}/w-a`, cur);
  const mod = await w.waitFor((e) => e.type === 'MODIFIED');
  assert.equal(mod.object.data.v, '2');
  await api.del(`${CM}/w-a`);
  const del = await w.waitFor((e) => e.type === 'DELETED');
  assert.equal(del.object.metadata.name, 'w-a');
  w.close();
});

test('watch from a resourceVersion replays later events only', async () => {
  const a = (await api.post(CM, { metadata: { name: 'w-b' } })).body;
  await api.post(CM, { metadata: { name: 'w-c' } });
  const w = api.watch(`${CM}?watch=true&resourceVersion=${a.metadata.resourceVersion}`);
  const e = await w.waitFor((x) => x.object.metadata.name === 'w-c');
  assert.equal(e.type, 'ADDED');
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(!w.events.some((x) => x.object.metadata && x.object.metadata.name === 'w-b'), 'no event at or before the given resourceVersion');
  w.close();
});

test('label-selected watch: an object that stops matching is reported DELETED, one that starts matching ADDED', async () => {
  await api.post(CM, { metadata: { name: 'w-l', labels: { sel: 'yes' } } });
  const w = api.watch(`${CM}?watch=true&labelSelector=sel%3Dyes`);
  await w.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'w-l');
  await api.patch(`${CM}/w-l`, { metadata: { labels: { sel: 'no' } } }, 'application/merge-patch+json');
  await w.waitFor((e) => e.type === 'DELETED' && e.object.metadata.name === 'w-l');
  await api.patch(`${CM}/w-l`, { metadata: { labels: { sel: 'yes' } } }, 'application/merge-patch+json');
  const again = w.events.filter((e) => e.type === 'ADDED');
  await w.waitFor(() => w.events.filter((e) => e.type === 'ADDED').length === again.length + 1 || w.events.filter((e) => e.type === 'ADDED').length >= 2);
  w.close();
});

test('bookmarks carry only kind/apiVersion/metadata.resourceVersion; sendInitialEvents ends with initial-events-end', async () => {
  const w = api.watch(`${CM}?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
  const end = await w.waitFor((e) => e.type === 'BOOKMARK' && e.object.metadata.annotations);
  assert.equal(end.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
  assert.equal(end.object.kind, 'ConfigMap');
  assert.ok(w.events.indexOf(end) >= 1, 'initial ADDED events come first');
  const periodic = await w.waitFor((e) => e.type === 'BOOKMARK' && !e.object.metadata.annotations);
  assert.deepEqual(Object.keys(periodic.object).sort(), ['apiVersion', 'kind', 'metadata']);
  assert.match(periodic.object.metadata.resourceVersion, /^\d+$/);
  w.close();
});

test('timeoutSeconds ends the watch', async () => {
  const t0 = Date.now();
  const w = api.watch(`${CM}?watch=true&timeoutSeconds=1`);
  await w.ended;
  const dt = Date.now() - t0;
  assert.ok(dt >= 900 && dt < 3000, `ended after ${dt} ms`);
});

test('a resourceVersion older than the retained history gets an ERROR event with 410 Expired', async () => {
  const before = api.store.rv();
  await api.post(CM, { metadata: { name: 'w-old' } });
  api.store.compact();
  const w = api.watch(`${CM}?watch=true&resourceVersion=${Number(before) - 1}`);
  const e = await w.waitFor((x) => x.type === 'ERROR');
  assert.equal(e.object.kind, 'Status');
  assert.equal(e.object.code, 410);
  assert.equal(e.object.reason, 'Expired');
  assert.match(e.object.message, /^too old resource version: \d+ \(\d+\)$/);
  await w.ended;
  // A resourceVersion at the compaction point is still fine.
  const w2 = api.watch(`${CM}?watch=true&resourceVersion=${api.store.rv()}`);
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(!w2.events.some((x) => x.type === 'ERROR'));
  w2.close();
});

test('the history window is bounded: old resourceVersions expire without explicit compaction', async () => {
  const small = await startServer({ storeOpts: { historyLimit: 5 } });
  try {
    const first = small.store.rv();
    for (let i = 0; i < 10; i++) await small.post(CM, { metadata: { name: `h${i}` } });
    const w = small.watch(`${CM}?watch=true&resourceVersion=${first}`);
    const e = await w.waitFor((x) => x.type === 'ERROR');
    assert.equal(e.object.code, 410);
  } finally {
    await small.close();
  }
});

test('watch with Table output (kubectl get -w) sends Table rows without column definitions', async () => {
  const w = api.watch(`${CM}?watch=true&fieldSelector=metadata.name%3Dw-old`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  const e = await w.waitFor((x) => x.type === 'ADDED');
  assert.equal(e.object.kind, 'Table');
  assert.equal(e.object.rows[0].cells[0], 'w-old');
  w.close();
});
