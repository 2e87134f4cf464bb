'use strict';
// Deep copy of the JSON values the store holds. structuredClone goes through V8's serializer and
// was the sim's largest cost under load (every get, list, write and watch event copies); a walk
// over plain objects and arrays does the same work several times faster. Anything that is not a
// plain object or array (a Buffer, a Date: none is stored, but a caller might pass one) still goes
// to structuredClone.
function clone(v) {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const a = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = clone(v[i]);
    return a;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const o = {};
  for (const k of Object.keys(v)) {
    // a JSON key "__proto__" is an own property; plain assignment would set the prototype
    if (k === '__proto__') Object.defineProperty(o, k, { value: clone(v[k]), enumerable: true, writable: true, configurable: true });
    else o[k] = clone(v[k]);
  }
  return o;
}

module.exports = { clone };
