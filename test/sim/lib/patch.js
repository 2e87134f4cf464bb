'use strict';
// Patch formats: JSON merge patch (RFC 7386), JSON patch (RFC 6902), strategic merge patch
// (k8s.io/apimachinery/pkg/util/strategicpatch, for the list fields clients use) and a
// simplified server-side apply.
const { err } = require('./status');

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function mergePatch(target, patch) {
  if (!isObj(patch)) return structuredClone(patch);
  const out = isObj(target) ? structuredClone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function unescapePtr(s) {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePtr(p) {
  if (p === '') return [];
  if (typeof p !== 'string' || p[0] !== '/') throw err(422, 'Invalid', `JSON pointer "${p}" must start with /`);
  return p.slice(1).split('/').map(unescapePtr);
}

function jsonPatch(doc, ops) {
  if (!Array.isArray(ops)) throw err(400, 'BadRequest', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let root = structuredClone(doc);
  const parentOf = (parts, op) => {
    let cur = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const k = Array.isArray(cur) ? Number(parts[i]) : parts[i];
      if (cur == null || typeof cur !== 'object' || !(k in cur)) {
        throw err(422, 'Invalid', `the server rejected our request due to an error in our request`, undefined, op);
      }
      cur = cur[k];
    }
    return cur;
  };
  const get = (parts) => {
    let cur = root;
    for (const p of parts) {
      if (cur == null || typeof cur !== 'object') return undefined;
      cur = Array.isArray(cur) ? cur[Number(p)] : cur[p];
    }
    return cur;
  };
  const missing = (op, p) => err(500, 'InternalError', `Internal error occurred: ${op} operation does not apply: doc is missing path: "${p}": missing value`);
  for (const op of ops) {
    const parts = parsePtr(op.path);
    const last = parts[parts.length - 1];
    switch (op.op) {
      case 'add':
      case 'replace': {
        if (!parts.length) {
          root = structuredClone(op.value);
          break;
        }
        let par;
        try {
          par = parentOf(parts);
        } catch (e) {
          throw missing(op.op, op.path);
        }
        if (Array.isArray(par)) {
          const idx = last === '-' ? par.length : Number(last);
          if (!Number.isInteger(idx) || idx < 0 || idx > par.length || (op.op === 'replace' && idx >= par.length)) throw missing(op.op, op.path);
          if (op.op === 'add') par.splice(idx, 0, structuredClone(op.value));
          else par[idx] = structuredClone(op.value);
        } else if (isObj(par)) {
          if (op.op === 'replace' && !(last in par)) throw missing('replace', op.path);
          par[last] = structuredClone(op.value);
        } else throw missing(op.op, op.path);
        break;
      }
      case 'remove': {
        let par;
        try {
          par = parentOf(parts);
        } catch (e) {
          throw missing('remove', op.path);
        }
        if (Array.isArray(par)) {
          const idx = Number(last);
          if (!(idx >= 0 && idx < par.length)) throw missing('remove', op.path);
          par.splice(idx, 1);
        } else if (isObj(par) && last in par) delete par[last];
        else throw missing('remove', op.path);
        break;
      }
      case 'move':
      case 'copy': {
        const from = parsePtr(op.from);
        const v = get(from);
        if (v === undefined) throw missing(op.op, op.from);
        if (op.op === 'move') jsonPatchInPlace(() => root, (r) => { root = r; }, [{ op: 'remove', path: op.from }]);
        jsonPatchInPlace(() => root, (r) => { root = r; }, [{ op: 'add', path: op.path, value: v }]);
        break;
      }
      case 'test': {
        const v = get(parts);
        if (JSON.stringify(v) !== JSON.stringify(op.value)) {
          throw err(422, 'Invalid', `the server rejected our request due to an error in our request`);
        }
        break;
      }
      default:
        throw err(500, 'InternalError', `Internal error occurred: Unexpected kind: ${op.op}`);
    }
  }
  return root;
}

function jsonPatchInPlace(getRoot, setRoot, ops) {
  setRoot(jsonPatch(getRoot(), ops));
}

// ---- strategic merge patch ----
// patchMergeKey for list fields (by field name; "ports" depends on the parent).
const MERGE_KEYS = {
  containers: 'name', initContainers: 'name', ephemeralContainers: 'name', env: 'name', volumes: 'name',
  volumeMounts: 'mountPath', volumeDevices: 'devicePath', imagePullSecrets: 'name', hostAliases: 'ip',
  conditions: 'type', ownerReferences: 'uid', containerStatuses: 'name', initContainerStatuses: 'name',
  topologySpreadConstraints: 'topologyKey', resourceClaims: 'name', schedulingGates: 'name',
};
// primitive lists with patchStrategy merge
const MERGE_PRIMITIVE = new Set(['finalizers']);
// lists with no merge strategy are atomic (replaced): args, command, tolerations, rules, ...

function mergeKeyFor(field, items, parentPath) {
  if (field === 'ports') {
    if (parentPath.includes('containers') || parentPath.includes('initContainers')) return 'containerPort';
    return 'port';
  }
  if (field === 'env' && parentPath.length === 0) return null;
  return MERGE_KEYS[field] || null;
}

function smp(target, patch, parentPath = []) {
  if (!isObj(patch)) return structuredClone(patch);
  if (patch.$patch === 'replace') {
    const p = structuredClone(patch);
    delete p.$patch;
    return p;
  }
  if (patch.$patch === 'delete') return undefined;
  let out = isObj(target) ? structuredClone(target) : {};
  if (Array.isArray(patch.$retainKeys)) {
    for (const k of Object.keys(out)) if (!patch.$retainKeys.includes(k)) delete out[k];
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$retainKeys' || k === '$patch') continue;
    if (k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const f = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[f])) out[f] = out[f].filter((x) => !v.includes(x));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    if (Array.isArray(v)) {
      const key = mergeKeyFor(k, v, parentPath);
      if (key && Array.isArray(out[k])) {
        out[k] = mergeList(out[k], v, key, parentPath.concat(k));
      } else if (MERGE_PRIMITIVE.has(k) && Array.isArray(out[k])) {
        const s = out[k].slice();
        for (const x of v) if (!s.includes(x)) s.push(x);
        out[k] = s;
      } else if (key) {
        out[k] = v.filter((x) => !(isObj(x) && x.$patch === 'delete')).map((x) => stripDirectives(x));
      } else {
        out[k] = structuredClone(v);
      }
      const order = patch[`$setElementOrder/${k}`];
      if (key && Array.isArray(order) && Array.isArray(out[k])) out[k] = reorder(out[k], order, key);
      continue;
    }
    if (isObj(v)) {
      const r = smp(out[k], v, parentPath.concat(k));
      if (r === undefined) delete out[k];
      else out[k] = r;
      continue;
    }
    out[k] = v;
  }
  return out;
}

function stripDirectives(x) {
  if (!isObj(x)) return x;
  const o = {};
  for (const [k, v] of Object.entries(x)) if (!k.startsWith('$')) o[k] = isObj(v) ? stripDirectives(v) : v;
  return o;
}

function mergeList(cur, patch, key, path) {
  const out = cur.map((x) => structuredClone(x));
  for (const item of patch) {
    if (!isObj(item)) continue;
    const idx = out.findIndex((x) => isObj(x) && x[key] === item[key]);
    if (item.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (item.$patch === 'replace') {
      const it = stripDirectives(item);
      if (idx >= 0) out[idx] = it;
      else out.push(it);
      continue;
    }
    if (idx >= 0) out[idx] = smp(out[idx], item, path);
    else out.push(smp({}, item, path));
  }
  return out;
}

function reorder(list, order, key) {
  const ordered = [];
  const rest = list.slice();
  for (const o of order) {
    const i = rest.findIndex((x) => isObj(x) && isObj(o) && x[key] === o[key]);
    if (i >= 0) ordered.push(rest.splice(i, 1)[0]);
  }
  return ordered.concat(rest);
}

// ---- server-side apply (simplified) ----
// fieldsV1 set of an object: {"f:spec": {"f:replicas": {}}, ...}; keyed lists use
// k:{"name":"x"} entries, other lists are atomic.
function fieldSet(v, parentPath = []) {
  const out = {};
  if (!isObj(v)) return out;
  for (const [k, x] of Object.entries(v)) {
    const fk = `f:${k}`;
    if (isObj(x)) {
      const sub = fieldSet(x, parentPath.concat(k));
      out[fk] = Object.keys(sub).length ? Object.assign({ '.': {} }, sub) : {};
      if (!Object.keys(sub).length) out[fk] = {};
    } else if (Array.isArray(x)) {
      const key = mergeKeyFor(k, x, parentPath);
      if (key && x.every((it) => isObj(it) && it[key] !== undefined)) {
        const sub = {};
        for (const it of x) {
          sub[`k:${JSON.stringify({ [key]: it[key] })}`] = Object.assign({ '.': {} }, fieldSet(it, parentPath.concat(k)));
        }
        out[fk] = sub;
      } else if (MERGE_PRIMITIVE.has(k)) {
        const sub = {};
        for (const it of x) sub[`v:${JSON.stringify(it)}`] = {};
        out[fk] = Object.assign({ '.': {} }, sub);
      } else out[fk] = {};
    } else out[fk] = {};
  }
  return out;
}

// Remove from obj the fields present in oldSet and absent from newSet, except those another
// manager owns (othersSet).
function removeFields(obj, oldSet, newSet, othersSet) {
  if (!isObj(obj) || !isObj(oldSet)) return;
  const others = isObj(othersSet) ? othersSet : {};
  for (const [fk, sub] of Object.entries(oldSet)) {
    if (fk === '.') continue;
    const inNew = newSet && Object.prototype.hasOwnProperty.call(newSet, fk);
    if (fk.startsWith('f:')) {
      const k = fk.slice(2);
      if (!inNew) {
        if (!others[fk]) delete obj[k];
        else if (isObj(obj[k])) removeFields(obj[k], sub, {}, others[fk]);
      } else if (isObj(obj[k])) {
        removeFields(obj[k], sub, newSet[fk], others[fk]);
      } else if (Array.isArray(obj[k])) {
        for (const [ik, isub] of Object.entries(sub)) {
          if (!ik.startsWith('k:') && !ik.startsWith('v:')) continue;
          const kv = JSON.parse(ik.slice(2));
          const inNewItem = newSet[fk] && Object.prototype.hasOwnProperty.call(newSet[fk], ik);
          const idx = obj[k].findIndex((it) => (ik.startsWith('v:') ? JSON.stringify(it) === JSON.stringify(kv) : isObj(it) && Object.entries(kv).every(([a, b]) => it[a] === b)));
          if (idx < 0) continue;
          const otherItem = others[fk] && others[fk][ik];
          if (!inNewItem && !otherItem) obj[k].splice(idx, 1);
          else removeFields(obj[k][idx], isub, inNewItem ? newSet[fk][ik] : {}, otherItem);
        }
      }
    }
  }
}

// Apply `applied` (the full intent of manager) onto `live`, given the manager's previous
// field set and the fields other managers own. Returns the new object.
function applyPatch(live, applied, prevSet, othersSet) {
  const out = structuredClone(live);
  const newSet = fieldSet(applied);
  if (prevSet) removeFields(out, prevSet, newSet, othersSet);
  return smp(out, applied);
}

module.exports = { mergePatch, jsonPatch, smp, fieldSet, applyPatch, isObj };
