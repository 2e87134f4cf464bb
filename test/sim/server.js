'use strict';
// HTTP(S) front of the simulated kube-apiserver: routing, auth, content negotiation,
// CRUD/patch/watch semantics and fault injection. Objects live in store.js.

const http = require('http');
const http2 = require('http2');
const { URL } = require('url');
let yamlMod = null;
const yaml = { load: (t) => (yamlMod = yamlMod || require('js-yaml')).load(t) };
const { StoreError, conflict, qualifiedResource } = require('./store');
const S = require('./lib/status');
const disc = require('./lib/discovery');
const builtin = require('./lib/builtin');
const crdSchema = require('./lib/crd-schema');
const celCost = require('./lib/cel-cost');
const patchLib = require('./lib/patch');
const { toTable } = require('./lib/table');
const { compileLabelSelector, parseFieldSelector, SelectorError } = require('./lib/selectors');
const events = require('./lib/events');
const protobuf = require('./lib/protobuf');
const managed = require('./lib/managed');
const rbac = require('./lib/rbac');
const { parseRFC3339 } = require('./lib/gotime');

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const { clone } = require('./lib/clone');
const listPages = require('./lib/listpages');

// Field selectors the real apiserver supports per resource (besides metadata.name/namespace).
const FIELD_LABELS = {
  'core/pods': ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  'core/events': ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion',
    'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'],
  'events.k8s.io/events': ['regarding.kind', 'regarding.namespace', 'regarding.name', 'regarding.uid', 'regarding.apiVersion', 'reason', 'reportingController', 'type'],
  'core/secrets': ['type'],
  'core/namespaces': ['status.phase'],
  'core/nodes': ['spec.unschedulable'],
  'batch/jobs': ['status.successful'],
  'core/persistentvolumeclaims': [],
};

function getPath(o, p) {
  let cur = o;
  for (const k of p.split('.')) {
    if (cur == null) return undefined;
    cur = cur[k];
  }
  return cur;
}

class Faults {
  constructor() {
    this.reset();
  }

  reset() {
    this.failNext = 0;
    this.failCode = 500;
    this.failPath = null; // only requests whose path contains this consume failNext
    this.failMethod = null; // and, when set, only requests of this method (POST, PATCH, ...)
    this.retryAfter = null;
    this.delayMs = 0;
    this.watchDelays = {}; // resource plural -> ms: that resource's watch events arrive this late
    this.refused = {}; // "409 PUT /apis/.../status" -> how many: what the clients met, injected or not
  }

  state() {
    return { failNext: this.failNext, code: this.failCode, path: this.failPath, method: this.failMethod, retryAfter: this.retryAfter, delayMs: this.delayMs, delayWatch: Object.assign({}, this.watchDelays), refused: Object.assign({}, this.refused) };
  }

  refusal(code, req) {
    const key = `${code} ${req.method} ${new URL(req.url, 'http://x').pathname}`;
    this.refused[key] = (this.refused[key] || 0) + 1;
  }

  watchDelay(plural) {
    return this.watchDelays[plural] || 0;
  }
}

class SimServer {
  // opts: {store, token, tls: {key, cert} | null, host, port, workload: getter fn, log}
  constructor(opts) {
    this.store = opts.store;
    this.registry = this.store.registry;
    this.token = opts.token;
    this.tls = opts.tls || null;
    this.host = opts.host || '127.0.0.1';
    this.port = opts.port || 0;
    this.getWorkload = opts.workload || (() => null);
    this.log = opts.log || (() => {});
    this.faults = new Faults();
    this.watches = new Set();
    this.requests = 0; // API requests served (not /sim/*), for GET /sim/stats
    this.sockets = new Set();
    this.bookmarkMs = opts.bookmarkMs || 1000;
    this.server = null;
  }

  url() {
    return `${this.tls ? 'https' : 'http'}://${this.host}:${this.port}`;
  }

  listen() {
    const handler = (req, res) => this._handle(req, res).catch((e) => this._fail(res, e));
    // Over TLS, HTTP/2 (ALPN h2) and HTTP/1.1 as the real kube-apiserver: Go clients (kubectl,
    // helm) and libcurl choose h2 and multiplex every request over one connection.
    this.server = this.tls
      ? http2.createSecureServer({ key: this.tls.key, cert: this.tls.cert, allowHTTP1: true }, handler)
      : http.createServer(handler);
    this.server.keepAliveTimeout = 30000;
    this.server.requestTimeout = 0;
    this.server.headersTimeout = 60000;
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    this.server.on('secureConnection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, this.host, () => {
        this.port = this.server.address().port;
        this.server.removeListener('error', reject);
        resolve(this.url());
      });
    });
  }

  dropWatches() {
    const n = this.watches.size;
    for (const w of [...this.watches]) w.drop();
    return n;
  }

  async close() {
    this.dropWatches();
    if (!this.server) return;
    const srv = this.server;
    this.server = null;
    await new Promise((resolve) => {
      srv.close(() => resolve());
      for (const s of this.sockets) s.destroy();
      this.sockets.clear();
    });
  }

  // Close every connection and listen again on the same port; the store is kept.
  async restart() {
    const port = this.port;
    await this.close();
    this.port = port;
    for (let i = 0; i < 50; i++) {
      try {
        await this.listen();
        return;
      } catch (e) {
        if (e.code !== 'EADDRINUSE') throw e;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    throw new Error('could not listen again on port ' + port);
  }

  // ---- response helpers ----
  _send(res, code, body, headers = {}) {
    if (res.headersSent) {
      res.end();
      return;
    }
    const data = typeof body === 'string' ? body : JSON.stringify(body);
    const h = Object.assign({ 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Content-Length': Buffer.byteLength(data) }, headers);
    if (res._warnings && res._warnings.length) h.Warning = res._warnings.map((w) => `299 - ${JSON.stringify(w)}`);
    res.writeHead(code, h);
    res.end(data);
  }

  _fail(res, e) {
    if (e instanceof StoreError) {
      this.faults.refusal(e.code, res.req);
      const h = {};
      if (e.retryAfter) h['Retry-After'] = String(e.retryAfter);
      this._send(res, e.code, e.status(), h);
      return;
    }
    if (e instanceof SelectorError) {
      this._send(res, 400, S.badRequest(`unable to parse requirement: ${e.message}`).status());
      return;
    }
    this.log(`internal error: ${e && e.stack}`);
    this._send(res, 500, S.err(500, 'InternalError', `Internal error occurred: ${e && e.message}`).status());
  }

  // ---- request entry ----
  async _handle(req, res) {
    const u = new URL(req.url, 'http://x');
    const path = u.pathname.replace(/\/+$/, '') || '/';
    const body = await readBody(req);
    res._warnings = [];
    this.log(`${req.method} ${req.url} ct=${req.headers["content-type"] || ""} accept=${req.headers.accept || ""} ua=${req.headers["user-agent"] || ""}`);

    if (path === '/sim' || path.startsWith('/sim/')) return this._handleSim(req, res, path, body);
    this.requests += 1;

    if (this.faults.delayMs > 0) await new Promise((r) => setTimeout(r, this.faults.delayMs));
    if (this.faults.failNext > 0 && (!this.faults.failPath || path.includes(this.faults.failPath)) &&
        (!this.faults.failMethod || req.method === this.faults.failMethod)) {
      this.faults.failNext -= 1;
      const code = this.faults.failCode;
      if (code === 409) { // answered as an update with a stale resourceVersion is
        const m = path.match(/\/(?:apis\/([^/]+)\/[^/]+|api\/v1)\/(?:namespaces\/[^/]+\/)?([^/]+)\/([^/?]+)/) || [];
        throw conflict(`${m[1] || 'core'}/${m[2] || 'objects'}`, m[3] || '');
      }
      const reason = code === 429 ? 'TooManyRequests' : code === 503 ? 'ServiceUnavailable' : code === 504 ? 'Timeout' : 'InternalError';
      const msg = code === 429 ? 'Too many requests, please try again later.' : code === 500 ? 'Internal error occurred: injected fault' : 'injected fault';
      const e = S.err(code, reason, msg, code === 429 && this.faults.retryAfter ? { retryAfterSeconds: this.faults.retryAfter } : undefined);
      if (this.faults.retryAfter) e.retryAfter = this.faults.retryAfter;
      throw e;
    }

    if (['/healthz', '/livez', '/readyz'].includes(path)) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }

    const auth = req.headers.authorization || '';
    let user = null; // null: the kubeconfig's admin token, not subject to RBAC
    if (auth !== `Bearer ${this.token}`) {
      user = this._tokenUser(auth);
      if (!user) {
        this._send(res, 401, S.unauthorized().status());
        return;
      }
    }
    const authorize = (attrs) => {
      if (!user || rbac.allowed(this.store, user, attrs)) return;
      const e = S.err(403, 'Forbidden', rbac.forbiddenMessage(user, attrs),
        attrs.nonResource ? {} : Object.assign(attrs.name ? { name: attrs.name } : {}, { group: attrs.group, kind: attrs.resource }));
      throw e;
    };
    if (!/^\/(api|apis)(\/|$)/.test(path)) authorize({ nonResource: true, verb: req.method.toLowerCase() === 'get' ? 'get' : req.method.toLowerCase(), path });

    if (path === '/version') return this._send(res, 200, disc.VERSION);
    if (path === '/api' || path === '/apis') {
      const av = disc.aggregatedVersion(req.headers.accept);
      if (av) {
        return this._send(res, 200, disc.aggregated(this.registry, path === '/api', `apidiscovery.k8s.io/${av}`),
          { 'Content-Type': `application/json;g=apidiscovery.k8s.io;v=${av};as=APIGroupDiscoveryList` });
      }
      if (path === '/api') return this._send(res, 200, disc.apiVersions(`${this.host}:${this.port}`));
      return this._send(res, 200, disc.groupList(this.registry));
    }
    if (path === '/openapi/v2') {
      // Clients ask for protobuf; the document is minimal (no definitions), so kubectl and
      // helm use their compiled-in types for strategic merge and skip client-side schema checks.
      const acc = req.headers.accept || '';
      if (acc.includes('json')) return this._send(res, 200, { swagger: '2.0', info: { title: 'Kubernetes', version: disc.VERSION.gitVersion }, paths: {}, definitions: {} });
      const pb = disc.openapiV2Proto();
      res.writeHead(200, { 'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'Content-Length': pb.length });
      res.end(pb);
      return;
    }
    if (path === '/openapi/v3') return this._send(res, 200, disc.openapiRoot(this.registry));
    if (path.startsWith('/openapi/v3/')) {
      const doc = disc.openapiGV(this.registry, path.slice('/openapi/v3/'.length));
      if (!doc) throw S.notFoundPath();
      return this._send(res, 200, doc);
    }

    const segs = path.split('/').slice(1).map(decodeURIComponent);
    let group;
    let version;
    let rest;
    if (segs[0] === 'api') {
      if (segs.length === 1) return this._send(res, 200, disc.apiVersions(`${this.host}:${this.port}`));
      if (segs[1] !== 'v1') throw S.notFoundPath();
      group = '';
      version = 'v1';
      rest = segs.slice(2);
    } else if (segs[0] === 'apis') {
      if (segs.length === 2) {
        const g = disc.apiGroup(this.registry, segs[1]);
        if (!g) throw S.notFoundPath();
        return this._send(res, 200, g);
      }
      group = segs[1];
      version = segs[2];
      rest = segs.slice(3);
    } else {
      throw S.notFoundPath();
    }
    if (rest.length === 0 || (segs[0] === 'apis' && segs.length === 2)) {
      authorize({ nonResource: true, verb: 'get', path });
    }
    if (rest.length === 0) {
      const rl = disc.resourceList(this.registry, group, version);
      if (!rl.resources.length) throw S.notFoundPath();
      return this._send(res, 200, rl);
    }
    let watchPrefix = false;
    if (rest[0] === 'watch') {
      watchPrefix = true;
      rest = rest.slice(1);
    }
    let ns = null;
    if (rest[0] === 'namespaces' && rest.length >= 3 && !(group === '' && rest.length === 3 && ['status', 'finalize'].includes(rest[2]))) {
      ns = rest[1];
      rest = rest.slice(2);
    }
    const [plural, name, sub, ...extra] = rest;
    if (extra.length) throw S.notFoundPath();
    const info = this.registry.lookup(group, version, plural);
    if (!info) throw S.notFoundPath();
    if (ns !== null && !info.namespaced) throw S.notFoundPath();
    if (name !== undefined && info.namespaced && ns === null) throw S.notFoundPath();
    if (sub && !['status', 'scale', 'log', 'finalize', 'token'].includes(sub)) throw S.notFoundPath();
    if (sub === 'log' && info.id !== 'core/pods') throw S.notFoundPath();
    if (sub === 'token' && info.id !== 'core/serviceaccounts') throw S.notFoundPath();
    if (sub === 'scale' && !this._hasSub(info, version, 'scale')) throw S.notFoundPath();
    if (sub === 'status' && !this._hasSub(info, version, 'status')) throw S.notFoundPath();
    const isWatch = watchPrefix || (name === undefined && req.method === 'GET' && isTrue(u.searchParams.get('watch')));
    const verb = isWatch ? 'watch' : req.method === 'GET' ? (name === undefined ? 'list' : 'get')
      : req.method === 'POST' ? 'create' : req.method === 'PUT' ? 'update' : req.method === 'PATCH' ? 'patch'
        : req.method === 'DELETE' ? (name === undefined ? 'deletecollection' : 'delete') : req.method.toLowerCase();
    authorize({ verb, group, resource: plural, sub, name, namespace: ns || '' });
    const ctx = { req, res, u, q: u.searchParams, info, version, ns, name, sub, body, method: req.method };
    if (watchPrefix || (name === undefined && req.method === 'GET' && isTrue(ctx.q.get('watch')))) {
      if (watchPrefix && name !== undefined) {
        ctx.fieldSelectorExtra = `metadata.name=${name}`;
      }
      return this._watch(ctx);
    }
    return this._dispatch(ctx);
  }

  _hasSub(info, version, s) {
    if (info.builtin) return info.subresources.includes(s);
    const v = info.versionInfo[version];
    return !!(v && v.subresources && v.subresources[s] !== undefined);
  }

  async _dispatch(ctx) {
    const { method, name, sub } = ctx;
    if (name === undefined) {
      if (method === 'GET') return this._list(ctx);
      if (method === 'POST') return this._create(ctx);
      if (method === 'DELETE') return this._deleteCollection(ctx);
      throw S.methodNotAllowed();
    }
    if (sub === 'log') {
      if (method !== 'GET') throw S.methodNotAllowed();
      return this._log(ctx);
    }
    if (sub === 'scale') return this._scale(ctx);
    if (sub === 'token') {
      if (method !== 'POST') throw S.methodNotAllowed();
      return this._token(ctx);
    }
    if (method === 'GET') return this._get(ctx);
    if (method === 'PUT') return this._update(ctx);
    if (method === 'PATCH') return this._patch(ctx);
    if (method === 'DELETE' && !sub) return this._delete(ctx);
    throw S.methodNotAllowed();
  }

  // ---- helpers ----
  _storeRes(info) {
    return info.id === 'events.k8s.io/events' ? 'core/events' : info.id;
  }

  _external(info, version, obj) {
    if (!obj) return obj;
    if (info.id === 'events.k8s.io/events') return events.toEventsV1(obj);
    const o = obj;
    o.apiVersion = info.group ? `${info.group}/${version}` : 'v1';
    o.kind = info.kind;
    return reorderTop(o);
  }

  _internal(info, obj) {
    if (info.id === 'events.k8s.io/events') return events.toCoreV1(obj);
    if (!info.builtin && info.storageVersion) obj.apiVersion = `${info.group}/${info.storageVersion}`;
    return obj;
  }

  _parseBody(ctx, allowPatch) {
    const ct = (ctx.req.headers['content-type'] || 'application/json').split(';')[0].trim();
    const text = ctx.body.toString('utf8');
    if (!text.trim()) throw S.badRequest('the body of the request was empty');
    if (allowPatch) {
      if (!['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml', 'application/apply-patch+cbor'].includes(ct)) {
        throw S.unsupportedMedia(ct, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'].concat(ctx.info.builtin ? ['application/strategic-merge-patch+json'] : []));
      }
    }
    try {
      if (ct === 'application/yaml' || ct === 'application/apply-patch+yaml') return { ct, value: yaml.load(text) };
      if (ct === 'application/vnd.kubernetes.protobuf') {
        if (!protobuf.isSupported(ctx.info.id) || allowPatch) throw S.unsupportedMedia(ct, ['application/json', 'application/yaml']);
        try {
          return { ct, value: protobuf.decode(ctx.body) };
        } catch (e) {
          if (e.unsupported) throw S.unsupportedMedia(ct, ['application/json', 'application/yaml']);
          throw S.badRequest(`error decoding protobuf: ${e.message}`);
        }
      }
      return { ct, value: JSON.parse(text) };
    } catch (e) {
      if (e instanceof StoreError) throw e;
      if (allowPatch) throw S.badRequest(`error decoding patch: ${e.message}`);
      throw S.badRequest(`couldn't get version/kind; json parse error: ${goJSONError(e.message)}`);
    }
  }

  _fieldValidation(ctx) {
    const fv = ctx.q.get('fieldValidation') || 'Warn';
    if (!['Ignore', 'Warn', 'Strict'].includes(fv)) {
      throw S.badRequest(`fieldValidation parameter unsupported: ${fv}`);
    }
    return fv;
  }

  _dryRun(ctx) {
    const d = ctx.q.getAll('dryRun');
    for (const x of d) {
      if (x !== 'All') {
        throw S.err(422, 'Invalid', `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"${x}"}`, {
          group: 'meta.k8s.io', kind: 'CreateOptions', causes: [{ reason: 'FieldValueNotSupported', message: `Unsupported value: []string{"${x}"}`, field: 'dryRun' }],
        });
      }
    }
    return d.length > 0;
  }

  _manager(ctx) {
    const fm = ctx.q.get('fieldManager');
    if (fm) {
      if (fm.length > 128) throw S.err(422, 'Invalid', `fieldManager: Too long: may not be more than 128 bytes`);
      return fm;
    }
    const ua = ctx.req.headers['user-agent'] || 'unknown';
    return ua.split('/')[0];
  }

  // Decode + unknown fields + defaults + validation. Returns the admitted object.
  _admit(ctx, obj, { op, old, subresource }) {
    const { info, version } = ctx;
    if (!isObj(obj)) throw S.badRequest(`Object 'Kind' is missing in '${JSON.stringify(obj)}'`);
    const apiVersion = info.group ? `${info.group}/${version}` : 'v1';
    if (obj.apiVersion === undefined) obj.apiVersion = apiVersion;
    if (obj.kind === undefined) obj.kind = info.kind;
    if (obj.kind !== info.kind || obj.apiVersion !== apiVersion) {
      if (obj.apiVersion !== apiVersion && obj.kind === info.kind) {
        throw S.badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion})`);
      }
      throw S.badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${info.kind})`);
    }
    const fv = this._fieldValidation(ctx);
    const handled = `${info.kind} in version "${version}" cannot be handled as a ${info.kind}`;
    let unknown = [];
    let schemaErrors = [];
    if (info.builtin) {
      try {
        unknown = builtin.decode(info.id, obj).unknown;
      } catch (e) {
        if (e instanceof builtin.DecodeError) throw S.badRequest(`${handled}: ${e.message}`);
        throw e;
      }
      const b64 = builtin.checkBase64(info.id, obj);
      if (b64) throw S.badRequest(`${handled}: ${b64}`);
    } else {
      const schema = crdSchema.schemaFor(info, version);
      const r = crdSchema.processCustomResource(schema, obj, subresource ? null : old);
      unknown = r.unknown;
      schemaErrors = r.errors;
    }
    if (unknown.length) {
      if (fv === 'Strict') throw S.badRequest(`${handled}: strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`);
      if (fv === 'Warn') for (const f of unknown) ctx.res._warnings.push(`unknown field "${f}"`);
    }
    if (info.builtin) {
      builtin.defaults(info.id, obj, { create: op === 'create', old: subresource ? null : old, defaultStorageClass: this._defaultStorageClass() });
    }
    if (info.id === 'events.k8s.io/events' || info.id === 'core/events') {
      // nothing extra
    }
    if (op === 'create' && info.id === 'batch/jobs') {
      ctx.uid = require('crypto').randomUUID();
      obj.metadata = obj.metadata || {};
      obj.metadata.uid = ctx.uid;
      builtin.jobPrepareCreate(obj);
    }
    let causes = [];
    if (info.builtin) {
      const m = obj.metadata || {};
      causes = builtin.validate(info.id, obj, subresource ? null : old);
      if (op === 'create' && !m.name && !m.generateName) causes.unshift({ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name or generateName is required' });
      if (info.id === 'apiextensions.k8s.io/customresourcedefinitions') causes.push(...this._validateCRD(obj, old));
    } else {
      causes = schemaErrors;
      const m = obj.metadata || {};
      builtin.validateMeta(info.id, obj, causes);
      if (op === 'create' && !m.name && !m.generateName) causes.unshift({ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name or generateName is required' });
    }
    if (old && old.metadata && old.metadata.deletionTimestamp && obj.metadata) {
      const added = (obj.metadata.finalizers || []).filter((f) => !(old.metadata.finalizers || []).includes(f));
      if (added.length) {
        causes.push({ field: 'metadata.finalizers', reason: 'FieldValueForbidden', message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}` });
      }
    }
    if (subresource === 'status') causes = causes.filter((c) => c.field.startsWith('status') || c.field.startsWith('metadata'));
    else if (this.registry.hasStatus(this._storeRes(info)) && op !== 'create') causes = causes.filter((c) => !c.field.startsWith('status'));
    else if (this.registry.hasStatus(this._storeRes(info)) && op === 'create') causes = causes.filter((c) => !c.field.startsWith('status'));
    if (causes.length) throw S.invalid(info, (obj.metadata && obj.metadata.name) || '', causes);
    return obj;
  }

  _defaultStorageClass() {
    for (const sc of this.store.list('storage.k8s.io/storageclasses', null)) {
      if ((sc.metadata.annotations || {})['storageclass.kubernetes.io/is-default-class'] === 'true') return sc.metadata.name;
    }
    return null;
  }

  _validateCRD(crd, old) {
    const out = [];
    const s = crd.spec || {};
    const n = s.names || {};
    if (!s.group) out.push({ field: 'spec.group', reason: 'FieldValueRequired', message: 'Required value' });
    else if (!s.group.includes('.')) out.push({ field: 'spec.group', reason: 'FieldValueInvalid', message: `Invalid value: "${s.group}": should be a domain with at least one dot` });
    if (!n.plural) out.push({ field: 'spec.names.plural', reason: 'FieldValueRequired', message: 'Required value' });
    if (!n.kind) out.push({ field: 'spec.names.kind', reason: 'FieldValueRequired', message: 'Required value' });
    if (n.plural && s.group && crd.metadata && crd.metadata.name !== `${n.plural}.${s.group}`) {
      out.push({ field: 'metadata.name', reason: 'FieldValueInvalid', message: `Invalid value: "${crd.metadata.name}": must be spec.names.plural+"."+spec.group` });
    }
    if (!['Namespaced', 'Cluster'].includes(s.scope)) out.push({ field: 'spec.scope', reason: 'FieldValueNotSupported', message: `Unsupported value: "${s.scope || ''}": supported values: "Cluster", "Namespaced"` });
    const vs = s.versions || [];
    if (!vs.length) out.push({ field: 'spec.versions', reason: 'FieldValueInvalid', message: 'Invalid value: "null": must have exactly one version marked as storage version' });
    else if (vs.filter((v) => v.storage).length !== 1) out.push({ field: 'spec.versions', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(vs.map((v) => v.name))}: must have exactly one version marked as storage version` });
    vs.forEach((v, i) => {
      const sc = v.schema && v.schema.openAPIV3Schema;
      if (!sc) out.push({ field: `spec.versions[${i}].schema.openAPIV3Schema`, reason: 'FieldValueRequired', message: 'Required value: schemas are required' });
      else if (sc.type !== 'object') out.push({ field: `spec.versions[${i}].schema.openAPIV3Schema.type`, reason: 'FieldValueRequired', message: 'Required value: must not be empty at the root' });
    });
    if (old && old.spec && old.spec.scope !== s.scope) out.push({ field: 'spec.scope', reason: 'FieldValueInvalid', message: `Invalid value: "${s.scope}": field is immutable` });
    if (old && old.spec && old.spec.group !== s.group) out.push({ field: 'spec.group', reason: 'FieldValueInvalid', message: `Invalid value: "${s.group}": field is immutable` });
    // x-kubernetes-validations: compiled and their estimated cost held to the budgets, on create
    // and update alike, as kube-apiserver 1.25 does (lib/cel-cost.js)
    out.push(...celCost.validateCRD(crd));
    return out;
  }

  _crdStatus(crd) {
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const prev = (crd.status && crd.status.conditions) || [];
    const cond = (type, reason, message) => {
      const p = prev.find((c) => c.type === type && c.status === 'True');
      return { type, status: 'True', lastTransitionTime: p ? p.lastTransitionTime : now, reason, message };
    };
    return {
      conditions: [cond('NamesAccepted', 'NoConflicts', 'no conflicts found'), cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted')],
      acceptedNames: clone(crd.spec.names),
      storedVersions: [...new Set([...((crd.status && crd.status.storedVersions) || []), ...(crd.spec.versions || []).filter((v) => v.storage).map((v) => v.name)])],
    };
  }

  // ---- verbs ----
  _list(ctx) {
    const { info, version, ns, q, res } = ctx;
    const storeRes = this._storeRes(info);
    const fsel = q.get('fieldSelector');
    const filter = this._fieldFilter(info, fsel);
    const ls = q.get('labelSelector');
    const match = compileLabelSelector(ls);
    const limit = Number(q.get('limit') || 0);
    const cont = q.get('continue');
    const qrv = q.get('resourceVersion');
    const rvMatch = q.get('resourceVersionMatch');
    if (rvMatch) {
      if (!qrv) throw S.badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
      if (!['Exact', 'NotOlderThan'].includes(rvMatch)) throw S.badRequest(`resourceVersionMatch: Unsupported value: "${rvMatch}": supported values: "Exact", "NotOlderThan"`);
      if (cont) throw S.badRequest('resourceVersionMatch is forbidden for continue');
    }
    if (qrv && qrv !== '0' && !cont) {
      if (!/^\d+$/.test(qrv)) throw S.badRequest(`invalid resource version: strconv.ParseUint: parsing "${qrv}": invalid syntax`);
      if (Number(qrv) > Number(this.store.rv())) {
        throw S.err(504, 'Timeout', `Timeout: Too large resource version: ${qrv}, current: ${this.store.rv()}`, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
      }
      if (rvMatch === 'Exact' && Number(qrv) < this.store.historyStart) {
        throw S.err(410, 'Expired', `The resourceVersion for the provided list is too old.`);
      }
      if (rvMatch === 'Exact' && qrv !== this.store.rv()) {
        // Only the current state is kept; an exact older snapshot cannot be served.
        throw S.err(410, 'Expired', `The resourceVersion for the provided list is too old.`);
      }
    }
    const page = listPages.page(this, storeRes, ns, limit, cont);
    let items = page.objects.filter((o) => match(o.metadata.labels || {}) && filter(o));
    const meta = { resourceVersion: String(page.rv) };
    if (limit > 0 && items.length > limit) {
      items = items.slice(0, limit);
      meta.continue = listPages.token(page.rv, page.relKey(items[items.length - 1]));
      // as etcd3's store: a count only without selectors (it would count what they filter out)
      if (!ls && !fsel) meta.remainingItemCount = page.objects.length - limit;
    }
    items = items.map((o) => this._external(info, version, clone(o)));
    if (wantsTable(ctx.req)) {
      return this._send(res, 200, toTable(info, version, items, meta, q.get('includeObject') || 'Metadata', false));
    }
    if (info.builtin) items.forEach((o) => { delete o.apiVersion; delete o.kind; });
    return this._send(res, 200, { kind: info.listKind, apiVersion: info.group ? `${info.group}/${version}` : 'v1', metadata: meta, items });
  }

  _fieldFilter(info, sel, extra) {
    let reqs = parseFieldSelector(sel);
    if (extra) reqs = reqs.concat(parseFieldSelector(extra));
    if (!reqs.length) return () => true;
    const allowed = new Set(['metadata.name', 'metadata.namespace'].concat(FIELD_LABELS[info.id] || []));
    for (const r of reqs) {
      if (!allowed.has(r.key)) {
        throw S.badRequest(`field label not supported: ${r.key}`);
      }
    }
    return (o) => {
      const ext = info.id === 'events.k8s.io/events' ? events.toEventsV1(clone(o)) : o;
      for (const r of reqs) {
        let v = getPath(ext, r.key);
        if (r.key === 'source' && info.id === 'core/events') v = (o.source && o.source.component) || '';
        if (r.key === 'status.successful' && v === undefined) v = 0;
        if (r.key === 'spec.hostNetwork' && v === undefined) v = false;
        v = v === undefined || v === null ? '' : String(v);
        if (r.op === '=' && v !== r.value) return false;
        if (r.op === '!=' && v === r.value) return false;
      }
      return true;
    };
  }

  _get(ctx) {
    const { info, version, ns, name, res } = ctx;
    const o = this.store.get(this._storeRes(info), ns, name);
    if (!o) throw notFound(info, name);
    const ext = this._external(info, version, o);
    if (wantsTable(ctx.req)) return this._send(res, 200, toTable(info, version, [ext], { resourceVersion: o.metadata.resourceVersion }, ctx.q.get('includeObject') || 'Metadata'));
    return this._send(res, 200, ext);
  }

  _create(ctx) {
    const { info, version, ns, res } = ctx;
    const { value } = this._parseBody(ctx);
    const dry = this._dryRun(ctx);
    let obj = value;
    if (!isObj(obj)) throw S.badRequest(`${info.kind} in version "${version}" cannot be handled as a ${info.kind}: json: cannot unmarshal ${Array.isArray(obj) ? 'array' : typeof obj} into Go value of type struct`);
    obj.metadata = isObj(obj.metadata) ? obj.metadata : obj.metadata === undefined ? {} : obj.metadata;
    if (info.namespaced) {
      if (obj.metadata.namespace && ns && obj.metadata.namespace !== ns) {
        throw S.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      if (ns) obj.metadata.namespace = ns;
    }
    return this._createObj(ctx, obj, dry, 201);
  }

  _createObj(ctx, obj, dry, code, manager, operation) {
    const { info, version, res } = ctx;
    obj = this._admit(ctx, obj, { op: 'create' });
    // Status is reset on create for kinds with a status subresource.
    const storeRes = this._storeRes(info);
    if (this.registry.hasStatus(storeRes) && info.id !== 'core/namespaces') {
      delete obj.status;
    }
    if (info.id === 'core/pods') obj.status = { phase: 'Pending', qosClass: qosClass(obj.spec) };
    if (info.id === 'apiextensions.k8s.io/customresourcedefinitions') obj.status = this._crdStatus(obj);
    const apiVersion = info.group ? `${info.group}/${version}` : 'v1';
    const statusMode = this.registry.hasStatus(storeRes) ? 'skip' : undefined;
    if (operation === 'Apply') {
      obj.metadata.managedFields = managed.recordApply([], { manager, apiVersion, applied: ctx.appliedConfig, live: {}, statusMode });
    } else {
      obj.metadata.managedFields = managed.recordUpdate([], { manager: manager || this._manager(ctx), apiVersion, prev: null, next: obj, statusMode });
    }
    // Real (storage layer): a parseable, non-zero resourceVersion on create is a 500.
    const rv0 = obj.metadata.resourceVersion;
    if (rv0 !== undefined && rv0 !== '' && /^\d+$/.test(String(rv0)) && Number(rv0) !== 0) {
      throw S.err(500, '', 'resourceVersion should not be set on objects to be created');
    }
    delete obj.metadata.resourceVersion;
    const internal = this._internal(info, obj);
    const stored = this.store.create(storeRes, internal, { dryRun: dry, uid: ctx.uid });
    return this._send(res, code, this._external(info, version, stored));
  }

  _update(ctx) {
    const { info, version, ns, name } = ctx;
    const { value } = this._parseBody(ctx);
    const dry = this._dryRun(ctx);
    if (!isObj(value)) throw S.badRequest(`${info.kind} in version "${version}" cannot be handled as a ${info.kind}: json: cannot unmarshal ${typeof value} into Go value of type struct`);
    value.metadata = value.metadata || {};
    if (value.metadata.name !== undefined && value.metadata.name !== name) {
      throw S.badRequest(`the name of the object (${value.metadata.name}) does not match the name on the URL (${name})`);
    }
    if (info.namespaced && value.metadata.namespace && value.metadata.namespace !== ns) {
      throw S.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    value.metadata.name = name;
    if (info.namespaced) value.metadata.namespace = ns;
    const cur = this.store.get(this._storeRes(info), ns, name);
    if (!cur) throw notFound(info, name);
    if (!info.builtin && !value.metadata.resourceVersion) {
      throw S.invalid(info, name, [{ field: 'metadata.resourceVersion', reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update' }]);
    }
    return this._updateObj(ctx, value, cur, dry, this._manager(ctx), 'Update', value);
  }

  _updateObj(ctx, obj, cur, dry, manager, operation, fieldsObj) {
    const { info, version, res, sub } = ctx;
    const storeRes = this._storeRes(info);
    const curExt = this._external(info, version, clone(cur));
    obj = this._admit(ctx, obj, { op: 'update', old: curExt, subresource: sub });
    if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== cur.metadata.resourceVersion) {
      throw S.err(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(info.id)} "${cur.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`, { name: cur.metadata.name, group: info.group, kind: info.plural });
    }
    const apiVersion = info.group ? `${info.group}/${version}` : 'v1';
    const subr = sub === 'status' ? 'status' : undefined;
    const statusMode = sub === 'status' ? 'only' : this.registry.hasStatus(storeRes) ? 'skip' : undefined;
    if (operation === 'Apply') {
      obj.metadata.managedFields = managed.recordApply(cur.metadata.managedFields, { manager, apiVersion, subresource: subr, applied: fieldsObj, live: curExt, force: ctx.force, statusMode });
    } else {
      obj.metadata.managedFields = managed.recordUpdate(cur.metadata.managedFields, { manager, apiVersion, subresource: subr, prev: curExt, next: obj, statusMode });
    }
    if (info.id === 'apiextensions.k8s.io/customresourcedefinitions' && sub !== 'status') obj.status = cur.status;
    const internal = this._internal(info, obj);
    // A status write keeps metadata from the main resource but its managedFields, which it
    // records in the same write (a second write would bump the resourceVersion twice and send
    // two watch events for one request: a client that takes the answer as the latest version
    // could see the intermediate one after it).
    let stored = sub === 'status'
      ? this.store.update(storeRes, internal, { subresource: 'status', managedFields: obj.metadata.managedFields, checkRV: true, dryRun: dry })
      : this.store.update(storeRes, internal, { checkRV: true, dryRun: dry });
    if (info.id === 'apiextensions.k8s.io/customresourcedefinitions' && !dry && sub !== 'status' && stored.metadata && this.store.get(storeRes, null, stored.metadata.name)) {
      const st = this._crdStatus(stored);
      if (JSON.stringify(st) !== JSON.stringify(stored.status)) {
        stored = this.store.update(storeRes, Object.assign(clone(stored), { status: st }), { subresource: 'status', checkRV: false });
      }
    }
    return this._send(res, 200, this._external(info, version, stored));
  }

  _patch(ctx) {
    const { info, version, ns, name } = ctx;
    const { ct, value } = this._parseBody(ctx, true);
    const dry = this._dryRun(ctx);
    const storeRes = this._storeRes(info);
    const cur = this.store.get(storeRes, ns, name);
    if (ct === 'application/apply-patch+yaml') return this._apply(ctx, value, cur, dry);
    if (!cur) throw notFound(info, name);
    const curExt = this._external(info, version, clone(cur));
    let next;
    if (ct === 'application/json-patch+json') next = patchLib.jsonPatch(curExt, value);
    else if (ct === 'application/merge-patch+json') {
      if (!isObj(value)) throw S.badRequest('error decoding patch: json: cannot unmarshal into Go value of type map[string]interface {}');
      next = patchLib.mergePatch(curExt, value);
    } else if (ct === 'application/strategic-merge-patch+json') {
      if (!info.builtin) {
        throw S.unsupportedMedia(ct, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
      }
      if (!isObj(value)) throw S.badRequest('error decoding patch: json: cannot unmarshal into Go value of type map[string]interface {}');
      next = patchLib.smp(curExt, value);
    }
    if (!isObj(next)) throw S.badRequest('the patched object is not an object');
    // A patch may carry a resourceVersion precondition; otherwise it applies to the current.
    const patchRV = isObj(value) && isObj(value.metadata) ? value.metadata.resourceVersion : undefined;
    next.metadata = isObj(next.metadata) ? next.metadata : {};
    if (patchRV === undefined && !(Array.isArray(value) && value.some((o) => /^\/metadata\/resourceVersion$/.test(o.path || '')))) next.metadata.resourceVersion = cur.metadata.resourceVersion;
    if (next.metadata.name !== name) throw S.badRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`);
    return this._updateObj(ctx, next, cur, dry, this._manager(ctx), 'Update', isObj(value) ? value : next);
  }

  _apply(ctx, value, cur, dry) {
    const { info, version, ns, name } = ctx;
    const manager = ctx.q.get('fieldManager');
    if (!manager) {
      throw S.err(422, 'Invalid', 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', {
        group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
      });
    }
    if (!isObj(value)) throw S.badRequest('error decoding YAML: the applied configuration must be an object');
    value.metadata = isObj(value.metadata) ? value.metadata : {};
    if (value.metadata.name !== undefined && value.metadata.name !== name) throw S.badRequest(`the name of the object (${value.metadata.name}) does not match the name on the URL (${name})`);
    if (value.apiVersion === undefined || value.kind === undefined) {
      throw S.badRequest(`invalid object type: ${value.apiVersion === undefined ? '' : value.apiVersion}, Kind=${value.kind || ''}`);
    }
    value.metadata.name = name;
    if (info.namespaced) value.metadata.namespace = ns;
    ctx.appliedConfig = clone(value);
    if (!cur) {
      if (ctx.sub) throw notFound(info, name);
      const obj = clone(value);
      return this._createObj(ctx, obj, dry, 201, manager, 'Apply');
    }
    const curExt = this._external(info, version, clone(cur));
    const entries = cur.metadata.managedFields || [];
    const prev = entries.find((e) => e.manager === manager && e.operation === 'Apply' && (e.subresource || '') === (ctx.sub || ''));
    const applied = clone(value);
    delete applied.metadata.resourceVersion;
    const statusMode = ctx.sub === 'status' ? 'only' : this.registry.hasStatus(this._storeRes(info)) ? 'skip' : undefined;
    ctx.force = isTrue(ctx.q.get('force'));
    if (!ctx.force) {
      const conflicts = managed.applyConflicts(entries, { manager, subresource: ctx.sub, live: curExt, applied, statusMode });
      if (conflicts.length) {
        const c = managed.conflictStatus(conflicts);
        throw S.err(409, 'Conflict', c.message, { causes: c.causes });
      }
    }
    const next = patchLib.applyPatch(curExt, applied, prev ? prev.fieldsV1 : null, managed.ownedByOthers(entries, manager, ctx.sub));
    next.metadata.resourceVersion = value.metadata.resourceVersion || cur.metadata.resourceVersion;
    return this._updateObj(ctx, next, cur, dry, manager, 'Apply', value);
  }

  _delete(ctx) {
    const { info, version, ns, name, q, res } = ctx;
    const opts = this._deleteOptions(ctx);
    const policy = opts.propagationPolicy || q.get('propagationPolicy') || (opts.orphanDependents === true || q.get('orphanDependents') === 'true' ? 'Orphan' : (opts.orphanDependents === false ? 'Background' : undefined));
    const dry = this._dryRun(ctx) || (Array.isArray(opts.dryRun) && opts.dryRun.includes('All'));
    const storeRes = this._storeRes(info);
    const before = this.store.get(storeRes, ns, name);
    if (!before) throw notFound(info, name);
    let grace = opts.gracePeriodSeconds !== undefined ? opts.gracePeriodSeconds : q.get('gracePeriodSeconds');
    grace = grace === undefined || grace === null || grace === '' ? undefined : Number(grace);
    const out = this.store.delete(storeRes, ns, name, { propagationPolicy: policy, preconditions: opts.preconditions, gracePeriodSeconds: grace, graceful: true, dryRun: dry });
    const still = !dry && this.store.get(storeRes, ns, name);
    if (still || info.id === 'core/pods' || info.id === 'core/namespaces' || !info.builtin) {
      return this._send(res, still && policy === 'Foreground' ? 202 : 200, this._external(info, version, still || out));
    }
    return this._send(res, 200, S.successStatus(info, name, before.metadata.uid));
  }

  _deleteOptions(ctx) {
    if (!ctx.body.length) return {};
    const ct = (ctx.req.headers['content-type'] || 'application/json').split(';')[0].trim();
    if (ct === 'application/vnd.kubernetes.protobuf') {
      try {
        return protobuf.decode(ctx.body);
      } catch (e) {
        throw S.badRequest(`error decoding DeleteOptions: ${e.message}`);
      }
    }
    try {
      const o = ct === 'application/yaml' ? yaml.load(ctx.body.toString('utf8')) : JSON.parse(ctx.body.toString('utf8'));
      return isObj(o) ? o : {};
    } catch (e) {
      throw S.badRequest(`json: ${e.message}`);
    }
  }

  _deleteCollection(ctx) {
    const { info, version, ns, q, res } = ctx;
    const storeRes = this._storeRes(info);
    const filter = this._fieldFilter(info, q.get('fieldSelector'));
    const match = compileLabelSelector(q.get('labelSelector'));
    const opts = this._deleteOptions(ctx);
    const dry = this._dryRun(ctx);
    const items = [];
    for (const o of this.store.list(storeRes, ns, {})) {
      if (!match(o.metadata.labels || {}) || !filter(o)) continue;
      try {
        items.push(this._external(info, version, this.store.delete(storeRes, o.metadata.namespace, o.metadata.name, { propagationPolicy: opts.propagationPolicy || q.get('propagationPolicy') || undefined, dryRun: dry })));
      } catch (e) {
        if (e.code !== 404) throw e;
      }
    }
    return this._send(res, 200, { kind: info.listKind, apiVersion: info.group ? `${info.group}/${version}` : 'v1', metadata: { resourceVersion: this.store.rv() }, items });
  }

  _scale(ctx) {
    const { info, version, ns, name, method, res } = ctx;
    const storeRes = this._storeRes(info);
    const cur = this.store.get(storeRes, ns, name);
    if (!cur) throw notFound(info, name);
    let specPath = 'spec.replicas';
    let statusPath = 'status.replicas';
    let selectorPath = null;
    if (!info.builtin) {
      const sc = info.versionInfo[version].subresources.scale || {};
      specPath = (sc.specReplicasPath || '.spec.replicas').replace(/^\./, '');
      statusPath = (sc.statusReplicasPath || '.status.replicas').replace(/^\./, '');
      selectorPath = sc.labelSelectorPath ? sc.labelSelectorPath.replace(/^\./, '') : null;
    }
    const toScale = (o) => {
      let selector = '';
      if (info.builtin) {
        const sel = (o.spec && o.spec.selector) || {};
        selector = Object.entries(sel.matchLabels || {}).map(([k, v]) => `${k}=${v}`).join(',');
      } else if (selectorPath) selector = getPath(o, selectorPath) || '';
      const st = { replicas: getPath(o, statusPath) || 0 };
      if (selector) st.selector = selector;
      return {
        kind: 'Scale', apiVersion: 'autoscaling/v1',
        metadata: { name: o.metadata.name, namespace: o.metadata.namespace, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion, creationTimestamp: o.metadata.creationTimestamp },
        spec: { replicas: getPath(o, specPath) || 0 }, status: st,
      };
    };
    if (method === 'GET') return this._send(res, 200, toScale(cur));
    if (method !== 'PUT' && method !== 'PATCH') throw S.methodNotAllowed();
    const { ct, value } = this._parseBody(ctx, method === 'PATCH');
    const curScale = toScale(cur);
    let next;
    if (method === 'PUT') next = value;
    else if (ct === 'application/json-patch+json') next = patchLib.jsonPatch(curScale, value);
    else if (ct === 'application/merge-patch+json' || ct === 'application/apply-patch+yaml') next = patchLib.mergePatch(curScale, value);
    else next = patchLib.smp(curScale, value);
    const replicas = next && next.spec && next.spec.replicas;
    if (!Number.isInteger(replicas)) throw S.badRequest(`Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
    if (replicas < 0) {
      throw S.err(422, 'Invalid', `Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${replicas}: must be greater than or equal to 0`, {
        name, group: 'autoscaling', kind: 'Scale', causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${replicas}: must be greater than or equal to 0`, field: 'spec.replicas' }],
      });
    }
    if (next.metadata && next.metadata.resourceVersion && next.metadata.resourceVersion !== cur.metadata.resourceVersion) {
      throw S.err(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(info.id)} "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, group: info.group, kind: info.plural });
    }
    const obj = clone(cur);
    const parts = specPath.split('.');
    let p = obj;
    for (const k of parts.slice(0, -1)) p = p[k] = p[k] || {};
    p[parts[parts.length - 1]] = replicas;
    const stored = this.store.update(storeRes, obj, { checkRV: false, dryRun: this._dryRun(ctx) });
    return this._send(res, 200, toScale(stored));
  }

  // TokenRequest (serviceaccounts/token): a JWT-shaped token, accepted for authentication until
  // it expires (no signature a client could verify, no RBAC).
  _token(ctx) {
    const { ns, name, res } = ctx;
    const sa = this.store.get('core/serviceaccounts', ns, name);
    if (!sa) throw notFound(ctx.info, name);
    const { value } = this._parseBody(ctx);
    const spec = (value && value.spec) || {};
    const exp = spec.expirationSeconds === undefined || spec.expirationSeconds === null ? 3600 : Number(spec.expirationSeconds);
    const tinfo = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
    if (!Number.isInteger(exp) || exp < 600) {
      throw S.invalid(tinfo, name, [{ field: 'spec.expirationSeconds', reason: 'FieldValueInvalid', message: `Invalid value: ${exp}: may not specify a duration less than 10 minutes` }]);
    }
    if (exp > 4294967296) {
      throw S.invalid(tinfo, name, [{ field: 'spec.expirationSeconds', reason: 'FieldValueTooLong', message: 'Too long: may not specify a duration larger than 2^32 seconds' }]);
    }
    const nowS = Math.floor(Date.now() / 1000);
    const audiences = Array.isArray(spec.audiences) && spec.audiences.length ? spec.audiences : ['https://kubernetes.default.svc.cluster.local'];
    const token = this.issueToken(ns, name, exp, audiences);
    const iso = (t) => new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return this._send(res, 201, {
      kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
      metadata: { name, namespace: ns, creationTimestamp: iso(nowS) },
      spec: { audiences, expirationSeconds: exp, boundObjectRef: spec.boundObjectRef || null },
      status: { token, expirationTimestamp: iso(nowS + exp) },
    });
  }

  // A token for service account ns/name valid for exp seconds (the TokenRequest's, and what the
  // kubelet mounts into a pod in container mode), or null when the account does not exist.
  issueToken(ns, name, exp = 3607, audiences = ['https://kubernetes.default.svc.cluster.local']) {
    const sa = this.store.get('core/serviceaccounts', ns, name);
    if (!sa) return null;
    const nowS = Math.floor(Date.now() / 1000);
    const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims = {
      aud: audiences, exp: nowS + exp, iat: nowS, nbf: nowS, iss: 'https://kubernetes.default.svc.cluster.local',
      sub: `system:serviceaccount:${ns}:${name}`,
      'kubernetes.io': { namespace: ns, serviceaccount: { name, uid: sa.metadata.uid } },
    };
    const token = `${b64({ alg: 'RS256', kid: 'pgbench-sim' })}.${b64(claims)}.${require('crypto').randomBytes(32).toString('base64url')}`;
    this.issuedTokens = this.issuedTokens || new Map();
    this.issuedTokens.set(token, { exp: (nowS + exp) * 1000, ns, sa: name, uid: sa.metadata.uid });
    return token;
  }

  // The service account behind an issued token, or null.
  _tokenUser(auth) {
    if (!this.issuedTokens || !auth.startsWith('Bearer ')) return null;
    const t = this.issuedTokens.get(auth.slice(7));
    if (!t || t.exp <= Date.now()) return null;
    const sa = this.store.get('core/serviceaccounts', t.ns, t.sa);
    if (!sa || sa.metadata.uid !== t.uid) return null; // deleted (or recreated) account
    return rbac.userForServiceAccount(t.ns, t.sa);
  }

  async _log(ctx) {
    const { ns, name, q, res } = ctx;
    // as the real server: the query decoded (400), ValidatePodLogOptions (422), then the pod
    const opts = podLogOptions(q, name);
    const pod = this.store.get('core/pods', ns, name);
    if (!pod) throw notFound(ctx.info, name);
    const containers = ((pod.spec && pod.spec.containers) || []).map((c) => c.name);
    let container = q.get('container');
    if (!container) {
      if (containers.length !== 1) {
        throw S.badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`);
      }
      container = containers[0];
    } else if (!containers.includes(container) && !((pod.spec.initContainers || []).some((c) => c.name === container))) {
      throw S.badRequest(`container ${container} is not valid for pod ${name}`);
    }
    opts.container = container;
    const wl = this.getWorkload();
    const reader = opts.follow && wl && wl.podLogReader ? wl.podLogReader(ns, name, opts) : null;
    const text = reader || !wl || !wl.podLog ? null : wl.podLog(ns, name, opts);
    if (!reader && (text === null || text === undefined)) {
      const cs = ((pod.status && pod.status.containerStatuses) || []).find((c) => c.name === container);
      const reason = (cs && cs.state && cs.state.waiting && cs.state.waiting.reason) || 'ContainerCreating';
      throw S.badRequest(`container "${container}" in pod "${name}" is waiting to start: ${reason}`);
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
    if (!reader) {
      res.end(text);
      return;
    }
    await this._followLog(ns, name, container, reader, res);
  }

  // follow: the reader's output as the log grows, until the container stops (its last lines
  // read), the pod is gone, limitBytes is reached or the client leaves.
  async _followLog(ns, name, container, reader, res) {
    const stopped = () => {
      const p = this.store.get('core/pods', ns, name);
      const cs = p && ((p.status && p.status.containerStatuses) || []).find((c) => c.name === container);
      return !p || !!(cs && cs.state && cs.state.terminated);
    };
    await new Promise((resolve) => {
      let t = null;
      const finish = () => {
        clearInterval(t);
        resolve();
      };
      const poll = () => {
        const last = stopped();
        const out = reader.read();
        if (out.length && !res.destroyed) res.write(out);
        if (last || reader.done || res.destroyed) finish();
      };
      t = setInterval(poll, 200);
      res.on('close', finish);
      poll();
    });
    if (!res.destroyed) res.end();
  }

  // ---- watch ----
  _watch(ctx) {
    const { info, version, ns, q, res, req } = ctx;
    const storeRes = this._storeRes(info);
    const filter = this._fieldFilter(info, q.get('fieldSelector'), ctx.fieldSelectorExtra);
    const lmatch = compileLabelSelector(q.get('labelSelector'));
    const matches = (o) => !!o && (!ns || o.metadata.namespace === ns) && lmatch(o.metadata.labels || {}) && filter(o);
    const rv = q.get('resourceVersion');
    const bookmarks = isTrue(q.get('allowWatchBookmarks'));
    const sendInitial = isTrue(q.get('sendInitialEvents'));
    const timeout = q.get('timeoutSeconds') ? Number(q.get('timeoutSeconds')) : 1800;
    const table = wantsTable(req);
    const includeObject = q.get('includeObject') || 'Metadata';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    if (res.flushHeaders) res.flushHeaders();
    let closed = false;
    let lastRV = this.store.rv();
    // Fault delayWatch: this resource's events (bookmarks too) reach the client that much later,
    // in order, as from a watch cache or a connection lagging behind the others'.
    const late = [];
    let lateTimer = null;
    const flushLate = () => {
      lateTimer = null;
      while (late.length && late[0].at <= Date.now()) {
        const line = late.shift().line;
        if (!closed) res.write(line);
      }
      if (late.length && !closed) lateTimer = setTimeout(flushLate, Math.max(1, late[0].at - Date.now()));
    };
    const write = (type, obj) => {
      if (closed) return;
      let object = obj;
      if (type !== 'ERROR' && type !== 'BOOKMARK') {
        object = this._external(info, version, clone(obj));
        if (table) object = toTable(info, version, [object], { resourceVersion: obj.metadata.resourceVersion }, includeObject, true);
      }
      const line = JSON.stringify({ type, object }) + '\n';
      const delay = type === 'ERROR' ? 0 : this.faults.watchDelay(info.plural);
      if (!delay && !late.length) {
        res.write(line);
        return;
      }
      late.push({ at: Date.now() + delay, line });
      if (!lateTimer) lateTimer = setTimeout(flushLate, Math.max(1, late[0].at - Date.now()));
    };
    const bookmark = (annotations) => {
      const o = { kind: info.kind, apiVersion: info.group ? `${info.group}/${version}` : 'v1', metadata: { resourceVersion: lastRV } };
      if (annotations) o.metadata.annotations = annotations;
      write('BOOKMARK', o);
    };
    const finish = () => {
      if (closed) return;
      closed = true;
      this.store.removeListener('event', onEvent);
      clearTimeout(lateTimer);
      clearInterval(bmTimer);
      clearTimeout(toTimer);
      this.watches.delete(handle);
    };
    const onEvent = (ev) => {
      if (ev.res !== storeRes) return;
      lastRV = ev.object.metadata.resourceVersion;
      const now = matches(ev.object);
      const was = ev.old ? matches(ev.old) : false;
      if (ev.type === 'ADDED' && now) write('ADDED', ev.object);
      else if (ev.type === 'MODIFIED') {
        if (now && was) write('MODIFIED', ev.object);
        else if (now && !was) write('ADDED', ev.object);
        else if (!now && was) write('DELETED', ev.object);
      } else if (ev.type === 'DELETED' && (now || was)) write('DELETED', ev.object);
    };
    const handle = {
      drop: () => {
        finish();
        res.destroy();
      },
    };
    this.watches.add(handle);
    res.on('close', finish);
    // initial state / replay
    if (!rv || rv === '0' || sendInitial) {
      for (const o of this.store.list(storeRes, ns, {})) if (matches(o)) write('ADDED', o);
      if (sendInitial) {
        lastRV = this.store.rv();
        bookmark({ 'k8s.io/initial-events-end': 'true' });
      }
    } else {
      if (!/^\d+$/.test(rv)) {
        write('ERROR', S.badRequest(`invalid resource version: strconv.ParseUint: parsing "${rv}": invalid syntax`).status());
        finish();
        res.end();
        return;
      }
      let evs;
      try {
        evs = this.store.eventsSince(rv, storeRes);
      } catch (e) {
        if (e.code === 410) {
          write('ERROR', e.status());
          finish();
          res.end();
          return;
        }
        throw e;
      }
      for (const e of evs) if (matches(e.object)) write(e.type, e.object);
    }
    this.store.on('event', onEvent);
    const bmTimer = bookmarks ? setInterval(() => {
      lastRV = this.store.rv();
      bookmark();
    }, this.bookmarkMs) : null;
    const toTimer = setTimeout(() => {
      finish();
      res.end();
    }, timeout * 1000);
    return new Promise((resolve) => res.on('close', resolve));
  }

  // ---- /sim ----
  async _handleSim(req, res, path, body) {
    if (path === '/sim/healthz') {
      return this._send(res, 200, { ok: true, rv: this.store.rv(), watches: this.watches.size });
    }
    if (path === '/sim/stats') { // what make bench divides the sim's CPU time by
      return this._send(res, 200, { requests: this.requests, watches: this.watches.size, resourceVersion: Number(this.store.rv()) });
    }
    if (path === '/sim/faults') {
      if (req.method === 'GET') return this._send(res, 200, this.faults.state());
      if (req.method !== 'POST') throw S.methodNotAllowed();
      let f;
      try {
        f = JSON.parse(body.toString('utf8') || '{}');
      } catch (e) {
        throw S.badRequest(`invalid JSON: ${e.message}`);
      }
      const out = {};
      if (f.reset) this.faults.reset();
      if (f.delayMs !== undefined) this.faults.delayMs = Number(f.delayMs) || 0;
      if (f.delayWatch !== undefined) {
        if (!f.delayWatch || typeof f.delayWatch !== 'object' || Array.isArray(f.delayWatch)) throw S.badRequest('delayWatch: an object of resource (plural) to milliseconds');
        for (const [plural, ms] of Object.entries(f.delayWatch)) {
          if (Number(ms) > 0) this.faults.watchDelays[plural] = Number(ms);
          else delete this.faults.watchDelays[plural];
        }
      }
      if (f.failNext !== undefined || f.code !== undefined) {
        this.faults.failNext = f.failNext !== undefined ? Number(f.failNext) : 1;
        this.faults.failCode = f.code !== undefined ? Number(f.code) : 500;
        this.faults.retryAfter = f.retryAfter !== undefined ? Number(f.retryAfter) : null;
        this.faults.failPath = f.path ? String(f.path) : null;
        this.faults.failMethod = f.method ? String(f.method).toUpperCase() : null;
      }
      if (f.compact) {
        this.store.compact();
        out.compactedAt = this.store.rv();
      }
      if (f.dropWatches) out.droppedWatches = this.dropWatches();
      if (f.restart) {
        this._send(res, 200, Object.assign(out, this.faults.state(), { restarting: true }), { Connection: 'close' });
        setTimeout(() => this.restart().catch((e) => this.log(`restart failed: ${e.stack}`)), 10);
        return;
      }
      return this._send(res, 200, Object.assign(out, this.faults.state()));
    }
    const wl = this.getWorkload();
    if (wl && wl.handleSim) {
      let parsed = null;
      const text = body.toString('utf8');
      if (text.trim()) {
        try {
          parsed = JSON.parse(text);
        } catch (e) {
          throw S.badRequest(`invalid JSON: ${e.message}`);
        }
      }
      const r = await wl.handleSim(req.method, path, parsed);
      if (r) return this._send(res, r.code || 200, r.body === undefined ? {} : r.body);
    }
    throw S.notFoundPath();
  }
}

function notFound(info, name) {
  return S.err(404, 'NotFound', `${qualifiedResource(info.id)} "${name}" not found`, { name, group: info.group, kind: info.plural });
}

// v1 qos.GetPodQOS: Guaranteed when every container has cpu and memory limits equal to its
// requests, BestEffort when none has any, else Burstable.
function qosClass(spec) {
  const cs = ((spec && spec.containers) || []).concat((spec && spec.initContainers) || []);
  let any = false;
  let guaranteed = cs.length > 0;
  for (const c of cs) {
    const r = (c && c.resources) || {};
    const req = r.requests || {};
    const lim = r.limits || {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const k of ['cpu', 'memory']) {
      if (lim[k] === undefined) guaranteed = false;
      else if (req[k] !== undefined && String(req[k]) !== String(lim[k])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

// encoding/json's wording for a syntax error, from V8's.
function goJSONError(msg) {
  if (/Unexpected end of JSON input/.test(msg)) return 'unexpected end of JSON input';
  const m = /Unexpected token '?(.)'?/.exec(msg) || /Unexpected (?:non-whitespace )?character/.exec(msg);
  if (m && m[1]) return `invalid character '${m[1]}' looking for beginning of value`;
  return msg;
}

// PodLogOptions from the query, as the apiserver decodes (url.Values conversion: strconv.ParseInt,
// metav1.Time.UnmarshalQueryParameter; a failure is 400) and validates it (ValidatePodLogOptions,
// 422); sinceTime in ns, cut to whole seconds as LogLocation passes it on (Format(time.RFC3339)).
function podLogOptions(q, name) {
  const int64 = (k) => {
    if (!q.has(k)) return undefined;
    const v = q.get(k);
    if (!/^[+-]?\d+$/.test(v)) throw S.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
    const n = BigInt(v);
    if (n > 9223372036854775807n || n < -9223372036854775808n) throw S.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
    return Number(n);
  };
  // Convert_Slice_string_To_bool: absent, "0" and "false" (any case) are false, all else true
  const bool = (k) => q.has(k) && q.get(k) !== '0' && q.get(k).toLowerCase() !== 'false';
  const opts = { follow: bool('follow'), previous: bool('previous') };
  opts.sinceSeconds = int64('sinceSeconds');
  if (q.has('sinceTime')) {
    const v = q.get('sinceTime');
    const t = v === '' || v === 'null' ? { ns: 0n } : parseRFC3339(v);
    if (t.error) throw S.badRequest(t.error);
    opts.sinceTime = t.ns - (((t.ns % 1000000000n) + 1000000000n) % 1000000000n);
  }
  opts.timestamps = bool('timestamps');
  opts.tailLines = int64('tailLines');
  opts.limitBytes = int64('limitBytes');
  const causes = [];
  if (opts.tailLines !== undefined && opts.tailLines < 0) causes.push({ field: 'tailLines', reason: 'FieldValueInvalid', message: `Invalid value: ${opts.tailLines}: must be greater than or equal to 0` });
  if (opts.limitBytes !== undefined && opts.limitBytes < 1) causes.push({ field: 'limitBytes', reason: 'FieldValueInvalid', message: `Invalid value: ${opts.limitBytes}: must be greater than 0` });
  if (opts.sinceSeconds !== undefined && opts.sinceTime !== undefined) {
    causes.push({ field: '', reason: 'FieldValueForbidden', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' });
  } else if (opts.sinceSeconds !== undefined && opts.sinceSeconds < 1) {
    causes.push({ field: 'sinceSeconds', reason: 'FieldValueInvalid', message: `Invalid value: ${opts.sinceSeconds}: must be greater than 0` });
  }
  if (causes.length) throw S.invalid({ kind: 'PodLogOptions', group: '' }, name, causes);
  return opts;
}

function isTrue(v) {
  return v === 'true' || v === '1';
}

function wantsTable(req) {
  const a = req.headers.accept || '';
  for (const part of a.split(',')) {
    if (/as=Table/.test(part) && /g=meta\.k8s\.io/.test(part)) return true;
    if (/application\/json/.test(part) && !/as=/.test(part)) return false;
  }
  return false;
}

function reorderTop(o) {
  const out = { apiVersion: o.apiVersion, kind: o.kind };
  for (const [k, v] of Object.entries(o)) if (k !== 'apiVersion' && k !== 'kind') out[k] = v;
  return out;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

module.exports = { SimServer };
