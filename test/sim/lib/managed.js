'use strict';
// Field ownership (metadata.managedFields, FieldsV1) and server-side apply conflicts, following
// structured-merge-diff as the apiserver uses it, simplified:
// - an Update (POST/PUT/PATCH) gives its manager the fields whose values it changed (all the
//   object's fields on create) and takes them away from every other manager;
// - an Apply gives its manager exactly the fields of the applied configuration; applying a
//   different value to a field another manager owns is a conflict (409) unless force=true,
//   which moves the ownership; fields a manager stops applying are removed from the object
//   unless another manager owns them.
// Lists with a merge key are keyed (k:{...}), finalizers are a set (v:...), other lists atomic.
const { fieldSet, isObj } = require('./patch');

const META_KEYS = ['labels', 'annotations', 'finalizers', 'ownerReferences'];

// The part of an object that field management covers (no system metadata).
function managedPart(obj, { status } = {}) {
  const out = {};
  for (const [k, v] of Object.entries(obj || {})) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (k === 'metadata') {
      const m = {};
      for (const mk of META_KEYS) if (v && v[mk] !== undefined) m[mk] = v[mk];
      if (Object.keys(m).length) out.metadata = m;
      continue;
    }
    if (status === 'only' && k !== 'status') continue;
    if (status === 'skip' && k === 'status') continue;
    out[k] = v;
  }
  return out;
}

// All leaf paths of a field set: arrays of keys ("f:spec", "k:{...}", "v:...").
function leaves(set, prefix = [], out = []) {
  for (const [k, v] of Object.entries(set || {})) {
    if (k === '.') continue;
    const p = prefix.concat(k);
    const kids = Object.keys(v || {}).filter((x) => x !== '.');
    if (!kids.length) out.push(p);
    else leaves(v, p, out);
  }
  return out;
}

function getAt(obj, path) {
  let cur = obj;
  for (const k of path) {
    if (cur === undefined || cur === null) return undefined;
    if (k.startsWith('f:')) {
      if (!isObj(cur)) return undefined;
      cur = cur[k.slice(2)];
    } else if (k.startsWith('k:')) {
      if (!Array.isArray(cur)) return undefined;
      const kv = JSON.parse(k.slice(2));
      cur = cur.find((it) => isObj(it) && Object.entries(kv).every(([a, b]) => it[a] === b));
    } else if (k.startsWith('v:')) {
      if (!Array.isArray(cur)) return undefined;
      const v = JSON.parse(k.slice(2));
      cur = cur.some((x) => JSON.stringify(x) === JSON.stringify(v)) ? v : undefined;
    } else return undefined;
  }
  return cur;
}

function addPath(set, path) {
  let cur = set;
  path.forEach((k, i) => {
    if (!cur[k]) cur[k] = {};
    if (i < path.length - 1 && !cur[k]['.']) cur[k]['.'] = {};
    cur = cur[k];
  });
  return set;
}

function hasPath(set, path) {
  let cur = set;
  for (const k of path) {
    if (!cur || !cur[k]) return false;
    cur = cur[k];
  }
  return true;
}

function removePath(set, path) {
  const stack = [];
  let cur = set;
  for (const k of path) {
    if (!cur || !cur[k]) return;
    stack.push([cur, k]);
    cur = cur[k];
  }
  for (let i = stack.length - 1; i >= 0; i--) {
    const [parent, k] = stack[i];
    if (i === stack.length - 1) delete parent[k];
    else if (Object.keys(parent[k]).filter((x) => x !== '.').length === 0) delete parent[k];
    else break;
  }
}

function printPath(path) {
  let s = '';
  for (const k of path) {
    if (k.startsWith('f:')) s += `.${k.slice(2)}`;
    else if (k.startsWith('k:')) {
      const kv = JSON.parse(k.slice(2));
      s += `[${Object.entries(kv).map(([a, b]) => `${a}=${JSON.stringify(b)}`).join(',')}]`;
    } else if (k.startsWith('v:')) s += `[=${k.slice(2)}]`;
  }
  return s;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Field set of the leaves of `next` whose value differs from `prev`.
function changedSet(prev, next) {
  const out = {};
  for (const p of leaves(fieldSet(next))) {
    if (!same(getAt(prev, p), getAt(next, p))) addPath(out, p);
  }
  return out;
}

function union(a, b) {
  const out = structuredClone(a || {});
  for (const p of leaves(b)) addPath(out, p);
  return out;
}

const entryKey = (e) => `${e.manager}\u0000${e.operation}\u0000${e.subresource || ''}`;

function now() {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// Record an Update by `manager` that turned prev (null on create) into next.
// entries: current managedFields; returns the new managedFields.
function recordUpdate(entries, { manager, apiVersion, subresource, prev, next, statusMode }) {
  const part = (o) => managedPart(o, { status: statusMode });
  const changed = prev ? changedSet(part(prev), part(next)) : fieldSet(part(next));
  const out = [];
  let mine = null;
  let at = -1;
  for (const e of entries || []) {
    if (e.manager === manager && e.operation === 'Update' && (e.subresource || '') === (subresource || '')) {
      mine = e;
      at = out.length;
      continue;
    }
    const fs = structuredClone(e.fieldsV1 || {});
    for (const p of leaves(changed)) removePath(fs, p);
    if (leaves(fs).length || e.operation === 'Apply') out.push(Object.assign({}, e, { fieldsV1: fs }));
  }
  const fs = union(mine ? mine.fieldsV1 : {}, changed);
  // Fields the object no longer has are owned by nobody.
  for (const p of leaves(fs)) if (getAt(part(next), p) === undefined) removePath(fs, p);
  if (leaves(fs).length) {
    const e = { manager, operation: 'Update', apiVersion, time: now(), fieldsType: 'FieldsV1', fieldsV1: fs };
    if (subresource) e.subresource = subresource;
    if (at >= 0) out.splice(at, 0, e);
    else out.push(e);
  }
  return out;
}

// Conflicts of an apply: applied leaves whose value differs from live and which another manager
// owns. Returns [{manager entry, path}].
function applyConflicts(entries, { manager, subresource, live, applied, statusMode }) {
  const part = (o) => managedPart(o, { status: statusMode });
  const a = part(applied);
  const l = part(live);
  const conflicts = [];
  for (const p of leaves(fieldSet(a))) {
    if (same(getAt(a, p), getAt(l, p))) continue;
    for (const e of entries || []) {
      if (e.manager === manager && (e.subresource || '') === (subresource || '')) continue;
      if (hasPath(e.fieldsV1 || {}, p)) conflicts.push({ entry: e, path: p });
    }
  }
  return conflicts;
}

function printManager(e) {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

// The apiserver's NewApplyConflict Status (409).
function conflictStatus(conflicts) {
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: printPath(c.path) }));
  let message;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].entry)}: ${printPath(conflicts[0].path)}`;
  } else {
    const by = new Map();
    for (const c of conflicts) {
      const k = printManager(c.entry);
      if (!by.has(k)) by.set(k, []);
      by.get(k).push(printPath(c.path));
    }
    const parts = [];
    for (const k of [...by.keys()].sort()) {
      parts.push(`conflicts with ${k}:`);
      for (const p of by.get(k)) parts.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${parts.join('\n')}`;
  }
  return { message, causes };
}

// Record an Apply: the manager owns exactly the applied fields; with force, other managers lose
// the applied fields whose value changed.
function recordApply(entries, { manager, apiVersion, subresource, applied, live, force, statusMode }) {
  const part = (o) => managedPart(o, { status: statusMode });
  const appliedSet = fieldSet(part(applied));
  const out = [];
  let at = -1;
  for (const e of entries || []) {
    if (e.manager === manager && e.operation === 'Apply' && (e.subresource || '') === (subresource || '')) {
      at = out.length;
      continue;
    }
    let fs = e.fieldsV1 || {};
    if (force) {
      fs = structuredClone(fs);
      for (const p of leaves(appliedSet)) if (!same(getAt(part(applied), p), getAt(part(live), p))) removePath(fs, p);
    }
    if (leaves(fs).length || e.operation === 'Apply') out.push(Object.assign({}, e, { fieldsV1: fs }));
  }
  const e = { manager, operation: 'Apply', apiVersion, time: now(), fieldsType: 'FieldsV1', fieldsV1: appliedSet };
  if (subresource) e.subresource = subresource;
  if (at >= 0) out.splice(at, 0, e);
  else out.push(e);
  return out;
}

// Paths (in field-set form) owned by managers other than `manager`'s Apply entry.
function ownedByOthers(entries, manager, subresource) {
  let s = {};
  for (const e of entries || []) {
    if (e.manager === manager && e.operation === 'Apply' && (e.subresource || '') === (subresource || '')) continue;
    s = union(s, e.fieldsV1 || {});
  }
  return s;
}

module.exports = { managedPart, leaves, getAt, hasPath, changedSet, recordUpdate, recordApply, applyConflicts, conflictStatus, ownedByOthers, printPath, entryKey };
