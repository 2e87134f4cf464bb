'use strict';
// Built-in kinds: decoding checks (Go json type errors, unknown fields) from
// @kubernetes/client-node's attribute type maps, OpenAPI checks (required, enum) from
// kubernetes-models' compiled schemas, plus the hand-written apiserver validation and
// defaulting the operator's kinds rely on.

const path = require('path');
const crypto = require('crypto');
const { goValue } = require('./status');
const quantity = require('./quantity');
const { validateSpread } = require('../workload/scheduler');

const KM_DIR = path.join(path.dirname(require.resolve('kubernetes-models/package.json')), '_schemas');

// resource id -> [client-node model, kubernetes-models schema, Go package alias]
const MODELS = {
  'core/namespaces': ['V1Namespace', 'IoK8sApiCoreV1Namespace'],
  'core/secrets': ['V1Secret', 'IoK8sApiCoreV1Secret'],
  'core/configmaps': ['V1ConfigMap', 'IoK8sApiCoreV1ConfigMap'],
  'core/services': ['V1Service', 'IoK8sApiCoreV1Service'],
  'core/pods': ['V1Pod', 'IoK8sApiCoreV1Pod'],
  'core/persistentvolumeclaims': ['V1PersistentVolumeClaim', 'IoK8sApiCoreV1PersistentVolumeClaim'],
  'core/serviceaccounts': ['V1ServiceAccount', 'IoK8sApiCoreV1ServiceAccount'],
  'core/events': ['CoreV1Event', 'IoK8sApiCoreV1Event'],
  'core/nodes': ['V1Node', 'IoK8sApiCoreV1Node'],
  'batch/jobs': ['V1Job', 'IoK8sApiBatchV1Job'],
  'apps/statefulsets': ['V1StatefulSet', 'IoK8sApiAppsV1StatefulSet'],
  'apps/deployments': ['V1Deployment', 'IoK8sApiAppsV1Deployment'],
  'apps/replicasets': ['V1ReplicaSet', 'IoK8sApiAppsV1ReplicaSet'],
  'autoscaling/horizontalpodautoscalers': ['V2HorizontalPodAutoscaler', 'IoK8sApiAutoscalingV2HorizontalPodAutoscaler'],
  'storage.k8s.io/storageclasses': ['V1StorageClass', 'IoK8sApiStorageV1StorageClass'],
  'events.k8s.io/events': ['EventsV1Event', 'IoK8sApiEventsV1Event'],
  'coordination.k8s.io/leases': ['V1Lease', 'IoK8sApiCoordinationV1Lease'],
  'rbac.authorization.k8s.io/roles': ['V1Role', 'IoK8sApiRbacV1Role'],
  'rbac.authorization.k8s.io/rolebindings': ['V1RoleBinding', 'IoK8sApiRbacV1RoleBinding'],
  'rbac.authorization.k8s.io/clusterroles': ['V1ClusterRole', 'IoK8sApiRbacV1ClusterRole'],
  'rbac.authorization.k8s.io/clusterrolebindings': ['V1ClusterRoleBinding', 'IoK8sApiRbacV1ClusterRoleBinding'],
  'apiextensions.k8s.io/customresourcedefinitions': ['V1CustomResourceDefinition', 'IoK8sApiextensionsApiserverPkgApisApiextensionsV1CustomResourceDefinition'],
};

let models = null;
function loadModels() {
  if (!models) models = require('@kubernetes/client-node/dist/gen/models/ObjectSerializer.js');
  return models;
}
const validators = {};
function kmValidator(name) {
  if (!validators[name]) validators[name] = require(path.join(KM_DIR, name + '.js')).validate;
  return validators[name];
}

function preload() {
  loadModels();
  for (const m of Object.values(MODELS)) kmValidator(m[1]);
}

const QUANTITY_MAPS = new Set(['limits', 'requests', 'capacity', 'allocatable', 'hard', 'used', 'overhead']);
const QUANTITY_FIELDS = new Set(['sizeLimit', 'storage']);

function goTypeOf(t, format) {
  if (t === 'number') return format === 'int32' ? 'int32' : format === 'int64' ? 'int64' : 'float64';
  if (t === 'boolean') return 'bool';
  if (t === 'string') return 'string';
  if (t === 'Date') return 'v1.Time';
  if (t === 'IntOrString') return 'intstr.IntOrString';
  if (t === 'any') return 'interface {}';
  let m = /^Array<(.*)>$/.exec(t);
  if (m) return '[]' + goTypeOf(m[1]);
  m = /^\{ \[key: string\]: (.*); \}$/.exec(t);
  if (m) return 'map[string]' + goTypeOf(m[1]);
  m = /^(?:Core|Events|Storage|Authentication|Discovery|Flowcontrol|Rbac|Admissionregistration|Apiextensions|Apiregistration)?(V\d+(?:alpha\d+|beta\d+)?)(.*)$/.exec(t);
  if (m) return m[1].toLowerCase() + '.' + m[2];
  return t;
}
function structName(t) {
  const g = goTypeOf(t);
  return g.slice(g.indexOf('.') + 1);
}
function jsonKind(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}

class DecodeError extends Error {}

// resource.Quantity's UnmarshalJSON: a value that does not parse fails the decoding (400), with
// ParseQuantity's error as the message.
function parseQuantity(v) {
  try {
    return quantity.parse(v);
  } catch (e) {
    if (e instanceof quantity.QuantityError) throw new DecodeError(e.message);
    throw e;
  }
}

// Walk the value as encoding/json would decode it into the Go type. Throws DecodeError on a
// type mismatch; collects unknown field paths (and deletes them) into unknown.
function walk(t, fmt, v, jpath, fpath, parentStruct, fieldName, unknown) {
  if (v === null || t === 'any') return;
  const fail = (extra) => {
    const what = extra || jsonKind(v);
    throw new DecodeError(`json: cannot unmarshal ${what} into Go struct field ${parentStruct}.${jpath.join('.')} of type ${goTypeOf(t, fmt)}`);
  };
  if (t === 'string') {
    if (QUANTITY_FIELDS.has(fieldName) && (typeof v === 'number' || typeof v === 'string')) {
      parseQuantity(v);
      return;
    }
    if (typeof v !== 'string') fail();
    return;
  }
  if (t === 'Date') {
    if (typeof v !== 'string') fail();
    return;
  }
  if (t === 'number') {
    if (typeof v !== 'number') fail();
    if (fmt === 'int32' || fmt === 'int64') {
      const lim = fmt === 'int32' ? 2147483647 : Number.MAX_SAFE_INTEGER;
      if (!Number.isInteger(v) || v > lim || v < -lim - 1) fail(`number ${v}`);
    }
    return;
  }
  if (t === 'boolean') {
    if (typeof v !== 'boolean') fail();
    return;
  }
  if (t === 'IntOrString') {
    if (typeof v === 'string') return;
    if (typeof v === 'number' && Number.isInteger(v)) return;
    throw new DecodeError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type int32`);
  }
  let m = /^Array<(.*)>$/.exec(t);
  if (m) {
    if (!Array.isArray(v)) fail();
    v.forEach((it, i) => walk(m[1], '', it, jpath, fpath.concat(i), parentStruct, fieldName, unknown));
    return;
  }
  m = /^\{ \[key: string\]: (.*); \}$/.exec(t);
  if (m) {
    if (typeof v !== 'object' || Array.isArray(v)) fail();
    for (const k of Object.keys(v)) {
      if (QUANTITY_MAPS.has(fieldName) && (typeof v[k] === 'number' || typeof v[k] === 'string')) {
        parseQuantity(v[k]);
        continue;
      }
      walk(m[1], '', v[k], jpath, fpath.concat(k), parentStruct, fieldName, unknown);
    }
    return;
  }
  const M = loadModels();
  const cls = M[t];
  if (!cls || !cls.getAttributeTypeMap) return;
  if (typeof v !== 'object' || Array.isArray(v)) fail();
  const attrs = cls.getAttributeTypeMap();
  const byName = new Map(attrs.map((a) => [a.baseName, a]));
  for (const k of Object.keys(v)) {
    const a = byName.get(k);
    if (!a) {
      unknown.push(fieldPath(fpath.concat(k)));
      delete v[k];
      continue;
    }
    walk(a.type, a.format, v[k], jpath.concat(k), fpath.concat(k), structName(t), k, unknown);
  }
}

function fieldPath(parts) {
  let s = '';
  for (const p of parts) {
    if (typeof p === 'number') s += `[${p}]`;
    else s += (s ? '.' : '') + p;
  }
  return s;
}

// Returns {unknown: [paths]} or throws DecodeError.
function decode(res, obj) {
  const m = MODELS[res];
  const unknown = [];
  if (!m) return { unknown };
  const M = loadModels();
  const cls = M[m[0]];
  const attrs = cls.getAttributeTypeMap();
  const byName = new Map(attrs.map((a) => [a.baseName, a]));
  for (const k of Object.keys(obj)) {
    const a = byName.get(k);
    if (!a) {
      unknown.push(k);
      delete obj[k];
      continue;
    }
    walk(a.type, a.format, obj[k], [k], [k], structName(m[0]), k, unknown);
  }
  return { unknown };
}

// ---- OpenAPI (kubernetes-models) checks ----
function ajvPath(instancePath, extra) {
  const parts = instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return fieldPath(parts.map((p) => (/^\d+$/.test(p) ? Number(p) : p)));
}

function getAt(obj, instancePath) {
  let cur = obj;
  for (const p of instancePath.split('/').slice(1)) {
    if (cur == null) return undefined;
    cur = cur[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}

function schemaCauses(res, obj) {
  const m = MODELS[res];
  if (!m) return [];
  const v = kmValidator(m[1]);
  if (v(obj)) return [];
  const causes = [];
  const seen = new Set();
  for (const e of v.errors || []) {
    let c = null;
    if (e.keyword === 'required') {
      c = { field: ajvPath(e.instancePath, e.params.missingProperty), reason: 'FieldValueRequired', message: 'Required value' };
    } else if (e.keyword === 'enum') {
      if (e.instancePath === '/apiVersion' || e.instancePath === '/kind') continue;
      const val = getAt(obj, e.instancePath);
      c = { field: ajvPath(e.instancePath), reason: 'FieldValueNotSupported', message: `Unsupported value: ${goValue(val)}: supported values: ${e.params.allowedValues.map((x) => goValue(x)).join(', ')}` };
    } else if (e.keyword === 'type' || e.keyword === 'format') {
      continue; // decoding already enforced Go types
    } else {
      const val = getAt(obj, e.instancePath);
      c = { field: ajvPath(e.instancePath), reason: 'FieldValueInvalid', message: `Invalid value: ${goValue(val)}: ${e.message || e.keyword}` };
    }
    const k = c.field + '|' + c.message;
    if (!seen.has(k)) {
      seen.add(k);
      causes.push(c);
    }
  }
  return causes;
}

// ---- hand-written validation (pkg/apis/*/validation) ----
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const LABEL_VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QNAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

function inv(field, value, detail) {
  return { field, reason: 'FieldValueInvalid', message: `Invalid value: ${goValue(value)}: ${detail}` };
}
function req(field, detail) {
  return { field, reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value' };
}
function notSupported(field, value, values) {
  return { field, reason: 'FieldValueNotSupported', message: `Unsupported value: ${goValue(value)}: supported values: ${values.map((v) => goValue(v)).join(', ')}` };
}
function dup(field, value) {
  return { field, reason: 'FieldValueDuplicate', message: `Duplicate value: ${goValue(value)}` };
}
function notFoundCause(field, value) {
  return { field, reason: 'FieldValueNotFound', message: `Not found: ${goValue(value)}` };
}
function forbidden(field, detail) {
  return { field, reason: 'FieldValueForbidden', message: `Forbidden: ${detail}` };
}

function checkSubdomain(field, v, out) {
  if (v.length > 253) out.push(inv(field, v, 'must be no more than 253 characters'));
  if (!DNS1123_SUBDOMAIN.test(v)) out.push(inv(field, v, SUBDOMAIN_MSG));
}
function checkLabel(field, v, out) {
  if (v.length > 63) out.push(inv(field, v, 'must be no more than 63 characters'));
  if (!DNS1123_LABEL.test(v)) out.push(inv(field, v, LABEL_MSG));
}

function checkQualifiedName(field, k, out) {
  const parts = k.split('/');
  let name = k;
  if (parts.length === 2) {
    if (!parts[0] || parts[0].length > 253 || !DNS1123_SUBDOMAIN.test(parts[0])) {
      out.push(inv(field, k, 'prefix part ' + SUBDOMAIN_MSG));
    }
    name = parts[1];
  } else if (parts.length > 2) {
    out.push(inv(field, k, "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"));
    return;
  }
  if (!name) out.push(inv(field, k, 'name part must be non-empty'));
  else if (name.length > 63) out.push(inv(field, k, 'name part must be no more than 63 characters'));
  else if (!QNAME_RE.test(name)) out.push(inv(field, k, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"));
}

// unversionedvalidation.ValidateLabels: every key a qualified name, every value
// validation.IsValidLabelValue (at most 63 bytes, and the regex; both causes when both fail), all
// at the map's own path.
function validateLabels(labels, field, out) {
  for (const [k, v] of Object.entries(labels || {})) {
    checkQualifiedName(field, k, out);
    if (typeof v !== 'string') continue;
    if (Buffer.byteLength(v) > 63) out.push(inv(field, v, 'must be no more than 63 characters'));
    if (!LABEL_VALUE_RE.test(v)) out.push(inv(field, v, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"));
  }
}

// ValidateResourceRequirements for a container: resource names, quantities not negative
// (at requests[name] / limits[name]), and a request no larger than its limit (at requests, the
// whole map, as upstream); a resource that cannot be overcommitted (hugepages-*, extended
// resources) needs a limit equal to its request. Quantities were parsed while decoding.
const CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
function validateResources(res, p, out) {
  if (!res || typeof res !== 'object') return;
  const limits = res.limits || {};
  const requests = res.requests || {};
  const checkName = (name, field) => {
    if (name.includes('/')) return;
    if (!CONTAINER_RESOURCES.has(name) && !name.startsWith('hugepages-')) out.push(inv(field, name, 'must be a standard resource for containers'));
  };
  const nonNegative = (q, field) => {
    if (quantity.sign(q) < 0) out.push(inv(field, quantity.toString(q), 'must be greater than or equal to 0'));
  };
  for (const [name, v] of Object.entries(limits)) {
    checkName(name, `${p}.limits[${name}]`);
    nonNegative(quantity.parse(v), `${p}.limits[${name}]`);
  }
  for (const [name, v] of Object.entries(requests)) {
    const q = quantity.parse(v);
    checkName(name, `${p}.requests[${name}]`);
    nonNegative(q, `${p}.requests[${name}]`);
    // helper.IsOvercommitAllowed: native resources other than hugepages
    const overcommit = (!name.includes('/') || name.includes('kubernetes.io/')) && !name.startsWith('hugepages-');
    if (limits[name] === undefined) {
      if (!overcommit) out.push(req(`${p}.limits`, 'Limit must be set for non overcommitable resources'));
      continue;
    }
    const l = quantity.parse(limits[name]);
    if (!overcommit && quantity.cmp(q, l) !== 0) out.push(inv(`${p}.requests`, quantity.toString(q), `must be equal to ${name} limit of ${quantity.toString(l)}`));
    else if (quantity.cmp(q, l) > 0) out.push(inv(`${p}.requests`, quantity.toString(q), `must be less than or equal to ${name} limit of ${quantity.toString(l)}`));
  }
}

const LABEL_NAME_KINDS = new Set(['core/namespaces', 'core/services']);
const PATH_SEGMENT_KINDS = new Set(['rbac.authorization.k8s.io/roles', 'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/clusterroles', 'rbac.authorization.k8s.io/clusterrolebindings']);

function validateMeta(res, obj, out) {
  const m = obj.metadata || {};
  const name = m.name;
  if (name) {
    if (PATH_SEGMENT_KINDS.has(res)) {
      if (name === '.' || name === '..') out.push(inv('metadata.name', name, `may not be '${name}'`));
      else if (/[/%]/.test(name)) out.push(inv('metadata.name', name, `may not contain '${name.includes('/') ? '/' : '%'}'`));
    } else if (LABEL_NAME_KINDS.has(res)) checkLabel('metadata.name', name, out);
    else if (res === 'batch/jobs') {
      checkSubdomain('metadata.name', name, out);
      if (name.length > 63) out.push(inv('metadata.labels', name, 'must be no more than 63 characters'));
    } else checkSubdomain('metadata.name', name, out);
  }
  validateLabels(m.labels, 'metadata.labels', out);
  let total = 0;
  for (const [k, v] of Object.entries(m.annotations || {})) {
    checkQualifiedName('metadata.annotations', k.toLowerCase(), out);
    total += k.length + String(v).length;
  }
  if (total > 262144) out.push({ field: 'metadata.annotations', reason: 'FieldValueTooLong', message: 'Too long: may not be more than 262144 bytes' });
  (m.ownerReferences || []).forEach((r, i) => {
    if (!r || typeof r !== 'object') return;
    for (const f of ['apiVersion', 'kind', 'name', 'uid']) {
      if (!r[f]) out.push(inv(`metadata.ownerReferences.${f}`, r[f] || '', `${f} must not be empty`));
    }
    void i;
  });
  if ((m.ownerReferences || []).filter((r) => r && r.controller).length > 1) {
    out.push(inv('metadata.ownerReferences', m.ownerReferences, 'Only one reference can have Controller set to true'));
  }
  (m.finalizers || []).forEach((f, i) => {
    if (typeof f === 'string' && !f.includes('/') && !['kubernetes', 'orphan', 'foregroundDeletion'].includes(f)) {
      out.push(inv(`metadata.finalizers[${i}]`, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
}

const ENV_NAME_RE = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

function validatePodSpec(spec, p, out, opts = {}) {
  if (!spec) return;
  const vols = new Set();
  (spec.volumes || []).forEach((v, i) => {
    if (!v || !v.name) return;
    checkLabel(`${p}.volumes[${i}].name`, v.name, out);
    if (vols.has(v.name)) out.push(dup(`${p}.volumes[${i}].name`, v.name));
    vols.add(v.name);
  });
  const names = new Set();
  const checkContainers = (list, field, required) => {
    if (!list || list.length === 0) {
      if (required) out.push(req(`${p}.${field}`));
      return;
    }
    list.forEach((c, i) => {
      const cp = `${p}.${field}[${i}]`;
      if (!c) return;
      if (c.name) {
        checkLabel(`${cp}.name`, c.name, out);
        if (names.has(c.name)) out.push(dup(`${cp}.name`, c.name));
        names.add(c.name);
      }
      if (!c.image && !opts.template) out.push(req(`${cp}.image`));
      if (!c.image && opts.template) out.push(req(`${cp}.image`));
      (c.env || []).forEach((e, j) => {
        if (e && e.name && !ENV_NAME_RE.test(e.name)) out.push(inv(`${cp}.env[${j}].name`, e.name, "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"));
        if (e && e.value !== undefined && e.valueFrom) out.push(inv(`${cp}.env[${j}].valueFrom`, '', 'may not be specified when `value` is not empty'));
      });
      const mounts = new Set();
      (c.volumeMounts || []).forEach((vm, j) => {
        if (!vm) return;
        if (vm.name && !vols.has(vm.name)) out.push(notFoundCause(`${cp}.volumeMounts[${j}].name`, vm.name));
        if (vm.mountPath) {
          if (mounts.has(vm.mountPath)) out.push(inv(`${cp}.volumeMounts[${j}].mountPath`, vm.mountPath, 'must be unique'));
          mounts.add(vm.mountPath);
        }
      });
      validateResources(c.resources, `${cp}.resources`, out);
      if (c.terminationMessagePath !== undefined && c.terminationMessagePath !== '' && !String(c.terminationMessagePath).startsWith('/')) {
        out.push(inv(`${cp}.terminationMessagePath`, c.terminationMessagePath, 'must be an absolute path'));
      }
    });
  };
  checkContainers(spec.containers, 'containers', true);
  checkContainers(spec.initContainers, 'initContainers', false);
  validateSpread(spec.topologySpreadConstraints, p, out, { inv, req, dup, notSupported });
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null && spec.activeDeadlineSeconds <= 0) {
    out.push(inv(`${p}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, 'must be between 1 and 2147483647, inclusive'));
  }
}

function nonNeg(out, field, v) {
  if (v !== undefined && v !== null && v < 0) out.push(inv(field, v, 'must be greater than or equal to 0'));
}

function validateJob(obj, old, out) {
  const s = obj.spec || {};
  nonNeg(out, 'spec.parallelism', s.parallelism);
  nonNeg(out, 'spec.completions', s.completions);
  nonNeg(out, 'spec.backoffLimit', s.backoffLimit);
  nonNeg(out, 'spec.ttlSecondsAfterFinished', s.ttlSecondsAfterFinished);
  if (s.activeDeadlineSeconds !== undefined && s.activeDeadlineSeconds !== null && s.activeDeadlineSeconds <= 0) {
    out.push(inv('spec.activeDeadlineSeconds', s.activeDeadlineSeconds, 'must be greater than 0'));
  }
  if (s.completionMode === 'Indexed') {
    if (s.completions === undefined || s.completions === null) out.push(req('spec.completions', 'when completion mode is Indexed'));
    else if (s.completions > 100000) out.push(inv('spec.completions', s.completions, 'must be less than or equal to 100000 when completion mode is Indexed'));
  }
  const t = s.template || {};
  const ts = t.spec || {};
  const rp = ts.restartPolicy;
  if (rp !== 'OnFailure' && rp !== 'Never') {
    out.push(notSupported('spec.template.spec.restartPolicy', rp || '', ['OnFailure', 'Never']));
  }
  validateLabels(t.metadata && t.metadata.labels, 'spec.template.labels', out);
  validatePodSpec(ts, 'spec.template.spec', out, { template: true });
  const sel = s.selector;
  const labels = (t.metadata && t.metadata.labels) || {};
  if (sel && sel.matchLabels) {
    for (const [k, v] of Object.entries(sel.matchLabels)) {
      if (labels[k] !== v) {
        out.push(inv('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
        break;
      }
    }
  }
  if (old) {
    const os = old.spec || {};
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    if (!same(stripJobTemplate(os.template), stripJobTemplate(s.template))) out.push(inv('spec.template', s.template, 'field is immutable'));
    if (!same(os.completions, s.completions) && !(s.completionMode === 'Indexed' && s.completions === s.parallelism)) out.push(inv('spec.completions', s.completions, 'field is immutable'));
    if (!same(os.selector, s.selector)) out.push(inv('spec.selector', s.selector, 'field is immutable'));
    if (!same(os.completionMode, s.completionMode)) out.push(inv('spec.completionMode', s.completionMode, 'field is immutable'));
  }
}

function stripJobTemplate(t) {
  return t || null;
}

function validatePod(obj, old, out) {
  const s = obj.spec || {};
  validatePodSpec(s, 'spec', out, {});
  if (old) {
    // Only images, activeDeadlineSeconds and tolerations additions may change.
    const a = structuredClone(old.spec || {});
    const b = structuredClone(s);
    for (const x of [a, b]) {
      for (const c of [...(x.containers || []), ...(x.initContainers || [])]) delete c.image;
      delete x.activeDeadlineSeconds;
      delete x.tolerations;
      delete x.terminationGracePeriodSeconds;
    }
    if (JSON.stringify(a) !== JSON.stringify(b)) {
      out.push(forbidden('spec', 'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)'));
    }
  }
}

const B64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CM_KEY_RE = /^[-._a-zA-Z0-9]+$/;

function validateDataKeys(obj, field, out) {
  for (const k of Object.keys(obj[field] || {})) {
    if (!CM_KEY_RE.test(k) || k.length > 253) out.push(inv(`${field}[${k}]`, k, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
  }
}

function dataSize(m, b64) {
  let n = 0;
  for (const v of Object.values(m || {})) n += b64 ? Buffer.from(String(v), 'base64').length : Buffer.byteLength(String(v));
  return n;
}

function validateService(obj, old, out) {
  const s = obj.spec || {};
  if (old && old.spec && old.spec.clusterIP && s.clusterIP !== undefined && s.clusterIP !== old.spec.clusterIP) {
    out.push(inv('spec.clusterIPs[0]', [s.clusterIP], 'may not change once set'));
  }
  const t = s.type || 'ClusterIP';
  if (t !== 'ExternalName' && (!s.ports || !s.ports.length) && s.clusterIP !== 'None') out.push(req('spec.ports'));
  const seen = new Set();
  (s.ports || []).forEach((p, i) => {
    if (!p) return;
    if ((s.ports.length > 1) && !p.name) out.push(req(`spec.ports[${i}].name`));
    if (p.port !== undefined && (p.port < 1 || p.port > 65535)) out.push(inv(`spec.ports[${i}].port`, p.port, 'must be between 1 and 65535, inclusive'));
    const k = `${p.port}/${p.protocol || 'TCP'}`;
    if (seen.has(k)) out.push(dup(`spec.ports[${i}]`, k));
    seen.add(k);
  });
}

// Returns causes (array) for 422.
function validate(res, obj, old) {
  const out = [];
  out.push(...schemaCauses(res, obj));
  const nSchema = out.length;
  validateMeta(res, obj, out);
  switch (res) {
    case 'batch/jobs': validateJob(obj, old, out); break;
    case 'core/pods': validatePod(obj, old, out); break;
    case 'apps/statefulsets':
    case 'apps/replicasets':
    case 'apps/deployments': {
      const s = obj.spec || {};
      nonNeg(out, 'spec.replicas', s.replicas);
      const t = s.template || {};
      validateLabels(t.metadata && t.metadata.labels, 'spec.template.labels', out);
      validatePodSpec(t.spec, 'spec.template.spec', out, { template: true });
      const rp = t.spec && t.spec.restartPolicy;
      if (rp && rp !== 'Always') out.push(notSupported('spec.template.spec.restartPolicy', rp, ['Always']));
      const sel = s.selector;
      if (!sel || (!sel.matchLabels && !sel.matchExpressions)) out.push(req('spec.selector'));
      else {
        const labels = (t.metadata && t.metadata.labels) || {};
        for (const [k, v] of Object.entries(sel.matchLabels || {})) {
          if (labels[k] !== v) {
            out.push(inv('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
            break;
          }
        }
      }
      if (old && JSON.stringify((old.spec || {}).selector) !== JSON.stringify(s.selector)) out.push(inv('spec.selector', s.selector, 'field is immutable'));
      if (old && res === 'apps/statefulsets') {
        const strip = (x) => {
          const y = Object.assign({}, x || {});
          for (const k of ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds']) delete y[k];
          return JSON.stringify(y, Object.keys(y).sort());
        };
        if (strip(old.spec) !== strip(s)) {
          out.push(forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
        }
      }
      break;
    }
    case 'core/configmaps':
      if (dataSize(obj.data, false) + dataSize(obj.binaryData, true) > 1048576) out.push({ field: '', reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1048576 bytes' });
      validateDataKeys(obj, 'data', out);
      validateDataKeys(obj, 'binaryData', out);
      if (old && old.immutable && (JSON.stringify(old.data) !== JSON.stringify(obj.data) || JSON.stringify(old.binaryData) !== JSON.stringify(obj.binaryData))) {
        out.push(forbidden('data', 'field is immutable when `immutable` is set'));
      }
      break;
    case 'core/secrets':
      if (dataSize(obj.data, true) > 1048576) out.push({ field: 'data', reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1048576 bytes' });
      validateDataKeys(obj, 'data', out);
      if (old && (old.type || 'Opaque') !== (obj.type || 'Opaque')) out.push(inv('type', obj.type, 'field is immutable'));
      if (old && old.immutable && JSON.stringify(old.data) !== JSON.stringify(obj.data)) out.push(forbidden('data', 'field is immutable when `immutable` is set'));
      break;
    case 'core/services': validateService(obj, old, out); break;
    case 'core/persistentvolumeclaims': {
      const s = obj.spec || {};
      if (!s.accessModes || !s.accessModes.length) out.push(req('spec.accessModes', 'at least 1 access mode is required'));
      const rq = s.resources && s.resources.requests;
      if (!rq || rq.storage === undefined) out.push(req('spec.resources[storage]'));
      if (old) {
        const strip = (x) => {
          const y = structuredClone(x || {});
          if (y.resources) delete y.resources.requests;
          delete y.volumeAttributesClassName;
          if (!old.spec || !old.spec.volumeName) delete y.volumeName;
          return JSON.stringify(y);
        };
        if (strip(old.spec) !== strip(s)) out.push(forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
      }
      break;
    }
    case 'autoscaling/horizontalpodautoscalers': {
      const s = obj.spec || {};
      if (s.minReplicas !== undefined && s.minReplicas < 1) out.push(inv('spec.minReplicas', s.minReplicas, 'must be greater than or equal to 1'));
      if (s.maxReplicas !== undefined && s.maxReplicas < 1) out.push(inv('spec.maxReplicas', s.maxReplicas, 'must be greater than 0'));
      if (s.minReplicas !== undefined && s.maxReplicas !== undefined && s.maxReplicas < s.minReplicas) out.push(inv('spec.maxReplicas', s.maxReplicas, 'must be greater than or equal to `minReplicas`'));
      break;
    }
    case 'coordination.k8s.io/leases': {
      const s = obj.spec || {};
      if (s.leaseDurationSeconds !== undefined && s.leaseDurationSeconds !== null && s.leaseDurationSeconds <= 0) out.push(inv('spec.leaseDurationSeconds', s.leaseDurationSeconds, 'must be greater than 0'));
      break;
    }
    default:
      break;
  }
  // The kind-specific checks win over the generic OpenAPI one for the same field and reason, in
  // its place; the hand-written checks keep every cause (a label value can be too long and not
  // match, as upstream reports both), only exact repeats are dropped.
  const key = (c) => c.field + '|' + c.reason;
  const hand = out.slice(nSchema);
  const first = new Map();
  for (const c of hand) if (!first.has(key(c))) first.set(key(c), c);
  const result = [];
  const seen = new Set();
  const add = (c) => {
    const k = key(c) + '|' + c.message;
    if (!seen.has(k)) {
      seen.add(k);
      result.push(c);
    }
  };
  for (const c of out.slice(0, nSchema)) {
    if (first.has(key(c))) {
      for (const h of hand) if (key(h) === key(c)) add(h);
    } else add(c);
  }
  for (const c of hand) add(c);
  return result;
}

// ---- defaulting (pkg/apis/*/v1/defaults.go, the parts clients observe) ----
function defaultContainer(c) {
  if (!c || typeof c !== 'object') return;
  if (c.terminationMessagePath === undefined) c.terminationMessagePath = '/dev/termination-log';
  if (c.terminationMessagePolicy === undefined) c.terminationMessagePolicy = 'File';
  if (c.imagePullPolicy === undefined && typeof c.image === 'string') {
    const img = c.image.split('@')[0];
    const tag = img.lastIndexOf(':') > img.lastIndexOf('/') ? img.slice(img.lastIndexOf(':') + 1) : '';
    c.imagePullPolicy = c.image.includes('@') ? 'IfNotPresent' : (!tag || tag === 'latest') ? 'Always' : 'IfNotPresent';
  }
  if (c.resources === undefined) c.resources = {};
  for (const p of c.ports || []) if (p && p.protocol === undefined) p.protocol = 'TCP';
  for (const e of c.env || []) {
    if (e && e.valueFrom && e.valueFrom.fieldRef && e.valueFrom.fieldRef.apiVersion === undefined) e.valueFrom.fieldRef.apiVersion = 'v1';
  }
}

function defaultPodSpec(s) {
  if (!s || typeof s !== 'object') return;
  if (s.restartPolicy === undefined) s.restartPolicy = 'Always';
  if (s.terminationGracePeriodSeconds === undefined) s.terminationGracePeriodSeconds = 30;
  if (s.dnsPolicy === undefined) s.dnsPolicy = 'ClusterFirst';
  if (s.securityContext === undefined) s.securityContext = {};
  if (s.schedulerName === undefined) s.schedulerName = 'default-scheduler';
  for (const c of s.containers || []) defaultContainer(c);
  for (const c of s.initContainers || []) defaultContainer(c);
  for (const v of s.volumes || []) {
    if (!v) continue;
    if (v.secret && v.secret.defaultMode === undefined) v.secret.defaultMode = 420;
    if (v.configMap && v.configMap.defaultMode === undefined) v.configMap.defaultMode = 420;
  }
}

let ipCounter = 10;
function defaults(res, obj, opts = {}) {
  switch (res) {
    case 'core/pods':
      defaultPodSpec(obj.spec);
      if (obj.spec && obj.spec.serviceAccountName === undefined) obj.spec.serviceAccountName = 'default';
      if (obj.spec && obj.spec.enableServiceLinks === undefined) obj.spec.enableServiceLinks = true;
      if (obj.spec && obj.spec.priority === undefined) obj.spec.priority = 0;
      break;
    case 'batch/jobs': {
      const s = obj.spec = obj.spec || {};
      if (s.completions === undefined && s.parallelism === undefined) {
        s.completions = 1;
        s.parallelism = 1;
      }
      if (s.parallelism === undefined) s.parallelism = 1;
      if (s.backoffLimit === undefined) s.backoffLimit = s.backoffLimitPerIndex !== undefined ? 2147483647 : 6;
      if (s.completionMode === undefined) s.completionMode = 'NonIndexed';
      if (s.suspend === undefined) s.suspend = false;
      if (s.podReplacementPolicy === undefined) s.podReplacementPolicy = s.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
      if (s.manualSelector === undefined) delete s.manualSelector;
      if (s.template) defaultPodSpec(s.template.spec);
      break;
    }
    case 'apps/statefulsets':
    case 'apps/replicasets':
    case 'apps/deployments': {
      const s = obj.spec = obj.spec || {};
      if (s.replicas === undefined) s.replicas = 1;
      if (s.revisionHistoryLimit === undefined && res !== 'apps/replicasets') s.revisionHistoryLimit = 10;
      if (res === 'apps/statefulsets') {
        if (s.podManagementPolicy === undefined) s.podManagementPolicy = 'OrderedReady';
        if (s.updateStrategy === undefined || (s.updateStrategy && !s.updateStrategy.type)) s.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
        if (s.persistentVolumeClaimRetentionPolicy === undefined) s.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Retain', whenScaled: 'Retain' };
      } else if (res === 'apps/deployments') {
        if (s.strategy === undefined || (s.strategy && !s.strategy.type && !s.strategy.rollingUpdate)) s.strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
        if (s.progressDeadlineSeconds === undefined) s.progressDeadlineSeconds = 600;
      }
      if (s.template) defaultPodSpec(s.template.spec);
      break;
    }
    case 'core/services': {
      const s = obj.spec = obj.spec || {};
      if (s.type === undefined) s.type = 'ClusterIP';
      if (s.sessionAffinity === undefined) s.sessionAffinity = 'None';
      for (const p of s.ports || []) {
        if (!p) continue;
        if (p.protocol === undefined) p.protocol = 'TCP';
        if (p.targetPort === undefined) p.targetPort = p.port;
      }
      if (opts.old && opts.old.spec) {
        // patchAllocatedValues: allocated fields left unset on update keep their values
        for (const k of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy', 'internalTrafficPolicy', 'healthCheckNodePort']) {
          if ((s[k] === undefined || s[k] === '') && opts.old.spec[k] !== undefined) s[k] = structuredClone(opts.old.spec[k]);
        }
      }
      if (opts.create && s.type !== 'ExternalName') {
        if (s.clusterIP === undefined || s.clusterIP === '') {
          ipCounter += 1;
          s.clusterIP = `10.96.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
        }
        if (s.clusterIPs === undefined) s.clusterIPs = [s.clusterIP];
        if (s.ipFamilies === undefined && s.clusterIP !== 'None') s.ipFamilies = ['IPv4'];
        if (s.ipFamilyPolicy === undefined) s.ipFamilyPolicy = 'SingleStack';
        if (s.internalTrafficPolicy === undefined) s.internalTrafficPolicy = 'Cluster';
      }
      break;
    }
    case 'core/secrets':
      if (obj.type === undefined) obj.type = 'Opaque';
      // stringData is write-only and merged into data (internal conversion).
      if (obj.stringData) {
        obj.data = obj.data || {};
        for (const [k, v] of Object.entries(obj.stringData)) obj.data[k] = Buffer.from(String(v), 'utf8').toString('base64');
        delete obj.stringData;
      }
      break;
    case 'core/persistentvolumeclaims': {
      const s = obj.spec = obj.spec || {};
      if (s.volumeMode === undefined) s.volumeMode = 'Filesystem';
      if (opts.create && s.storageClassName === undefined && opts.defaultStorageClass) s.storageClassName = opts.defaultStorageClass;
      break;
    }
    case 'autoscaling/horizontalpodautoscalers': {
      const s = obj.spec = obj.spec || {};
      if (s.minReplicas === undefined) s.minReplicas = 1;
      if (s.metrics === undefined) s.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
      break;
    }
    case 'apiextensions.k8s.io/customresourcedefinitions': {
      const s = obj.spec = obj.spec || {};
      const n = s.names = s.names || {};
      if (n.singular === undefined && n.kind) n.singular = String(n.kind).toLowerCase();
      if (n.listKind === undefined && n.kind) n.listKind = n.kind + 'List';
      if (s.conversion === undefined) s.conversion = { strategy: 'None' };
      break;
    }
    default:
      break;
  }
}

// Secret data values must be valid base64 (decoding of []byte fields).
function checkBase64(res, obj) {
  if (res !== 'core/secrets' && res !== 'core/configmaps') return null;
  const field = res === 'core/secrets' ? 'data' : 'binaryData';
  for (const [k, v] of Object.entries(obj[field] || {})) {
    if (typeof v === 'string' && !B64_RE.test(v)) {
      let i = 0;
      while (i < v.length && /[A-Za-z0-9+/=]/.test(v[i])) i++;
      return `illegal base64 data at input byte ${i}`;
    }
    void k;
  }
  return null;
}

// Job apiserver strategy: generated selector + template labels.
function jobPrepareCreate(obj) {
  const s = obj.spec || {};
  if (s.manualSelector) return;
  const uid = obj.metadata.uid || crypto.randomUUID();
  const t = s.template = s.template || {};
  t.metadata = t.metadata || {};
  t.metadata.labels = Object.assign({}, t.metadata.labels, {
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': obj.metadata.name,
    'controller-uid': uid,
    'job-name': obj.metadata.name,
  });
  s.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
  if (!obj.metadata.labels || !Object.keys(obj.metadata.labels).length) obj.metadata.labels = Object.assign({}, t.metadata.labels);
}

function hasModel(res) {
  return !!MODELS[res];
}

module.exports = { validateMeta, decode, validate, defaults, schemaCauses, checkBase64, jobPrepareCreate, DecodeError, preload, hasModel, MODELS, loadModels, checkSubdomain, SUBDOMAIN_MSG };
