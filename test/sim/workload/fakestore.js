'use strict';
// TEMPORARY minimal fake of test/sim/store.js (contract in .helpers/sim-store.md), used only until
// the real store lands. Delete once test/sim/store.js exists.
const { EventEmitter } = require('events');
const crypto = require('crypto');

class StoreError extends Error {
  constructor(code, reason, message) {
    super(message);
    this.code = code;
    this.reason = reason;
  }
}

const clone = (o) => (o == null ? o : JSON.parse(JSON.stringify(o)));

function matchSel(sel, labels) {
  if (!sel) return true;
  labels = labels || {};
  for (const part of sel.split(',').filter(Boolean)) {
    const [k, v] = part.split('=');
    if (v === undefined) {
      if (!(k in labels)) return false;
    } else if (labels[k] !== v) return false;
  }
  return true;
}

class FakeStore extends EventEmitter {
  constructor() {
    super();
    this.objs = new Map();
    this._rv = 1;
  }
  key(res, ns, name) {
    return `${res}|${ns || ''}|${name}`;
  }
  rv() {
    return String(this._rv);
  }
  get(res, ns, name) {
    return clone(this.objs.get(this.key(res, ns, name)) || null);
  }
  list(res, ns, opts) {
    const out = [];
    for (const [k, o] of this.objs) {
      if (!k.startsWith(res + '|')) continue;
      if (ns && o.metadata.namespace !== ns) continue;
      if (!matchSel(opts && opts.labelSelector, o.metadata.labels)) continue;
      out.push(clone(o));
    }
    return out;
  }
  create(res, obj) {
    obj = clone(obj);
    const md = obj.metadata;
    if (!md.name && md.generateName) md.name = md.generateName + crypto.randomBytes(3).toString('hex').slice(0, 5);
    const k = this.key(res, md.namespace, md.name);
    if (this.objs.has(k)) throw new StoreError(409, 'AlreadyExists', `${res} "${md.name}" already exists`);
    md.uid = crypto.randomUUID();
    md.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    md.resourceVersion = String(++this._rv);
    md.generation = 1;
    this.objs.set(k, obj);
    this.emit('event', { type: 'ADDED', res, object: clone(obj), old: null });
    return clone(obj);
  }
  update(res, obj, opts) {
    opts = opts || {};
    const md = obj.metadata;
    const k = this.key(res, md.namespace, md.name);
    const old = this.objs.get(k);
    if (!old) throw new StoreError(404, 'NotFound', `${res} "${md.name}" not found`);
    if (opts.checkRV && md.resourceVersion && md.resourceVersion !== old.metadata.resourceVersion)
      throw new StoreError(409, 'Conflict', 'the object has been modified');
    let next;
    if (opts.subresource === 'status') {
      next = clone(old);
      next.status = clone(obj.status);
    } else {
      next = clone(obj);
      next.metadata.uid = old.metadata.uid;
      next.metadata.creationTimestamp = old.metadata.creationTimestamp;
      next.metadata.deletionTimestamp = old.metadata.deletionTimestamp;
      next.metadata.generation = old.metadata.generation;
      if (old.status !== undefined) next.status = clone(old.status);
      else delete next.status;
      const strip = (o) => { const c = clone(o); delete c.metadata; delete c.status; return JSON.stringify(c); };
      if (strip(old) !== strip(next)) next.metadata.generation++;
    }
    next.metadata.resourceVersion = String(++this._rv);
    if (next.metadata.deletionTimestamp && !(next.metadata.finalizers || []).length) {
      this.objs.delete(k);
      this.emit('event', { type: 'DELETED', res, object: clone(next), old: clone(old) });
      return clone(next);
    }
    this.objs.set(k, next);
    this.emit('event', { type: 'MODIFIED', res, object: clone(next), old: clone(old) });
    return clone(next);
  }
  delete(res, ns, name, opts) {
    opts = opts || {};
    const k = this.key(res, ns, name);
    const old = this.objs.get(k);
    if (!old) throw new StoreError(404, 'NotFound', `${res} "${name}" not found`);
    const next = clone(old);
    const fin = next.metadata.finalizers || [];
    const policy = opts.propagationPolicy;
    if (policy === 'Foreground' && !fin.includes('foregroundDeletion')) fin.push('foregroundDeletion');
    if (policy === 'Orphan' && !fin.includes('orphan')) fin.push('orphan');
    next.metadata.finalizers = fin;
    if (fin.length) {
      if (!next.metadata.deletionTimestamp) {
        next.metadata.deletionTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        next.metadata.deletionGracePeriodSeconds = 0;
      }
      next.metadata.resourceVersion = String(++this._rv);
      this.objs.set(k, next);
      this.emit('event', { type: 'MODIFIED', res, object: clone(next), old: clone(old) });
      return clone(next);
    }
    this.objs.delete(k);
    next.metadata.resourceVersion = String(++this._rv);
    this.emit('event', { type: 'DELETED', res, object: clone(next), old: clone(old) });
    return clone(next);
  }
}

module.exports = { Store: FakeStore, StoreError };
