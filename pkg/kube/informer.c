/* A cache of one resource fed by the list+watch engine, with add/update/delete callbacks.
 *
 * Staleness: resourceVersions are opaque by API convention, but etcd-backed servers issue
 * decimal integers that grow. For the SAME object the informer compares the cached and the
 * incoming resourceVersion only when both parse as integers, and drops an ADDED/MODIFIED
 * whose version is not newer than the cached one (and a DELETED that is older). When either
 * does not parse, the event is applied (client-go's behaviour). A relist is authoritative:
 * it replaces the cache and emits the differences (add for new keys, update when the
 * resourceVersion changed, delete for keys that vanished, delete+add when the uid changed, i.e.
 * the object was re-created), so no delete is lost across a 410 or a reconnect. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kube/internal.h"
#include "pkg/kube/kube.h"
#include "pkg/util/log.h"

#define KEY_MAX 512

struct kube_informer {
    struct kube_client *c;
    struct kube_resource res;
    char *ns, *label_selector;
    struct kube_informer_handlers h;
    void *ud;
    struct kube_watch *watch;
    struct kube__map cache; /* key -> cJSON object */
    bool synced;
};

static void obj_free(void *p)
{
    cJSON_Delete(p);
}

static void prepare(struct kube_informer *inf, cJSON *obj)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    cJSON_DeleteItemFromObjectCaseSensitive(md, "managedFields");
    if (inf->h.transform)
        inf->h.transform(obj, inf->ud);
}

struct relist_ctx {
    struct kube_informer *inf;
    struct kube__map *other;
};

static const char *object_uid(const cJSON *obj)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *uid = cJSON_GetObjectItemCaseSensitive(md, "uid");
    return cJSON_IsString(uid) ? uid->valuestring : NULL;
}

static void emit_deleted(const char *key, void *val, void *ud)
{
    struct relist_ctx *x = ud;
    if (!kube__map_get(x->other, key) && x->inf->h.on_delete)
        x->inf->h.on_delete(val, x->inf->ud);
}

static void inf_on_list(cJSON *items, const char *rv, void *ud)
{
    struct kube_informer *inf = ud;
    struct kube__map fresh;
    char key[KEY_MAX];
    (void)rv;
    kube__map_init(&fresh);
    cJSON *it;
    int n = cJSON_GetArraySize(items), k = 0;
    cJSON **order = kube__xcalloc((size_t)n + 1, sizeof(cJSON *));
    while ((it = cJSON_DetachItemFromArray(items, 0))) {
        prepare(inf, it);
        if (kube__object_key(it, key, sizeof(key)) < 0) {
            cJSON_Delete(it);
            continue;
        }
        cJSON *dup = kube__map_put(&fresh, key, it);
        for (int i = 0; dup && i < k; i++)
            if (order[i] == dup)
                order[i] = it; /* a key listed twice: the later object wins, in place */
        if (dup)
            cJSON_Delete(dup);
        else
            order[k++] = it;
    }
    cJSON_Delete(items);
    /* the cache holds the new state while callbacks run */
    struct kube__map old = inf->cache;
    inf->cache = fresh;
    struct relist_ctx x = {inf, &inf->cache};
    kube__map_foreach(&old, emit_deleted, &x);
    /* adds and updates in list order */
    for (int i = 0; i < k; i++) {
        if (kube__object_key(order[i], key, sizeof(key)) < 0)
            continue;
        const cJSON *prev = kube__map_get(&old, key);
        if (!prev) {
            if (inf->h.on_add)
                inf->h.on_add(order[i], inf->ud);
            continue;
        }
        const char *u1 = object_uid(prev), *u2 = object_uid(order[i]);
        if (u1 && u2 && strcmp(u1, u2) != 0) {
            /* deleted and re-created while we were not watching */
            if (inf->h.on_delete)
                inf->h.on_delete(prev, inf->ud);
            if (inf->h.on_add)
                inf->h.on_add(order[i], inf->ud);
            continue;
        }
        const char *a = kube__object_rv(prev), *b = kube__object_rv(order[i]);
        if ((!a || !b || strcmp(a, b) != 0) && inf->h.on_update)
            inf->h.on_update(prev, order[i], inf->ud);
    }
    free(order);
    kube__map_clear(&old, obj_free);
    inf->synced = true;
    if (inf->h.on_synced)
        inf->h.on_synced(inf->ud);
}

static void inf_on_event(enum kube_event_type type, cJSON *obj, void *ud)
{
    struct kube_informer *inf = ud;
    char key[KEY_MAX];
    prepare(inf, obj);
    if (kube__object_key(obj, key, sizeof(key)) < 0) {
        cJSON_Delete(obj);
        return;
    }
    cJSON *old = kube__map_get(&inf->cache, key);
    const char *new_rv = kube__object_rv(obj);
    int cmp = old ? kube_rv_compare(new_rv, kube__object_rv(old)) : 2;
    if (type == KUBE_EVENT_DELETED) {
        if (!old || cmp == -1) {
            log_debug("kube", "informer %s: ignoring delete of %s (%s)", inf->res.plural, key,
                      old ? "stale" : "not cached");
            cJSON_Delete(obj);
            return;
        }
        kube__map_del(&inf->cache, key);
        if (inf->h.on_delete)
            inf->h.on_delete(obj, inf->ud);
        cJSON_Delete(old);
        cJSON_Delete(obj);
        return;
    }
    if (old && (cmp == -1 || cmp == 0)) {
        log_debug("kube", "informer %s: ignoring stale event for %s", inf->res.plural, key);
        cJSON_Delete(obj);
        return;
    }
    kube__map_put(&inf->cache, key, obj);
    if (old) {
        if (inf->h.on_update)
            inf->h.on_update(old, obj, inf->ud);
        cJSON_Delete(old);
    } else if (inf->h.on_add) {
        inf->h.on_add(obj, inf->ud);
    }
}

int kube_informer_new(struct kube_client *c, const struct kube_resource *r, const char *ns,
                      const char *label_selector, const struct kube_informer_handlers *h, void *ud,
                      struct kube_informer **out)
{
    if (!c || !r || !out)
        return -EINVAL;
    struct kube_informer *inf = kube__xcalloc(1, sizeof(*inf));
    inf->c = c;
    inf->res = *r;
    inf->ns = ns && ns[0] ? kube__xstrdup(ns) : NULL;
    inf->label_selector =
        label_selector && label_selector[0] ? kube__xstrdup(label_selector) : NULL;
    if (h)
        inf->h = *h;
    inf->ud = ud;
    kube__map_init(&inf->cache);
    struct kube_watch_opts wo = {.label_selector = inf->label_selector};
    struct kube_watch_handlers wh = {inf_on_list, inf_on_event};
    int rc = kube_watch_new(c, r, inf->ns, &wo, &wh, inf, &inf->watch);
    if (rc < 0) {
        free(inf->ns);
        free(inf->label_selector);
        free(inf);
        return rc;
    }
    *out = inf;
    return 0;
}

int kube_informer_start(struct kube_informer *inf)
{
    return inf ? kube_watch_start(inf->watch) : -EINVAL;
}

bool kube_informer_synced(const struct kube_informer *inf)
{
    return inf->synced;
}

const cJSON *kube_informer_get(const struct kube_informer *inf, const char *ns, const char *name)
{
    char key[KEY_MAX];
    int n;
    if (!name)
        return NULL;
    if (ns && ns[0] && inf->res.namespaced)
        n = snprintf(key, sizeof(key), "%s/%s", ns, name);
    else
        n = snprintf(key, sizeof(key), "%s", name);
    if (n < 0 || (size_t)n >= sizeof(key))
        return NULL;
    return kube__map_get(&inf->cache, key);
}

struct foreach_ctx {
    void (*fn)(const cJSON *obj, void *ud);
    void *ud;
};

static void foreach_one(const char *key, void *val, void *ud)
{
    (void)key;
    struct foreach_ctx *x = ud;
    x->fn(val, x->ud);
}

void kube_informer_foreach(const struct kube_informer *inf, void (*fn)(const cJSON *obj, void *ud),
                           void *ud)
{
    struct foreach_ctx x = {fn, ud};
    kube__map_foreach(&inf->cache, foreach_one, &x);
}

size_t kube_informer_count(const struct kube_informer *inf)
{
    return inf->cache.count;
}

int kube_informer_assume(struct kube_informer *inf, cJSON *obj, const char *prev_rv)
{
    char key[KEY_MAX];
    prepare(inf, obj);
    const cJSON *old =
        kube__object_key(obj, key, sizeof(key)) < 0 ? NULL : kube__map_get(&inf->cache, key);
    const char *old_rv = old ? kube__object_rv(old) : NULL;
    const char *new_rv = kube__object_rv(obj);
    if (!old_rv || !prev_rv || !new_rv || strcmp(old_rv, prev_rv) != 0 ||
        strcmp(new_rv, prev_rv) == 0) {
        cJSON_Delete(obj);
        return -ESTALE;
    }
    cJSON_Delete(kube__map_put(&inf->cache, key, obj));
    return 0;
}

void kube_informer_free(struct kube_informer *inf)
{
    if (!inf)
        return;
    kube_watch_free(inf->watch);
    kube__map_clear(&inf->cache, obj_free);
    free(inf->ns);
    free(inf->label_selector);
    free(inf);
}
