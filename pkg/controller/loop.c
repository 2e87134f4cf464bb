/* A controller's namespace, queue and executor (loop.h). */
#include "pkg/controller/loop.h"
#include "pkg/util/log.h"
#include "pkg/util/mem.h"

#include <stdlib.h>

#define COMP "controller"

/* A key the queue hands out: reconciled by the executor once every cache has synced. */
static void process(struct kube_queue *q, const char *key, void *ud)
{
    struct ctrl_loop *l = ud;
    if (!l->synced(l->owner)) {
        /* nothing is decided from a cache that has not listed yet */
        log_debug(COMP, "%s: caches not synced yet; again in %d ms", key, CTRL_SYNC_WAIT_MS);
        kube_queue_add_after(q, key, CTRL_SYNC_WAIT_MS);
        kube_queue_done(q, key);
        return;
    }
    ctrl_exec_run(l->x, key);
}

int ctrl_loop_init(struct ctrl_loop *l, uv_loop_t *loop, const char *ns, int workers,
                   bool (*synced)(const void *owner), const void *owner)
{
    *l = (struct ctrl_loop){.synced = synced, .owner = owner};
    if (ns && *ns)
        l->ns = util_xstrdup(ns);
    struct kube_queue_opts qo = {
        .workers = workers, .base_ms = CTRL_QUEUE_BASE_MS, .max_ms = CTRL_QUEUE_MAX_MS};
    return kube_queue_new(loop, &qo, process, l, &l->q);
}

void ctrl_loop_exec(struct ctrl_loop *l, struct ctrl_exec_env *env)
{
    env->q = l->q;
    l->x = ctrl_exec_new(env);
}

void ctrl_loop_stop(struct ctrl_loop *l)
{
    if (l->q)
        kube_queue_shutdown(l->q);
}

void ctrl_loop_cleanup(struct ctrl_loop *l)
{
    ctrl_exec_free(l->x);
    kube_queue_free(l->q);
    free(l->ns);
    *l = (struct ctrl_loop){0};
}
