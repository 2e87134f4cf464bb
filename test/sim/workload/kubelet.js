'use strict';
// Simulated scheduler + kubelet + PVC binder: every Pod runs its containers' command+args as
// local processes (the image is ignored), or, in container mode (ctx.runtime, podman.js), from
// their images through podman.
//
// Mapping of container paths to the host (documented in test/sim/README.md, "Workload"):
// - each container runs with cwd = its workingDir if that is under a volume mount, else a
//   per-container temp dir; HOME points at that temp dir;
// - volumes (emptyDir, configMap, secret, PVC, downwardAPI, projected) are temp dirs; a PVC is a
//   directory per claim (by uid) under <tmpDir>/pvc that survives the pods using it;
// - since a process cannot see /mnt/x, every occurrence of a volumeMount's mountPath (and of the
//   terminationMessagePath) in command, args and env values is rewritten to the mapped host path
//   when it stands as a path: at the start of the value or after whitespace, '=', ':', a quote
//   or a shell redirection, and followed by '/', the end, or such a separator;
// - the terminationMessagePath (default /dev/termination-log) is a temp file, also given to the
//   process as SIM_TERMINATION_MESSAGE_PATH. It is read at exit with the kubelet's limits.
// - command[0]: an absolute path that exists on the host is run as is; otherwise its basename is
//   looked up in binPath (SIM_BIN_PATH), then in the container's PATH (or the host's).

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const U = require('./util');
const { CriLog, LogReader, CRI_MAX_LOG_LINE } = require('./crilog');
const P = require('./podman');
const S = require('./scheduler');

const MAX_CONTAINER_MSG = 4 * 1024; // kubecontainer.MaxContainerTerminationMessageLength
const MAX_POD_MSG = 12 * 1024; // kubecontainer.MaxPodTerminationMessageLogLength
const MAX_LOG_MSG = 2 * 1024; // MaxContainerTerminationMessageLogLength
const MAX_LOG_LINES = 80; // MaxContainerTerminationMessageLogLines
const DEFAULT_TERM_PATH = '/dev/termination-log';
const RETRY_MS = 1000;
const PVC_PROTECTION = 'kubernetes.io/pvc-protection';

const PASS_ENV = ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'MSAN_OPTIONS', 'LD_LIBRARY_PATH', 'LANG', 'LC_ALL', 'TZ'];

function isExecutable(p) {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch (_) {
    return false;
  }
}

function resolveExecutable(cmd0, binPath, envPath) {
  if (path.isAbsolute(cmd0) && isExecutable(cmd0)) return cmd0;
  const base = path.basename(cmd0);
  for (const d of binPath) {
    const p = path.join(d, base);
    if (isExecutable(p)) return p;
  }
  if (!cmd0.includes('/')) {
    for (const d of (envPath || '').split(':').filter(Boolean)) {
      const p = path.join(d, base);
      if (isExecutable(p)) return p;
    }
  }
  return null;
}

// $(VAR) expansion as in k8s.io/kubernetes/third_party/forked/golang/expansion: $$ escapes,
// unresolvable references are left as they are.
function expand(s, lookup) {
  if (typeof s !== 'string' || !s.includes('$')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== '$' || i + 1 >= s.length) {
      out += c;
      continue;
    }
    const n = s[i + 1];
    if (n === '$') {
      out += '$';
      i++;
    } else if (n === '(') {
      const end = s.indexOf(')', i + 2);
      if (end < 0) {
        out += s.slice(i);
        break;
      }
      const name = s.slice(i + 2, end);
      const v = lookup(name);
      out += v === undefined ? `$(${name})` : v;
      i = end;
    } else {
      out += c + n;
      i++;
    }
  }
  return out;
}

const escRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Rewrites container paths to host paths inside a string (see header comment).
function makeRewriter(mounts) {
  const sorted = mounts.filter((m) => m.from && m.from !== '/').sort((a, b) => b.from.length - a.from.length);
  if (!sorted.length) return (s) => s;
  const alt = sorted.map((m) => escRe(m.from.replace(/\/+$/, ''))).join('|');
  const re = new RegExp(`(^|[\\s='"<>:;(|&,])(${alt})(?=$|[/\\s'";)|&<>,])`, 'g');
  const map = new Map(sorted.map((m) => [m.from.replace(/\/+$/, ''), m.to]));
  return (s) => (typeof s === 'string' ? s.replace(re, (all, pre, p) => pre + map.get(p)) : s);
}

function b64(s) {
  return Buffer.from(s || '', 'base64');
}

// "ns/claim" of every claim a pod uses: the store's index "claim" on pods
function podClaims(pod) {
  return ((pod.spec && pod.spec.volumes) || []).filter((v) => v.persistentVolumeClaim)
    .map((v) => `${pod.metadata.namespace}/${v.persistentVolumeClaim.claimName}`);
}

function podKey(ns, name) {
  return `${ns}/${name}`;
}

class Kubelet {
  constructor(ctx) {
    this.store = ctx.store;
    if (!(this.store.indexes.get('core/pods') || new Map()).has('claim')) this.store.addIndex('core/pods', 'claim', podClaims);
    this.log = ctx.log;
    this.tmpDir = ctx.tmpDir;
    this.binPath = ctx.binPath;
    this.maxGraceSeconds = ctx.maxGraceSeconds;
    this.restartBackoffMs = ctx.restartBackoffMs;
    this.downwardDelayMs = ctx.downwardDelayMs || [0, 0]; // [min, max]
    this.nodeNames = S.nodeNames(ctx.nodes || 1); // the nodes this kubelet runs (scheduler.js)
    // container mode: a PodmanRuntime, the API server pods reach ({host, port, ca}) and
    // issueToken(ns, serviceAccount) for the in-cluster credentials the kubelet mounts
    this.runtime = ctx.runtime || null;
    this.apiServer = ctx.apiServer || null;
    this.issueToken = ctx.issueToken || null;
    this.pods = new Map(); // uid -> runtime
    this.queue = new U.WorkQueue('kubelet', (k) => this.sync(k), this.log);
    this.pvcQueue = new U.WorkQueue('pv-binder', (k) => this.syncPVC(k), this.log);
    this.stopped = false;
    fs.mkdirSync(path.join(this.tmpDir, 'pods'), { recursive: true });
    fs.mkdirSync(path.join(this.tmpDir, 'pvc'), { recursive: true });
    // containers run as other users (65532) and must reach their volumes under tmpDir
    if (this.runtime) fs.chmodSync(this.tmpDir, 0o755);
  }

  // ---------------------------------------------------------------- events
  onEvent(ev) {
    const o = ev.object;
    const md = o.metadata || {};
    switch (ev.res) {
      case 'core/pods':
        if (ev.type === 'DELETED') this.podGone(md.uid);
        this.queue.add(podKey(md.namespace, md.name));
        // as the scheduler's queueing hints: a pod gone may let a spread-constrained pod in
        if (ev.type === 'DELETED' || (o.metadata && o.metadata.deletionTimestamp)) this.requeueUnscheduled();
        if (ev.type === 'DELETED' || (o.status && (o.status.phase === 'Succeeded' || o.status.phase === 'Failed'))) {
          for (const v of (o.spec && o.spec.volumes) || []) {
            if (v.persistentVolumeClaim) this.pvcQueue.add(podKey(md.namespace, v.persistentVolumeClaim.claimName));
          }
        }
        break;
      case 'core/nodes':
        this.requeueUnscheduled();
        break;
      case 'core/secrets':
      case 'core/configmaps':
        for (const rt of this.pods.values()) if (rt.ns === md.namespace && rt.waiting) this.queue.add(podKey(rt.ns, rt.name));
        break;
      case 'core/persistentvolumeclaims':
        if (ev.type !== 'DELETED') this.pvcQueue.add(podKey(md.namespace, md.name));
        else if (this._warned) this._warned.delete(md.uid);
        // as the scheduler's queueing hints: only unscheduled pods that use this claim
        for (const p of this.store.list('core/pods', md.namespace, { index: ['claim', `${md.namespace}/${md.name}`], filter: (o) => !o.spec.nodeName })) {
          this.queue.add(podKey(md.namespace, p.metadata.name));
        }
        break;
      case 'storage.k8s.io/storageclasses':
        for (const c of this.store.list('core/persistentvolumeclaims', null)) {
          if (!c.status || c.status.phase !== 'Bound') this.pvcQueue.add(podKey(c.metadata.namespace, c.metadata.name));
        }
        break;
      default:
    }
  }

  resync() {
    this.registerNodes();
    for (const p of this.store.list('core/pods', null)) this.queue.add(podKey(p.metadata.namespace, p.metadata.name));
    for (const c of this.store.list('core/persistentvolumeclaims', null)) this.pvcQueue.add(podKey(c.metadata.namespace, c.metadata.name));
  }

  // ---------------------------------------------------------------- PVC binder
  defaultClass() {
    return this.store.list('storage.k8s.io/storageclasses', null).find((sc) => {
      const a = sc.metadata.annotations || {};
      return a['storageclass.kubernetes.io/is-default-class'] === 'true';
    }) || null;
  }

  // Returns {bound: bool, reason, message}. bindNow: a consumer pod exists (WaitForFirstConsumer).
  syncPVC(key, bindNow) {
    const [ns, name] = key.split('/');
    let pvc = this.store.get('core/persistentvolumeclaims', ns, name);
    if (!pvc) return { bound: false, missing: true };
    pvc = this.protectPVC(pvc);
    if (!pvc) return { bound: false, missing: true };
    if (pvc.status && pvc.status.phase === 'Bound') return { bound: true };
    if (pvc.metadata.deletionTimestamp) return { bound: false };
    let scName = pvc.spec.storageClassName;
    let sc = null;
    if (scName === undefined || scName === null) {
      sc = this.defaultClass();
      if (sc) {
        // The DefaultStorageClass admission plugin / retroactive default assignment.
        pvc.spec.storageClassName = sc.metadata.name;
        pvc = this.store.update('core/persistentvolumeclaims', pvc);
        scName = sc.metadata.name;
      }
    } else if (scName !== '') {
      sc = this.store.get('storage.k8s.io/storageclasses', null, scName);
      if (!sc) {
        if (!this._pvcWarned(pvc)) {
          U.recordEvent(this.store, Object.assign({ apiVersion: 'v1', kind: 'PersistentVolumeClaim' }, pvc), 'Warning', 'ProvisioningFailed',
            `storageclass.storage.k8s.io "${scName}" not found`, 'persistentvolume-controller');
        }
        this._setPVCPending(pvc);
        return { bound: false, reason: 'class', message: `storageclass.storage.k8s.io "${scName}" not found` };
      }
    }
    if (sc && sc.volumeBindingMode === 'WaitForFirstConsumer' && !bindNow) {
      this._setPVCPending(pvc);
      return { bound: false, wffc: true };
    }
    const volName = `pvc-${pvc.metadata.uid}`;
    pvc.spec.volumeName = volName;
    pvc.metadata.annotations = Object.assign({}, pvc.metadata.annotations, {
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
    });
    if (sc) {
      pvc.metadata.annotations['volume.beta.kubernetes.io/storage-provisioner'] = sc.provisioner;
      pvc.metadata.annotations['volume.kubernetes.io/storage-provisioner'] = sc.provisioner;
    }
    pvc = this.store.update('core/persistentvolumeclaims', pvc);
    const req = (pvc.spec.resources && pvc.spec.resources.requests) || {};
    pvc.status = {
      phase: 'Bound',
      accessModes: pvc.spec.accessModes || ['ReadWriteOnce'],
      capacity: { storage: req.storage || '1Gi' },
    };
    this.store.update('core/persistentvolumeclaims', pvc, { subresource: 'status' });
    mkdirWritable(this.pvcDir(pvc));
    return { bound: true };
  }

  // kubernetes.io/pvc-protection: added to every claim (upstream: admission plugin), removed by
  // the pvc-protection controller once the claim is being deleted and no running pod uses it.
  protectPVC(pvc) {
    const fins = pvc.metadata.finalizers || [];
    const has = fins.includes(PVC_PROTECTION);
    if (!pvc.metadata.deletionTimestamp) {
      if (has) return pvc;
      pvc.metadata.finalizers = fins.concat([PVC_PROTECTION]);
      return this.store.update('core/persistentvolumeclaims', pvc);
    }
    if (!has) return pvc;
    const inUse = this.store.list('core/pods', pvc.metadata.namespace, {
      index: ['claim', `${pvc.metadata.namespace}/${pvc.metadata.name}`],
      filter: (p) => p.spec.nodeName && !['Succeeded', 'Failed'].includes(p.status && p.status.phase),
    }).length > 0;
    if (inUse) return pvc;
    pvc.metadata.finalizers = fins.filter((f) => f !== PVC_PROTECTION);
    const r = this.store.update('core/persistentvolumeclaims', pvc);
    return r.metadata.deletionTimestamp && !(r.metadata.finalizers || []).length ? null : r;
  }

  _pvcWarned(pvc) {
    this._warned = this._warned || new Set();
    if (this._warned.has(pvc.metadata.uid)) return true;
    this._warned.add(pvc.metadata.uid);
    return false;
  }

  _setPVCPending(pvc) {
    if (pvc.status && pvc.status.phase === 'Pending') return;
    pvc.status = Object.assign({}, pvc.status, { phase: 'Pending' });
    this.store.update('core/persistentvolumeclaims', pvc, { subresource: 'status' });
  }

  pvcDir(pvc) {
    return path.join(this.tmpDir, 'pvc', pvc.metadata.namespace, `${pvc.metadata.name}-${pvc.metadata.uid.slice(0, 8)}`);
  }

  // ---------------------------------------------------------------- nodes and scheduling
  // Each node registers itself as a kubelet does (a Node object that exists is left as it is:
  // cordoned, tainted or edited by a test).
  registerNodes() {
    this.nodeNames.forEach((name, k) => {
      if (!this.store.get('core/nodes', null, name)) this.store.create('core/nodes', S.nodeObject(name, k, this.nodeNames.length));
    });
  }

  nodes() {
    return this.store.list('core/nodes', null).filter((n) => this.nodeNames.includes(n.metadata.name));
  }

  requeueUnscheduled() {
    for (const p of this.store.list('core/pods', null, { filter: (o) => !o.spec.nodeName && !o.metadata.deletionTimestamp })) {
      this.queue.add(podKey(p.metadata.namespace, p.metadata.name));
    }
  }

  // The node's InternalIP (pods share it: podIP = hostIP, as with hostNetwork).
  hostIP(pod) {
    return S.nodeIP(this.store.get('core/nodes', null, pod.spec.nodeName || this.nodeNames[0]));
  }

  // Returns null when schedulable, else the Unschedulable message.
  // Returns {node} or {message}: the Unschedulable message.
  checkSchedulable(pod) {
    const nodes = this.nodes();
    const n = nodes.length;
    for (const v of pod.spec.volumes || []) {
      if (!v.persistentVolumeClaim) continue;
      const claim = v.persistentVolumeClaim.claimName;
      const pvc = this.store.get('core/persistentvolumeclaims', pod.metadata.namespace, claim);
      const pre = ` preemption: 0/${n} nodes are available: ${n} Preemption is not helpful for scheduling.`;
      if (!pvc) return { message: `0/${n} nodes are available: persistentvolumeclaim "${claim}" not found.${pre}` };
      if (pvc.metadata.deletionTimestamp) return { message: `0/${n} nodes are available: persistentvolumeclaim "${claim}" is being deleted.${pre}` };
      if (!pvc.status || pvc.status.phase !== 'Bound') {
        const r = this.syncPVC(podKey(pod.metadata.namespace, claim), true);
        if (!r.bound) return { message: `0/${n} nodes are available: pod has unbound immediate PersistentVolumeClaims.${pre}` };
      }
    }
    return S.place(pod, nodes, this.store.list('core/pods', null));
  }

  schedule(pod) {
    const placed = this.checkSchedulable(pod);
    const msg = placed.message;
    if (msg) {
      const st = pod.status || {};
      const changed = U.setCondition(st, 'PodScheduled', 'False', 'Unschedulable', msg, { lastProbeTime: null });
      if (changed || st.phase !== 'Pending') {
        st.phase = 'Pending';
        st.qosClass = st.qosClass || qosClass(pod);
        pod.status = st;
        this.store.update('core/pods', pod, { subresource: 'status' });
        U.recordEvent(this.store, Object.assign({ apiVersion: 'v1', kind: 'Pod' }, pod), 'Warning', 'FailedScheduling', msg, 'default-scheduler');
      }
      return false;
    }
    const node = placed.node.metadata.name;
    pod.spec.nodeName = node;
    pod = this.store.update('core/pods', pod);
    const st = pod.status || {};
    U.setCondition(st, 'PodScheduled', 'True', null, null, { lastProbeTime: null });
    st.phase = st.phase || 'Pending';
    pod.status = st;
    this.store.update('core/pods', pod, { subresource: 'status' });
    U.recordEvent(this.store, Object.assign({ apiVersion: 'v1', kind: 'Pod' }, pod), 'Normal', 'Scheduled',
      `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node}`, 'default-scheduler');
    return true;
  }

  // ---------------------------------------------------------------- pod sync
  sync(key) {
    if (this.stopped) return;
    const [ns, name] = key.split('/');
    const pod = this.store.get('core/pods', ns, name);
    if (!pod) return;
    const uid = pod.metadata.uid;
    let rt = this.pods.get(uid);
    if (pod.metadata.deletionTimestamp) {
      if (rt) this.terminate(rt, pod);
      else this.finishDeletion(pod);
      return;
    }
    if (!pod.spec.nodeName) {
      this.schedule(pod);
      return;
    }
    if (!this.nodeNames.includes(pod.spec.nodeName)) return; // another (unknown) node runs it
    if (!rt) {
      const phase = pod.status && pod.status.phase;
      if (phase === 'Succeeded' || phase === 'Failed') return;
      rt = this.newRuntime(pod);
      if (!rt) return;
    }
    rt.pod = pod;
    if (rt.volumes) this.refreshDownwardAPI(rt);
    this.advance(rt);
  }

  // A downwardAPI volume follows the pod's labels and annotations: the real kubelet's syncPod
  // (run on every pod update) calls volumeManager.WaitForAttachAndMount, whose ReprocessPod
  // remounts the volumes that RequiresRemount ("Atomically updating volumes, like Downward API,
  // depend on this"); the AtomicWriter then swaps the ..data symlink. Same here, on every sync of a
  // running pod, when the payload changed, but not at once: the real node (Kubernetes v1.25, issue
  // 33) made an annotation visible in the file 0.05-1.17 s after it was set (the pod worker's
  // queue, the volume manager's reconciler loop), so a change is written after a delay drawn from
  // downwardDelayMs (SIM_DOWNWARD_DELAY_MS), with the pod as it is then (changes meanwhile are
  // written together, as the kubelet's next sync would).
  refreshDownwardAPI(rt) {
    if (rt.final || rt.killing || rt.downwardTimer) return;
    const changed = (rt.pod.spec.volumes || []).some((v) => v.downwardAPI && rt.volumes.has(v.name)
      && !sameAtomic(rt.volumes.get(v.name), downwardPayload(rt.pod, v.downwardAPI)));
    if (!changed) return;
    const [lo, hi] = this.downwardDelayMs;
    const ms = lo + Math.random() * (hi - lo);
    if (ms <= 0) return this.writeDownwardAPI(rt);
    rt.downwardTimer = setTimeout(() => {
      rt.downwardTimer = null;
      if (!this.stopped) this.writeDownwardAPI(rt);
    }, ms);
  }

  writeDownwardAPI(rt) {
    if (rt.final || rt.killing) return;
    for (const v of rt.pod.spec.volumes || []) {
      if (!v.downwardAPI || !rt.volumes.has(v.name)) continue;
      try {
        writeAtomic(rt.volumes.get(v.name), downwardPayload(rt.pod, v.downwardAPI));
      } catch (e) {
        this.log(`kubelet: downwardAPI volume ${v.name} of ${rt.ns}/${rt.name}: ${e.message}`);
      }
    }
  }

  // The start delay configured for this pod (POST /sim/start-delay): a cold image pull.
  startDelayMs(pod) {
    const md = pod.metadata || {};
    for (const r of this.startDelays || []) {
      if (r.namespace && r.namespace !== md.namespace) continue;
      if (r.namePrefix && !(md.name || '').startsWith(r.namePrefix)) continue;
      const labels = md.labels || {};
      if (r.labels && Object.entries(r.labels).some(([k, v]) => labels[k] !== v)) continue;
      return r.ms;
    }
    return 0;
  }

  // POST /sim/start-delay {rules: [{namespace?, namePrefix?, labels?: {k: v}, ms}]}: pods created
  // afterwards that match a rule (the first one) wait that long in ContainerCreating before their
  // containers start (a cold image pull: Pulling, then Pulled "Successfully pulled image"). An
  // empty list ends it.
  setStartDelays(body) {
    const rules = body && Array.isArray(body.rules) ? body.rules : null;
    if (!rules) return { code: 400, body: { message: 'start-delay: body must be {"rules": [{"namePrefix"|"labels"|"namespace", "ms"}]}' } };
    for (const r of rules) {
      const ok = r && typeof r === 'object' && Number.isFinite(Number(r.ms)) && Number(r.ms) >= 0
        && (r.labels === undefined || (r.labels && typeof r.labels === 'object' && !Array.isArray(r.labels)));
      if (!ok) return { code: 400, body: { message: `start-delay: invalid rule ${JSON.stringify(r)}` } };
    }
    this.startDelays = rules.map((r) => ({ namespace: r.namespace, namePrefix: r.namePrefix, labels: r.labels, ms: Number(r.ms) }));
    return { code: 200, body: { rules: this.startDelays } };
  }

  // True while the pod's simulated image pull lasts (the sync is queued again at its end).
  pulling(rt) {
    if (rt.pullUntil === undefined) {
      const ms = this.startDelayMs(rt.pod);
      rt.pullUntil = ms > 0 ? Date.now() + ms : 0;
      if (ms > 0) {
        const ref = Object.assign({ apiVersion: 'v1', kind: 'Pod' }, rt.pod);
        const image = ((rt.pod.spec.containers || [])[0] || {}).image || '';
        U.recordEvent(this.store, ref, 'Normal', 'Pulling', `Pulling image "${image}"`, 'kubelet');
        rt.pullMs = ms;
      }
    }
    const left = rt.pullUntil - Date.now();
    if (left <= 0) {
      if (rt.pullMs) {
        const ref = Object.assign({ apiVersion: 'v1', kind: 'Pod' }, rt.pod);
        const image = ((rt.pod.spec.containers || [])[0] || {}).image || '';
        U.recordEvent(this.store, ref, 'Normal', 'Pulled', `Successfully pulled image "${image}" in ${(rt.pullMs / 1000).toFixed(3)}s`, 'kubelet');
        rt.pullMs = 0;
      }
      return false;
    }
    if (!rt.pullTimer) {
      rt.pullTimer = setTimeout(() => {
        rt.pullTimer = null;
        this.queue.add(podKey(rt.ns, rt.name));
      }, left);
      rt.pullTimer.unref();
    }
    return true;
  }

  newRuntime(pod) {
    const md = pod.metadata;
    // A pod that was running before the simulator restarted (persisted state): its processes are
    // gone, as after a node reboot.
    const prev = (pod.status && pod.status.containerStatuses) || [];
    if (prev.some((c) => c.state && (c.state.running || c.state.terminated))) {
      this.markLost(pod);
      return null;
    }
    const dir = path.join(this.tmpDir, 'pods', `${md.namespace}_${md.name}_${md.uid.slice(0, 8)}`);
    fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
    const mk = (c, init) => ({
      name: c.name,
      init,
      spec: c,
      state: { waiting: { reason: init || !(pod.spec.initContainers || []).length ? 'ContainerCreating' : 'PodInitializing' } },
      lastState: {},
      restartCount: 0,
      proc: null,
      containerID: null,
      everStarted: false,
      done: false, // terminated and will not be restarted
      timer: null,
    });
    const rt = {
      uid: md.uid,
      ns: md.namespace,
      name: md.name,
      dir,
      pod,
      startTime: U.now(),
      volumes: null,
      init: (pod.spec.initContainers || []).map((c) => mk(c, true)),
      containers: (pod.spec.containers || []).map((c) => mk(c, false)),
      waiting: false,
      killing: false,
      final: false,
      retryTimer: null,
      mountWarned: false,
    };
    this.pods.set(md.uid, rt);
    return rt;
  }

  markLost(pod) {
    const t = U.now();
    const fix = (cs) => (cs || []).map((c) => {
      if (c.state && c.state.terminated) return c;
      return Object.assign({}, c, {
        ready: false,
        started: false,
        state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt: t } },
      });
    });
    pod.status.containerStatuses = fix(pod.status.containerStatuses);
    pod.status.initContainerStatuses = fix(pod.status.initContainerStatuses);
    if (!pod.status.initContainerStatuses.length) delete pod.status.initContainerStatuses;
    pod.status.phase = 'Failed';
    const allOk = (pod.status.containerStatuses || []).every((c) => c.state.terminated.exitCode === 0);
    if (allOk) pod.status.phase = 'Succeeded';
    this.store.update('core/pods', pod, { subresource: 'status' });
  }

  scheduleRetry(rt) {
    if (rt.retryTimer || rt.killing || rt.final) return;
    rt.retryTimer = setTimeout(() => {
      rt.retryTimer = null;
      this.queue.add(podKey(rt.ns, rt.name));
    }, RETRY_MS);
    rt.retryTimer.unref();
  }

  // Drive the pod forward: volumes, init containers in order, then the containers.
  advance(rt) {
    if (rt.killing || rt.final || this.stopped) return;
    rt.waiting = false;
    if (!rt.volumes) {
      const r = this.prepareVolumes(rt);
      if (r.error) {
        rt.waiting = true;
        if (!rt.mountWarned) {
          rt.mountWarned = true;
          U.recordEvent(this.store, Object.assign({ apiVersion: 'v1', kind: 'Pod' }, rt.pod), 'Warning', 'FailedMount', r.error, 'kubelet');
        }
        this.writeStatus(rt);
        this.scheduleRetry(rt);
        return;
      }
      rt.volumes = r.volumes;
    }
    if (this.pulling(rt)) {
      this.writeStatus(rt);
      return;
    }
    const policy = rt.pod.spec.restartPolicy || 'Always';
    for (const c of rt.init) {
      if (c.done && c.state.terminated && c.state.terminated.exitCode === 0) continue;
      if (c.done) break; // failed for good: pod fails below
      if (!c.proc && !c.timer && !c.pending) this.startContainer(rt, c, policy === 'Always' ? 'OnFailure' : policy);
      this.writeStatus(rt);
      return;
    }
    if (!rt.init.every((c) => c.done && c.state.terminated.exitCode === 0)) {
      this.writeStatus(rt);
      return;
    }
    for (const c of rt.containers) {
      if (c.done || c.proc || c.timer || c.pending) continue;
      this.startContainer(rt, c, policy);
    }
    this.writeStatus(rt);
  }

  // ---------------------------------------------------------------- volumes
  prepareVolumes(rt) {
    const pod = rt.pod;
    const ns = rt.ns;
    const volumes = new Map();
    const vdir = path.join(rt.dir, 'volumes');
    // configmap.MakePayload / secret.MakePayload: a missing key of `items` (not optional)
    const writeItems = (dir, data, items, optional, kind) => {
      fs.mkdirSync(dir, { recursive: true });
      if (items && items.length) {
        for (const it of items) {
          if (!(it.key in data)) {
            if (optional) continue;
            return kind === 'secret' ? `references non-existent secret key: ${it.key}` : `configmap references non-existent config key: ${it.key}`;
          }
          const p = path.join(dir, it.path);
          fs.mkdirSync(path.dirname(p), { recursive: true });
          fs.writeFileSync(p, data[it.key]);
          if (it.mode !== undefined) fs.chmodSync(p, it.mode);
        }
      } else {
        for (const [k, v] of Object.entries(data)) fs.writeFileSync(path.join(dir, k), v);
      }
      return null;
    };
    const cmData = (cm) => {
      const d = {};
      for (const [k, v] of Object.entries(cm.data || {})) d[k] = Buffer.from(v, 'utf8');
      for (const [k, v] of Object.entries(cm.binaryData || {})) d[k] = b64(v);
      return d;
    };
    const secData = (s) => {
      const d = {};
      for (const [k, v] of Object.entries(s.data || {})) d[k] = b64(v);
      for (const [k, v] of Object.entries(s.stringData || {})) d[k] = Buffer.from(v, 'utf8');
      return d;
    };
    for (const v of pod.spec.volumes || []) {
      const dir = path.join(vdir, v.name);
      if (v.persistentVolumeClaim) {
        const pvc = this.store.get('core/persistentvolumeclaims', ns, v.persistentVolumeClaim.claimName);
        if (!pvc || !pvc.status || pvc.status.phase !== 'Bound') {
          return { error: `Unable to attach or mount volumes: unmounted volumes=[${v.name}]: persistentvolumeclaim "${v.persistentVolumeClaim.claimName}" not bound` };
        }
        const d = this.pvcDir(pvc);
        mkdirWritable(d);
        volumes.set(v.name, d);
      } else if (v.configMap) {
        const cm = this.store.get('core/configmaps', ns, v.configMap.name);
        if (!cm) {
          if (v.configMap.optional) {
            fs.mkdirSync(dir, { recursive: true });
            volumes.set(v.name, dir);
            continue;
          }
          return { error: `MountVolume.SetUp failed for volume "${v.name}" : configmap "${v.configMap.name}" not found` };
        }
        const err = writeItems(dir, cmData(cm), v.configMap.items, v.configMap.optional);
        if (err) return { error: `MountVolume.SetUp failed for volume "${v.name}" : ${err}` };
        volumes.set(v.name, dir);
      } else if (v.secret) {
        const s = this.store.get('core/secrets', ns, v.secret.secretName);
        if (!s) {
          if (v.secret.optional) {
            fs.mkdirSync(dir, { recursive: true });
            volumes.set(v.name, dir);
            continue;
          }
          return { error: `MountVolume.SetUp failed for volume "${v.name}" : secret "${v.secret.secretName}" not found` };
        }
        const err = writeItems(dir, secData(s), v.secret.items, v.secret.optional, 'secret');
        if (err) return { error: `MountVolume.SetUp failed for volume "${v.name}" : ${err}` };
        volumes.set(v.name, dir);
      } else if (v.downwardAPI) {
        writeAtomic(dir, downwardPayload(pod, v.downwardAPI));
        volumes.set(v.name, dir);
      } else if (v.projected) {
        fs.mkdirSync(dir, { recursive: true });
        const sources = v.projected.sources || [];
        for (const src of sources) {
          if (src.downwardAPI) {
            for (const it of src.downwardAPI.items || []) {
              if (!it.fieldRef) continue;
              const val = fieldRefValue(pod, it.fieldRef.fieldPath);
              const p = path.join(dir, it.path);
              fs.mkdirSync(path.dirname(p), { recursive: true });
              fs.writeFileSync(p, val === undefined ? '' : val);
            }
          } else if (src.configMap) {
            const cm = this.store.get('core/configmaps', ns, src.configMap.name);
            if (!cm) {
              if (src.configMap.optional) continue;
              return { error: `MountVolume.SetUp failed for volume "${v.name}" : configmap "${src.configMap.name}" not found` };
            }
            writeItems(dir, cmData(cm), src.configMap.items, true);
          } else if (src.secret) {
            const s = this.store.get('core/secrets', ns, src.secret.name);
            if (!s) {
              if (src.secret.optional) continue;
              return { error: `MountVolume.SetUp failed for volume "${v.name}" : secret "${src.secret.name}" not found` };
            }
            writeItems(dir, secData(s), src.secret.items, true);
          } else if (src.serviceAccountToken) {
            fs.writeFileSync(path.join(dir, src.serviceAccountToken.path), 'sim-service-account-token');
          }
        }
        volumes.set(v.name, dir);
      } else if (v.hostPath) {
        volumes.set(v.name, v.hostPath.path);
      } else {
        // emptyDir and anything else the simulation cannot model: a scratch directory, mode
        // 0777 as the kubelet's emptyDir
        mkdirWritable(dir);
        volumes.set(v.name, dir);
      }
    }
    if (this.runtime && automountToken(this.store, pod)) {
      const r = this.writeServiceAccount(pod, path.join(vdir, 'kube-api-access'));
      if (r.error) return r;
      rt.saDir = r.dir;
    }
    return { volumes };
  }

  // In-cluster credentials as the kubelet mounts the projected kube-api-access volume that the
  // ServiceAccount admission plugin adds: token (accepted by the API server), ca.crt, namespace.
  writeServiceAccount(pod, dir) {
    const sa = pod.spec.serviceAccountName || 'default';
    const token = this.issueToken ? this.issueToken(pod.metadata.namespace, sa) : null;
    if (!token) return { error: `MountVolume.SetUp failed for volume "kube-api-access" : failed to fetch token: serviceaccounts "${sa}" not found` };
    writeAtomic(dir, { token, 'ca.crt': (this.apiServer && this.apiServer.ca) || '', namespace: pod.metadata.namespace });
    return { dir };
  }

  // The kubelet's environment for the master service (always set, whatever enableServiceLinks).
  serviceEnv() {
    if (!this.apiServer) return {};
    const { host, port } = this.apiServer;
    return {
      KUBERNETES_SERVICE_HOST: host,
      KUBERNETES_SERVICE_PORT: String(port),
      KUBERNETES_SERVICE_PORT_HTTPS: String(port),
      KUBERNETES_PORT: `tcp://${host}:${port}`,
      [`KUBERNETES_PORT_${port}_TCP`]: `tcp://${host}:${port}`,
      [`KUBERNETES_PORT_${port}_TCP_PROTO`]: 'tcp',
      [`KUBERNETES_PORT_${port}_TCP_PORT`]: String(port),
      [`KUBERNETES_PORT_${port}_TCP_ADDR`]: host,
    };
  }

  // ---------------------------------------------------------------- env
  // Returns {env} or {error: {reason, message}} (as kubelet's makeEnvironmentVariables).
  resolveEnv(pod, spec) {
    const ns = pod.metadata.namespace;
    const env = {};
    const secrets = new Map();
    const cms = new Map();
    const getSecret = (name) => {
      if (!secrets.has(name)) secrets.set(name, this.store.get('core/secrets', ns, name));
      return secrets.get(name);
    };
    const getCM = (name) => {
      if (!cms.has(name)) cms.set(name, this.store.get('core/configmaps', ns, name));
      return cms.get(name);
    };
    for (const ef of spec.envFrom || []) {
      const prefix = ef.prefix || '';
      if (ef.configMapRef) {
        const cm = getCM(ef.configMapRef.name);
        if (!cm) {
          if (ef.configMapRef.optional) continue;
          return { error: `configmap "${ef.configMapRef.name}" not found` };
        }
        for (const [k, v] of Object.entries(cm.data || {})) env[prefix + k] = v;
      } else if (ef.secretRef) {
        const s = getSecret(ef.secretRef.name);
        if (!s) {
          if (ef.secretRef.optional) continue;
          return { error: `secret "${ef.secretRef.name}" not found` };
        }
        for (const [k, v] of Object.entries(s.data || {})) env[prefix + k] = b64(v).toString('utf8');
      }
    }
    const lookup = (n) => (Object.prototype.hasOwnProperty.call(env, n) ? env[n] : undefined);
    for (const e of spec.env || []) {
      if (!e.valueFrom) {
        env[e.name] = expand(e.value || '', lookup);
        continue;
      }
      const vf = e.valueFrom;
      if (vf.secretKeyRef) {
        const r = vf.secretKeyRef;
        const s = getSecret(r.name);
        if (!s) {
          if (r.optional) continue;
          return { error: `secret "${r.name}" not found` };
        }
        const data = s.data || {};
        if (!(r.key in data)) {
          if (r.optional) continue;
          return { error: `couldn't find key ${r.key} in Secret ${ns}/${r.name}` };
        }
        env[e.name] = b64(data[r.key]).toString('utf8');
      } else if (vf.configMapKeyRef) {
        const r = vf.configMapKeyRef;
        const cm = getCM(r.name);
        if (!cm) {
          if (r.optional) continue;
          return { error: `configmap "${r.name}" not found` };
        }
        const data = cm.data || {};
        if (!(r.key in data)) {
          if (r.optional) continue;
          return { error: `couldn't find key ${r.key} in ConfigMap ${ns}/${r.name}` };
        }
        env[e.name] = data[r.key];
      } else if (vf.fieldRef) {
        const v = fieldRefValue(pod, vf.fieldRef.fieldPath, this.hostIP(pod));
        if (v === undefined) return { error: `unsupported fieldPath: ${vf.fieldRef.fieldPath}` };
        env[e.name] = v;
      } else if (vf.resourceFieldRef) {
        env[e.name] = resourceFieldValue(pod, spec, vf.resourceFieldRef);
      }
    }
    return { env };
  }

  // ---------------------------------------------------------------- containers
  startContainer(rt, c, policy) {
    const pod = rt.pod;
    const spec = c.spec;
    const r = this.resolveEnv(pod, spec);
    if (r.error) {
      c.state = { waiting: { reason: 'CreateContainerConfigError', message: r.error } };
      rt.waiting = true;
      if (c.lastError !== r.error) {
        c.lastError = r.error;
        U.recordEvent(this.store, Object.assign({ apiVersion: 'v1', kind: 'Pod' }, pod), 'Warning', 'Failed', `Error: ${r.error}`, 'kubelet');
      }
      this.scheduleRetry(rt);
      return;
    }
    if (this.runtime) {
      c.pending = true;
      this.startInContainer(rt, c, policy, r.env).catch((e) => {
        c.pending = false;
        this.log(`kubelet: container ${c.name} of ${rt.ns}/${rt.name}: ${e.stack || e}`);
        this.containerWaiting(rt, c, 'CreateContainerError', String(e.message || e));
      });
      return;
    }
    c.lastError = null;
    const cdir = path.join(rt.dir, 'containers', c.name);
    const root = path.join(cdir, 'root');
    fs.mkdirSync(root, { recursive: true });
    const termFile = path.join(cdir, `termination-log-${c.restartCount}`);
    fs.writeFileSync(termFile, '');
    c.termFile = termFile;
    const termPath = spec.terminationMessagePath || DEFAULT_TERM_PATH;
    const mounts = [{ from: termPath, to: termFile }];
    if (termPath !== DEFAULT_TERM_PATH) mounts.push({ from: DEFAULT_TERM_PATH, to: termFile });
    for (const m of spec.volumeMounts || []) {
      const host = rt.volumes.get(m.name);
      if (!host) continue;
      let to = host;
      if (m.subPath) {
        // A subPath naming a file (e.g. one configMap key) is mounted as that file.
        to = path.join(host, m.subPath);
        if (!fs.existsSync(to)) fs.mkdirSync(to, { recursive: true });
      }
      mounts.push({ from: m.mountPath, to });
    }
    const rewrite = makeRewriter(mounts);
    const userEnv = r.env;
    const lookup = (n) => (Object.prototype.hasOwnProperty.call(userEnv, n) ? userEnv[n] : undefined);
    const command = (spec.command || []).map((s) => rewrite(expand(s, lookup)));
    const args = (spec.args || []).map((s) => rewrite(expand(s, lookup)));
    // the container's stdout and stderr go to a raw file; c.crilog makes the CRI log of it
    const logFile = path.join(rt.dir, 'logs', `${c.name}-${c.restartCount}.log`);
    const rawFile = path.join(rt.dir, 'logs', `${c.name}-${c.restartCount}.out`);
    c.logFile = logFile;
    c.crilog = new CriLog(rawFile, logFile);
    const t = U.now();
    c.containerID = `sim://${U.randomHex(16)}`;
    const fail = (message) => {
      c.crilog.close();
      c.state = { terminated: { exitCode: 128, reason: 'StartError', message, startedAt: '1970-01-01T00:00:00Z', finishedAt: t, containerID: c.containerID } };
      this.containerExited(rt, c, policy);
    };
    if (!command.length) {
      fail(`sim: container "${c.name}" has no command; the simulated kubelet ignores images, so the image's entrypoint cannot run`);
      return;
    }
    const env = {};
    env.PATH = process.env.PATH || '/usr/local/bin:/usr/bin:/bin';
    for (const k of PASS_ENV) if (process.env[k] !== undefined) env[k] = process.env[k];
    env.HOSTNAME = pod.spec.hostname || pod.metadata.name;
    env.HOME = root;
    for (const [k, v] of Object.entries(userEnv)) env[k] = rewrite(v);
    env.SIM_TERMINATION_MESSAGE_PATH = termFile;
    // a host path given as the command runs as is, also under a path a volume is mounted at
    // (/tmp): the sim's pods are host processes, and a repository may live under /tmp
    const raw0 = spec.command && spec.command.length ? expand(spec.command[0], lookup) : '';
    const exe = path.isAbsolute(raw0) && isExecutable(raw0)
      ? raw0
      : resolveExecutable(command[0], this.binPath, userEnv.PATH || process.env.PATH);
    if (!exe) {
      fail(`failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "${command[0]}": executable file not found in $PATH: unknown`);
      return;
    }
    let cwd = root;
    if (spec.workingDir) {
      const w = rewrite(spec.workingDir);
      if (w !== spec.workingDir) {
        fs.mkdirSync(w, { recursive: true });
        cwd = w;
      }
    }
    const podRef = Object.assign({ apiVersion: 'v1', kind: 'Pod' }, pod);
    U.recordEvent(this.store, podRef, 'Normal', 'Pulled', `Container image "${spec.image || ''}" already present on machine`, 'kubelet');
    U.recordEvent(this.store, podRef, 'Normal', 'Created', `Created container ${c.name}`, 'kubelet');
    let fd;
    let child;
    try {
      fd = fs.openSync(rawFile, 'a');
      child = spawn(exe, command.slice(1).concat(args), { cwd, env, stdio: ['ignore', fd, fd], detached: true });
    } catch (e) {
      if (fd !== undefined) fs.closeSync(fd);
      fail(`sim: cannot start ${exe}: ${e.message}`);
      return;
    }
    fs.closeSync(fd);
    c.proc = child;
    c.crilog.watch();
    c.everStarted = true;
    c.startedAt = t;
    c.state = { running: { startedAt: t } };
    U.recordEvent(this.store, Object.assign({ apiVersion: 'v1', kind: 'Pod' }, pod), 'Normal', 'Started', `Started container ${c.name}`, 'kubelet');
    let errored = null;
    child.on('error', (e) => {
      errored = e;
    });
    child.on('close', (code, signal) => {
      c.proc = null;
      c.crilog.close();
      let exitCode = code;
      if (code === null) exitCode = 128 + (os.constants.signals[signal] || 0);
      if (errored && code === null && !signal) {
        fail(`sim: ${errored.message}`);
        return;
      }
      const term = {
        exitCode,
        reason: exitCode === 0 ? 'Completed' : 'Error',
        startedAt: c.startedAt,
        finishedAt: U.now(),
        containerID: c.containerID,
      };
      if (signal) term.signal = os.constants.signals[signal] || undefined;
      const msg = this.terminationMessage(c, exitCode);
      if (msg) term.message = msg;
      c.state = { terminated: term };
      this.containerExited(rt, c, policy);
    });
  }

  // A container that cannot start yet (config error, image not there, create failed): waiting
  // with the kubelet's reason and message, a Warning event when it changes, retried after
  // RETRY_MS (c.timer: pod updates meanwhile do not retry it sooner).
  containerWaiting(rt, c, reason, message, eventReason) {
    c.state = { waiting: { reason, message } };
    rt.waiting = true;
    if (c.lastError !== message) {
      c.lastError = message;
      const ref = Object.assign({ apiVersion: 'v1', kind: 'Pod' }, rt.pod);
      U.recordEvent(this.store, ref, 'Warning', eventReason || 'Failed', eventReason ? message : `Error: ${message}`, 'kubelet');
    }
    if (!c.timer && !rt.killing && !rt.final) {
      c.timer = setTimeout(() => {
        c.timer = null;
        this.queue.add(podKey(rt.ns, rt.name));
      }, RETRY_MS);
      c.timer.unref();
    }
    this.writeStatus(rt);
  }

  // Container mode: image (pull policy), runAsNonRoot, `podman create`, then `podman start
  // --attach` as the container's process. c.pending is set while this runs.
  async startInContainer(rt, c, policy, userEnv) {
    const pod = rt.pod;
    const spec = c.spec;
    const gone = () => rt.killing || rt.final || this.stopped;
    const podRef = Object.assign({ apiVersion: 'v1', kind: 'Pod' }, pod);
    let img = await this.runtime.image(spec.image || '');
    if (gone()) return;
    let d = P.pullDecision(spec, img.present);
    if (d === 'pull') {
      U.recordEvent(this.store, podRef, 'Normal', 'Pulling', `Pulling image "${spec.image}"`, 'kubelet');
      const t0 = Date.now();
      const err = await this.runtime.pull(spec.image);
      if (gone()) return;
      if (err) {
        d = c.pullFailed
          ? { reason: 'ImagePullBackOff', message: `Back-off pulling image "${spec.image}"`, event: 'BackOff' }
          : { reason: 'ErrImagePull', message: `failed to pull and unpack image "${spec.image}": ${err}`, event: null };
        c.pullFailed = true;
      } else {
        U.recordEvent(this.store, podRef, 'Normal', 'Pulled', `Successfully pulled image "${spec.image}" in ${((Date.now() - t0) / 1000).toFixed(3)}s`, 'kubelet');
        img = await this.runtime.image(spec.image);
        if (gone()) return;
        d = 'run';
      }
    } else if (d === 'run') {
      U.recordEvent(this.store, podRef, 'Normal', 'Pulled', `Container image "${spec.image}" already present on machine`, 'kubelet');
    }
    if (d !== 'run') {
      c.pending = false;
      this.containerWaiting(rt, c, d.reason, d.message, d.event === undefined ? d.reason : d.event);
      return;
    }
    c.pullFailed = false;
    const nonRoot = P.checkRunAsNonRoot(pod, spec, img.user);
    if (nonRoot) {
      c.pending = false;
      this.containerWaiting(rt, c, 'CreateContainerConfigError', nonRoot);
      return;
    }
    const cdir = path.join(rt.dir, 'containers', c.name);
    fs.mkdirSync(cdir, { recursive: true });
    const termFile = path.join(cdir, `termination-log-${c.restartCount}`);
    fs.writeFileSync(termFile, '');
    fs.chmodSync(termFile, 0o666); // the kubelet's container log path: writable by any uid
    c.termFile = termFile;
    const mounts = [{ host: termFile, container: spec.terminationMessagePath || DEFAULT_TERM_PATH }];
    for (const m of spec.volumeMounts || []) {
      const host = rt.volumes.get(m.name);
      if (!host) continue;
      let h = host;
      if (m.subPath) {
        h = path.join(host, m.subPath);
        if (!fs.existsSync(h)) mkdirWritable(h);
      }
      mounts.push({ host: h, container: m.mountPath, readOnly: !!m.readOnly });
    }
    if (rt.saDir && !mounts.some((m) => m.container === P.SA_DIR)) mounts.push({ host: rt.saDir, container: P.SA_DIR, readOnly: true });
    const env = Object.assign(this.serviceEnv(), userEnv);
    const lookup = (n) => (Object.prototype.hasOwnProperty.call(env, n) ? env[n] : undefined);
    const envNames = Object.keys(env).filter((k) => !P.PODMAN_OWN_ENV.has(k));
    const envInline = {};
    for (const k of Object.keys(env)) if (P.PODMAN_OWN_ENV.has(k)) envInline[k] = env[k];
    const name = `k8s_${c.name}_${rt.name}_${rt.ns}_${rt.uid.slice(0, 8)}_${c.restartCount}`;
    const args = P.podmanCreateArgs(pod, spec, {
      name,
      image: spec.image,
      envNames,
      envInline,
      mounts,
      hostname: pod.spec.hostname || pod.metadata.name,
      labels: { 'pgbench-sim.instance': this.runtime.instance, 'io.kubernetes.pod.namespace': rt.ns, 'io.kubernetes.pod.name': rt.name, 'io.kubernetes.container.name': c.name },
      command: (spec.command || []).map((s) => expand(s, lookup)),
      args: (spec.args || []).map((s) => expand(s, lookup)),
    });
    const podEnv = {};
    for (const k of envNames) podEnv[k] = env[k];
    const created = await this.runtime.create(args, podEnv);
    if (gone()) {
      if (created.id) this.runtime.remove(name);
      return;
    }
    if (created.error) {
      c.pending = false;
      this.runtime.remove(name);
      this.containerWaiting(rt, c, 'CreateContainerError', created.error);
      return;
    }
    U.recordEvent(this.store, podRef, 'Normal', 'Created', `Created container ${c.name}`, 'kubelet');
    const logFile = path.join(rt.dir, 'logs', `${c.name}-${c.restartCount}.log`);
    const rawFile = path.join(rt.dir, 'logs', `${c.name}-${c.restartCount}.out`);
    c.logFile = logFile;
    c.crilog = new CriLog(rawFile, logFile);
    c.containerID = `containerd://${created.id}`;
    c.imageID = img.id ? `sha256:${img.id}` : null;
    const fd = fs.openSync(rawFile, 'a');
    const child = this.runtime.start(name, fd);
    fs.closeSync(fd);
    child.simKill = (sig) => this.runtime.kill(name, sig);
    c.pending = false;
    c.lastError = null;
    c.proc = child;
    c.crilog.watch();
    c.everStarted = true;
    c.startedAt = U.now();
    c.state = { running: { startedAt: c.startedAt } };
    U.recordEvent(this.store, podRef, 'Normal', 'Started', `Started container ${c.name}`, 'kubelet');
    this.writeStatus(rt);
    child.on('error', (e) => this.log(`kubelet: podman start ${name}: ${e.message}`));
    child.on('close', async () => {
      const st = await this.runtime.state(name);
      this.runtime.remove(name);
      c.proc = null;
      c.crilog.close();
      const finishedAt = U.now();
      let term;
      if (!st) {
        term = { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt };
      } else if (st.error) {
        // the runtime could not start the process (executable not found, ...): StartError
        term = { exitCode: 128, reason: 'StartError', message: st.error, startedAt: '1970-01-01T00:00:00Z', finishedAt };
      } else {
        term = { exitCode: st.exitCode, reason: st.oomKilled ? 'OOMKilled' : st.exitCode === 0 ? 'Completed' : 'Error', startedAt: c.startedAt, finishedAt };
        const msg = this.terminationMessage(c, st.exitCode);
        if (msg) term.message = msg;
      }
      term.containerID = c.containerID;
      c.state = { terminated: term };
      this.containerExited(rt, c, policy);
    });
  }

  // The kubelet's getTerminationMessage + FallbackToLogsOnError.
  terminationMessage(c, exitCode) {
    let data = Buffer.alloc(0);
    try {
      const fd = fs.openSync(c.termFile, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const n = Math.min(size, MAX_CONTAINER_MSG);
        data = Buffer.alloc(n);
        fs.readSync(fd, data, 0, n, size - n);
      } finally {
        fs.closeSync(fd);
      }
    } catch (_) {
      data = Buffer.alloc(0);
    }
    if (data.length === 0 && c.spec.terminationMessagePolicy === 'FallbackToLogsOnError' && exitCode !== 0) {
      // readLastStringFromContainerLogs: ReadLogs of the last lines into a circular buffer
      const tail = new LogReader(c.logFile, { tailLines: MAX_LOG_LINES }).read();
      data = tail.length > MAX_LOG_MSG ? tail.subarray(tail.length - MAX_LOG_MSG) : tail;
    }
    return data.toString('utf8');
  }

  containerExited(rt, c, policy) {
    const code = c.state.terminated.exitCode;
    const restart = !rt.killing && (policy === 'Always' || (policy === 'OnFailure' && code !== 0));
    if (!restart) {
      c.done = true;
    } else {
      const backoff = Math.min(this.restartBackoffMs * 2 ** Math.min(c.restartCount, 5), 5 * 60 * 1000);
      c.lastState = c.state;
      c.restartCount += 1;
      c.state = { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(backoff / 1000)}s restarting failed container=${c.name} pod=${rt.name}_${rt.ns}(${rt.uid})` } };
      c.timer = setTimeout(() => {
        c.timer = null;
        this.queue.add(podKey(rt.ns, rt.name));
      }, backoff);
      c.timer.unref();
    }
    if (rt.killing) {
      this.writeStatus(rt);
      this.maybeFinishKill(rt);
      return;
    }
    // A failed init container with restartPolicy Never fails the pod.
    this.advance(rt);
  }

  // ---------------------------------------------------------------- status
  phaseOf(rt) {
    const initFailed = rt.init.some((c) => c.done && c.state.terminated && c.state.terminated.exitCode !== 0);
    if (initFailed) return 'Failed';
    const initOk = rt.init.every((c) => c.done && c.state.terminated && c.state.terminated.exitCode === 0);
    if (!initOk) return rt.killing && rt.init.every((c) => !c.proc) ? 'Failed' : 'Pending';
    if (rt.containers.length && rt.containers.every((c) => c.done)) {
      return rt.containers.every((c) => c.state.terminated.exitCode === 0) ? 'Succeeded' : 'Failed';
    }
    if (rt.containers.some((c) => c.proc || c.everStarted || c.restartCount > 0)) return 'Running';
    return 'Pending';
  }

  containerStatus(c, ready) {
    const s = {
      name: c.name,
      state: c.state,
      lastState: c.lastState || {},
      ready,
      restartCount: c.restartCount,
      image: c.spec.image || '',
      imageID: c.everStarted || c.state.terminated ? c.imageID || `sim://${c.spec.image || 'none'}` : '',
      started: !!c.proc,
    };
    if (c.containerID) s.containerID = c.containerID;
    return s;
  }

  writeStatus(rt) {
    const pod = this.store.get('core/pods', rt.ns, rt.name);
    if (!pod || pod.metadata.uid !== rt.uid) return;
    const phase = this.phaseOf(rt);
    const old = pod.status || {};
    const st = JSON.parse(JSON.stringify(old));
    st.phase = phase;
    const ip = this.hostIP(pod);
    st.hostIP = ip;
    st.hostIPs = [{ ip }];
    st.podIP = ip;
    st.podIPs = [{ ip }];
    st.startTime = st.startTime || rt.startTime;
    st.qosClass = qosClass(pod);
    const terminal = phase === 'Succeeded' || phase === 'Failed';
    const byName = (list) => list.map((c) => c.name);
    const initIncomplete = byName(rt.init.filter((c) => !(c.done && c.state.terminated && c.state.terminated.exitCode === 0)));
    const unready = byName(rt.containers.filter((c) => !c.proc));
    U.setCondition(st, 'PodReadyToStartContainers', terminal && !rt.containers.some((c) => c.proc) ? 'False' : 'True', null, null, { lastProbeTime: null });
    if (initIncomplete.length) {
      U.setCondition(st, 'Initialized', 'False', 'ContainersNotInitialized', `containers with incomplete status: [${initIncomplete.join(' ')}]`, { lastProbeTime: null });
    } else {
      U.setCondition(st, 'Initialized', 'True', null, null, { lastProbeTime: null });
    }
    for (const type of ['Ready', 'ContainersReady']) {
      if (phase === 'Succeeded') U.setCondition(st, type, 'False', 'PodCompleted', null, { lastProbeTime: null });
      else if (phase === 'Failed') U.setCondition(st, type, 'False', 'PodFailed', null, { lastProbeTime: null });
      else if (unready.length) U.setCondition(st, type, 'False', 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`, { lastProbeTime: null });
      else U.setCondition(st, type, 'True', null, null, { lastProbeTime: null });
    }
    U.setCondition(st, 'PodScheduled', 'True', null, null, { lastProbeTime: null });
    const order = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];
    st.conditions.sort((a, b) => {
      const ia = order.indexOf(a.type);
      const ib = order.indexOf(b.type);
      return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
    });
    // Per-pod budget for termination messages (status manager's normalizeStatus).
    const perContainer = Math.floor(MAX_POD_MSG / Math.max(1, rt.init.length + rt.containers.length));
    const cap = (s) => {
      const t = s.state && s.state.terminated;
      if (t && t.message && Buffer.byteLength(t.message) > perContainer) {
        t.message = Buffer.from(t.message, 'utf8').subarray(0, perContainer).toString('utf8');
      }
      const l = s.lastState && s.lastState.terminated;
      if (l && l.message && Buffer.byteLength(l.message) > perContainer) {
        l.message = Buffer.from(l.message, 'utf8').subarray(0, perContainer).toString('utf8');
      }
      return s;
    };
    st.containerStatuses = rt.containers.map((c) => cap(JSON.parse(JSON.stringify(this.containerStatus(c, !!c.proc)))));
    if (rt.init.length) {
      st.initContainerStatuses = rt.init.map((c) => cap(JSON.parse(JSON.stringify(this.containerStatus(c, c.done && c.state.terminated && c.state.terminated.exitCode === 0)))));
    }
    if (terminal) rt.final = true;
    if (U.deepEqual(st, old)) return;
    pod.status = st;
    try {
      this.store.update('core/pods', pod, { subresource: 'status' });
    } catch (e) {
      if (!U.isNotFound(e)) throw e;
    }
  }

  // ---------------------------------------------------------------- deletion
  terminate(rt, pod) {
    rt.pod = pod;
    // The grace period of the DELETE (metadata.deletionGracePeriodSeconds) wins over the spec's.
    const dg = pod.metadata.deletionGracePeriodSeconds;
    const sg = pod.spec.terminationGracePeriodSeconds === undefined ? 30 : pod.spec.terminationGracePeriodSeconds;
    const grace = dg !== undefined && dg !== null && dg > 0 ? dg : sg;
    const ms = Math.min(grace, this.maxGraceSeconds) * 1000;
    if (rt.killing && rt.killDeadline && Date.now() + ms < rt.killDeadline) {
      // A second DELETE with a shorter grace period: SIGKILL sooner.
      rt.killDeadline = Date.now() + ms;
      for (const c of rt.init.concat(rt.containers)) {
        if (!c.proc) continue;
        const p = c.proc;
        const t = setTimeout(() => killTree(p, 'SIGKILL'), ms);
        t.unref();
        p.once('close', () => clearTimeout(t));
      }
    }
    if (!rt.killing) {
      rt.killing = true;
      rt.killDeadline = Date.now() + ms;
      if (rt.retryTimer) clearTimeout(rt.retryTimer);
      if (rt.pullTimer) clearTimeout(rt.pullTimer);
      if (rt.downwardTimer) clearTimeout(rt.downwardTimer);
      for (const c of rt.init.concat(rt.containers)) {
        if (c.timer) {
          clearTimeout(c.timer);
          c.timer = null;
        }
        if (!c.proc && !c.done) {
          // Never started (or waiting to restart): the kubelet reports it as unknown.
          c.state = { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt: U.now() } };
          c.done = true;
        }
        if (c.proc) {
          U.recordEvent(this.store, Object.assign({ apiVersion: 'v1', kind: 'Pod' }, pod), 'Normal', 'Killing', `Stopping container ${c.name}`, 'kubelet');
          killTree(c.proc, 'SIGTERM');
          const p = c.proc;
          const t = setTimeout(() => killTree(p, 'SIGKILL'), ms);
          t.unref();
          p.once('close', () => clearTimeout(t));
        }
      }
    }
    this.maybeFinishKill(rt);
  }

  maybeFinishKill(rt) {
    if (rt.init.concat(rt.containers).some((c) => c.proc)) return;
    this.writeStatus(rt);
    const pod = this.store.get('core/pods', rt.ns, rt.name);
    if (pod && pod.metadata.uid === rt.uid) this.finishDeletion(pod);
  }

  // The kubelet's final DELETE (grace period 0) once the containers are gone; finalizers (e.g.
  // batch.kubernetes.io/job-tracking) may still hold the object.
  finishDeletion(pod) {
    try {
      this.store.delete('core/pods', pod.metadata.namespace, pod.metadata.name, { preconditions: { uid: pod.metadata.uid }, gracePeriodSeconds: 0 });
    } catch (e) {
      if (!U.isNotFound(e) && !U.isConflict(e)) throw e;
    }
  }

  podGone(uid) {
    const rt = this.pods.get(uid);
    if (!rt) return;
    this.pods.delete(uid);
    rt.killing = true;
    rt.final = true;
    if (rt.retryTimer) clearTimeout(rt.retryTimer);
    if (rt.downwardTimer) clearTimeout(rt.downwardTimer);
    const procs = [];
    for (const c of rt.init.concat(rt.containers)) {
      if (c.timer) clearTimeout(c.timer);
      if (c.proc) procs.push(c.proc);
    }
    const grace = Math.min(rt.pod.spec.terminationGracePeriodSeconds === undefined ? 30 : rt.pod.spec.terminationGracePeriodSeconds, this.maxGraceSeconds) * 1000;
    const cleanup = () => fs.rm(rt.dir, { recursive: true, force: true }, () => {});
    if (!procs.length) return cleanup();
    let left = procs.length;
    for (const p of procs) {
      killTree(p, 'SIGTERM');
      const t = setTimeout(() => killTree(p, 'SIGKILL'), grace);
      t.unref();
      p.once('close', () => {
        clearTimeout(t);
        if (--left === 0) cleanup();
      });
    }
  }

  // ---------------------------------------------------------------- logs
  // The container's log as the kubelet's ReadLogs answers it (see crilog.js), a string; null when
  // the container has no log yet (waiting to start), as the API's 400 "waiting to start".
  podLog(ns, name, opts = {}) {
    const r = this.podLogReader(ns, name, Object.assign({}, opts, { follow: false }));
    return r && r.read().toString('utf8');
  }

  // A LogReader of the container's log (opts: PodLogOptions, sinceTime in ns), or null.
  podLogReader(ns, name, opts = {}) {
    const pod = this.store.get('core/pods', ns, name);
    if (!pod) return null;
    const names = (pod.spec.containers || []).map((c) => c.name).concat((pod.spec.initContainers || []).map((c) => c.name));
    const cname = opts.container || (pod.spec.containers[0] && pod.spec.containers[0].name);
    if (!names.includes(cname)) return null;
    const rt = this.pods.get(pod.metadata.uid);
    if (!rt) return null;
    const c = rt.containers.concat(rt.init).find((x) => x.name === cname);
    if (!c.logFile) return null;
    let file;
    const truthy = (v) => v === true || v === 'true' || v === '1';
    if (truthy(opts.previous)) {
      if (c.restartCount < 1) return null;
      file = path.join(rt.dir, 'logs', `${cname}-${c.restartCount - 1}.log`);
    } else {
      file = path.join(rt.dir, 'logs', `${cname}-${c.restartCount}.log`);
      if (!fs.existsSync(file) && c.restartCount > 0) file = path.join(rt.dir, 'logs', `${cname}-${c.restartCount - 1}.log`);
    }
    if (!fs.existsSync(file)) return null;
    const writer = c.crilog && c.crilog.file === file ? c.crilog : null;
    return new LogReader(file, opts, writer ? () => writer.ingest(false) : null);
  }

  // ---------------------------------------------------------------- stop
  killAllNow() {
    if (this.runtime) {
      this.runtime.removeAllSync();
      return;
    }
    for (const rt of this.pods.values()) {
      for (const c of rt.init.concat(rt.containers)) if (c.proc) killTree(c.proc, 'SIGKILL');
    }
  }

  stop() {
    this.stopped = true;
    this.queue.stop();
    this.pvcQueue.stop();
    const waits = [];
    for (const rt of this.pods.values()) {
      if (rt.retryTimer) clearTimeout(rt.retryTimer);
      if (rt.pullTimer) clearTimeout(rt.pullTimer);
      if (rt.downwardTimer) clearTimeout(rt.downwardTimer);
      for (const c of rt.init.concat(rt.containers)) {
        if (c.timer) clearTimeout(c.timer);
        if (c.proc) {
          const p = c.proc;
          waits.push(new Promise((resolve) => {
            p.once('close', resolve);
            killTree(p, 'SIGTERM');
            const t = setTimeout(() => killTree(p, 'SIGKILL'), 1000);
            t.unref();
          }));
        }
      }
    }
    return Promise.all(waits).then(() => {
      if (this.runtime) this.runtime.removeAllSync();
    });
  }
}

function killTree(child, sig) {
  if (child.simKill) {
    child.simKill(sig); // a container: the runtime signals it (podman kill)
    return;
  }
  try {
    process.kill(-child.pid, sig);
  } catch (_) {
    try {
      child.kill(sig);
    } catch (__) {
      // already gone
    }
  }
}

// fieldpath.FormatMap: one key="value" line per entry (Go %q quoting), keys sorted.
function formatMap(m) {
  return Object.keys(m || {}).sort().map((k) => `${k}=${JSON.stringify(m[k])}`).join('\n');
}

// The files of a downwardAPI volume: {path: content}.
function downwardPayload(pod, src) {
  const out = {};
  for (const it of src.items || []) {
    if (!it.fieldRef) continue;
    const val = fieldRefValue(pod, it.fieldRef.fieldPath);
    out[it.path] = val === undefined ? '' : val;
  }
  return out;
}

// volume/util.AtomicWriter: the payload lives in a timestamped directory ..<ts>, ..data is a
// symlink to it and every file a symlink through ..data; an update writes a new directory and
// renames a new symlink over ..data, so a reader sees the old payload or the new one, never a
// mix. Nothing is written when the payload did not change.
// Whether dir (an AtomicWriter directory) holds payload already.
function sameAtomic(dir, payload) {
  let cur = null;
  try {
    cur = fs.readlinkSync(path.join(dir, '..data'));
  } catch (_) {
    return false;
  }
  return Object.entries(payload).every(([p, v]) => {
    try {
      return fs.readFileSync(path.join(dir, cur, p), 'utf8') === v;
    } catch (_) {
      return false;
    }
  });
}

function writeAtomic(dir, payload) {
  fs.mkdirSync(dir, { recursive: true });
  const dataLink = path.join(dir, '..data');
  let oldDir = null;
  try {
    oldDir = fs.readlinkSync(dataLink);
  } catch (_) {
    oldDir = null;
  }
  if (oldDir && sameAtomic(dir, payload)) return false;
  const ts = `..${new Date().toISOString().replace(/[-:]/g, '_')}.${U.randomHex(4)}`;
  for (const [p, v] of Object.entries(payload)) {
    const f = path.join(dir, ts, p);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, v);
  }
  fs.mkdirSync(path.join(dir, ts), { recursive: true });
  const tmp = path.join(dir, '..data_tmp');
  fs.rmSync(tmp, { force: true });
  fs.symlinkSync(ts, tmp);
  fs.renameSync(tmp, dataLink);
  for (const p of Object.keys(payload)) {
    const top = p.split('/')[0];
    const link = path.join(dir, top);
    if (!fs.existsSync(link)) fs.symlinkSync(path.join('..data', top), link);
  }
  if (oldDir) fs.rmSync(path.join(dir, oldDir), { recursive: true, force: true });
  return true;
}

// ip: the pod's node's InternalIP (env only: a downwardAPI volume takes metadata fields).
function fieldRefValue(pod, fp, ip) {
  const md = pod.metadata;
  const m = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(fp);
  if (m) {
    const v = (md[m[1]] || {})[m[2]];
    return v === undefined ? '' : v;
  }
  switch (fp) {
    case 'metadata.name': return md.name;
    case 'metadata.namespace': return md.namespace;
    case 'metadata.uid': return md.uid;
    case 'metadata.labels': return formatMap(md.labels);
    case 'metadata.annotations': return formatMap(md.annotations);
    case 'spec.nodeName': return pod.spec.nodeName;
    case 'spec.serviceAccountName': return pod.spec.serviceAccountName || 'default';
    case 'status.hostIP':
    case 'status.podIP':
    case 'status.hostIPs':
    case 'status.podIPs':
      return ip;
    default: return undefined;
  }
}

// A directory any uid may write (the kubelet's emptyDir is 0777; a hostPath provisioner's
// volume too), whatever the umask.
function mkdirWritable(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o777);
}

// Whether the kubelet mounts the service account token: the pod's automountServiceAccountToken,
// else its ServiceAccount's, else true.
function automountToken(store, pod) {
  if (pod.spec.automountServiceAccountToken !== undefined) return pod.spec.automountServiceAccountToken !== false;
  const sa = store.get('core/serviceaccounts', pod.metadata.namespace, pod.spec.serviceAccountName || 'default');
  return !(sa && sa.automountServiceAccountToken === false);
}

function parseQuantity(q) {
  if (q === undefined || q === null) return NaN;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(String(q));
  if (!m) return NaN;
  const mult = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 }[m[2]];
  return mult === undefined ? NaN : Number(m[1]) * mult;
}

function resourceFieldValue(pod, spec, ref) {
  const res = spec.resources || {};
  const [kind, name] = ref.resource.split('.');
  let v = parseQuantity((res[kind] || {})[name]);
  if (Number.isNaN(v)) v = name === 'cpu' ? os.cpus().length : os.totalmem();
  const div = parseQuantity(ref.divisor || '1') || 1;
  return String(Math.ceil(v / div));
}

function qosClass(pod) {
  let any = false;
  let guaranteed = true;
  for (const c of (pod.spec.containers || []).concat(pod.spec.initContainers || [])) {
    const r = c.resources || {};
    const req = r.requests || {};
    const lim = r.limits || {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const k of ['cpu', 'memory']) {
      const l = lim[k];
      const q = req[k] === undefined ? l : req[k];
      if (l === undefined || String(l) !== String(q)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

module.exports = { Kubelet, expand, makeRewriter, CRI_MAX_LOG_LINE, resolveExecutable };
