'use strict';
// Pod Security Admission (k8s.io/pod-security-admission, on by default since 1.25): a namespace
// labelled pod-security.kubernetes.io/enforce=<privileged|baseline|restricted> refuses pods that
// violate that level, with the upstream message, e.g.
//   pods "x" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation !=
//   false (container "c" must set securityContext.allowPrivilegeEscalation=false), ...
// The checks are the upstream ones (policy/check_*.go), reported in the order of their check IDs;
// for restricted, capabilities_restricted and seccompProfile_restricted replace their baseline
// versions and restrictedVolumes replaces hostPathVolumes. Not modelled: AppArmor, SELinux, procMount, sysctls, Windows hostProcess, the
// warn/audit modes and exemptions.

const LEVELS = ['privileged', 'baseline', 'restricted'];
const BASELINE_CAPS = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD',
  'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const RESTRICTED_VOLUMES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral',
  'persistentVolumeClaim', 'projected', 'secret']);

const quoted = (names) => names.map((n) => JSON.stringify(n)).join(', ');
const containersPhrase = (names) => `${names.length === 1 ? 'container' : 'containers'} ${quoted(names)}`;

// a pod spec's or a container's securityContext, and its seccomp profile type
const sc = (o) => o.securityContext || {};
const seccompType = (o) => (sc(o).seccompProfile || {}).type;

function allContainers(spec) {
  return [].concat(spec.initContainers || [], spec.containers || [], spec.ephemeralContainers || []);
}

// Each check: (spec, containers) -> null, or {reason, detail}.
const CHECKS = {
  allowPrivilegeEscalation(spec, cs) {
    const bad = cs.filter((c) => sc(c).allowPrivilegeEscalation !== false).map((c) => c.name);
    if (!bad.length) return null;
    return { reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` };
  },
  capabilities_baseline(spec, cs) {
    const bad = [];
    const caps = new Set();
    for (const c of cs) {
      const add = ((sc(c).capabilities || {}).add || []).filter((x) => !BASELINE_CAPS.has(x));
      if (add.length) bad.push(c.name);
      add.forEach((x) => caps.add(x));
    }
    if (!bad.length) return null;
    return { reason: 'non-default capabilities', detail: `${containersPhrase(bad)} must not include ${quoted([...caps])} in securityContext.capabilities.add` };
  },
  capabilities_restricted(spec, cs) {
    const noDrop = [];
    const badAdd = [];
    const caps = new Set();
    for (const c of cs) {
      const cap = sc(c).capabilities || {};
      if (!(cap.drop || []).includes('ALL')) noDrop.push(c.name);
      const add = (cap.add || []).filter((x) => x !== 'NET_BIND_SERVICE');
      if (add.length) badAdd.push(c.name);
      add.forEach((x) => caps.add(x));
    }
    const parts = [];
    if (noDrop.length) parts.push(`${containersPhrase(noDrop)} must set securityContext.capabilities.drop=["ALL"]`);
    if (badAdd.length) parts.push(`${containersPhrase(badAdd)} must not include ${quoted([...caps])} in securityContext.capabilities.add`);
    return parts.length ? { reason: 'unrestricted capabilities', detail: parts.join('; ') } : null;
  },
  hostNamespaces(spec) {
    const set = ['hostNetwork', 'hostPID', 'hostIPC'].filter((k) => spec[k] === true);
    return set.length ? { reason: 'host namespaces', detail: set.map((k) => `${k}=true`).join(', ') } : null;
  },
  hostPathVolumes(spec) {
    const vols = (spec.volumes || []).filter((v) => v.hostPath).map((v) => v.name);
    return vols.length ? { reason: 'hostPath volumes', detail: `${vols.length === 1 ? 'volume' : 'volumes'} ${quoted(vols)}` } : null;
  },
  hostPorts(spec, cs) {
    const bad = [];
    const ports = [];
    for (const c of cs) {
      const hp = (c.ports || []).filter((p) => p.hostPort).map((p) => p.hostPort);
      if (hp.length) bad.push(c.name);
      ports.push(...hp);
    }
    if (!bad.length) return null;
    return { reason: 'hostPort', detail: `${containersPhrase(bad)} ${ports.length === 1 ? 'uses hostPort' : 'use hostPorts'} ${ports.join(', ')}` };
  },
  privileged(spec, cs) {
    const bad = cs.filter((c) => sc(c).privileged === true).map((c) => c.name);
    return bad.length ? { reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` } : null;
  },
  restrictedVolumes(spec) {
    const bad = [];
    const types = new Set();
    for (const v of spec.volumes || []) {
      const type = Object.keys(v).find((k) => k !== 'name');
      if (type && !RESTRICTED_VOLUMES.has(type)) {
        bad.push(v.name);
        types.add(type);
      }
    }
    if (!bad.length) return null;
    return {
      reason: 'restricted volume types',
      detail: `${bad.length === 1 ? 'volume' : 'volumes'} ${quoted(bad)} ${bad.length === 1 ? 'uses' : 'use'} restricted volume ${types.size === 1 ? 'type' : 'types'} ${quoted([...types])}`,
    };
  },
  runAsNonRoot(spec, cs) {
    const podSet = sc(spec).runAsNonRoot;
    if (podSet === false) return { reason: 'runAsNonRoot != true', detail: 'pod must not set securityContext.runAsNonRoot=false' };
    const explicitFalse = cs.filter((c) => sc(c).runAsNonRoot === false).map((c) => c.name);
    if (explicitFalse.length) return { reason: 'runAsNonRoot != true', detail: `${containersPhrase(explicitFalse)} must not set securityContext.runAsNonRoot=false` };
    if (podSet === true) return null;
    const unset = cs.filter((c) => sc(c).runAsNonRoot !== true).map((c) => c.name);
    return unset.length ? { reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(unset)} must set securityContext.runAsNonRoot=true` } : null;
  },
  runAsUser(spec, cs) {
    if (sc(spec).runAsUser === 0) return { reason: 'runAsUser=0', detail: 'pod must not set runAsUser=0' };
    const bad = cs.filter((c) => sc(c).runAsUser === 0).map((c) => c.name);
    return bad.length ? { reason: 'runAsUser=0', detail: `${containersPhrase(bad)} must not set runAsUser=0` } : null;
  },
  seccompProfile_baseline(spec, cs) {
    if (seccompType(spec) === 'Unconfined') {
      return { reason: 'seccompProfile', detail: 'pod must not set securityContext.seccompProfile.type to "Unconfined"' };
    }
    const bad = cs.filter((c) => seccompType(c) === 'Unconfined').map((c) => c.name);
    return bad.length ? { reason: 'seccompProfile', detail: `${containersPhrase(bad)} must not set securityContext.seccompProfile.type to "Unconfined"` } : null;
  },
  seccompProfile_restricted(spec, cs) {
    const ok = (t) => t === 'RuntimeDefault' || t === 'Localhost';
    const podType = seccompType(spec);
    if (podType !== undefined && !ok(podType)) {
      return { reason: 'seccompProfile', detail: `pod must not set securityContext.seccompProfile.type to ${JSON.stringify(podType)}` };
    }
    const badSet = cs.filter((c) => seccompType(c) !== undefined && !ok(seccompType(c)));
    if (badSet.length) {
      const types = [...new Set(badSet.map(seccompType))];
      return { reason: 'seccompProfile', detail: `${containersPhrase(badSet.map((c) => c.name))} must not set securityContext.seccompProfile.type to ${quoted(types)}` };
    }
    if (podType !== undefined) return null;
    const unset = cs.filter((c) => seccompType(c) === undefined).map((c) => c.name);
    return unset.length ? { reason: 'seccompProfile', detail: `pod or ${containersPhrase(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` } : null;
  },
};

const BASELINE = ['capabilities_baseline', 'hostNamespaces', 'hostPathVolumes', 'hostPorts', 'privileged', 'seccompProfile_baseline'];
// restrictedVolumes replaces hostPathVolumes, the *_restricted checks their *_baseline versions
const RESTRICTED = ['allowPrivilegeEscalation', 'capabilities_restricted', 'hostNamespaces', 'hostPorts', 'privileged',
  'restrictedVolumes', 'runAsNonRoot', 'runAsUser', 'seccompProfile_restricted'];

// The violations of a pod spec at a level, as "reason (detail)" strings in check-ID order.
function violations(level, spec) {
  const ids = level === 'restricted' ? RESTRICTED : level === 'baseline' ? BASELINE : [];
  const cs = allContainers(spec || {});
  const out = [];
  for (const id of ids) {
    const v = CHECKS[id](spec || {}, cs);
    if (v) out.push(`${v.reason} (${v.detail})`);
  }
  return out;
}

// The namespace's enforced level and version ("latest" unless pinned), or null when none applies.
function enforced(namespace) {
  const labels = ((namespace || {}).metadata || {}).labels || {};
  const level = labels['pod-security.kubernetes.io/enforce'];
  if (!level || !LEVELS.includes(level) || level === 'privileged') return null;
  return { level, version: labels['pod-security.kubernetes.io/enforce-version'] || 'latest' };
}

// The admission error message for a pod, or null when the pod is admitted.
function admitPod(namespace, pod) {
  const e = enforced(namespace);
  if (!e) return null;
  const v = violations(e.level, pod.spec);
  if (!v.length) return null;
  return `pods "${pod.metadata.name}" is forbidden: violates PodSecurity "${e.level}:${e.version}": ${v.join(', ')}`;
}

module.exports = { violations, admitPod };
