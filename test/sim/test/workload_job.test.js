'use strict';
// Job controller behaviour against the upstream controller (pkg/controller/job, 1.31+).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { cluster, waitFor, cond, job, jobPods } = require('../workload/testkit');

const getJob = (c, name) => c.store.get('batch/jobs', 'default', name);

test('Indexed Job of three pods runs a local command to completion, termination messages in pod status', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('batch/jobs', job('ix', { completionMode: 'Indexed', completions: 3, parallelism: 3 }, {
    containers: [{ name: 'worker', image: 'ignored:latest', command: ['/bin/sh', '-c', 'echo "worker $JOB_COMPLETION_INDEX on $HOSTNAME"; echo "index=$JOB_COMPLETION_INDEX" > /dev/termination-log'] }],
  }));
  const j = await waitFor(() => { const x = getJob(c, 'ix'); return cond(x, 'Complete') && x; }, 'Job Complete');
  const complete = cond(j, 'Complete');
  assert.equal(complete.status, 'True');
  assert.equal(complete.reason, 'CompletionsReached');
  assert.equal(complete.message, 'Reached expected number of succeeded pods');
  assert.equal(cond(j, 'SuccessCriteriaMet').status, 'True');
  assert.equal(j.status.succeeded, 3);
  assert.equal(j.status.completedIndexes, '0-2');
  assert.equal(j.status.active, undefined);
  assert.equal(j.status.ready, 0);
  assert.ok(j.status.startTime && j.status.completionTime);

  const pods = jobPods(c.store, 'default', 'ix');
  assert.equal(pods.length, 3);
  const seen = new Set();
  for (const p of pods) {
    const ix = p.metadata.annotations['batch.kubernetes.io/job-completion-index'];
    seen.add(ix);
    assert.match(p.metadata.name, new RegExp(`^ix-${ix}-[a-z0-9]{5}$`));
    assert.equal(p.spec.hostname, `ix-${ix}`);
    assert.equal(p.metadata.labels['batch.kubernetes.io/controller-uid'], j.metadata.uid);
    assert.equal(p.metadata.labels['controller-uid'], j.metadata.uid);
    assert.equal(p.metadata.labels['job-name'], 'ix');
    assert.equal(p.metadata.labels.app, 'ix');
    assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'Job', name: 'ix', uid: j.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.equal(p.metadata.finalizers, undefined, 'tracking finalizer removed once counted');
    assert.equal(p.status.phase, 'Succeeded');
    const cs = p.status.containerStatuses[0];
    assert.equal(cs.state.terminated.exitCode, 0);
    assert.equal(cs.state.terminated.reason, 'Completed');
    assert.equal(cs.state.terminated.message, `index=${ix}\n`);
    assert.ok(cs.state.terminated.startedAt && cs.state.terminated.finishedAt && cs.containerID);
    assert.equal(c.wl.podLog('default', p.metadata.name), `worker ${ix} on ix-${ix}\n`);
  }
  assert.deepEqual([...seen].sort(), ['0', '1', '2']);
});

test('NonIndexed Job honours parallelism and completions', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  let maxActive = 0;
  c.store.on('event', (ev) => {
    if (ev.res === 'batch/jobs' && ev.object.metadata.name === 'par') maxActive = Math.max(maxActive, ev.object.status && ev.object.status.active || 0);
  });
  c.store.create('batch/jobs', job('par', { completions: 4, parallelism: 2 }, {
    containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'sleep 0.2'] }],
  }));
  const j = await waitFor(() => { const x = getJob(c, 'par'); return cond(x, 'Complete') && x; }, 'Job Complete');
  assert.equal(j.status.succeeded, 4);
  assert.equal(maxActive, 2);
  const pods = jobPods(c.store, 'default', 'par');
  assert.equal(pods.length, 4);
  for (const p of pods) assert.match(p.metadata.name, /^par-[a-z0-9]{5}$/);
});

test('backoffLimit: failed pods are replaced until the limit, then Failed/BackoffLimitExceeded', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('batch/jobs', job('bo', { backoffLimit: 2 }, {
    containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'echo boom >&2; exit 3'] }],
  }));
  const j = await waitFor(() => { const x = getJob(c, 'bo'); return cond(x, 'Failed') && x; }, 'Job Failed');
  const failed = cond(j, 'Failed');
  assert.equal(failed.reason, 'BackoffLimitExceeded');
  assert.equal(failed.message, 'Job has reached the specified backoff limit');
  assert.equal(cond(j, 'FailureTarget').reason, 'BackoffLimitExceeded');
  assert.equal(cond(j, 'Complete'), null);
  assert.equal(j.status.failed, 3, 'backoffLimit 2 -> the third failure fails the Job');
  assert.equal(j.status.completionTime, undefined, 'completionTime is only set on success');
  const pods = jobPods(c.store, 'default', 'bo');
  assert.equal(pods.length, 3, 'restartPolicy Never: a new pod per failure');
  for (const p of pods) {
    assert.equal(p.status.phase, 'Failed');
    const term = p.status.containerStatuses[0].state.terminated;
    assert.equal(term.exitCode, 3);
    assert.equal(term.reason, 'Error');
  }
});

test('activeDeadlineSeconds: running pods are killed, Failed/DeadlineExceeded', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  const pidFile = path.join(c.tmpDir, 'pid');
  const created = Date.now();
  c.store.create('batch/jobs', job('dl', { activeDeadlineSeconds: 1 }, {
    containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', `echo $$ > ${pidFile}; exec sleep 30`] }],
  }));
  const j = await waitFor(() => { const x = getJob(c, 'dl'); return cond(x, 'Failed') && x; }, 'Job Failed', 8000);
  assert.equal(cond(j, 'Failed').reason, 'DeadlineExceeded');
  assert.equal(cond(j, 'Failed').message, 'Job was active longer than specified deadline');
  assert.equal(j.status.failed, 1);
  assert.equal(j.status.active, undefined);
  const elapsed = Date.now() - created;
  assert.ok(elapsed >= 1000 && elapsed < 4000, `failed after ${elapsed}ms`);
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  await waitFor(() => {
    try {
      process.kill(pid, 0);
      return false;
    } catch (_) {
      return true;
    }
  }, 'the sleep process to be killed', 5000);
});

test('ttlSecondsAfterFinished deletes the finished Job and its pods', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  let deletedAt = 0;
  let podsLeft = -1;
  let policyFinalizer = false;
  let complete = null;
  c.store.on('event', (ev) => {
    if (ev.res !== 'batch/jobs' || ev.object.metadata.name !== 'ttl') return;
    if ((ev.object.metadata.finalizers || []).includes('foregroundDeletion')) policyFinalizer = true;
    if (!complete && cond(ev.object, 'Complete')) complete = cond(ev.object, 'Complete');
    if (ev.type === 'DELETED') {
      deletedAt = Date.now();
      podsLeft = jobPods(c.store, 'default', 'ttl').length;
    }
  });
  c.store.create('batch/jobs', job('ttl', { ttlSecondsAfterFinished: 1 }, {
    containers: [{ name: 'c', image: 'x', command: ['/bin/true'] }],
  }));
  await waitFor(() => complete, 'Job Complete');
  // As upstream, the TTL runs from the Complete condition's lastTransitionTime (second precision).
  const expiresAt = Date.parse(complete.lastTransitionTime) + 1000;
  await waitFor(() => !getJob(c, 'ttl'), 'Job deleted by TTL', 5000);
  assert.ok(deletedAt >= expiresAt, `deleted ${expiresAt - deletedAt}ms before the TTL expired`);
  // The TTL-after-finished controller deletes with Foreground propagation: pods go first.
  assert.ok(policyFinalizer, 'Job got the foregroundDeletion finalizer');
  assert.equal(podsLeft, 0);
  assert.equal(jobPods(c.store, 'default', 'ttl').length, 0);
});

test('suspend creates no pods; resuming starts them', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('batch/jobs', job('sus', { suspend: true }, {
    containers: [{ name: 'c', image: 'x', command: ['/bin/true'] }],
  }));
  const j = await waitFor(() => { const x = getJob(c, 'sus'); return cond(x, 'Suspended') && x; }, 'Suspended condition');
  assert.equal(cond(j, 'Suspended').status, 'True');
  assert.equal(cond(j, 'Suspended').reason, 'JobSuspended');
  assert.equal(j.status.startTime, undefined);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(jobPods(c.store, 'default', 'sus').length, 0);
  const cur = getJob(c, 'sus');
  cur.spec.suspend = false;
  c.store.update('batch/jobs', cur);
  const done = await waitFor(() => { const x = getJob(c, 'sus'); return cond(x, 'Complete') && x; }, 'Complete after resume');
  assert.equal(cond(done, 'Suspended').status, 'False');
  assert.equal(cond(done, 'Suspended').reason, 'JobResumed');
  assert.equal(done.status.succeeded, 1);
});

test('deleting a running Job pod counts as a failure and the pod is replaced', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('batch/jobs', job('rep', { backoffLimit: 5 }, {
    containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'sleep 30'] }],
  }));
  const first = await waitFor(() => jobPods(c.store, 'default', 'rep').find((p) => p.status && p.status.phase === 'Running'), 'running pod');
  const before = await waitFor(() => { const x = getJob(c, 'rep'); return x.status && x.status.ready === 1 && x; }, 'status.ready 1');
  assert.equal(before.status.active, 1);
  assert.equal(before.status.failed, undefined);
  c.store.delete('core/pods', 'default', first.metadata.name, { propagationPolicy: 'Background', graceful: true });
  const j = await waitFor(() => { const x = getJob(c, 'rep'); return x.status && x.status.failed === 1 && x.status.active === 1 && x; }, 'replacement');
  const pods = jobPods(c.store, 'default', 'rep');
  assert.equal(pods.length, 1);
  assert.notEqual(pods[0].metadata.name, first.metadata.name);
  assert.equal(j.status.failed, 1);
});

test('restartPolicy OnFailure: container restarts count against backoffLimit', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('batch/jobs', job('onf', { backoffLimit: 2 }, {
    restartPolicy: 'OnFailure',
    containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'exit 1'] }],
  }));
  const j = await waitFor(() => { const x = getJob(c, 'onf'); return cond(x, 'Failed') && x; }, 'Job Failed', 8000);
  assert.equal(cond(j, 'Failed').reason, 'BackoffLimitExceeded');
  // One pod, restarted in place, then deleted by the controller (counted as failed).
  assert.equal(j.status.failed, 1);
});

test('simulator restart with persisted state: started pods are lost as on a rebooted node, the Job replaces them', async (t) => {
  const os = require('os');
  const { Store } = require('../store');
  const workload = require('../workload');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-restart-'));
  const stateFile = path.join(dir, 'state.json');
  const opts = { tmpDir: path.join(dir, 'wl'), jobBackoffMs: 50, maxGraceSeconds: 1 };
  const s1 = new Store({ stateFile });
  const wl1 = workload.start(s1, opts);
  s1.create('batch/jobs', job('persist', { backoffLimit: 3 }, { containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'sleep 30'] }] }));
  const p1 = await waitFor(() => jobPods(s1, 'default', 'persist').find((p) => p.status && p.status.phase === 'Running'), 'running pod');
  s1.save();
  await wl1.stop();
  const s2 = new Store({ stateFile });
  const wl2 = workload.start(s2, opts);
  t.after(async () => {
    await wl2.stop();
    // Pending debounced saves must not write into the removed directory.
    s1.stateFile = null;
    s2.stateFile = null;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const lost = await waitFor(() => {
    const x = s2.get('core/pods', 'default', p1.metadata.name);
    return (!x || x.status.phase === 'Failed') && (x || true);
  }, 'old pod marked Failed');
  if (lost !== true) {
    assert.equal(lost.status.containerStatuses[0].state.terminated.reason, 'ContainerStatusUnknown');
  }
  const j = await waitFor(() => {
    const x = s2.get('batch/jobs', 'default', 'persist');
    return x.status && x.status.failed === 1 && x.status.active === 1 && x;
  }, 'replacement pod after restart');
  assert.equal(j.status.failed, 1);
  const running = await waitFor(() => jobPods(s2, 'default', 'persist').find((p) => p.metadata.name !== p1.metadata.name && p.status && p.status.phase === 'Running'), 'replacement running');
  assert.ok(running);
});

test('podFailurePolicy: FailJob on an exit code fails the Job at once; Ignore does not count the failure', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  const policy = { rules: [
    { action: 'FailJob', onExitCodes: { containerName: 'c', operator: 'In', values: [1] } },
    { action: 'Ignore', onExitCodes: { operator: 'In', values: [42] } },
  ] };
  c.store.create('batch/jobs', job('pfp', { backoffLimit: 6, podFailurePolicy: policy }, {
    containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'exit 1'] }],
  }));
  const j = await waitFor(() => { const x = getJob(c, 'pfp'); return cond(x, 'Failed') && x; }, 'Job Failed');
  const pods = jobPods(c.store, 'default', 'pfp');
  assert.equal(pods.length, 1, 'no retry after a FailJob match');
  assert.equal(cond(j, 'Failed').reason, 'PodFailurePolicy');
  assert.equal(cond(j, 'Failed').message, `Container c for pod default/${pods[0].metadata.name} failed with exit code 1 matching FailJob rule at index 0`);
  assert.equal(cond(j, 'FailureTarget').reason, 'PodFailurePolicy');
  assert.equal(j.status.failed, 1);

  const flag = path.join(c.tmpDir, 'ign');
  c.store.create('batch/jobs', job('pfi', { backoffLimit: 0, podFailurePolicy: policy }, {
    containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', `if [ -e ${flag} ]; then exit 0; fi; touch ${flag}; exit 42`] }],
  }));
  const k = await waitFor(() => { const x = getJob(c, 'pfi'); return (cond(x, 'Complete') || cond(x, 'Failed')) && x; }, 'Job finished');
  assert.equal(cond(k, 'Complete') && cond(k, 'Complete').status, 'True', 'the ignored failure does not reach backoffLimit 0');
  assert.equal(k.status.failed, undefined);
  assert.equal(jobPods(c.store, 'default', 'pfi').length, 2);
});

test('a Job being deleted (Foreground) creates no replacement pods', async (t) => {
  const c = cluster({ jobBackoffMs: 0 });
  t.after(() => c.close());
  let created = 0;
  c.store.on('event', (ev) => {
    if (ev.type === 'ADDED' && ev.res === 'core/pods') created++;
  });
  c.store.create('batch/jobs', job('fgdel', { parallelism: 2, completions: 2, backoffLimit: 6 }, { containers: [{ name: 'c', image: 'x', command: ['/bin/sh', '-c', 'sleep 30'] }] }));
  await waitFor(() => jobPods(c.store, 'default', 'fgdel').filter((p) => p.status && p.status.phase === 'Running').length === 2, 'two running pods');
  c.store.delete('batch/jobs', 'default', 'fgdel', { propagationPolicy: 'Foreground' });
  await waitFor(() => !c.store.get('batch/jobs', 'default', 'fgdel'), 'Job gone');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(created, 2);
  assert.equal(jobPods(c.store, 'default', 'fgdel').length, 0);
});

test('a Job whose service account does not exist: FailedCreate naming the generateName (ServiceAccount admission runs before the name is made), retried; pods once the account exists', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('batch/jobs', job('nosa', { completionMode: 'Indexed', completions: 1, parallelism: 1 }, { serviceAccountName: 'bench', containers: [{ name: 'c', image: 'x', command: ['/bin/true'] }] }));
  const ev = await waitFor(() => c.store.list('core/events', 'default').find((e) => e.reason === 'FailedCreate' && e.involvedObject.name === 'nosa'), 'FailedCreate');
  assert.equal(ev.message, 'Error creating: pods "nosa-0-" is forbidden: error looking up service account default/bench: serviceaccount "bench" not found');
  assert.equal(ev.type, 'Warning');
  assert.equal(ev.source.component, 'job-controller');
  assert.deepEqual([ev.involvedObject.kind, ev.involvedObject.apiVersion], ['Job', 'batch/v1']);
  assert.equal(jobPods(c.store, 'default', 'nosa').length, 0);
  c.store.create('core/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bench', namespace: 'default' } });
  await waitFor(() => cond(c.store.get('batch/jobs', 'default', 'nosa'), 'Complete'), 'Job completes once the account exists', 20000);
});

test('a Job whose pods are all refused still starts (status.startTime) and ends at its activeDeadlineSeconds (syncJob writes status when manageJob fails)', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  c.store.create('batch/jobs', job('refused', { activeDeadlineSeconds: 1, backoffLimit: 0 }, { serviceAccountName: 'ghost', containers: [{ name: 'c', image: 'x', command: ['/bin/true'] }] }));
  const started = await waitFor(() => { const j = c.store.get('batch/jobs', 'default', 'refused'); return j.status && j.status.startTime && j; }, 'startTime despite FailedCreate');
  assert.equal(started.status.active, undefined);
  const failed = await waitFor(() => cond(c.store.get('batch/jobs', 'default', 'refused'), 'Failed'), 'DeadlineExceeded', 15000);
  assert.equal(failed.reason, 'DeadlineExceeded');
  assert.equal(failed.message, 'Job was active longer than specified deadline');
  assert.equal(jobPods(c.store, 'default', 'refused').length, 0);
  assert.equal(c.store.get('batch/jobs', 'default', 'refused').status.failed, undefined, 'no pod was ever counted');
});

test('Pod Security admission: a restricted namespace refuses the pods of a non-compliant Job (FailedCreate, upstream message) and admits compliant ones; baseline only refuses privileged', async (t) => {
  const c = cluster();
  t.after(() => c.close());
  const ns = (name, level) => c.store.create('core/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'pod-security.kubernetes.io/enforce': level } } });
  ns('locked', 'restricted');
  ns('base', 'baseline');
  const cmd = ['/bin/sh', '-c', 'exit 0'];
  c.store.create('batch/jobs', job('loose', {}, { containers: [{ name: 'c', image: 'x', command: cmd }] }, 'locked'));
  const ev = await waitFor(() => c.store.list('core/events', 'locked').find((e) => e.reason === 'FailedCreate'), 'FailedCreate event');
  assert.equal(ev.type, 'Warning');
  assert.match(ev.message, /^Error creating: pods "loose-[a-z0-9]{5}" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "c" must set securityContext\.allowPrivilegeEscalation=false\), unrestricted capabilities \(container "c" must set securityContext\.capabilities\.drop=\["ALL"\]\), runAsNonRoot != true \(pod or container "c" must set securityContext\.runAsNonRoot=true\), seccompProfile \(pod or container "c" must set securityContext\.seccompProfile\.type to "RuntimeDefault" or "Localhost"\)$/);
  assert.equal(jobPods(c.store, 'locked', 'loose').length, 0);

  const restricted = {
    securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'c', image: 'x', command: cmd, securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    volumes: [{ name: 'tmp', emptyDir: {} }],
  };
  c.store.create('batch/jobs', job('tight', {}, restricted, 'locked'));
  await waitFor(() => cond(c.store.get('batch/jobs', 'locked', 'tight'), 'Complete'), 'compliant Job completes');

  // baseline: no securityContext is fine, privileged and hostPath are not
  c.store.create('batch/jobs', job('plain', {}, { containers: [{ name: 'c', image: 'x', command: cmd }] }, 'base'));
  await waitFor(() => cond(c.store.get('batch/jobs', 'base', 'plain'), 'Complete'), 'baseline admits a plain pod');
  assert.throws(() => c.store.create('core/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'priv', namespace: 'base' },
    spec: { containers: [{ name: 'a', image: 'x', securityContext: { privileged: true } }], volumes: [{ name: 'h', hostPath: { path: '/' } }] },
  }), (e) => e.code === 403 && e.message === 'pods "priv" is forbidden: violates PodSecurity "baseline:latest": hostPath volumes (volume "h"), privileged (container "a" must not set securityContext.privileged=true)');
  // restricted: a container's own Unconfined seccomp profile is named with its type
  assert.throws(() => c.store.create('core/pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unconfined', namespace: 'locked' },
    spec: Object.assign({}, restricted, { containers: [{ name: 'c', image: 'x', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'Unconfined' } } }] }),
  }), (e) => e.code === 403 && e.message === 'pods "unconfined" is forbidden: violates PodSecurity "restricted:latest": seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")');
});
