'use strict';
// Label and field selectors with the grammar and error messages of
// k8s.io/apimachinery/pkg/labels and pkg/fields.

class SelectorError extends Error {}

function isQualifiedValue(v) {
  return v === '' || (v.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(v));
}

function isQualifiedKey(k) {
  const parts = k.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1];
  if (!name || name.length > 63 || !/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name)) return false;
  if (parts.length === 2) {
    const p = parts[0];
    if (!p || p.length > 253 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(p)) return false;
  }
  return true;
}

// Tokenizer following labels/lexer.go.
function tokenize(s) {
  const toks = [];
  let i = 0;
  const special = ['!=', '==', '=', '!', '(', ')', ',', '>', '<'];
  while (i < s.length) {
    const c = s[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    let matched = false;
    for (const sp of special) {
      if (s.startsWith(sp, i)) { toks.push({ t: sp }); i += sp.length; matched = true; break; }
    }
    if (matched) continue;
    let j = i;
    while (j < s.length && !' \t\n\r!=(),<>'.includes(s[j])) j++;
    const w = s.slice(i, j);
    i = j;
    if (w === 'in' || w === 'notin') toks.push({ t: w, v: w });
    else toks.push({ t: 'id', v: w });
  }
  return toks;
}

// Returns an array of requirements {key, op, values}.
function parseLabelSelector(s) {
  if (s == null) return [];
  s = String(s);
  if (s.trim() === '') return [];
  const toks = tokenize(s);
  let p = 0;
  const reqs = [];
  const peek = () => toks[p];
  const next = () => toks[p++];
  const fail = (msg) => { throw new SelectorError(msg); };
  for (;;) {
    let t = next();
    if (!t) fail('found \'\', expected: !, identifier, or \'end of string\'');
    let op;
    let key;
    if (t.t === '!') {
      op = '!';
      t = next();
      if (!t || (t.t !== 'id' && t.t !== 'in' && t.t !== 'notin')) fail(`found '${t ? t.v || t.t : ''}', expected: identifier after '!'`);
      key = t.v;
    } else if (t.t === 'id' || t.t === 'in' || t.t === 'notin') {
      key = t.v;
    } else {
      fail(`found '${t.t}', expected: !, identifier, or 'end of string'`);
    }
    if (!isQualifiedKey(key)) fail(`key: Invalid value: "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
    let values = [];
    if (op !== '!') {
      const o = peek();
      if (!o || o.t === ',') {
        op = 'exists';
      } else if (o.t === '=' || o.t === '==' || o.t === '!=') {
        next();
        op = o.t === '!=' ? '!=' : '=';
        const v = peek();
        if (v && v.t === 'id') { next(); values = [v.v]; } else if (v && (v.t === 'in' || v.t === 'notin')) { next(); values = [v.v]; } else values = [''];
      } else if (o.t === 'in' || o.t === 'notin') {
        next();
        op = o.t;
        const lp = next();
        if (!lp || lp.t !== '(') fail(`found '${lp ? lp.v || lp.t : ''}', expected: '('`);
        for (;;) {
          const v = next();
          if (!v) fail("found '', expected: ',', ')' or identifier");
          if (v.t === ')') break;
          if (v.t === ',') { values.push(''); continue; }
          if (v.t !== 'id' && v.t !== 'in' && v.t !== 'notin') fail(`found '${v.t}', expected: ',', ')' or identifier`);
          values.push(v.v);
          const sep = next();
          if (!sep) fail("found '', expected: ',' or ')'");
          if (sep.t === ')') break;
          if (sep.t !== ',') fail(`found '${sep.v || sep.t}', expected: ',' or ')'`);
        }
      } else if (o.t === '>' || o.t === '<') {
        next();
        op = o.t === '>' ? 'gt' : 'lt';
        const v = next();
        if (!v || v.t !== 'id' || !/^-?\d+$/.test(v.v)) fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
        values = [v.v];
      } else {
        fail(`found '${o.v || o.t}', expected: =, !=, ==, in, notin`);
      }
    }
    for (const v of values) {
      if (!isQualifiedValue(v)) fail(`values[0][${key}]: Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`);
    }
    reqs.push({ key, op, values });
    const sep = next();
    if (!sep) break;
    if (sep.t !== ',') fail(`found '${sep.v || sep.t}', expected: ',' or 'end of string'`);
  }
  return reqs;
}

// metav1.LabelSelector object -> requirements
function fromLabelSelectorObject(sel) {
  const reqs = [];
  if (!sel) return reqs;
  for (const [k, v] of Object.entries(sel.matchLabels || {})) reqs.push({ key: k, op: '=', values: [String(v)] });
  for (const e of sel.matchExpressions || []) {
    const op = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' }[e.operator];
    if (!op) throw new SelectorError(`"${e.operator}" is not a valid label selector operator`);
    reqs.push({ key: e.key, op, values: e.values || [] });
  }
  return reqs;
}

function compileLabelSelector(sel) {
  if (sel == null || sel === '') return () => true;
  const reqs = typeof sel === 'string' ? parseLabelSelector(sel) : Array.isArray(sel) ? sel : fromLabelSelectorObject(sel);
  return (labels) => matchLabels(reqs, labels || {});
}

function matchLabels(reqs, labels) {
  for (const r of reqs) {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = labels[r.key];
    switch (r.op) {
      case '=': if (!has || v !== r.values[0]) return false; break;
      case '!=': if (has && v === r.values[0]) return false; break;
      case 'in': if (!has || !r.values.includes(v)) return false; break;
      case 'notin': if (has && r.values.includes(v)) return false; break;
      case 'exists': if (!has) return false; break;
      case '!': if (has) return false; break;
      case 'gt': if (!has || !/^-?\d+$/.test(v) || !(Number(v) > Number(r.values[0]))) return false; break;
      case 'lt': if (!has || !/^-?\d+$/.test(v) || !(Number(v) < Number(r.values[0]))) return false; break;
      default: return false;
    }
  }
  return true;
}

// Field selectors: "a=b,c!=d" (fields/selector.go), with \ escapes.
function parseFieldSelector(s) {
  if (s == null || String(s).trim() === '') return [];
  const out = [];
  const parts = [];
  let cur = '';
  s = String(s);
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) { cur += s[i] + s[i + 1]; i++; continue; }
    if (s[i] === ',') { parts.push(cur); cur = ''; continue; }
    cur += s[i];
  }
  parts.push(cur);
  for (const part of parts) {
    let m = /^([^=!]*?)(!=|==|=)(.*)$/.exec(part);
    if (!m) throw new SelectorError(`invalid selector: '${s}'; can't understand '${part}'`);
    const unescape = (x) => x.replace(/\\(.)/g, '$1');
    out.push({ key: m[1].trim(), op: m[2] === '!=' ? '!=' : '=', value: unescape(m[3]) });
  }
  return out;
}

module.exports = {
  SelectorError,
  parseLabelSelector,
  fromLabelSelectorObject,
  compileLabelSelector,
  matchLabels,
  parseFieldSelector,
};
