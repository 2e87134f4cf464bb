/* pkg/kube helpers: a string hash map, object keys. */
#include "pkg/kube/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a */
static uint32_t map_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

void kube__map_init(struct kube__map *m)
{
    m->buckets = NULL;
    m->nbuckets = 0;
    m->count = 0;
}

static struct kube__map_entry **map_find(const struct kube__map *m, const char *key, uint32_t h)
{
    if (!m->nbuckets)
        return NULL;
    struct kube__map_entry **pp = &m->buckets[h & (m->nbuckets - 1)];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->hash == h && strcmp((*pp)->key, key) == 0)
            return pp;
    return pp;
}

void *kube__map_get(const struct kube__map *m, const char *key)
{
    struct kube__map_entry **pp = map_find(m, key, map_hash(key));
    return pp && *pp ? (*pp)->val : NULL;
}

static void map_grow(struct kube__map *m)
{
    size_t n = m->nbuckets ? m->nbuckets * 2 : 16;
    struct kube__map_entry **b = util_xcalloc(n, sizeof(struct kube__map_entry *));
    for (size_t i = 0; i < m->nbuckets; i++) {
        struct kube__map_entry *e = m->buckets[i], *next;
        for (; e; e = next) {
            next = e->next;
            e->next = b[e->hash & (n - 1)];
            b[e->hash & (n - 1)] = e;
        }
    }
    free(m->buckets);
    m->buckets = b;
    m->nbuckets = n;
}

void *kube__map_put(struct kube__map *m, const char *key, void *val)
{
    uint32_t h = map_hash(key);
    if (m->count + 1 > m->nbuckets)
        map_grow(m);
    struct kube__map_entry **pp = map_find(m, key, h);
    if (*pp) {
        void *old = (*pp)->val;
        (*pp)->val = val;
        return old;
    }
    size_t len = strlen(key) + 1;
    struct kube__map_entry *e = util_xmalloc(sizeof(*e) + len);
    memcpy(e->key, key, len);
    e->val = val;
    e->hash = h;
    e->next = NULL;
    *pp = e;
    m->count++;
    return NULL;
}

void *kube__map_del(struct kube__map *m, const char *key)
{
    struct kube__map_entry **pp = map_find(m, key, map_hash(key));
    if (!pp || !*pp)
        return NULL;
    struct kube__map_entry *e = *pp;
    void *val = e->val;
    *pp = e->next;
    free(e);
    m->count--;
    return val;
}

void kube__map_foreach(const struct kube__map *m, void (*fn)(const char *key, void *val, void *ud),
                       void *ud)
{
    for (size_t i = 0; i < m->nbuckets; i++)
        for (struct kube__map_entry *e = m->buckets[i]; e; e = e->next)
            fn(e->key, e->val, ud);
}

void kube__map_clear(struct kube__map *m, void (*free_val)(void *val))
{
    for (size_t i = 0; i < m->nbuckets; i++) {
        struct kube__map_entry *e = m->buckets[i], *next;
        for (; e; e = next) {
            next = e->next;
            if (free_val)
                free_val(e->val);
            free(e);
        }
    }
    free(m->buckets);
    kube__map_init(m);
}

int kube__object_key(const cJSON *obj, char *out, size_t outlen)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(md, "name");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(md, "namespace");
    if (!cJSON_IsString(name) || !name->valuestring[0])
        return -EINVAL;
    int n;
    if (cJSON_IsString(ns) && ns->valuestring[0])
        n = snprintf(out, outlen, "%s/%s", ns->valuestring, name->valuestring);
    else
        n = snprintf(out, outlen, "%s", name->valuestring);
    if (n < 0 || (size_t)n >= outlen)
        return -EINVAL;
    return 0;
}

const char *kube__object_rv(const cJSON *obj)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(md, "resourceVersion");
    return cJSON_IsString(rv) ? rv->valuestring : NULL;
}
