/* pkg/kube: a small asynchronous Kubernetes API client on one libuv loop.
 *
 *   config.c    kubeconfig (libyaml) and in-cluster configuration
 *   client.c    requests over curl's multi-socket interface driven by libuv
 *   watch.c     list+watch with bookmarks, 410 relist, jittered backoff; the line decoder
 *   informer.c  a cache of one resource fed by list+watch, with callbacks
 *   queue.c     a de-duplicating, rate-limited work queue (controller-runtime semantics)
 *   enqueue.c   informer events -> queue keys: an object's own, or its owner's by label
 *
 * Owns the conversation with the API server: authentication, TLS, retries, watch semantics
 * (resourceVersion, bookmarks, 410), caches and queues. Must not know what the objects mean: no
 * BenchmarkRun, pgbench or PostgreSQL here (that is pkg/controller and pkg/bench); resources,
 * labels and keys arrive as parameters.
 *
 * Conventions: functions return 0 or a negative errno; API failures arrive as a struct
 * kube_status decoded from the server's Status object. Nothing here prints: it logs through
 * pkg/util/log.h at debug level only, and never logs tokens, keys or request bodies. */
#ifndef PGBO_KUBE_H
#define PGBO_KUBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

/* ---- configuration ---------------------------------------------------------------- */

struct kube_config {
    char *server;               /* https://host:port, no trailing slash */
    char *namespace;            /* from the context, the in-cluster namespace file, or "default" */
    char *token;                /* bearer token (NULL if none) */
    char *token_file;           /* re-read when it changes (in-cluster rotation, tokenFile) */
    char *ca_file;              /* certificate-authority path */
    char *ca_data;              /* PEM, decoded from certificate-authority-data */
    char *cert_file, *key_file; /* client-certificate / client-key paths */
    char *cert_data, *key_data; /* PEM, decoded from the -data forms */
    bool insecure_skip_tls_verify;
    char *source;  /* file it came from, or "in-cluster" */
    char *context; /* context name used */
};

/* Loads a kubeconfig file. path NULL: $KUBECONFIG (first entry), else ~/.kube/config.
 * context NULL: current-context. On error fills err with a message naming the file and
 * the field, e.g. "/root/.kube/config: contexts[kind].cluster: cluster \"x\" not found". */
int kube_config_from_file(const char *path, const char *context, struct kube_config **out,
                          char *err, size_t errlen);
/* Parses kubeconfig YAML from memory (name is used in messages). */
int kube_config_from_yaml(const char *yaml, size_t len, const char *name, const char *context,
                          struct kube_config **out, char *err, size_t errlen);
/* In-cluster: KUBERNETES_SERVICE_HOST/PORT, /var/run/secrets/kubernetes.io/serviceaccount/
 * {token,ca.crt,namespace}. root NULL = "/var/run/secrets/kubernetes.io/serviceaccount". */
int kube_config_in_cluster(const char *root, struct kube_config **out, char *err, size_t errlen);
/* In-cluster when KUBERNETES_SERVICE_HOST is set and neither path, context nor $KUBECONFIG is
 * given (client-go's order: explicit file, $KUBECONFIG, in-cluster, ~/.kube/config); else the
 * kubeconfig. Only the first $KUBECONFIG entry is read (no merging); exec/auth-provider
 * credential plugins are not supported (an error naming users[x].user.exec). */
int kube_config_load(const char *path, const char *context, struct kube_config **out, char *err,
                     size_t errlen);
void kube_config_free(struct kube_config *cfg);

/* ---- resources and status ---------------------------------------------------------- */

struct kube_resource {
    const char *group; /* "" for the core group */
    const char *version;
    const char *kind;
    const char *plural;
    bool namespaced;
};

extern const struct kube_resource KUBE_PODS, KUBE_JOBS, KUBE_SECRETS, KUBE_CONFIGMAPS, KUBE_EVENTS,
    KUBE_PVCS, KUBE_HPAS, KUBE_LEASES, KUBE_STATEFULSETS, KUBE_DEPLOYMENTS, KUBE_NAMESPACES,
    KUBE_NODES;

/* Decoded from the API's Status object, or synthesised for transport errors. */
struct kube_status {
    int http;           /* HTTP status; 0 when the request never got an answer */
    int curl;           /* CURLcode, 0 if fine */
    char reason[64];    /* Status.reason: NotFound, AlreadyExists, Conflict, Invalid, Gone... */
    char message[512];  /* Status.message or the transport error */
    double retry_after; /* seconds from Retry-After or details.retryAfterSeconds, 0 if none */
};

static inline bool kube_ok(const struct kube_status *st)
{
    return st->http >= 200 && st->http < 300;
}

/* ---- requests ---------------------------------------------------------------------- */

struct kube_client;

int kube_client_new(uv_loop_t *loop, const struct kube_config *cfg, struct kube_client **out);
/* Cancels everything in flight (their callbacks are not called) and closes handles; run the
 * loop once more afterwards so libuv can finish closing. May be called from inside a request
 * callback. Free watches and informers that use the client first. */
void kube_client_free(struct kube_client *c);

struct kube_opts {
    const char *label_selector;
    const char *field_selector;
    long limit; /* list page size, 0 = server default */
    const char *continue_token;
    const char *field_manager;      /* writes; default "pgbench-operator" */
    const char *field_validation;   /* "Strict", "Warn", "Ignore"; NULL = do not send */
    bool force;                     /* server-side apply force */
    const char *propagation_policy; /* delete: Background, Foreground, Orphan */
    const char *subresource;        /* "status", "log", "scale" */
    const char *query;              /* extra raw query, e.g. "container=runner&tailLines=5" */
    long timeout_ms;                /* whole request; 0 = client default (30 s) */
};

struct kube_result {
    struct kube_status status;
    cJSON *body;      /* parsed JSON body (object or Status); set to NULL to take ownership */
    const char *text; /* raw body, NUL-terminated (e.g. pod logs) */
    size_t text_len;
    const char *warning; /* first Warning header (299), or NULL */
};

typedef void (*kube_cb)(struct kube_result *res, void *ud);

enum kube_patch_type { KUBE_PATCH_MERGE, KUBE_PATCH_JSON, KUBE_PATCH_STRATEGIC, KUBE_PATCH_APPLY };

/* Each returns 0 when the request was queued; cb runs later on the loop, exactly once. Bodies
 * are serialised before the call returns; the caller keeps ownership. ns is ignored for
 * cluster-scoped resources; ns NULL on a list means all namespaces.
 *
 * Retry-After, as client-go's rest client (checkWait, WithRetry): an answer 429, or 5xx, that
 * carries a Retry-After (header, or the Status's details.retryAfterSeconds) is not handed to cb:
 * the request is sent again, whatever its verb, no sooner than Retry-After and at most 20 % later
 * (jitter), up to kube_client_set_max_retries times and only while the wait fits in what is left
 * of its timeout (timeout_ms covers every attempt). Otherwise cb gets that answer, with
 * status.retry_after set. Until the wait has passed, new requests for the same path (the query
 * aside) are held back as well, so a caller that retries by itself does not bypass it; the time
 * held back does not count against their timeout. Watch streams (kube_watch) are not retried
 * here: the watch backs off by itself, never below Retry-After. */
int kube_get(struct kube_client *c, const struct kube_resource *r, const char *ns, const char *name,
             const struct kube_opts *o, kube_cb cb, void *ud);
int kube_list(struct kube_client *c, const struct kube_resource *r, const char *ns,
              const struct kube_opts *o, kube_cb cb, void *ud);
int kube_create(struct kube_client *c, const struct kube_resource *r, const char *ns,
                const cJSON *obj, const struct kube_opts *o, kube_cb cb, void *ud);
/* PUT; with o->subresource "status" this is the status update (resourceVersion checked). */
int kube_replace(struct kube_client *c, const struct kube_resource *r, const char *ns,
                 const char *name, const cJSON *obj, const struct kube_opts *o, kube_cb cb,
                 void *ud);
int kube_patch(struct kube_client *c, const struct kube_resource *r, const char *ns,
               const char *name, enum kube_patch_type type, const cJSON *patch,
               const struct kube_opts *o, kube_cb cb, void *ud);
int kube_delete(struct kube_client *c, const struct kube_resource *r, const char *ns,
                const char *name, const struct kube_opts *o, kube_cb cb, void *ud);
/* A GET whose 2xx body is handed to on_data as it arrives, in pieces split anywhere (a pod's
 * log with "follow=true" in o->query), then cb once with the status (an error's body in text,
 * nothing streamed). Set o->timeout_ms for a long stream: the default 30 s ends it. */
typedef void (*kube_data_cb)(const char *data, size_t len, void *ud);
int kube_get_stream(struct kube_client *c, const struct kube_resource *r, const char *ns,
                    const char *name, const struct kube_opts *o, kube_data_cb on_data, kube_cb cb,
                    void *ud);
/* Any path, e.g. "/healthz"; body may be NULL. */
int kube_request(struct kube_client *c, const char *method, const char *path,
                 const char *content_type, const char *body, long timeout_ms, kube_cb cb, void *ud);

/* Response bodies larger than this fail with reason "TooLarge" (default 64 MiB); the same cap
 * bounds a watch stream's undelivered bytes. */
void kube_client_set_max_body(struct kube_client *c, size_t bytes);
/* Retries after a Retry-After answer (default 10, client-go's; 0 = hand every answer over). */
void kube_client_set_max_retries(struct kube_client *c, int n);
/* The Content-Type sent for a patch type. */
const char *kube_patch_content_type(enum kube_patch_type type);

/* Counters for /metrics. */
/* requests: every attempt sent; errors: every answer or transport failure that was not 2xx,
 * except the expected answers 404 to GET/DELETE and 409 AlreadyExists to POST;
 * retries: attempts made again after a Retry-After. */
struct kube_client_stats {
    uint64_t requests, errors, watch_restarts, relists, retries;
};
void kube_client_stats(const struct kube_client *c, struct kube_client_stats *out);

/* ---- watch ------------------------------------------------------------------------- */

enum kube_event_type {
    KUBE_EVENT_ADDED,
    KUBE_EVENT_MODIFIED,
    KUBE_EVENT_DELETED,
    KUBE_EVENT_BOOKMARK,
    KUBE_EVENT_ERROR
};

/* The watch-stream decoder: bytes in (split anywhere), one callback per complete JSON line. */
struct kube_watch_decoder;
typedef void (*kube_event_cb)(enum kube_event_type type, cJSON *object, void *ud);
struct kube_watch_decoder *kube_watch_decoder_new(size_t max_line);
/* Returns 0, or -EBADMSG on a malformed line (skipped; decoding continues), -E2BIG when a
 * line exceeds max_line (the stream must be restarted). object is owned by the decoder and
 * freed after the callback returns; detach or duplicate it to keep it. */
int kube_watch_decoder_feed(struct kube_watch_decoder *d, const char *data, size_t len,
                            kube_event_cb cb, void *ud);
void kube_watch_decoder_free(struct kube_watch_decoder *d);
/* Called from inside the event callback: the callback takes ownership of `object` (it must
 * cJSON_Delete it) instead of the decoder freeing it. */
void kube_watch_decoder_take(struct kube_watch_decoder *d);

/* The list+watch engine behind the informer.
 *
 *   LISTING   GET ?limit=page_size[&continue=...] until the last page; the pages' items are
 *             handed to on_list as one array together with the list's resourceVersion.
 *   WATCHING  GET ?watch=1&resourceVersion=RV&allowWatchBookmarks=true&timeoutSeconds=T
 *             (T jittered between timeout_seconds and twice that). Every ADDED, MODIFIED,
 *             DELETED and BOOKMARK advances RV. A stream that ends cleanly is reopened from RV.
 *   BACKOFF   after a failed list, a failed or dropped watch, or a malformed stream: wait
 *             backoff_min_ms * 2^n (capped at backoff_max_ms, never below Retry-After),
 *             jittered to [d/2, d], then list again (list failed) or watch from RV.
 *   410 Gone  as the watch's HTTP status or as an ERROR event (code 410): relist at once.
 *             A 410 on a list page (expired continue token) restarts the list.
 * The backoff resets after a complete list and after a watch stream that delivered an event. */
struct kube_watch;

struct kube_watch_handlers {
    /* A complete (re)list; takes ownership of `items` (a cJSON array). */
    void (*on_list)(cJSON *items, const char *resource_version, void *ud);
    /* ADDED, MODIFIED or DELETED; takes ownership of `obj`. */
    void (*on_event)(enum kube_event_type type, cJSON *obj, void *ud);
};

struct kube_watch_opts {
    const char *label_selector;
    const char *field_selector;
    long page_size;       /* default 500 */
    long timeout_seconds; /* default 300 */
    long backoff_min_ms;  /* default 200 */
    long backoff_max_ms;  /* default 30000 */
    size_t max_line;      /* default 16 MiB */
};

int kube_watch_new(struct kube_client *c, const struct kube_resource *r, const char *ns,
                   const struct kube_watch_opts *o, const struct kube_watch_handlers *h, void *ud,
                   struct kube_watch **out);
int kube_watch_start(struct kube_watch *w);
/* The last resourceVersion seen (list, event or bookmark); "" before the first list. */
const char *kube_watch_resource_version(const struct kube_watch *w);
/* Safe inside the watch's own callbacks; run the loop once more afterwards. */
void kube_watch_free(struct kube_watch *w);

/* Compares two resourceVersions of the same object: when both are decimal integers returns
 * -1, 0 or 1; otherwise (opaque values) returns 2, meaning "cannot tell". */
int kube_rv_compare(const char *a, const char *b);

/* ---- informer ---------------------------------------------------------------------- */

struct kube_informer;

struct kube_informer_handlers {
    void (*on_add)(const cJSON *obj, void *ud);
    void (*on_update)(const cJSON *old_obj, const cJSON *new_obj, void *ud);
    void (*on_delete)(const cJSON *obj, void *ud);
    void (*on_synced)(void *ud); /* after each complete (re)list */
    /* Optional: trims an object before it is cached (managedFields are always dropped). */
    void (*transform)(cJSON *obj, void *ud);
    /* Optional: writes the (transformed) object's index value into buf (n bytes, NUL-terminated)
     * and returns true, or returns false for an object outside the index. See
     * kube_informer_foreach_indexed. */
    bool (*index)(const cJSON *obj, char *buf, size_t n, void *ud);
    /* Optional: false keeps the (transformed) object out of the cache, for what a server-side
     * selector cannot express. A cached object that stops passing is removed as if deleted
     * (on_delete); filtered objects never reach on_add/on_update. */
    bool (*filter)(const cJSON *obj, void *ud);
};

/* ns NULL = all namespaces; label_selector may be NULL. Stats go to the client's counters. */
int kube_informer_new(struct kube_client *c, const struct kube_resource *r, const char *ns,
                      const char *label_selector, const struct kube_informer_handlers *h, void *ud,
                      struct kube_informer **out);
/* Selectors sent with the list and every watch (copied). A field selector may use only the fields
 * the server indexes for the resource (events: involvedObject.*, reason, type, ...; kube-apiserver
 * answers 400 otherwise). */
struct kube_informer_opts {
    const char *label_selector;
    const char *field_selector;
};
int kube_informer_new_opts(struct kube_client *c, const struct kube_resource *r, const char *ns,
                           const struct kube_informer_opts *o,
                           const struct kube_informer_handlers *h, void *ud,
                           struct kube_informer **out);
int kube_informer_start(struct kube_informer *inf);
/* Callbacks run on the loop, never inside curl; on_update's old object is freed after it
 * returns. Do not free the informer from inside its own callbacks. Relists emit adds/updates
 * in list order (updates only when resourceVersion changed) and deletes for vanished keys.
 * Stale events (resourceVersion not newer than the cached one, compared only when both are
 * decimal integers) are dropped. */
bool kube_informer_synced(const struct kube_informer *inf);
/* A copy of the cached object (the caller's, cJSON_Delete it), or NULL. The cache keeps objects
 * as compact text, so each call parses one. */
cJSON *kube_informer_copy(const struct kube_informer *inf, const char *ns, const char *name);
/* fn gets each cached object, parsed for the call and freed after it. */
void kube_informer_foreach(const struct kube_informer *inf, void (*fn)(const cJSON *obj, void *ud),
                           void *ud);
/* fn gets each cached object whose index value is `value` (handlers.index), in no set order:
 * the cost is that of those objects, not of the whole cache. */
void kube_informer_foreach_indexed(const struct kube_informer *inf, const char *value,
                                   void (*fn)(const cJSON *obj, void *ud), void *ud);
size_t kube_informer_count(const struct kube_informer *inf);
/* The bytes its cached objects take (their text, versions, uids and index values, with each
 * entry's header; not the map's own nodes nor the index's key lists). */
size_t kube_informer_bytes(const struct kube_informer *inf);
/* Puts obj (owned; transformed like a listed object) into the cache in place of the cached
 * object whose resourceVersion is prev_rv: the answer to the caller's own write made with that
 * resourceVersion as precondition, known before its watch event arrives. No other write can lie
 * between the two, so the cache skips nothing. Handlers are not called, and the watch event with
 * the same resourceVersion is then dropped as stale. Returns 0, or -ESTALE (obj freed) when the
 * cache holds anything else: it has already moved on, or never had the object. */
int kube_informer_assume(struct kube_informer *inf, cJSON *obj, const char *prev_rv);
void kube_informer_free(struct kube_informer *inf);

/* ---- informer -> queue ------------------------------------------------------------ */

/* What an informer's events put on a work queue (client-go's enqueue handlers,
 * controller-runtime's EnqueueRequestForObject and EnqueueRequestForOwner): the object's own key
 * ("namespace/name"), or with owner_label the key of the object that owns it by that label
 * ("namespace/<label value>": a run's Jobs and Pods, a sweep's runs). An own object's delete
 * resets its key's backoff (kube_queue_forget), then calls on_delete; an owned object's delete
 * queues its owner. */
struct kube_enqueue {
    struct kube_queue *q;
    const char *owner_label; /* NULL: the object's own key */
    /* Optional, own keys only: what else the controller keeps by key is dropped here. */
    void (*on_delete)(const cJSON *obj, const char *key, void *ud);
    void *ud;
};

/* Sets h's on_add, on_update and on_delete; the informer's ud must be the struct kube_enqueue,
 * which outlives it. Transforms and filters get that ud too. */
void kube_enqueue_handlers(struct kube_informer_handlers *h);
/* An informer of r (ns NULL: all namespaces) whose events queue keys through e, which outlives
 * it: with e->owner_label it lists and watches only the objects that carry the label. indexed:
 * the cache is indexed by the queued key (kube_enqueue_index), so that
 * kube_informer_foreach_indexed(owner's key) reads one owner's objects. transform may be NULL. */
int kube_informer_enqueue(struct kube_client *c, const struct kube_resource *r, const char *ns,
                          struct kube_enqueue *e, void (*transform)(cJSON *obj, void *ud),
                          bool indexed, struct kube_informer **out);
/* The key an enqueue puts on its queue for obj (ud: the struct kube_enqueue): usable as the
 * informer's index, so that kube_informer_foreach_indexed(owner key) reads an owner's objects. */
bool kube_enqueue_index(const cJSON *obj, char *buf, size_t n, void *ud);
/* "namespace/<the value of label>" into buf (n bytes); false when obj lacks either or it does
 * not fit. */
bool kube_label_key(const cJSON *obj, const char *label, char *buf, size_t n);

/* ---- work queue -------------------------------------------------------------------- */

/* Keys are "namespace/name". The queue calls process(key) for at most `workers` keys at once
 * and never for the same key twice at once; a key added while it is being processed is
 * processed again after kube_queue_done. Backoff per key: base_ms * 2^failures, capped. */
struct kube_queue;
typedef void (*kube_process_fn)(struct kube_queue *q, const char *key, void *ud);

struct kube_queue_opts {
    int workers;  /* default 8 */
    long base_ms; /* default 5 */
    long max_ms;  /* default 300000 */
};

int kube_queue_new(uv_loop_t *loop, const struct kube_queue_opts *o, kube_process_fn fn, void *ud,
                   struct kube_queue **out);
void kube_queue_add(struct kube_queue *q, const char *key);
void kube_queue_add_after(struct kube_queue *q, const char *key, long delay_ms);
void kube_queue_add_rate_limited(struct kube_queue *q, const char *key);
void kube_queue_forget(struct kube_queue *q, const char *key); /* reset the key's backoff */
int kube_queue_failures(const struct kube_queue *q, const char *key);
/* Must be called once for every process() call, possibly later from another callback. */
void kube_queue_done(struct kube_queue *q, const char *key);
/* The end of a process() call, as controller-runtime reads a reconcile's result: on error the key
 * comes back after its backoff (add_rate_limited); else its backoff is reset (forget) and, with
 * requeue_ms > 0, it comes back after that (add_after). Then kube_queue_done. */
void kube_queue_finish(struct kube_queue *q, const char *key, bool error, long requeue_ms);
size_t kube_queue_len(const struct kube_queue *q);
/* Stops dispatching; done() still works. */
void kube_queue_shutdown(struct kube_queue *q);
void kube_queue_free(struct kube_queue *q);

#endif
