'use strict';
// ClusterRole aggregation, as kube-controller-manager's clusterrole-aggregation controller
// (pkg/controller/clusterroleaggregation): a ClusterRole with an aggregationRule gets as its rules
// the rules of every other ClusterRole that one of its clusterRoleSelectors matches, in name order,
// each rule once; what was written into its rules by hand is replaced. Any ClusterRole change
// re-evaluates every aggregated role, so chains (view -> edit -> admin) settle in a few rounds.

const U = require('./util');
const { compileLabelSelector } = require('../lib/selectors');

const RES = 'rbac.authorization.k8s.io/clusterroles';

class ClusterRoleAggregation {
  constructor(ctx) {
    this.store = ctx.store;
    this.queue = new U.WorkQueue('clusterrole-aggregation', (name) => this.sync(name), ctx.log);
  }

  onEvent(ev) {
    if (ev.res === RES) this.resync();
  }

  resync() {
    for (const cr of this.store.list(RES, null)) {
      if (cr.aggregationRule) this.queue.add(cr.metadata.name);
    }
  }

  sync(name) {
    const cr = this.store.get(RES, null, name);
    if (!cr || !cr.aggregationRule) return;
    const selectors = (cr.aggregationRule.clusterRoleSelectors || []).map((s) => compileLabelSelector(s));
    const sources = this.store.list(RES, null)
      .filter((o) => o.metadata.name !== name && selectors.some((m) => m(o.metadata.labels || {})))
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    const rules = [];
    const seen = new Set();
    for (const src of sources) {
      for (const r of src.rules || []) {
        const k = JSON.stringify(r);
        if (!seen.has(k)) {
          seen.add(k);
          rules.push(r);
        }
      }
    }
    if (JSON.stringify(rules) === JSON.stringify(cr.rules || [])) return;
    cr.rules = rules;
    this.store.update(RES, cr); // a conflict is retried by the queue
  }

  stop() {
    this.queue.stop();
  }
}

module.exports = { ClusterRoleAggregation };
