'use strict';
// RBAC authorization for service-account tokens (issued by serviceaccounts/<sa>/token), as the
// real RBAC authorizer: Role/ClusterRole rules reached through RoleBindings (namespace) and
// ClusterRoleBindings (everywhere), subjects by ServiceAccount, User or Group. The kubeconfig's
// admin token is not subject to it. Built-in roles: cluster-admin, and discovery/health paths
// (system:discovery, system:public-info-viewer) for every authenticated user.

const NON_RESOURCE_OPEN = [/^\/api(\/v1)?$/, /^\/apis(\/[^/]+(\/[^/]+)?)?$/, /^\/version$/, /^\/openapi(\/.*)?$/, /^\/healthz$/, /^\/livez$/, /^\/readyz$/];

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
    if (ref.name === 'cluster-admin') return [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }];
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

module.exports = { allowed, forbiddenMessage, userForServiceAccount };
