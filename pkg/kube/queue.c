/* A de-duplicating, rate-limited work queue with controller-runtime (client-go workqueue)
 * semantics, on one libuv loop.
 *
 * Every key that the queue knows about has one item in a hash map:
 *   dirty       the key needs processing (it is in the FIFO unless it is being processed)
 *   processing  process() was called and done() has not been called yet
 *   heap_idx    position in the delay heap when an add_after is pending
 *   failures    the per-key backoff counter (kube_queue_add_rate_limited / forget)
 * An item with none of these is freed, so the map only holds live keys. All operations are
 * O(1) except the delay heap (O(log n)).
 *
 * Dispatch happens from a uv_idle handle, never from inside kube_queue_add, so process() is
 * never re-entered from a caller's stack. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/kube/internal.h"
#include "pkg/kube/kube.h"
#include "pkg/util/log.h"
#include "pkg/util/mem.h"

#define NOT_WAITING SIZE_MAX

struct qitem {
    char *key;
    bool dirty, processing;
    int failures;
    struct qitem *prev, *next; /* FIFO links (dirty && !processing) */
    size_t heap_idx;
    uint64_t due; /* loop time (ms) when the pending add_after fires */
};

struct kube_queue {
    uv_loop_t *loop;
    struct kube_queue_opts opts;
    kube_process_fn fn;
    void *ud;
    struct kube__map items;
    struct qitem *head, *tail;
    size_t fifo_len;
    struct qitem **heap;
    size_t heap_len, heap_cap;
    uv_timer_t timer;
    uv_idle_t idle;
    int active;
    bool shutting_down;
    int closing;
};

static struct qitem *item_get(const struct kube_queue *q, const char *key)
{
    return kube__map_get(&q->items, key);
}

static struct qitem *item_ensure(struct kube_queue *q, const char *key)
{
    struct qitem *it = item_get(q, key);
    if (it)
        return it;
    it = util_xcalloc(1, sizeof(*it));
    it->key = util_xstrdup(key);
    it->heap_idx = NOT_WAITING;
    kube__map_put(&q->items, key, it);
    return it;
}

static void item_free(void *p)
{
    struct qitem *it = p;
    free(it->key);
    free(it);
}

static void item_maybe_release(struct kube_queue *q, struct qitem *it)
{
    if (it->dirty || it->processing || it->failures || it->heap_idx != NOT_WAITING)
        return;
    kube__map_del(&q->items, it->key);
    item_free(it);
}

static void fifo_push(struct kube_queue *q, struct qitem *it)
{
    it->next = NULL;
    it->prev = q->tail;
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    q->fifo_len++;
}

static struct qitem *fifo_pop(struct kube_queue *q)
{
    struct qitem *it = q->head;
    if (!it)
        return NULL;
    q->head = it->next;
    if (q->head)
        q->head->prev = NULL;
    else
        q->tail = NULL;
    it->next = it->prev = NULL;
    q->fifo_len--;
    return it;
}

/* ---- delay heap (min-heap on due) ---- */

static void heap_swap(struct kube_queue *q, size_t a, size_t b)
{
    struct qitem *t = q->heap[a];
    q->heap[a] = q->heap[b];
    q->heap[b] = t;
    q->heap[a]->heap_idx = a;
    q->heap[b]->heap_idx = b;
}

static void heap_up(struct kube_queue *q, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (q->heap[p]->due <= q->heap[i]->due)
            break;
        heap_swap(q, i, p);
        i = p;
    }
}

static void heap_down(struct kube_queue *q, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < q->heap_len && q->heap[l]->due < q->heap[m]->due)
            m = l;
        if (r < q->heap_len && q->heap[r]->due < q->heap[m]->due)
            m = r;
        if (m == i)
            return;
        heap_swap(q, i, m);
        i = m;
    }
}

static void heap_push(struct kube_queue *q, struct qitem *it)
{
    if (q->heap_len == q->heap_cap) {
        q->heap_cap = q->heap_cap ? q->heap_cap * 2 : 64;
        struct qitem **h = util_xrealloc(q->heap, q->heap_cap * sizeof(struct qitem *));
        q->heap = h;
    }
    it->heap_idx = q->heap_len;
    q->heap[q->heap_len++] = it;
    heap_up(q, it->heap_idx);
}

static struct qitem *heap_pop(struct kube_queue *q)
{
    struct qitem *top = q->heap[0];
    q->heap_len--;
    if (q->heap_len) {
        q->heap[0] = q->heap[q->heap_len];
        q->heap[0]->heap_idx = 0;
        heap_down(q, 0);
    }
    top->heap_idx = NOT_WAITING;
    return top;
}

/* ---- dispatch ---- */

static void on_idle(uv_idle_t *h);
static void on_timer(uv_timer_t *h);

static void kick(struct kube_queue *q)
{
    if (!q->shutting_down && q->fifo_len && q->active < q->opts.workers)
        uv_idle_start(&q->idle, on_idle);
}

static void on_idle(uv_idle_t *h)
{
    struct kube_queue *q = h->data;
    /* At most the keys queued now: a process() that re-adds and finishes synchronously must
     * not starve the loop. */
    size_t n = q->fifo_len;
    while (n-- && !q->shutting_down && q->active < q->opts.workers) {
        struct qitem *it = fifo_pop(q);
        if (!it)
            break;
        it->dirty = false;
        it->processing = true;
        q->active++;
        q->fn(q, it->key, q->ud);
    }
    if (q->shutting_down || !q->fifo_len || q->active >= q->opts.workers)
        uv_idle_stop(&q->idle);
}

static void arm_timer(struct kube_queue *q)
{
    if (q->shutting_down || !q->heap_len) {
        uv_timer_stop(&q->timer);
        return;
    }
    uint64_t now = uv_now(q->loop), due = q->heap[0]->due;
    uv_timer_start(&q->timer, on_timer, due > now ? due - now : 0, 0);
}

int kube_queue_new(uv_loop_t *loop, const struct kube_queue_opts *o, kube_process_fn fn, void *ud,
                   struct kube_queue **out)
{
    if (!loop || !fn || !out)
        return -EINVAL;
    struct kube_queue *q = util_xcalloc(1, sizeof(*q));
    q->loop = loop;
    if (o)
        q->opts = *o;
    if (q->opts.workers <= 0)
        q->opts.workers = 8;
    if (q->opts.base_ms <= 0)
        q->opts.base_ms = 5;
    if (q->opts.max_ms <= 0)
        q->opts.max_ms = 300000;
    q->fn = fn;
    q->ud = ud;
    kube__map_init(&q->items);
    uv_timer_init(loop, &q->timer);
    uv_idle_init(loop, &q->idle);
    q->timer.data = q;
    q->idle.data = q;
    *out = q;
    return 0;
}

void kube_queue_add(struct kube_queue *q, const char *key)
{
    if (q->shutting_down)
        return;
    struct qitem *it = item_ensure(q, key);
    if (it->dirty)
        return;
    it->dirty = true;
    if (it->processing)
        return; /* processed again after done() */
    fifo_push(q, it);
    kick(q);
}

void kube_queue_add_after(struct kube_queue *q, const char *key, long delay_ms)
{
    if (q->shutting_down)
        return;
    if (delay_ms <= 0) {
        kube_queue_add(q, key);
        return;
    }
    struct qitem *it = item_ensure(q, key);
    uint64_t due = uv_now(q->loop) + (uint64_t)delay_ms;
    if (it->heap_idx != NOT_WAITING) {
        if (due >= it->due)
            return; /* an earlier add is already pending */
        it->due = due;
        heap_up(q, it->heap_idx);
    } else {
        it->due = due;
        heap_push(q, it);
    }
    arm_timer(q);
}

static void on_timer(uv_timer_t *h)
{
    struct kube_queue *q = h->data;
    uint64_t now = uv_now(q->loop);
    while (q->heap_len && q->heap[0]->due <= now) {
        struct qitem *it = heap_pop(q);
        if (q->shutting_down) {
            item_maybe_release(q, it);
            continue;
        }
        kube_queue_add(q, it->key);
        item_maybe_release(q, it);
    }
    arm_timer(q);
}

void kube_queue_add_rate_limited(struct kube_queue *q, const char *key)
{
    if (q->shutting_down)
        return;
    struct qitem *it = item_ensure(q, key);
    double d = (double)q->opts.base_ms;
    for (int i = 0; i < it->failures && d < (double)q->opts.max_ms; i++)
        d *= 2;
    if (d > (double)q->opts.max_ms)
        d = (double)q->opts.max_ms;
    if (it->failures < INT32_MAX)
        it->failures++;
    kube_queue_add_after(q, key, (long)d);
}

void kube_queue_forget(struct kube_queue *q, const char *key)
{
    struct qitem *it = item_get(q, key);
    if (!it)
        return;
    it->failures = 0;
    item_maybe_release(q, it);
}

int kube_queue_failures(const struct kube_queue *q, const char *key)
{
    const struct qitem *it = item_get(q, key);
    return it ? it->failures : 0;
}

void kube_queue_done(struct kube_queue *q, const char *key)
{
    struct qitem *it = item_get(q, key);
    if (!it || !it->processing) {
        log_debug("kube", "queue: done(%s) for a key that is not being processed", key);
        return;
    }
    it->processing = false;
    q->active--;
    if (it->dirty && !q->shutting_down)
        fifo_push(q, it);
    else
        item_maybe_release(q, it);
    kick(q);
}

void kube_queue_finish(struct kube_queue *q, const char *key, bool error, long requeue_ms)
{
    if (error) {
        kube_queue_add_rate_limited(q, key);
    } else {
        kube_queue_forget(q, key);
        if (requeue_ms > 0)
            kube_queue_add_after(q, key, requeue_ms);
    }
    kube_queue_done(q, key);
}

size_t kube_queue_len(const struct kube_queue *q)
{
    return q->fifo_len;
}

void kube_queue_shutdown(struct kube_queue *q)
{
    q->shutting_down = true;
    uv_idle_stop(&q->idle);
    uv_timer_stop(&q->timer);
}

static void on_close(uv_handle_t *h)
{
    struct kube_queue *q = h->data;
    if (--q->closing == 0)
        free(q);
}

void kube_queue_free(struct kube_queue *q)
{
    if (!q)
        return;
    kube_queue_shutdown(q);
    kube__map_clear(&q->items, item_free);
    free(q->heap);
    q->heap = NULL;
    q->head = q->tail = NULL;
    q->closing = 2;
    uv_close((uv_handle_t *)&q->timer, on_close);
    uv_close((uv_handle_t *)&q->idle, on_close);
}
