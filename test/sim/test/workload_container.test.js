'use strict';
// Container mode of the simulated kubelet: how `podman create` arguments follow a pod spec, the
// kubelet's image pull policy (ErrImageNeverPull), runAsNonRoot against the image's user, the
// in-cluster credentials, and Deployments that run pods. A fake runtime stands in for podman
// (its containers are `sh -c` processes), so these tests need no container engine; e2e 76 runs
// the real one.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { cluster, waitFor, cond, pod } = require('../workload/testkit');
const P = require('../workload/podman');

const b64 = (s) => Buffer.from(s).toString('base64');
const getPod = (c, name, ns = 'default') => c.store.get('core/pods', ns, name);
const waiting = (p) => p && p.status && p.status.containerStatuses && p.status.containerStatuses[0].state.waiting;

// The runner pod the operator builds (pkg/api/manifest.c), reduced to what matters here.
const runnerPod = {
  metadata: { name: 'br-run-0-abcde', namespace: 'bench' },
  spec: {
    securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{
      name: 'runner',
      image: 'ghcr.io/pgbench-operator/runner:0.1.0',
      command: ['/usr/local/bin/pgbench-runner'],
      securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, privileged: false, capabilities: { drop: ['ALL'] } },
    }],
  },
};

test('podman args: the restricted runner pod (user, fsGroup, read-only root, no capabilities, no-new-privileges, default seccomp)', () => {
  const args = P.podmanCreateArgs(runnerPod, runnerPod.spec.containers[0], {
    name: 'k8s_runner_x',
    image: 'ghcr.io/pgbench-operator/runner:0.1.0',
    envNames: ['PGPASSWORD', 'PGHOST'],
    mounts: [{ host: '/h/term', container: '/dev/termination-log' }, { host: '/h/tmp', container: '/tmp' }, { host: '/h/ca', container: '/etc/pgbench/ca', readOnly: true }],
    hostname: 'br-run-0',
    command: ['/usr/local/bin/pgbench-runner'],
    args: ['pgbench', 'run', '--clients=2'],
  });
  assert.deepEqual(args, [
    'create', '--name', 'k8s_runner_x', '--pull', 'never', '--network', 'host', '--hostname', 'br-run-0',
    '--user', '65532:65532', '--group-add', '65532',
    '--read-only', '--read-only-tmpfs=false',
    '--cap-drop', 'all',
    '--security-opt', 'no-new-privileges',
    '--env', 'PGPASSWORD', '--env', 'PGHOST',
    '--volume', '/h/term:/dev/termination-log', '--volume', '/h/tmp:/tmp', '--volume', '/h/ca:/etc/pgbench/ca:ro',
    '--entrypoint', '["/usr/local/bin/pgbench-runner"]',
    'ghcr.io/pgbench-operator/runner:0.1.0', 'pgbench', 'run', '--clients=2',
  ]);
});

test('podman args: container settings win over the pod\'s; unset seccomp is Unconfined; args alone keep the ENTRYPOINT', () => {
  const p = {
    metadata: { name: 'p' },
    spec: { securityContext: { runAsUser: 1000, supplementalGroups: [5, 6] }, containers: [] },
  };
  const spec = { name: 'c', image: 'img:1', workingDir: '/w', securityContext: { runAsUser: 2000, capabilities: { add: ['NET_ADMIN'], drop: ['MKNOD'] } } };
  const args = P.podmanCreateArgs(p, spec, { name: 'n', image: 'img:1', args: ['--flag'], envInline: { PATH: '/x' } });
  assert.deepEqual(args, [
    'create', '--name', 'n', '--pull', 'never', '--network', 'host',
    '--user', '2000', '--group-add', '5', '--group-add', '6',
    '--cap-drop', 'MKNOD', '--cap-add', 'NET_ADMIN',
    '--security-opt', 'seccomp=unconfined',
    '--env', 'PATH=/x',
    '--workdir', '/w',
    'img:1', '--flag',
  ]);
  const local = P.podmanCreateArgs({ metadata: { name: 'p' }, spec: { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'prof.json' } } } },
    { name: 'c' }, { name: 'n', image: 'i', seccompDir: '/var/lib/kubelet/seccomp' });
  assert.ok(local.join(' ').includes('--security-opt seccomp=/var/lib/kubelet/seccomp/prof.json'), local.join(' '));
  assert.throws(() => P.podmanCreateArgs({ metadata: {}, spec: { securityContext: { runAsGroup: 5 } } }, { name: 'c' }, { name: 'n', image: 'i' }), /runAsGroup/);
});

test('pull policy: Never + absent is ErrImageNeverPull; the default policy follows the tag', () => {
  assert.deepEqual(P.pullDecision({ image: 'r:1', imagePullPolicy: 'Never' }, false),
    { reason: 'ErrImageNeverPull', message: 'Container image "r:1" is not present with pull policy of Never' });
  assert.equal(P.pullDecision({ image: 'r:1', imagePullPolicy: 'Never' }, true), 'run');
  assert.equal(P.pullDecision({ image: 'r:1', imagePullPolicy: 'IfNotPresent' }, true), 'run');
  assert.equal(P.pullDecision({ image: 'r:1', imagePullPolicy: 'IfNotPresent' }, false), 'pull');
  assert.equal(P.pullDecision({ image: 'r:1', imagePullPolicy: 'Always' }, true), 'pull');
  assert.equal(P.pullDecision({ image: 'r:latest' }, true), 'pull');
  assert.equal(P.pullDecision({ image: 'reg:5000/r' }, true), 'pull');
  assert.equal(P.pullDecision({ image: 'reg:5000/r:2' }, true), 'run');
});

test('runAsNonRoot is checked against runAsUser, else the image\'s USER', () => {
  const p = (sc) => ({ metadata: { name: 'p' }, spec: { securityContext: sc } });
  const c = { name: 'c' };
  assert.equal(P.checkRunAsNonRoot(p({ runAsNonRoot: true, runAsUser: 65532 }), c, ''), null);
  assert.match(P.checkRunAsNonRoot(p({ runAsNonRoot: true, runAsUser: 0 }), c, '65532'), /runAsUser breaks non-root policy/);
  assert.match(P.checkRunAsNonRoot(p({ runAsNonRoot: true }), c, ''), /image will run as root/);
  assert.match(P.checkRunAsNonRoot(p({ runAsNonRoot: true }), c, 'nobody'), /non-numeric user \(nobody\)/);
  assert.equal(P.checkRunAsNonRoot(p({ runAsNonRoot: true }), c, '65532:65532'), null);
  assert.equal(P.checkRunAsNonRoot(p({}), c, ''), null);
});

// A runtime with podman's interface whose containers are local `sh -c` processes running the
// container's last argument; it records what it was asked.
function fakeRuntime(images) {
  const rt = {
    instance: 'test',
    images,
    creates: [],
    children: {},
    exits: {},
    async image(img) {
      return images[img] === undefined ? { present: false, user: '' } : { present: true, user: images[img], id: `id-of-${img}` };
    },
    async pull() {
      return 'pull access denied';
    },
    async create(args, env) {
      rt.creates.push({ args, env });
      return { id: `id${rt.creates.length}` };
    },
    start(name, fd) {
      const { args, env } = rt.creates.find((x) => x.args[2] === name);
      const vols = [];
      for (let i = 0; i < args.length; i++) if (args[i] === '--volume') vols.push(args[i + 1].split(':'));
      // the script sees the mounts through the env variables M_<container path>
      const menv = {};
      for (const [h, ctr] of vols) menv[`M${ctr.replace(/[^A-Za-z0-9]/g, '_')}`] = h;
      const child = spawn('/bin/sh', ['-c', args[args.length - 1]], { env: Object.assign({ PATH: process.env.PATH }, env, menv), stdio: ['ignore', fd, fd], detached: true });
      child.on('exit', (code, sig) => { rt.exits[name] = code === null ? 128 + require('os').constants.signals[sig] : code; });
      rt.children[name] = child;
      return child;
    },
    async state(name) {
      return { exitCode: rt.exits[name], error: '' };
    },
    kill(name, sig) {
      try {
        process.kill(-rt.children[name].pid, sig);
      } catch (_) {
        // gone
      }
    },
    remove() {},
    removeAllSync() {},
  };
  return rt;
}

test('container mode: an image absent with pull policy Never waits in ErrImageNeverPull (event), then starts once the image is there', async (t) => {
  const runtime = fakeRuntime({});
  const c = cluster({ containerMode: true, runtime });
  t.after(() => c.close());
  c.store.create('core/pods', pod('np', {
    automountServiceAccountToken: false,
    containers: [{ name: 'c', image: 'r:1', imagePullPolicy: 'Never', command: ['sh'], args: ['echo ran > "$M_dev_termination_log"'] }],
  }));
  const p = await waitFor(() => { const x = getPod(c, 'np'); return waiting(x) && waiting(x).reason === 'ErrImageNeverPull' && x; }, 'ErrImageNeverPull');
  assert.equal(waiting(p).message, 'Container image "r:1" is not present with pull policy of Never');
  assert.equal(p.status.phase, 'Pending');
  assert.equal(cond(p, 'Ready').reason, 'ContainersNotReady');
  assert.equal(runtime.creates.length, 0, 'no container is created');
  const evs = c.store.list('core/events', 'default').filter((e) => e.involvedObject.name === 'np' && e.reason === 'ErrImageNeverPull');
  assert.equal(evs.length, 1);
  assert.equal(evs[0].type, 'Warning');
  runtime.images['r:1'] = '65532';
  const done = await waitFor(() => { const x = getPod(c, 'np'); return x.status.phase === 'Succeeded' && x; }, 'the pod to run once the image exists', 5000);
  assert.equal(done.status.containerStatuses[0].state.terminated.message, 'ran\n');
  // IfNotPresent with a failing pull: ErrImagePull, then ImagePullBackOff
  c.store.create('core/pods', pod('pull', { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'r:2', imagePullPolicy: 'IfNotPresent', command: ['sh'] }] }));
  const w = await waitFor(() => { const x = getPod(c, 'pull'); return waiting(x) && waiting(x).reason === 'ErrImagePull' && waiting(x); }, 'ErrImagePull');
  assert.match(w.message, /failed to pull and unpack image "r:2": pull access denied/);
  await waitFor(() => { const x = getPod(c, 'pull'); return waiting(x) && waiting(x).reason === 'ImagePullBackOff'; }, 'ImagePullBackOff', 5000);
});

test('container mode: env values go through podman\'s environment, not argv; runAsNonRoot against the image; in-cluster credentials', async (t) => {
  const runtime = fakeRuntime({ 'r:1': '', 'r:2': '65532' });
  const issued = [];
  const c = cluster({
    containerMode: true,
    runtime,
    apiServer: { host: '127.0.0.1', port: 6443, ca: 'CA PEM' },
    issueToken: (ns, sa) => {
      issued.push(`${ns}/${sa}`);
      return c.store.get('core/serviceaccounts', ns, sa) ? `tok-${sa}` : null;
    },
  });
  t.after(() => c.close());
  c.store.create('core/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pg', namespace: 'default' }, data: { password: b64('s3cr3t') } });
  // image runs as root, pod says runAsNonRoot: CreateContainerConfigError, nothing created
  c.store.create('core/pods', pod('root', { securityContext: { runAsNonRoot: true }, containers: [{ name: 'c', image: 'r:1', command: ['sh'] }] }));
  const w = await waitFor(() => { const x = getPod(c, 'root'); return waiting(x) && waiting(x).reason === 'CreateContainerConfigError' && waiting(x); }, 'CreateContainerConfigError');
  assert.match(w.message, /container has runAsNonRoot and image will run as root/);
  assert.equal(runtime.creates.length, 0);

  c.store.create('core/pods', pod('op', {
    securityContext: { runAsNonRoot: true },
    containers: [{
      name: 'c', image: 'r:2', command: ['sh'],
      args: ['cat "$M_var_run_secrets_kubernetes_io_serviceaccount/token" "$M_var_run_secrets_kubernetes_io_serviceaccount/namespace" > "$M_dev_termination_log"; echo "|$PGPASSWORD|$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT|$POD" >> "$M_dev_termination_log"'],
      env: [
        { name: 'PGPASSWORD', valueFrom: { secretKeyRef: { name: 'pg', key: 'password' } } },
        { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
    }],
  }));
  const p = await waitFor(() => { const x = getPod(c, 'op'); return x.status && x.status.phase === 'Succeeded' && x; }, 'the pod to finish', 5000);
  assert.equal(p.status.containerStatuses[0].state.terminated.message, 'tok-defaultdefault|s3cr3t|127.0.0.1:6443|op\n');
  assert.deepEqual(issued, ['default/default', 'default/default'], 'a token for each pod (root too: volumes come first)');
  const { args, env } = runtime.creates[0];
  assert.ok(!args.some((a) => a.includes('s3cr3t')), `a secret in argv: ${args.join(' ')}`);
  assert.equal(env.PGPASSWORD, 's3cr3t');
  assert.ok(args.includes('PGPASSWORD') && args.includes('KUBERNETES_SERVICE_HOST'));
  const sa = args[args.indexOf('--volume', args.findIndex((a) => a.endsWith(':/var/run/secrets/kubernetes.io/serviceaccount:ro')) - 1) + 1];
  assert.match(sa, /:\/var\/run\/secrets\/kubernetes.io\/serviceaccount:ro$/);
  assert.equal(fs.readFileSync(path.join(sa.split(':')[0], 'ca.crt'), 'utf8'), 'CA PEM');
  assert.match(p.status.containerStatuses[0].containerID, /^containerd:\/\/id\d+$/);
  assert.equal(p.status.containerStatuses[0].imageID, 'sha256:id-of-r:2');
});

test('container mode: a Deployment runs its pods through a ReplicaSet and reports them available; scaled to 0 they go', async (t) => {
  const runtime = fakeRuntime({ 'r:1': '65532' });
  const c = cluster({ containerMode: true, runtime });
  t.after(() => c.close());
  c.store.create('apps/deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'op', namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'op' } },
      template: { metadata: { labels: { app: 'op' } }, spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'r:1', command: ['sh'], args: ['sleep 30'] }] } },
    },
  });
  const d = await waitFor(() => {
    const x = c.store.get('apps/deployments', 'default', 'op');
    return x.status && x.status.availableReplicas === 1 && x;
  }, 'the Deployment to be available');
  assert.equal(cond(d, 'Available').status, 'True');
  assert.equal(cond(d, 'Progressing').reason, 'NewReplicaSetAvailable');
  assert.equal(d.status.updatedReplicas, 1);
  assert.equal(d.status.observedGeneration, d.metadata.generation);
  const rss = c.store.list('apps/replicasets', 'default');
  assert.equal(rss.length, 1);
  const pods = c.store.list('core/pods', 'default', { labelSelector: 'app=op' });
  assert.equal(pods.length, 1);
  assert.equal(pods[0].metadata.ownerReferences[0].name, rss[0].metadata.name);
  assert.equal(pods[0].metadata.labels['pod-template-hash'], rss[0].metadata.labels['pod-template-hash']);
  assert.equal(pods[0].status.phase, 'Running');
  d.spec.replicas = 0;
  c.store.update('apps/deployments', d);
  await waitFor(() => c.store.list('core/pods', 'default', { labelSelector: 'app=op' }).length === 0, 'the pod to go');
});
