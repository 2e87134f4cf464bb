/* pkg/bench/verdict: which resource limits a run, its evidence as numbers and the next thing to
 * try, from a result (a runner's, the aggregate, the result ConfigMap's) and the one rules table
 * pkg/bench/verdict.def (classes, wait event -> class, evidence, limit rules, pitfalls).
 *
 * The evidence is read from the result only (wait-event shares, the runner's CPU use and round
 * trip, the server's counters, the run's configuration); what was not measured is NAN and no rule
 * fires on it: a run whose evidence decides nothing is inconclusive, and the sentence names what
 * would decide it. The aggregate holds the structured verdict (result section verdict: class,
 * evidence, fired rules, warnings, the sentence); status shows the sentence
 * (diagnostics.verdict) and the class (diagnostics.verdictClass). Knows nothing of Kubernetes. */
#ifndef PGBO_BENCH_VERDICT_H
#define PGBO_BENCH_VERDICT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

struct buf;

enum bench_verdict_class {
#define CLASS(id, ...) BENCH_VC_##id,
#include "pkg/bench/verdict.def"
#undef CLASS
    BENCH_VC__COUNT
};

enum bench_evidence_id {
#define EVIDENCE(id, ...) BENCH_EV_##id,
#include "pkg/bench/verdict.def"
#undef EVIDENCE
    BENCH_EV__COUNT
};

enum bench_limit_id {
#define LIMIT(id, ...) BENCH_LR_##id,
#include "pkg/bench/verdict.def"
#undef LIMIT
    BENCH_LR__COUNT
};

enum bench_warn_id {
#define WARN(id, ...) BENCH_WR_##id,
#include "pkg/bench/verdict.def"
#undef WARN
    BENCH_WR__COUNT
};

/* Fewer backend samples than this and the wait-event shares decide nothing (they are left
 * unmeasured; the verdict says how many there were and that a longer run would decide). */
#define BENCH_VERDICT_MIN_SAMPLES 20

/* The tables, indexed by their ids (docs/troubleshooting.md is generated from them). */
struct bench_verdict_class_row {
    const char *name, *label, *fix;
};
struct bench_verdict_wait_row {
    const char *pattern;
    enum bench_verdict_class cls;
};
struct bench_verdict_evidence_row {
    const char *key, *unit, *description, *how;
};
struct bench_verdict_limit_row {
    const char *id;
    enum bench_verdict_class cls;
    const char *condition; /* the C expression, as written in the table */
    double threshold;
    const char *evidence; /* template: "{key}" is that evidence's number */
    int score;            /* enum bench_evidence_id, or -1: before every scored rule */
};
struct bench_verdict_warn_row {
    const char *id, *condition;
    double threshold;
    const char *sentence, *fix;
};
extern const struct bench_verdict_class_row bench_verdict_classes[];
extern const struct bench_verdict_wait_row bench_verdict_waits[];
extern const size_t bench_verdict_nwaits;
extern const struct bench_verdict_evidence_row bench_verdict_evidence[];
extern const struct bench_verdict_limit_row bench_verdict_limits[];
extern const struct bench_verdict_warn_row bench_verdict_warns[];

/* A run's verdict. */
struct bench_verdict {
    enum bench_verdict_class cls;
    int decided_by;               /* enum bench_limit_id, or -1 (inconclusive) */
    double ev[BENCH_EV__COUNT];   /* NAN: not measured */
    bool fired[BENCH_LR__COUNT];  /* limit rules whose condition held */
    bool warned[BENCH_WR__COUNT]; /* pitfalls found */
};

/* The class of a wait event ("IO:WALSync", "CPU"), or -1 when no row matches (the database's
 * other time: Activity, Timeout, ...). */
int bench_verdict_wait_class(const char *event);

/* Shares by class from a map event -> percent of all backend samples (the result's
 * waitEvents.sharesPct; counts, waitEvents.events, give the same shares): out[BENCH_VC_CLIENT] is
 * Client:*'s share of all samples, every other class its share of the database's samples (those not
 * Client:*). All NAN when the map is missing or empty; the database classes NAN when every sample
 * was Client:*. */
void bench_verdict_class_shares(const cJSON *shares_pct, double out[BENCH_VC__COUNT]);

/* The share of class c in ev (its share evidence), NAN for the classes no wait event measures
 * (network, rate-limited, inconclusive) or when not sampled. */
double bench_verdict_share(const double ev[BENCH_EV__COUNT], enum bench_verdict_class c);

/* The evidence of a result (the runner's, the aggregate, or the result ConfigMap's result.json)
 * into ev (NAN where not measured). */
void bench_verdict_evidence_of(const cJSON *result, double ev[BENCH_EV__COUNT]);

/* The verdict of evidence: the limit rules and pitfalls that hold, and the class. */
void bench_verdict_decide(const double ev[BENCH_EV__COUNT], struct bench_verdict *v);

/* bench_verdict_evidence_of then bench_verdict_decide: for the sweep and the plugin, which hold
 * results. Returns 0, or -ENOENT when result is not a pgbench run's (no summary). */
int bench_verdict_of(const cJSON *result, struct bench_verdict *v);

/* The one sentence: "<resource> limits the run: <evidence>; next: <fix>." (or "inconclusive:
 * ...; would decide it: ...") then "Warnings: <pitfall> (fix: <fix>); ..." with whole warnings
 * only, the rest counted. A new string shorter than BENCH_DIAG_MAX (diag.h); the caller frees it.
 */
char *bench_verdict_sentence(const struct bench_verdict *v);

/* The result's verdict section: {class, summary, evidence {key: number} (measured only), rules
 * [fired limit ids, the deciding one first], warnings [pitfall ids]}. A new object. */
cJSON *bench_verdict_json(const struct bench_verdict *v);

/* The class named name ("wal-flush"), or -1. */
int bench_verdict_class_parse(const char *name);

/* The class of a run from its status (diagnostics.verdictClass), or -1 when it has none. */
int bench_verdict_status_class(const cJSON *status);

/* Why run b differs from run a, from their evidence (bench_verdict_evidence_of): the latency
 * (or tps) of both, then the class whose share of all backend samples grew most in the slower
 * run with its share in both and the counters that move with it (MOVES rows) where they
 * changed: "latency 4.0 -> 36.9 ms; WAL flush 6 % -> 71 % of the backend samples,
 * walSyncMsPerCommit 0.3 -> 9.8 ms: WAL flush explains the gap". When no class moved by 10 points,
 * it says the evidence does not explain the difference, and what would. Appends to out (no
 * newline); *cls (may be NULL): the class named, or -1. Returns 0 or -E2BIG. */
int bench_verdict_explain(struct buf *out, const double a[BENCH_EV__COUNT],
                          const double b[BENCH_EV__COUNT], int *cls);

/* One evidence template expanded ("{key}" -> the number; a ", "-separated part whose number is
 * not measured is left out) and appended to b; returns 0 or -E2BIG. */
int bench_verdict_expand(struct buf *b, const char *tmpl, const double ev[BENCH_EV__COUNT]);

#endif
