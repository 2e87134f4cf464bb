'use strict';
// Fault injection (POST /sim/faults) and the main.js entry point: each switch has the effect
// the README documents; the server starts in well under a second over HTTPS with its own CA,
// and --state keeps the store across restarts.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const https = require('https');
const http2 = require('http2');
const { spawn } = require('child_process');
const { startServer, client } = require('../lib/testkit');

const CM = '/api/v1/namespaces/default/configmaps';

async function fault(api, f) {
  const r = await api.post('/sim/faults', f);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

test('failNext: the next N API requests get 500 with a Status body, then normal service', async () => {
  const api = await startServer();
  try {
    await fault(api, { failNext: 2, code: 500 });
    for (let i = 0; i < 2; i++) {
      const r = await api.get(CM);
      assert.equal(r.status, 500);
      assert.equal(r.body.kind, 'Status');
      assert.equal(r.body.reason, 'InternalError');
    }
    assert.equal((await api.get(CM)).status, 200);
    assert.equal((await api.get('/sim/faults')).body.failNext, 0);
  } finally {
    await api.close();
  }
});

test('failNext with a path: only matching requests fail; 409 is a Conflict Status naming the object', async () => {
  const api = await startServer();
  try {
    assert.equal((await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' } })).status, 201);
    await fault(api, { failNext: 1, code: 409, path: '/configmaps/c1' });
    assert.equal((await api.get(CM)).status, 200); // another path: not consumed
    const r = await api.get(`${CM}/c1`);
    assert.equal(r.status, 409);
    assert.equal(r.body.kind, 'Status');
    assert.equal(r.body.reason, 'Conflict');
    assert.equal(r.body.details.name, 'c1');
    assert.match(r.body.message, /^Operation cannot be fulfilled on configmaps "c1": the object has been modified/);
    assert.equal((await api.get(`${CM}/c1`)).status, 200);
  } finally {
    await api.close();
  }
});

test('refused: every refusal the clients met, injected or not, by code, method and path', async () => {
  const api = await startServer();
  try {
    const made = await api.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c2' } });
    assert.equal(made.status, 201);
    await fault(api, { failNext: 1, code: 409, path: '/configmaps/c2' });
    const stale = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c2', resourceVersion: made.body.metadata.resourceVersion }, data: { a: '1' } };
    assert.equal((await api.put(`${CM}/c2`, stale)).status, 409); // injected
    assert.equal((await api.put(`${CM}/c2`, stale)).status, 200);
    assert.equal((await api.put(`${CM}/c2`, stale)).status, 409); // a stale resourceVersion
    assert.equal((await api.get(`${CM}/nosuch?x=1`)).status, 404);
    assert.deepEqual((await api.get('/sim/faults')).body.refused, {
      [`409 PUT ${CM}/c2`]: 2,
      [`404 GET ${CM}/nosuch`]: 1,
    });
  } finally {
    await api.close();
  }
});

test('failNext with a method: only requests of that method fail (creates, not reads)', async () => {
  const api = await startServer();
  try {
    await fault(api, { failNext: 1, code: 500, path: '/configmaps', method: 'post' });
    assert.equal((await api.get('/sim/faults')).body.method, 'POST');
    assert.equal((await api.get(CM)).status, 200); // a read of the same path: not consumed
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm1' } };
    assert.equal((await api.post(CM, cm)).status, 500);
    assert.equal((await api.post(CM, cm)).status, 201);
    await fault(api, { reset: true });
    assert.equal((await api.get('/sim/faults')).body.method, null);
  } finally {
    await api.close();
  }
});

test('429 with Retry-After', async () => {
  const api = await startServer();
  try {
    await fault(api, { code: 429, retryAfter: 2 });
    const r = await api.get(CM);
    assert.equal(r.status, 429);
    assert.equal(r.headers['retry-after'], '2');
    assert.equal(r.body.reason, 'TooManyRequests');
    assert.equal(r.body.details.retryAfterSeconds, 2);
    assert.equal((await api.get(CM)).status, 200, 'only one request by default');
  } finally {
    await api.close();
  }
});

test('dropWatches closes every open watch; new watches work', async () => {
  const api = await startServer();
  try {
    const w1 = api.watch(`${CM}?watch=true`);
    const w2 = api.watch('/api/v1/namespaces?watch=true');
    await w2.waitFor((e) => e.type === 'ADDED');
    const r = await fault(api, { dropWatches: true });
    assert.equal(r.droppedWatches, 2);
    assert.ok(['close', 'error', 'end'].includes(await w1.ended));
    await w2.ended;
    const w3 = api.watch('/api/v1/namespaces?watch=true');
    await w3.waitFor((e) => e.type === 'ADDED');
    w3.close();
  } finally {
    await api.close();
  }
});

test('compact: watches and list continuations from older resourceVersions get 410', async () => {
  const api = await startServer();
  try {
    for (let i = 0; i < 3; i++) await api.post(CM, { metadata: { name: `c${i}` } });
    const rv = api.store.rv();
    const page = await api.get(`${CM}?limit=1`);
    await api.post(CM, { metadata: { name: 'after' } });
    const r = await fault(api, { compact: true });
    assert.equal(r.compactedAt, api.store.rv());
    const w = api.watch(`${CM}?watch=true&resourceVersion=${Number(rv) - 1}`);
    const e = await w.waitFor((x) => x.type === 'ERROR');
    assert.equal(e.object.code, 410);
    const cont = await api.get(`${CM}?limit=1&continue=${encodeURIComponent(page.body.metadata.continue)}`);
    assert.equal(cont.status, 410);
    assert.equal(cont.body.reason, 'Expired');
  } finally {
    await api.close();
  }
});

test('delayMs delays API responses (not /sim)', async () => {
  const api = await startServer();
  try {
    await fault(api, { delayMs: 300 });
    let t = Date.now();
    await api.get(CM);
    assert.ok(Date.now() - t >= 280);
    t = Date.now();
    await api.get('/sim/healthz');
    assert.ok(Date.now() - t < 250);
    await fault(api, { delayMs: 0 });
    t = Date.now();
    await api.get(CM);
    assert.ok(Date.now() - t < 250);
  } finally {
    await api.close();
  }
});

test('delayWatch: one resource\'s watch events (open and new watches) arrive late and in order; other watches, lists and GETs are current', async () => {
  const api = await startServer();
  try {
    const r = await fault(api, { delayWatch: { configmaps: 600 } });
    assert.deepEqual(r.delayWatch, { configmaps: 600 });
    const wc = api.watch(`${CM}?watch=true`);
    const wn = api.watch('/api/v1/namespaces?watch=true');
    await wn.waitFor((e) => e.type === 'ADDED'); // namespaces: at once
    const t0 = Date.now();
    await api.post(CM, { metadata: { name: 'd1' } });
    await api.post(CM, { metadata: { name: 'd2' } });
    assert.equal((await api.get(`${CM}/d2`)).status, 200, 'a GET sees the object at once');
    assert.equal((await api.get(CM)).body.items.length, 2, 'so does a list');
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(wc.events.length, 0, 'nothing on the configmaps watch yet');
    await wc.waitFor((e) => e.object.metadata.name === 'd2', 3000);
    assert.ok(Date.now() - t0 >= 550, `arrived after ${Date.now() - t0} ms`);
    assert.deepEqual(wc.events.map((e) => e.object.metadata.name), ['d1', 'd2'], 'in order');
    // a new watch's initial events are late too
    const w2 = api.watch(`${CM}?watch=true`);
    await new Promise((res) => setTimeout(res, 250));
    assert.equal(w2.events.length, 0);
    await w2.waitFor((e) => e.object.metadata.name === 'd2', 3000);
    // 0 turns it off; reset clears it
    assert.deepEqual((await fault(api, { delayWatch: { configmaps: 0 } })).delayWatch, {});
    const t1 = Date.now();
    await api.post(CM, { metadata: { name: 'd3' } });
    await wc.waitFor((e) => e.object.metadata.name === 'd3', 3000);
    assert.ok(Date.now() - t1 < 400);
    await fault(api, { delayWatch: { pods: 100 } });
    assert.deepEqual((await fault(api, { reset: true })).delayWatch, {});
    assert.equal((await api.post('/sim/faults', { delayWatch: [1] })).status, 400);
    wc.close();
    wn.close();
    w2.close();
  } finally {
    await api.close();
  }
});

test('restart: every connection is closed, the same port serves again, the store is kept', async () => {
  const api = await startServer();
  try {
    await api.post(CM, { metadata: { name: 'kept' } });
    const w = api.watch(`${CM}?watch=true`);
    await w.waitFor((e) => e.type === 'ADDED');
    const port = api.server.port;
    const r = await fault(api, { restart: true });
    assert.equal(r.restarting, true);
    await w.ended;
    let ok = null;
    for (let i = 0; i < 50 && !ok; i++) {
      await new Promise((res) => setTimeout(res, 20));
      try {
        const g = await api.get(`${CM}/kept`);
        if (g.status === 200) ok = g;
      } catch (e) {
        // not listening yet
      }
    }
    assert.ok(ok, 'served again');
    assert.equal(api.server.port, port);
  } finally {
    await api.close();
  }
});

test('unknown /sim paths are 404 when the workload does not handle them', async () => {
  const api = await startServer();
  try {
    assert.equal((await api.post('/sim/nope', {})).status, 404);
    const h = await api.get('/sim/healthz', { token: null });
    assert.equal(h.status, 200);
    assert.equal(h.body.ok, true);
  } finally {
    await api.close();
  }
});

function startMain(args, env = {}) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const p = spawn(process.execPath, [path.join(__dirname, '..', 'main.js'), ...args], { env: Object.assign({}, process.env, env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stderr.on('data', (d) => { err += d; });
    p.stdout.on('data', (d) => {
      out += d;
      const m = /^READY (\S+)$/m.exec(out);
      if (m) resolve({ proc: p, url: m[1], ms: Date.now() - t0 });
    });
    p.on('exit', (code) => reject(new Error(`main.js exited ${code}: ${err}`)));
  });
}

function stop(p) {
  return new Promise((r) => {
    p.removeAllListeners('exit');
    p.on('exit', r);
    p.kill('SIGTERM');
  });
}

test('main.js: HTTPS (HTTP/1.1 and h2) with its own CA, kubeconfig with a token, READY', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-main-'));
  const kc = path.join(dir, 'kubeconfig');
  const m = await startMain(['--port', '0', '--kubeconfig', kc]);
  try {
    assert.match(m.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    // how fast is for make bench (well under a second on an idle machine); a test only checks
    // that it does not hang: wall-clock bounds fail on a loaded machine, not on a bug
    assert.ok(m.ms < 15000, `started in ${m.ms} ms`);
    const text = fs.readFileSync(kc, 'utf8');
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(text)[1], 'base64');
    const token = /token: (\S+)/.exec(text)[1];
    const get = (tok) => new Promise((resolve, reject) => {
      https.get(`${m.url}/api/v1/namespaces/default`, { ca, headers: tok ? { Authorization: `Bearer ${tok}` } : {} }, (res) => {
        let b = '';
        res.on('data', (d) => { b += d; });
        res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(b) }));
      }).on('error', reject);
    });
    const ok = await get(token); // verifies the server certificate against the CA (HTTP/1.1)
    assert.equal(ok.status, 200);
    assert.equal(ok.body.metadata.name, 'default');
    assert.equal((await get(null)).status, 401);
    // HTTP/2 as the real apiserver: a request and a watch on one session, with no
    // connection-specific headers (a Transfer-Encoding would be a protocol error in h2)
    const session = http2.connect(m.url, { ca });
    try {
      const h2get = (p) => new Promise((resolve, reject) => {
        const st = session.request({ ':path': p, authorization: `Bearer ${token}` });
        let b = '';
        let h = null;
        st.on('response', (hd) => { h = hd; });
        st.on('data', (d) => {
          b += d;
          if (p.includes('watch=1') && b.includes('\n')) st.close(); // the first event is enough
        });
        st.on('close', () => resolve({ headers: h, body: b }));
        st.on('error', reject);
        st.end();
      });
      const r = await h2get('/api/v1/namespaces/default');
      assert.equal(r.headers[':status'], 200);
      assert.equal(JSON.parse(r.body).metadata.name, 'default');
      const w = await h2get('/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3Ddefault');
      assert.equal(w.headers[':status'], 200);
      assert.equal(w.headers['transfer-encoding'], undefined);
      const ev = JSON.parse(w.body.split('\n')[0]);
      assert.equal(ev.type, 'ADDED');
      assert.equal(ev.object.metadata.name, 'default');
    } finally {
      session.close();
    }
  } finally {
    await stop(m.proc);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('main.js --state keeps objects and the resourceVersion counter across restarts', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-state-'));
  const state = path.join(dir, 'state.json');
  const kc = path.join(dir, 'kubeconfig');
  try {
    let m = await startMain(['--http', '--state', state, '--kubeconfig', kc]);
    let token = /token: (\S+)/.exec(fs.readFileSync(kc, 'utf8'))[1];
    let api = client(m.url, token);
    const c = await api.post(CM, { metadata: { name: 'persisted' }, data: { a: '1' } });
    assert.equal(c.status, 201);
    await stop(m.proc);
    m = await startMain(['--http', '--state', state, '--kubeconfig', kc]);
    token = /token: (\S+)/.exec(fs.readFileSync(kc, 'utf8'))[1];
    api = client(m.url, token);
    const g = await api.get(`${CM}/persisted`);
    assert.equal(g.status, 200);
    assert.equal(g.body.metadata.uid, c.body.metadata.uid);
    const n = await api.post(CM, { metadata: { name: 'next' } });
    assert.ok(Number(n.body.metadata.resourceVersion) > Number(c.body.metadata.resourceVersion));
    await stop(m.proc);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
