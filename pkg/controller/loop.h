/* pkg/controller/loop: how a controller of one kind (controller.c: BenchmarkRuns; sweep.c:
 * BenchmarkSweeps) runs its keys: its namespace, its work queue, and the executor that reconciles
 * each key the queue hands out once the kind's caches have synced.
 *
 * Owns the three. Must not know the kind's informers and what they queue (its controller's), nor
 * what a reconcile decides (executor.h's env). */
#ifndef PGBO_CONTROLLER_LOOP_H
#define PGBO_CONTROLLER_LOOP_H

#include <stdbool.h>

#include <uv.h>

#include "pkg/controller/executor.h"

struct ctrl_loop {
    char *ns;             /* NULL: every namespace */
    struct kube_queue *q; /* the kind's keys */
    struct ctrl_exec *x;  /* from ctrl_loop_exec; NULL before */
    /* Whether every cache of the kind has listed (owner: the controller). Until it has, a key
     * waits CTRL_SYNC_WAIT_MS, undecided: a partial cache would look like missing objects. */
    bool (*synced)(const void *owner);
    const void *owner;
};

/* Fills l: ns copied (NULL or "": every namespace), a queue of workers workers with the
 * controllers' backoff (CTRL_QUEUE_BASE_MS, CTRL_QUEUE_MAX_MS). Returns 0 or the queue's error
 * (then ctrl_loop_cleanup l). */
int ctrl_loop_init(struct ctrl_loop *l, uv_loop_t *loop, const char *ns, int workers,
                   bool (*synced)(const void *owner), const void *owner);
/* The executor over env, with l's queue (env->q is set). */
void ctrl_loop_exec(struct ctrl_loop *l, struct ctrl_exec_env *env);
/* No key is handed out any more. */
void ctrl_loop_stop(struct ctrl_loop *l);
/* Frees the executor, the queue and ns (the informers that queue into it are freed by then). */
void ctrl_loop_cleanup(struct ctrl_loop *l);

#endif
