'use strict';
// x-kubernetes-validations (CEL) for custom resources, evaluated with @marcbachmann/cel-js,
// following apiextensions-apiserver: each rule runs where it is declared with `self` bound to
// that node (array items and map values one by one), integers as CEL int, numbers as double;
// transition rules (using oldSelf) only run on updates where the old value exists; rules are
// skipped when the object has type errors (as the real server does). The Kubernetes CEL
// libraries beyond the standard ones (quantity(), url(), ip(), format ...) are not available:
// a rule using them is reported as an evaluation error, never silently accepted.

let cel = null;
let loading = null;
const cache = new Map();

function load() {
  if (cel) return Promise.resolve(true);
  if (!loading) {
    loading = import('@marcbachmann/cel-js').then((m) => {
      cel = m;
      return true;
    }).catch(() => false);
  }
  return loading;
}

function loaded() {
  return !!cel;
}

function compile(src) {
  let f = cache.get(src);
  if (!f) {
    f = cel.parse(src);
    cache.set(src, f);
  }
  return f;
}

// The parsed expression's AST (cel-js nodes {op, args}), for lib/cel-cost.js; throws on a syntax error.
function ast(src) {
  return compile(src).ast;
}

function toCel(node, v) {
  if (v === null || v === undefined || !node) return v;
  if ((node.type === 'integer' || (node['x-kubernetes-int-or-string'] && typeof v === 'number')) && typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (node.type === 'number' && typeof v === 'number') return v + 0.0;
  if (Array.isArray(v)) return v.map((x) => toCel(node.items, x));
  if (typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      const sub = (node.properties || {})[k] || (typeof node.additionalProperties === 'object' ? node.additionalProperties : null);
      out[k] = sub ? toCel(sub, x) : x;
    }
    return out;
  }
  return v;
}

function typeName(node, v) {
  if (node && node.type) return node.type;
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

function fmt(path) {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : (s ? '.' : '') + p;
  return s || '<nil>';
}

function cause(rule, path, node, value, message) {
  let field = fmt(path);
  if (rule.fieldPath) field = (field === '<nil>' ? '' : field) + (rule.fieldPath.startsWith('.') ? rule.fieldPath : `.${rule.fieldPath}`);
  field = field.replace(/^\./, '');
  switch (rule.reason) {
    case 'FieldValueForbidden': return { field, reason: 'FieldValueForbidden', message: `Forbidden: ${message}` };
    case 'FieldValueRequired': return { field, reason: 'FieldValueRequired', message: `Required value: ${message}` };
    case 'FieldValueDuplicate': return { field, reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(typeName(node, value))}: ${message}` };
    default: return { field, reason: 'FieldValueInvalid', message: `Invalid value: "${typeName(node, value)}": ${message}` };
  }
}

function walk(node, value, old, path, errors) {
  if (!node || value === undefined || value === null) return;
  for (const rule of node['x-kubernetes-validations'] || []) {
    const transition = /\boldSelf\b/.test(rule.rule);
    if (transition && (old === undefined || old === null)) continue;
    const vars = { self: toCel(node, value) };
    if (transition) vars.oldSelf = toCel(node, old);
    let ok;
    try {
      ok = compile(rule.rule)(vars);
    } catch (e) {
      errors.push(cause({}, path, node, value, `${String(e.message).split('\n')[0]} evaluating rule: ${rule.rule}`));
      continue;
    }
    if (ok === true) continue;
    let msg = rule.message || `failed rule: ${rule.rule}`;
    if (rule.messageExpression) {
      try {
        const m = compile(rule.messageExpression)(vars);
        if (typeof m === 'string' && m.trim()) msg = m;
      } catch (e) {
        // real: falls back to message / the rule
      }
    }
    errors.push(cause(rule, path, node, value, msg));
  }
  if (Array.isArray(value)) {
    value.forEach((x, i) => walk(node.items, x, Array.isArray(old) && node['x-kubernetes-list-type'] !== 'set' ? old[i] : undefined, path.concat(i), errors));
  } else if (typeof value === 'object') {
    for (const [k, x] of Object.entries(value)) {
      const sub = (node.properties || {})[k] || (typeof node.additionalProperties === 'object' ? node.additionalProperties : null);
      if (sub) walk(sub, x, old && typeof old === 'object' ? old[k] : undefined, path.concat(k), errors);
    }
  }
}

// Returns causes. schema: the version's openAPIV3Schema; obj/old: whole objects.
function validate(schema, obj, old) {
  if (!cel || !schema) return [];
  const errors = [];
  walk(schema, obj, old, [], errors);
  return errors;
}

// Asked on every write of a custom resource: remembered per schema object (a CRD's schema is
// replaced, not changed in place, when the CRD is updated).
const rulesSeen = new WeakMap();
function hasRules(schema) {
  if (!schema || typeof schema !== 'object') return false;
  let r = rulesSeen.get(schema);
  if (r === undefined) {
    r = JSON.stringify(schema).includes('x-kubernetes-validations');
    rulesSeen.set(schema, r);
  }
  return r;
}

module.exports = { load, loaded, validate, hasRules, ast };
