'use strict';
// Garbage collector for ownerReferences, background part. The store processes the "orphan" and
// "foregroundDeletion" finalizers itself (see store.js); what is left here, as the real
// garbage collector's attemptToDeleteItem:
// - when an owner is gone (deleted, or its uid no longer matches the object of that name), a
//   dependent none of whose other owners still exists is deleted with Background propagation;
// - a dependent that still has a live owner only loses the dangling ownerReferences;
// - a newly created dependent whose owners do not exist is collected the same way. Owners are
//   resolved through the API registry (apiVersion + kind); an ownerReference whose kind cannot
//   be resolved is left alone (the real GC cannot resolve it either and logs an error);
// - a namespaced dependent's owner is looked up in the dependent's namespace (absent if not
//   there); a cluster-scoped dependent with a namespaced owner kind is unresolvable: it is never
//   collected and gets an OwnerRefInvalidNamespace event.

const U = require('./util');

class GarbageCollector {
  constructor(ctx) {
    this.store = ctx.store;
    this.log = ctx.log;
    this.queue = new U.WorkQueue('garbage-collector', (k) => this.attempt(k), this.log);
  }

  onEvent(ev) {
    const o = ev.object;
    const md = o.metadata || {};
    if (ev.type === 'DELETED') {
      if (md.uid) this.queue.add(`owner|${md.uid}`);
      return;
    }
    if ((md.ownerReferences || []).length && !md.deletionTimestamp) {
      this.queue.add(`item|${ev.res}|${md.namespace || ''}|${md.name}`);
    }
  }

  resync() {
    for (const res of this.store.resources()) {
      for (const o of this.store.list(res, null)) {
        if ((o.metadata.ownerReferences || []).length) this.queue.add(`item|${res}|${o.metadata.namespace || ''}|${o.metadata.name}`);
      }
    }
  }

  resolve(ref) {
    const gv = ref.apiVersion || '';
    const i = gv.indexOf('/');
    const group = i < 0 ? '' : gv.slice(0, i);
    const version = i < 0 ? gv : gv.slice(i + 1);
    const reg = this.store.registry;
    let info = reg && reg.byKind ? reg.byKind(group, version, ref.kind) : null;
    if (!info && reg && reg.all) info = reg.all().find((x) => x.group === group && x.kind === ref.kind) || null;
    if (!info) {
      const id = U.KIND_RES[`${gv}/${ref.kind}`];
      return id ? { id, namespaced: id !== 'core/namespaces' && id !== 'storage.k8s.io/storageclasses' } : null;
    }
    return { id: info.id || `${info.group || 'core'}/${info.plural}`, namespaced: info.namespaced };
  }

  // 'alive' | 'absent' | 'unknown'
  ownerState(dep, depNamespaced, ref) {
    const r = this.resolve(ref);
    if (!r) return 'unknown';
    let owner = null;
    if (r.namespaced) {
      if (!depNamespaced) {
        // A cluster-scoped dependent cannot have a namespaced owner: unresolvable, never
        // collected, reported with an OwnerRefInvalidNamespace event (as upstream, 1.20+).
        U.recordEvent(this.store, Object.assign({ apiVersion: dep.apiVersion, kind: dep.kind }, dep), 'Warning', 'OwnerRefInvalidNamespace',
          `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: , name: ${ref.name}, uid: ${ref.uid}] does not exist in namespace ""`, 'garbage-collector-controller');
        return 'unknown';
      }
      owner = this.store.peek(r.id, dep.metadata.namespace, ref.name);
    } else {
      owner = this.store.peek(r.id, null, ref.name);
    }
    return owner && owner.metadata.uid === ref.uid ? 'alive' : 'absent';
  }

  attempt(key) {
    const parts = key.split('|');
    if (parts[0] === 'owner') {
      const uid = parts[1];
      for (const res of this.store.resources()) {
        for (const o of this.store.list(res, null)) {
          if ((o.metadata.ownerReferences || []).some((r) => r.uid === uid)) this.collect(res, o);
        }
      }
      return;
    }
    const [, res, ns, name] = parts;
    const o = this.store.get(res, ns || null, name);
    if (o) this.collect(res, o);
  }

  collect(res, o) {
    if (o.metadata.deletionTimestamp) return;
    const refs = o.metadata.ownerReferences || [];
    if (!refs.length) return;
    const namespaced = this.store.registry && this.store.registry.isNamespaced ? this.store.registry.isNamespaced(res) : !!o.metadata.namespace;
    const states = refs.map((r) => this.ownerState(o, namespaced, r));
    const absent = refs.filter((_, i) => states[i] === 'absent');
    if (!absent.length) return;
    const ns = o.metadata.namespace || null;
    if (absent.length === refs.length) {
      try {
        this.store.delete(res, ns, o.metadata.name, { propagationPolicy: 'Background', preconditions: { uid: o.metadata.uid }, graceful: true });
      } catch (e) {
        if (!U.isNotFound(e) && !U.isConflict(e)) throw e;
      }
      return;
    }
    // Some owners remain: drop only the dangling references.
    const gone = new Set(absent.map((r) => r.uid));
    o.metadata.ownerReferences = refs.filter((r) => !gone.has(r.uid));
    try {
      this.store.update(res, o);
    } catch (e) {
      if (!U.isNotFound(e) && !U.isConflict(e)) throw e;
      if (U.isConflict(e)) throw e; // retried by the queue
    }
  }

  stop() {
    this.queue.stop();
  }
}

module.exports = { GarbageCollector };
