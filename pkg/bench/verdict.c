/* A run's verdict from its result and the rules table verdict.def. */
#include "pkg/bench/verdict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/bench/diag.h"
#include "pkg/bench/fields.h"
#include "pkg/util/buf.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

/* ---- the tables ---------------------------------------------------------------------------- */

const struct bench_verdict_class_row bench_verdict_classes[] = {
#define CLASS(id, name, label, fix) [BENCH_VC_##id] = {name, label, fix},
#include "pkg/bench/verdict.def"
#undef CLASS
};

const struct bench_verdict_wait_row bench_verdict_waits[] = {
#define WAIT(pattern, cls) {pattern, BENCH_VC_##cls},
#include "pkg/bench/verdict.def"
#undef WAIT
};
const size_t bench_verdict_nwaits = sizeof(bench_verdict_waits) / sizeof(bench_verdict_waits[0]);

const struct bench_verdict_evidence_row bench_verdict_evidence[] = {
#define EVIDENCE(id, key, unit, desc, how) [BENCH_EV_##id] = {key, unit, desc, how},
#include "pkg/bench/verdict.def"
#undef EVIDENCE
};

/* NONE as a score: the rule comes before every scored one. */
#define BENCH_EV_NONE (-1)

const struct bench_verdict_limit_row bench_verdict_limits[] = {
#define LIMIT(id, cls, cond, thr, evidence, score)                                                 \
    [BENCH_LR_##id] = {#id, BENCH_VC_##cls, #cond, thr, evidence, BENCH_EV_##score},
#include "pkg/bench/verdict.def"
#undef LIMIT
};

const struct bench_verdict_warn_row bench_verdict_warns[] = {
#define WARN(id, cond, thr, sentence, fix) [BENCH_WR_##id] = {#id, #cond, thr, sentence, fix},
#include "pkg/bench/verdict.def"
#undef WARN
};

/* The conditions, compiled from the same rows: E(x) is evidence x, T the row's threshold. */
#define E(x) ev[BENCH_EV_##x]
static bool limit_holds(enum bench_limit_id id, const double *ev)
{
    switch (id) {
#define LIMIT(id, cls, cond, thr, evidence, score)                                                 \
    case BENCH_LR_##id: {                                                                          \
        const double T = (thr);                                                                    \
        (void)T;                                                                                   \
        return (cond);                                                                             \
    }
#include "pkg/bench/verdict.def"
#undef LIMIT
    default:
        return false;
    }
}

static bool warn_holds(enum bench_warn_id id, const double *ev)
{
    switch (id) {
#define WARN(id, cond, thr, sentence, fix)                                                         \
    case BENCH_WR_##id: {                                                                          \
        const double T = (thr);                                                                    \
        (void)T;                                                                                   \
        return (cond);                                                                             \
    }
#include "pkg/bench/verdict.def"
#undef WARN
    default:
        return false;
    }
}
#undef E

/* ---- wait events to classes ----------------------------------------------------------------- */

static bool wait_matches(const char *pattern, const char *event)
{
    size_t n = strlen(pattern);
    if (n >= 2 && strcmp(pattern + n - 2, ":*") == 0)
        return strncmp(pattern, event, n - 1) == 0;
    return strcmp(pattern, event) == 0;
}

int bench_verdict_wait_class(const char *event)
{
    for (size_t i = 0; event && i < bench_verdict_nwaits; i++)
        if (wait_matches(bench_verdict_waits[i].pattern, event))
            return (int)bench_verdict_waits[i].cls;
    return -1;
}

void bench_verdict_class_shares(const cJSON *shares_pct, double out[BENCH_VC__COUNT])
{
    double sum[BENCH_VC__COUNT] = {0}, all = 0;
    for (int c = 0; c < BENCH_VC__COUNT; c++)
        out[c] = NAN;
    const cJSON *it;
    cJSON_ArrayForEach(it, shares_pct)
    {
        if (!cJSON_IsNumber(it) || !it->string || !(it->valuedouble >= 0))
            continue;
        int c = bench_verdict_wait_class(it->string);
        if (c >= 0)
            sum[c] += it->valuedouble;
        all += it->valuedouble;
    }
    if (!(all > 0))
        return;
    out[BENCH_VC_CLIENT] = sum[BENCH_VC_CLIENT] / all * 100.0;
    double db = all - sum[BENCH_VC_CLIENT];
    if (!(db > 0))
        return;
    for (int c = 0; c < BENCH_VC__COUNT; c++)
        if (c != BENCH_VC_CLIENT)
            out[c] = sum[c] / db * 100.0;
}

/* ---- evidence from a result ----------------------------------------------------------------- */

/* The evidence holding each class's share; -1 for the classes no wait event measures. */
static const int class_share_ev[BENCH_VC__COUNT] = {
    [BENCH_VC_CLIENT] = BENCH_EV_CLIENT_SHARE,
    [BENCH_VC_NETWORK] = -1,
    [BENCH_VC_SERVER_CPU] = BENCH_EV_CPU_SHARE,
    [BENCH_VC_STORAGE_READS] = BENCH_EV_STORAGE_SHARE,
    [BENCH_VC_WAL_FLUSH] = BENCH_EV_WAL_SHARE,
    [BENCH_VC_ROW_LOCK] = BENCH_EV_LOCK_SHARE,
    [BENCH_VC_LWLOCK] = BENCH_EV_LWLOCK_SHARE,
    [BENCH_VC_SYNC_REP] = BENCH_EV_SYNCREP_SHARE,
    [BENCH_VC_CHECKPOINTS] = BENCH_EV_CHECKPOINT_SHARE,
    [BENCH_VC_RATE] = -1,
    [BENCH_VC_INCONCLUSIVE] = -1,
};

double bench_verdict_share(const double ev[BENCH_EV__COUNT], enum bench_verdict_class c)
{
    return class_share_ev[c] < 0 ? NAN : ev[class_share_ev[c]];
}

static double flag_of(const cJSON *v)
{
    return cJSON_IsBool(v) ? (cJSON_IsTrue(v) ? 1 : 0) : NAN;
}

/* A server setting is "off" (1), something else (0), or not reported (NAN). */
static double setting_off(const cJSON *server, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(server, name);
    return cJSON_IsString(v) ? (strcmp(v->valuestring, "off") == 0 ? 1 : 0) : NAN;
}

/* SQL statements per transaction of a single-script run (-r's lines that are not
 * meta-commands); NAN without per-statement lines or with several scripts. */
static double statements_per_tx(const cJSON *r)
{
    const cJSON *st = bench_get(r, BK_STATEMENTS), *it;
    int n = 0;
    cJSON_ArrayForEach(it, st)
    {
        const cJSON *cmd = bench_get(it, BK_STATEMENTS_COMMAND);
        if (bench_num(it, BK_STATEMENTS_SCRIPT) > 0)
            return NAN;
        if (cJSON_IsString(cmd) && cmd->valuestring[0] != '\\')
            n++;
    }
    return n > 0 ? n : NAN;
}

/* The builtins that update a pgbench_branches row per transaction (tpcb-like) or a
 * pgbench_accounts row (simple-update): with scale below the clients, they collide. */
static double updates_branches(const cJSON *r)
{
    const cJSON *t = bench_get(r, BK_PGBENCH_TRANSACTION_TYPE);
    if (!cJSON_IsString(t))
        return NAN;
    return strstr(t->valuestring, "TPC-B") || strstr(t->valuestring, "simple update") ? 1 : 0;
}

void bench_verdict_evidence_of(const cJSON *r, double ev[BENCH_EV__COUNT])
{
    for (int i = 0; i < BENCH_EV__COUNT; i++)
        ev[i] = NAN;
    double shares[BENCH_VC__COUNT];
    double samples = bench_num(r, BK_WAIT_EVENTS_BACKEND_SAMPLES);
    const cJSON *map = bench_get(r, BK_WAIT_EVENTS_SHARES_PCT);
    if (!cJSON_IsObject(map)) /* a runner's own result: the counts (the shares are of the sum) */
        map = bench_get(r, BK_WAIT_EVENTS_EVENTS);
    for (int c = 0; c < BENCH_VC__COUNT; c++)
        shares[c] = NAN;
    if (samples >= BENCH_VERDICT_MIN_SAMPLES)
        bench_verdict_class_shares(map, shares);
    /* the database's shares rest on its own samples (those not Client:*): too few decide nothing */
    if (!(samples * (100.0 - shares[BENCH_VC_CLIENT]) / 100.0 >= BENCH_VERDICT_MIN_SAMPLES))
        for (int c = 0; c < BENCH_VC__COUNT; c++)
            if (c != BENCH_VC_CLIENT)
                shares[c] = NAN;
    ev[BENCH_EV_BACKEND_SAMPLES] = samples;
    for (int c = 0; c < BENCH_VC__COUNT; c++) {
        if (class_share_ev[c] < 0)
            continue;
        ev[class_share_ev[c]] = shares[c];
        if (c != BENCH_VC_CLIENT && isfinite(shares[c]) && !(shares[c] <= ev[BENCH_EV_TOP_SHARE]))
            ev[BENCH_EV_TOP_SHARE] = shares[c];
    }

    ev[BENCH_EV_CLIENT_BUSY] = bench_num(r, BK_CLIENT_CPU_BUSY_PCT);
    ev[BENCH_EV_CLIENT_DEMAND] = bench_num(r, BK_CLIENT_CPU_DEMAND_PCT);
    ev[BENCH_EV_CLIENT_WAIT] = bench_num(r, BK_CLIENT_CPU_WAIT_PCT);
    ev[BENCH_EV_CLIENT_CPUS] = bench_num(r, BK_CLIENT_CPUS);
    ev[BENCH_EV_THREADS] = bench_num(r, BK_CLIENT_THREADS);
    ev[BENCH_EV_WORKER_CLIENTS] = bench_num(r, BK_CLIENT_CLIENTS);
    ev[BENCH_EV_TLS] = flag_of(bench_get(r, BK_CLIENT_TLS));
    ev[BENCH_EV_CLIENTS] = bench_num(r, BK_PGBENCH_CLIENTS);
    ev[BENCH_EV_SCALE] = bench_num(r, BK_PGBENCH_SCALE_FACTOR);
    ev[BENCH_EV_UPDATES_BRANCHES] = updates_branches(r);
    ev[BENCH_EV_RATE] = bench_num(r, BK_PGBENCH_RATE);
    ev[BENCH_EV_DURATION] = bench_num(r, BK_PGBENCH_DURATION_SECONDS);
    ev[BENCH_EV_CONNECT] = flag_of(bench_get(r, BK_PGBENCH_CONNECT));
    ev[BENCH_EV_TPS] = bench_num(r, BK_SUMMARY_TPS);
    ev[BENCH_EV_TRANSACTIONS] = bench_num(r, BK_SUMMARY_TRANSACTIONS_PROCESSED);
    ev[BENCH_EV_LATENCY] = bench_num(r, BK_SUMMARY_LATENCY_AVG_MS);
    ev[BENCH_EV_RTT] = bench_num(r, BK_NETWORK_RTT_MS);
    ev[BENCH_EV_STATEMENTS] = statements_per_tx(r);
    if (ev[BENCH_EV_LATENCY] > 0)
        ev[BENCH_EV_RTT_SHARE] =
            ev[BENCH_EV_RTT] * ev[BENCH_EV_STATEMENTS] / ev[BENCH_EV_LATENCY] * 100.0;

    ev[BENCH_EV_CACHE_HIT] = bench_num(r, BK_SERVER_STATS_CACHE_HIT_PCT);
    ev[BENCH_EV_SERVER_CPU_SECONDS] = bench_num(r, BK_SERVER_STATS_SERVER_CPU_SECONDS);
    ev[BENCH_EV_CHECKPOINTS] = bench_num(r, BK_SERVER_STATS_CHECKPOINTS);
    if (ev[BENCH_EV_CHECKPOINTS] > 0)
        ev[BENCH_EV_CHECKPOINT_INTERVAL] =
            bench_num(r, BK_SERVER_STATS_SECONDS) / ev[BENCH_EV_CHECKPOINTS];
    ev[BENCH_EV_WAL_FPI] = bench_num(r, BK_SERVER_STATS_WAL_FPI_PCT);
    ev[BENCH_EV_WRITE_SHARE] = ev[BENCH_EV_WAL_SHARE] + ev[BENCH_EV_CHECKPOINT_SHARE];
    ev[BENCH_EV_BACKEND_WRITES] = bench_num(r, BK_SERVER_STATS_IO_BACKEND_WRITES);
    ev[BENCH_EV_WAL_PER_TX] = bench_num(r, BK_SERVER_STATS_WAL_BYTES_PER_TX);
    ev[BENCH_EV_WAL_SYNC_PER_COMMIT] = bench_num(r, BK_SERVER_STATS_WAL_SYNC_MS_PER_COMMIT);

    const cJSON *server = bench_get(r, BK_SERVER);
    ev[BENCH_EV_FSYNC_OFF] = setting_off(server, "fsync");
    ev[BENCH_EV_SYNC_COMMIT_OFF] = setting_off(server, "synchronous_commit");
    ev[BENCH_EV_DATASET_FITS] = flag_of(bench_get(r, BK_CHECKS_DATASET_FITS_IN_SHARED_BUFFERS));
    ev[BENCH_EV_DATASET_RATIO] = bench_num(r, BK_CHECKS_DATASET_RATIO);
    double caught = flag_of(bench_get(r, BK_CHECKS_REPLICA_CAUGHT_UP));
    ev[BENCH_EV_REPLICA_BEHIND] = isfinite(caught) ? 1 - caught : NAN;
}

/* ---- the decision ------------------------------------------------------------------------- */

/* The CPU rule would fire had the server's CPU use been measured, and it was not: the samples
 * say the backends were on CPU (or waiting for one), only the server can say it was busy. */
static bool cpu_unconfirmed(const double *ev)
{
    if (isfinite(ev[BENCH_EV_SERVER_CPU_SECONDS]))
        return false;
    double with[BENCH_EV__COUNT];
    memcpy(with, ev, sizeof(with));
    with[BENCH_EV_SERVER_CPU_SECONDS] = INFINITY;
    return limit_holds(BENCH_LR_CPU, with);
}

void bench_verdict_decide(const double ev[BENCH_EV__COUNT], struct bench_verdict *v)
{
    memset(v, 0, sizeof(*v));
    memcpy(v->ev, ev, sizeof(v->ev));
    v->cls = BENCH_VC_INCONCLUSIVE;
    v->decided_by = -1;
    double best = -INFINITY;
    for (int i = 0; i < BENCH_LR__COUNT; i++) {
        if (!limit_holds((enum bench_limit_id)i, ev))
            continue;
        v->fired[i] = true;
        int sc = bench_verdict_limits[i].score;
        double s = sc < 0 ? INFINITY : ev[sc];
        if (v->decided_by < 0 || s > best) { /* an unscored rule (INFINITY) is never passed */
            v->decided_by = i;
            best = s;
        }
    }
    /* a larger share on CPU that the CPU rule could not confirm (no server CPU measured) leaves
     * a smaller share undecided rather than named the limit */
    if (v->decided_by >= 0 && bench_verdict_limits[v->decided_by].score >= 0 &&
        cpu_unconfirmed(ev) && ev[BENCH_EV_CPU_SHARE] > best)
        v->decided_by = -1;
    if (v->decided_by >= 0)
        v->cls = bench_verdict_limits[v->decided_by].cls;
    for (int i = 0; i < BENCH_WR__COUNT; i++)
        v->warned[i] = warn_holds((enum bench_warn_id)i, ev);
}

int bench_verdict_of(const cJSON *result, struct bench_verdict *v)
{
    double ev[BENCH_EV__COUNT];
    if (!cJSON_IsObject(bench_get(result, BK_SUMMARY)))
        return -ENOENT;
    bench_verdict_evidence_of(result, ev);
    bench_verdict_decide(ev, v);
    return 0;
}

/* ---- the sentence --------------------------------------------------------------------------- */

static int evidence_index(const char *key, size_t len)
{
    for (int i = 0; i < BENCH_EV__COUNT; i++)
        if (strlen(bench_verdict_evidence[i].key) == len &&
            strncmp(bench_verdict_evidence[i].key, key, len) == 0)
            return i;
    return -1;
}

/* An evidence number as the sentence gives it: percentages and ratios to 0.1 or three
 * significant digits, counts whole. */
static void ev_num(char *out, size_t n, double v, const char *unit)
{
    double a = fabs(v);
    int dec = unit && (strcmp(unit, "count") == 0 || strcmp(unit, "bytes") == 0) ? 0
              : a >= 99.95                                                       ? 0
              : a >= 0.995 || (unit && strcmp(unit, "%") == 0)                   ? 1
                                                                                 : 3;
    if (unit && strcmp(unit, "%") == 0 && a < 0.95 && a > 0)
        dec = 2;
    int k = snprintf(out, n, "%.*f", dec, v);
    if (k > 0 && (size_t)k < n && strchr(out, '.')) {
        while (k > 0 && out[k - 1] == '0')
            out[--k] = '\0';
        if (k > 0 && out[k - 1] == '.')
            out[--k] = '\0';
    }
}

/* One part of a template (no ", " in it) into b, or nothing when a number in it is unknown. */
static int expand_part(struct buf *b, const char *p, size_t len, const double *ev, bool first)
{
    struct buf t = BUF_INIT(BENCH_DIAG_MAX);
    int rc = 0;
    const char *end = p + len;
    while (p < end && !rc) {
        const char *open = memchr(p, '{', (size_t)(end - p));
        const char *close = open ? memchr(open, '}', (size_t)(end - open)) : NULL;
        if (!open || !close) {
            rc = buf_append(&t, p, (size_t)(end - p));
            break;
        }
        rc = buf_append(&t, p, (size_t)(open - p));
        int i = evidence_index(open + 1, (size_t)(close - open - 1));
        if (i < 0 || !isfinite(ev[i])) {
            buf_free(&t);
            return 0;
        }
        char x[48];
        ev_num(x, sizeof(x), ev[i], bench_verdict_evidence[i].unit);
        rc = rc ? rc : buf_puts(&t, x);
        p = close + 1;
    }
    if (!rc && t.len)
        rc = buf_printf(b, "%s%s", first ? "" : ", ", t.data);
    buf_free(&t);
    return rc;
}

int bench_verdict_expand(struct buf *b, const char *tmpl, const double ev[BENCH_EV__COUNT])
{
    size_t before = b->len;
    const char *p = tmpl;
    while (*p) {
        const char *sep = strstr(p, ", ");
        size_t len = sep ? (size_t)(sep - p) : strlen(p);
        int rc = expand_part(b, p, len, ev, b->len == before);
        if (rc)
            return rc;
        p += len + (sep ? 2 : 0);
    }
    return 0;
}

/* The database's time mostly on CPU (active, no wait event) as the CPU rule asks, but the
 * server's CPU use not measured: the verdict names what would decide it instead of guessing.
 * Writes that and returns true, else writes nothing. */
static bool cpu_unmeasured(struct buf *b, const double *ev, int *rc)
{
    if (!cpu_unconfirmed(ev))
        return false;
    char x[48];
    ev_num(x, sizeof(x), ev[BENCH_EV_CPU_SHARE], "%");
    *rc |= buf_printf(b,
                      "inconclusive: backends active without a wait event %s %% of database "
                      "samples, but the server's CPU use is unknown (not measured, not guessed); "
                      "would decide it: %s",
                      x, bench_verdict_evidence[BENCH_EV_SERVER_CPU_SECONDS].how);
    return true;
}

/* What would decide an inconclusive verdict: the missing evidence the rules need, or a longer
 * look when everything was measured and nothing stood out. */
static int undecided(struct buf *b, const struct bench_verdict *v)
{
    const double *ev = v->ev;
    char x[48];
    int rc = 0;
    if (ev[BENCH_EV_BACKEND_SAMPLES] > 0 &&
        ev[BENCH_EV_BACKEND_SAMPLES] < BENCH_VERDICT_MIN_SAMPLES)
        return buf_printf(b,
                          "inconclusive: the wait events rest on %.0f backend samples, fewer than "
                          "%d; would decide it: a longer run",
                          ev[BENCH_EV_BACKEND_SAMPLES], BENCH_VERDICT_MIN_SAMPLES);
    if (!isfinite(ev[BENCH_EV_CLIENT_SHARE]))
        return buf_printf(b,
                          "inconclusive: no wait events of the load were sampled; would decide "
                          "it: %s",
                          bench_verdict_evidence[BENCH_EV_CLIENT_SHARE].how);
    if (ev[BENCH_EV_CLIENT_SHARE] >= 50) {
        ev_num(x, sizeof(x), ev[BENCH_EV_CLIENT_SHARE], "%");
        rc |= buf_printf(b,
                         "inconclusive: the server idle %s %% of the time, waiting for pgbench "
                         "(the client or the network); would decide it: ",
                         x);
        const int need[] = {BENCH_EV_CLIENT_BUSY, BENCH_EV_CLIENT_DEMAND, BENCH_EV_RTT,
                            BENCH_EV_STATEMENTS};
        bool named = false;
        for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
            if (!isfinite(ev[need[i]])) {
                rc |= buf_printf(b, "%s%s", named ? ", " : "", bench_verdict_evidence[need[i]].how);
                named = true;
            }
        if (!named)
            rc |= buf_puts(b, "a run with more runner CPU: if tps rises, the client limited it");
        return rc;
    }
    if (cpu_unmeasured(b, ev, &rc))
        return rc;
    int top = -1;
    for (int c = 0; c < BENCH_VC__COUNT; c++) {
        double s = c == BENCH_VC_CLIENT ? NAN : bench_verdict_share(ev, c);
        if (isfinite(s) && (top < 0 || s > bench_verdict_share(ev, top)))
            top = c;
    }
    if (top >= 0) {
        ev_num(x, sizeof(x), bench_verdict_share(ev, top), "%");
        rc |= buf_printf(b,
                         "inconclusive: no resource dominates (largest %s, %s %% of database "
                         "wait time)",
                         bench_verdict_classes[top].label, x);
    } else {
        rc |= buf_puts(b, "inconclusive: the database's own wait time was not sampled");
    }
    return rc | buf_puts(b, "; would decide it: a longer run, or more clients to load the server");
}

/* " Warnings: <pitfall> (fix: <fix>); ..." with whole warnings only while they fit in room
 * bytes, then "; N more in the result's verdict.warnings". */
static int warnings(struct buf *b, const struct bench_verdict *v, size_t room)
{
    int rc = 0, shown = 0, left = 0;
    for (int i = 0; i < BENCH_WR__COUNT; i++) {
        if (!v->warned[i])
            continue;
        struct buf w = BUF_INIT(BENCH_DIAG_MAX);
        rc |= buf_puts(&w, shown ? "; " : " Warnings: ");
        rc |= bench_verdict_expand(&w, bench_verdict_warns[i].sentence, v->ev);
        rc |= buf_printf(&w, " (fix: %s)", bench_verdict_warns[i].fix);
        if (!rc && b->len + w.len + 1 + 48 < room) {
            rc |= buf_puts(b, w.data);
            shown++;
        } else {
            left++;
        }
        buf_free(&w);
    }
    if (left)
        rc |= buf_printf(b, "%s%d more in the result's verdict.warnings",
                         shown ? "; " : " Warnings: ", left);
    if (shown || left)
        rc |= buf_puts(b, ".");
    return rc;
}

char *bench_verdict_sentence(const struct bench_verdict *v)
{
    struct buf b = BUF_INIT(BENCH_DIAG_MAX - 1);
    int rc = 0;
    if (v->decided_by >= 0) {
        const struct bench_verdict_limit_row *l = &bench_verdict_limits[v->decided_by];
        const struct bench_verdict_class_row *c = &bench_verdict_classes[l->cls];
        rc |= buf_printf(&b, "%s limits the run: ", c->label);
        rc |= bench_verdict_expand(&b, l->evidence, v->ev);
        rc |= buf_printf(&b, "; next: %s.", c->fix);
    } else {
        rc |= undecided(&b, v);
        rc |= buf_puts(&b, ".");
    }
    rc |= warnings(&b, v, BENCH_DIAG_MAX - 1);
    if (rc) { /* a sentence without its warnings fits: the limits above keep them apart */
        buf_free(&b);
        return util_xstrdup("inconclusive: the verdict did not fit its sentence.");
    }
    /* the first letter up: "The client ...", "Inconclusive: ..." */
    if (b.data[0] >= 'a' && b.data[0] <= 'z')
        b.data[0] = (char)(b.data[0] - 'a' + 'A');
    return buf_steal(&b);
}

cJSON *bench_verdict_json(const struct bench_verdict *v)
{
    cJSON *o = cJSON_CreateObject();
    util_jset_str(o, bench_key(BK_VERDICT_CLASS), bench_verdict_classes[v->cls].name);
    char *s = bench_verdict_sentence(v);
    util_jset_str(o, bench_key(BK_VERDICT_SUMMARY), s);
    free(s);
    cJSON *ev = cJSON_CreateObject();
    for (int i = 0; i < BENCH_EV__COUNT; i++)
        if (isfinite(v->ev[i]))
            util_jset_num(ev, bench_verdict_evidence[i].key, round(v->ev[i] * 1000.0) / 1000.0);
    util_jset(o, bench_key(BK_VERDICT_EVIDENCE), ev);
    cJSON *rules = cJSON_CreateArray();
    if (v->decided_by >= 0)
        cJSON_AddItemToArray(rules,
                             util_must(cJSON_CreateString(bench_verdict_limits[v->decided_by].id)));
    for (int i = 0; i < BENCH_LR__COUNT; i++)
        if (v->fired[i] && i != v->decided_by)
            cJSON_AddItemToArray(rules, util_must(cJSON_CreateString(bench_verdict_limits[i].id)));
    util_jset(o, bench_key(BK_VERDICT_RULES), rules);
    cJSON *warns = cJSON_CreateArray();
    for (int i = 0; i < BENCH_WR__COUNT; i++)
        if (v->warned[i])
            cJSON_AddItemToArray(warns, util_must(cJSON_CreateString(bench_verdict_warns[i].id)));
    util_jset(o, bench_key(BK_VERDICT_WARNINGS), warns);
    return o;
}

int bench_verdict_class_parse(const char *name)
{
    for (int c = 0; name && c < BENCH_VC__COUNT; c++)
        if (strcmp(bench_verdict_classes[c].name, name) == 0)
            return c;
    return -1;
}

int bench_verdict_status_class(const cJSON *status)
{
    const cJSON *c = bench_status_get(status, BK_VERDICT_CLASS);
    return cJSON_IsString(c) ? bench_verdict_class_parse(c->valuestring) : -1;
}

/* ---- two runs compared --------------------------------------------------------------------- */

static const struct {
    enum bench_verdict_class cls;
    enum bench_evidence_id ev;
} moves[] = {
#define MOVES(cls, ev) {BENCH_VC_##cls, BENCH_EV_##ev},
#include "pkg/bench/verdict.def"
};

/* A share moves when it changed by this many points; a counter when by this fraction. */
#define MOVED_POINTS 10.0
#define MOVED_RATIO 0.1

/* A class's share of all backend samples (the verdict's database classes are shares of the
 * database's samples): 0 for a database class when every sample was Client:*; NAN when not
 * sampled. Two runs compare on these, defined whenever both were sampled. */
static double share_of_all(const double *ev, int c)
{
    double client = ev[BENCH_EV_CLIENT_SHARE], s = bench_verdict_share(ev, c);
    if (c == BENCH_VC_CLIENT || !isfinite(client))
        return c == BENCH_VC_CLIENT ? client : NAN;
    if (class_share_ev[c] < 0)
        return NAN;
    return isfinite(s) ? s * (100 - client) / 100 : 0;
}

int bench_verdict_explain(struct buf *out, const double a[BENCH_EV__COUNT],
                          const double b[BENCH_EV__COUNT], int *cls)
{
    char x[48], y[48];
    int rc = 0;
    double la = a[BENCH_EV_LATENCY], lb = b[BENCH_EV_LATENCY];
    bool b_slower;
    if (isfinite(la) && isfinite(lb)) {
        ev_num(x, sizeof(x), la, "ms");
        ev_num(y, sizeof(y), lb, "ms");
        rc |= buf_printf(out, "latency %s -> %s ms", x, y);
        b_slower = lb >= la;
    } else {
        ev_num(x, sizeof(x), a[BENCH_EV_TPS], "1/s");
        ev_num(y, sizeof(y), b[BENCH_EV_TPS], "1/s");
        rc |= buf_printf(out, "tps %s -> %s", x, y);
        b_slower = !(b[BENCH_EV_TPS] > a[BENCH_EV_TPS]);
    }
    int best = -1;
    double best_delta = 0;
    for (int c = 0; c < BENCH_VC__COUNT; c++) {
        double sa = share_of_all(a, c), sb = share_of_all(b, c);
        if (!isfinite(sa) || !isfinite(sb))
            continue;
        double d = b_slower ? sb - sa : sa - sb; /* growth in the slower run */
        if (d > best_delta) {
            best_delta = d;
            best = c;
        }
    }
    if (cls)
        *cls = best_delta >= MOVED_POINTS ? best : -1;
    if (best < 0 || best_delta < MOVED_POINTS) {
        bool sampled = isfinite(a[BENCH_EV_CLIENT_SHARE]) && isfinite(b[BENCH_EV_CLIENT_SHARE]);
        return rc | buf_printf(out,
                               "; no class's share of the wait time moved by %g points: the "
                               "evidence does not explain the difference%s",
                               MOVED_POINTS,
                               sampled ? "" : " (would decide it: wait-event sampling in both)");
    }
    ev_num(x, sizeof(x), share_of_all(a, best), "%");
    ev_num(y, sizeof(y), share_of_all(b, best), "%");
    rc |= buf_printf(out, "; %s %s %% -> %s %% of the backend samples",
                     bench_verdict_classes[best].label, x, y);
    for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
        if ((int)moves[i].cls != best)
            continue;
        double va = a[moves[i].ev], vb = b[moves[i].ev];
        const struct bench_verdict_evidence_row *e = &bench_verdict_evidence[moves[i].ev];
        if (!isfinite(va) || !isfinite(vb) ||
            !(fabs(vb - va) > MOVED_RATIO * fmax(fabs(va), fabs(vb))))
            continue;
        ev_num(x, sizeof(x), va, e->unit);
        ev_num(y, sizeof(y), vb, e->unit);
        rc |= buf_printf(out, ", %s %s -> %s%s%s", e->key, x, y,
                         e->unit && strcmp(e->unit, "count") != 0 ? " " : "",
                         e->unit && strcmp(e->unit, "count") != 0 ? e->unit : "");
    }
    return rc | buf_printf(out, ": %s explains the gap", bench_verdict_classes[best].label);
}
