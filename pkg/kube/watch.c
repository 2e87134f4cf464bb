/* Watch streams: the line decoder and the list+watch engine (state machine in kube.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kube/internal.h"
#include "pkg/kube/kube.h"
#include "pkg/util/buf.h"
#include "pkg/util/log.h"
#include "pkg/util/mem.h"

/* ---- decoder ---- */

struct kube_watch_decoder {
    struct buf line; /* a partial line carried between chunks */
    bool take;
};

struct kube_watch_decoder *kube_watch_decoder_new(size_t max_line)
{
    struct kube_watch_decoder *d = util_xcalloc(1, sizeof(*d));
    d->line.limit = max_line ? max_line : (size_t)16 << 20;
    return d;
}

void kube_watch_decoder_free(struct kube_watch_decoder *d)
{
    if (!d)
        return;
    buf_free(&d->line);
    free(d);
}

void kube_watch_decoder_take(struct kube_watch_decoder *d)
{
    d->take = true;
}

static int event_type(const char *s, enum kube_event_type *out)
{
    static const struct {
        const char *name;
        enum kube_event_type type;
    } map[] = {{"ADDED", KUBE_EVENT_ADDED},
               {"MODIFIED", KUBE_EVENT_MODIFIED},
               {"DELETED", KUBE_EVENT_DELETED},
               {"BOOKMARK", KUBE_EVENT_BOOKMARK},
               {"ERROR", KUBE_EVENT_ERROR}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (!strcmp(s, map[i].name)) {
            *out = map[i].type;
            return 0;
        }
    }
    return -EBADMSG;
}

static int decode_line(struct kube_watch_decoder *d, const char *p, size_t n, kube_event_cb cb,
                       void *ud)
{
    while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    if (i == n)
        return 0; /* blank line */
    cJSON *root = cJSON_ParseWithLength(p + i, n - i);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "object");
    enum kube_event_type t;
    if (!cJSON_IsString(type) || !cJSON_IsObject(obj) || event_type(type->valuestring, &t) < 0) {
        cJSON_Delete(root);
        return -EBADMSG;
    }
    cJSON_DetachItemViaPointer(root, obj);
    cJSON_Delete(root);
    d->take = false;
    cb(t, obj, ud);
    if (!d->take)
        cJSON_Delete(obj);
    d->take = false;
    return 0;
}

int kube_watch_decoder_feed(struct kube_watch_decoder *d, const char *data, size_t len,
                            kube_event_cb cb, void *ud)
{
    int rc = 0, r;
    while (len) {
        const char *nl = memchr(data, '\n', len);
        if (!nl) {
            if (buf_append(&d->line, data, len) < 0) {
                buf_reset(&d->line);
                return -E2BIG;
            }
            return rc;
        }
        size_t seg = (size_t)(nl - data);
        if (d->line.len) {
            if (buf_append(&d->line, data, seg) < 0) {
                buf_reset(&d->line);
                return -E2BIG;
            }
            r = decode_line(d, d->line.data, d->line.len, cb, ud);
            buf_reset(&d->line);
        } else {
            if (seg > d->line.limit)
                return -E2BIG;
            r = decode_line(d, data, seg, cb, ud);
        }
        if (r < 0 && !rc)
            rc = r;
        data = nl + 1;
        len -= seg + 1;
    }
    return rc;
}

/* ---- resourceVersion comparison ---- */

static bool rv_parse(const char *s, unsigned long long *out)
{
    if (!s || !*s || strlen(s) > 19)
        return false;
    unsigned long long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (unsigned)(*s - '0');
    }
    *out = v;
    return true;
}

int kube_rv_compare(const char *a, const char *b)
{
    unsigned long long x, y;
    if (!rv_parse(a, &x) || !rv_parse(b, &y))
        return 2;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* ---- the list+watch engine ---- */

enum ws_state { WS_IDLE, WS_LISTING, WS_WATCHING, WS_BACKOFF };

struct kube_watch {
    struct kube_client *c;
    uv_loop_t *loop;
    struct kube_resource res;
    char *ns;
    char *label_selector, *field_selector;
    struct kube_watch_opts opts;
    struct kube_watch_handlers h;
    void *ud;

    enum ws_state state;
    struct kube__req *req;
    struct kube_watch_decoder *dec;
    cJSON *items;       /* pages collected so far */
    char *continue_tok; /* next page */
    char rv[128];
    int attempt;            /* backoff exponent */
    bool backoff_then_list; /* what to do when the backoff timer fires */
    bool stream_gone, stream_error, stream_events;
    uint64_t stream_start;
    uint64_t rng;
    uv_timer_t timer;
    int in_cb;
    bool free_pending;
};

static void ws_list_begin(struct kube_watch *w);
static void ws_watch_begin(struct kube_watch *w);

static uint64_t ws_rand(struct kube_watch *w)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return w->rng;
}

static void ws_destroy_now(struct kube_watch *w);

/* After calling into the user: finish a kube_watch_free they asked for. Returns true if the
 * watch is gone. */
static bool ws_leave(struct kube_watch *w)
{
    w->in_cb--;
    if (w->in_cb == 0 && w->free_pending) {
        ws_destroy_now(w);
        return true;
    }
    return w->free_pending;
}

static void ws_on_timer(uv_timer_t *t)
{
    struct kube_watch *w = t->data;
    if (w->free_pending)
        return;
    if (w->backoff_then_list || !w->rv[0])
        ws_list_begin(w);
    else
        ws_watch_begin(w);
}

static void ws_backoff(struct kube_watch *w, bool then_list, double retry_after)
{
    double d = (double)w->opts.backoff_min_ms;
    for (int i = 0; i < w->attempt && d < (double)w->opts.backoff_max_ms; i++)
        d *= 2;
    if (d > (double)w->opts.backoff_max_ms)
        d = (double)w->opts.backoff_max_ms;
    if (w->attempt < 64)
        w->attempt++;
    uint64_t half = (uint64_t)(d / 2);
    uint64_t delay = half + (half ? ws_rand(w) % (half + 1) : 0);
    if (retry_after * 1000 > (double)delay)
        delay = (uint64_t)(retry_after * 1000);
    w->state = WS_BACKOFF;
    w->backoff_then_list = then_list;
    log_debug("kube", "watch %s: retrying in %llu ms", w->res.plural, (unsigned long long)delay);
    uv_timer_start(&w->timer, ws_on_timer, delay, 0);
}

static int ws_base_path(struct kube_watch *w, struct buf *p)
{
    int rc = kube__resource_path(p, &w->res, w->ns, NULL, NULL);
    if (!rc && w->label_selector)
        rc = kube__query_add(p, "labelSelector", w->label_selector);
    if (!rc && w->field_selector)
        rc = kube__query_add(p, "fieldSelector", w->field_selector);
    return rc;
}

static void ws_on_list_page(struct kube_result *res, void *ud);

static void ws_list_page(struct kube_watch *w)
{
    struct buf p = BUF_INIT(0);
    char lim[32];
    (void)snprintf(lim, sizeof(lim), "%ld", w->opts.page_size);
    int rc = ws_base_path(w, &p);
    if (!rc)
        rc = kube__query_add(&p, "limit", lim);
    if (!rc && w->continue_tok)
        rc = kube__query_add(&p, "continue", w->continue_tok);
    if (!rc)
        rc = kube__submit(w->c, "GET", p.data, NULL, NULL, 0, NULL, ws_on_list_page, w, &w->req);
    buf_free(&p);
    if (rc < 0) {
        w->req = NULL;
        ws_backoff(w, true, 0);
    }
}

static void ws_list_begin(struct kube_watch *w)
{
    w->state = WS_LISTING;
    cJSON_Delete(w->items);
    w->items = cJSON_CreateArray();
    free(w->continue_tok);
    w->continue_tok = NULL;
    ws_list_page(w);
}

static void ws_on_list_page(struct kube_result *res, void *ud)
{
    struct kube_watch *w = ud;
    w->req = NULL;
    if (!kube_ok(&res->status)) {
        log_debug("kube", "list %s failed: http=%d %s", w->res.plural, res->status.http,
                  res->status.message);
        if (res->status.http == 410 && w->continue_tok) {
            kube__stat_inc(w->c, KUBE__STAT_RELIST);
            ws_list_begin(w); /* continue token expired: start over */
            return;
        }
        ws_backoff(w, true, res->status.retry_after);
        return;
    }
    cJSON *items = cJSON_GetObjectItemCaseSensitive(res->body, "items");
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(res->body, "metadata");
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(md, "resourceVersion");
    const cJSON *cont = cJSON_GetObjectItemCaseSensitive(md, "continue");
    if (!cJSON_IsObject(res->body) || (items && !cJSON_IsArray(items) && !cJSON_IsNull(items))) {
        ws_backoff(w, true, 0);
        return;
    }
    cJSON *it;
    while (cJSON_IsArray(items) && (it = cJSON_DetachItemFromArray(items, 0)))
        cJSON_AddItemToArray(w->items, it);
    free(w->continue_tok);
    w->continue_tok = NULL;
    if (cJSON_IsString(cont) && cont->valuestring[0]) {
        w->continue_tok = util_xstrdup(cont->valuestring);
        ws_list_page(w);
        return;
    }
    (void)snprintf(w->rv, sizeof(w->rv), "%s", cJSON_IsString(rv) ? rv->valuestring : "");
    w->attempt = 0;
    cJSON *all = w->items;
    w->items = NULL;
    w->in_cb++;
    w->h.on_list(all, w->rv, w->ud);
    if (ws_leave(w))
        return;
    if (!w->rv[0]) {
        /* a list without a resourceVersion cannot be watched from; poll instead */
        ws_backoff(w, true, 0);
        return;
    }
    ws_watch_begin(w);
}

static void ws_on_event(enum kube_event_type type, cJSON *obj, void *ud)
{
    struct kube_watch *w = ud;
    if (w->stream_gone || w->stream_error || w->free_pending)
        return; /* the stream is being abandoned: ignore what follows */
    if (type == KUBE_EVENT_ERROR) {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(obj, "code");
        const cJSON *reason = cJSON_GetObjectItemCaseSensitive(obj, "reason");
        if ((cJSON_IsNumber(code) && code->valueint == 410) ||
            (cJSON_IsString(reason) &&
             (!strcmp(reason->valuestring, "Expired") || !strcmp(reason->valuestring, "Gone"))))
            w->stream_gone = true;
        else
            w->stream_error = true;
        return;
    }
    const char *rv = kube__object_rv(obj);
    if (rv && rv[0])
        (void)snprintf(w->rv, sizeof(w->rv), "%s", rv);
    w->stream_events = true;
    if (type == KUBE_EVENT_BOOKMARK)
        return;
    kube_watch_decoder_take(w->dec);
    w->in_cb++;
    w->h.on_event(type, obj, w->ud);
    w->in_cb--; /* ws_on_data checks free_pending */
}

static void ws_stream_abandon(struct kube_watch *w)
{
    kube__cancel(w->req);
    w->req = NULL;
    if (w->stream_gone) {
        log_debug("kube", "watch %s: 410 Gone, relisting", w->res.plural);
        kube__stat_inc(w->c, KUBE__STAT_RELIST);
        ws_list_begin(w);
    } else {
        kube__stat_inc(w->c, KUBE__STAT_WATCH_RESTART);
        ws_backoff(w, false, 0);
    }
}

static void ws_on_data(const char *data, size_t len, void *ud)
{
    struct kube_watch *w = ud;
    if (w->stream_gone || w->stream_error)
        return;
    w->in_cb++;
    int rc = kube_watch_decoder_feed(w->dec, data, len, ws_on_event, w);
    if (ws_leave(w))
        return;
    if (rc == -E2BIG) {
        log_debug("kube", "watch %s: event line too long, restarting", w->res.plural);
        w->stream_error = true;
    } else if (rc == -EBADMSG) {
        log_debug("kube", "watch %s: malformed event line skipped", w->res.plural);
    }
    if (w->stream_gone || w->stream_error)
        ws_stream_abandon(w);
}

static void ws_on_watch_done(struct kube_result *res, void *ud)
{
    struct kube_watch *w = ud;
    w->req = NULL;
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(res->body, "code");
    if (res->status.http == 410 ||
        (cJSON_IsNumber(code) && code->valueint == 410 && !kube_ok(&res->status))) {
        log_debug("kube", "watch %s: 410 Gone, relisting", w->res.plural);
        kube__stat_inc(w->c, KUBE__STAT_RELIST);
        ws_list_begin(w);
        return;
    }
    kube__stat_inc(w->c, KUBE__STAT_WATCH_RESTART);
    bool clean = kube_ok(&res->status) && res->status.curl == 0;
    uint64_t lasted = uv_now(w->loop) - w->stream_start;
    if (w->stream_events)
        w->attempt = 0;
    if (clean && (w->stream_events || lasted >= 1000)) {
        ws_watch_begin(w); /* timeoutSeconds elapsed: carry on from RV */
        return;
    }
    log_debug("kube", "watch %s ended: http=%d curl=%d %s", w->res.plural, res->status.http,
              res->status.curl, res->status.message);
    ws_backoff(w, false, res->status.retry_after);
}

static void ws_watch_begin(struct kube_watch *w)
{
    struct buf p = BUF_INIT(0);
    char tmo[32];
    long t = w->opts.timeout_seconds;
    t += (long)(ws_rand(w) % (uint64_t)(t + 1));
    (void)snprintf(tmo, sizeof(tmo), "%ld", t);
    w->state = WS_WATCHING;
    w->stream_gone = w->stream_error = w->stream_events = false;
    w->stream_start = uv_now(w->loop);
    kube_watch_decoder_free(w->dec);
    w->dec = kube_watch_decoder_new(w->opts.max_line);
    int rc = ws_base_path(w, &p);
    if (!rc)
        rc = kube__query_add(&p, "watch", "1");
    if (!rc)
        rc = kube__query_add(&p, "resourceVersion", w->rv);
    if (!rc)
        rc = kube__query_add(&p, "allowWatchBookmarks", "true");
    if (!rc)
        rc = kube__query_add(&p, "timeoutSeconds", tmo);
    if (!rc)
        rc = kube__submit(w->c, "GET", p.data, NULL, NULL, (t + 30) * 1000, ws_on_data,
                          ws_on_watch_done, w, &w->req);
    buf_free(&p);
    if (rc < 0) {
        w->req = NULL;
        ws_backoff(w, false, 0);
    }
}

int kube_watch_new(struct kube_client *c, const struct kube_resource *r, const char *ns,
                   const struct kube_watch_opts *o, const struct kube_watch_handlers *h, void *ud,
                   struct kube_watch **out)
{
    if (!c || !r || !h || !h->on_list || !h->on_event || !out)
        return -EINVAL;
    struct kube_watch *w = util_xcalloc(1, sizeof(*w));
    w->c = c;
    w->loop = kube__client_loop(c);
    w->res = *r;
    w->ns = ns && ns[0] && r->namespaced ? util_xstrdup(ns) : NULL;
    if (o)
        w->opts = *o;
    w->label_selector =
        o && o->label_selector && o->label_selector[0] ? util_xstrdup(o->label_selector) : NULL;
    w->field_selector =
        o && o->field_selector && o->field_selector[0] ? util_xstrdup(o->field_selector) : NULL;
    w->opts.label_selector = w->label_selector;
    w->opts.field_selector = w->field_selector;
    if (w->opts.page_size <= 0)
        w->opts.page_size = 500;
    if (w->opts.timeout_seconds <= 0)
        w->opts.timeout_seconds = 300;
    if (w->opts.backoff_min_ms <= 0)
        w->opts.backoff_min_ms = 200;
    if (w->opts.backoff_max_ms < w->opts.backoff_min_ms)
        w->opts.backoff_max_ms = w->opts.backoff_min_ms > 30000 ? w->opts.backoff_min_ms : 30000;
    if (!w->opts.max_line)
        w->opts.max_line = (size_t)16 << 20;
    w->h = *h;
    w->ud = ud;
    w->rng = uv_hrtime() ^ (uint64_t)(uintptr_t)w ^ 0x9e3779b97f4a7c15ull;
    if (!w->rng)
        w->rng = 1;
    uv_timer_init(w->loop, &w->timer);
    w->timer.data = w;
    *out = w;
    return 0;
}

int kube_watch_start(struct kube_watch *w)
{
    if (!w || w->state != WS_IDLE || w->free_pending)
        return -EINVAL;
    ws_list_begin(w);
    return 0;
}

const char *kube_watch_resource_version(const struct kube_watch *w)
{
    return w->rv;
}

static void ws_on_closed(uv_handle_t *h)
{
    free(h->data);
}

static void ws_destroy_now(struct kube_watch *w)
{
    kube__cancel(w->req);
    w->req = NULL;
    uv_timer_stop(&w->timer);
    kube_watch_decoder_free(w->dec);
    cJSON_Delete(w->items);
    free(w->continue_tok);
    free(w->ns);
    free(w->label_selector);
    free(w->field_selector);
    uv_close((uv_handle_t *)&w->timer, ws_on_closed);
}

void kube_watch_free(struct kube_watch *w)
{
    if (!w || w->free_pending)
        return;
    w->free_pending = true;
    uv_timer_stop(&w->timer);
    kube__cancel(w->req);
    w->req = NULL;
    if (w->in_cb == 0)
        ws_destroy_now(w);
}
