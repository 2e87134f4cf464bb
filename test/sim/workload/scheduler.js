'use strict';
// Simulated nodes and kube-scheduler's placement of a pod on them (issue 31.2).
//
// Nodes: the sim registers ctx.nodes Node objects as kubelets do (SIM_NODES, default 1): one node
// is "sim-node" (the single-node default), N > 1 are sim-node-1 .. sim-node-N, each labelled
// kubernetes.io/hostname=<name>, kubernetes.io/os=linux, kubernetes.io/arch, with a Ready
// condition, an InternalIP (127.0.0.1, or 127.0.0.<k+1> for sim-node-k of several: all loopback),
// capacity/allocatable (2 CPUs, 8Gi, 110 pods).
//
// Placement follows kube-scheduler (pkg/scheduler/framework/plugins, v1.25+) for these cases,
// one pod at a time, each seeing the pods bound before it:
// - filters: NodeName (spec.nodeName set: the scheduler is not involved), NodeUnschedulable
//   (spec.unschedulable unless tolerated), TaintToleration (NoSchedule/NoExecute taints; a node
//   whose Ready condition is not True has node.kubernetes.io/not-ready:NoSchedule, as the node
//   lifecycle controller taints it), NodeAffinity (nodeSelector and required node affinity),
//   PodTopologySpread for whenUnsatisfiable DoNotSchedule (counts of the non-terminating pods of
//   the namespace matching labelSelector per domain of topologyKey over the nodes that pass the
//   pod's node affinity and carry the key; a node without the key is refused; skew = count on
//   the node's domain + 1 if the pod matches itself - the minimum (0 when fewer domains than
//   minDomains) must be <= maxSkew).
// - scores, summed with the default profile's weights: PodTopologySpread ScheduleAnyway (2),
//   InterPodAffinity preferred terms (2), NodeResourcesFit LeastAllocated over the pod count as
//   the stand-in for the requests a pod without requests is scored with (1); ties are broken at
//   random, as selectHost does.
// The failure message is the scheduler's: "0/4 nodes are available: 2 node(s) didn't match pod
// topology spread constraints, 2 node(s) were unschedulable. preemption: ...".

const { fromLabelSelectorObject, matchLabels } = require('../lib/selectors');

const HOSTNAME = 'kubernetes.io/hostname';
const MAX_SCORE = 100;
const NOT_READY = 'node.kubernetes.io/not-ready';
const UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

function nodeNames(n) {
  if (n <= 1) return ['sim-node'];
  return Array.from({ length: n }, (_, i) => `sim-node-${i + 1}`);
}

// The sim's node count: opts.nodes, else SIM_NODES, else 1; an error names SIM_NODES.
function nodeCount(v) {
  const s = v === undefined || v === null || v === '' ? '1' : String(v);
  const n = Number(s);
  if (!/^\d+$/.test(s.trim()) || n < 1 || n > 64) throw new Error(`SIM_NODES (nodes) ${JSON.stringify(v)}: want a whole number of nodes from 1 to 64, e.g. SIM_NODES=4`);
  return n;
}

function nodeObject(name, k, total) {
  const ip = total > 1 ? `127.0.0.${k + 2}` : '127.0.0.1';
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { [HOSTNAME]: name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': process.arch === 'arm64' ? 'arm64' : 'amd64', 'beta.kubernetes.io/os': 'linux' },
    },
    spec: {},
    status: {
      capacity: { cpu: '2', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' },
      allocatable: { cpu: '2', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }],
      addresses: [{ type: 'InternalIP', address: ip }, { type: 'Hostname', address: name }],
      nodeInfo: { kubeletVersion: 'v1.32.0-sim', operatingSystem: 'linux', architecture: process.arch === 'arm64' ? 'arm64' : 'amd64', containerRuntimeVersion: 'sim://1' },
    },
  };
}

function nodeIP(node) {
  const a = ((node && node.status && node.status.addresses) || []).find((x) => x.type === 'InternalIP');
  return a ? a.address : '127.0.0.1';
}

function nodeReady(node) {
  const c = ((node.status && node.status.conditions) || []).find((x) => x.type === 'Ready');
  return !!c && c.status === 'True';
}

// The node's taints, with the not-ready taint of a node whose Ready condition is not True.
function taintsOf(node) {
  const t = ((node.spec && node.spec.taints) || []).slice();
  if (!nodeReady(node) && !t.some((x) => x.key === NOT_READY)) t.push({ key: NOT_READY, effect: 'NoSchedule' });
  return t;
}

// v1.Toleration.ToleratesTaint
function tolerates(tol, taint) {
  if (tol.effect && tol.effect !== taint.effect) return false;
  if (tol.key && tol.key !== taint.key) return false;
  const op = tol.operator || 'Equal';
  if (op === 'Exists') return true;
  return (tol.value || '') === (taint.value || '');
}

function untolerated(pod, node) {
  const tols = pod.spec.tolerations || [];
  return taintsOf(node).find((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tols.some((x) => tolerates(x, t))) || null;
}

// nodeaffinity: one NodeSelectorRequirement against the node's labels (or its name, matchFields)
function matchRequirement(r, labels) {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = labels[r.key];
  const vals = r.values || [];
  switch (r.operator) {
    case 'In': return has && vals.includes(v);
    case 'NotIn': return !has || !vals.includes(v);
    case 'Exists': return has;
    case 'DoesNotExist': return !has;
    case 'Gt': return has && /^-?\d+$/.test(v) && Number(v) > Number(vals[0]);
    case 'Lt': return has && /^-?\d+$/.test(v) && Number(v) < Number(vals[0]);
    default: return false;
  }
}

// NodeAffinity's filter: spec.nodeSelector and requiredDuringSchedulingIgnoredDuringExecution
// (terms ORed, the requirements of a term ANDed; a term without requirements matches nothing).
function matchesNodeAffinity(pod, node) {
  const labels = node.metadata.labels || {};
  for (const [k, v] of Object.entries(pod.spec.nodeSelector || {})) if (labels[k] !== v) return false;
  const req = pod.spec.affinity && pod.spec.affinity.nodeAffinity && pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (!req) return true;
  return (req.nodeSelectorTerms || []).some((t) => {
    const exprs = t.matchExpressions || [];
    const fields = t.matchFields || [];
    if (!exprs.length && !fields.length) return false;
    return exprs.every((r) => matchRequirement(r, labels)) && fields.every((r) => matchRequirement(r, { 'metadata.name': node.metadata.name }));
  });
}

function selectorMatches(sel, labels) {
  if (!sel) return false; // a nil selector matches no pod
  return matchLabels(fromLabelSelectorObject(sel), labels || {});
}

// Pods of ns bound to a node, not terminating, matching sel: counts per value of key.
function domainCounts(pods, nodes, ns, sel, key) {
  const nodeByName = new Map(nodes.map((n) => [n.metadata.name, n]));
  const counts = new Map();
  for (const n of nodes) counts.set((n.metadata.labels || {})[key], 0);
  for (const p of pods) {
    if (p.metadata.namespace !== ns || !p.spec.nodeName || p.metadata.deletionTimestamp) continue;
    const n = nodeByName.get(p.spec.nodeName);
    if (!n || !selectorMatches(sel, p.metadata.labels)) continue;
    const d = (n.metadata.labels || {})[key];
    if (counts.has(d)) counts.set(d, counts.get(d) + 1);
  }
  return counts;
}

// The nodes a constraint counts: those the pod's node affinity allows (nodeAffinityPolicy Honor,
// the default) that carry the topology key.
function eligible(pod, nodes, key) {
  return nodes.filter((n) => Object.prototype.hasOwnProperty.call(n.metadata.labels || {}, key) && matchesNodeAffinity(pod, n));
}

// PodTopologySpread's filter; returns the failure reason or null.
function spreadFilter(pod, node, nodes, pods) {
  for (const c of pod.spec.topologySpreadConstraints || []) {
    if (c.whenUnsatisfiable !== 'DoNotSchedule') continue;
    const labels = node.metadata.labels || {};
    if (!Object.prototype.hasOwnProperty.call(labels, c.topologyKey)) return "node(s) didn't match pod topology spread constraints (missing required label)";
    const counts = domainCounts(pods, eligible(pod, nodes, c.topologyKey), pod.metadata.namespace, c.labelSelector, c.topologyKey);
    let min = counts.size ? Math.min(...counts.values()) : 0;
    if (c.minDomains && counts.size < c.minDomains) min = 0;
    const self = selectorMatches(c.labelSelector, pod.metadata.labels) ? 1 : 0;
    const here = counts.get(labels[c.topologyKey]) || 0;
    if (here + self - min > (c.maxSkew || 1)) return "node(s) didn't match pod topology spread constraints";
  }
  return null;
}

// Why node cannot take pod (the scheduler's words), or null.
function filterNode(pod, node, nodes, pods) {
  const tols = pod.spec.tolerations || [];
  if (node.spec && node.spec.unschedulable && !tols.some((t) => tolerates(t, { key: UNSCHEDULABLE, effect: 'NoSchedule' }))) return 'node(s) were unschedulable';
  const t = untolerated(pod, node);
  if (t) return `node(s) had untolerated taint {${t.key}: ${t.value || ''}}`;
  if (!matchesNodeAffinity(pod, node)) return "node(s) didn't match Pod's node affinity/selector";
  return spreadFilter(pod, node, nodes, pods);
}

// PodTopologySpread's score for ScheduleAnyway constraints: the matching pods in the node's
// domain weighted by log(domains + 2) (lower is better); null for a node without a key.
function spreadRaw(pod, node, nodes, pods) {
  let s = 0;
  for (const c of pod.spec.topologySpreadConstraints || []) {
    if (c.whenUnsatisfiable !== 'ScheduleAnyway') continue;
    const labels = node.metadata.labels || {};
    if (!Object.prototype.hasOwnProperty.call(labels, c.topologyKey)) return null;
    const counts = domainCounts(pods, eligible(pod, nodes, c.topologyKey), pod.metadata.namespace, c.labelSelector, c.topologyKey);
    s += (counts.get(labels[c.topologyKey]) || 0) * Math.log(counts.size + 2);
  }
  return s;
}

// InterPodAffinity's raw score: the weights of the preferred (anti-)affinity terms whose pods are
// in the node's topology domain (pods of the term's namespaces: by default the pod's own).
function affinityRaw(pod, node, nodes, pods) {
  const a = pod.spec.affinity || {};
  const terms = [];
  for (const [kind, sign] of [['podAffinity', 1], ['podAntiAffinity', -1]]) {
    for (const w of (a[kind] && a[kind].preferredDuringSchedulingIgnoredDuringExecution) || []) terms.push([w.weight || 0, w.podAffinityTerm || {}, sign]);
  }
  if (!terms.length) return 0;
  const nodeByName = new Map(nodes.map((n) => [n.metadata.name, n]));
  let s = 0;
  for (const [weight, term, sign] of terms) {
    const v = (node.metadata.labels || {})[term.topologyKey];
    if (v === undefined) continue;
    const nss = term.namespaces && term.namespaces.length ? term.namespaces : [pod.metadata.namespace];
    for (const p of pods) {
      if (!p.spec.nodeName || p.metadata.deletionTimestamp || !nss.includes(p.metadata.namespace)) continue;
      const n = nodeByName.get(p.spec.nodeName);
      if (n && (n.metadata.labels || {})[term.topologyKey] === v && selectorMatches(term.labelSelector, p.metadata.labels)) s += sign * weight;
    }
  }
  return s;
}

function running(pods, node) {
  return pods.filter((p) => p.spec.nodeName === node.metadata.name && !['Succeeded', 'Failed'].includes(p.status && p.status.phase)).length;
}

// Scores the feasible nodes; returns [{node, score}].
function scoreNodes(pod, feasible, nodes, pods) {
  const spread = feasible.map((n) => spreadRaw(pod, n, nodes, pods));
  const known = spread.filter((x) => x !== null);
  const smax = known.length ? Math.max(...known) : 0;
  const smin = known.length ? Math.min(...known) : 0;
  const aff = feasible.map((n) => affinityRaw(pod, n, nodes, pods));
  const amax = Math.max(...aff);
  const amin = Math.min(...aff);
  return feasible.map((node, i) => {
    // pkg/scheduler/framework/plugins/podtopologyspread/scoring.go NormalizeScore
    let sp = 0;
    if (spread[i] !== null) sp = smax === 0 ? MAX_SCORE : Math.floor((MAX_SCORE * (smax + smin - spread[i])) / smax);
    const af = amax === amin ? 0 : Math.floor((MAX_SCORE * (aff[i] - amin)) / (amax - amin));
    const cap = Number((node.status && node.status.allocatable && node.status.allocatable.pods) || 110);
    const fit = Math.floor(MAX_SCORE * (1 - Math.min(1, (running(pods, node) + 1) / cap)));
    return { node, score: 2 * sp + 2 * af + fit };
  });
}

// Places pod: {node} or {message} (FailedScheduling's). pods: every pod of the cluster.
function place(pod, nodes, pods) {
  const reasons = new Map();
  const feasible = [];
  for (const n of nodes) {
    const why = filterNode(pod, n, nodes, pods);
    if (why) reasons.set(why, (reasons.get(why) || 0) + 1);
    else feasible.push(n);
  }
  if (!feasible.length) {
    const parts = [...reasons.entries()].map(([r, c]) => `${c} ${r}`).sort();
    const total = nodes.length;
    const why = parts.length ? ` ${parts.join(', ')}.` : '';
    return { message: `0/${total} nodes are available:${why} preemption: 0/${total} nodes are available: ${total} Preemption is not helpful for scheduling.` };
  }
  const scored = scoreNodes(pod, feasible, nodes, pods);
  const best = Math.max(...scored.map((s) => s.score));
  const top = scored.filter((s) => s.score === best);
  return { node: top[Math.floor(Math.random() * top.length)].node };
}

// Pod validation of spec.topologySpreadConstraints (ValidateTopologySpreadConstraints).
function validateSpread(list, p, out, E) {
  const seen = new Set();
  (list || []).forEach((c, i) => {
    const f = `${p}.topologySpreadConstraints[${i}]`;
    if (!c) return;
    if (!(Number(c.maxSkew) > 0)) out.push(E.inv(`${f}.maxSkew`, c.maxSkew === undefined ? 0 : c.maxSkew, 'must be greater than zero'));
    if (!c.topologyKey) out.push(E.req(`${f}.topologyKey`, 'can not be empty'));
    // whenUnsatisfiable's values: the schema's enum (builtin.js)
    if (!c.whenUnsatisfiable) out.push(E.req(`${f}.whenUnsatisfiable`));
    if (c.minDomains !== undefined && c.minDomains !== null) {
      if (!(c.minDomains > 0)) out.push(E.inv(`${f}.minDomains`, c.minDomains, 'must be greater than 0'));
      else if (c.whenUnsatisfiable !== 'DoNotSchedule') out.push(E.inv(`${f}.minDomains`, c.minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${c.whenUnsatisfiable}`));
    }
    const pair = `{${c.topologyKey}, ${c.whenUnsatisfiable}}`;
    if (seen.has(pair)) out.push(E.dup(f, pair));
    seen.add(pair);
  });
}

module.exports = { HOSTNAME, nodeNames, nodeCount, nodeObject, nodeIP, nodeReady, filterNode, place, validateSpread, matchesNodeAffinity };
