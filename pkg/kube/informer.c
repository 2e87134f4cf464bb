/* A cache of one resource fed by the list+watch engine, with add/update/delete callbacks.
 *
 * Staleness: resourceVersions are opaque by API convention, but etcd-backed servers issue
 * decimal integers that grow. For the SAME object the informer compares the cached and the
 * incoming resourceVersion only when both parse as integers, and drops an ADDED/MODIFIED
 * whose version is not newer than the cached one (and a DELETED that is older). When either
 * does not parse, the event is applied (client-go's behaviour). A relist is authoritative:
 * it replaces the cache and emits the differences (add for new keys, update when the
 * resourceVersion changed, delete for keys that vanished, delete+add when the uid changed, i.e.
 * the object was re-created), so no delete is lost across a 410 or a reconnect.
 *
 * Memory: an object is cached as the compact JSON text of its transformed form, deflated, next to
 * its resourceVersion and uid. A parsed cJSON tree costs about ten times its text (a 64-byte node
 * plus a key and a value allocation per field), and the cache holds every object the
 * controller watches while reads are few: a reconcile parses the handful it looks at. The objects
 * of one informer differ in little but names, uids and times, so the text is deflated (raw, a
 * 4 KiB window) against a preset dictionary: the first object the informer cached, kept for its
 * lifetime. A 600-byte Job or Pod then takes about 150 (kube_informer_bytes tells).
 *
 * Index: with handlers.index set, each cached object also sits under one index value (client-go's
 * Indexer, one index per informer), so a reader finds e.g. one run's pods without parsing all of
 * them. The index follows every change of the cache: events, relists and assumed writes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "pkg/kube/internal.h"
#include "pkg/kube/kube.h"
#include "pkg/util/log.h"
#include "pkg/util/mem.h"

#define KEY_MAX 512
/* deflate's window (2^12 = 4 KiB, the most of the dictionary it uses) and memory level: about
 * 24 KiB of deflate state per informer, 4 KiB of inflate window */
#define Z_WBITS 12
#define Z_MEMLEVEL 5
#define Z_DICT_MAX ((size_t)1 << Z_WBITS)

/* The cache's codec: one deflate and one inflate stream, reset for each object, and the preset
 * dictionary. */
struct codec {
    z_stream def, inf;
    unsigned char *dict; /* NULL until the first object */
    size_t dict_len;
    unsigned char *out; /* deflate's scratch output */
    size_t out_cap;
    bool refreshed; /* codec_refresh has run */
};

struct kube_informer {
    struct kube_client *c;
    struct kube_resource res;
    char *ns, *label_selector, *field_selector;
    struct kube_informer_handlers h;
    void *ud;
    struct kube_watch *watch;
    struct kube__map cache; /* key -> struct cached */
    struct kube__map index; /* index value -> struct keyset */
    size_t bytes;           /* what the cached entries hold (kube_informer_bytes) */
    struct codec z;
    bool synced;
};

struct cached {
    const char *rv, *uid, *index; /* "" when absent; point into data */
    const unsigned char *z;       /* the object's unformatted JSON, deflated (zlen bytes) */
    size_t zlen, tlen;            /* deflated and text lengths */
    size_t size;                  /* of this allocation */
    char data[];                  /* rv \0 uid \0 index \0 z */
};

/* zlib fails here only without memory (Z_MEM_ERROR; the others would be our own bug, on our own
 * bytes): the out-of-memory policy, naming the state it allocates */
static void z_must(int rc)
{
    if (rc != Z_OK && rc != Z_STREAM_END)
        util_oom(sizeof(z_stream) + Z_DICT_MAX);
}

static void codec_init(struct codec *z)
{
    z_must(deflateInit2(&z->def, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -Z_WBITS, Z_MEMLEVEL,
                        Z_DEFAULT_STRATEGY));
    z_must(inflateInit2(&z->inf, -Z_WBITS));
}

static void codec_free(struct codec *z)
{
    (void)deflateEnd(&z->def);
    (void)inflateEnd(&z->inf);
    free(z->dict);
    free(z->out);
}

/* text (n bytes) deflated into z->out; returns its length. The first text becomes the
 * dictionary. */
static size_t codec_deflate(struct codec *z, const char *text, size_t n)
{
    if (!z->dict) {
        z->dict_len = n < Z_DICT_MAX ? n : Z_DICT_MAX;
        z->dict = util_xmalloc(z->dict_len ? z->dict_len : 1);
        memcpy(z->dict, text, z->dict_len);
    }
    z_must(deflateReset(&z->def));
    if (z->dict_len)
        z_must(deflateSetDictionary(&z->def, z->dict, (uInt)z->dict_len));
    size_t bound = deflateBound(&z->def, (uLong)n);
    if (bound > z->out_cap) {
        free(z->out);
        z->out = util_xmalloc(bound);
        z->out_cap = bound;
    }
    z->def.next_in = (Bytef *)(uintptr_t)text;
    z->def.avail_in = (uInt)n;
    z->def.next_out = z->out;
    z->def.avail_out = (uInt)z->out_cap;
    int rc = deflate(&z->def, Z_FINISH);
    if (rc != Z_STREAM_END)
        util_oom(z->out_cap); /* the bound was not enough: a bug */
    return z->out_cap - z->def.avail_out;
}

/* The cached object's text, inflated into a new NUL-terminated string. */
static char *codec_inflate(struct codec *z, const struct cached *o)
{
    char *text = util_xmalloc(o->tlen + 1);
    z_must(inflateReset(&z->inf));
    if (z->dict_len)
        z_must(inflateSetDictionary(&z->inf, z->dict, (uInt)z->dict_len));
    z->inf.next_in = (Bytef *)(uintptr_t)o->z;
    z->inf.avail_in = (uInt)o->zlen;
    z->inf.next_out = (Bytef *)text;
    z->inf.avail_out = (uInt)o->tlen;
    int rc = inflate(&z->inf, Z_FINISH);
    if (rc != Z_STREAM_END || z->inf.avail_out != 0)
        util_oom(o->tlen); /* our own deflated bytes: only a bug gets here */
    text[o->tlen] = '\0';
    return text;
}

/* The keys under one index value, unordered; one allocation with its key pointers (most index
 * values, a run's name, hold one or a few keys). */
struct keyset {
    size_t n, cap;
    char *keys[];
};

static const char *object_uid(const cJSON *obj)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *uid = cJSON_GetObjectItemCaseSensitive(md, "uid");
    return cJSON_IsString(uid) ? uid->valuestring : NULL;
}

/* An entry of text (lt bytes) with its resourceVersion, uid and index value (each may be NULL). */
static struct cached *cached_make(struct kube_informer *inf, const char *rv, const char *uid,
                                  const char *ix, const char *text, size_t lt)
{
    size_t lr = rv ? strlen(rv) : 0, lu = uid ? strlen(uid) : 0, li = ix ? strlen(ix) : 0;
    size_t lz = codec_deflate(&inf->z, text, lt);
    struct cached *o = util_xmalloc(sizeof(*o) + lr + lu + li + lz + 3);
    o->size = sizeof(*o) + lr + lu + li + lz + 3;
    o->zlen = lz;
    o->tlen = lt;
    char *p = o->data;
    o->rv = memcpy(p, rv ? rv : "", lr + 1);
    p += lr + 1;
    o->uid = memcpy(p, uid ? uid : "", lu + 1);
    p += lu + 1;
    o->index = memcpy(p, ix ? ix : "", li + 1);
    p += li + 1;
    o->z = memcpy(p, inf->z.out, lz);
    return o;
}

static struct cached *cached_new(struct kube_informer *inf, const cJSON *obj)
{
    char *text = util_must(cJSON_PrintUnformatted(obj));
    char ix[KEY_MAX] = "";
    if (inf->h.index && !inf->h.index(obj, ix, sizeof(ix), inf->ud))
        ix[0] = '\0';
    ix[sizeof(ix) - 1] = '\0';
    struct cached *o =
        cached_make(inf, kube__object_rv(obj), object_uid(obj), ix, text, strlen(text));
    free(text);
    return o;
}

/* The dictionary again, once: the first object an informer caches is often its least typical
 * (created, no status yet), so when the cache first holds Z_DICT_REFRESH objects the one just
 * written becomes the dictionary and every entry is deflated again (a few dozen: cheap). Called
 * once no entry of the old dictionary is held outside the cache (after a write's callbacks). */
#define Z_DICT_REFRESH 64

struct recode {
    struct kube_informer *inf;
    char **keys, **texts;
    size_t n;
};

static void recode_collect(const char *key, void *val, void *ud)
{
    struct recode *rc = ud;
    rc->keys[rc->n] = util_xstrdup(key);
    rc->texts[rc->n] = codec_inflate(&rc->inf->z, val);
    rc->n++;
}

static void codec_refresh(struct kube_informer *inf, const struct cached *from)
{
    if (inf->z.refreshed || inf->cache.count < Z_DICT_REFRESH || !from)
        return;
    struct codec *z = &inf->z;
    size_t n = inf->cache.count;
    struct recode rc = {inf, util_xcalloc(n + 1, sizeof(char *)),
                        util_xcalloc(n + 1, sizeof(char *)), 0};
    char *dict = codec_inflate(z, from);
    kube__map_foreach(&inf->cache, recode_collect, &rc);
    free(z->dict);
    z->dict_len = strlen(dict) < Z_DICT_MAX ? strlen(dict) : Z_DICT_MAX;
    z->dict = (unsigned char *)dict; /* its first dict_len bytes */
    z->refreshed = true;
    for (size_t i = 0; i < rc.n; i++) {
        struct cached *old = kube__map_get(&inf->cache, rc.keys[i]);
        struct cached *o =
            cached_make(inf, old->rv, old->uid, old->index, rc.texts[i], strlen(rc.texts[i]));
        inf->bytes += o->size;
        inf->bytes -= old->size;
        free(kube__map_put(&inf->cache, rc.keys[i], o)); /* same key: the index is unchanged */
        free(rc.keys[i]);
        free(rc.texts[i]);
    }
    free(rc.keys);
    free(rc.texts);
}

static void keyset_free(void *v)
{
    struct keyset *s = v;
    for (size_t i = 0; i < s->n; i++)
        free(s->keys[i]);
    free(s);
}

static void index_add(struct kube_informer *inf, const char *key, const struct cached *o)
{
    if (!o->index[0])
        return;
    struct keyset *s = kube__map_get(&inf->index, o->index);
    if (!s || s->n == s->cap) {
        size_t cap = s ? 2 * s->cap : 1;
        s = util_xrealloc(s, sizeof(*s) + cap * sizeof(s->keys[0]));
        if (cap == 1)
            s->n = 0;
        s->cap = cap;
        (void)kube__map_put(&inf->index, o->index, s);
    }
    s->keys[s->n++] = util_xstrdup(key);
}

static void index_remove(struct kube_informer *inf, const char *key, const struct cached *o)
{
    struct keyset *s = o->index[0] ? kube__map_get(&inf->index, o->index) : NULL;
    for (size_t i = 0; s && i < s->n; i++) {
        if (strcmp(s->keys[i], key) == 0) {
            free(s->keys[i]);
            s->keys[i] = s->keys[--s->n];
            break;
        }
    }
    if (s && s->n == 0)
        keyset_free(kube__map_del(&inf->index, o->index));
}

/* A relist's new cache: its index, and its size */
static void index_one(const char *key, void *val, void *ud)
{
    struct kube_informer *inf = ud;
    const struct cached *o = val;
    index_add(inf, key, o);
    inf->bytes += o->size;
}

/* The cache's only writers (besides a relist's swap): both keep the index in step, and return the
 * entry they replaced or removed, for the caller to free. */
static struct cached *cache_put(struct kube_informer *inf, const char *key, struct cached *o)
{
    struct cached *old = kube__map_put(&inf->cache, key, o);
    if (old) {
        index_remove(inf, key, old);
        inf->bytes -= old->size;
    }
    index_add(inf, key, o);
    inf->bytes += o->size;
    return old;
}

static struct cached *cache_del(struct kube_informer *inf, const char *key)
{
    struct cached *old = kube__map_del(&inf->cache, key);
    if (old) {
        index_remove(inf, key, old);
        inf->bytes -= old->size;
    }
    return old;
}

/* The cached object as a tree of the caller's. */
static cJSON *cached_parse(const struct kube_informer *inf, const struct cached *o)
{
    char *text = codec_inflate((struct codec *)&inf->z, o);
    cJSON *obj = util_must(cJSON_Parse(text)); /* our own printing: fails only without memory */
    free(text);
    return obj;
}

/* Trims obj for the cache; false when the filter keeps it out. */
static bool prepare(struct kube_informer *inf, cJSON *obj)
{
    cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    cJSON_DeleteItemFromObjectCaseSensitive(md, "managedFields");
    if (inf->h.transform)
        inf->h.transform(obj, inf->ud);
    return !inf->h.filter || inf->h.filter(obj, inf->ud);
}

struct relist_ctx {
    struct kube_informer *inf;
    struct kube__map *other;
};

/* on_delete(old) with the old object parsed from the cache */
static void emit_delete(struct kube_informer *inf, const struct cached *old)
{
    if (!inf->h.on_delete)
        return;
    cJSON *o = cached_parse(inf, old);
    inf->h.on_delete(o, inf->ud);
    cJSON_Delete(o);
}

static void emit_deleted(const char *key, void *val, void *ud)
{
    struct relist_ctx *x = ud;
    if (!kube__map_get(x->other, key))
        emit_delete(x->inf, val);
}

/* on_update(old, obj) with the old object parsed from the cache */
static void emit_update(struct kube_informer *inf, const struct cached *old, const cJSON *obj)
{
    if (!inf->h.on_update)
        return;
    cJSON *o = cached_parse(inf, old);
    inf->h.on_update(o, obj, inf->ud);
    cJSON_Delete(o);
}

/* Position of the object with this key among the first k, or -1. */
static int index_of(cJSON *const *objs, int k, const char *key)
{
    char other[KEY_MAX];
    for (int i = 0; i < k; i++)
        if (kube__object_key(objs[i], other, sizeof(other)) >= 0 && strcmp(other, key) == 0)
            return i;
    return -1;
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
    cJSON **order = util_xcalloc((size_t)n + 1, sizeof(cJSON *));
    while ((it = cJSON_DetachItemFromArray(items, 0))) {
        if (!prepare(inf, it) || kube__object_key(it, key, sizeof(key)) < 0) {
            cJSON_Delete(it);
            continue;
        }
        struct cached *prev = kube__map_put(&fresh, key, cached_new(inf, it));
        int i = prev ? index_of(order, k, key) : -1;
        free(prev);
        if (i >= 0) { /* a key listed twice: the later object wins, in place */
            cJSON_Delete(order[i]);
            order[i] = it;
        } else {
            order[k++] = it;
        }
    }
    cJSON_Delete(items);
    /* the cache holds the new state while callbacks run */
    struct kube__map old = inf->cache;
    inf->cache = fresh;
    kube__map_clear(&inf->index, keyset_free);
    inf->bytes = 0;
    kube__map_foreach(&inf->cache, index_one, inf);
    struct relist_ctx x = {inf, &inf->cache};
    kube__map_foreach(&old, emit_deleted, &x);
    /* adds and updates in list order */
    for (int i = 0; i < k; i++) {
        const struct cached *prev =
            kube__object_key(order[i], key, sizeof(key)) < 0 ? NULL : kube__map_get(&old, key);
        if (!prev) {
            if (inf->h.on_add)
                inf->h.on_add(order[i], inf->ud);
            continue;
        }
        const char *u2 = object_uid(order[i]);
        if (prev->uid[0] && u2 && strcmp(prev->uid, u2) != 0) {
            /* deleted and re-created while we were not watching */
            emit_delete(inf, prev);
            if (inf->h.on_add)
                inf->h.on_add(order[i], inf->ud);
            continue;
        }
        const char *b = kube__object_rv(order[i]);
        if (!prev->rv[0] || !b || strcmp(prev->rv, b) != 0)
            emit_update(inf, prev, order[i]);
    }
    kube__map_clear(&old, free);
    if (k > 0 && kube__object_key(order[k - 1], key, sizeof(key)) >= 0)
        codec_refresh(inf, kube__map_get(&inf->cache, key));
    for (int i = 0; i < k; i++)
        cJSON_Delete(order[i]);
    free(order);
    inf->synced = true;
    if (inf->h.on_synced)
        inf->h.on_synced(inf->ud);
}

static void inf_on_event(enum kube_event_type type, cJSON *obj, void *ud)
{
    struct kube_informer *inf = ud;
    char key[KEY_MAX];
    bool pass = prepare(inf, obj);
    if (kube__object_key(obj, key, sizeof(key)) < 0) {
        cJSON_Delete(obj);
        return;
    }
    struct cached *old = kube__map_get(&inf->cache, key);
    if (!pass && type != KUBE_EVENT_DELETED) {
        /* no longer (or never) of interest: gone from the cache as by a delete */
        if (old) {
            old = cache_del(inf, key);
            emit_delete(inf, old);
            free(old);
        }
        cJSON_Delete(obj);
        return;
    }
    int cmp = old ? kube_rv_compare(kube__object_rv(obj), old->rv) : 2;
    if (type == KUBE_EVENT_DELETED) {
        if (!old || cmp == -1) {
            log_debug("kube", "informer %s: ignoring delete of %s (%s)", inf->res.plural, key,
                      old ? "stale" : "not cached");
        } else {
            free(cache_del(inf, key));
            if (inf->h.on_delete)
                inf->h.on_delete(obj, inf->ud);
        }
        cJSON_Delete(obj);
        return;
    }
    if (old && (cmp == -1 || cmp == 0)) {
        log_debug("kube", "informer %s: ignoring stale event for %s", inf->res.plural, key);
        cJSON_Delete(obj);
        return;
    }
    (void)cache_put(inf, key, cached_new(inf, obj));
    if (old)
        emit_update(inf, old, obj);
    else if (inf->h.on_add)
        inf->h.on_add(obj, inf->ud);
    free(old);
    cJSON_Delete(obj);
    codec_refresh(inf, kube__map_get(&inf->cache, key));
}

int kube_informer_new_opts(struct kube_client *c, const struct kube_resource *r, const char *ns,
                           const struct kube_informer_opts *o,
                           const struct kube_informer_handlers *h, void *ud,
                           struct kube_informer **out)
{
    if (!c || !r || !out)
        return -EINVAL;
    struct kube_informer *inf = util_xcalloc(1, sizeof(*inf));
    inf->c = c;
    inf->res = *r;
    inf->ns = ns && ns[0] ? util_xstrdup(ns) : NULL;
    const char *ls = o ? o->label_selector : NULL, *fs = o ? o->field_selector : NULL;
    inf->label_selector = ls && ls[0] ? util_xstrdup(ls) : NULL;
    inf->field_selector = fs && fs[0] ? util_xstrdup(fs) : NULL;
    if (h)
        inf->h = *h;
    inf->ud = ud;
    kube__map_init(&inf->cache);
    kube__map_init(&inf->index);
    codec_init(&inf->z);
    struct kube_watch_opts wo = {.label_selector = inf->label_selector,
                                 .field_selector = inf->field_selector};
    struct kube_watch_handlers wh = {inf_on_list, inf_on_event};
    int rc = kube_watch_new(c, r, inf->ns, &wo, &wh, inf, &inf->watch);
    if (rc < 0) {
        codec_free(&inf->z);
        free(inf->ns);
        free(inf->label_selector);
        free(inf->field_selector);
        free(inf);
        return rc;
    }
    *out = inf;
    return 0;
}

int kube_informer_new(struct kube_client *c, const struct kube_resource *r, const char *ns,
                      const char *label_selector, const struct kube_informer_handlers *h, void *ud,
                      struct kube_informer **out)
{
    struct kube_informer_opts o = {.label_selector = label_selector};
    return kube_informer_new_opts(c, r, ns, &o, h, ud, out);
}

int kube_informer_start(struct kube_informer *inf)
{
    return inf ? kube_watch_start(inf->watch) : -EINVAL;
}

bool kube_informer_synced(const struct kube_informer *inf)
{
    return inf->synced;
}

cJSON *kube_informer_copy(const struct kube_informer *inf, const char *ns, const char *name)
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
    const struct cached *o = kube__map_get(&inf->cache, key);
    return o ? cached_parse(inf, o) : NULL;
}

struct foreach_ctx {
    const struct kube_informer *inf;
    void (*fn)(const cJSON *obj, void *ud);
    void *ud;
};

static void foreach_one(const char *key, void *val, void *ud)
{
    (void)key;
    struct foreach_ctx *x = ud;
    cJSON *obj = cached_parse(x->inf, val);
    x->fn(obj, x->ud);
    cJSON_Delete(obj);
}

void kube_informer_foreach(const struct kube_informer *inf, void (*fn)(const cJSON *obj, void *ud),
                           void *ud)
{
    struct foreach_ctx x = {inf, fn, ud};
    kube__map_foreach(&inf->cache, foreach_one, &x);
}

void kube_informer_foreach_indexed(const struct kube_informer *inf, const char *value,
                                   void (*fn)(const cJSON *obj, void *ud), void *ud)
{
    const struct keyset *s = value && value[0] ? kube__map_get(&inf->index, value) : NULL;
    for (size_t i = 0; s && i < s->n; i++) {
        cJSON *obj = cached_parse(inf, kube__map_get(&inf->cache, s->keys[i]));
        fn(obj, ud);
        cJSON_Delete(obj);
    }
}

size_t kube_informer_count(const struct kube_informer *inf)
{
    return inf->cache.count;
}

size_t kube_informer_bytes(const struct kube_informer *inf)
{
    return inf->bytes;
}

int kube_informer_assume(struct kube_informer *inf, cJSON *obj, const char *prev_rv)
{
    char key[KEY_MAX];
    prepare(inf, obj);
    const struct cached *old =
        kube__object_key(obj, key, sizeof(key)) < 0 ? NULL : kube__map_get(&inf->cache, key);
    const char *new_rv = kube__object_rv(obj);
    if (!old || !prev_rv || !new_rv || strcmp(old->rv, prev_rv) != 0 ||
        strcmp(new_rv, prev_rv) == 0) {
        cJSON_Delete(obj);
        return -ESTALE;
    }
    free(cache_put(inf, key, cached_new(inf, obj)));
    cJSON_Delete(obj);
    codec_refresh(inf, kube__map_get(&inf->cache, key));
    return 0;
}

void kube_informer_free(struct kube_informer *inf)
{
    if (!inf)
        return;
    kube_watch_free(inf->watch);
    kube__map_clear(&inf->cache, free);
    codec_free(&inf->z);
    kube__map_clear(&inf->index, keyset_free);
    free(inf->ns);
    free(inf->label_selector);
    free(inf->field_selector);
    free(inf);
}
