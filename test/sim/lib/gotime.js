'use strict';
// Go's time as the API server and the kubelet use it: RFC 3339 parsing (with Go's error
// messages) and RFC3339Nano formatting, in nanoseconds since the epoch (BigInt).

let lastNs = 0n;

// The wall clock in nanoseconds, strictly increasing (Date.now() for the milliseconds, so a line
// is never stamped before a Date.now() taken earlier).
function nowNs() {
  let t = BigInt(Date.now()) * 1000000n + (process.hrtime.bigint() % 1000000n);
  if (t <= lastNs) t = lastNs + 1n;
  lastNs = t;
  return t;
}

// Go's t.UTC().Format(time.RFC3339Nano): the fraction without trailing zeros, none when zero.
function rfc3339Nano(ns) {
  const s = ns / 1000000000n;
  const frac = (ns % 1000000000n).toString().padStart(9, '0').replace(/0+$/, '');
  return new Date(Number(s) * 1000).toISOString().slice(0, 19) + (frac ? `.${frac}` : '') + 'Z';
}

const RFC3339 = '2006-01-02T15:04:05Z07:00';
const goQuote = (s) => JSON.stringify(s);
const daysIn = (m, y) => new Date(Date.UTC(y, m, 0)).getUTCDate();

// Go's time.Parse(time.RFC3339, value): {ns} (nanoseconds since the epoch) or {error} with Go's
// message (cannot parse "<rest>" as "<element>", <field> out of range, extra text). A fractional
// second is accepted (after '.' or ','), as Go accepts it without the layout naming it.
function parseRFC3339(value) {
  let v = value;
  const bad = (elem) => ({ error: `parsing time ${goQuote(value)} as ${goQuote(RFC3339)}: cannot parse ${goQuote(v)} as ${goQuote(elem)}` });
  const range = (what) => ({ error: `parsing time ${goQuote(value)}: ${what} out of range` });
  const take = (re) => {
    const m = re.exec(v);
    if (m) v = v.slice(m[0].length);
    return m;
  };
  const steps = [['2006', /^\d{4}/], ['-', /^-/], ['01', /^\d\d/, 1, 12, 'month'], ['-', /^-/], ['02', /^\d\d/],
    ['T', /^T/], ['15', /^\d\d?/, 0, 23, 'hour'], [':', /^:/], ['04', /^\d\d/, 0, 59, 'minute'], [':', /^:/],
    ['05', /^\d\d/, 0, 59, 'second']];
  const n = [];
  for (const [elem, re, lo, hi, what] of steps) {
    const m = take(re);
    if (!m) return bad(elem);
    if (/^\d/.test(m[0])) {
      n.push(Number(m[0]));
      if (what && (n[n.length - 1] < lo || n[n.length - 1] > hi)) return range(what);
    }
  }
  const frac = take(/^[.,](\d+)/);
  let off = 0;
  if (!take(/^Z/)) {
    const z = take(/^([+-])(\d\d):(\d\d)/);
    if (!z) return bad('Z07:00');
    if (Number(z[2]) > 24) return range('time zone offset hour');
    if (Number(z[3]) > 60) return range('time zone offset minute');
    off = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3]));
  }
  if (v.length) return { error: `parsing time ${goQuote(value)}: extra text: ${goQuote(v)}` };
  const [year, month, day, hour, min, sec] = n;
  if (day < 1 || day > daysIn(month, year)) return range('day');
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, min, sec, 0);
  const nsec = frac ? BigInt(frac[1].slice(0, 9).padEnd(9, '0')) : 0n;
  return { ns: BigInt(d.getTime() - off * 60000) * 1000000n + nsec };
}

module.exports = { nowNs, rfc3339Nano, parseRFC3339 };
