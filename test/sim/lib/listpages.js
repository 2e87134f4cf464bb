'use strict';
// limit/continue of list requests, served as kube-apiserver's etcd3 storage serves them
// (k8s.io/apiserver pkg/storage/etcd3/store.go GetList, pkg/storage/continue.go):
// - the continue token is opaque to clients: base64url (no padding) of
//   {"v":"meta.k8s.io/v1","rv":<the first page's resourceVersion>,"start":"<last key>\u0000"},
//   the key relative to the list's prefix ("ns/name" across namespaces, "name" within one);
// - every page of one list shows the state at the first page's resourceVersion (etcd reads at
//   that revision): the sim keeps the first page's objects (references: stored objects are never
//   changed in place) for the pages that follow; a list whose snapshot was dropped (more than
//   MAX_SNAPSHOTS lists in flight, or a restart) carries on from the current state;
// - remainingItemCount is set only without label and field selectors (the caller's part);
// - once that resourceVersion is compacted (the store's history no longer reaches it): 410
//   Expired "The provided continue parameter is too old ...", whose metadata.continue is a token
//   with rv -1, which continues the list from the current state (inconsistent, as the message
//   says);
// - malformed tokens: 400 "continue key is not valid: ...".
const S = require('./status');

const VERSION = 'meta.k8s.io/v1';
const MAX_SNAPSHOTS = 32;
const INCONSISTENT = 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function token(rv, start) {
  return Buffer.from(JSON.stringify({ v: VERSION, rv, start: `${start}\u0000` })).toString('base64url');
}

function invalid(why) {
  return S.badRequest(`continue key is not valid: ${why}`);
}

// {rv, start} of a token, or a 400 as the real decoder (storage.DecodeContinue) words it
function decode(cont) {
  const bad = cont.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0) throw invalid(`illegal base64 data at input byte ${bad}`);
  let tok;
  try {
    tok = JSON.parse(Buffer.from(cont, 'base64url').toString('utf8'));
  } catch (e) {
    throw invalid(e.message);
  }
  if (!tok || typeof tok !== 'object' || tok.v !== VERSION) throw invalid('server does not recognize this encoded version');
  if (!Number.isInteger(tok.rv) || tok.rv === 0) throw invalid(`incorrect encoded start resourceVersion (version ${VERSION})`);
  if (typeof tok.start !== 'string' || !tok.start) throw invalid(`encoded start key empty (version ${VERSION})`);
  return { rv: tok.rv, start: tok.start };
}

// The list's objects (stored objects, sorted by key: only read them) from the token's position,
// at the resourceVersion its pages show, and relKey(obj) for the next token.
function page(server, storeRes, ns, limit, cont) {
  const store = server.store;
  const relKey = (o) => (ns ? o.metadata.name : `${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
  const snaps = server.listSnapshots || (server.listSnapshots = new Map());
  for (const [k, v] of snaps) if (v.rv < store.historyStart) snaps.delete(k);
  const id = (rv) => `${storeRes}|${ns || ''}|${rv}`;
  if (!cont) {
    const objects = store.list(storeRes, ns, { noCopy: true });
    const rv = Number(store.rv());
    if (limit > 0 && objects.length > limit) {
      snaps.delete(id(rv)); // re-inserted: the newest last, the oldest dropped first
      snaps.set(id(rv), { rv, objects });
      while (snaps.size > MAX_SNAPSHOTS) snaps.delete(snaps.keys().next().value);
    }
    return { rv, objects, relKey };
  }
  const tok = decode(cont);
  if (tok.rv > 0 && tok.rv < store.historyStart) {
    const e = S.err(410, 'Expired', INCONSISTENT);
    e.listContinue = token(-1, tok.start.replace(/\u0000$/, ''));
    throw e;
  }
  const snap = tok.rv > 0 ? snaps.get(id(tok.rv)) : null;
  const rv = snap ? tok.rv : Number(store.rv());
  const all = snap ? snap.objects : store.list(storeRes, ns, { noCopy: true });
  // keys sort as the store sorts them; the token's start is just past the last key returned
  const objects = all.filter((o) => relKey(o) >= tok.start);
  return { rv, objects, relKey };
}

module.exports = { page, token, decode, MAX_SNAPSHOTS };
