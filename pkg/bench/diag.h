/* pkg/bench/diag: a result's diagnostics as the one-line sentences BenchmarkRun status shows
 * (status.diagnostics.waitEvents, server, replica, littlesLaw), and the reader of the
 * wait-event sentence for those that have the status only (the sweep controller, the plugin).
 *
 * The structured sections stay in the result (its waitEvents, server and checks; the result
 * ConfigMap holds them): this module only words them, one formatter per diagnostic, and reads
 * back the one sentence whose numbers others need (the wait-event shares). Knows nothing of
 * Kubernetes beyond the status rows it names. */
#ifndef PGBO_BENCH_DIAG_H
#define PGBO_BENCH_DIAG_H

#include "pkg/bench/fields.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* A sentence is at most this long (the longest message a status field holds, with its NUL). */
#define BENCH_DIAG_MAX 1024
/* The wait-event sentence names at most this many events; the rest are counted ("and 3 more"). */
#define BENCH_DIAG_MAX_WAITS 12

struct buf;

/* One diagnostic: its status row (a string) and the result section it words. A diagnostic with
 * a join label adds its sentence to another's row (kubectl describe prints a line per row):
 * after "; " (". " when the row's sentence ends with a period), the label, then its own. */
struct bench_diag {
    enum bench_field_id status;  /* BK_STATUS_DIAGNOSTICS_SERVER */
    enum bench_field_id section; /* BK_SERVER */
    const char *join;            /* NULL: the row is its own; "replication: ": joins the row */
    /* Appends the sentence of a result that has the section (read through the contract's rows)
     * to b; returns 0, -ENOENT when the section says nothing or -E2BIG past b's limit. */
    int (*format)(struct buf *b, const cJSON *result);
};
extern const struct bench_diag bench_diags[];
extern const size_t bench_ndiags;

/* The sentence of d from a result (the aggregate: the wait-event shares are its own): a new string
 * (the caller frees it), or NULL when the result has no such section or it says nothing. Shorter
 * than BENCH_DIAG_MAX. */
char *bench_diag_sentence(const struct bench_diag *d, const cJSON *result);

/* The status rows' sentences of a result, the joined diagnostics added to their rows: calls
 * put(row, sentence, ctx) once per row that has one, in the table's order of the rows. */
void bench_diag_rows(const cJSON *result,
                     void (*put)(enum bench_field_id row, const char *sentence, void *ctx),
                     void *ctx);

/* One wait event's share, as the wait-event sentence gives it. */
struct bench_wait_share {
    char event[128]; /* wait_event_type:wait_event, or CPU */
    double pct;      /* share of the backend samples, in percent (0.1 resolution) */
};

/* The shares a wait-event sentence names, in its order (largest first), into out (at most max);
 * returns how many were read: 0 for NULL, for a sentence without shares ("no backend ..."), or
 * for text that is not such a sentence. */
int bench_diag_wait_parse(const char *sentence, struct bench_wait_share *out, int max);

/* The sampling rounds a wait-event sentence says its shares rest on ("in 52 rounds"); -1 when
 * it does not say. */
int bench_diag_wait_rounds(const char *sentence);

#endif
