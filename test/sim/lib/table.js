'use strict';
// Server-side printing (meta.k8s.io/v1 Table) for kubectl get.

// Minimal Kubernetes JSONPath: ".a.b", ".a[0]", ".a[*].b", ".a[?(@.k=="v")].b", "{...}".
function evalJSONPath(obj, expr) {
  let e = String(expr).trim();
  if (e.startsWith('{') && e.endsWith('}')) e = e.slice(1, -1);
  if (e.startsWith('$')) e = e.slice(1);
  const toks = [];
  let i = 0;
  while (i < e.length) {
    if (e[i] === '.') {
      i++;
      let j = i;
      while (j < e.length && e[j] !== '.' && e[j] !== '[') j++;
      if (j > i) toks.push({ t: 'field', v: e.slice(i, j) });
      i = j;
    } else if (e[i] === '[') {
      let depth = 0;
      let j = i;
      for (; j < e.length; j++) {
        if (e[j] === '[') depth++;
        else if (e[j] === ']') {
          depth--;
          if (depth === 0) break;
        }
      }
      const inner = e.slice(i + 1, j);
      i = j + 1;
      if (inner === '*') toks.push({ t: 'all' });
      else if (/^-?\d+$/.test(inner)) toks.push({ t: 'index', v: Number(inner) });
      else if (inner.startsWith('?(')) {
        const m = /^\?\(@\.([\w.-]+)\s*(==|!=)\s*["']?(.*?)["']?\)$/.exec(inner);
        if (m) toks.push({ t: 'filter', k: m[1], op: m[2], v: m[3] });
        else toks.push({ t: 'all' });
      } else if (/^['"].*['"]$/.test(inner)) toks.push({ t: 'field', v: inner.slice(1, -1) });
      else toks.push({ t: 'all' });
    } else {
      let j = i;
      while (j < e.length && e[j] !== '.' && e[j] !== '[') j++;
      toks.push({ t: 'field', v: e.slice(i, j) });
      i = j;
    }
  }
  let cur = [obj];
  for (const t of toks) {
    const next = [];
    for (const c of cur) {
      if (c == null) continue;
      if (t.t === 'field') {
        if (typeof c === 'object' && !Array.isArray(c) && t.v in c) next.push(c[t.v]);
      } else if (t.t === 'index') {
        if (Array.isArray(c)) {
          const v = c[t.v < 0 ? c.length + t.v : t.v];
          if (v !== undefined) next.push(v);
        }
      } else if (t.t === 'all') {
        if (Array.isArray(c)) next.push(...c);
        else if (typeof c === 'object') next.push(...Object.values(c));
      } else if (t.t === 'filter') {
        if (Array.isArray(c)) {
          for (const it of c) {
            const v = evalJSONPath(it, '.' + t.k)[0];
            const s = v === undefined ? undefined : String(v);
            if ((t.op === '==' && s === t.v) || (t.op === '!=' && s !== t.v)) next.push(it);
          }
        }
      }
    }
    cur = next;
  }
  return cur;
}

// metatable.ConvertToHumanReadableDateType / duration.HumanDuration
function humanDuration(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (y < 8) return `${y}y${d % 365}d`;
  return `${y}y`;
}

function age(ts) {
  if (!ts) return '<unknown>';
  return humanDuration(Date.now() - Date.parse(ts));
}

const NAME_COL = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names', priority: 0 };
const AGE_COL = { name: 'Age', type: 'string', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata', priority: 0 };

const col = (name, type = 'string', priority = 0, description = '') => ({ name, type, format: '', description, priority });

function podReady(p) {
  const cs = (p.status && p.status.containerStatuses) || [];
  const total = ((p.spec && p.spec.containers) || []).length;
  return `${cs.filter((c) => c.ready).length}/${total}`;
}
function podStatus(p) {
  if (p.metadata.deletionTimestamp) return 'Terminating';
  const st = p.status || {};
  let reason = st.reason || st.phase || 'Pending';
  for (const c of st.containerStatuses || []) {
    const s = c.state || {};
    if (s.waiting && s.waiting.reason) reason = s.waiting.reason;
    else if (s.terminated && s.terminated.reason) reason = s.terminated.reason;
    else if (s.terminated) reason = s.terminated.signal ? `Signal:${s.terminated.signal}` : `ExitCode:${s.terminated.exitCode}`;
  }
  return reason;
}
function jobStatus(j) {
  const cs = (j.status && j.status.conditions) || [];
  const has = (t) => cs.some((c) => c.type === t && c.status === 'True');
  if (has('Failed')) return 'Failed';
  if (has('Complete')) return 'Complete';
  if (has('Suspended')) return 'Suspended';
  if (has('FailureTarget')) return 'FailureTarget';
  if (has('SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

const BUILTIN_COLUMNS = {
  'core/pods': [
    [col('Ready', 'string', 0, 'The aggregate readiness state of this pod for accepting traffic.'), podReady],
    [col('Status', 'string', 0, 'The aggregate status of the containers in this pod.'), podStatus],
    [col('Restarts', 'string', 0, 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
      (p) => String(((p.status && p.status.containerStatuses) || []).reduce((a, c) => a + (c.restartCount || 0), 0))],
    ['age'],
    [col('IP', 'string', 1), (p) => (p.status && p.status.podIP) || '<none>'],
    [col('Node', 'string', 1), (p) => (p.spec && p.spec.nodeName) || '<none>'],
  ],
  'batch/jobs': [
    [col('Status'), jobStatus],
    [col('Completions'), (j) => {
      const s = j.spec || {};
      const succ = (j.status && j.status.succeeded) || 0;
      if (s.completions !== undefined && s.completions !== null) return `${succ}/${s.completions}`;
      return `${succ}/1 of ${s.parallelism || 1}`;
    }],
    [col('Duration'), (j) => {
      const st = j.status || {};
      if (!st.startTime) return '';
      const end = st.completionTime ? Date.parse(st.completionTime) : Date.now();
      return humanDuration(end - Date.parse(st.startTime));
    }],
    ['age'],
  ],
  'core/namespaces': [[col('Status'), (n) => (n.status && n.status.phase) || ''], ['age']],
  'core/nodes': [
    [col('Status', 'string', 0, 'The status of the node'), (n) => {
      const c = ((n.status && n.status.conditions) || []).find((x) => x.type === 'Ready');
      const st = c && c.status === 'True' ? 'Ready' : c && c.status === 'False' ? 'NotReady' : 'Unknown';
      return n.spec && n.spec.unschedulable ? `${st},SchedulingDisabled` : st;
    }],
    [col('Roles', 'string', 0, 'The roles of the node'), () => '<none>'],
    ['age'],
    [col('Version', 'string', 0, 'Kubelet Version reported by the node.'), (n) => (n.status && n.status.nodeInfo && n.status.nodeInfo.kubeletVersion) || ''],
    [col('Internal-IP', 'string', 1, 'List of internal IPs in the node.'), (n) => (((n.status && n.status.addresses) || []).find((a) => a.type === 'InternalIP') || {}).address || '<none>'],
  ],
  'core/secrets': [[col('Type'), (s) => s.type || 'Opaque'], [col('Data', 'string'), (s) => String(Object.keys(s.data || {}).length)], ['age']],
  'core/configmaps': [[col('Data', 'string'), (s) => String(Object.keys(s.data || {}).length + Object.keys(s.binaryData || {}).length)], ['age']],
  'core/services': [
    [col('Type'), (s) => (s.spec && s.spec.type) || 'ClusterIP'],
    [col('Cluster-IP'), (s) => (s.spec && s.spec.clusterIP) || '<none>'],
    [col('External-IP'), () => '<none>'],
    [col('Port(s)'), (s) => ((s.spec && s.spec.ports) || []).map((p) => `${p.port}/${p.protocol || 'TCP'}`).join(',') || '<none>'],
    ['age'],
  ],
  'core/persistentvolumeclaims': [
    [col('Status'), (p) => (p.status && p.status.phase) || 'Pending'],
    [col('Volume'), (p) => (p.spec && p.spec.volumeName) || ''],
    [col('Capacity'), (p) => (p.status && p.status.capacity && p.status.capacity.storage) || ''],
    [col('Access Modes'), (p) => ((p.status && p.status.accessModes) || []).map((m) => ({ ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' }[m] || m)).join(',')],
    [col('StorageClass'), (p) => (p.spec && p.spec.storageClassName) || '<unset>'],
    ['age'],
  ],
  'apps/statefulsets': [[col('Ready'), (s) => `${(s.status && s.status.readyReplicas) || 0}/${(s.spec && s.spec.replicas) ?? 1}`], ['age']],
  'apps/deployments': [
    [col('Ready'), (s) => `${(s.status && s.status.readyReplicas) || 0}/${(s.spec && s.spec.replicas) ?? 1}`],
    [col('Up-to-date', 'integer'), (s) => (s.status && s.status.updatedReplicas) || 0],
    [col('Available', 'integer'), (s) => (s.status && s.status.availableReplicas) || 0],
    ['age'],
  ],
  'autoscaling/horizontalpodautoscalers': [
    [col('Reference'), (h) => { const r = (h.spec && h.spec.scaleTargetRef) || {}; return `${r.kind}/${r.name}`; }],
    [col('Targets'), () => '<unknown>'],
    [col('MinPods', 'string'), (h) => String((h.spec && h.spec.minReplicas) || 1)],
    [col('MaxPods', 'integer'), (h) => (h.spec && h.spec.maxReplicas) || 0],
    [col('Replicas', 'integer'), (h) => (h.status && h.status.currentReplicas) || 0],
    ['age'],
  ],
  'coordination.k8s.io/leases': [[col('Holder'), (l) => (l.spec && l.spec.holderIdentity) || ''], ['age']],
  'storage.k8s.io/storageclasses': [
    [col('Provisioner'), (s) => s.provisioner || ''],
    [col('ReclaimPolicy'), (s) => s.reclaimPolicy || 'Delete'],
    [col('VolumeBindingMode'), (s) => s.volumeBindingMode || 'Immediate'],
    [col('AllowVolumeExpansion', 'string'), (s) => String(!!s.allowVolumeExpansion)],
    ['age'],
  ],
  'apiextensions.k8s.io/customresourcedefinitions': [[col('Created At', 'date'), (c) => c.metadata.creationTimestamp]],
  'core/events': [
    [col('Last Seen'), (e) => age(e.lastTimestamp || e.eventTime || e.metadata.creationTimestamp)],
    [col('Type'), (e) => e.type || ''],
    [col('Reason'), (e) => e.reason || ''],
    [col('Object'), (e) => `${String((e.involvedObject || {}).kind || '').toLowerCase()}/${(e.involvedObject || {}).name || ''}`],
    [col('Message'), (e) => e.message || ''],
  ],
};
BUILTIN_COLUMNS['events.k8s.io/events'] = [
  [col('Last Seen'), (e) => age(e.deprecatedLastTimestamp || e.eventTime || e.metadata.creationTimestamp)],
  [col('Type'), (e) => e.type || ''],
  [col('Reason'), (e) => e.reason || ''],
  [col('Object'), (e) => `${String((e.regarding || {}).kind || '').toLowerCase()}/${(e.regarding || {}).name || ''}`],
  [col('Message'), (e) => e.note || ''],
];

function cellForJSONValue(type, v) {
  if (v === undefined || v === null) return null;
  switch (type) {
    case 'integer': return typeof v === 'number' ? Math.trunc(v) : null;
    case 'number': return typeof v === 'number' ? v : null;
    case 'boolean': return typeof v === 'boolean' ? v : null;
    case 'date': {
      const t = Date.parse(v);
      return isNaN(t) ? null : humanDuration(Date.now() - t);
    }
    default: return typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
}

// Returns {columnDefinitions, rowFor(obj) -> cells}
function tableColumns(info, version) {
  if (!info.builtin) {
    const v = info.versionInfo[version] || {};
    let cols = v.additionalPrinterColumns;
    if (cols === undefined && info.crd && info.crd.spec.additionalPrinterColumns) cols = info.crd.spec.additionalPrinterColumns;
    if (!cols || !cols.length) {
      return {
        columnDefinitions: [NAME_COL, { name: 'Age', type: 'date', format: '', description: AGE_COL.description, priority: 0 }],
        rowFor: (o) => [o.metadata.name, age(o.metadata.creationTimestamp)],
      };
    }
    const defs = [NAME_COL].concat(cols.map((c) => ({ name: c.name, type: c.type, format: c.format || '', description: c.description || '', priority: c.priority || 0 })));
    return {
      columnDefinitions: defs,
      rowFor: (o) => [o.metadata.name].concat(cols.map((c) => {
        const r = evalJSONPath(o, c.jsonPath);
        if (!r.length) return null;
        return cellForJSONValue(c.type, r[0]);
      })),
    };
  }
  const spec = BUILTIN_COLUMNS[info.id];
  if (!spec) {
    return { columnDefinitions: [NAME_COL, AGE_COL], rowFor: (o) => [o.metadata.name, age(o.metadata.creationTimestamp)] };
  }
  const defs = info.id.endsWith('/events') ? [] : [NAME_COL];
  const fns = info.id.endsWith('/events') ? [] : [(o) => o.metadata.name];
  for (const [c, f] of spec) {
    if (c === 'age') {
      defs.push(AGE_COL);
      fns.push((o) => age(o.metadata.creationTimestamp));
    } else {
      defs.push(c);
      fns.push(f);
    }
  }
  if (info.id.endsWith('/events')) {
    // kubectl get events shows no Name column by default; keep one at priority 1
    defs.push(Object.assign({}, NAME_COL, { priority: 1 }));
    fns.push((o) => o.metadata.name);
  }
  return { columnDefinitions: defs, rowFor: (o) => fns.map((f) => f(o)) };
}

function partialMeta(o) {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

// includeObject: None | Metadata (default) | Object
function toTable(info, version, objs, listMeta, includeObject, noHeaders) {
  const t = tableColumns(info, version);
  const table = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta || {} };
  table.columnDefinitions = noHeaders ? null : t.columnDefinitions;
  table.rows = objs.map((o) => {
    const row = { cells: t.rowFor(o) };
    if (includeObject === 'Object') row.object = o;
    else if (includeObject !== 'None') row.object = partialMeta(o);
    return row;
  });
  return table;
}

module.exports = { toTable, evalJSONPath, humanDuration, tableColumns };
