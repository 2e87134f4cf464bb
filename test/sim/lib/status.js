'use strict';
// metav1.Status bodies as the real apiserver returns them.
const { StoreError } = require('../store');

function err(code, reason, message, details) {
  return new StoreError(code, reason, message, details);
}

// "Job.batch" / "Pod": the qualified kind used in Invalid messages.
function qualifiedKind(info) {
  return info.group ? `${info.kind}.${info.group}` : info.kind;
}

// causes: [{field, reason, message}] where message is the full "Required value" /
// "Invalid value: ..." text. Message format follows apimachinery errors.NewInvalid.
function invalid(info, name, causes) {
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const msg = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return err(422, 'Invalid', `${qualifiedKind(info)} "${name || ''}" is invalid: ${msg}`, {
    name: name || '',
    group: info.group || undefined, // StatusDetails.group is omitempty too (the core group)
    kind: info.kind,
    // StatusCause.field is omitempty: a cause of the object as a whole (path "") has none
    causes: causes.map((c) => (c.field === '' ? { reason: c.reason, message: c.message } : { reason: c.reason, message: c.message, field: c.field })),
  });
}

function badRequest(message) {
  return err(400, 'BadRequest', message);
}

function methodNotAllowed(message) {
  return err(405, 'MethodNotAllowed', message || 'the server does not allow this method on the requested resource');
}

function notFoundPath() {
  return err(404, 'NotFound', 'the server could not find the requested resource', {});
}

function unsupportedMedia(ct, accepted) {
  return err(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

function unauthorized() {
  return err(401, 'Unauthorized', 'Unauthorized');
}

function successStatus(info, name, uid) {
  const d = { name, group: info.group, kind: info.plural };
  if (uid) d.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: d };
}

// Go's %q-ish rendering of a value in "Invalid value: ..." messages.
function goValue(v) {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[]interface {}{${v.map(goValue).join(', ')}}`;
  return `map[string]interface {}{${Object.keys(v).sort().map((k) => `"${k}":${goValue(v[k])}`).join(', ')}}`;
}

module.exports = { err, invalid, badRequest, methodNotAllowed, notFoundPath, unsupportedMedia, unauthorized, successStatus, qualifiedKind, goValue };
