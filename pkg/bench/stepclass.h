/* pkg/bench/stepclass: the resource that limits one step of a sweep, for the sweep's verdict
 * (usl.c) and its report, from what the step's runs say.
 *
 * The class is the per-run verdict's (pkg/bench/verdict, its rules table verdict.def): each run's
 * status.diagnostics.verdictClass, the class most of the step's runs have, with the evidence of
 * that run's sentence (status.diagnostics.verdict: "pgbench at 98 % of its 2-CPU limit, ...").
 * Runs without a verdict (an older operator's) are classed from their wait-event shares alone
 * through the same table: Client:* at half the backend samples or more is the client, otherwise
 * the class with the largest share of the database's own wait time. The shares say how many
 * sampling rounds they rest on; fewer than BENCH_STEP_MIN_ROUNDS make them weak. */
#ifndef PGBO_BENCH_STEPCLASS_H
#define PGBO_BENCH_STEPCLASS_H

#include <stdbool.h>

#include "pkg/bench/diag.h"
#include "pkg/bench/verdict.h"

/* Fewer sampling rounds than this make a step's shares weak (5 s at 1 Hz is 5 rounds). */
#define BENCH_STEP_MIN_ROUNDS 20

struct bench_step_class {
    enum bench_verdict_class cls;
    char event[128];    /* the wait event that weighs most in the class ("" when none) */
    double share;       /* the class's share: of all backend samples for the client, else of the
                         * database's own wait time (samples that are not Client:*), in percent;
                         * NAN for a class no wait event measures (network, rate-limited) */
    char evidence[400]; /* the runs' verdict's evidence ("" when the class is from waits only) */
    int rounds;         /* sampling rounds the shares rest on (0: unknown) */
    bool weak;          /* rounds < BENCH_STEP_MIN_ROUNDS */
    double pct[BENCH_VC__COUNT]; /* each class's share of all backend samples, in percent */
};

/* The class of a step from its wait-event shares (w[0..nw), percent of backend samples, as
 * bench_diag_wait_parse reads them), the rounds they rest on, and the verdict of its runs:
 * run_cls their class (-1: none), evidence the evidence of such a run's verdict (NULL: none). */
void bench_step_classify(const struct bench_wait_share *w, int nw, int rounds, int run_cls,
                         const char *evidence, struct bench_step_class *out);

/* The share of class c in the database's own wait time (pct without Client:*), in percent; NAN
 * when the step saw no database wait. */
double bench_step_db_share(const struct bench_step_class *s, enum bench_verdict_class c);

/* The evidence of a run's verdict sentence into out: "<resource> limits the run: <evidence>;
 * next: ...", or what an inconclusive one says ("inconclusive: <why>; would decide it: ..."
 * without its warnings); false (out empty) for any other text. */
bool bench_step_verdict_evidence(const char *sentence, char *out, size_t len);

#endif
