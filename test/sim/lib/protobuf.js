'use strict';
// Decoder for the Kubernetes protobuf wire format ("k8s\0" + runtime.Unknown), limited to the
// kinds clients send as protobuf in practice (helm's release storage: Secret, ConfigMap).
// Responses are always JSON (clients list application/json in Accept).

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
  const dec = KINDS[kind];
  if (!dec || (apiVersion !== 'v1' && apiVersion !== 'meta.k8s.io/v1')) {
    const e = new Error(`protobuf decoding of ${apiVersion}, Kind=${kind} is not supported by the simulator`);
    e.unsupported = true;
    throw e;
  }
  return dec(raw || Buffer.alloc(0));
}

function isSupported(kindId) {
  return ['core/secrets', 'core/configmaps', 'core/namespaces', 'core/serviceaccounts'].includes(kindId);
}

module.exports = { decode, isSupported };
