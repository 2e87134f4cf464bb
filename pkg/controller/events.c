/* Events about the operator's objects, each sent once (events.h). */
#include "pkg/controller/events.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/controller/executor.h"
#include "pkg/util/list.h"
#include "pkg/util/json.h"
#include "pkg/util/log.h"
#include "pkg/util/mem.h"

#define COMP "events"
/* A transient answer to an Event: tried this often in all (ctrl_jittered backoff). */
#define EVENT_TRIES 4
/* Events this process knows exist, per object (see sent_*). */
#define SENT_BUCKETS 256
#define SENT_KEEP 8

/* The Events of an object this process has sent (or found already there: 409), by their name's
 * hash: an Event the object's status implies (ctrl_status_events) but that is not here is sent
 * again, so a kill between the status write and the Event loses nothing. Memory only: after a
 * restart every implied Event is sent once more, and is answered 409 AlreadyExists when it
 * exists. */
struct sent_entry {
    struct sent_entry *next;
    uint64_t h[SENT_KEEP]; /* ring */
    int n;
    char key[]; /* namespace/name */
};

/* One Event on its way: retried after a transient failure. */
struct ev_send {
    struct ctrl_events *c;
    struct ev_send *next, *prev;
    cJSON *ev;
    char key[512];
    uint64_t h;
    int attempt;
    uv_timer_t timer;
};

struct ctrl_events {
    uv_loop_t *loop;
    struct kube_client *kc;
    const struct api_config *cfg;
    struct ev_send *evs; /* Events in flight or waiting to be retried */
    struct sent_entry *sent[SENT_BUCKETS];
    uint64_t rng; /* retry jitter */
    uint64_t sent_n, errors;
};

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static struct sent_entry **sent_slot(struct ctrl_events *c, const char *key)
{
    struct sent_entry **e = &c->sent[hash_str(14695981039346656037ULL, key) % SENT_BUCKETS];
    while (*e && strcmp((*e)->key, key) != 0)
        e = &(*e)->next;
    return e;
}

static bool sent_has(struct ctrl_events *c, const char *key, uint64_t h)
{
    const struct sent_entry *e = *sent_slot(c, key);
    for (int i = 0; e && i < e->n && i < SENT_KEEP; i++)
        if (e->h[i] == h)
            return true;
    return false;
}

static void sent_add(struct ctrl_events *c, const char *key, uint64_t h)
{
    struct sent_entry **slot = sent_slot(c, key);
    if (!*slot) {
        size_t n = strlen(key) + 1;
        *slot = util_xcalloc(1, sizeof(**slot) + n);
        memcpy((*slot)->key, key, n);
    }
    if (!sent_has(c, key, h)) {
        struct sent_entry *e = *slot;
        e->h[e->n % SENT_KEEP] = h;
        e->n++;
    }
}

static void sent_remove(struct ctrl_events *c, const char *key, uint64_t h)
{
    struct sent_entry *e = *sent_slot(c, key);
    for (int i = 0; e && i < e->n && i < SENT_KEEP; i++)
        if (e->h[i] == h)
            e->h[i] = 0;
}

void ctrl_events_forget(struct ctrl_events *c, const char *key)
{
    struct sent_entry **slot = sent_slot(c, key);
    struct sent_entry *e = *slot;
    if (e) {
        *slot = e->next;
        free(e);
    }
}

static void ev_closed(uv_handle_t *h)
{
    struct ev_send *s = h->data;
    cJSON_Delete(s->ev);
    free(s);
}

static void ev_free(struct ev_send *s)
{
    struct ctrl_events *c = s->c;
    UTIL_LIST_UNLINK(c->evs, s);
    s->timer.data = s;
    uv_close((uv_handle_t *)&s->timer, ev_closed);
}

static void ev_post(struct ev_send *s);

static void on_ev_timer(uv_timer_t *t)
{
    ev_post(t->data);
}

/* 201: recorded. 409 AlreadyExists: recorded before (the name is the transition's). A transient
 * failure is tried again EVENT_TRIES times in all, with backoff; then, or at a refusal, the Event
 * is given up with a warning, and a later reconcile of the run sends it again if its status
 * implies it. */
static void on_event_sent(struct kube_result *res, void *ud)
{
    struct ev_send *s = ud;
    struct ctrl_events *c = s->c;
    const char *name = util_jstr(s->ev, "metadata.name");
    if (kube_ok(&res->status) || res->status.http == 409) {
        if (kube_ok(&res->status))
            c->sent_n++;
        else
            log_debug(COMP, "%s: event %s exists already", s->key, name);
        ev_free(s);
        return;
    }
    if (ctrl_transient(&res->status) && s->attempt + 1 < EVENT_TRIES) {
        uint64_t d = ctrl_jittered(&c->rng, (uint64_t)CTRL_RETRY_BASE_MS << s->attempt);
        s->attempt++;
        log_info(COMP, "%s: event %s %s not recorded: HTTP %d %s; again in %llu ms", s->key,
                 util_jstr(s->ev, "reason"), name, res->status.http, res->status.message,
                 (unsigned long long)d);
        uv_timer_start(&s->timer, on_ev_timer, d, 0);
        return;
    }
    c->errors++;
    log_warn(COMP, "%s: event %s %s not recorded after %d tries: HTTP %d %s", s->key,
             util_jstr(s->ev, "reason"), name, s->attempt + 1, res->status.http,
             res->status.message);
    sent_remove(c, s->key, s->h);
    ev_free(s);
}

static void ev_post(struct ev_send *s)
{
    struct kube_opts o = {.field_validation = "Strict"};
    if (kube_create(s->c->kc, &KUBE_EVENTS, util_jstr(s->ev, "metadata.namespace"), s->ev, &o,
                    on_event_sent, s) == 0)
        return;
    log_warn(COMP, "%s: event %s not sent", s->key, util_jstr(s->ev, "metadata.name"));
    sent_remove(s->c, s->key, s->h);
    ev_free(s);
}

/* Sends one Event about obj (a kind of pgbench.dev/v1alpha1) under its deterministic name unless
 * this process knows it exists; key groups what was sent (forgotten with the object). */
void ctrl_events_post(struct ctrl_events *c, const char *key, const char *kind, const cJSON *obj,
                      const struct ctrl_event *e, bool again)
{
    const char *ns = util_jstr(obj, "metadata.namespace"), *oname = util_jstr(obj, "metadata.name");
    char name[400];
    ctrl_event_name(obj, e, name, sizeof(name));
    uint64_t h = hash_str(14695981039346656037ULL, name);
    if (!ns || !oname || sent_has(c, key, h))
        return;
    sent_add(c, key, h); /* also while in flight: not sent twice by the next reconcile */
    cJSON *ev = ctrl_event_object(kind, obj, e, name, c->cfg);
    struct ev_send *s = util_xcalloc(1, sizeof(*s));
    s->c = c;
    s->ev = ev;
    s->h = h;
    (void)snprintf(s->key, sizeof(s->key), "%s", key);
    uv_timer_init(c->loop, &s->timer);
    s->timer.data = s;
    UTIL_LIST_PUSH(c->evs, s);
    log_info(COMP, "%s: event %s %s%s: %s", key, e->warning ? "Warning" : "Normal", e->reason,
             again ? " (sent again: its status records it)" : "", e->message);
    ev_post(s);
}

/* The sent-set key of an object of another kind than BenchmarkRun. */
static void kind_key(const char *kind, const char *ns, const char *name, char *out, size_t len)
{
    (void)snprintf(out, len, "%s:%s/%s", kind, ns ? ns : "", name ? name : "");
}

void ctrl_events_send(struct ctrl_events *c, const char *kind, const cJSON *obj,
                      const struct ctrl_event *e)
{
    char key[512];
    kind_key(kind, util_jstr(obj, "metadata.namespace"), util_jstr(obj, "metadata.name"), key,
             sizeof(key));
    ctrl_events_post(c, key, kind, obj, e, false);
}

void ctrl_events_forget_object(struct ctrl_events *c, const char *kind, const char *ns,
                               const char *name)
{
    char key[512];
    kind_key(kind, ns, name, key, sizeof(key));
    ctrl_events_forget(c, key);
}

struct ctrl_events *ctrl_events_new(uv_loop_t *loop, struct kube_client *kc,
                                    const struct api_config *cfg)
{
    struct ctrl_events *c = util_xcalloc(1, sizeof(*c));
    c->loop = loop;
    c->kc = kc;
    c->cfg = cfg;
    return c;
}

void ctrl_events_counts(const struct ctrl_events *c, uint64_t *sent, uint64_t *errors)
{
    *sent = c ? c->sent_n : 0;
    *errors = c ? c->errors : 0;
}

void ctrl_events_free(struct ctrl_events *c)
{
    if (!c)
        return;
    while (c->evs) { /* their requests are cancelled with the client */
        log_warn(COMP, "%s: event %s not recorded: shutting down", c->evs->key,
                 util_jstr(c->evs->ev, "metadata.name"));
        ev_free(c->evs);
    }
    for (int i = 0; i < SENT_BUCKETS; i++)
        while (c->sent[i]) {
            struct sent_entry *e = c->sent[i];
            c->sent[i] = e->next;
            free(e);
        }
    free(c);
}
