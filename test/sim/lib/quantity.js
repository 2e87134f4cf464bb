'use strict';
// resource.Quantity as k8s.io/apimachinery/pkg/api/resource (quantity.go, suffix.go, amount.go):
// ParseQuantity's scanner and errors, the canonical String() used in validation messages, and
// Cmp. A value is kept exactly as a BigInt mantissa times a power of ten (binary suffixes are
// integers, so 1.5Gi is 15 * 2^30 * 10^-1).

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
const ERR_FORMAT = `quantities must match the regular expression '${SPLIT_RE}'`;
const ERR_NUMERIC = 'unable to parse numeric part of quantity';
const ERR_SUFFIX = "unable to parse quantity's suffix";

const DEC_SUFFIX = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIX = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_NAME = Object.fromEntries(Object.entries(DEC_SUFFIX).map(([k, v]) => [v, k]));
const BIN_NAME = Object.fromEntries([['', 0]].concat(Object.entries(BIN_SUFFIX)).map(([k, v]) => [v, k]));
const INT64_MAX = (1n << 63n) - 1n;

class QuantityError extends Error {}

// parseQuantityString: sign, numerator, denominator (fraction digits) and suffix.
function scan(str) {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end && (str[0] === '-' || str[0] === '+')) {
    positive = str[0] !== '-';
    pos++;
  }
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && str[i] >= '0' && str[i] <= '9') i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: '', suffix: '' };
  pos = i;
  if (!num) num = '0';
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && str[i] >= '0' && str[i] <= '9') i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && 'eEinumkKMGTP'.includes(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  for (i = pos; i < end; i++) if (str[i] < '0' || str[i] > '9') throw new QuantityError(ERR_FORMAT);
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

// suffixHandler.interpret
function interpret(suffix) {
  if (Object.prototype.hasOwnProperty.call(DEC_SUFFIX, suffix)) return { base: 10, exponent: DEC_SUFFIX[suffix], format: 'DecimalSI' };
  if (Object.prototype.hasOwnProperty.call(BIN_SUFFIX, suffix)) return { base: 2, exponent: BIN_SUFFIX[suffix], format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[-+]?[0-9]+$/.test(suffix.slice(1))) {
    return { base: 10, exponent: Number(suffix.slice(1)), format: 'DecimalExponent' };
  }
  return null;
}

// ParseQuantity. Returns {m: BigInt, e: int (value = m * 10^e), format, s: cached string or ''}.
function parse(input) {
  const str = String(input).trim();
  if (str.length === 0) throw new QuantityError(ERR_FORMAT);
  if (str === '0') return { m: 0n, e: 0, format: 'DecimalSI', s: str };
  const q = scan(str);
  const suf = interpret(q.suffix);
  if (!suf) throw new QuantityError(ERR_SUFFIX);
  let m = BigInt(q.num + q.denom) * (q.positive ? 1n : -1n);
  let e = -q.denom.length;
  if (suf.base === 10) e += suf.exponent;
  else m *= 1n << BigInt(suf.exponent);
  // the fast path keeps the caller's string when it is already canonical
  let s = '';
  let precision = -1;
  if (suf.format !== 'BinarySI') precision = 18 - (q.num.length + q.denom.length);
  else if (q.denom.length === 0) precision = 15 - q.num.length - Math.trunc(suf.exponent * 3 / 10) - 1;
  if (precision >= 0) {
    const scale = (suf.format === 'BinarySI' ? 0 : suf.exponent) - q.denom.length;
    const shifted = q.num + q.denom;
    if (scale >= -9 && (m < 0n ? -m : m) <= INT64_MAX) {
      if (suf.format === 'BinarySI') {
        if (suf.exponent % 10 === 0 && (BigInt(shifted) & 7n) !== 0n) s = str;
      } else if (scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0') {
        s = str;
      }
    }
  }
  // non-zero values are rounded up (away from zero) to nano precision
  if (e < -9) {
    const div = 10n ** BigInt(-9 - e);
    const neg = m < 0n;
    let a = neg ? -m : m;
    a = (a + div - 1n) / div;
    m = neg ? -a : a;
    e = -9;
  }
  let format = suf.format;
  if (format === 'BinarySI' && m > 0n && cmp({ m, e }, { m: 1n, e: 0 }) < 0) format = 'DecimalSI';
  return { m, e, format, s };
}

function align(a, b) {
  const e = Math.min(a.e, b.e);
  return [a.m * 10n ** BigInt(a.e - e), b.m * 10n ** BigInt(b.e - e)];
}

function cmp(a, b) {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function sign(q) {
  return q.m < 0n ? -1 : q.m > 0n ? 1 : 0;
}

// Quantity.String (CanonicalizeBytes)
function toString(q) {
  if (q.s) return q.s;
  if (q.m === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const small = cmp(q, { m: -1024n, e: 0 }) > 0 && cmp(q, { m: 1024n, e: 0 }) < 0;
    let integral = q.e >= 0;
    if (!integral) integral = q.m % (10n ** BigInt(-q.e)) === 0n;
    if (small || !integral) format = 'DecimalSI';
    else {
      let v = q.e >= 0 ? q.m * 10n ** BigInt(q.e) : q.m / 10n ** BigInt(-q.e);
      const neg = v < 0n;
      if (neg) v = -v;
      let k = 0;
      while (v >= 1024n && v % 1024n === 0n) {
        v /= 1024n;
        k++;
      }
      const name = BIN_NAME[k * 10];
      return (neg ? '-' : '') + v.toString() + (name === undefined ? '' : name);
    }
  }
  let m = q.m;
  let e = q.e;
  while (m !== 0n && m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  while (((e % 3) + 3) % 3 !== 0) {
    m *= 10n;
    e--;
  }
  if (format === 'DecimalExponent') return m.toString() + (e === 0 ? '' : `e${e}`);
  const name = DEC_NAME[e];
  return m.toString() + (name === undefined ? '' : name);
}

module.exports = { parse, cmp, sign, toString, QuantityError, ERR_FORMAT, ERR_NUMERIC, ERR_SUFFIX };
