#!/usr/bin/env node
'use strict';
// Regenerates lib/k8s-proto.json: the protobuf message layouts of the Kubernetes API types the
// simulator accepts as protobuf request bodies, taken from the FileDescriptorProtos that every
// Go Kubernetes client binary embeds (gzipped, one per generated.proto).
//
//   node test/sim/lib/proto-extract.js [path/to/kubectl] > test/sim/lib/k8s-proto.json
//
// Output: {"<full.message.Name>": [[number, name, type, repeated, typeName|null], ...], ...}
// with map entries as messages whose name ends in "Entry" (key = 1, value = 2).
const fs = require('fs');
const zlib = require('zlib');
const { execSync } = require('child_process');

const WANT = [
  'k8s.io/api/core/v1/', 'k8s.io/api/batch/v1/', 'k8s.io/api/apps/v1/', 'k8s.io/api/autoscaling/v2/',
  'k8s.io/api/rbac/v1/', 'k8s.io/api/coordination/v1/', 'k8s.io/api/events/v1/', 'k8s.io/api/storage/v1/',
  'k8s.io/api/autoscaling/v1/', 'k8s.io/api/policy/v1/', 'k8s.io/api/authentication/v1/',
  'k8s.io/apimachinery/pkg/apis/meta/v1/', 'k8s.io/apimachinery/pkg/api/resource/',
  'k8s.io/apimachinery/pkg/util/intstr/', 'k8s.io/apimachinery/pkg/runtime/generated',
];

function fields(buf) {
  const out = [];
  let pos = 0;
  const varint = () => {
    let r = 0n;
    let s = 0n;
    for (;;) {
      const b = buf[pos++];
      r |= BigInt(b & 0x7f) << s;
      if (!(b & 0x80)) return r;
      s += 7n;
    }
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const f = key >>> 3;
    const w = key & 7;
    if (w === 0) out.push([f, varint()]);
    else if (w === 2) {
      const len = Number(varint());
      out.push([f, buf.subarray(pos, pos + len)]);
      pos += len;
    } else if (w === 1) pos += 8;
    else if (w === 5) pos += 4;
    else throw new Error('wire type ' + w);
  }
  return out;
}

function message(buf, prefix, table) {
  let name = '';
  const fl = [];
  const nested = [];
  for (const [f, v] of fields(buf)) {
    if (f === 1) name = v.toString();
    else if (f === 2) {
      const fd = {};
      for (const [g, x] of fields(v)) {
        if (g === 1) fd.name = x.toString();
        else if (g === 3) fd.number = Number(x);
        else if (g === 4) fd.label = Number(x);
        else if (g === 5) fd.type = Number(x);
        else if (g === 6) fd.typeName = x.toString().replace(/^\./, '');
      }
      fl.push([fd.number, fd.name, fd.type, fd.label === 3 ? 1 : 0, fd.typeName || null]);
    } else if (f === 3) nested.push(v);
  }
  const full = `${prefix}.${name}`;
  table[full] = fl;
  for (const n of nested) message(n, full, table);
}

const bin = process.argv[2] || execSync('command -v kubectl').toString().trim();
const data = fs.readFileSync(bin);
const magic = Buffer.from([0x1f, 0x8b, 0x08, 0x00]);
const table = {};
let i = 0;
while ((i = data.indexOf(magic, i)) >= 0) {
  let out = null;
  try {
    out = zlib.gunzipSync(data.subarray(i, i + 400000), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  } catch (e) {
    out = null;
  }
  i += 4;
  if (!out || out[0] !== 0x0a) continue;
  let fname = '';
  let pkg = '';
  const msgs = [];
  try {
    for (const [f, v] of fields(out)) {
      if (f === 1) fname = v.toString();
      else if (f === 2) pkg = v.toString();
      else if (f === 4) msgs.push(v);
    }
  } catch (e) {
    continue;
  }
  if (!WANT.some((w) => fname.startsWith(w))) continue;
  for (const m of msgs) message(m, pkg, table);
}
const keys = Object.keys(table).sort();
process.stdout.write('{\n' + keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(table[k])}`).join(',\n') + '\n}\n');
