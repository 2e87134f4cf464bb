'use strict';
// RBAC authorization for service-account tokens (issued by serviceaccounts/<sa>/token), as the
// real RBAC authorizer: Role/ClusterRole rules reached through RoleBindings (namespace) and
// ClusterRoleBindings (everywhere), subjects by ServiceAccount, User or Group. The kubeconfig's
// admin token is not subject to it. Discovery/health paths (system:discovery,
// system:public-info-viewer) are open to every authenticated user.
//
// Built-in ClusterRoles (bootstrapClusterRoles, created with the store as the API server's RBAC
// bootstrap does): cluster-admin, the user-facing admin / edit / view with their aggregationRules
// (filled by workload/aggregation.js), and system:aggregate-to-admin|edit|view with the upstream
// bootstrap policy's rules. So a ClusterRole labelled rbac.authorization.k8s.io/aggregate-to-edit
// extends what every namespace editor may do, as on a real cluster.

const NON_RESOURCE_OPEN = [/^\/api(\/v1)?$/, /^\/apis(\/[^/]+(\/[^/]+)?)?$/, /^\/version$/, /^\/openapi(\/.*)?$/, /^\/healthz$/, /^\/livez$/, /^\/readyz$/];

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const AGG = 'rbac.authorization.k8s.io/aggregate-to-';

function clusterRole(name, labels, rules, aggregateFrom) {
  const cr = {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
    metadata: {
      name,
      labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels },
      annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
    },
  };
  if (aggregateFrom) cr.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [AGG + aggregateFrom]: 'true' } }] };
  if (rules) cr.rules = rules;
  return cr;
}

const rule = (verbs, group, resources) => ({ verbs, apiGroups: [group], resources });

// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (1.32), the roles a user is bound to.
function bootstrapClusterRoles() {
  return [
    clusterRole('cluster-admin', {}, [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]),
    clusterRole('admin', {}, null, 'admin'),
    clusterRole('edit', { [AGG + 'admin']: 'true' }, null, 'edit'),
    clusterRole('view', { [AGG + 'edit']: 'true' }, null, 'view'),
    clusterRole('system:aggregate-to-admin', { [AGG + 'admin']: 'true' }, [
      rule(['create'], 'authorization.k8s.io', ['localsubjectaccessreviews']),
      rule([...READ, ...WRITE], 'rbac.authorization.k8s.io', ['rolebindings', 'roles']),
    ]),
    clusterRole('system:aggregate-to-edit', { [AGG + 'edit']: 'true' }, [
      rule(['impersonate'], '', ['serviceaccounts']),
      rule(WRITE, '', ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], '', ['pods/eviction']),
      rule(WRITE, '', ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts',
        'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
      rule(['create'], '', ['serviceaccounts/token']),
      rule(WRITE, 'apps', ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments',
        'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
      rule(WRITE, 'autoscaling', ['horizontalpodautoscalers']),
      rule(WRITE, 'batch', ['jobs', 'cronjobs']),
      rule(WRITE, 'policy', ['poddisruptionbudgets']),
      rule(WRITE, 'networking.k8s.io', ['networkpolicies', 'ingresses']),
      rule(WRITE, 'coordination.k8s.io', ['leases']),
    ]),
    clusterRole('system:aggregate-to-view', { [AGG + 'view']: 'true' }, [
      rule(READ, '', ['pods', 'replicationcontrollers', 'replicationcontrollers/scale',
        'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps', 'endpoints',
        'services', 'services/status']),
      rule(READ, '', ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log',
        'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
      rule(READ, '', ['namespaces']),
      rule(READ, 'discovery.k8s.io', ['endpointslices']),
      rule(READ, 'apps', ['controllerrevisions', 'statefulsets', 'statefulsets/status',
        'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status',
        'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
      rule(READ, 'autoscaling', ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, 'batch', ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      rule(READ, 'policy', ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, 'networking.k8s.io', ['ingresses', 'ingresses/status', 'networkpolicies']),
    ]),
  ];
}

function subjectsMatch(subjects, user) {
  for (const s of subjects || []) {
    if (s.kind === 'ServiceAccount' && s.name === user.sa && (s.namespace || '') === user.ns) return true;
    if (s.kind === 'User' && s.name === user.name) return true;
    if (s.kind === 'Group' && user.groups.includes(s.name)) return true;
  }
  return false;
}

function ruleAllows(rule, attrs) {
  const has = (list, v) => (list || []).includes('*') || (list || []).includes(v);
  if (!has(rule.verbs, attrs.verb)) return false;
  if (attrs.nonResource) {
    return (rule.nonResourceURLs || []).some((u) => u === '*' || u === attrs.path || (u.endsWith('*') && attrs.path.startsWith(u.slice(0, -1))));
  }
  if (!has(rule.apiGroups, attrs.group)) return false;
  const res = attrs.sub ? `${attrs.resource}/${attrs.sub}` : attrs.resource;
  const resources = rule.resources || [];
  const resOk = resources.includes('*') || resources.includes(res) ||
    (attrs.sub && resources.includes(`*/${attrs.sub}`)) || (!attrs.sub && false);
  if (!resOk) return false;
  if (rule.resourceNames && rule.resourceNames.length) {
    if (!attrs.name || !rule.resourceNames.includes(attrs.name)) return false;
  }
  return true;
}

function rulesOf(store, ref, ns) {
  if (!ref) return [];
  if (ref.kind === 'ClusterRole') {
    const cr = store.get('rbac.authorization.k8s.io/clusterroles', null, ref.name);
    return (cr && cr.rules) || [];
  }
  if (ref.kind === 'Role') {
    const r = store.get('rbac.authorization.k8s.io/roles', ns, ref.name);
    return (r && r.rules) || [];
  }
  return [];
}

// user: {name, sa, ns, groups}; attrs: {verb, group, resource, sub, name, namespace,
// nonResource, path}. Returns true when allowed.
function allowed(store, user, attrs) {
  if (attrs.nonResource && NON_RESOURCE_OPEN.some((re) => re.test(attrs.path)) && attrs.verb === 'get') return true;
  for (const crb of store.list('rbac.authorization.k8s.io/clusterrolebindings', null)) {
    if (!subjectsMatch(crb.subjects, user)) continue;
    if (rulesOf(store, crb.roleRef, null).some((r) => ruleAllows(r, attrs))) return true;
  }
  if (attrs.namespace && !attrs.nonResource) {
    for (const rb of store.list('rbac.authorization.k8s.io/rolebindings', attrs.namespace)) {
      if (!subjectsMatch(rb.subjects, user)) continue;
      if (rulesOf(store, rb.roleRef, attrs.namespace).some((r) => ruleAllows(r, attrs))) return true;
    }
  }
  return false;
}

// The real authorizer's 403 message.
function forbiddenMessage(user, attrs) {
  if (attrs.nonResource) return `forbidden: User "${user.name}" cannot ${attrs.verb} path "${attrs.path}"`;
  const res = attrs.sub ? `${attrs.resource}/${attrs.sub}` : attrs.resource;
  const what = attrs.name ? `${attrs.resource}${attrs.group ? '.' + attrs.group : ''} "${attrs.name}"` : `${attrs.resource}${attrs.group ? '.' + attrs.group : ''}`;
  const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
  return `${what} is forbidden: User "${user.name}" cannot ${attrs.verb} resource "${res}" in API group "${attrs.group}" ${scope}`;
}

function userForServiceAccount(ns, sa) {
  return {
    name: `system:serviceaccount:${ns}:${sa}`, sa, ns,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
  };
}

module.exports = { allowed, forbiddenMessage, userForServiceAccount, bootstrapClusterRoles };
