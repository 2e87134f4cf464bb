#!/usr/bin/env node
// Evaluates the CRD's CEL rules (x-kubernetes-validations) on BenchmarkRun objects, offline.
//
// usage: scripts/validate-cel.mjs [--expect-fail] FILE.yaml...
//   Objects are defaulted and schema-checked by scripts/validate-crd.py --dump-defaulted first,
//   then every rule is evaluated where it is declared (self = that node; array items one by one),
//   with integers as CEL int (BigInt) and numbers as CEL double, as the API server types them.
//   Every rule is also compiled once on its own, so a syntax error fails even when no object
//   reaches it.
// Output: one line per object, "ok NAME" or "REFUSED NAME: path: message".
// Exit: 0 when every object is valid (or, with --expect-fail, when every object is refused by
// the schema or a rule), 1 otherwise, 2 on usage or tooling errors.
//
// Needs @marcbachmann/cel-js (installed by scripts/fetch-cel.sh into build/tools-install).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const celPath = process.env.CEL_JS ||
  path.join(root, 'build/tools-install/node_modules/@marcbachmann/cel-js/lib/index.js');
let cel;
try {
  cel = await import(pathToFileURL(celPath).href);
} catch (e) {
  console.error(`validate-cel: cannot load ${celPath} (run scripts/fetch-cel.sh): ${e.message}`);
  process.exit(2);
}

const args = process.argv.slice(2);
const expectFail = args[0] === '--expect-fail';
const files = expectFail ? args.slice(1) : args;
const crdPath = process.env.CRD || path.join(root, 'crds/benchmarkrun.yaml');

// The CRD as JSON (python3 + PyYAML, already a dependency of the other checks).
const crd = JSON.parse(execFileSync('python3', ['-c',
  'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', crdPath]));
const schema = crd.spec.versions.find((v) => v.storage).schema.openAPIV3Schema;

// Compile every rule once.
let compileErrors = 0;
const compiled = new Map();
(function compileAll(node, where) {
  if (!node || typeof node !== 'object') return;
  for (const r of node['x-kubernetes-validations'] || []) {
    try {
      compiled.set(r.rule, cel.parse(r.rule));
    } catch (e) {
      console.error(`COMPILE ${where}: ${r.rule}: ${e.message}`);
      compileErrors++;
    }
  }
  for (const [k, v] of Object.entries(node.properties || {})) compileAll(v, `${where}.${k}`);
  if (node.items) compileAll(node.items, `${where}[]`);
  if (node.additionalProperties && typeof node.additionalProperties === 'object')
    compileAll(node.additionalProperties, `${where}.*`);
})(schema, 'root');
if (compileErrors) process.exit(2);

// Convert a JSON value to CEL values following the schema: integer -> BigInt.
function toCel(node, v) {
  if (v === null || v === undefined || !node) return v;
  if (node.type === 'integer' && typeof v === 'number') return BigInt(v);
  if (node.type === 'number' && typeof v === 'number') return v + 0.0;
  if (Array.isArray(v)) return v.map((x) => toCel(node.items, x));
  if (typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      const sub = (node.properties || {})[k] ||
        (typeof node.additionalProperties === 'object' ? node.additionalProperties : null);
      out[k] = sub ? toCel(sub, x) : x;
    }
    return out;
  }
  return v;
}

function check(node, value, where, problems) {
  if (value === undefined || value === null || !node) return;
  for (const r of node['x-kubernetes-validations'] || []) {
    let ok;
    try {
      ok = compiled.get(r.rule)({ self: toCel(node, value) });
    } catch (e) {
      problems.push(`${where}: rule "${r.rule}" failed to evaluate: ${e.message}`);
      continue;
    }
    if (ok !== true) problems.push(`${where}: ${r.message}`);
  }
  if (Array.isArray(value)) {
    value.forEach((x, i) => check(node.items, x, `${where}[${i}]`, problems));
  } else if (typeof value === 'object') {
    for (const [k, x] of Object.entries(value)) {
      const sub = (node.properties || {})[k];
      if (sub) check(sub, x, `${where}.${k}`, problems);
    }
  }
}

let bad = 0;
for (const f of files) {
  // Schema check + defaulting; a schema refusal counts as "refused" too.
  let out;
  let schemaErr = '';
  try {
    out = execFileSync('python3', [path.join(root, 'scripts/validate-crd.py'), '--crd', crdPath,
      '--dump-defaulted', f], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    out = e.stdout;
    schemaErr = (e.stderr || '').trim();
  }
  const objs = JSON.parse(out || '[]');
  if (objs.length === 0) {
    console.log(`REFUSED ${f}: no BenchmarkRun (${schemaErr})`);
    if (!expectFail) bad++;
    continue;
  }
  for (const { name, object } of objs) {
    const problems = [];
    if (schemaErr) problems.push(...schemaErr.split('\n').filter((l) => l.includes(name)));
    check(schema, object, 'BenchmarkRun', problems);
    if (problems.length === 0) {
      console.log(`ok ${name}`);
      if (expectFail) bad++;
    } else {
      console.log(`REFUSED ${name}: ${problems.join('; ')}`);
      if (!expectFail) bad++;
    }
  }
}
process.exit(bad ? 1 : 0);
