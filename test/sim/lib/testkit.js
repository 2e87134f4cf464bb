'use strict';
// Helpers for test/sim/test/core*.test.js: an in-process API server (HTTP) and a small client.
const http = require('http');
const { Store } = require('../store');
const { SimServer } = require('../server');

async function startServer(opts = {}) {
  await require('./cel').load();
  const store = opts.store || new Store(opts.storeOpts || {});
  const token = 'test-token';
  const server = new SimServer({ store, token, tls: null, bookmarkMs: opts.bookmarkMs || 200, workload: opts.workload || (() => null) });
  const url = await server.listen();
  const api = client(url, token);
  api.store = store;
  api.server = server;
  api.url = url;
  api.close = () => server.close();
  return api;
}

// request(method, path, {body, ct, accept, token, headers}) -> {status, headers, body, text}
function client(url, token) {
  const agent = new http.Agent({ keepAlive: false });
  function request(method, path, o = {}) {
    return new Promise((resolve, reject) => {
      const u = new URL(path, url);
      const headers = Object.assign({}, o.headers);
      if (o.token !== null) headers.Authorization = `Bearer ${o.token || token}`;
      let data = null;
      if (o.body !== undefined) {
        data = typeof o.body === 'string' || Buffer.isBuffer(o.body) ? o.body : JSON.stringify(o.body);
        headers['Content-Type'] = o.ct || 'application/json';
        headers['Content-Length'] = Buffer.byteLength(data);
      }
      if (o.accept) headers.Accept = o.accept;
      const req = http.request(u, { method, headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body = null;
          try {
            body = JSON.parse(text);
          } catch (e) {
            body = null;
          }
          resolve({ status: res.statusCode, headers: res.headers, body, text });
        });
      });
      req.on('error', reject);
      if (data !== null) req.write(data);
      req.end();
    });
  }
  // watch(path) -> {events: [], next(n, timeoutMs) -> Promise<events>, ended: Promise, close()}
  function watch(path, o = {}) {
    const u = new URL(path, url);
    const events = [];
    let buf = '';
    let waiters = [];
    let endResolve;
    const ended = new Promise((r) => { endResolve = r; });
    const headers = { Authorization: `Bearer ${token}` };
    if (o.accept) headers.Accept = o.accept;
    const req = http.request(u, { method: 'GET', headers, agent }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c) => {
        buf += c;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) events.push(JSON.parse(line));
        }
        const w = waiters;
        waiters = [];
        w.forEach((f) => f());
      });
      res.on('end', () => endResolve('end'));
      res.on('close', () => endResolve('close'));
      res.on('error', () => endResolve('error'));
    });
    req.on('error', () => endResolve('error'));
    req.end();
    return {
      events,
      ended,
      async waitFor(pred, timeoutMs = 3000) {
        const end = Date.now() + timeoutMs;
        for (;;) {
          const e = events.find(pred);
          if (e) return e;
          if (Date.now() > end) throw new Error(`watch: timed out; got ${JSON.stringify(events.map((x) => x.type))}`);
          await new Promise((r) => { waiters.push(r); setTimeout(r, 50); });
        }
      },
      close() {
        req.destroy();
      },
    };
  }
  return { request, watch, get: (p, o) => request('GET', p, o), post: (p, b, o = {}) => request('POST', p, Object.assign({ body: b }, o)), put: (p, b, o = {}) => request('PUT', p, Object.assign({ body: b }, o)), patch: (p, b, ct, o = {}) => request('PATCH', p, Object.assign({ body: b, ct }, o)), del: (p, o) => request('DELETE', p, o) };
}

const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.sim.pgbench.dev' },
  spec: {
    group: 'sim.pgbench.dev',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true,
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      additionalPrinterColumns: [
        { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
        { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
        { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
      schema: {
        openAPIV3Schema: {
          type: 'object',
          required: ['spec'],
          properties: {
            spec: {
              type: 'object',
              required: ['size'],
              properties: {
                size: { type: 'integer', format: 'int32', minimum: 1, maximum: 100 },
                mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast' },
                replicas: { type: 'integer', default: 1 },
                name: { type: 'string', maxLength: 10, pattern: '^[a-z]+$' },
                tags: { type: 'array', maxItems: 3, items: { type: 'string' } },
                port: { 'x-kubernetes-int-or-string': true },
                when: { type: 'string', format: 'date-time' },
                ratio: { type: 'number', nullable: true },
                extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
            status: {
              type: 'object',
              properties: {
                phase: { type: 'string' },
                replicas: { type: 'integer' },
                conditions: { type: 'array', items: { type: 'object', required: ['type', 'status'], properties: { type: { type: 'string' }, status: { type: 'string' } } } },
              },
            },
          },
        },
      },
    }],
  },
};

const W = '/apis/sim.pgbench.dev/v1/namespaces/default/widgets';

function widget(name, spec) {
  return { apiVersion: 'sim.pgbench.dev/v1', kind: 'Widget', metadata: { name }, spec };
}

module.exports = { startServer, client, WIDGET_CRD, W, widget };
