'use strict';
// Decoder for the Kubernetes protobuf wire format ("k8s\0" + runtime.Unknown) of request bodies
// (kubectl create <kind>, helm's release Secrets, DeleteOptions). Message layouts come from
// k8s-proto.json (extracted from a kubectl binary by proto-extract.js); without it only
// Secret, ConfigMap, Namespace, ServiceAccount and DeleteOptions are decoded (hand-written
// below). Responses are always JSON (clients list application/json in Accept).

function reader(buf) {
  let pos = 0;
  const varint = () => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint');
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
      shift += 7n;
    }
    return result;
  };
  return {
    done: () => pos >= buf.length,
    varint,
    next() {
      const key = Number(varint());
      const field = key >>> 3;
      const wire = key & 7;
      let value;
      if (wire === 0) value = varint();
      else if (wire === 2) {
        const len = Number(varint());
        value = buf.subarray(pos, pos + len);
        pos += len;
      } else if (wire === 1) {
        value = buf.subarray(pos, pos + 8);
        pos += 8;
      } else if (wire === 5) {
        value = buf.subarray(pos, pos + 4);
        pos += 4;
      } else throw new Error(`unsupported wire type ${wire}`);
      return { field, wire, value };
    },
  };
}

function fields(buf) {
  const r = reader(buf);
  const out = [];
  while (!r.done()) out.push(r.next());
  return out;
}

const str = (b) => Buffer.from(b).toString('utf8');

function mapEntry(b, valueAsBytes) {
  let k = '';
  let v = valueAsBytes ? Buffer.alloc(0) : '';
  for (const f of fields(b)) {
    if (f.field === 1) k = str(f.value);
    if (f.field === 2) v = valueAsBytes ? Buffer.from(f.value) : str(f.value);
  }
  return [k, v];
}

function time(b) {
  let s = 0n;
  for (const f of fields(b)) if (f.field === 1) s = f.value;
  return new Date(Number(s) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function ownerRef(b) {
  const o = {};
  for (const f of fields(b)) {
    if (f.field === 5) o.apiVersion = str(f.value);
    else if (f.field === 1) o.kind = str(f.value);
    else if (f.field === 3) o.name = str(f.value);
    else if (f.field === 4) o.uid = str(f.value);
    else if (f.field === 6) o.controller = f.value !== 0n;
    else if (f.field === 7) o.blockOwnerDeletion = f.value !== 0n;
  }
  return o;
}

function objectMeta(b) {
  const m = {};
  for (const f of fields(b)) {
    switch (f.field) {
      case 1: m.name = str(f.value); break;
      case 2: m.generateName = str(f.value); break;
      case 3: m.namespace = str(f.value); break;
      case 5: m.uid = str(f.value); break;
      case 6: m.resourceVersion = str(f.value); break;
      case 7: m.generation = Number(f.value); break;
      case 8: m.creationTimestamp = time(f.value); break;
      case 11: { const [k, v] = mapEntry(f.value); (m.labels = m.labels || {})[k] = v; break; }
      case 12: { const [k, v] = mapEntry(f.value); (m.annotations = m.annotations || {})[k] = v; break; }
      case 13: (m.ownerReferences = m.ownerReferences || []).push(ownerRef(f.value)); break;
      case 14: (m.finalizers = m.finalizers || []).push(str(f.value)); break;
      default: break;
    }
  }
  for (const k of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion']) if (m[k] === '') delete m[k];
  if (m.creationTimestamp === '1970-01-01T00:00:00Z') delete m.creationTimestamp;
  return m;
}

function secret(b) {
  const o = { apiVersion: 'v1', kind: 'Secret', metadata: {} };
  for (const f of fields(b)) {
    if (f.field === 1) o.metadata = objectMeta(f.value);
    else if (f.field === 2) { const [k, v] = mapEntry(f.value, true); (o.data = o.data || {})[k] = v.toString('base64'); }
    else if (f.field === 3) o.type = str(f.value);
    else if (f.field === 4) { const [k, v] = mapEntry(f.value); (o.stringData = o.stringData || {})[k] = v; }
    else if (f.field === 5) o.immutable = f.value !== 0n;
  }
  return o;
}

function configMap(b) {
  const o = { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} };
  for (const f of fields(b)) {
    if (f.field === 1) o.metadata = objectMeta(f.value);
    else if (f.field === 2) { const [k, v] = mapEntry(f.value); (o.data = o.data || {})[k] = v; }
    else if (f.field === 3) { const [k, v] = mapEntry(f.value, true); (o.binaryData = o.binaryData || {})[k] = v.toString('base64'); }
    else if (f.field === 4) o.immutable = f.value !== 0n;
  }
  return o;
}

function deleteOptions(b) {
  const o = {};
  for (const f of fields(b)) {
    if (f.field === 1) o.gracePeriodSeconds = Number(f.value);
    else if (f.field === 2) {
      o.preconditions = {};
      for (const p of fields(f.value)) {
        if (p.field === 1) o.preconditions.uid = str(p.value);
        if (p.field === 2) o.preconditions.resourceVersion = str(p.value);
      }
    } else if (f.field === 3) o.orphanDependents = f.value !== 0n;
    else if (f.field === 4) o.propagationPolicy = str(f.value);
    else if (f.field === 5) (o.dryRun = o.dryRun || []).push(str(f.value));
  }
  return o;
}

function namespace(b) {
  const o = { apiVersion: 'v1', kind: 'Namespace', metadata: {} };
  for (const f of fields(b)) {
    if (f.field === 1) o.metadata = objectMeta(f.value);
    else if (f.field === 2) {
      for (const x of fields(f.value)) if (x.field === 1) ((o.spec = o.spec || {}).finalizers = o.spec.finalizers || []).push(str(x.value));
    }
  }
  return o;
}

function localRef(b) {
  const r = {};
  for (const f of fields(b)) if (f.field === 1) r.name = str(f.value);
  return r;
}

function serviceAccount(b) {
  const o = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: {} };
  for (const f of fields(b)) {
    if (f.field === 1) o.metadata = objectMeta(f.value);
    else if (f.field === 2) {
      const r = {};
      for (const x of fields(f.value)) {
        if (x.field === 1) r.kind = str(x.value);
        if (x.field === 2) r.namespace = str(x.value);
        if (x.field === 3) r.name = str(x.value);
      }
      (o.secrets = o.secrets || []).push(r);
    } else if (f.field === 3) (o.imagePullSecrets = o.imagePullSecrets || []).push(localRef(f.value));
    else if (f.field === 4) o.automountServiceAccountToken = f.value !== 0n;
  }
  return o;
}

const KINDS = { Secret: secret, ConfigMap: configMap, DeleteOptions: deleteOptions, Namespace: namespace, ServiceAccount: serviceAccount };


// ---- generic decoding from the message layouts in k8s-proto.json (lib/proto-extract.js) ----
// Go's generated marshalers write every non-pointer scalar, so zero scalars ("", 0, false) are
// dropped as JSON's omitempty would; an explicit zero in an optional pointer field (e.g.
// replicas: 0) is indistinguishable and is dropped too.
let TABLE;
function table() {
  if (TABLE === undefined) {
    try {
      TABLE = require('./k8s-proto.json');
    } catch (e) {
      TABLE = null;
    }
  }
  return TABLE;
}

const PKG = {
  v1: 'k8s.io.api.core.v1', 'batch/v1': 'k8s.io.api.batch.v1', 'apps/v1': 'k8s.io.api.apps.v1',
  'autoscaling/v2': 'k8s.io.api.autoscaling.v2', 'autoscaling/v1': 'k8s.io.api.autoscaling.v1',
  'rbac.authorization.k8s.io/v1': 'k8s.io.api.rbac.v1', 'coordination.k8s.io/v1': 'k8s.io.api.coordination.v1',
  'events.k8s.io/v1': 'k8s.io.api.events.v1', 'storage.k8s.io/v1': 'k8s.io.api.storage.v1', 'policy/v1': 'k8s.io.api.policy.v1',
  'authentication.k8s.io/v1': 'k8s.io.api.authentication.v1',
};
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

function goDuration(ns) {
  let s = Number(ns) / 1e9;
  let out = '';
  const h = Math.floor(s / 3600);
  if (h) out += `${h}h`;
  s -= h * 3600;
  const m = Math.floor(s / 60);
  if (m || h) out += `${m}m`;
  s -= m * 60;
  return out + `${Math.round(s * 1e6) / 1e6}s`;
}

function special(type, buf) {
  switch (type) {
    case `${META}.Time`:
    case `${META}.MicroTime`: {
      let sec = 0n;
      let nanos = 0n;
      for (const f of fields(buf)) {
        if (f.field === 1) sec = BigInt.asIntN(64, f.value);
        if (f.field === 2) nanos = f.value;
      }
      if (sec === 0n && nanos === 0n) return { v: undefined };
      const iso = new Date(Number(sec) * 1000).toISOString();
      if (type.endsWith('MicroTime')) return { v: iso.replace(/\.\d{3}Z$/, `.${String(Number(nanos) / 1000 | 0).padStart(6, '0')}Z`) };
      return { v: iso.replace(/\.\d{3}Z$/, 'Z') };
    }
    case `${META}.Duration`: {
      let d = 0n;
      for (const f of fields(buf)) if (f.field === 1) d = BigInt.asIntN(64, f.value);
      return { v: goDuration(d) };
    }
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity': {
      let q = '';
      for (const f of fields(buf)) if (f.field === 1) q = str(f.value);
      return { v: q };
    }
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString': {
      let t = 0n;
      let i = 0n;
      let sv = '';
      for (const f of fields(buf)) {
        if (f.field === 1) t = f.value;
        if (f.field === 2) i = BigInt.asIntN(32, f.value);
        if (f.field === 3) sv = str(f.value);
      }
      return { v: t === 1n ? sv : Number(i) };
    }
    case 'k8s.io.apimachinery.pkg.runtime.RawExtension':
    case `${META}.FieldsV1`: {
      for (const f of fields(buf)) if (f.field === 1) return { v: JSON.parse(str(f.value)) };
      return { v: undefined };
    }
    default:
      return null;
  }
}

function scalar(t, f) {
  const v = f.value;
  switch (t) {
    case 9: return str(v);
    case 12: return Buffer.from(v).toString('base64');
    case 8: return v !== 0n;
    case 5: case 17: return Number(BigInt.asIntN(32, v));
    case 3: case 18: return Number(BigInt.asIntN(64, v));
    case 4: case 13: return Number(v);
    case 1: return Buffer.from(v).readDoubleLE(0);
    case 2: return Buffer.from(v).readFloatLE(0);
    default: return undefined;
  }
}

function decodeMessage(type, buf) {
  const sp = special(type, buf);
  if (sp) return sp.v;
  const layout = table()[type];
  if (!layout) throw Object.assign(new Error(`no protobuf layout for ${type}`), { unsupported: true });
  const byNum = new Map(layout.map((x) => [x[0], x]));
  const out = {};
  for (const f of fields(buf)) {
    const fd = byNum.get(f.field);
    if (!fd) continue;
    const [, name, t, rep, tn] = fd;
    if (t === 11) {
      if (rep && tn.startsWith(`${type}.`) && tn.endsWith('Entry')) {
        const e = decodeMessage(tn, f.value);
        out[name] = out[name] || {};
        out[name][e.key === undefined ? '' : e.key] = e.value === undefined ? (table()[tn][1][2] === 9 ? '' : null) : e.value;
        continue;
      }
      const v = decodeMessage(tn, f.value);
      if (rep) (out[name] = out[name] || []).push(v === undefined ? null : v);
      else if (v !== undefined) out[name] = v;
      continue;
    }
    if (rep) {
      const arr = (out[name] = out[name] || []);
      if (f.wire === 2 && t !== 9 && t !== 12) {
        const r = reader(f.value);
        while (!r.done()) arr.push(scalar(t, { value: r.varint ? r.varint() : 0n }));
      } else arr.push(scalar(t, f));
      continue;
    }
    const v = scalar(t, f);
    if (v === '' || v === 0 || v === false || v === undefined) continue;
    out[name] = v;
  }
  return out;
}

function decodeGeneric(apiVersion, kind, raw) {
  if (!table()) throw Object.assign(new Error('no protobuf layouts (lib/k8s-proto.json)'), { unsupported: true });
  let type = null;
  if (kind === 'DeleteOptions') type = `${META}.DeleteOptions`;
  else if (PKG[apiVersion]) type = `${PKG[apiVersion]}.${kind}`;
  if (!type || !table()[type]) throw Object.assign(new Error(`protobuf decoding of ${apiVersion}, Kind=${kind} is not supported by the simulator`), { unsupported: true });
  const obj = decodeMessage(type, raw);
  if (kind === 'DeleteOptions') return obj;
  return Object.assign({ apiVersion, kind }, obj);
}

// Returns the decoded object, or throws Error with a message for a 415/400.
function decode(buf) {
  if (buf.length < 4 || buf.subarray(0, 4).toString('latin1') !== 'k8s\0') throw new Error('provided object is not a Kubernetes protobuf message');
  let apiVersion = '';
  let kind = '';
  let raw = null;
  for (const f of fields(buf.subarray(4))) {
    if (f.field === 1) {
      for (const t of fields(f.value)) {
        if (t.field === 1) apiVersion = str(t.value);
        if (t.field === 2) kind = str(t.value);
      }
    } else if (f.field === 2) raw = f.value;
  }
  if (table()) return decodeGeneric(apiVersion, kind, raw || Buffer.alloc(0));
  const dec = KINDS[kind];
  if (!dec || (apiVersion !== 'v1' && apiVersion !== 'meta.k8s.io/v1')) {
    const e = new Error(`protobuf decoding of ${apiVersion}, Kind=${kind} is not supported by the simulator`);
    e.unsupported = true;
    throw e;
  }
  return dec(raw || Buffer.alloc(0));
}

function isSupported(kindId) {
  if (table()) return !kindId.startsWith('apiextensions.k8s.io/');
  return ['core/secrets', 'core/configmaps', 'core/namespaces', 'core/serviceaccounts'].includes(kindId);
}

module.exports = { decode, isSupported };
