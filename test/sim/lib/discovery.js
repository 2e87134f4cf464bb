'use strict';
// Discovery documents (legacy, unaggregated) and OpenAPI v3 per group-version documents.
const crypto = require('crypto');
const { VERBS } = require('./resources');

const VERSION = {
  major: '1', minor: '32', emulationMajor: '1', emulationMinor: '32', minCompatibilityMajor: '1', minCompatibilityMinor: '31',
  gitVersion: 'v1.32.0-sim', gitCommit: '0000000000000000000000000000000000000000', gitTreeState: 'clean',
  buildDate: '2024-12-11T00:00:00Z', goVersion: 'go1.23.4', compiler: 'gc', platform: 'linux/amd64',
};

function hash(s) {
  return crypto.createHash('sha256').update(s).digest('base64').slice(0, 11) + '=';
}

function resourceList(registry, group, version) {
  const out = [];
  for (const info of registry.all()) {
    if (info.group !== group || !info.versions.includes(version)) continue;
    const e = {
      name: info.plural, singularName: info.singular, namespaced: info.namespaced, kind: info.kind,
      verbs: info.id === 'core/namespaces' ? ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] : VERBS.slice(),
    };
    if (info.shortNames && info.shortNames.length) e.shortNames = info.shortNames;
    if (info.categories && info.categories.length) e.categories = info.categories;
    e.storageVersionHash = hash(info.id + '/' + version);
    out.push(e);
    let subs = info.subresources;
    if (!info.builtin && info.versionInfo[version]) {
      const vs = info.versionInfo[version].subresources || {};
      subs = Object.keys(vs);
    }
    for (const s of subs) {
      if (s === 'status') out.push({ name: `${info.plural}/status`, singularName: '', namespaced: info.namespaced, kind: info.kind, verbs: ['get', 'patch', 'update'] });
      if (s === 'scale') out.push({ name: `${info.plural}/scale`, singularName: '', namespaced: info.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
      if (s === 'log') out.push({ name: `${info.plural}/log`, singularName: '', namespaced: info.namespaced, kind: info.kind, verbs: ['get'] });
      if (s === 'token') out.push({ name: `${info.plural}/token`, singularName: '', namespaced: info.namespaced, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] });
    }
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : 'v1', resources: out };
}

function groupList(registry) {
  const groups = [];
  const order = [];
  for (const info of registry.all()) {
    if (!info.group) continue;
    if (!order.includes(info.group)) order.push(info.group);
  }
  for (const g of order) groups.push(apiGroup(registry, g));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

function apiGroup(registry, g) {
  const { sortVersions } = require('./resources');
  const vs = new Set();
  for (const info of registry.all()) if (info.group === g) info.versions.forEach((v) => vs.add(v));
  if (!vs.size) return null;
  const sorted = sortVersions([...vs]);
  const versions = sorted.map((v) => ({ groupVersion: `${g}/${v}`, version: v }));
  return { kind: 'APIGroup', apiVersion: 'v1', name: g, versions, preferredVersion: versions[0] };
}

function apiVersions(serverAddress) {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

// ---- OpenAPI v3 ----
function gvPaths(registry) {
  const gvs = new Set(['api/v1']);
  for (const info of registry.all()) {
    for (const v of info.versions) gvs.add(info.group ? `apis/${info.group}/${v}` : 'api/v1');
  }
  return [...gvs];
}

function openapiRoot(registry) {
  const paths = {};
  for (const p of gvPaths(registry)) {
    const doc = JSON.stringify(openapiGV(registry, p));
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${crypto.createHash('sha512').update(doc).digest('hex').slice(0, 128).toUpperCase()}` };
  }
  return { paths };
}

function reverseGroup(g) {
  return g.split('.').reverse().join('.');
}

function schemaName(info, version) {
  if (info.builtin) {
    const short = info.group ? info.group.replace(/\.k8s\.io$/, '').split('.')[0] : 'core';
    return `io.k8s.api.${short}.${version}.${info.kind}`;
  }
  return `${reverseGroup(info.group)}.${version}.${info.kind}`;
}

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const Q = (name, type = 'string') => ({ name, in: 'query', schema: { type, uniqueItems: true } });

function openapiGV(registry, gvPath) {
  let group;
  let version;
  if (gvPath === 'api/v1') {
    group = '';
    version = 'v1';
  } else {
    const m = /^apis\/(.+)\/([^/]+)$/.exec(gvPath);
    if (!m) return null;
    group = m[1];
    version = m[2];
  }
  const doc = { openapi: '3.0.0', info: { title: 'Kubernetes', version: VERSION.gitVersion }, paths: {}, components: { schemas: {} } };
  let found = false;
  for (const info of registry.all()) {
    if (info.group !== group || !info.versions.includes(version)) continue;
    found = true;
    const gvk = { group, version, kind: info.kind };
    const sname = schemaName(info, version);
    const ref = { $ref: `#/components/schemas/${sname}` };
    let schema = { type: 'object', 'x-kubernetes-group-version-kind': [gvk] };
    if (!info.builtin && info.versionInfo[version] && info.versionInfo[version].schema) {
      schema = Object.assign({}, info.versionInfo[version].schema.openAPIV3Schema, { 'x-kubernetes-group-version-kind': [gvk] });
    }
    doc.components.schemas[sname] = schema;
    const base = (group ? `/apis/${group}/${version}` : '/api/v1') + (info.namespaced ? '/namespaces/{namespace}' : '') + `/${info.plural}`;
    const content = {};
    for (const t of ['application/json', 'application/yaml']) content[t] = { schema: ref };
    const patchContent = {};
    const smp = info.builtin ? [] : [];
    for (const t of PATCH_TYPES.concat(smp)) patchContent[t] = { schema: { type: 'object' } };
    const op = (verb, extra) => Object.assign({
      tags: [group || 'core'], operationId: `${verb}${info.kind}`, 'x-kubernetes-action': verb, 'x-kubernetes-group-version-kind': gvk,
      responses: { 200: { description: 'OK', content } },
    }, extra);
    const writeParams = [Q('dryRun'), Q('fieldManager'), Q('fieldValidation')];
    doc.paths[base] = {
      get: op('list', { parameters: [Q('labelSelector'), Q('fieldSelector'), Q('limit', 'integer'), Q('continue'), Q('watch', 'boolean'), Q('resourceVersion')] }),
      post: op('post', { parameters: writeParams, requestBody: { content, required: true } }),
      delete: op('deletecollection', {}),
    };
    doc.paths[`${base}/{name}`] = {
      get: op('get', {}),
      put: op('put', { parameters: writeParams, requestBody: { content, required: true } }),
      patch: op('patch', { parameters: writeParams.concat([Q('force', 'boolean')]), requestBody: { content: patchContent, required: true } }),
      delete: op('delete', {}),
    };
  }
  if (!found) return null;
  return doc;
}

// A minimal OpenAPI v2 document in gnostic protobuf form (openapi_v2.Document): swagger,
// info, empty paths and definitions. kubectl < 1.28 fetches it eagerly for apply and
// validation; with no definitions it falls back to its compiled-in types.
function pbField(num, payload) {
  const b = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
  const len = [];
  let n = b.length;
  do {
    let x = n & 0x7f;
    n >>>= 7;
    if (n) x |= 0x80;
    len.push(x);
  } while (n);
  return Buffer.concat([Buffer.from([(num << 3) | 2]), Buffer.from(len), b]);
}
function openapiV2Proto() {
  const info = Buffer.concat([pbField(1, 'Kubernetes'), pbField(2, VERSION.gitVersion)]);
  return Buffer.concat([pbField(1, '2.0'), pbField(2, info), pbField(8, Buffer.alloc(0)), pbField(9, Buffer.alloc(0))]);
}

// Aggregated discovery (apidiscovery.k8s.io/v2 and v2beta1): /api answers the legacy group,
// /apis every named group, each with all versions and resources in one document.
function aggregated(registry, legacy, apiVersion) {
  const { sortVersions } = require('./resources');
  const groups = new Map();
  for (const info of registry.all()) {
    if (legacy ? info.group !== '' : info.group === '') continue;
    if (!groups.has(info.group)) groups.set(info.group, new Map());
    const g = groups.get(info.group);
    for (const v of info.versions) {
      if (!g.has(v)) g.set(v, []);
      const rl = resourceList(registry, info.group, v).resources;
      const main = rl.find((r) => r.name === info.plural);
      if (!main) continue;
      const e = {
        resource: info.plural,
        responseKind: { group: info.group, version: v, kind: info.kind },
        scope: info.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: info.singular,
        verbs: main.verbs,
      };
      if (main.shortNames) e.shortNames = main.shortNames;
      if (main.categories) e.categories = main.categories;
      const subs = rl.filter((r) => r.name.startsWith(`${info.plural}/`)).map((r) => ({
        subresource: r.name.slice(info.plural.length + 1),
        responseKind: { group: r.group !== undefined ? r.group : info.group, version: r.version || v, kind: r.kind },
        verbs: r.verbs,
      }));
      if (subs.length) e.subresources = subs;
      g.get(v).push(e);
    }
  }
  const items = [];
  for (const [name, vers] of groups) {
    const versions = sortVersions([...vers.keys()]).map((v) => ({
      version: v,
      resources: vers.get(v).sort((a, b) => (a.resource < b.resource ? -1 : 1)),
      freshness: 'Current',
    }));
    items.push({ metadata: { name, creationTimestamp: null }, versions });
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion, metadata: {}, items };
}

// Which aggregated discovery version the Accept header asks for first, or null.
function aggregatedVersion(accept) {
  for (const part of String(accept || '').split(',')) {
    if (!/as=APIGroupDiscoveryList/.test(part) || !/g=apidiscovery\.k8s\.io/.test(part)) {
      if (/application\/json/.test(part) && !/as=/.test(part)) return null;
      continue;
    }
    const m = /v=(v2beta1|v2)\b/.exec(part);
    if (m) return m[1];
  }
  return null;
}

module.exports = { aggregated, aggregatedVersion, openapiV2Proto, VERSION, resourceList, groupList, apiGroup, apiVersions, openapiRoot, openapiGV };
