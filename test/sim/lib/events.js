'use strict';
// core/v1 Event <-> events.k8s.io/v1 Event (both views of the same stored object, as in
// the real apiserver: pkg/apis/events/v1 conversion).

const MAP = [
  // [core field, events.k8s.io field]
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['action', 'action'],
  ['reason', 'reason'],
  ['related', 'related'],
  ['type', 'type'],
];

function toEventsV1(core) {
  const o = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: core.metadata };
  for (const [c, e] of MAP) if (core[c] !== undefined && core[c] !== null && core[c] !== '') o[e] = core[c];
  if (o.deprecatedCount === 0) delete o.deprecatedCount;
  return o;
}

function toCoreV1(ev) {
  const o = { apiVersion: 'v1', kind: 'Event', metadata: ev.metadata };
  for (const [c, e] of MAP) if (ev[e] !== undefined && ev[e] !== null) o[c] = ev[e];
  if (o.source === undefined && ev.reportingController) o.source = { component: ev.reportingController };
  return o;
}

module.exports = { toEventsV1, toCoreV1 };
