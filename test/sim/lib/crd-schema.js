'use strict';
// Structural-schema handling of custom resources, as apiextensions-apiserver does it:
// unknown-field detection + pruning, defaulting, then OpenAPI v3 validation producing
// field.Error-style causes. x-kubernetes-validations (CEL) are NOT evaluated.

const { goValue } = require('./status');
const cel = require('./cel');

function typeName(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v; // string, boolean, object
}

const OBJECTMETA_FIELDS = new Set(['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation',
  'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences',
  'finalizers', 'managedFields']);

function fmtPath(parts) {
  let s = '';
  for (const p of parts) {
    if (typeof p === 'number') s += `[${p}]`;
    else s += (s ? '.' : '') + p;
  }
  return s;
}

// Walk value with schema: collect unknown fields (and prune them), apply defaults.
// Returns list of unknown field paths.
function pruneAndDefault(schema, value, path, unknown, opts) {
  if (!schema || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((it, i) => pruneAndDefault(schema.items, it, path.concat(i), unknown, opts));
    return;
  }
  const props = schema.properties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (schema['x-kubernetes-embedded-resource']) {
    // apiVersion, kind, metadata are implied.
    if (value.metadata && typeof value.metadata === 'object') checkMeta(value.metadata, path.concat('metadata'), unknown);
  }
  // defaults first, for missing properties
  if (props) {
    for (const [k, ps] of Object.entries(props)) {
      if (!Object.prototype.hasOwnProperty.call(value, k) && ps.default !== undefined) {
        value[k] = structuredClone(ps.default);
      } else if (value[k] === null && ps.default !== undefined && !ps.nullable) {
        value[k] = structuredClone(ps.default);
      }
    }
  }
  for (const k of Object.keys(value)) {
    if (props && Object.prototype.hasOwnProperty.call(props, k)) {
      pruneAndDefault(props[k], value[k], path.concat(k), unknown, opts);
    } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      pruneAndDefault(schema.additionalProperties, value[k], path.concat(k), unknown, opts);
    } else if (schema['x-kubernetes-embedded-resource'] && ['apiVersion', 'kind', 'metadata'].includes(k)) {
      // implied
    } else if (preserve || schema.additionalProperties === true) {
      // kept as is
    } else {
      unknown.push(fmtPath(path.concat(k)));
      delete value[k];
    }
  }
}

function checkMeta(meta, path, unknown) {
  for (const k of Object.keys(meta)) {
    if (!OBJECTMETA_FIELDS.has(k)) {
      unknown.push(fmtPath(path.concat(k)));
      delete meta[k];
    }
  }
}

// Top level: obj is the whole custom resource. Returns {unknown: [path], errors: [cause]}.
function processCustomResource(schema, obj, oldObj) {
  const unknown = [];
  const root = schema || { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  if (obj.metadata && typeof obj.metadata === 'object') checkMeta(obj.metadata, ['metadata'], unknown);
  const rest = {};
  for (const k of Object.keys(obj)) if (!['apiVersion', 'kind', 'metadata'].includes(k)) rest[k] = obj[k];
  const rootProps = root.properties || {};
  // apiVersion/kind/metadata are always known at the root.
  const tmpSchema = Object.assign({}, root, { properties: Object.assign({}, rootProps) });
  delete tmpSchema.properties.apiVersion;
  delete tmpSchema.properties.kind;
  delete tmpSchema.properties.metadata;
  pruneAndDefault(tmpSchema, rest, [], unknown);
  for (const k of Object.keys(obj)) if (!['apiVersion', 'kind', 'metadata'].includes(k) && !(k in rest)) delete obj[k];
  Object.assign(obj, rest);
  const errors = [];
  const body = {};
  for (const k of Object.keys(obj)) if (!['apiVersion', 'kind', 'metadata'].includes(k)) body[k] = obj[k];
  validate(tmpSchema, body, [], errors, true);
  if (cel.loaded() && cel.hasRules(root)) {
    if (errors.some((e) => e.reason === 'FieldValueTypeInvalid')) {
      // Real: rules are not evaluated on an object with type errors.
      errors.push({ field: '<nil>', reason: 'FieldValueInvalid', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' });
    } else {
      errors.push(...cel.validate(root, obj, oldObj));
    }
  }
  return { unknown, errors };
}

function inBody(path) {
  return fmtPath(path) || 'body';
}

const FORMATS = {
  'int32': (v) => typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647,
  'int64': (v) => typeof v === 'number' && Number.isInteger(v),
  'date-time': (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !isNaN(Date.parse(v.replace(' ', 'T'))),
  'date': (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !isNaN(Date.parse(v)),
  'byte': (v) => typeof v === 'string' && /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v),
  'uuid': (v) => typeof v === 'string' && /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/.test(v),
  'ipv4': (v) => typeof v === 'string' && /^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$/.test(v),
  'hostname': (v) => typeof v === 'string' && v.length <= 255 && /^[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$/.test(v),
  'duration': (v) => typeof v === 'string' && /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(v),
};

function push(errors, path, reason, message) {
  errors.push({ field: inBody(path), reason, message });
}

function typeError(errors, path, expected, v) {
  const got = typeName(v);
  push(errors, path, 'FieldValueTypeInvalid', `Invalid value: "${got}": ${inBody(path)} in body must be of type ${expected}: "${got}"`);
}

function validate(schema, v, path, errors, isRoot) {
  if (!schema) return;
  if (v === null) {
    if (schema.nullable || schema['x-kubernetes-preserve-unknown-fields'] && !schema.type) return;
    if (schema.type) typeError(errors, path, schema.type, v);
    return;
  }
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  if (intOrString) {
    if (!(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)))) {
      push(errors, path, 'FieldValueTypeInvalid', `Invalid value: "${typeName(v)}": ${inBody(path)} in body must be of type integer,string: "${typeName(v)}"`);
      return;
    }
  } else if (schema.type) {
    const t = schema.type;
    const tn = typeName(v);
    const ok = t === tn || (t === 'number' && tn === 'integer');
    if (!ok) {
      typeError(errors, path, t, v);
      return;
    }
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    push(errors, path, 'FieldValueNotSupported', `Unsupported value: ${goValue(v)}: supported values: ${schema.enum.map((e) => goValue(e)).join(', ')}`);
  }
  if (typeof v === 'number') {
    if (schema.format && FORMATS[schema.format] && (schema.format === 'int32' || schema.format === 'int64') && !FORMATS[schema.format](v)) {
      push(errors, path, 'FieldValueInvalid', `Invalid value: ${goValue(v)}: ${inBody(path)} in body must be of type ${schema.format}: "${v}"`);
    }
    if (schema.minimum !== undefined) {
      if (schema.exclusiveMinimum ? v <= schema.minimum : v < schema.minimum) {
        push(errors, path, 'FieldValueInvalid', `Invalid value: ${goValue(v)}: ${inBody(path)} in body should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`);
      }
    }
    if (schema.maximum !== undefined) {
      if (schema.exclusiveMaximum ? v >= schema.maximum : v > schema.maximum) {
        push(errors, path, 'FieldValueInvalid', `Invalid value: ${goValue(v)}: ${inBody(path)} in body should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`);
      }
    }
    if (schema.multipleOf !== undefined && v % schema.multipleOf !== 0) {
      push(errors, path, 'FieldValueInvalid', `Invalid value: ${goValue(v)}: ${inBody(path)} in body should be a multiple of ${schema.multipleOf}`);
    }
  }
  if (typeof v === 'string') {
    const n = [...v].length;
    if (schema.maxLength !== undefined && n > schema.maxLength) {
      push(errors, path, 'FieldValueTooLong', `Too long: may not be more than ${schema.maxLength} bytes`);
    }
    if (schema.minLength !== undefined && n < schema.minLength) {
      push(errors, path, 'FieldValueInvalid', `Invalid value: ${goValue(v)}: ${inBody(path)} in body should be at least ${schema.minLength} chars long`);
    }
    if (schema.pattern !== undefined) {
      let re;
      try {
        re = new RegExp(schema.pattern, 'u');
      } catch (e) {
        re = null;
      }
      if (re && !re.test(v)) {
        push(errors, path, 'FieldValueInvalid', `Invalid value: ${goValue(v)}: ${inBody(path)} in body should match '${schema.pattern}'`);
      }
    }
    if (schema.format && FORMATS[schema.format] && !intOrString && !FORMATS[schema.format](v) && schema.format !== 'int32' && schema.format !== 'int64') {
      push(errors, path, 'FieldValueInvalid', `Invalid value: ${goValue(v)}: ${inBody(path)} in body must be of type ${schema.format}: ${goValue(v)}`);
    }
  }
  if (Array.isArray(v)) {
    if (schema.maxItems !== undefined && v.length > schema.maxItems) {
      push(errors, path, 'FieldValueTooMany', `Too many: ${v.length}: must have at most ${schema.maxItems} items`);
    }
    if (schema.minItems !== undefined && v.length < schema.minItems) {
      push(errors, path, 'FieldValueInvalid', `Invalid value: ${v.length}: ${inBody(path)} in body should have at least ${schema.minItems} items`);
    }
    const lt = schema['x-kubernetes-list-type'];
    if (schema.uniqueItems || lt === 'set') {
      const seen = new Set();
      v.forEach((it, i) => {
        const k = JSON.stringify(it);
        if (seen.has(k)) push(errors, path.concat(i), 'FieldValueDuplicate', `Duplicate value: ${goValue(it)}`);
        seen.add(k);
      });
    }
    if (lt === 'map' && Array.isArray(schema['x-kubernetes-list-map-keys'])) {
      const keys = schema['x-kubernetes-list-map-keys'];
      const seen = new Set();
      v.forEach((it, i) => {
        if (!it || typeof it !== 'object') return;
        const kv = {};
        for (const k of keys) if (it[k] !== undefined) kv[k] = it[k];
        const k = JSON.stringify(kv);
        if (seen.has(k)) push(errors, path.concat(i), 'FieldValueDuplicate', `Duplicate value: ${goValue(kv)}`);
        seen.add(k);
      });
    }
    if (schema.items) v.forEach((it, i) => validate(schema.items, it, path.concat(i), errors));
  } else if (typeof v === 'object') {
    const keys = Object.keys(v);
    for (const r of schema.required || []) {
      if (!Object.prototype.hasOwnProperty.call(v, r)) push(errors, path.concat(r), 'FieldValueRequired', 'Required value');
    }
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) {
      push(errors, path, 'FieldValueTooMany', `Too many: ${keys.length}: must have at most ${schema.maxProperties} items`);
    }
    if (schema.minProperties !== undefined && keys.length < schema.minProperties) {
      push(errors, path, 'FieldValueInvalid', `Invalid value: ${keys.length}: ${inBody(path)} in body should have at least ${schema.minProperties} properties`);
    }
    for (const k of keys) {
      if (schema.properties && schema.properties[k]) validate(schema.properties[k], v[k], path.concat(k), errors);
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') validate(schema.additionalProperties, v[k], path.concat(k), errors);
    }
  }
  // Value validations in junctors (no types there in structural schemas).
  for (const sub of schema.allOf || []) validate(sub, v, path, errors);
  if (schema.anyOf) {
    const ok = schema.anyOf.some((sub) => {
      const e = [];
      validate(sub, v, path, e);
      return e.length === 0;
    });
    if (!ok) push(errors, path, 'FieldValueInvalid', `Invalid value: ${goValue(v)}: ${inBody(path)} in body must validate at least one schema (anyOf)`);
  }
  if (schema.oneOf) {
    const n = schema.oneOf.filter((sub) => {
      const e = [];
      validate(sub, v, path, e);
      return e.length === 0;
    }).length;
    if (n !== 1) push(errors, path, 'FieldValueInvalid', `Invalid value: ${goValue(v)}: ${inBody(path)} in body must validate one and only one schema (oneOf)`);
  }
  if (schema.not) {
    const e = [];
    validate(schema.not, v, path, e);
    if (e.length === 0) push(errors, path, 'FieldValueInvalid', `Invalid value: ${goValue(v)}: ${inBody(path)} in body should not validate the schema (not)`);
  }
  void isRoot;
}

// Only the named subtree of the schema (e.g. "status") for subresource handling.
function schemaFor(crdInfo, version) {
  const v = crdInfo.versionInfo && crdInfo.versionInfo[version];
  if (v && v.schema && v.schema.openAPIV3Schema) return v.schema.openAPIV3Schema;
  const crd = crdInfo.crd;
  if (crd && crd.spec && crd.spec.validation && crd.spec.validation.openAPIV3Schema) return crd.spec.validation.openAPIV3Schema;
  return null;
}

module.exports = { processCustomResource, validate, schemaFor, typeName, fmtPath };
