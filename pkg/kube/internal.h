/* pkg/kube internals shared between its files: allocation helpers and a string-keyed hash map.
 * Not part of the package interface (kube.h). */
#ifndef PGBO_KUBE_INTERNAL_H
#define PGBO_KUBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Allocation failure aborts (Redis habit): callers never see NULL. */
void *kube__xmalloc(size_t n);
void *kube__xcalloc(size_t n, size_t size);
char *kube__xstrdup(const char *s);
char *kube__xstrndup(const char *s, size_t n);

/* A chained hash map from NUL-terminated strings to pointers. The map copies keys. */
struct kube__map_entry {
    char *key;
    void *val;
    uint32_t hash;
    struct kube__map_entry *next;
};

struct kube__map {
    struct kube__map_entry **buckets;
    size_t nbuckets;
    size_t count;
};

void kube__map_init(struct kube__map *m);
void *kube__map_get(const struct kube__map *m, const char *key);
/* Inserts or replaces; returns the previous value (NULL if none). */
void *kube__map_put(struct kube__map *m, const char *key, void *val);
/* Removes; returns the value (NULL if absent). */
void *kube__map_del(struct kube__map *m, const char *key);
/* Calls fn for every entry; fn must not modify the map. */
void kube__map_foreach(const struct kube__map *m, void (*fn)(const char *key, void *val, void *ud),
                       void *ud);
/* Empties the map, calling free_val (if not NULL) on each value. */
void kube__map_clear(struct kube__map *m, void (*free_val)(void *val));

/* "namespace/name" (or "name" for cluster-scoped objects) from an object's metadata, written
 * into out; returns -EINVAL when the object has no metadata.name or the key does not fit. */
int kube__object_key(const cJSON *obj, char *out, size_t outlen);
/* metadata.resourceVersion or NULL. */
const char *kube__object_rv(const cJSON *obj);

#endif
