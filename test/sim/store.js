'use strict';
// In-memory object store of the simulated cluster.
//
// Resource ids are "<group>/<plural>" with "core" for the legacy group ("core/pods",
// "batch/jobs", "pgbench.dev/benchmarkruns"). Objects are kept in their storage version.
// Every write (from the API server or from the workload controllers) goes through the methods
// below, bumps the single global resourceVersion and emits
//   'event' {type: 'ADDED'|'MODIFIED'|'DELETED', res, object, old}
// which is also recorded in a bounded history used to serve watches from a resourceVersion.
//
// Deletion semantics (as the real apiserver + garbage collector):
// - an object with metadata.finalizers gets deletionTimestamp (+ generation bump) and stays
//   until an update empties its finalizers;
// - propagationPolicy Orphan / Foreground add the "orphan" / "foregroundDeletion" finalizers;
//   the store itself processes those two finalizers (orphan: strips ownerReferences to the
//   owner from dependents; foreground: deletes dependents, then removes the finalizer once no
//   dependent with blockOwnerDeletion remains). Background collection of dependents after an
//   owner is gone is the workload's gc.js job (it listens to 'event').
// - the default policy is Background, except batch/jobs which default to Orphan (batch/v1
//   DefaultGarbageCollectionPolicy) - kubectl always sends Background explicitly.
// - pods bound to a node (and not finished) deleted through the API ({graceful: true}) or with
//   gracePeriodSeconds > 0 are deleted gracefully: deletionTimestamp is set (now + grace, from
//   gracePeriodSeconds or spec.terminationGracePeriodSeconds) and the pod stays until a delete
//   with gracePeriodSeconds 0 (the kubelet's) removes it;
// - deleting a namespace marks it Terminating, deletes everything in it, then removes it.
//   Creating objects in a missing namespace fails 404, in a terminating one 403.
// - every namespace gets a "default" ServiceAccount when it is created; a pod whose service
//   account does not exist is refused with 403 (ServiceAccount admission), and a pod without
//   one gets serviceAccountName "default"; a pod that violates its namespace's enforced Pod
//   Security level is refused with 403 (lib/podsecurity.js).

const EventEmitter = require('events');
const fs = require('fs');
const crypto = require('crypto');
const util = require('util');
const { Registry } = require('./lib/resources');
const { compileLabelSelector } = require('./lib/selectors');
const { admitPod } = require('./lib/podsecurity');

class StoreError extends Error {
  constructor(code, reason, message, details) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  status() {
    // a 410 for an expired continue token carries the token that continues inconsistently
    const s = { kind: 'Status', apiVersion: 'v1', metadata: this.listContinue ? { continue: this.listContinue } : {}, status: 'Failure', message: this.message };
    if (this.reason) s.reason = this.reason;
    if (this.details) s.details = this.details;
    s.code = this.code;
    return s;
  }
}

const { clone } = require('./lib/clone');
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

function groupOf(res) {
  const g = res.slice(0, res.lastIndexOf('/'));
  return g === 'core' ? '' : g;
}
function pluralOf(res) {
  return res.slice(res.lastIndexOf('/') + 1);
}
// "pods", "jobs.batch": how the real apiserver names a resource in messages.
function qualifiedResource(res) {
  const g = groupOf(res);
  return g ? `${pluralOf(res)}.${g}` : pluralOf(res);
}

function notFound(res, name) {
  return new StoreError(404, 'NotFound', `${qualifiedResource(res)} "${name}" not found`, { name, group: groupOf(res), kind: pluralOf(res) });
}
function alreadyExists(res, name) {
  return new StoreError(409, 'AlreadyExists', `${qualifiedResource(res)} "${name}" already exists`, { name, group: groupOf(res), kind: pluralOf(res) });
}
function conflict(res, name, why) {
  return new StoreError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(res)} "${name}": ${why || 'the object has been modified; please apply your changes to the latest version and try again'}`, { name, group: groupOf(res), kind: pluralOf(res) });
}

const NAME_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const GENNAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

class Store extends EventEmitter {
  // opts: {stateFile, historyLimit}
  constructor(opts = {}) {
    super();
    this.setMaxListeners(0);
    this.registry = opts.registry || new Registry();
    this.data = new Map(); // res -> Map(key -> obj)
    // Indexes kept in step with every write (_put, _drop), so that controllers find an owner's
    // dependents or a claim's pods without a scan of every object (which made each Job sync cost
    // O(all pods), and a thousand runs O(n^2)):
    this.owners = new Map(); // owner uid -> Map(res -> Set(key)), from metadata.ownerReferences
    this.foreground = new Set(); // "res\0key" of objects deleting with foregroundDeletion
    this.indexes = new Map(); // res -> Map(index name -> {fn, byValue: Map(value -> Set(key))})
    this._rv = 0;
    this.history = []; // {rv, type, res, object}
    this.historyStart = 0; // every event with rv > historyStart is in history
    this.historyLimit = opts.historyLimit || 5000;
    this.stateFile = opts.stateFile || null;
    this._saveTimer = null;
    this._loaded = false;
    if (this.stateFile && fs.existsSync(this.stateFile)) {
      this._load();
    } else {
      for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
        this.create('core/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      }
      // A default StorageClass, as most clusters have one.
      this.create('storage.k8s.io/storageclasses', {
        apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
        metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
        provisioner: 'sim.pgbench.dev/hostpath', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate',
      });
      for (const cr of require('./lib/rbac').bootstrapClusterRoles()) this.create('rbac.authorization.k8s.io/clusterroles', cr);
    }
  }

  // ---- basics ----
  rv() {
    return String(this._rv);
  }

  _bucket(res) {
    let b = this.data.get(res);
    if (!b) {
      b = new Map();
      this.data.set(res, b);
    }
    return b;
  }

  // ---- indexes ----
  // fn(obj) -> array of values; list(res, ns, {index: [name, value]}) then reads only the keys
  // filed under value (client-go's Indexer). Objects already stored are indexed now.
  addIndex(res, name, fn) {
    let ix = this.indexes.get(res);
    if (!ix) this.indexes.set(res, (ix = new Map()));
    const entry = { fn, byValue: new Map() };
    ix.set(name, entry);
    for (const [k, o] of this._bucket(res)) this._file(entry.byValue, entry.fn(o), k, true);
  }

  _file(byValue, values, key, add) {
    for (const v of values) {
      let keys = byValue.get(v);
      if (add) {
        if (!keys) byValue.set(v, (keys = new Set()));
        keys.add(key);
      } else if (keys) {
        keys.delete(key);
        if (!keys.size) byValue.delete(v);
      }
    }
  }

  _reindex(res, key, old, o) {
    const ownerUids = (x) => (x && x.metadata.ownerReferences ? x.metadata.ownerReferences.map((r) => r.uid) : []);
    for (const [uids, add] of [[ownerUids(old), false], [ownerUids(o), true]]) {
      for (const uid of uids) {
        let byRes = this.owners.get(uid);
        if (!byRes && add) this.owners.set(uid, (byRes = new Map()));
        if (!byRes) continue;
        this._file(byRes, [res], key, add);
        if (!byRes.size) this.owners.delete(uid);
      }
    }
    const fg = `${res}\0${key}`;
    if (o && o.metadata.deletionTimestamp && (o.metadata.finalizers || []).includes('foregroundDeletion')) this.foreground.add(fg);
    else this.foreground.delete(fg);
    const ix = this.indexes.get(res);
    if (!ix) return;
    for (const { fn, byValue } of ix.values()) {
      if (old) this._file(byValue, fn(old), key, false);
      if (o) this._file(byValue, fn(o), key, true);
    }
  }

  // The only writers of the buckets: they keep the indexes in step.
  _put(res, key, o) {
    const b = this._bucket(res);
    const old = b.get(key);
    b.set(key, o);
    this._reindex(res, key, old, o);
  }

  _drop(res, key) {
    const b = this._bucket(res);
    const old = b.get(key);
    if (!old) return;
    b.delete(key);
    this._reindex(res, key, old, null);
  }

  _key(res, ns, name) {
    return this.registry.isNamespaced(res) ? `${ns || ''}/${name}` : `/${name}`;
  }

  // Records and announces a change. `object` (the new state) becomes the history's, so it must be
  // a copy nobody else holds; listeners get their own copy of it. `old` (the replaced state) goes
  // to listeners as it is: the store no longer holds it.
  _emit(type, res, object, old) {
    const rv = Number(object.metadata.resourceVersion);
    this.history.push({ rv, type, res, object });
    if (this.history.length > this.historyLimit) {
      const drop = this.history.length - this.historyLimit;
      this.historyStart = this.history[drop - 1].rv;
      this.history.splice(0, drop);
    }
    this._scheduleSave();
    this.emit('event', { type, res, object: clone(object), old });
    if (res === 'apiextensions.k8s.io/customresourcedefinitions') {
      if (type === 'DELETED') this.registry.unregisterCRD(object);
      else this.registry.registerCRD(object);
    }
    if (type === 'DELETED' && object.metadata.namespace) this._nsCheck(object.metadata.namespace);
    if (type === 'DELETED' && object.metadata.uid) this._ownerGone(object.metadata.uid);
  }

  // Events with rv > since for res (all resources if res null). Throws 410 if too old.
  eventsSince(since, res) {
    const s = Number(since);
    if (s < this.historyStart) {
      throw new StoreError(410, 'Expired', `too old resource version: ${s} (${this.historyStart + 1})`);
    }
    const out = [];
    for (const e of this.history) {
      if (e.rv > s && (!res || e.res === res)) out.push({ type: e.type, res: e.res, object: clone(e.object), rv: e.rv });
    }
    return out;
  }

  // Forget all history: watches / continues from an older resourceVersion get 410.
  compact() {
    this.history = [];
    this.historyStart = this._rv;
  }

  // ---- reads ----
  get(res, ns, name) {
    const o = this.peek(res, ns, name);
    return o ? clone(o) : null;
  }

  // The stored object itself (no copy), for readers that only look: never modify it, and do not
  // keep it across a write.
  peek(res, ns, name) {
    return this._bucket(res).get(this._key(res, ns, name)) || null;
  }

  // opts: {labelSelector: string | LabelSelector object | requirement array, filter: fn,
  // owner: uid (only objects with an ownerReference to it), index: [name, value] (only the keys
  // filed under value, addIndex), noCopy: the stored objects themselves, to be only read (a write
  // stores a new object, never changes one in place, so a kept one stays that version)}; filter
  // sees the stored object itself (no copy), so it must only read it.
  list(res, ns, opts = {}) {
    const match = compileLabelSelector(opts.labelSelector);
    const b = this._bucket(res);
    let keys = null; // null: all of b
    if (opts.owner !== undefined) {
      const byRes = this.owners.get(opts.owner);
      keys = (byRes && byRes.get(res)) || new Set();
    }
    if (opts.index) {
      const ix = (this.indexes.get(res) || new Map()).get(opts.index[0]);
      if (!ix) throw new Error(`store: no index ${opts.index[0]} on ${res}`);
      const filed = ix.byValue.get(opts.index[1]) || new Set();
      keys = keys ? new Set([...keys].filter((k) => filed.has(k))) : filed;
    }
    const entries = keys ? [...keys].map((k) => [k, b.get(k)]) : b;
    const hits = []; // filter first, then sort and copy only what matched
    for (const [k, o] of entries) {
      if (ns && o.metadata.namespace !== ns) continue;
      if (!match(o.metadata.labels)) continue;
      if (opts.filter && !opts.filter(o)) continue;
      hits.push(k);
    }
    hits.sort();
    return opts.noCopy ? hits.map((k) => b.get(k)) : hits.map((k) => clone(b.get(k)));
  }

  resources() {
    return [...this.data.keys()];
  }

  // ---- writes ----
  _nextRV() {
    this._rv += 1;
    return String(this._rv);
  }

  _genName(prefix) {
    let s = '';
    const bytes = crypto.randomBytes(5);
    for (let i = 0; i < 5; i++) s += GENNAME_ALPHABET[bytes[i] % GENNAME_ALPHABET.length];
    return prefix.slice(0, 58) + s;
  }

  _checkNamespace(res, ns, op) {
    if (!this.registry.isNamespaced(res)) return;
    const nso = this._bucket('core/namespaces').get(`/${ns}`);
    if (!nso) throw notFound('core/namespaces', ns);
    if (op === 'create' && nso.metadata.deletionTimestamp) {
      throw new StoreError(403, 'Forbidden', `${pluralOf(res)}${groupOf(res) ? '.' + groupOf(res) : ''} "${'%NAME%'}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`, {
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  }

  // Returns the stored copy. opts: {dryRun, uid, beforeStore(obj): hook run once uid/name are set}
  create(res, obj, opts = {}) {
    const o = clone(obj);
    o.metadata = o.metadata || {};
    const m = o.metadata;
    // admission errors name the object as given: generateName when the name is not made yet
    const admissionName = m.name || m.generateName || 'Unknown';
    const namespaced = this.registry.isNamespaced(res);
    if (!namespaced) delete m.namespace;
    else if (!m.namespace) m.namespace = 'default';
    if (!m.name && m.generateName) {
      for (let i = 0; i < 8; i++) {
        m.name = this._genName(m.generateName);
        if (!this._bucket(res).has(this._key(res, m.namespace, m.name))) break;
      }
    }
    if (!m.name) {
      throw new StoreError(422, 'Invalid', `${this._kind(res)} "" is invalid: metadata.name: Required value: name or generateName is required`, {
        kind: this._kind(res), group: groupOf(res),
        causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }],
      });
    }
    if (namespaced) {
      try {
        this._checkNamespace(res, m.namespace, 'create');
      } catch (e) {
        if (e.code === 403) e.message = e.message.replace('%NAME%', m.name);
        throw e;
      }
    }
    const key = this._key(res, m.namespace, m.name);
    if (this._bucket(res).has(key)) throw alreadyExists(res, m.name);
    if (res === 'core/pods') {
      // ServiceAccount admission: the pod's service account must exist.
      o.spec = o.spec || {};
      const sa = o.spec.serviceAccountName || o.spec.serviceAccount || 'default';
      if (!this._bucket('core/serviceaccounts').has(this._key('core/serviceaccounts', m.namespace, sa))) {
        throw new StoreError(403, 'Forbidden', `pods "${admissionName}" is forbidden: error looking up service account ${m.namespace}/${sa}: serviceaccount "${sa}" not found`, { name: admissionName, kind: 'pods' });
      }
      if (!o.spec.serviceAccountName) o.spec.serviceAccountName = sa;
      // Pod Security admission: the namespace's enforced level.
      const denied = admitPod(this.peek('core/namespaces', null, m.namespace), o);
      if (denied) throw new StoreError(403, 'Forbidden', denied, { name: m.name, kind: 'pods' });
    }
    m.uid = opts.uid || crypto.randomUUID();
    m.creationTimestamp = now();
    if (this.registry.tracksGeneration(res)) m.generation = 1;
    else delete m.generation;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    if (res === 'core/namespaces') {
      m.labels = Object.assign({}, m.labels, { 'kubernetes.io/metadata.name': m.name });
      o.spec = Object.assign({}, o.spec, { finalizers: ['kubernetes'] });
      o.status = Object.assign({}, o.status, { phase: 'Active' });
    }
    if (opts.beforeStore) opts.beforeStore(o);
    if (opts.dryRun) {
      m.resourceVersion = '';
      return clone(o);
    }
    m.resourceVersion = this._nextRV();
    this._put(res, key, o);
    this._emit('ADDED', res, clone(o), null);
    if (res === 'core/namespaces') {
      // The ServiceAccount controller's "default" account (made at once here, so pods created
      // right after the namespace are admitted).
      this.create('core/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: m.name } });
    }
    return clone(o);
  }

  _kind(res) {
    const info = this.registry.get(res);
    return info ? info.kind : pluralOf(res);
  }

  // opts: {subresource: 'status'|undefined, checkRV: bool, dryRun}
  update(res, obj, opts = {}) {
    const m = (obj && obj.metadata) || {};
    const key = this._key(res, m.namespace, m.name);
    const cur = this._bucket(res).get(key);
    if (!cur) throw notFound(res, m.name);
    if (opts.checkRV !== false && m.resourceVersion && m.resourceVersion !== cur.metadata.resourceVersion) {
      throw conflict(res, m.name);
    }
    const hasStatus = this.registry.hasStatus(res);
    let n;
    if (opts.subresource === 'status') {
      n = clone(cur);
      if (obj.status === undefined) delete n.status;
      else n.status = clone(obj.status);
      // the writer's managedFields (opts.managedFields) go in the same write, as kube-apiserver
      // stores a status update: one resourceVersion, one watch event
      if (opts.managedFields !== undefined) n.metadata.managedFields = clone(opts.managedFields);
    } else {
      n = clone(obj);
      n.metadata = n.metadata || {};
      if (hasStatus) {
        if (cur.status === undefined) delete n.status;
        else n.status = clone(cur.status);
      }
      // Immutable / system-owned metadata.
      for (const f of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'namespace', 'name']) {
        if (cur.metadata[f] === undefined) delete n.metadata[f];
        else n.metadata[f] = cur.metadata[f];
      }
      delete n.metadata.selfLink;
      if (res === 'core/namespaces') {
        n.spec = clone(cur.spec);
        n.metadata.labels = Object.assign({}, n.metadata.labels, { 'kubernetes.io/metadata.name': cur.metadata.name });
      }
      // generation: bumped when anything but metadata (and status, when it is a
      // subresource) changes.
      const strip = (x) => {
        const y = Object.assign({}, x);
        delete y.metadata;
        delete y.apiVersion;
        delete y.kind;
        if (hasStatus) delete y.status;
        return y;
      };
      if (this.registry.tracksGeneration(res) && !util.isDeepStrictEqual(strip(cur), strip(n))) n.metadata.generation = (cur.metadata.generation || 0) + 1;
    }
    // No-op updates do not bump the resourceVersion nor emit an event (a managedFields change
    // that only moves timestamps is a no-op too, as on the real server).
    const cmp = (x) => { // shallow copies: only what differs from x is new
      const md = { ...x.metadata };
      delete md.resourceVersion;
      if (md.managedFields) md.managedFields = md.managedFields.map(({ time, ...e }) => e); // eslint-disable-line no-unused-vars
      return { ...x, metadata: md };
    };
    const noop = util.isDeepStrictEqual(cmp(cur), cmp(n));
    if (noop) return clone(cur);
    if (opts.dryRun) {
      n.metadata.resourceVersion = cur.metadata.resourceVersion;
      return clone(n);
    }
    // Finalizers emptied on an object being deleted: it goes away now.
    if (n.metadata.deletionTimestamp && !(n.metadata.finalizers && n.metadata.finalizers.length)) {
      n.metadata.resourceVersion = this._nextRV();
      this._drop(res, key);
      this._emit('DELETED', res, clone(n), cur);
      return clone(n);
    }
    return this._modify(res, key, n, cur);
  }

  // opts: {propagationPolicy, preconditions: {uid, resourceVersion}, gracePeriodSeconds, graceful, dryRun}
  delete(res, ns, name, opts = {}) {
    const key = this._key(res, ns, name);
    const cur = this._bucket(res).get(key);
    if (!cur) throw notFound(res, name);
    const pre = opts.preconditions || {};
    if (pre.uid && pre.uid !== cur.metadata.uid) {
      throw conflict(res, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${cur.metadata.uid}`);
    }
    if (pre.resourceVersion && pre.resourceVersion !== cur.metadata.resourceVersion) {
      throw conflict(res, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cur.metadata.resourceVersion}`);
    }
    let policy = opts.propagationPolicy;
    if (!policy) policy = res === 'batch/jobs' ? 'Orphan' : 'Background';
    if (!['Orphan', 'Foreground', 'Background'].includes(policy)) {
      throw new StoreError(422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`, {
        group: 'meta.k8s.io', kind: 'DeleteOptions',
        causes: [{ reason: 'FieldValueNotSupported', message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`, field: 'propagationPolicy' }],
      });
    }
    const n = clone(cur);
    const fins = (n.metadata.finalizers || []).slice();
    if (res !== 'core/namespaces' && !cur.metadata.deletionTimestamp) {
      if (policy === 'Orphan' && this._hasDependents(cur.metadata.uid) && !fins.includes('orphan')) fins.push('orphan');
      if (policy === 'Foreground' && !fins.includes('foregroundDeletion')) fins.push('foregroundDeletion');
    }
    if (res === 'core/namespaces') {
      if (!n.metadata.deletionTimestamp) {
        n.metadata.deletionTimestamp = now();
        n.metadata.deletionGracePeriodSeconds = 0;
        n.status = Object.assign({}, n.status, { phase: 'Terminating' });
      }
      if (opts.dryRun) return clone(n);
      if (!util.isDeepStrictEqual(n, cur)) {
        n.metadata.resourceVersion = this._nextRV();
        this._put(res, key, n);
        this._emit('MODIFIED', res, clone(n), cur);
      }
      setImmediate(() => this._nsTerminate(name));
      return clone(n);
    }
    // Graceful pod deletion (pod strategy CheckGracefulDelete), for API deletes (opts.graceful)
    // and explicit gracePeriodSeconds: a pod bound to a node and not finished gets
    // deletionTimestamp = now + grace and stays until the kubelet deletes it with
    // gracePeriodSeconds 0; unscheduled or finished pods go at once. A controller's plain
    // store.delete() of a pod removes it at once.
    let grace = opts.gracePeriodSeconds;
    const graceful = opts.graceful || (grace !== undefined && grace !== null);
    if (res === 'core/pods' && graceful) {
      if (grace === undefined || grace === null) {
        const t = cur.spec && cur.spec.terminationGracePeriodSeconds;
        grace = t === undefined || t === null ? 30 : t;
      }
      const phase = cur.status && cur.status.phase;
      if (!(cur.spec && cur.spec.nodeName) || phase === 'Succeeded' || phase === 'Failed') grace = 0;
      if (grace < 0) grace = 1;
      if (grace > 0) {
        if (cur.metadata.deletionTimestamp && (cur.metadata.deletionGracePeriodSeconds || 0) <= grace && util.isDeepStrictEqual(fins, cur.metadata.finalizers || [])) return clone(cur);
        n.metadata.deletionTimestamp = new Date(Date.now() + grace * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
        n.metadata.deletionGracePeriodSeconds = grace;
        if (fins.length) n.metadata.finalizers = fins;
        if (opts.dryRun) return clone(n);
        return this._modify(res, key, n, cur);
      }
    }
    if (fins.length) {
      if (cur.metadata.deletionTimestamp && util.isDeepStrictEqual(fins, cur.metadata.finalizers) && (cur.metadata.deletionGracePeriodSeconds || 0) === 0) return clone(cur);
      n.metadata.finalizers = fins;
      if (n.metadata.deletionTimestamp && n.metadata.deletionGracePeriodSeconds) {
        n.metadata.deletionTimestamp = now();
        n.metadata.deletionGracePeriodSeconds = 0;
      }
      if (!n.metadata.deletionTimestamp) {
        n.metadata.deletionTimestamp = now();
        n.metadata.deletionGracePeriodSeconds = 0;
        if (n.metadata.generation) n.metadata.generation += 1;
      }
      if (opts.dryRun) return clone(n);
      return this._modify(res, key, n, cur);
    }
    if (opts.dryRun) return clone(n);
    if (res === 'apiextensions.k8s.io/customresourcedefinitions') this._dropCRDInstances(cur);
    n.metadata.resourceVersion = this._nextRV();
    if (!n.metadata.deletionTimestamp) {
      n.metadata.deletionTimestamp = now();
      n.metadata.deletionGracePeriodSeconds = 0;
    }
    this._drop(res, key);
    this._emit('DELETED', res, clone(n), cur);
    return clone(n);
  }

  // Deleting a CRD deletes every instance (customresourcecleanup finalizer of the real server).
  _dropCRDInstances(crd) {
    const res = `${crd.spec.group}/${crd.spec.names.plural}`;
    const b = this.data.get(res);
    if (!b) return;
    for (const [key, o] of [...b.entries()]) {
      const n = clone(o);
      n.metadata.resourceVersion = this._nextRV();
      if (!n.metadata.deletionTimestamp) n.metadata.deletionTimestamp = now();
      this._drop(res, key);
      this._emit('DELETED', res, n, o);
    }
  }

  // ---- built-in finalizer processing ----
  _dependents(uid) {
    const out = [];
    for (const [res, keys] of this.owners.get(uid) || []) {
      const b = this._bucket(res);
      for (const k of keys) {
        const o = b.get(k);
        out.push({ res, obj: o, ref: o.metadata.ownerReferences.find((r) => r.uid === uid) });
      }
    }
    return out;
  }

  _hasDependents(uid) {
    return this._dependents(uid).length > 0;
  }

  // n stored as the next version of cur (under key): a new resourceVersion, a MODIFIED event,
  // and what a deletion in progress needs next; returns a copy.
  _modify(res, key, n, cur) {
    n.metadata.resourceVersion = this._nextRV();
    this._put(res, key, n);
    this._emit('MODIFIED', res, clone(n), cur);
    this._afterUpdate(res, n);
    return clone(n);
  }

  _afterUpdate(res, o) {
    if (!o.metadata.deletionTimestamp) return;
    const fins = o.metadata.finalizers || [];
    if (fins.includes('orphan') || fins.includes('foregroundDeletion')) {
      setImmediate(() => this._processGCFinalizers(res, o.metadata.namespace, o.metadata.name));
    }
  }

  _removeFinalizer(res, ns, name, fin) {
    const cur = this.get(res, ns, name);
    if (!cur || !(cur.metadata.finalizers || []).includes(fin)) return;
    cur.metadata.finalizers = cur.metadata.finalizers.filter((f) => f !== fin);
    if (!cur.metadata.finalizers.length) delete cur.metadata.finalizers;
    this.update(res, cur, { checkRV: false });
  }

  _processGCFinalizers(res, ns, name) {
    const cur = this.get(res, ns, name);
    if (!cur || !cur.metadata.deletionTimestamp) return;
    const uid = cur.metadata.uid;
    const fins = cur.metadata.finalizers || [];
    try {
      if (fins.includes('orphan')) {
        for (const d of this._dependents(uid)) {
          const o = clone(d.obj);
          o.metadata.ownerReferences = o.metadata.ownerReferences.filter((r) => r.uid !== uid);
          if (!o.metadata.ownerReferences.length) delete o.metadata.ownerReferences;
          this.update(d.res, o, { checkRV: false });
        }
        this._removeFinalizer(res, ns, name, 'orphan');
      } else if (fins.includes('foregroundDeletion')) {
        const deps = this._dependents(uid);
        for (const d of deps) {
          if (!d.obj.metadata.deletionTimestamp) {
            try {
              this.delete(d.res, d.obj.metadata.namespace, d.obj.metadata.name, { propagationPolicy: 'Foreground' });
            } catch (e) {
              if (e.code !== 404) throw e;
            }
          }
        }
        const blocking = this._dependents(uid).filter((d) => d.ref.blockOwnerDeletion);
        if (!blocking.length) this._removeFinalizer(res, ns, name, 'foregroundDeletion');
      }
    } catch (e) {
      this.emit('error-log', e);
    }
  }

  _ownerGone(uid) {
    // A dependent disappeared: owners waiting in foreground deletion may now be done.
    for (const fg of this.foreground) {
      const [res, key] = fg.split('\0');
      const o = this._bucket(res).get(key);
      setImmediate(() => this._processGCFinalizers(res, o.metadata.namespace, o.metadata.name));
    }
    void uid;
  }

  // ---- namespaces ----
  _nsTerminate(ns) {
    const nso = this.get('core/namespaces', null, ns);
    if (!nso || !nso.metadata.deletionTimestamp) return;
    for (const res of [...this.data.keys()]) {
      if (!this.registry.isNamespaced(res)) continue;
      for (const o of this.list(res, ns)) {
        if (o.metadata.deletionTimestamp) continue;
        try {
          this.delete(res, ns, o.metadata.name, { propagationPolicy: 'Background' });
        } catch (e) {
          if (e.code !== 404) this.emit('error-log', e);
        }
      }
    }
    this._nsCheck(ns);
  }

  _nsCheck(ns) {
    const b = this._bucket('core/namespaces');
    const nso = b.get(`/${ns}`);
    if (!nso || !nso.metadata.deletionTimestamp) return;
    for (const [res, rb] of this.data) {
      if (!this.registry.isNamespaced(res)) continue;
      for (const o of rb.values()) if (o.metadata.namespace === ns) return;
    }
    setImmediate(() => {
      const cur = b.get(`/${ns}`);
      if (!cur || !cur.metadata.deletionTimestamp) return;
      const n = clone(cur);
      n.metadata.resourceVersion = this._nextRV();
      if (n.spec) n.spec.finalizers = [];
      this._drop('core/namespaces', `/${ns}`);
      this._emit('DELETED', 'core/namespaces', n, cur);
    });
  }

  // ---- persistence ----
  _scheduleSave() {
    if (!this.stateFile || this._saveTimer) return;
    this._saveTimer = setTimeout(() => {
      this._saveTimer = null;
      this.save();
    }, 50);
    if (this._saveTimer.unref) this._saveTimer.unref();
  }

  save() {
    if (!this.stateFile) return;
    const objects = {};
    for (const [res, b] of this.data) objects[res] = [...b.values()];
    const tmp = this.stateFile + '.tmp';
    fs.writeFileSync(tmp, JSON.stringify({ rv: this._rv, objects }));
    fs.renameSync(tmp, this.stateFile);
  }

  _load() {
    const st = JSON.parse(fs.readFileSync(this.stateFile, 'utf8'));
    this._rv = st.rv;
    this.historyStart = st.rv;
    const crds = st.objects['apiextensions.k8s.io/customresourcedefinitions'] || [];
    for (const c of crds) this.registry.registerCRD(c);
    for (const [res, list] of Object.entries(st.objects)) {
      const b = this._bucket(res);
      for (const o of list) this._put(res, this._key(res, o.metadata.namespace, o.metadata.name), o);
    }
    this._loaded = true;
    // State written before namespaces got their default ServiceAccount.
    for (const nso of this.list('core/namespaces', null)) {
      if (!nso.metadata.deletionTimestamp && !this.get('core/serviceaccounts', nso.metadata.name, 'default')) {
        this.create('core/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: nso.metadata.name } });
      }
    }
  }
}

module.exports = { Store, StoreError, notFound, alreadyExists, conflict, qualifiedResource, groupOf, pluralOf, NAME_RE };
