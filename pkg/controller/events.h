/* pkg/controller/events: the Events the controllers send about their objects (BenchmarkRuns,
 * BenchmarkSweeps). Each Event is named by ctrl_event_name (deterministic per transition, so a
 * transition sent twice is created once: 409 AlreadyExists counts as sent), is not sent again by
 * this process while it remembers it, and is retried with backoff after a transient failure; one
 * that cannot be recorded is forgotten, so the next reconcile whose status implies it sends it
 * again. Must not know how the controllers decide what to send. */
#ifndef PGBO_CONTROLLER_EVENTS_H
#define PGBO_CONTROLLER_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "pkg/api/manifest.h"
#include "pkg/controller/reconcile.h"
#include "pkg/kube/kube.h"

struct ctrl_events;

/* cfg (the Events' reporting component and instance) must outlive the sender. */
struct ctrl_events *ctrl_events_new(uv_loop_t *loop, struct kube_client *kc,
                                    const struct api_config *cfg);
/* Sends Event e about obj (kind, e.g. "BenchmarkRun", of pgbench.dev/v1alpha1; its metadata
 * name, namespace and uid) unless this process knows it exists; key groups what was sent about
 * one object (ctrl_events_forget). again: logged as sent again because the status records it. */
void ctrl_events_post(struct ctrl_events *c, const char *key, const char *kind, const cJSON *obj,
                      const struct ctrl_event *e, bool again);
/* ctrl_events_post under the key "<kind>:<namespace>/<name>". */
void ctrl_events_send(struct ctrl_events *c, const char *kind, const cJSON *obj,
                      const struct ctrl_event *e);
/* Forgets what was sent under key (its object was deleted). */
void ctrl_events_forget(struct ctrl_events *c, const char *key);
/* ctrl_events_forget of ctrl_events_send's key. */
void ctrl_events_forget_object(struct ctrl_events *c, const char *kind, const char *ns,
                               const char *name);
/* Events recorded (201), and Events given up (refused, or transient failures past the retries). */
void ctrl_events_counts(const struct ctrl_events *c, uint64_t *sent, uint64_t *errors);
/* Events in flight are given up (their requests are cancelled with the client). */
void ctrl_events_free(struct ctrl_events *c);

#endif
