'use strict';
// Registry of served resources: built-ins (static table) and CRDs (registered when a
// CustomResourceDefinition is stored). Resource ids are "<group>/<plural>", "core" for "".

const BUILTINS = [
  // group, version, plural, singular, kind, namespaced, shortNames, subresources, categories
  ['', 'v1', 'namespaces', 'namespace', 'Namespace', false, ['ns'], ['status'], []],
  ['', 'v1', 'secrets', 'secret', 'Secret', true, [], [], []],
  ['', 'v1', 'configmaps', 'configmap', 'ConfigMap', true, ['cm'], [], []],
  ['', 'v1', 'services', 'service', 'Service', true, ['svc'], ['status'], ['all']],
  ['', 'v1', 'pods', 'pod', 'Pod', true, ['po'], ['status', 'log'], ['all']],
  ['', 'v1', 'persistentvolumeclaims', 'persistentvolumeclaim', 'PersistentVolumeClaim', true, ['pvc'], ['status'], []],
  ['', 'v1', 'serviceaccounts', 'serviceaccount', 'ServiceAccount', true, ['sa'], ['token'], []],
  ['', 'v1', 'events', 'event', 'Event', true, ['ev'], [], []],
  ['', 'v1', 'nodes', 'node', 'Node', false, ['no'], ['status'], []],
  ['batch', 'v1', 'jobs', 'job', 'Job', true, [], ['status'], ['all']],
  ['apps', 'v1', 'statefulsets', 'statefulset', 'StatefulSet', true, ['sts'], ['status', 'scale'], ['all']],
  ['apps', 'v1', 'replicasets', 'replicaset', 'ReplicaSet', true, ['rs'], ['status', 'scale'], ['all']],
  ['apps', 'v1', 'deployments', 'deployment', 'Deployment', true, ['deploy'], ['status', 'scale'], ['all']],
  ['autoscaling', 'v2', 'horizontalpodautoscalers', 'horizontalpodautoscaler', 'HorizontalPodAutoscaler', true, ['hpa'], ['status'], ['all']],
  ['storage.k8s.io', 'v1', 'storageclasses', 'storageclass', 'StorageClass', false, ['sc'], [], []],
  ['events.k8s.io', 'v1', 'events', 'event', 'Event', true, ['ev'], [], []],
  ['coordination.k8s.io', 'v1', 'leases', 'lease', 'Lease', true, [], [], []],
  ['rbac.authorization.k8s.io', 'v1', 'roles', 'role', 'Role', true, [], [], []],
  ['rbac.authorization.k8s.io', 'v1', 'rolebindings', 'rolebinding', 'RoleBinding', true, [], [], []],
  ['rbac.authorization.k8s.io', 'v1', 'clusterroles', 'clusterrole', 'ClusterRole', false, [], [], []],
  ['rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'clusterrolebinding', 'ClusterRoleBinding', false, [], [], []],
  ['apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'customresourcedefinition', 'CustomResourceDefinition', false, ['crd', 'crds'], ['status'], ['api-extensions']],
];

const GENERATION_KINDS = new Set(['batch/jobs', 'apps/statefulsets', 'apps/deployments', 'apps/replicasets',
  'autoscaling/horizontalpodautoscalers', 'apiextensions.k8s.io/customresourcedefinitions']);

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function resId(group, plural) {
  return `${group || 'core'}/${plural}`;
}

class Registry {
  constructor() {
    this.byId = new Map(); // id -> info
    for (const b of BUILTINS) {
      const [group, version, plural, singular, kind, namespaced, shortNames, subresources, categories] = b;
      this._add({ group, versions: [version], storageVersion: version, plural, singular, kind, listKind: kind + 'List', namespaced, shortNames, subresources, categories, builtin: true });
    }
  }

  _add(info) {
    info.id = resId(info.group, info.plural);
    this.byId.set(info.id, info);
    return info;
  }

  get(id) {
    return this.byId.get(id) || null;
  }

  // Find by group, version, plural. Returns null if not served at that version.
  lookup(group, version, plural) {
    const info = this.byId.get(resId(group, plural));
    if (!info || !info.versions.includes(version)) return null;
    return info;
  }

  hasStatus(id) {
    const info = this.byId.get(id);
    return !!(info && info.subresources.includes('status'));
  }

  // Kinds whose registry strategy maintains metadata.generation.
  tracksGeneration(id) {
    const info = this.byId.get(id);
    if (!info) return true;
    if (!info.builtin) return true;
    return GENERATION_KINDS.has(id);
  }

  isNamespaced(id) {
    const info = this.byId.get(id);
    return info ? info.namespaced : true;
  }

  all() {
    return [...this.byId.values()];
  }

  // Group -> versions served (preferred first).
  groups() {
    const g = new Map();
    for (const info of this.byId.values()) {
      if (info.group === '') continue;
      if (!g.has(info.group)) g.set(info.group, { name: info.group, versions: [], preferred: null });
      const e = g.get(info.group);
      for (const v of info.versions) if (!e.versions.includes(v)) e.versions.push(v);
      if (info.storageVersion && (!e.preferred || info.builtin)) e.preferred = e.preferred || info.storageVersion;
    }
    return [...g.values()];
  }

  // Called with a stored CustomResourceDefinition object (or null to unregister by name).
  registerCRD(crd) {
    const spec = crd.spec || {};
    const names = spec.names || {};
    const group = spec.group;
    const id = resId(group, names.plural);
    const existing = this.byId.get(id);
    if (existing && existing.builtin) return null;
    const versions = (spec.versions || []).filter((v) => v.served !== false);
    const storage = (spec.versions || []).find((v) => v.storage) || versions[0];
    const info = {
      group,
      versions: sortVersions(versions.map((v) => v.name)),
      storageVersion: storage ? storage.name : null,
      plural: names.plural,
      singular: names.singular || String(names.kind || '').toLowerCase(),
      kind: names.kind,
      listKind: names.listKind || names.kind + 'List',
      namespaced: spec.scope !== 'Cluster',
      shortNames: names.shortNames || [],
      categories: names.categories || [],
      subresources: [],
      builtin: false,
      crdName: crd.metadata.name,
      crd,
      versionInfo: {},
    };
    for (const v of spec.versions || []) {
      info.versionInfo[v.name] = v;
      if (v.subresources && v.subresources.status && !info.subresources.includes('status')) info.subresources.push('status');
      if (v.subresources && v.subresources.scale && !info.subresources.includes('scale')) info.subresources.push('scale');
    }
    // Subresources are per version; use the storage version's for store semantics.
    if (storage) {
      info.subresources = [];
      if (storage.subresources && storage.subresources.status) info.subresources.push('status');
      if (storage.subresources && storage.subresources.scale) info.subresources.push('scale');
    }
    return this._add(info);
  }

  unregisterCRD(crd) {
    const id = resId(crd.spec.group, crd.spec.names.plural);
    const info = this.byId.get(id);
    if (info && !info.builtin) this.byId.delete(id);
  }

  // Resolve a kind (+ apiVersion) to a resource info, for apply/create of manifests.
  byKind(group, version, kind) {
    for (const info of this.byId.values()) {
      if (info.group === group && info.kind === kind && info.versions.includes(version)) return info;
    }
    return null;
  }
}

// Kubernetes version priority: GA > beta > alpha, higher numbers first.
function sortVersions(vs) {
  const key = (v) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0, v];
    const stab = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [1, stab, Number(m[1]), Number(m[3] || 0)];
  };
  return [...vs].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return kb[i] - ka[i];
    if (ka[3] !== kb[3]) return kb[3] - ka[3];
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

module.exports = { Registry, BUILTINS, VERBS, resId, sortVersions };
