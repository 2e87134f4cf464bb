'use strict';
// Container mode of the simulated kubelet: a pod's containers run from their images through
// podman (the CRI runtime's part), with the pod's securityContext, env, volumes and the node's
// network (hostNetwork for every pod: the sim's pods have podIP = hostIP = 127.0.0.1).
//
// podmanCreateArgs() derives `podman create` arguments from a pod and one of its containers; it
// is pure so that the mapping can be tested without an engine. The values of env variables are
// never put in argv (`--env NAME` takes them from podman's own environment), so a Secret's value
// does not show in `ps`. PodmanRuntime runs podman asynchronously: image inspect / pull, create,
// `start --attach` (the container's stdout+stderr into the kubelet's raw log file), inspect of
// the exit, kill, remove. CONTAINERS_CONF defaults to the repository's images/containers.conf
// (runc, ulimits within this machine's hard limits), unless the environment sets one.

const fs = require('fs');
const path = require('path');
const { execFile, execFileSync, spawn } = require('child_process');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
// Variables podman reads itself: a container's value for one of them goes in argv instead.
const PODMAN_OWN_ENV = new Set(['CONTAINERS_CONF', 'CONTAINERS_STORAGE_CONF', 'CONTAINERS_REGISTRIES_CONF', 'HOME', 'TMPDIR', 'XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'PATH']);

// The effective security settings of container `spec` in `pod`: the container's securityContext
// over the pod's (as the kubelet's DetermineEffectiveSecurityContext).
function effectiveSecurity(pod, spec) {
  const psc = pod.spec.securityContext || {};
  const csc = spec.securityContext || {};
  const pick = (k) => (csc[k] !== undefined && csc[k] !== null ? csc[k] : psc[k]);
  return {
    runAsUser: pick('runAsUser'),
    runAsGroup: pick('runAsGroup'),
    runAsNonRoot: pick('runAsNonRoot'),
    seccompProfile: pick('seccompProfile'),
    readOnlyRootFilesystem: csc.readOnlyRootFilesystem === true,
    privileged: csc.privileged === true,
    allowPrivilegeEscalation: csc.allowPrivilegeEscalation,
    capabilities: csc.capabilities || {},
    fsGroup: psc.fsGroup,
    supplementalGroups: psc.supplementalGroups || [],
  };
}

// The `--security-opt seccomp=` value for a seccompProfile (null: the runtime's default
// profile). Unset means Unconfined, as a kubelet without --seccomp-default; Localhost profiles
// live under the kubelet's seccomp directory (seccompDir).
function seccompOpt(profile, seccompDir) {
  const type = profile && profile.type;
  if (type === 'RuntimeDefault') return null;
  if (type === 'Localhost') return `seccomp=${path.join(seccompDir || '/var/lib/kubelet/seccomp', profile.localhostProfile || '')}`;
  return 'seccomp=unconfined';
}

// Arguments of `podman create` for container `spec` of `pod`.
// o: {name, image, envNames: [names given through podman's environment], envInline: {name:
//     value} for the few names podman itself reads (PODMAN_OWN_ENV), mounts: [{host,
//     container, readOnly}], hostname, labels: {k: v}, command: [expanded], args: [expanded],
//     seccompDir}
function podmanCreateArgs(pod, spec, o) {
  const sec = effectiveSecurity(pod, spec);
  const a = ['create', '--name', o.name, '--pull', 'never', '--network', 'host'];
  if (o.hostname) a.push('--hostname', o.hostname);
  for (const [k, v] of Object.entries(o.labels || {})) a.push('--label', `${k}=${v}`);
  // user and groups
  if (sec.runAsUser !== undefined && sec.runAsUser !== null) {
    a.push('--user', sec.runAsGroup !== undefined && sec.runAsGroup !== null ? `${sec.runAsUser}:${sec.runAsGroup}` : String(sec.runAsUser));
  } else if (sec.runAsGroup !== undefined && sec.runAsGroup !== null) {
    throw new Error('runAsGroup is specified without a runAsUser');
  }
  const groups = [];
  if (sec.fsGroup !== undefined && sec.fsGroup !== null) groups.push(sec.fsGroup);
  for (const g of sec.supplementalGroups) if (!groups.includes(g)) groups.push(g);
  for (const g of groups) a.push('--group-add', String(g));
  // privileges
  if (sec.privileged) a.push('--privileged');
  if (sec.readOnlyRootFilesystem) a.push('--read-only', '--read-only-tmpfs=false');
  const drop = sec.capabilities.drop || [];
  const add = sec.capabilities.add || [];
  for (const c of drop) a.push('--cap-drop', String(c).toUpperCase() === 'ALL' ? 'all' : String(c));
  for (const c of add) a.push('--cap-add', String(c).toUpperCase() === 'ALL' ? 'all' : String(c));
  // allowPrivilegeEscalation: unset means true unless privileged or CAP_SYS_ADMIN is added
  // (AddNoNewPrivileges); false sets no_new_privs
  if (sec.allowPrivilegeEscalation === false) a.push('--security-opt', 'no-new-privileges');
  if (!sec.privileged) {
    const s = seccompOpt(sec.seccompProfile, o.seccompDir);
    if (s) a.push('--security-opt', s);
  }
  // env (values from podman's environment), volumes, working directory
  for (const n of o.envNames || []) a.push('--env', n);
  for (const [k, v] of Object.entries(o.envInline || {})) a.push('--env', `${k}=${v}`);
  for (const m of o.mounts || []) a.push('--volume', `${m.host}:${m.container}${m.readOnly ? ':ro' : ''}`);
  if (spec.workingDir) a.push('--workdir', spec.workingDir);
  // command replaces the image's ENTRYPOINT (and its CMD); args replace CMD
  const command = o.command || [];
  const args = o.args || [];
  if (command.length) a.push('--entrypoint', JSON.stringify(command));
  a.push(o.image);
  a.push(...args);
  return a;
}

// The kubelet's verifyRunAsNonRoot: null when the container may start, else the message of
// CreateContainerConfigError. imageUser: the image's configured USER ('' for root).
function checkRunAsNonRoot(pod, spec, imageUser) {
  const sec = effectiveSecurity(pod, spec);
  if (!sec.runAsNonRoot) return null;
  if (sec.runAsUser !== undefined && sec.runAsUser !== null) {
    return sec.runAsUser === 0 ? 'container\'s runAsUser breaks non-root policy (pod: "' + pod.metadata.name + '", container: ' + spec.name + ')' : null;
  }
  const user = String(imageUser || '').split(':')[0];
  if (user === '' || user === '0' || user === 'root') return 'container has runAsNonRoot and image will run as root (pod: "' + pod.metadata.name + '", container: ' + spec.name + ')';
  if (!/^\d+$/.test(user)) return `container has runAsNonRoot and image has non-numeric user (${user}), cannot verify user is non-root (pod: "${pod.metadata.name}", container: ${spec.name})`;
  return null;
}

// What the kubelet does about an image given its pull policy and whether the node has it:
// 'run', 'pull', or {reason, message} for a waiting state (ErrImageNeverPull).
function pullDecision(spec, present) {
  const image = spec.image || '';
  let policy = spec.imagePullPolicy;
  if (!policy) policy = /:latest$/.test(image) || !/[:@][^/]+$/.test(image) ? 'Always' : 'IfNotPresent';
  if (policy === 'Always') return 'pull';
  if (present) return 'run';
  if (policy === 'Never') return { reason: 'ErrImageNeverPull', message: `Container image "${image}" is not present with pull policy of Never` };
  return 'pull';
}

function containersConf() {
  if (process.env.CONTAINERS_CONF) return process.env.CONTAINERS_CONF;
  const f = path.join(ROOT, 'images', 'containers.conf');
  return fs.existsSync(f) ? f : undefined;
}

class PodmanRuntime {
  // opts: {podman: binary (default $SIM_PODMAN or 'podman'), instance: label value of this sim}
  constructor(opts = {}) {
    this.podman = opts.podman || process.env.SIM_PODMAN || 'podman';
    this.instance = opts.instance;
    this.env = Object.assign({}, process.env);
    const conf = containersConf();
    if (conf) this.env.CONTAINERS_CONF = conf;
  }

  // Resolves {code, stdout, stderr}; never rejects.
  run(args, extraEnv) {
    return new Promise((resolve) => {
      const env = extraEnv ? Object.assign({}, this.env, extraEnv) : this.env;
      execFile(this.podman, args, { env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
        let code = 0;
        if (err) code = typeof err.code === 'number' ? err.code : 127;
        resolve({ code, stdout: String(stdout || ''), stderr: String(stderr || (err && code === 127 ? err.message : '')) });
      });
    });
  }

  // {present, user, id} of a local image.
  async image(image) {
    const r = await this.run(['image', 'inspect', '--format', '{{.Id}}|{{.Config.User}}', image]);
    if (r.code !== 0) return { present: false, user: '' };
    const [id, user] = r.stdout.trim().split('|');
    return { present: true, user: user || '', id };
  }

  async pull(image) {
    const r = await this.run(['pull', '--quiet', image]);
    return r.code === 0 ? null : (r.stderr.trim().split('\n').pop() || `podman pull exited ${r.code}`);
  }

  // {id} of the new container, or {error: podman's message}.
  async create(args, env) {
    const r = await this.run(args, env);
    if (r.code === 0) return { id: r.stdout.trim() };
    return { error: r.stderr.trim() || `podman create exited ${r.code}` };
  }

  // The attached `podman start` whose output goes to fd (a child process).
  start(name, fd) {
    return spawn(this.podman, ['start', '--attach', name], { env: this.env, stdio: ['ignore', fd, fd], detached: true });
  }

  // {exitCode, error, startedAt, finishedAt} of a stopped container.
  async state(name) {
    const r = await this.run(['inspect', '--format', '{{json .State}}', name]);
    if (r.code !== 0) return null;
    try {
      const s = JSON.parse(r.stdout);
      return { exitCode: s.ExitCode, error: s.Error || '', startedAt: s.StartedAt, finishedAt: s.FinishedAt, oomKilled: !!s.OOMKilled };
    } catch (_) {
      return null;
    }
  }

  kill(name, sig) {
    execFile(this.podman, ['kill', '--signal', sig.replace(/^SIG/, ''), name], { env: this.env }, () => {});
  }

  remove(name) {
    execFile(this.podman, ['rm', '--force', '--time', '0', name], { env: this.env }, () => {});
  }

  // Every container of this sim, removed at once (at exit: synchronous).
  removeAllSync() {
    try {
      const ids = execFileSync(this.podman, ['ps', '--all', '--quiet', '--filter', `label=pgbench-sim.instance=${this.instance}`], { env: this.env }).toString().split('\n').filter(Boolean);
      if (ids.length) execFileSync(this.podman, ['rm', '--force', '--time', '0', ...ids], { env: this.env, stdio: 'ignore' });
    } catch (_) {
      // best effort
    }
  }

  static available(bin) {
    try {
      execFileSync(bin || process.env.SIM_PODMAN || 'podman', ['--version'], { stdio: 'ignore' });
      return true;
    } catch (_) {
      return false;
    }
  }
}

module.exports = { PODMAN_OWN_ENV, podmanCreateArgs, checkRunAsNonRoot, pullDecision, effectiveSecurity, PodmanRuntime, SA_DIR };
