/* pkg/bench/stepclass: the resource that limits one step of a sweep, from the wait-event shares
 * of its runs (status.diagnostics.waitEvents), for the sweep's verdict (usl.c) and its report.
 *
 * This is the seam to the per-run verdict classes (pkg/bench/verdict, issue 29): the sweep asks
 * one question, "which class limits this step, on what evidence", through bench_step_classify.
 * Until the per-run rules exist it answers from the wait events alone: each event belongs to a
 * class by its wait_event_type (IO:WAL* and LWLock:WALWrite to WAL flush, IO:DataFileRead to
 * storage reads, Lock:* to row or lock contention, ...), Client:* waits (the server waiting for
 * pgbench) name the client when they are at least half of the backend samples, and otherwise the
 * class with the largest share of the database's own wait time limits the step. */
#ifndef PGBO_BENCH_STEPCLASS_H
#define PGBO_BENCH_STEPCLASS_H

#include <stdbool.h>

#include "pkg/bench/diag.h"

/* Fewer sampling rounds than this make a step's shares weak (5 s at 1 Hz is 5 rounds). */
#define BENCH_STEP_MIN_ROUNDS 20

enum bench_step_cls {
    BENCH_CLS_CLIENT,
    BENCH_CLS_SERVER_CPU,
    BENCH_CLS_STORAGE_READS,
    BENCH_CLS_WAL_FLUSH,
    BENCH_CLS_LOCK,
    BENCH_CLS_LWLOCK,
    BENCH_CLS_SYNC_REP,
    BENCH_CLS_IO_OTHER,
    BENCH_CLS_OTHER,
    BENCH_NCLS,
    BENCH_CLS_INCONCLUSIVE = BENCH_NCLS
};

struct bench_step_class {
    enum bench_step_cls cls;
    char event[128];        /* the event that weighs most in the class ("" when inconclusive) */
    double share;           /* the class's share: of all backend samples for the client, else of the
                             * database's own wait time (samples that are not Client:*), in percent */
    int rounds;             /* sampling rounds the shares rest on (0: unknown) */
    bool weak;              /* rounds < BENCH_STEP_MIN_ROUNDS */
    double pct[BENCH_NCLS]; /* each class's share of all backend samples, in percent */
};

/* The class of a step from its wait-event shares (w[0..nw), percent of backend samples, as
 * bench_diag_wait_parse reads them) and the rounds they rest on. No shares: inconclusive. */
void bench_step_classify(const struct bench_wait_share *w, int nw, int rounds,
                         struct bench_step_class *out);

/* The share of class c in the database's own wait time (pct without Client:*), in percent; NAN
 * when the step saw no database wait. */
double bench_step_db_share(const struct bench_step_class *s, enum bench_step_cls c);

/* "client", "wal-flush", ... (the names of the per-run verdict classes): the name status uses; "inconclusive". */
const char *bench_step_cls_name(enum bench_step_cls c);
/* "the client", "WAL flush", ...: the words of a verdict. */
const char *bench_step_cls_words(enum bench_step_cls c);
/* BENCH_NCLS (inconclusive) for an unknown name. */
enum bench_step_cls bench_step_cls_parse(const char *name);

#endif
