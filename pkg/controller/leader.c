/* Lease-based leader election (see leader.h). */
#include "pkg/controller/leader.h"
#include "pkg/util/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/random.h>

#include "pkg/api/manifest.h"
#include "pkg/util/log.h"
#include "pkg/util/clock.h"
#include "pkg/util/mem.h"
#include "pkg/util/version.h"

#define COMP "leader"

void ctrl_leader_identity(char *out, size_t n, const char *host)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
        r = ((uint64_t)(util_wall_s() * 1e6) ^ ((uint64_t)getpid() << 32)) * 0x9e3779b97f4a7c15ULL;
    /* the suffix always fits: the host is cut, not the random part */
    int room = (int)n - 18;
    (void)snprintf(out, n, "%.*s_%016llx", room > 0 ? room : 0, host, (unsigned long long)r);
}

struct ctrl_leader {
    uv_loop_t *loop;
    struct kube_client *kc;
    struct ctrl_leader_opts o;
    char *name, *ns, *id;
    char *owner_name, *owner_uid; /* NULL: no ownerReference */
    uv_timer_t timer;
    bool leading, busy, stopped, releasing;
    char observed_holder[256];
    char observed_renew[64];
    uint64_t observed_at_ms; /* our clock when the holder/renewTime last changed */
    uint64_t last_renew_ms;  /* our clock at our last successful write */
    void (*release_done)(void *);
    void *release_ud;
    uv_idle_t idle; /* to call release_done asynchronously */
    bool idle_active;
};

static uint64_t now_ms(const struct ctrl_leader *l)
{
    return uv_now(l->loop);
}

static void set_leading(struct ctrl_leader *l, bool leading)
{
    if (l->leading == leading)
        return;
    l->leading = leading;
    if (leading) {
        log_info(COMP, "became leader: lease %s/%s identity %s", l->ns, l->name, l->id);
        if (l->o.on_started)
            l->o.on_started(l->o.ud);
    } else {
        log_warn(COMP, "lost leadership of lease %s/%s", l->ns, l->name);
        if (l->o.on_stopped)
            l->o.on_stopped(l->o.ud);
    }
}

/* Every Lease request, Retry-After waits included, ends within renew_deadline (client-go bounds
 * its renew loop by RenewDeadline), so a leader that cannot renew notices in time. */
static long lease_timeout_ms(const struct ctrl_leader *l)
{
    return (long)l->o.renew_deadline_s * 1000;
}

static cJSON *lease_spec(struct ctrl_leader *l, const cJSON *old_spec, bool release)
{
    cJSON *spec = cJSON_CreateObject();
    char now[40];
    util_rfc3339(util_wall_s(), 6, now, sizeof(now));
    const char *holder = old_spec ? util_jstr(old_spec, "holderIdentity") : NULL;
    bool ours = holder && strcmp(holder, l->id) == 0;
    double transitions = old_spec ? util_jnum(old_spec, "leaseTransitions", 0) : 0;
    if (old_spec && !ours && !release)
        transitions += 1;
    cJSON_AddStringToObject(spec, "holderIdentity", release ? "" : l->id);
    cJSON_AddNumberToObject(spec, "leaseDurationSeconds", release ? 1 : l->o.lease_duration_s);
    const char *acq = old_spec ? util_jstr(old_spec, "acquireTime") : NULL;
    cJSON_AddStringToObject(spec, "acquireTime", ours && acq ? acq : now);
    cJSON_AddStringToObject(spec, "renewTime", now);
    cJSON_AddNumberToObject(spec, "leaseTransitions", transitions);
    return spec;
}

static void finish_round(struct ctrl_leader *l, bool wrote_ok)
{
    l->busy = false;
    if (wrote_ok) {
        l->last_renew_ms = now_ms(l);
        set_leading(l, true);
    } else if (l->leading &&
               now_ms(l) - l->last_renew_ms > (uint64_t)l->o.renew_deadline_s * 1000) {
        set_leading(l, false);
    }
}

static void release_finished(struct ctrl_leader *l)
{
    l->busy = false;
    l->leading = false;
    if (l->release_done)
        l->release_done(l->release_ud);
    l->release_done = NULL;
}

/* A release that did not happen: said at warn level with the server's answer, and what becomes
 * of the Lease. Except a 403 for a Lease our pod owns: that is `helm uninstall`, which deletes
 * the release's Role in the same pass as the Deployment, before this pod gets SIGTERM (helm
 * orders deletions by kind but does not wait between them; measured on the real v1.25 node). No
 * successor can come (the RBAC is gone) and the garbage collector deletes the Lease with the pod,
 * so it is said at info level, with the reason (docs/install.md, "What the chart creates"). */
static void release_failed(struct ctrl_leader *l, const char *step, const struct kube_status *st)
{
    char owner[320] = "";
    if (st && st->http == 403 && l->owner_name) {
        log_info(COMP,
                 "lease %s/%s not released: %s: HTTP 403 %s: %s; the RBAC went first (helm "
                 "uninstall), nothing waits for it: the garbage collector deletes it with pod %s",
                 l->ns, l->name, step, st->reason[0] ? st->reason : "-",
                 st->message[0] ? st->message : "-", l->owner_name);
        return;
    }
    if (l->owner_name)
        (void)snprintf(owner, sizeof(owner), "; the garbage collector deletes it with pod %s",
                       l->owner_name);
    if (st)
        log_warn(COMP,
                 "lease %s/%s not released: %s: HTTP %d %s: %s; a successor waits until it "
                 "expires (%d s)%s",
                 l->ns, l->name, step, st->http, st->reason[0] ? st->reason : "-",
                 st->message[0] ? st->message : "-", l->o.lease_duration_s, owner);
    else
        log_warn(COMP, "lease %s/%s not released: %s; a successor waits until it expires (%d s)%s",
                 l->ns, l->name, step, l->o.lease_duration_s, owner);
}

static void on_write(struct kube_result *res, void *ud)
{
    struct ctrl_leader *l = ud;
    if (l->releasing) {
        if (kube_ok(&res->status))
            log_info(COMP, "released lease %s/%s", l->ns, l->name);
        else
            release_failed(l, "writing it", &res->status);
        release_finished(l);
        return;
    }
    if (!kube_ok(&res->status))
        log_debug(COMP, "lease write: HTTP %d %s", res->status.http, res->status.message);
    finish_round(l, kube_ok(&res->status));
}

static void write_lease(struct ctrl_leader *l, const cJSON *current, bool release)
{
    cJSON *obj = cJSON_CreateObject();
    cJSON_AddStringToObject(obj, "apiVersion", "coordination.k8s.io/v1");
    cJSON_AddStringToObject(obj, "kind", "Lease");
    cJSON *md = cJSON_AddObjectToObject(obj, "metadata");
    cJSON_AddStringToObject(md, "name", l->name);
    cJSON_AddStringToObject(md, "namespace", l->ns);
    const char *rv = current ? util_jstr(current, "metadata.resourceVersion") : NULL;
    if (rv)
        cJSON_AddStringToObject(md, "resourceVersion", rv);
    char version[160];
    (void)util_version_line(version, sizeof(version), "pgbench-operator");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(md, "labels"), API_LEASE_LABEL,
                            API_LEASE_LABEL_VALUE);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(md, "annotations"), API_ANNOTATION_VERSION,
                            version);
    if (l->owner_name) {
        cJSON *ref = cJSON_CreateObject();
        cJSON_AddStringToObject(ref, "apiVersion", "v1");
        cJSON_AddStringToObject(ref, "kind", "Pod");
        cJSON_AddStringToObject(ref, "name", l->owner_name);
        cJSON_AddStringToObject(ref, "uid", l->owner_uid);
        cJSON_AddItemToArray(cJSON_AddArrayToObject(md, "ownerReferences"), ref);
    }
    cJSON_AddItemToObject(obj, "spec",
                          lease_spec(l, current ? util_jget(current, "spec") : NULL, release));
    struct kube_opts o = {.field_validation = "Strict", .timeout_ms = lease_timeout_ms(l)};
    int rc = current ? kube_replace(l->kc, &KUBE_LEASES, l->ns, l->name, obj, &o, on_write, l)
                     : kube_create(l->kc, &KUBE_LEASES, l->ns, obj, &o, on_write, l);
    cJSON_Delete(obj);
    if (rc) {
        if (l->releasing) {
            release_failed(l, strerror(-rc), NULL);
            release_finished(l);
            return;
        }
        finish_round(l, false);
    }
}

static void on_get(struct kube_result *res, void *ud)
{
    struct ctrl_leader *l = ud;
    if (l->stopped) {
        l->busy = false;
        return;
    }
    if (res->status.http == 404) {
        write_lease(l, NULL, false);
        return;
    }
    if (!kube_ok(&res->status) || !res->body) {
        log_debug(COMP, "lease read: HTTP %d %s", res->status.http, res->status.message);
        finish_round(l, false);
        return;
    }
    const cJSON *spec = util_jget(res->body, "spec");
    const char *holder = util_jstr(spec, "holderIdentity");
    const char *renew = util_jstr(spec, "renewTime");
    double dur = util_jnum(spec, "leaseDurationSeconds", l->o.lease_duration_s);
    char h[256], rn[64];
    (void)snprintf(h, sizeof(h), "%s", holder ? holder : "");
    (void)snprintf(rn, sizeof(rn), "%s", renew ? renew : "");
    if (strcmp(h, l->observed_holder) != 0 || strcmp(rn, l->observed_renew) != 0 ||
        l->observed_at_ms == 0) {
        (void)snprintf(l->observed_holder, sizeof(l->observed_holder), "%s", h);
        (void)snprintf(l->observed_renew, sizeof(l->observed_renew), "%s", rn);
        l->observed_at_ms = now_ms(l);
    }
    bool ours = strcmp(h, l->id) == 0;
    bool free_ = h[0] == '\0';
    bool expired = now_ms(l) > l->observed_at_ms + (uint64_t)(dur * 1000);
    if (ours || free_ || expired) {
        if (!ours)
            log_info(COMP, "acquiring lease %s/%s (holder \"%s\"%s)", l->ns, l->name, h,
                     expired && !free_ ? ", expired" : "");
        write_lease(l, res->body, false);
        return;
    }
    finish_round(l, false);
}

static void on_timer(uv_timer_t *t)
{
    struct ctrl_leader *l = t->data;
    if (l->busy || l->stopped)
        return;
    l->busy = true;
    struct kube_opts o = {.timeout_ms = lease_timeout_ms(l)};
    if (kube_get(l->kc, &KUBE_LEASES, l->ns, l->name, &o, on_get, l))
        finish_round(l, false);
}

struct ctrl_leader *ctrl_leader_new(uv_loop_t *loop, struct kube_client *kc,
                                    const struct ctrl_leader_opts *o)
{
    struct ctrl_leader *l = util_xcalloc(1, sizeof(*l));
    l->loop = loop;
    l->kc = kc;
    l->o = *o;
    if (l->o.lease_duration_s <= 0)
        l->o.lease_duration_s = 15;
    if (l->o.renew_deadline_s <= 0)
        l->o.renew_deadline_s = 10;
    if (l->o.retry_period_s <= 0)
        l->o.retry_period_s = 2;
    l->name = util_xstrdup(o->name);
    l->ns = util_xstrdup(o->namespace);
    l->id = util_xstrdup(o->identity);
    if (o->owner_pod_name && o->owner_pod_name[0] && o->owner_pod_uid && o->owner_pod_uid[0]) {
        l->owner_name = util_xstrdup(o->owner_pod_name);
        l->owner_uid = util_xstrdup(o->owner_pod_uid);
    }
    l->o.owner_pod_name = l->owner_name;
    l->o.owner_pod_uid = l->owner_uid;
    uv_timer_init(loop, &l->timer);
    l->timer.data = l;
    uv_idle_init(loop, &l->idle);
    l->idle.data = l;
    return l;
}

int ctrl_leader_start(struct ctrl_leader *l)
{
    return uv_timer_start(&l->timer, on_timer, 0, (uint64_t)l->o.retry_period_s * 1000);
}

bool ctrl_leader_is_leader(const struct ctrl_leader *l)
{
    return l && l->leading;
}

static void on_release_get(struct kube_result *res, void *ud)
{
    struct ctrl_leader *l = ud;
    const char *holder = util_jstr(util_jget(res->body, "spec"), "holderIdentity");
    if (kube_ok(&res->status) && holder && strcmp(holder, l->id) == 0) {
        write_lease(l, res->body, true);
        return;
    }
    if (kube_ok(&res->status))
        log_info(COMP, "lease %s/%s: nothing to release (holder \"%s\")", l->ns, l->name,
                 holder ? holder : "");
    else if (res->status.http == 404)
        log_info(COMP, "lease %s/%s: nothing to release (already deleted)", l->ns, l->name);
    else
        release_failed(l, "reading it", &res->status);
    release_finished(l);
}

static void on_idle(uv_idle_t *h)
{
    struct ctrl_leader *l = h->data;
    uv_idle_stop(h);
    l->idle_active = false;
    if (l->busy) { /* a round is in flight: retry once it is done */
        uv_idle_start(h, on_idle);
        l->idle_active = true;
        return;
    }
    if (l->leading) {
        l->busy = true;
        l->releasing = true;
        struct kube_opts o = {.timeout_ms = lease_timeout_ms(l)};
        int rc = kube_get(l->kc, &KUBE_LEASES, l->ns, l->name, &o, on_release_get, l);
        if (rc == 0)
            return;
        release_failed(l, strerror(-rc), NULL);
        l->busy = false;
    }
    if (l->release_done)
        l->release_done(l->release_ud);
    l->release_done = NULL;
}

void ctrl_leader_release(struct ctrl_leader *l, void (*done)(void *ud), void *ud)
{
    l->stopped = true;
    uv_timer_stop(&l->timer);
    l->release_done = done;
    l->release_ud = ud;
    uv_idle_start(&l->idle, on_idle);
    l->idle_active = true;
}

static void on_close_idle(uv_handle_t *h)
{
    struct ctrl_leader *l = h->data;
    free(l->name);
    free(l->ns);
    free(l->id);
    free(l->owner_name);
    free(l->owner_uid);
    free(l);
}

static void on_close_timer(uv_handle_t *h)
{
    struct ctrl_leader *l = h->data;
    uv_close((uv_handle_t *)&l->idle, on_close_idle);
}

void ctrl_leader_free(struct ctrl_leader *l)
{
    if (!l)
        return;
    uv_close((uv_handle_t *)&l->timer, on_close_timer);
}
