/* Requests to the Kubernetes API over curl's multi-socket interface, driven by libuv
 * (after curl's docs/examples/multi-uv.c: one uv_poll per socket, one uv_timer for curl's
 * timeout).
 *
 * Every user callback runs from process(), after curl_multi_socket_action has returned, never
 * inside a curl callback: callbacks may therefore start new requests. Streaming bodies are
 * buffered by the write callback and handed over in process() as well. One multi handle holds
 * the connection cache, so connections are reused across requests.
 *
 * Retry-After (client-go's rest.WithRetry and checkWait): a buffered request answered 429, or
 * 5xx, with a Retry-After (header or Status details.retryAfterSeconds) is sent again no sooner
 * than asked, plus up to RETRY_JITTER of it, at most max_retries times and only while the wait
 * fits in the request's timeout; otherwise the answer goes to the caller. The wait also holds
 * back every new request for the same path (query aside) until it has passed, so a caller that
 * retries on its own (a work queue's requeue) does not bypass it either. Waiting requests sit
 * in c->reqs, outside the multi handle, until the retry timer sends them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "pkg/kube/internal.h"
#include "pkg/kube/kube.h"
#include "pkg/util/list.h"
#include "pkg/util/buf.h"
#include "pkg/util/json.h"
#include "pkg/util/log.h"

#define DEFAULT_TIMEOUT_MS 30000L
#define DEFAULT_MAX_BODY ((size_t)64 << 20)
/* CURLMOPT_MAX_HOST_CONNECTIONS: each open watch holds one HTTP/1.1 connection; requests beyond
 * the limit wait for a free one */
#define DEFAULT_MAX_CONNS 32L
#define CONNECT_TIMEOUT_MS 10000L
#define DEFAULT_FIELD_MANAGER "pgbench-operator"
#define DEFAULT_MAX_RETRIES 10 /* client-go's withRetry{maxRetries: 10} */
#define RETRY_JITTER 0.2       /* a wait is Retry-After * [1, 1 + RETRY_JITTER) */
#define MAX_HOLDS 256          /* paths with a pending Retry-After before expired ones go */

const struct kube_resource KUBE_PODS = {"", "v1", "Pod", "pods", true};
const struct kube_resource KUBE_SECRETS = {"", "v1", "Secret", "secrets", true};
const struct kube_resource KUBE_CONFIGMAPS = {"", "v1", "ConfigMap", "configmaps", true};
const struct kube_resource KUBE_EVENTS = {"", "v1", "Event", "events", true};
const struct kube_resource KUBE_PVCS = {"", "v1", "PersistentVolumeClaim", "persistentvolumeclaims",
                                        true};
const struct kube_resource KUBE_NAMESPACES = {"", "v1", "Namespace", "namespaces", false};
const struct kube_resource KUBE_NODES = {"", "v1", "Node", "nodes", false};
const struct kube_resource KUBE_JOBS = {"batch", "v1", "Job", "jobs", true};
const struct kube_resource KUBE_HPAS = {"autoscaling", "v2", "HorizontalPodAutoscaler",
                                        "horizontalpodautoscalers", true};
const struct kube_resource KUBE_LEASES = {"coordination.k8s.io", "v1", "Lease", "leases", true};
const struct kube_resource KUBE_STATEFULSETS = {"apps", "v1", "StatefulSet", "statefulsets", true};
const struct kube_resource KUBE_DEPLOYMENTS = {"apps", "v1", "Deployment", "deployments", true};

struct kube__req {
    struct kube_client *c;
    CURL *easy;
    struct curl_slist *headers;
    char *body;
    struct buf resp;    /* buffered body (or a non-2xx body of a stream) */
    struct buf pending; /* stream bytes not yet handed to on_data */
    char warning[512];
    double retry_after;
    bool too_large;
    bool cancelled;
    bool in_multi;
    bool waiting;      /* held back until `due` (Retry-After), not in the multi handle */
    char *method;      /* for log lines */
    char *key;         /* the path without its query: what a Retry-After holds back */
    long timeout_ms;   /* the caller's budget, first send to last answer */
    uint64_t deadline; /* loop ms: first send + timeout_ms; 0 before the first send */
    uint64_t due;      /* loop ms when a waiting request is sent */
    int attempts;      /* retries made */
    int stream_state;  /* 0 undecided, 1 streaming (2xx), 2 buffering (error status) */
    kube__data_fn on_data;
    kube__done_fn done;
    void *ud;
    void (*ud_free)(void *ud); /* frees ud when done never runs */
    struct kube__req *prev, *next;
    char errbuf[CURL_ERROR_SIZE];
};

struct sock_ctx {
    uv_poll_t poll;
    curl_socket_t fd;
    struct kube_client *c;
    struct sock_ctx *prev, *next; /* open (not closing) sockets */
};

/* A path the server asked us to leave alone until `until` (loop ms). */
struct hold {
    uint64_t until;
    uint64_t jitter_ms; /* spread for the requests released at `until` */
};

struct kube_client {
    uv_loop_t *loop;
    CURLM *multi;
    uv_timer_t timer;
    uv_timer_t retry_timer; /* sends waiting requests */
    struct kube__map holds; /* path -> struct hold */
    int max_retries;
    uint64_t rng;
    char *server;
    char *token; /* current bearer token */
    char *token_file;
    struct timespec token_mtime;
    off_t token_size;
    char *ca_file, *ca_data, *cert_file, *cert_data, *key_file, *key_data;
    bool insecure;
    size_t max_body;
    struct kube__req *reqs;
    struct sock_ctx *socks;
    int dispatching;
    bool free_pending;
    bool closed;
    int open_handles; /* timers + polls still to be closed */
    struct kube_client_stats stats;
};

static char *dup_or_null(const char *s)
{
    return s ? util_xstrdup(s) : NULL;
}

static void free_secret(char *s)
{
    if (!s)
        return;
    explicit_bzero(s, strlen(s));
    free(s);
}

/* ---- token rotation ---- */

static void refresh_token(struct kube_client *c)
{
    if (!c->token_file)
        return;
    struct stat st;
    if (stat(c->token_file, &st) != 0)
        return; /* keep the last token we had */
    if (c->token && st.st_mtim.tv_sec == c->token_mtime.tv_sec &&
        st.st_mtim.tv_nsec == c->token_mtime.tv_nsec && st.st_size == c->token_size)
        return;
    char *tok = NULL;
    if (kube__read_trimmed(c->token_file, &tok) < 0 || !tok[0]) {
        free(tok);
        return;
    }
    free_secret(c->token);
    c->token = tok;
    c->token_mtime = st.st_mtim;
    c->token_size = st.st_size;
    log_debug("kube", "bearer token (re)read from %s", c->token_file);
}

/* ---- curl <-> libuv glue ---- */

static void process(struct kube_client *c);
static void client_destroy(struct kube_client *c);

static void client_release(struct kube_client *c)
{
    if (c->closed && c->open_handles == 0)
        free(c);
}

static void on_poll_closed(uv_handle_t *h)
{
    struct sock_ctx *ctx = h->data;
    struct kube_client *c = ctx->c;
    free(ctx);
    c->open_handles--;
    client_release(c);
}

static void on_timer_closed(uv_handle_t *h)
{
    struct kube_client *c = h->data;
    c->open_handles--;
    client_release(c);
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    struct sock_ctx *ctx = h->data;
    struct kube_client *c = ctx->c;
    int flags = 0, running;
    if (status < 0)
        flags = CURL_CSELECT_ERR;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    curl_multi_socket_action(c->multi, ctx->fd, flags, &running);
    process(c);
}

static void on_timeout(uv_timer_t *h)
{
    struct kube_client *c = h->data;
    int running;
    curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    process(c);
}

static void sock_close(struct kube_client *c, struct sock_ctx *ctx)
{
    uv_poll_stop(&ctx->poll);
    UTIL_LIST_UNLINK(c->socks, ctx);
    uv_close((uv_handle_t *)&ctx->poll, on_poll_closed);
}

static int socket_cb(CURL *easy, curl_socket_t s, int action, void *userp, void *socketp)
{
    (void)easy;
    struct kube_client *c = userp;
    struct sock_ctx *ctx = socketp;
    if (action == CURL_POLL_REMOVE) {
        if (ctx) {
            curl_multi_assign(c->multi, s, NULL);
            sock_close(c, ctx);
        }
        return 0;
    }
    if (!ctx) {
        ctx = util_xcalloc(1, sizeof(*ctx));
        ctx->fd = s;
        ctx->c = c;
        if (uv_poll_init_socket(c->loop, &ctx->poll, s) != 0) {
            free(ctx);
            return -1;
        }
        ctx->poll.data = ctx;
        c->open_handles++;
        UTIL_LIST_PUSH(c->socks, ctx);
        curl_multi_assign(c->multi, s, ctx);
    }
    int ev = 0;
    if (action == CURL_POLL_IN || action == CURL_POLL_INOUT)
        ev |= UV_READABLE;
    if (action == CURL_POLL_OUT || action == CURL_POLL_INOUT)
        ev |= UV_WRITABLE;
    uv_poll_start(&ctx->poll, ev, on_poll);
    return 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
    (void)multi;
    struct kube_client *c = userp;
    if (timeout_ms < 0)
        uv_timer_stop(&c->timer);
    else
        uv_timer_start(&c->timer, on_timeout, (uint64_t)timeout_ms, 0);
    return 0;
}

/* ---- per-request callbacks (inside curl: no user code here) ---- */

static size_t write_cb(char *data, size_t size, size_t nmemb, void *userp)
{
    struct kube__req *r = userp;
    size_t n = size * nmemb;
    if (r->on_data && r->stream_state == 0) {
        long code = 0;
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
        r->stream_state = code >= 200 && code < 300 ? 1 : 2;
    }
    struct buf *b = r->stream_state == 1 ? &r->pending : &r->resp;
    if (buf_append(b, data, n) < 0) {
        r->too_large = true;
        return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
    }
    return n;
}

static size_t header_cb(char *data, size_t size, size_t nmemb, void *userp)
{
    struct kube__req *r = userp;
    size_t n = size * nmemb;
    if (n >= 5 && !strncmp(data, "HTTP/", 5)) {
        /* a new response (after 100 Continue): forget the previous headers */
        r->warning[0] = '\0';
        r->retry_after = 0;
        return n;
    }
    const char *colon = memchr(data, ':', n);
    if (!colon)
        return n;
    size_t klen = (size_t)(colon - data);
    const char *v = colon + 1, *end = data + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    size_t vlen = (size_t)(end - v);
    if (klen == 7 && !strncasecmp(data, "Warning", 7) && !r->warning[0]) {
        if (vlen >= sizeof(r->warning))
            vlen = sizeof(r->warning) - 1;
        memcpy(r->warning, v, vlen);
        r->warning[vlen] = '\0';
    } else if (klen == 11 && !strncasecmp(data, "Retry-After", 11)) {
        char tmp[32];
        if (vlen < sizeof(tmp)) {
            memcpy(tmp, v, vlen);
            tmp[vlen] = '\0';
            char *e;
            double d = strtod(tmp, &e);
            if (e != tmp && *e == '\0' && d >= 0)
                r->retry_after = d;
        }
    }
    return n;
}

/* ---- completion ---- */

static void req_free(struct kube__req *r)
{
    struct kube_client *c = r->c;
    if (r->in_multi) {
        curl_multi_remove_handle(c->multi, r->easy);
        r->in_multi = false;
    }
    UTIL_LIST_UNLINK(c->reqs, r);
    if (r->ud_free)
        r->ud_free(r->ud);
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->headers);
    free(r->body);
    free(r->method);
    free(r->key);
    buf_free(&r->resp);
    buf_free(&r->pending);
    free(r);
}

static void copy_str(char *dst, size_t n, const char *src)
{
    (void)snprintf(dst, n, "%s", src ? src : "");
}

static bool looks_json(const char *ctype, const struct buf *b)
{
    if (ctype && strstr(ctype, "json"))
        return true;
    if (!b->len)
        return false;
    size_t i = 0;
    while (i < b->len && (b->data[i] == ' ' || b->data[i] == '\n' || b->data[i] == '\r'))
        i++;
    return !ctype && i < b->len && b->data[i] == '{';
}

/* Fills st from a Status object (or any error body). */
static void decode_status(struct kube_status *st, const cJSON *body, const struct buf *text)
{
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(body, "kind");
    if (cJSON_IsString(kind) && !strcmp(kind->valuestring, "Status")) {
        const cJSON *reason = cJSON_GetObjectItemCaseSensitive(body, "reason");
        const cJSON *msg = cJSON_GetObjectItemCaseSensitive(body, "message");
        const cJSON *details = cJSON_GetObjectItemCaseSensitive(body, "details");
        const cJSON *ra = cJSON_GetObjectItemCaseSensitive(details, "retryAfterSeconds");
        if (cJSON_IsString(reason))
            copy_str(st->reason, sizeof(st->reason), reason->valuestring);
        if (cJSON_IsString(msg))
            copy_str(st->message, sizeof(st->message), msg->valuestring);
        if (cJSON_IsNumber(ra) && ra->valuedouble > 0 && st->retry_after <= 0)
            st->retry_after = ra->valuedouble;
        return;
    }
    if (kube_ok(st))
        return;
    /* Not a Status: keep a printable prefix of the body as the message. */
    size_t n = 0;
    int w = snprintf(st->message, sizeof(st->message), "HTTP %d", st->http);
    if (w > 0 && (size_t)w < sizeof(st->message) - 3 && text->len) {
        n = (size_t)w;
        st->message[n++] = ':';
        st->message[n++] = ' ';
        for (size_t i = 0; i < text->len && n < 200; i++) {
            unsigned char ch = (unsigned char)text->data[i];
            st->message[n++] = ch >= 0x20 && ch < 0x7f ? (char)ch : ' ';
        }
        st->message[n] = '\0';
    }
}

/* ---- Retry-After: holds and waiting requests ---- */

static uint64_t client_rand(struct kube_client *c)
{
    c->rng ^= c->rng << 13;
    c->rng ^= c->rng >> 7;
    c->rng ^= c->rng << 17;
    return c->rng;
}

/* A number in [0, n] (0 when n is 0). */
static uint64_t rand_upto(struct kube_client *c, uint64_t n)
{
    return n ? client_rand(c) % (n + 1) : 0;
}

static uint64_t seconds_ms(double s)
{
    return s > 0 ? (uint64_t)(s * 1000.0 + 0.999) : 0; /* rounded up: never sooner */
}

static void drop_expired_holds(struct kube_client *c, uint64_t now)
{
    for (size_t b = 0; b < c->holds.nbuckets; b++) {
        struct kube__map_entry *e = c->holds.buckets[b], *next;
        for (; e; e = next) {
            next = e->next;
            struct hold *h = e->val;
            if (h->until <= now)
                free(kube__map_del(&c->holds, e->key));
        }
    }
}

/* The server asked for `seconds` of quiet on key (a path). */
static void hold_set(struct kube_client *c, const char *key, double seconds, uint64_t now)
{
    uint64_t until = now + seconds_ms(seconds);
    struct hold *h = kube__map_get(&c->holds, key);
    if (h) {
        if (until > h->until) {
            h->until = until;
            h->jitter_ms = (uint64_t)((double)seconds_ms(seconds) * RETRY_JITTER);
        }
        return;
    }
    if (c->holds.count >= MAX_HOLDS)
        drop_expired_holds(c, now);
    h = util_xmalloc(sizeof(*h));
    h->until = until;
    h->jitter_ms = (uint64_t)((double)seconds_ms(seconds) * RETRY_JITTER);
    kube__map_put(&c->holds, key, h);
}

/* 0, or the loop time (jittered) before which a request for key must not go out. */
static uint64_t hold_due(struct kube_client *c, const char *key, uint64_t now)
{
    struct hold *h = kube__map_get(&c->holds, key);
    if (!h)
        return 0;
    if (h->until <= now) {
        free(kube__map_del(&c->holds, key));
        return 0;
    }
    return h->until + rand_upto(c, h->jitter_ms);
}

static void on_retry_timer(uv_timer_t *t);

static void arm_retry_timer(struct kube_client *c)
{
    uint64_t next = 0;
    for (struct kube__req *r = c->reqs; r; r = r->next)
        if (r->waiting && !r->cancelled && (!next || r->due < next))
            next = r->due;
    if (!next) {
        uv_timer_stop(&c->retry_timer);
        return;
    }
    uint64_t now = uv_now(c->loop);
    uv_timer_start(&c->retry_timer, on_retry_timer, next > now ? next - now : 0, 0);
}

/* Puts the request in the multi handle: the first send starts its timeout, a retry gets what
 * is left of it (and the current token). */
static int req_send(struct kube__req *r)
{
    struct kube_client *c = r->c;
    uint64_t now = uv_now(c->loop);
    long t = r->timeout_ms;
    if (!r->deadline)
        r->deadline = now + (uint64_t)r->timeout_ms;
    else
        t = r->deadline > now + 1 ? (long)(r->deadline - now) : 1;
    curl_easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, t);
    if (r->attempts || r->due) { /* sent later than submitted: the token may have rotated */
        refresh_token(c);
        if (c->token) {
            curl_easy_setopt(r->easy, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
            curl_easy_setopt(r->easy, CURLOPT_XOAUTH2_BEARER, c->token);
        }
    }
    if (curl_multi_add_handle(c->multi, r->easy) != CURLM_OK)
        return -EIO;
    r->waiting = false;
    r->in_multi = true;
    c->stats.requests++;
    log_debug("kube", "%s %s%s", r->method, r->key, r->attempts ? " (retry)" : "");
    return 0;
}

/* An answer that states the object's state rather than a failure: 404 to a GET or DELETE (gone,
 * as controller-runtime's NotFound-is-success; after an operator restart its old Lease is
 * already garbage-collected) and 409 AlreadyExists to a POST (an Event or Job with a deterministic
 * name, created before a restart). Not counted in stats.errors; the caller still sees the code. */
static bool expected_answer(const char *method, const struct kube_status *st)
{
    if (st->http == 404)
        return !strcmp(method, "GET") || !strcmp(method, "DELETE");
    if (st->http == 409)
        return !strcmp(method, "POST") && !strcmp(st->reason, "AlreadyExists");
    return false;
}

/* Answers a request that could not be sent (the callback runs here, not inside curl). */
static void req_fail_local(struct kube__req *r, int err)
{
    struct kube_client *c = r->c;
    struct kube_result res;
    memset(&res, 0, sizeof(res));
    (void)snprintf(res.status.message, sizeof(res.status.message), "cannot send the request: %s",
                   strerror(-err));
    res.text = "";
    c->stats.errors++;
    r->cancelled = true;
    r->ud_free = NULL;
    r->done(&res, r->ud);
}

/* Ends a pass that callbacks may re-enter (c->dispatching counts them). The outermost pass frees
 * the finished and cancelled requests, then the client when kube_client_free came during the pass.
 * Returns true when the client is still there and no outer pass is running. */
static bool dispatch_end(struct kube_client *c)
{
    if (--c->dispatching)
        return false;
    struct kube__req *r = c->reqs, *next;
    for (; r; r = next) {
        next = r->next;
        if (r->cancelled)
            req_free(r);
    }
    if (c->free_pending) {
        client_destroy(c);
        return false;
    }
    return true;
}

static void on_retry_timer(uv_timer_t *t)
{
    struct kube_client *c = t->data;
    if (c->free_pending)
        return;
    uint64_t now = uv_now(c->loop);
    c->dispatching++;
    for (struct kube__req *r = c->reqs; r && !c->free_pending; r = r->next) {
        if (!r->waiting || r->cancelled || r->due > now)
            continue;
        uint64_t later = hold_due(c, r->key, now); /* a newer Retry-After for the path */
        if (later > r->due) {
            r->due = later;
            continue;
        }
        int rc = req_send(r);
        if (rc)
            req_fail_local(r, rc);
    }
    if (dispatch_end(c))
        arm_retry_timer(c);
}

/* A 429 or 5xx with Retry-After (client-go's checkWait): remembers the hold and, for a buffered
 * request with retries and time left, schedules the next attempt. True when it did. */
static bool retry_after_answer(struct kube__req *r, const struct kube_status *st)
{
    struct kube_client *c = r->c;
    if (st->curl || st->retry_after <= 0 || !(st->http == 429 || st->http >= 500))
        return false;
    uv_update_time(c->loop); /* measured from the answer's arrival, not the loop's last tick */
    uint64_t now = uv_now(c->loop);
    hold_set(c, r->key, st->retry_after, now);
    if (r->on_data || r->attempts >= c->max_retries)
        return false;
    uint64_t wait = seconds_ms(st->retry_after);
    wait += rand_upto(c, (uint64_t)((double)wait * RETRY_JITTER));
    if (now + wait >= r->deadline) {
        log_debug("kube", "%s %s: HTTP %d, Retry-After %.0f s exceeds the request's time left",
                  r->method, r->key, st->http, st->retry_after);
        return false;
    }
    r->attempts++;
    c->stats.retries++;
    buf_reset(&r->resp);
    buf_reset(&r->pending);
    r->warning[0] = '\0';
    r->retry_after = 0;
    r->too_large = false;
    r->stream_state = 0;
    r->errbuf[0] = '\0';
    r->waiting = true;
    r->due = now + wait;
    log_debug("kube", "%s %s: HTTP %d %s, Retry-After %.0f s: retry %d in %llu ms", r->method,
              r->key, st->http, st->reason, st->retry_after, r->attempts, (unsigned long long)wait);
    arm_retry_timer(c);
    return true;
}

static void finish(struct kube__req *r, CURLcode code)
{
    struct kube_client *c = r->c;
    struct kube_result res;
    memset(&res, 0, sizeof(res));
    curl_multi_remove_handle(c->multi, r->easy);
    r->in_multi = false;

    /* hand over the last streamed bytes first */
    if (r->on_data && r->pending.len && !r->cancelled) {
        r->on_data(r->pending.data, r->pending.len, r->ud);
        buf_reset(&r->pending);
    }
    if (r->cancelled || c->free_pending)
        return; /* swept by the caller */

    long http = 0;
    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &http);
    res.status.curl = (int)code;
    res.status.retry_after = r->retry_after;
    if (code != CURLE_OK) {
        res.status.http = 0;
        if (r->too_large) {
            copy_str(res.status.reason, sizeof(res.status.reason), "TooLarge");
            (void)snprintf(res.status.message, sizeof(res.status.message),
                           "response body exceeds %zu bytes", c->max_body);
        } else {
            if (code == CURLE_OPERATION_TIMEDOUT)
                copy_str(res.status.reason, sizeof(res.status.reason), "Timeout");
            (void)snprintf(res.status.message, sizeof(res.status.message), "%s",
                           r->errbuf[0] ? r->errbuf : curl_easy_strerror(code));
        }
    } else {
        res.status.http = (int)http;
        char *ctype = NULL;
        curl_easy_getinfo(r->easy, CURLINFO_CONTENT_TYPE, &ctype);
        if (looks_json(ctype, &r->resp))
            res.body = cJSON_ParseWithLength(r->resp.data, r->resp.len);
        decode_status(&res.status, res.body, &r->resp);
    }
    if (!kube_ok(&res.status) && !expected_answer(r->method, &res.status))
        c->stats.errors++;
    if (retry_after_answer(r, &res.status)) {
        cJSON_Delete(res.body);
        return; /* sent again later; done runs then */
    }
    res.text = r->resp.data ? r->resp.data : "";
    res.text_len = r->resp.len;
    res.warning = r->warning[0] ? r->warning : NULL;
    log_debug("kube", "request done: http=%d curl=%d reason=%s", res.status.http, res.status.curl,
              res.status.reason);
    r->cancelled = true; /* the callback runs once */
    r->ud_free = NULL;   /* done owns ud now */
    r->done(&res, r->ud);
    cJSON_Delete(res.body);
}

static void process(struct kube_client *c)
{
    c->dispatching++;
    /* 1. streamed bytes */
    for (struct kube__req *r = c->reqs; r && !c->free_pending; r = r->next) {
        if (r->on_data && r->pending.len && !r->cancelled) {
            r->on_data(r->pending.data, r->pending.len, r->ud);
            buf_reset(&r->pending);
        }
    }
    /* 2. completions: always drain, callbacks may add more */
    CURLMsg *m;
    int left;
    while (!c->free_pending && (m = curl_multi_info_read(c->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        struct kube__req *r = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        CURLcode code = m->data.result;
        if (r)
            finish(r, code);
    }
    (void)dispatch_end(c); /* 3. frees the finished and cancelled requests */
}

/* ---- public: client ---- */

int kube_client_new(uv_loop_t *loop, const struct kube_config *cfg, struct kube_client **out)
{
    if (!loop || !cfg || !cfg->server || !out)
        return -EINVAL;
    static bool global_done;
    if (!global_done) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return -EIO;
        global_done = true;
    }
    struct kube_client *c = util_xcalloc(1, sizeof(*c));
    c->loop = loop;
    c->multi = util_must(curl_multi_init()); /* fails only for memory */
    c->server = util_xstrdup(cfg->server);
    c->token = dup_or_null(cfg->token);
    c->token_file = dup_or_null(cfg->token_file);
    c->ca_file = dup_or_null(cfg->ca_file);
    c->ca_data = dup_or_null(cfg->ca_data);
    c->cert_file = dup_or_null(cfg->cert_file);
    c->cert_data = dup_or_null(cfg->cert_data);
    c->key_file = dup_or_null(cfg->key_file);
    c->key_data = dup_or_null(cfg->key_data);
    c->insecure = cfg->insecure_skip_tls_verify;
    c->max_body = DEFAULT_MAX_BODY;
    uv_timer_init(loop, &c->timer);
    c->timer.data = c;
    uv_timer_init(loop, &c->retry_timer);
    c->retry_timer.data = c;
    c->open_handles = 2;
    kube__map_init(&c->holds);
    c->max_retries = DEFAULT_MAX_RETRIES;
    c->rng = uv_hrtime() ^ (uint64_t)(uintptr_t)c ^ 0x9e3779b97f4a7c15ull;
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, timer_cb);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
    curl_multi_setopt(c->multi, CURLMOPT_MAX_HOST_CONNECTIONS, DEFAULT_MAX_CONNS);
    curl_multi_setopt(c->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    *out = c;
    return 0;
}

void kube_client_set_max_body(struct kube_client *c, size_t bytes)
{
    c->max_body = bytes ? bytes : DEFAULT_MAX_BODY;
}

void kube_client_set_max_retries(struct kube_client *c, int n)
{
    c->max_retries = n >= 0 ? n : DEFAULT_MAX_RETRIES;
}

static void client_destroy(struct kube_client *c)
{
    struct kube__req *r = c->reqs, *next;
    for (; r; r = next) {
        next = r->next;
        req_free(r);
    }
    /* removing the last handles may close sockets through socket_cb */
    curl_multi_cleanup(c->multi);
    c->multi = NULL;
    while (c->socks) /* sockets curl closed without telling us */
        sock_close(c, c->socks);
    free(c->server);
    free_secret(c->token);
    free(c->token_file);
    free(c->ca_file);
    free(c->ca_data);
    free(c->cert_file);
    free(c->cert_data);
    free(c->key_file);
    free_secret(c->key_data);
    kube__map_clear(&c->holds, free);
    c->closed = true;
    uv_timer_stop(&c->timer);
    uv_close((uv_handle_t *)&c->timer, on_timer_closed);
    uv_timer_stop(&c->retry_timer);
    uv_close((uv_handle_t *)&c->retry_timer, on_timer_closed);
}

void kube_client_free(struct kube_client *c)
{
    if (!c || c->free_pending)
        return;
    c->free_pending = true;
    if (!c->dispatching)
        client_destroy(c);
}

void kube_client_stats(const struct kube_client *c, struct kube_client_stats *out)
{
    *out = c->stats;
}

void kube__stat_inc(struct kube_client *c, enum kube__stat which)
{
    if (which == KUBE__STAT_WATCH_RESTART)
        c->stats.watch_restarts++;
    else
        c->stats.relists++;
}

uv_loop_t *kube__client_loop(struct kube_client *c)
{
    return c->loop;
}

/* ---- building requests ---- */

static int escape_into(struct buf *b, const char *s)
{
    char *e = util_must(curl_easy_escape(NULL, s, 0)); /* fails only for memory */
    int rc = buf_puts(b, e);
    curl_free(e);
    return rc;
}

int kube__resource_path(struct buf *b, const struct kube_resource *r, const char *ns,
                        const char *name, const char *sub)
{
    int rc;
    if (!r->group || !r->group[0])
        rc = buf_printf(b, "/api/%s", r->version);
    else
        rc = buf_printf(b, "/apis/%s/%s", r->group, r->version);
    if (!rc && r->namespaced && ns && ns[0]) {
        rc = buf_puts(b, "/namespaces/");
        if (!rc)
            rc = escape_into(b, ns);
    }
    if (!rc)
        rc = buf_printf(b, "/%s", r->plural);
    if (!rc && name) {
        if (!name[0])
            return -EINVAL;
        rc = buf_puts(b, "/");
        if (!rc)
            rc = escape_into(b, name);
    }
    if (!rc && sub && sub[0]) {
        rc = buf_puts(b, "/");
        if (!rc)
            rc = escape_into(b, sub);
    }
    return rc;
}

int kube__query_add(struct buf *b, const char *key, const char *value)
{
    int rc = buf_puts(b, b->data && strchr(b->data, '?') ? "&" : "?");
    if (!rc)
        rc = buf_puts(b, key);
    if (!rc)
        rc = buf_puts(b, "=");
    if (!rc)
        rc = escape_into(b, value);
    return rc;
}

/* The request's method, body and transfer options (URL, callbacks, keepalive, timeouts). */
static void easy_request(struct kube__req *r, const char *url, const char *method, const char *body)
{
    CURL *e = r->easy;
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)r);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->errbuf);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    /* a watch on a silently dead connection is noticed in about two minutes */
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 10L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_USERAGENT, "pgbench-operator/0.1");
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    if (!strcmp(method, "GET")) {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
    }
    if (body) {
        r->body = util_xstrdup(body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(r->body));
    }
}

/* The client's credentials: CA, client certificate and key (PEM data over files), and the
 * bearer token as it is now (re-read from its file when that changed). */
static void easy_credentials(struct kube_client *c, CURL *e)
{
    if (c->ca_data) {
        struct curl_blob blob = {c->ca_data, strlen(c->ca_data), CURL_BLOB_COPY};
        curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &blob);
    } else if (c->ca_file) {
        curl_easy_setopt(e, CURLOPT_CAINFO, c->ca_file);
    }
    if (c->cert_data) {
        struct curl_blob blob = {c->cert_data, strlen(c->cert_data), CURL_BLOB_COPY};
        curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &blob);
        curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
    } else if (c->cert_file) {
        curl_easy_setopt(e, CURLOPT_SSLCERT, c->cert_file);
    }
    if (c->key_data) {
        struct curl_blob blob = {c->key_data, strlen(c->key_data), CURL_BLOB_COPY};
        curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &blob);
        curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
    } else if (c->key_file) {
        curl_easy_setopt(e, CURLOPT_SSLKEY, c->key_file);
    }
    if (c->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    refresh_token(c);
    if (c->token) {
        curl_easy_setopt(e, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
        curl_easy_setopt(e, CURLOPT_XOAUTH2_BEARER, c->token);
    }
}

/* Accept, Content-Type (when given) and an empty Expect (curl_slist_append fails only for
 * memory). */
static struct curl_slist *req_header_list(const char *content_type)
{
    char ct[160];
    struct curl_slist *h = util_must(curl_slist_append(NULL, "Accept: application/json, */*"));
    if (content_type) {
        (void)snprintf(ct, sizeof(ct), "Content-Type: %s", content_type);
        h = util_must(curl_slist_append(h, ct));
    }
    return util_must(curl_slist_append(h, "Expect:"));
}

/* Sends r now, or holds it back while its path is under a Retry-After; then links it into the
 * client's list. -EIO when it could not be handed to curl (r is not linked then). */
static int req_start(struct kube_client *c, struct kube__req *r, const char *method)
{
    /* a path the server asked us to leave alone waits, outside its timeout (as client-go
     * throttles before the timeout starts) */
    uint64_t now = uv_now(c->loop), due = hold_due(c, r->key, now);
    if (due > now) {
        r->waiting = true;
        r->due = due;
        log_debug("kube", "%s %s: held back %llu ms (Retry-After)", method, r->key,
                  (unsigned long long)(due - now));
    } else if (req_send(r) < 0) {
        return -EIO;
    }
    UTIL_LIST_PUSH(c->reqs, r);
    if (r->waiting)
        arm_retry_timer(c);
    return 0;
}

static int submit(struct kube_client *c, const char *method, const char *path,
                  const char *content_type, const char *body, long timeout_ms,
                  kube__data_fn on_data, kube__done_fn done, void *ud, void (*ud_free)(void *),
                  struct kube__req **out)
{
    if (!c || c->free_pending || !method || !path || path[0] != '/' || !done)
        return -EINVAL;
    struct kube__req *r = util_xcalloc(1, sizeof(*r));
    struct buf url = BUF_INIT(0);
    r->c = c;
    r->done = done;
    r->on_data = on_data;
    r->ud = ud;
    r->resp.limit = c->max_body;
    r->pending.limit = c->max_body;
    r->method = util_xstrdup(method);
    r->key = util_xstrndup(path, strcspn(path, "?"));
    r->timeout_ms = timeout_ms > 0 ? timeout_ms : DEFAULT_TIMEOUT_MS;
    r->easy = util_must(curl_easy_init()); /* after curl_global_init, fails only for memory */
    (void)buf_puts(&url, c->server);       /* unlimited: cannot fail */
    (void)buf_puts(&url, path);
    easy_request(r, url.data, method, body);
    easy_credentials(c, r->easy);
    r->headers = req_header_list(content_type);
    curl_easy_setopt(r->easy, CURLOPT_HTTPHEADER, r->headers);
    int rc = req_start(c, r, method);
    buf_free(&url);
    if (rc < 0)
        goto fail;
    r->ud_free = ud_free;
    if (out)
        *out = r;
    return 0;
fail:
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->headers);
    free(r->body);
    free(r->method);
    free(r->key);
    free(r);
    return rc;
}

int kube__submit(struct kube_client *c, const char *method, const char *path,
                 const char *content_type, const char *body, long timeout_ms, kube__data_fn on_data,
                 kube__done_fn done, void *ud, struct kube__req **out)
{
    return submit(c, method, path, content_type, body, timeout_ms, on_data, done, ud, NULL, out);
}

void kube__cancel(struct kube__req *r)
{
    if (!r || r->cancelled)
        return;
    struct kube_client *c = r->c;
    r->cancelled = true;
    if (r->in_multi) {
        curl_multi_remove_handle(c->multi, r->easy);
        r->in_multi = false;
    }
    if (!c->dispatching)
        req_free(r);
}

/* ---- public: requests ---- */

struct cb_wrap {
    kube_cb cb;
    kube_data_cb on_data; /* NULL unless streamed */
    void *ud;
};

static void wrap_done(struct kube_result *res, void *ud)
{
    struct cb_wrap w = *(struct cb_wrap *)ud;
    free(ud);
    w.cb(res, w.ud);
}

static void wrap_data(const char *data, size_t len, void *ud)
{
    struct cb_wrap *w = ud;
    w->on_data(data, len, w->ud);
}

static int submit_public(struct kube_client *c, const char *method, const char *path,
                         const char *ctype, const char *body, long timeout_ms, kube_data_cb on_data,
                         kube_cb cb, void *ud)
{
    if (!cb)
        return -EINVAL;
    struct cb_wrap *w = util_xmalloc(sizeof(*w));
    w->cb = cb;
    w->on_data = on_data;
    w->ud = ud;
    int rc = submit(c, method, path, ctype, body, timeout_ms, on_data ? wrap_data : NULL, wrap_done,
                    w, free, NULL);
    if (rc < 0)
        free(w);
    return rc;
}

static const char *ns_for(const struct kube_resource *r, const char *ns)
{
    return r->namespaced ? ns : NULL;
}

static int add_write_query(struct buf *b, const struct kube_opts *o, bool apply)
{
    int rc = kube__query_add(b, "fieldManager",
                             o && o->field_manager ? o->field_manager : DEFAULT_FIELD_MANAGER);
    if (!rc && o && o->field_validation)
        rc = kube__query_add(b, "fieldValidation", o->field_validation);
    if (!rc && apply && o && o->force)
        rc = kube__query_add(b, "force", "true");
    return rc;
}

static int add_raw_query(struct buf *b, const struct kube_opts *o)
{
    if (!o || !o->query || !o->query[0])
        return 0;
    int rc = buf_puts(b, b->data && strchr(b->data, '?') ? "&" : "?");
    return rc ? rc : buf_puts(b, o->query);
}

static long timeout_of(const struct kube_opts *o)
{
    return o ? o->timeout_ms : 0;
}
static const char *sub_of(const struct kube_opts *o)
{
    return o ? o->subresource : NULL;
}

/* GET of one object (or its subresource), its body whole to cb or also in pieces to on_data. */
static int get_one(struct kube_client *c, const struct kube_resource *r, const char *ns,
                   const char *name, const struct kube_opts *o, kube_data_cb on_data, kube_cb cb,
                   void *ud)
{
    if (!c || !r || !name)
        return -EINVAL;
    struct buf p = BUF_INIT(0);
    int rc = kube__resource_path(&p, r, ns_for(r, ns), name, sub_of(o));
    if (!rc)
        rc = add_raw_query(&p, o);
    if (!rc)
        rc = submit_public(c, "GET", p.data, NULL, NULL, timeout_of(o), on_data, cb, ud);
    buf_free(&p);
    return rc;
}

int kube_get(struct kube_client *c, const struct kube_resource *r, const char *ns, const char *name,
             const struct kube_opts *o, kube_cb cb, void *ud)
{
    return get_one(c, r, ns, name, o, NULL, cb, ud);
}

int kube_get_stream(struct kube_client *c, const struct kube_resource *r, const char *ns,
                    const char *name, const struct kube_opts *o, kube_data_cb on_data, kube_cb cb,
                    void *ud)
{
    return on_data ? get_one(c, r, ns, name, o, on_data, cb, ud) : -EINVAL;
}

int kube_list(struct kube_client *c, const struct kube_resource *r, const char *ns,
              const struct kube_opts *o, kube_cb cb, void *ud)
{
    if (!c || !r)
        return -EINVAL;
    struct buf p = BUF_INIT(0);
    char lim[32];
    int rc = kube__resource_path(&p, r, ns_for(r, ns), NULL, NULL);
    if (!rc && o && o->label_selector && o->label_selector[0])
        rc = kube__query_add(&p, "labelSelector", o->label_selector);
    if (!rc && o && o->field_selector && o->field_selector[0])
        rc = kube__query_add(&p, "fieldSelector", o->field_selector);
    if (!rc && o && o->limit > 0) {
        (void)snprintf(lim, sizeof(lim), "%ld", o->limit);
        rc = kube__query_add(&p, "limit", lim);
    }
    if (!rc && o && o->continue_token && o->continue_token[0])
        rc = kube__query_add(&p, "continue", o->continue_token);
    if (!rc)
        rc = add_raw_query(&p, o);
    if (!rc)
        rc = submit_public(c, "GET", p.data, NULL, NULL, timeout_of(o), NULL, cb, ud);
    buf_free(&p);
    return rc;
}

static int send_body(struct kube_client *c, const char *method, const struct kube_resource *r,
                     const char *ns, const char *name, const char *ctype, const cJSON *obj,
                     const struct kube_opts *o, bool apply, kube_cb cb, void *ud)
{
    if (!c || !r || !obj)
        return -EINVAL;
    char *body = util_must(cJSON_PrintUnformatted(obj));
    struct buf p = BUF_INIT(0);
    int rc = kube__resource_path(&p, r, ns_for(r, ns), name, sub_of(o));
    if (!rc)
        rc = add_write_query(&p, o, apply);
    if (!rc)
        rc = add_raw_query(&p, o);
    if (!rc)
        rc = submit_public(c, method, p.data, ctype, body, timeout_of(o), NULL, cb, ud);
    buf_free(&p);
    free(body);
    return rc;
}

int kube_create(struct kube_client *c, const struct kube_resource *r, const char *ns,
                const cJSON *obj, const struct kube_opts *o, kube_cb cb, void *ud)
{
    return send_body(c, "POST", r, ns, NULL, "application/json", obj, o, false, cb, ud);
}

int kube_replace(struct kube_client *c, const struct kube_resource *r, const char *ns,
                 const char *name, const cJSON *obj, const struct kube_opts *o, kube_cb cb,
                 void *ud)
{
    if (!name)
        return -EINVAL;
    return send_body(c, "PUT", r, ns, name, "application/json", obj, o, false, cb, ud);
}

const char *kube_patch_content_type(enum kube_patch_type type)
{
    switch (type) {
    case KUBE_PATCH_MERGE:
        return "application/merge-patch+json";
    case KUBE_PATCH_JSON:
        return "application/json-patch+json";
    case KUBE_PATCH_STRATEGIC:
        return "application/strategic-merge-patch+json";
    case KUBE_PATCH_APPLY:
        return "application/apply-patch+yaml";
    }
    return NULL;
}

int kube_patch(struct kube_client *c, const struct kube_resource *r, const char *ns,
               const char *name, enum kube_patch_type type, const cJSON *patch,
               const struct kube_opts *o, kube_cb cb, void *ud)
{
    const char *ct = kube_patch_content_type(type);
    if (!name || !ct)
        return -EINVAL;
    if (type == KUBE_PATCH_JSON && !cJSON_IsArray(patch))
        return -EINVAL;
    if (type != KUBE_PATCH_JSON && !cJSON_IsObject(patch))
        return -EINVAL;
    /* apply bodies are JSON, which is YAML; fieldManager is always sent */
    return send_body(c, "PATCH", r, ns, name, ct, patch, o, type == KUBE_PATCH_APPLY, cb, ud);
}

int kube_delete(struct kube_client *c, const struct kube_resource *r, const char *ns,
                const char *name, const struct kube_opts *o, kube_cb cb, void *ud)
{
    if (!c || !r || !name)
        return -EINVAL;
    struct buf p = BUF_INIT(0);
    char *body = NULL;
    int rc = kube__resource_path(&p, r, ns_for(r, ns), name, sub_of(o));
    if (!rc && o && o->propagation_policy) {
        rc = kube__query_add(&p, "propagationPolicy", o->propagation_policy);
        cJSON *opts = cJSON_CreateObject();
        util_jset_str(opts, "kind", "DeleteOptions");
        util_jset_str(opts, "apiVersion", "v1");
        util_jset_str(opts, "propagationPolicy", o->propagation_policy);
        body = cJSON_PrintUnformatted(opts);
        cJSON_Delete(opts);
    }
    if (!rc)
        rc = add_raw_query(&p, o);
    if (!rc)
        rc = submit_public(c, "DELETE", p.data, body ? "application/json" : NULL, body,
                           timeout_of(o), NULL, cb, ud);
    buf_free(&p);
    free(body);
    return rc;
}

int kube_request(struct kube_client *c, const char *method, const char *path,
                 const char *content_type, const char *body, long timeout_ms, kube_cb cb, void *ud)
{
    return submit_public(c, method, path, content_type, body, timeout_ms, NULL, cb, ud);
}
