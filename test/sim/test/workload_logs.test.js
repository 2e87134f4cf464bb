'use strict';
// Pod logs as containerd stores them and the kubelet reads them (sinceSeconds, sinceTime,
// timestamps, tailLines, limitBytes, follow), and the API's decoding and validation of the
// options (400 for what does not parse, ValidatePodLogOptions' 422).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { cluster, waitFor, pod } = require('../workload/testkit');
const { startServer } = require('../lib/testkit');
const { CriLog, LogReader, CRI_MAX_LOG_LINE } = require('../workload/crilog');

// RFC3339Nano in UTC as Go formats it: no trailing zeros in the fraction, none at all when zero
const TS = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{0,8}[1-9])?Z) /;
const tsMs = (line) => Date.parse(TS.exec(line)[1]);
const getPod = (c, name) => c.store.get('core/pods', 'default', name);
const done = (p) => p && p.status && (p.status.phase === 'Succeeded' || p.status.phase === 'Failed');

async function runPod(c, name, script) {
  c.store.create('core/pods', pod(name, { containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', script] }] }));
  return waitFor(() => done(getPod(c, name)) && getPod(c, name), `pod ${name} to finish`, 15000);
}

function tmpLog(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crilog-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const raw = path.join(dir, 'c.out');
  return { raw, log: new CriLog(raw, path.join(dir, 'c.log')) };
}

test('CRI records: one per line, 16 KiB at most (P ... F), an unterminated line held until it outgrows 16 KiB or the output ends', (t) => {
  const { raw, log } = tmpLog(t);
  assert.equal(CRI_MAX_LOG_LINE, 16384);
  fs.appendFileSync(raw, `a\n\n${'y'.repeat(16384)}\n${'z'.repeat(16385)}\npart`);
  log.ingest(false);
  const recs = () => fs.readFileSync(log.file, 'utf8').split('\n').slice(0, -1).map((l) => l.split(' ').slice(1).map((f) => (f.length > 8 ? f.length : f)));
  assert.deepEqual(recs(), [['stdout', 'F', 'a'], ['stdout', 'F', ''], ['stdout', 'F', 16384], ['stdout', 'P', 16384], ['stdout', 'F', 'z']],
    'an empty line is a record; exactly 16 KiB is one record; one byte more is two; "part" not yet written');
  for (const l of fs.readFileSync(log.file, 'utf8').split('\n').slice(0, -1)) assert.match(l, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{0,8}[1-9])?Z stdout [PF] /);
  log.close();
  assert.deepEqual(recs().slice(5), [['stdout', 'P', 'part']], 'the end of the output writes it as a partial record');
  const read = (o) => new LogReader(log.file, o).read().toString();
  assert.equal(read({}), `a\n\n${'y'.repeat(16384)}\n${'z'.repeat(16385)}\npart`, 'the records joined again');
  assert.equal(read({ tailLines: 2 }), 'z\npart', 'tailLines counts records');
  assert.equal(read({ tailLines: 0 }), '');
  assert.equal(read({ tailLines: 100, limitBytes: 3 }), 'a\n\n');
});

test('timestamps: each line prefixed with its RFC3339Nano time and a space, once per line (not per partial record)', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  const before = Date.now();
  await runPod(c, 'ts', 'echo one; echo two >&2; head -c 20000 /dev/zero | tr "\\0" x; echo; printf end');
  const after = Date.now();
  const out = c.wl.podLog('default', 'ts', { timestamps: true });
  const lines = out.split('\n');
  assert.equal(lines.length, 4, out.slice(0, 300));
  for (const l of lines) {
    assert.match(l, TS);
    assert.ok(tsMs(l) >= before - 1 && tsMs(l) <= after, `${l.slice(0, 40)} within the pod's run`);
  }
  assert.deepEqual(lines.map((l) => l.replace(TS, '')), ['one', 'two', 'x'.repeat(20000), 'end']);
  for (let i = 1; i < lines.length; i++) assert.ok(TS.exec(lines[i])[1] >= TS.exec(lines[i - 1])[1], 'in order');
  // the tail starting inside the long line: its last record is prefixed as a line's start
  const t3 = c.wl.podLog('default', 'ts', { timestamps: true, tailLines: 2 }).split('\n');
  assert.deepEqual(t3.map((l) => l.replace(TS, '')), ['x'.repeat(20000 - 16384), 'end']);
  assert.match(t3[0], TS);
  // limitBytes counts the prefix: it cuts the first line's time
  const cut = c.wl.podLog('default', 'ts', { timestamps: true, limitBytes: 10 });
  assert.equal(cut, TS.exec(lines[0])[1].slice(0, 10));
  assert.equal(c.wl.podLog('default', 'ts', { timestamps: true, tailLines: 1, limitBytes: lines[3].length - 1 }), lines[3].slice(0, -1), 'tail first, then limitBytes');
  assert.equal(c.wl.podLog('default', 'ts'), 'one\ntwo\n' + 'x'.repeat(20000) + '\nend', 'no prefix without timestamps');
});

test('sinceSeconds and sinceTime: the lines stamped at or after now - sinceSeconds / sinceTime; tailLines before since', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('core/pods', pod('since', { containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'echo early; sleep 3; echo late; echo later; sleep 30'] }] }));
  await waitFor(() => c.wl.podLog('default', 'since') === 'early\n', '"early" logged', 15000);
  const seen = Date.now(); // "early" was stamped before this
  await waitFor(() => c.wl.podLog('default', 'since') === 'early\nlate\nlater\n', '"late" logged', 15000);
  const lateSeen = Date.now();
  // sinceTime (ns): the first whole second after "early" was seen, at least 2 s before "late"
  const cutNs = BigInt(Math.ceil((seen + 1) / 1000) * 1000) * 1000000n;
  assert.equal(c.wl.podLog('default', 'since', { sinceTime: cutNs }), 'late\nlater\n');
  assert.equal(c.wl.podLog('default', 'since', { sinceTime: cutNs + 3600n * 1000000000n }), '', 'a future sinceTime: nothing');
  assert.equal(c.wl.podLog('default', 'since', { sinceTime: 0n }), 'early\nlate\nlater\n');
  // sinceSeconds from the kubelet's now: "late" is at most (now - lateSeen) old, "early" over 2 s more
  const s = Math.ceil((Date.now() - lateSeen) / 1000) + 1;
  assert.equal(c.wl.podLog('default', 'since', { sinceSeconds: s }), 'late\nlater\n');
  assert.equal(c.wl.podLog('default', 'since', { sinceSeconds: 3600 }), 'early\nlate\nlater\n');
  // both: the later of the two bounds (newLogOptions)
  assert.equal(c.wl.podLog('default', 'since', { sinceSeconds: 3600, sinceTime: cutNs }), 'late\nlater\n');
  // the tail picks the last records first, since then drops the older of them; limitBytes last
  assert.equal(c.wl.podLog('default', 'since', { tailLines: 3, sinceTime: cutNs }), 'late\nlater\n');
  assert.equal(c.wl.podLog('default', 'since', { tailLines: 1, sinceSeconds: 3600 }), 'later\n');
  assert.equal(c.wl.podLog('default', 'since', { tailLines: 2, sinceTime: cutNs, limitBytes: 7 }), 'late\nla');
  const ts = c.wl.podLog('default', 'since', { timestamps: true, sinceTime: cutNs }).split('\n');
  assert.ok(tsMs(ts[0]) * 1000000 >= Number(cutNs) && tsMs(ts[0]) <= lateSeen, ts[0]);
});

test('API: sinceSeconds/sinceTime/timestamps decoded and validated as kube-apiserver does (400, 422 bodies), then passed to the kubelet', async (t) => {
  let last = null;
  const fake = { podLog: (ns, name, o) => { last = o; return 'x\n'; } };
  const api = await startServer({ workload: () => fake });
  t.after(() => api.close());
  const P = '/api/v1/namespaces/default/pods';
  await api.post(P, { metadata: { name: 'lp' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  const ok = await api.get(`${P}/lp/log?sinceTime=2024-05-06T07:08:09.987654321%2B02:00&timestamps=true`);
  assert.equal(ok.status, 200, ok.text);
  assert.equal(last.sinceTime, BigInt(Date.parse('2024-05-06T05:08:09Z')) * 1000000n, 'sinceTime in ns, cut to the second (LogLocation passes it as RFC3339)');
  assert.equal(last.timestamps, true);
  assert.equal(last.sinceSeconds, undefined);
  await api.get(`${P}/lp/log?sinceSeconds=15`);
  assert.equal(last.sinceSeconds, 15);
  assert.equal(last.sinceTime, undefined);
  assert.equal(last.timestamps, false);
  // query booleans as Convert_Slice_string_To_bool: only absent, "0" and "false" (any case) are false
  for (const [q, want] of [['timestamps', true], ['timestamps=yes', true], ['timestamps=FALSE', false], ['timestamps=0', false]]) {
    await api.get(`${P}/lp/log?${q}`);
    assert.equal(last.timestamps, want, q);
  }

  const invalid = async (q, message, causes) => {
    const r = await api.get(`${P}/lp/log?${q}`);
    assert.equal(r.status, 422, `${q}: ${r.text}`);
    assert.deepEqual(r.body, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Invalid',
      details: { name: 'lp', kind: 'PodLogOptions', causes }, code: 422,
    });
  };
  await invalid('sinceSeconds=0', 'PodLogOptions "lp" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0',
    [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'sinceSeconds' }]);
  await invalid('sinceSeconds=-5&tailLines=-1', 'PodLogOptions "lp" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, sinceSeconds: Invalid value: -5: must be greater than 0]', [
    { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'tailLines' },
    { reason: 'FieldValueInvalid', message: 'Invalid value: -5: must be greater than 0', field: 'sinceSeconds' },
  ]);
  const both = 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified';
  await invalid('sinceSeconds=10&sinceTime=2024-01-01T00:00:00Z', `PodLogOptions "lp" is invalid: : ${both}`, [{ reason: 'FieldValueForbidden', message: both }]);
  await invalid('sinceSeconds=0&sinceTime=2024-01-01T00:00:00Z', `PodLogOptions "lp" is invalid: : ${both}`, [{ reason: 'FieldValueForbidden', message: both }]);
  // validated before the pod is looked up
  assert.equal((await api.get(`${P}/nope/log?sinceSeconds=0`)).status, 422);

  const badRequest = async (q, message) => {
    const r = await api.get(`${P}/lp/log?${q}`);
    assert.equal(r.status, 400, `${q}: ${r.text}`);
    assert.equal(r.body.reason, 'BadRequest');
    assert.equal(r.body.message, message);
  };
  await badRequest('sinceSeconds=10s', 'strconv.ParseInt: parsing "10s": invalid syntax');
  await badRequest('sinceSeconds=', 'strconv.ParseInt: parsing "": invalid syntax');
  await badRequest('tailLines=99999999999999999999', 'strconv.ParseInt: parsing "99999999999999999999": value out of range');
  await badRequest('sinceTime=yesterday', 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
  await badRequest('sinceTime=2024-01-01T10:00:00', 'parsing time "2024-01-01T10:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"');
  await badRequest('sinceTime=2024-02-30T10:00:00Z', 'parsing time "2024-02-30T10:00:00Z": day out of range');
  await badRequest('sinceTime=2024-01-01T10:00:00Z%20x', 'parsing time "2024-01-01T10:00:00Z x": extra text: " x"');
});

test('API follow: timestamps and since apply to the lines as they come, the stream ends with the container', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  const api = await startServer({ store: c.store, workload: () => c.wl });
  t.after(() => api.close());
  c.store.create('core/pods', pod('fl', { containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'echo a; sleep 4; echo b; sleep 1; echo c'] }] }));
  await waitFor(() => c.wl.podLog('default', 'fl') === 'a\n', '"a" logged', 15000);
  await new Promise((r) => setTimeout(r, 1200)); // "a" is now over 1 s old, "b" not yet written
  const r = await api.get('/api/v1/namespaces/default/pods/fl/log?follow=true&timestamps=true&sinceSeconds=1');
  assert.equal(r.status, 200);
  assert.equal(r.text.replace(/^\S+ /gm, ''), 'b\nc\n', `"a" is older than 1 s when asked: ${r.text}`);
  assert.match(r.text, /^\d{4}-\d\d-\d\dT\S+Z b\n\S+Z c\n$/);
  const lim = await api.get('/api/v1/namespaces/default/pods/fl/log?follow=true&limitBytes=3');
  assert.equal(lim.text, 'a\nb', 'limitBytes ends a follow');
});
