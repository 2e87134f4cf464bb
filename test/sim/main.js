#!/usr/bin/env node
'use strict';
// Simulated Kubernetes cluster: API server double + workload simulation.
//
//   node test/sim/main.js [--port 0] [--http] [--state FILE] [--kubeconfig PATH] [--host 127.0.0.1]
//                         [--no-cel] [--container-mode] [--verbose]
//
// Writes a kubeconfig (default $SIM_KUBECONFIG or build/sim/kubeconfig) and prints
// "READY <url>" on stdout once it is listening. See test/sim/README.md.

const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');
const { execFile } = require('child_process');
const { Store } = require('./store');
const { SimServer } = require('./server');

const ROOT = path.resolve(__dirname, '..', '..');

function usage(code) {
  process.stderr.write('usage: main.js [--port N] [--http] [--host ADDR] [--state FILE] [--kubeconfig PATH] [--no-cel] [--container-mode] [--verbose]\n');
  process.exit(code);
}

function parseArgs(argv) {
  const a = { cel: process.env.SIM_CEL !== '0', port: 0, http: false, host: '127.0.0.1', state: null, kubeconfig: process.env.SIM_KUBECONFIG || path.join(ROOT, 'build', 'sim', 'kubeconfig'), verbose: !!process.env.SIM_DEBUG, containerMode: process.env.SIM_CONTAINER_MODE === '1' };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) usage(2);
      return argv[++i];
    };
    if (k === '--port') a.port = Number(val());
    else if (k === '--http') a.http = true;
    else if (k === '--host') a.host = val();
    else if (k === '--state') a.state = path.resolve(val());
    else if (k === '--kubeconfig') a.kubeconfig = path.resolve(val());
    else if (k === '--verbose' || k === '-v') a.verbose = true;
    else if (k === '--no-cel') a.cel = false;
    else if (k === '--container-mode') a.containerMode = true;
    else if (k === '--help' || k === '-h') usage(0);
    else usage(2);
  }
  return a;
}

// A throwaway CA and a server certificate for 127.0.0.1/localhost (EC P-256: fast). Cached in
// build/sim/tls.json (one file, replaced atomically) for 20 days so a start needs no openssl.
async function makeTLS(dir, host, cacheFile) {
  if (cacheFile) {
    try {
      const st = fs.statSync(cacheFile);
      const c = JSON.parse(fs.readFileSync(cacheFile, 'utf8'));
      if (Date.now() - st.mtimeMs < 20 * 86400e3 && c.host === (host || '127.0.0.1')) {
        return { ca: Buffer.from(c.ca), key: Buffer.from(c.key), cert: Buffer.from(c.cert) };
      }
    } catch (e) {
      // no usable cache
    }
  }
  const ca = path.join(dir, 'ca');
  const srv = path.join(dir, 'server');
  const run = (args) => new Promise((resolve, reject) => {
    execFile('openssl', args, (err, stdout, stderr) => (err ? reject(new Error(`openssl: ${stderr || err.message}`)) : resolve()));
  });
  await run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', ca + '.key', '-out', ca + '.crt', '-days', '30', '-subj', '/CN=pgbench-sim-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const san = ['IP:127.0.0.1', 'DNS:localhost'];
  if (host && host !== '127.0.0.1' && host !== 'localhost') san.push(/^[\d.]+$/.test(host) ? `IP:${host}` : `DNS:${host}`);
  await run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', srv + '.key', '-out', srv + '.crt', '-days', '30', '-subj', '/CN=pgbench-sim-apiserver',
    '-CA', ca + '.crt', '-CAkey', ca + '.key',
    '-addext', `subjectAltName=${san.join(',')}`, '-addext', 'basicConstraints=critical,CA:FALSE',
    '-addext', 'extendedKeyUsage=serverAuth']);
  const out = {
    ca: fs.readFileSync(ca + '.crt'),
    key: fs.readFileSync(srv + '.key'),
    cert: fs.readFileSync(srv + '.crt'),
  };
  if (cacheFile) {
    try {
      fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify({ host: host || '127.0.0.1', ca: String(out.ca), key: String(out.key), cert: String(out.cert) }), { mode: 0o600 });
      fs.renameSync(tmp, cacheFile);
    } catch (e) {
      // caching is best effort
    }
  }
  return out;
}

function writeKubeconfig(file, url, token, caPem) {
  const cluster = { server: url };
  if (caPem) cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: sim',
    '  cluster:',
    `    server: ${url}`,
  ];
  if (caPem) lines.push(`    certificate-authority-data: ${cluster['certificate-authority-data']}`);
  lines.push(
    'users:',
    '- name: sim-admin',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: sim',
    '  context:',
    '    cluster: sim',
    '    user: sim-admin',
    '    namespace: default',
    'current-context: sim',
    'preferences: {}',
    '',
  );
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp${process.pid}`;
  fs.writeFileSync(tmp, lines.join('\n'), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

function loadWorkload(store, tmpDir, log, extra) {
  const idx = path.join(__dirname, 'workload', 'index.js');
  if (!fs.existsSync(idx)) {
    log('workload simulation not present (test/sim/workload/index.js): API only');
    return null;
  }
  try {
    const binPath = process.env.SIM_BIN_PATH || path.join(ROOT, 'build', 'bin');
    return require(idx).start(store, Object.assign({ binPath, tmpDir, log }, extra));
  } catch (e) {
    process.stderr.write(`sim: workload failed to start: ${e.stack}\n`);
    return null;
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const log = (m) => {
    if (args.verbose) process.stderr.write(`sim: ${m}\n`);
  };
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgbench-sim-'));
  // CEL for x-kubernetes-validations (async import); --no-cel / SIM_CEL=0 model an API server
  // that does not evaluate them (before 1.25, or with the feature off).
  const celReady = args.cel ? require('./lib/cel').load() : Promise.resolve(null);
  const store = new Store({ stateFile: args.state });
  store.on('error-log', (e) => process.stderr.write(`sim: store: ${e.stack || e}\n`));
  const token = crypto.randomBytes(24).toString('hex');
  let tls = null;
  if (!args.http) tls = await makeTLS(tmpDir, args.host, process.env.SIM_TLS_CACHE || path.join(ROOT, 'build', 'sim', 'tls.json'));
  let wl = null;
  const server = new SimServer({ store, token, tls, host: args.host, port: args.port, workload: () => wl, log });
  if ((await celReady) === false) process.stderr.write('sim: @marcbachmann/cel-js not installed: x-kubernetes-validations are NOT evaluated\n');
  const url = await server.listen();
  writeKubeconfig(args.kubeconfig, url, token, tls && tls.ca);
  // container mode: pods run from their images (podman) and reach the API server in-cluster
  let extra = { containerMode: false };
  if (args.containerMode) {
    if (!require('./workload/podman').PodmanRuntime.available()) {
      process.stderr.write('sim: --container-mode runs pods with podman, which is not installed (make deps installs it)\n');
      process.exit(2);
    }
    const u = new URL(url);
    extra = {
      containerMode: true,
      apiServer: { host: u.hostname, port: Number(u.port), ca: tls ? String(tls.ca) : '' },
      issueToken: (ns, sa) => server.issueToken(ns, sa),
    };
  }
  wl = loadWorkload(store, tmpDir, log, extra);
  process.stdout.write(`READY ${url}\n`);
  // Warm up the validation models so the first request is not slow.
  setImmediate(() => require('./lib/builtin').preload());

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      if (wl && wl.stop) await wl.stop();
    } catch (e) {
      process.stderr.write(`sim: workload stop: ${e.stack}\n`);
    }
    try {
      store.save();
    } catch (e) {
      process.stderr.write(`sim: saving state: ${e.message}\n`);
    }
    await server.close();
    fs.rmSync(tmpDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', stop);
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`sim: ${e.stack || e}\n`);
    process.exit(1);
  });
}

module.exports = { makeTLS, writeKubeconfig, parseArgs };
