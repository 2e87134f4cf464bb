'use strict';
// Static cost of x-kubernetes-validations rules, checked when a CRD is created or updated, as
// kube-apiserver 1.25.0 does it: cel-go v0.12.4's checker/cost.go with the size estimator of
// apiextensions-apiserver (schema/cel/compilation.go, third_party/forked/celopenapi/model), and
// the two budgets of pkg/apis/apiextensions/validation (validation.go, cel_validation.go):
//
//   - per rule: MaxCost x cardinality > StaticEstimatedCostLimit (10,000,000) is refused with
//     "Forbidden: estimated rule cost exceeds budget by factor of ..." at
//     <schema>.openAPIV3Schema.properties[a].items.x-kubernetes-validations[i].rule;
//   - per schema: the sum over all rules > StaticEstimatedCRDCostLimit (100,000,000) is refused at
//     <schema>.openAPIV3Schema, and the (up to 4) rules costing at least 1% of that limit are named.
//
// Why 1.25.0, the strictest version the project claims: cel-go v0.12.4 sizes an operand it has no
// size for as unknown ([0, 2^64-1]) even when its type is a scalar, so `has(a) != has(b)` (equality
// costs min(size(lhs), size(rhs)) x 0.1) is estimated at ~1.8e18 and refused, while
// `has(a) ? !has(b) : has(b)` costs 1. Later cel-go releases size scalar-typed operands as 1
// (isScalar) and accept both. Sizes come from the schema: a string is maxLength x 4 (else 3 MiB,
// the request limit; an enum does not bound it in 1.25), a list maxItems, a map maxProperties
// (else as many of the smallest item as fit in 3 MiB); integers, numbers, booleans and objects
// are 0. The cardinality of a rule is the product of maxItems/maxProperties of the lists and maps
// above it, or, when one of them is unbounded, how many of its node fit in 3 MiB.
//
// Modelled: literals, self/oldSelf, field selection, has(), index, !, -, &&, ||, ?:, ==, !=, <,
// <=, >, >=, +, -, *, /, %, in, list and map literals, the macros all/exists/exists_one/map/filter
// (costed as their cel-go v0.12 expansion), the standard functions (size, conversions, matches,
// contains, startsWith, endsWith, timestamp getters) and the 1.25 Kubernetes libraries (lists,
// regex, urls, strings ext). A function the 1.25 environment does not have (later Kubernetes
// libraries, typos) is costed conservatively: the product of the sizes of its receiver and
// arguments, so an unbounded input makes it refused rather than ignored.
// messageExpression (a 1.27 field) is estimated too, as newer servers do, and counts in the total.
//
// Not modelled: type checking (an undeclared field is not a compile error here), the
// x-kubernetes-* list-type/map-type rules on oldSelf. A rule the parser refuses is a
// "compilation failed" cause; the text after that prefix is @marcbachmann/cel-js's, not cel-go's.

const util = require('util');
const cel = require('./cel');

const MAX = (1n << 64n) - 1n; // math.MaxUint64
const MAXF = 18446744073709551615; // float64(math.MaxUint64) == 2^64
const STATIC_ESTIMATED_COST_LIMIT = 10000000n;
const STATIC_ESTIMATED_CRD_COST_LIMIT = 100000000n;
const MAX_REQUEST_SIZE_BYTES = 3n * 1024n * 1024n;
// cel-go common/cost.go
const STRING_TRAVERSAL = 0.1;
const REGEX_STRING_LENGTH = 0.25;
const SELECT_AND_IDENT = 1n;
const LIST_CREATE_BASE = 10n;
const MAP_CREATE_BASE = 30n;
// forked/celopenapi/model/schemas.go
const MAX_DURATION_SIZE_JSON = 32n;
const MAX_DATETIME_SIZE_JSON = 32n;
const DATE_SIZE_JSON = 12n;
const MIN_DURATION_SIZE_JSON = 3n;
const MIN_DATETIME_SIZE_JSON = 21n;

// ---- saturating uint64 arithmetic, as cel-go's addUint64NoOverflow & co ----
const add = (a, b) => (a + b > MAX ? MAX : a + b);
const mul = (a, b) => (a * b > MAX ? MAX : a * b);
function byFactor(x, f) { // multiplyByCostFactor: ceil(float64(x) * f)
  const xf = Number(x);
  if (xf > 0 && f > 0 && xf > MAXF / f) return MAX;
  const c = Math.ceil(xf * f);
  return c >= MAXF ? MAX : BigInt(c);
}
const C = (min, max = min) => ({ min: BigInt(min), max: BigInt(max) });
const cAdd = (a, b) => ({ min: add(a.min, b.min), max: add(a.max, b.max) });
const cMul = (a, b) => ({ min: mul(a.min, b.min), max: mul(a.max, b.max) });
const cFactor = (a, f) => ({ min: byFactor(a.min, f), max: byFactor(a.max, f) });
const cUnion = (a, b) => ({ min: a.min < b.min ? a.min : b.min, max: a.max > b.max ? a.max : b.max });
const sum = (...cs) => cs.reduce(cAdd, C(0));
const UNKNOWN = { min: 0n, max: MAX };

// ---- CEL declaration types of a structural schema (SchemaDeclType, 1.25) ----
// {k: object|list|map|string|bytes|int|uint|double|bool|null|timestamp|duration|type|dyn,
//  fields (Map), elem, key, max: BigInt (DeclType.MaxElements)}
const T = (k, extra) => Object.assign({ k, max: 0n }, extra);
const DYN = T('dyn');
const STRING = T('string');

const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
function escapeName(name) { // forked/celopenapi/model/escaping.go
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_./-][a-zA-Z0-9_./-]*$/.test(name)) return null;
  return name.replace(/__/g, '__underscores__').replace(/\./g, '__dot__').replace(/-/g, '__dash__').replace(/\//g, '__slash__');
}

function minSizeJSON(s) { // estimateMinSizeJSON
  if (!s) return 1n;
  switch (s.type) {
    case 'boolean': return 4n;
    case 'number': case 'integer': return 1n;
    case 'string':
      if (s.format === 'duration') return MIN_DURATION_SIZE_JSON;
      if (s.format === 'date') return DATE_SIZE_JSON;
      if (s.format === 'date-time') return MIN_DATETIME_SIZE_JSON;
      return 2n;
    case 'array': return 2n;
    case 'object': {
      let n = 2n;
      for (const p of s.required || []) {
        const ps = (s.properties || {})[p];
        if (!ps || ps.default !== undefined) continue;
        n += BigInt(p.length) + minSizeJSON(ps) + 4n;
      }
      return n;
    }
    default: return 1n;
  }
}

function withTypeAndObjectMeta(s) {
  const p = s.properties || {};
  const m = p.metadata;
  if (p.kind && p.kind.type === 'string' && p.apiVersion && p.apiVersion.type === 'string' && m && m.type === 'object' &&
      m.properties && m.properties.name && m.properties.name.type === 'string' &&
      m.properties.generateName && m.properties.generateName.type === 'string') return s;
  const str = { type: 'string' };
  return Object.assign({}, s, { properties: Object.assign({}, p, {
    kind: str, apiVersion: str, metadata: { type: 'object', properties: { name: str, generateName: str } },
  }) });
}

function declType(s, isRoot) {
  if (!s) return null;
  if (s['x-kubernetes-int-or-string']) return T('dyn', { max: MAX_REQUEST_SIZE_BYTES - 2n });
  if (isRoot) s = withTypeAndObjectMeta(s);
  const big = (v) => BigInt(Math.max(0, v));
  switch (s.type) {
    case 'array': {
      if (!s.items) return null;
      const elem = declType(s.items, !!s.items['x-kubernetes-embedded-resource']);
      if (!elem) return null;
      const max = s.maxItems !== undefined ? big(s.maxItems) : (MAX_REQUEST_SIZE_BYTES - 2n) / (minSizeJSON(s.items) + 1n);
      return T('list', { elem, max });
    }
    case 'object': {
      const ap = s.additionalProperties;
      if (ap && typeof ap === 'object') {
        const elem = declType(ap, !!ap['x-kubernetes-embedded-resource']);
        if (!elem) return null;
        const max = s.maxProperties !== undefined ? big(s.maxProperties) : (MAX_REQUEST_SIZE_BYTES - 2n) / (minSizeJSON(ap) + 6n);
        return T('map', { key: STRING, elem, max });
      }
      const fields = new Map();
      for (const [name, ps] of Object.entries(s.properties || {})) {
        const ft = declType(ps, !!ps['x-kubernetes-embedded-resource']);
        const esc = escapeName(name);
        if (ft && esc) fields.set(esc, ft);
      }
      return T('object', { fields });
    }
    case 'string':
      switch (s.format) {
        case 'byte': return T('bytes', { max: s.maxLength !== undefined ? big(s.maxLength) : MAX_REQUEST_SIZE_BYTES - 2n });
        case 'duration': return T('duration', { max: MAX_DURATION_SIZE_JSON });
        case 'date': return T('timestamp', { max: DATE_SIZE_JSON });
        case 'date-time': return T('timestamp', { max: MAX_DATETIME_SIZE_JSON });
        default: return T('string', { max: s.maxLength !== undefined ? big(s.maxLength) * 4n : MAX_REQUEST_SIZE_BYTES - 2n });
      }
    case 'boolean': return T('bool');
    case 'number': return T('double');
    case 'integer': return T('int');
    default: return null;
  }
}

// ---- the estimator (cel-go v0.12.4 coster + the Kubernetes CostEstimator of 1.25) ----

// Functions of the 1.25 CRD environment: O(1) unless k8sCallCost or celCallCost below sizes them.
const KNOWN = new Set(['size', 'int', 'uint', 'double', 'string', 'bytes', 'bool', 'dyn', 'type', 'duration', 'timestamp',
  'matches', 'contains', 'startsWith', 'endsWith', 'getDate', 'getDayOfMonth', 'getDayOfWeek', 'getDayOfYear',
  'getFullYear', 'getHours', 'getMilliseconds', 'getMinutes', 'getMonth', 'getSeconds',
  // cel-go ext.Strings (v0.12)
  'charAt', 'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'replace', 'split', 'substring', 'trim', 'join',
  // k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/library (1.25): lists, regex, urls
  'isSorted', 'sum', 'min', 'max', 'find', 'findAll', 'url', 'isURL', 'getScheme', 'getHost', 'getHostname', 'getPort',
  'getEscapedPath', 'getQuery']);

const RESULT_TYPE = {
  size: () => T('int'), int: () => T('int'), uint: () => T('uint'), double: () => T('double'), string: () => T('string'),
  bytes: () => T('bytes'), bool: () => T('bool'), dyn: () => DYN, type: () => T('type'), duration: () => T('duration'),
  timestamp: () => T('timestamp'), matches: () => T('bool'), contains: () => T('bool'), startsWith: () => T('bool'),
  endsWith: () => T('bool'), isSorted: () => T('bool'), isURL: () => T('bool'), indexOf: () => T('int'), lastIndexOf: () => T('int'),
  charAt: () => T('string'), lowerAscii: () => T('string'), upperAscii: () => T('string'), replace: () => T('string'),
  substring: () => T('string'), trim: () => T('string'), join: () => T('string'), split: () => T('list', { elem: STRING }),
  find: () => T('string'), findAll: () => T('list', { elem: STRING }), getScheme: () => T('string'), getHost: () => T('string'),
  getHostname: () => T('string'), getPort: () => T('string'), getEscapedPath: () => T('string'),
  getQuery: () => T('map', { key: STRING, elem: T('list', { elem: STRING }) }),
  sum: (t) => (t && t.k === 'list' ? t.elem : DYN), min: (t) => (t && t.k === 'list' ? t.elem : DYN), max: (t) => (t && t.k === 'list' ? t.elem : DYN),
};

class Coster {
  constructor(root) {
    this.root = root; // DeclType of self
    this.scopes = new Map(); // iteration variable -> stack of {t, path}
  }

  // sizeEstimator.EstimateSize: walk the declaration along the path (its first element, the
  // variable, is skipped whatever it is), answer [0, MaxElements].
  estimateSize(path) {
    if (!path || !path.length) return null;
    let n = this.root;
    for (const name of path.slice(1)) {
      if (!n) return null;
      if (name === '@items' || name === '@values') n = n.elem;
      else if (name === '@keys') n = n.key;
      else n = n.k === 'object' ? n.fields.get(name) : null;
      if (!n) return null;
    }
    return { min: 0n, max: n.max };
  }

  // coster.sizeEstimate of v0.12.4: computed size, else the estimator, else unknown (no isScalar).
  size(e) {
    return e.size || this.estimateSize(e.path) || UNKNOWN;
  }

  cost(node) {
    const m = this[`op_${node.op}`];
    if (m) return m.call(this, node.args, node);
    switch (node.op) {
      case '==': case '!=': return this.sized(node.args, T('bool'), true);
      case '<': case '<=': case '>': case '>=': return this.sized(node.args, T('bool'), false);
      case '+': return this.plus(node.args);
      case '-': case '*': case '/': case '%': {
        const [l, r] = node.args.map((a) => this.cost(a));
        return { cost: sum(l.cost, r.cost, C(1)), t: l.t };
      }
      case 'in': return this.inOp(node.args);
      default: return this.unknownCall(`operator ${node.op}`, null, Array.isArray(node.args) ? node.args : [node.args]);
    }
  }

  op_value(v) {
    let t;
    let size = 1n;
    if (typeof v === 'bigint') t = T('int');
    else if (typeof v === 'number') t = T('double');
    else if (typeof v === 'boolean') t = T('bool');
    else if (v === null) t = T('null');
    else if (typeof v === 'string') { t = T('string'); size = BigInt(Buffer.byteLength(v)); }
    else if (v instanceof Uint8Array) { t = T('bytes'); size = BigInt(v.length); }
    else t = T('uint');
    return { cost: C(0), t, size: C(size), lit: v };
  }

  op_id(name) {
    const s = this.scopes.get(name);
    if (s && s.length) {
      const v = s[s.length - 1];
      return { cost: C(SELECT_AND_IDENT), t: v.t, path: v.path };
    }
    const t = name === 'self' || name === 'oldSelf' ? this.root : DYN;
    return { cost: C(SELECT_AND_IDENT), t, path: [name] };
  }

  op_list(items) {
    let c = C(LIST_CREATE_BASE);
    let elem = null;
    for (const it of items) {
      const e = this.cost(it);
      c = cAdd(c, e.cost);
      elem = elem || e.t;
    }
    return { cost: c, t: T('list', { elem: elem || DYN }), size: C(items.length) };
  }

  op_map(entries) {
    let c = C(MAP_CREATE_BASE);
    let key = null;
    let elem = null;
    for (const [k, v] of entries) {
      const ek = this.cost(k);
      const ev = this.cost(v);
      c = sum(c, ek.cost, ev.cost);
      key = key || ek.t;
      elem = elem || ev.t;
    }
    return { cost: c, t: T('map', { key: key || DYN, elem: elem || DYN }), size: C(entries.length) };
  }

  select(operand, field) {
    const o = this.cost(operand);
    let t = DYN;
    if (o.t.k === 'object') t = o.t.fields.get(field) || DYN;
    else if (o.t.k === 'map') t = o.t.elem;
    // the path grows from the operand's, or from nothing (v0.12.4: append(nil, field))
    return { cost: cAdd(o.cost, C(SELECT_AND_IDENT)), t, path: (o.path || []).concat(field) };
  }

  op_dot([operand, field]) {
    return this.select(operand, field);
  }

  op_index([operand, index]) {
    const o = this.cost(operand);
    const i = this.cost(index);
    let t = DYN;
    let path = null;
    if (o.t.k === 'list') { t = o.t.elem; path = (o.path || []).concat('@items'); }
    else if (o.t.k === 'map') { t = o.t.elem; path = (o.path || []).concat('@values'); }
    return { cost: sum(o.cost, i.cost, C(1)), t, path };
  }

  op_not(arg) {
    const a = this.cost(arg);
    return { cost: cAdd(a.cost, C(1)), t: T('bool') };
  }

  op_neg(arg) {
    const a = this.cost(arg);
    return { cost: cAdd(a.cost, C(1)), t: a.t };
  }

  logical([l, r]) { // LogicalAnd/LogicalOr: short-circuit, no cost of its own
    const a = this.cost(l);
    const b = this.cost(r);
    return { cost: { min: a.cost.min, max: add(a.cost.max, b.cost.max) }, t: T('bool') };
  }

  op_ternary([c, t, f]) { // Conditional: cond + the dearer branch; result sized as either branch
    const ec = this.cost(c);
    const et = this.cost(t);
    const ef = this.cost(f);
    return { cost: cAdd(ec.cost, cUnion(et.cost, ef.cost)), t: et.t.k === ef.t.k ? et.t : DYN, size: cUnion(this.size(et), this.size(ef)) };
  }

  // Equals/NotEquals, and Less/Greater(Equals) on strings and bytes: O(min(m, n)) x 0.1.
  sized([l, r], t, always) {
    const a = this.cost(l);
    const b = this.cost(r);
    const args = cAdd(a.cost, b.cost);
    const strLike = (x) => x.t.k === 'string' || x.t.k === 'bytes' || x.t.k === 'dyn';
    if (!always && !strLike(a) && !strLike(b)) return { cost: cAdd(args, C(1)), t };
    const smallest = this.size(a).max < this.size(b).max ? this.size(a).max : this.size(b).max;
    const c = cFactor({ min: smallest > 0n ? 1n : 0n, max: smallest }, STRING_TRAVERSAL);
    return { cost: cAdd(c, args), t };
  }

  plus([l, r]) {
    const a = this.cost(l);
    const b = this.cost(r);
    const args = cAdd(a.cost, b.cost);
    const k = a.t.k !== 'dyn' ? a.t.k : b.t.k;
    const rs = cAdd(this.size(a), this.size(b));
    if (k === 'list') return { cost: cAdd(C(1), args), t: a.t.k === 'list' ? a.t : b.t, size: rs };
    if (k === 'string' || k === 'bytes' || k === 'dyn') {
      const c = cAdd(cFactor(rs, STRING_TRAVERSAL), args);
      return { cost: c, t: k === 'dyn' ? DYN : T(k), size: rs };
    }
    return { cost: cAdd(C(1), args), t: a.t };
  }

  inOp([l, r]) {
    const a = this.cost(l);
    const b = this.cost(r);
    const args = cAdd(a.cost, b.cost);
    if (b.t.k === 'map') return { cost: cAdd(C(1), args), t: T('bool') };
    // InList: O(n) in the size of the list (a dyn right-hand side may be a list too)
    return { cost: cAdd(cFactor(this.size(b), 1), args), t: T('bool') };
  }

  op_call([name, args]) {
    if (name === 'has' && args.length === 1 && (args[0].op === '.' || args[0].op === '.?')) {
      // a test-only select: no cost at all in v0.12.4, and no size, no path
      return { cost: C(0), t: T('bool') };
    }
    return this.call(name, null, args);
  }

  op_rcall([name, target, args]) {
    const macro = this.macro(name, target, args);
    if (macro) return macro;
    return this.call(name, target, args);
  }

  // The macros, costed as their comprehension expansion in cel-go v0.12 (parser/macro.go):
  // iterRange + accuInit + result + size(iterRange) x (loopCondition + loopStep).
  macro(name, target, args) {
    const iv = args[0] && args[0].op === 'id' ? args[0].args : null;
    if (!iv) return null;
    const forms = { all: 2, exists: 2, exists_one: 2, filter: 2, map: [2, 3] };
    const n = forms[name];
    if (n === undefined || !(Array.isArray(n) ? n.includes(args.length) : args.length === n)) return null;
    const range = this.cost(target);
    const rt = range.t;
    let ivType = DYN;
    let ivPath = null;
    if (rt.k === 'list') { ivType = rt.elem; ivPath = (range.path || []).concat('@items'); }
    else if (rt.k === 'map') { ivType = rt.key; ivPath = (range.path || []).concat('@keys'); }
    if (!this.scopes.has(iv)) this.scopes.set(iv, []);
    this.scopes.get(iv).push({ t: ivType, path: ivPath });
    let body;
    try {
      body = args.slice(1).map((a) => this.cost(a));
    } finally {
      this.scopes.get(iv).pop();
    }
    const accu = C(SELECT_AND_IDENT); // __result__
    let init;
    let loop; // loopCondition + loopStep
    let result = accu;
    let t = T('bool');
    switch (name) {
      case 'all': // init true; cond @not_strictly_false(__result__); step __result__ && p
        init = C(0);
        loop = cAdd(cAdd(accu, C(1)), { min: accu.min, max: add(accu.max, body[0].cost.max) });
        break;
      case 'exists': // init false; cond @not_strictly_false(!__result__); step __result__ || p
        init = C(0);
        loop = cAdd(sum(accu, C(1), C(1)), { min: accu.min, max: add(accu.max, body[0].cost.max) });
        break;
      case 'exists_one': // init 0; cond true; step p ? __result__ + 1 : __result__; result __result__ == 1
        init = C(0);
        loop = cAdd(body[0].cost, cUnion(sum(accu, C(0), C(1)), accu));
        result = sum(accu, C(0), cFactor(C(1), STRING_TRAVERSAL));
        break;
      case 'filter': { // init []; cond true; step p ? __result__ + [x] : __result__
        init = C(LIST_CREATE_BASE);
        const append = sum(C(1), accu, C(LIST_CREATE_BASE), C(SELECT_AND_IDENT));
        loop = cAdd(body[0].cost, cUnion(append, accu));
        t = T('list', { elem: ivType });
        break;
      }
      default: { // map: init []; cond true; step __result__ + [f] (or p ? that : __result__)
        init = C(LIST_CREATE_BASE);
        const f = body[body.length - 1];
        const append = sum(C(1), accu, C(LIST_CREATE_BASE), f.cost);
        loop = body.length === 2 ? cAdd(body[0].cost, cUnion(append, accu)) : append;
        t = T('list', { elem: f.t });
      }
    }
    const cnt = this.size(range);
    return { cost: sum(range.cost, init, result, cMul(cnt, loop)), t };
  }

  // A function call: the Kubernetes estimator first, then cel-go's functionCost, then O(1).
  call(name, targetNode, argNodes) {
    const target = targetNode ? this.cost(targetNode) : null;
    const args = argNodes.map((a) => this.cost(a));
    const argCost = sum(...args.map((a) => a.cost));
    const base = target ? target.cost : C(0);
    if (!KNOWN.has(name)) return this.unknownCall(name, target, args);
    const t = (RESULT_TYPE[name] || (() => DYN))(target && target.t);
    const est = this.k8sCallCost(name, target, args);
    if (est) return { cost: sum(base, est.cost, argCost), t, size: est.size };
    const f = this.celCallCost(name, target, args);
    if (f) return { cost: sum(base, f.cost, argCost), t, size: f.size };
    return { cost: sum(base, C(1), argCost), t };
  }

  // library.CostEstimator.EstimateCallCost of 1.25 (cost without the arguments').
  k8sCallCost(name, target, args) {
    const sz = target ? this.size(target) : null;
    switch (name) {
      case 'isSorted': case 'sum': case 'max': case 'min': case 'indexOf': case 'lastIndexOf':
        if (!target) return null;
        if (target.t.k === 'list') {
          let el = C(1);
          const elem = target.t.elem;
          if (elem.k === 'string' || elem.k === 'bytes') {
            const esz = this.estimateSize(target.path ? target.path.concat('@items') : null) || UNKNOWN;
            el = cAdd(el, cFactor(esz, STRING_TRAVERSAL));
          }
          return { cost: cMul(sz, el) };
        }
        return { cost: cFactor(sz, STRING_TRAVERSAL) };
      case 'url':
        if (target || args.length !== 1) return null;
        return { cost: cFactor(this.size(args[0]), STRING_TRAVERSAL) };
      case 'lowerAscii': case 'upperAscii': case 'substring': case 'trim':
        if (!target) return null;
        return { cost: cFactor(sz, STRING_TRAVERSAL), size: sz };
      case 'replace': {
        if (!target || args.length < 2) return null;
        const from = this.size(args[0]);
        const to = this.size(args[1]);
        const div = (a, b) => (b === 0n ? MAX : (a + b - 1n) / b);
        const size = { min: mul(div(sz.min, from.max), to.min), max: mul(div(sz.max, from.min), to.max) };
        return { cost: cFactor(sz, 2 * STRING_TRAVERSAL), size };
      }
      case 'split': {
        if (!target) return null;
        let max = sz.max;
        if (args.length > 1 && typeof args[1].lit === 'bigint') max = BigInt.asUintN(64, args[1].lit); // uint64(const int)
        return { cost: cFactor(sz, 2 * STRING_TRAVERSAL), size: { min: 0n, max } };
      }
      case 'join': {
        if (!target) return null;
        let size = C(0);
        if (target.t.k === 'list') {
          const esz = this.estimateSize(target.path ? target.path.concat('@items') : null) || UNKNOWN;
          size = cMul(sz, esz);
        }
        if (args.length) {
          const sep = this.size(args[0]);
          size = cAdd(size, cMul(sep, { min: sz.min > 0n ? sz.min - 1n : 0n, max: sz.max > 0n ? sz.max - 1n : 0n }));
        }
        return { cost: cFactor(size, STRING_TRAVERSAL), size };
      }
      case 'find': case 'findAll': {
        if (!target || !args.length) return null;
        const str = cFactor(cAdd(sz, C(1)), STRING_TRAVERSAL);
        const re = cFactor(this.size(args[0]), REGEX_STRING_LENGTH);
        return { cost: cMul(str, re), size: { min: 0n, max: sz.max } };
      }
      default: return null;
    }
  }

  // cel-go v0.12 functionCost for the overloads whose cost depends on sizes.
  celCallCost(name, target, args) {
    switch (name) {
      case 'bytes': // StringToBytes
        if (!target && args.length === 1 && args[0].t.k === 'string') {
          const sz = this.size(args[0]);
          return { cost: cFactor(sz, STRING_TRAVERSAL), size: { min: sz.min, max: mul(sz.max, 4n) } };
        }
        return null;
      case 'string': // BytesToString
        if (!target && args.length === 1 && args[0].t.k === 'bytes') {
          const sz = this.size(args[0]);
          return { cost: cFactor(sz, STRING_TRAVERSAL), size: { min: sz.min / 4n, max: sz.max } };
        }
        return null;
      case 'startsWith': case 'endsWith':
        if (target && args.length === 1) return { cost: cFactor(this.size(args[0]), STRING_TRAVERSAL) };
        return null;
      case 'matches': // only the receiver form is sized in v0.12; matches(s, re) is O(1)
        if (target && args.length === 1) {
          const str = cFactor(cAdd(this.size(target), C(1)), STRING_TRAVERSAL);
          return { cost: cMul(str, cFactor(this.size(args[0]), REGEX_STRING_LENGTH)) };
        }
        return null;
      case 'contains':
        if (target && args.length === 1) {
          return { cost: cMul(cFactor(this.size(target), STRING_TRAVERSAL), cFactor(this.size(args[0]), STRING_TRAVERSAL)) };
        }
        return null;
      default: return null;
    }
  }

  // Not in the 1.25 environment: O(product of the input sizes), never free.
  unknownCall(name, target, args) {
    const inputs = (target ? [target] : []).concat(args.map((a) => (a && a.cost ? a : this.cost(a))));
    let c = C(1);
    for (const i of inputs) {
      const s = this.size(i);
      c = cMul(c, { min: 1n, max: s.max > 1n ? s.max : 1n });
    }
    this.unknown.add(name);
    return { cost: sum(c, ...inputs.map((i) => i.cost)), t: DYN };
  }

  estimate(ast) {
    this.unknown = new Set();
    return this.cost(ast).cost;
  }
}

// cel-js AST operators that are not identifiers: map them to method names.
const OPS = { '.': 'dot', '.?': 'dot', '[]': 'index', '[?]': 'index', '!_': 'not', '-_': 'neg', '?:': 'ternary', '&&': 'logical', '||': 'logical', call: 'call', rcall: 'rcall', value: 'value', id: 'id', list: 'list', map: 'map' };
for (const [op, m] of Object.entries(OPS)) {
  if (op !== m) Coster.prototype[`op_${op}`] = Coster.prototype[m === 'logical' ? 'logical' : `op_${m}`];
}

// ---- the CRD walk (ValidateCustomResourceDefinitionOpenAPISchema + CELSchemaContext) ----

// extractMaxElements: how much a node multiplies the cardinality of its children (null: unbounded).
function maxElements(s) {
  if (s.type === 'object') {
    if (s.additionalProperties !== undefined && s.additionalProperties !== false) return s.maxProperties !== undefined ? BigInt(Math.max(0, s.maxProperties)) : null;
    return 1n;
  }
  if (s.type === 'array') return s.maxItems !== undefined ? BigInt(Math.max(0, s.maxItems)) : null;
  return 1n;
}

function maxCardinality(s) { // model.MaxCardinality: how many of s fit in one request
  return MAX_REQUEST_SIZE_BYTES / (minSizeJSON(s) + 1n);
}

function overflowMul(cost, card) { // multiplyWithOverflowGuard
  if (cost === 0n) return 0n;
  if (MAX / cost < card) return MAX;
  return cost * card;
}

function costMessage(name, cost, limit) { // getCostErrorMessage
  const f = Number(cost) / Number(limit);
  let factor;
  if (f > 100) factor = 'more than 100x';
  else if (f < 1.5) factor = `${f.toFixed(6)}x`;
  else factor = `${f.toFixed(1)}x`;
  return `${name} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

// Estimates one rule (or messageExpression) declared on schema node s. Returns {max, unknown}
// or {error} when the expression does not parse.
function estimateExpression(src, s, isRoot) {
  let ast;
  try {
    ast = cel.ast(src);
  } catch (e) {
    return { error: String(e.message).split('\n')[0] };
  }
  const root = declType(s, isRoot) || DYN;
  const c = new Coster(root);
  try {
    const cost = c.estimate(ast);
    return { max: cost.max, unknown: [...c.unknown] };
  } catch (e) { // a construct this model does not know: say so rather than answer 500 or accept
    return { internal: `the simulated cluster cannot estimate this rule: ${e.message}` };
  }
}

function goRule(r) {
  return `apiextensions.ValidationRule{Rule:${JSON.stringify(r.rule)}, Message:${JSON.stringify(r.message || '')}}`;
}

// Walks one openAPIV3Schema; base is "spec.validation" or "spec.versions[i].schema".
// Returns {causes, rules: [{field, cost, cardinality, unknown}], total}.
function checkSchema(schema, base) {
  const causes = [];
  const rules = [];
  const total = { total: 0n, expensive: [] };
  const observe = (field, cost) => {
    total.total = add(total.total, cost);
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100n) return;
    total.expensive.push({ field, cost });
    total.expensive.sort((a, b) => (a.cost > b.cost ? -1 : a.cost < b.cost ? 1 : 0));
    total.expensive = total.expensive.slice(0, 4);
  };
  const walk = (s, path, card, isRoot) => {
    if (!s || typeof s !== 'object') return;
    // children first: the real server appends a node's rule errors after those below it
    const child = (cs, cpath) => {
      const me = maxElements(s);
      walk(cs, cpath, card === null || me === null ? null : overflowMul(card, me), !!(cs && cs['x-kubernetes-embedded-resource']));
    };
    if (s.additionalProperties && typeof s.additionalProperties === 'object') child(s.additionalProperties, `${path}.additionalProperties`);
    for (const [k, ps] of Object.entries(s.properties || {})) child(ps, `${path}.properties[${k}]`);
    if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) child(s.items, `${path}.items`);
    (s['x-kubernetes-validations'] || []).forEach((r, i) => {
      const field = `${path}.x-kubernetes-validations[${i}]`;
      if (!r || typeof r.rule !== 'string' || !r.rule.trim()) return;
      const est = estimateExpression(r.rule, s, isRoot);
      if (est.internal) {
        causes.push({ field: `${path}.x-kubernetes-validations`, reason: 'InternalError', message: `Internal error: ${est.internal}` });
        return;
      }
      if (est.error) {
        causes.push({ field: `${field}.rule`, reason: 'FieldValueInvalid', message: `Invalid value: ${goRule(r)}: compilation failed: ${est.error}` });
        return;
      }
      const cardinality = card !== null ? card : maxCardinality(s);
      const cost = overflowMul(est.max, cardinality);
      rules.push({ field: `${field}.rule`, rule: r.rule, maxCost: est.max, cardinality, cost, unknown: est.unknown });
      if (cost > STATIC_ESTIMATED_COST_LIMIT) {
        causes.push({ field: `${field}.rule`, reason: 'FieldValueForbidden', message: `Forbidden: ${costMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)}` });
      }
      observe(`${field}.rule`, cost);
      if (typeof r.messageExpression === 'string' && r.messageExpression.trim()) {
        const me = estimateExpression(r.messageExpression, s, isRoot);
        if (me.internal) {
          causes.push({ field: `${path}.x-kubernetes-validations`, reason: 'InternalError', message: `Internal error: ${me.internal}` });
          return;
        }
        if (me.error) {
          causes.push({ field: `${field}.messageExpression`, reason: 'FieldValueInvalid', message: `Invalid value: ${goRule(r)}: messageExpression compilation failed: ${me.error}` });
          return;
        }
        rules.push({ field: `${field}.messageExpression`, rule: r.messageExpression, maxCost: me.max, cardinality: 1n, cost: me.max, unknown: me.unknown });
        if (me.max > STATIC_ESTIMATED_COST_LIMIT) {
          causes.push({ field: `${field}.messageExpression`, reason: 'FieldValueForbidden', message: `Forbidden: ${costMessage('estimated messageExpression cost', me.max, STATIC_ESTIMATED_COST_LIMIT)}` });
        }
        observe(`${field}.messageExpression`, me.max);
      }
    });
  };
  walk(schema, `${base}.openAPIV3Schema`, 1n, true);
  if (total.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of total.expensive) {
      causes.push({ field: e.field, reason: 'FieldValueForbidden', message: 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema' });
    }
    causes.push({ field: `${base}.openAPIV3Schema`, reason: 'FieldValueForbidden', message: `Forbidden: ${costMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total.total, STATIC_ESTIMATED_CRD_COST_LIMIT)}` });
  }
  return { causes, rules, total: total.total };
}

// The CRD's schemas as the internal API holds them: identical per-version schemas are one
// top-level spec.validation (that is where the real server's error paths point), else each
// version's own.
function schemasOf(crd) {
  const vs = ((crd && crd.spec) || {}).versions || [];
  const ss = vs.map((v) => v && v.schema && v.schema.openAPIV3Schema);
  if (!ss.length || ss.some((s) => !s || typeof s !== 'object')) {
    return ss.map((s, i) => (s && typeof s === 'object' ? { schema: s, base: `spec.versions[${i}].schema` } : null)).filter(Boolean);
  }
  const same = ss.every((s) => util.isDeepStrictEqual(s, ss[0]));
  return same ? [{ schema: ss[0], base: 'spec.validation' }] : ss.map((s, i) => ({ schema: s, base: `spec.versions[${i}].schema` }));
}

// Causes for a CRD create/update (empty when CEL is off or not loaded, like a server without it).
function validateCRD(crd) {
  if (!cel.loaded()) return [];
  const out = [];
  for (const { schema, base } of schemasOf(crd)) out.push(...checkSchema(schema, base).causes);
  return out;
}

module.exports = { validateCRD, checkSchema, schemasOf, estimateExpression, declType, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT };

// CLI: node test/sim/lib/cel-cost.js CRD.yaml... -> one line per rule: cost, cardinality, path.
if (require.main === module) {
  (async () => {
    const yaml = require('js-yaml');
    const fs = require('fs');
    if (!(await cel.load())) {
      process.stderr.write('cel-cost: @marcbachmann/cel-js is not installed (npm ci --prefix test/sim)\n');
      process.exit(2);
    }
    let bad = 0;
    for (const f of process.argv.slice(2)) {
      for (const doc of yaml.loadAll(fs.readFileSync(f, 'utf8'))) {
        if (!doc || doc.kind !== 'CustomResourceDefinition') continue;
        for (const { schema, base } of schemasOf(doc)) {
          const r = checkSchema(schema, base);
          process.stdout.write(`${doc.metadata.name} (${base}): total ${r.total} of ${STATIC_ESTIMATED_CRD_COST_LIMIT}\n`);
          for (const x of r.rules) {
            const u = x.unknown.length ? `  [not in the 1.25 environment: ${x.unknown.join(', ')}]` : '';
            process.stdout.write(`  ${String(x.cost).padStart(20)} = ${x.maxCost} x ${x.cardinality}  ${x.field}: ${x.rule}${u}\n`);
          }
          for (const c of r.causes) process.stdout.write(`REFUSED ${c.field}: ${c.message}\n`);
          bad += r.causes.length;
        }
      }
    }
    process.exit(bad ? 1 : 0);
  })();
}
