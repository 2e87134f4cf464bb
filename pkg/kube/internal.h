/* pkg/kube internals shared between its files: a string-keyed hash map.
 * Not part of the package interface (kube.h). */
#ifndef PGBO_KUBE_INTERNAL_H
#define PGBO_KUBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

/* Allocation failure aborts: pkg/util/mem.h (util_xmalloc, util_xstrdup, ...). */
#include "pkg/util/mem.h"

/* A chained hash map from NUL-terminated strings to pointers. The map copies keys. */
/* One allocation per entry, the key inside it: a cache of 10,000 runs has some 80,000 entries. */
struct kube__map_entry {
    void *val;
    struct kube__map_entry *next;
    uint32_t hash;
    char key[];
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

/* Reads a small file (< 1 MiB) and trims trailing whitespace; 0 or -errno. */
int kube__read_trimmed(const char *path, char **out);

/* ---- client internals used by watch.c ---- */

struct kube_client;
struct kube_resource;
struct kube_result;
struct buf;
struct kube__req;

/* Streaming data: called on the loop (never inside a curl callback) with body bytes of a 2xx
 * response as they arrive. Non-2xx bodies are buffered and decoded as a Status instead. */
typedef void (*kube__data_fn)(const char *data, size_t len, void *ud);
typedef void (*kube__done_fn)(struct kube_result *res, void *ud);

/* Queues a request. path includes the query. body may be NULL. on_data NULL = buffered.
 * *out (optional) is a handle valid until done runs or kube__cancel is called. */
int kube__submit(struct kube_client *c, const char *method, const char *path,
                 const char *content_type, const char *body, long timeout_ms, kube__data_fn on_data,
                 kube__done_fn done, void *ud, struct kube__req **out);
/* Cancels a request: its callbacks are not called again. Safe inside any kube callback. */
void kube__cancel(struct kube__req *r);
/* "/api/v1/namespaces/ns/pods/name/sub" with every segment escaped. */
int kube__resource_path(struct buf *b, const struct kube_resource *r, const char *ns,
                        const char *name, const char *sub);
/* Appends "?key=value" or "&key=value" with the value escaped. */
int kube__query_add(struct buf *b, const char *key, const char *value);
enum kube__stat { KUBE__STAT_WATCH_RESTART, KUBE__STAT_RELIST };
void kube__stat_inc(struct kube_client *c, enum kube__stat which);
uv_loop_t *kube__client_loop(struct kube_client *c);

#endif
