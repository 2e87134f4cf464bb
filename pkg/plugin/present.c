/* Result tables, comparisons and exports of BenchmarkRuns, read through the result contract. */
#include "pkg/plugin/present.h"
#include "pkg/bench/diag.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/verdict.h"
#include "pkg/controller/phase.h"
#include "pkg/controller/status.h"
#include "pkg/util/clock.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small aligned text table ---------------------------------------------------------- */

#define TCOLS 16
#define TROWS 400
#define TCELL 112

struct table {
    char cell[TROWS][TCOLS][TCELL];
    int nrows, ncols;
    bool right[TCOLS]; /* right-aligned (numbers) */
};

static struct table *table_new(int ncols)
{
    struct table *t = util_xcalloc(1, sizeof(*t));
    t->ncols = ncols < TCOLS ? ncols : TCOLS;
    return t;
}

static void table_set(struct table *t, int row, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void table_set(struct table *t, int row, int col, const char *fmt, ...)
{
    if (row >= TROWS || col >= t->ncols)
        return;
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(t->cell[row][col], TCELL, fmt, ap);
    va_end(ap);
    if (row >= t->nrows)
        t->nrows = row + 1;
}

/* display width of UTF-8 text: count the bytes that start a character */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static int table_emit(struct buf *out, const struct table *t, const char *indent)
{
    size_t w[TCOLS] = {0};
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++)
            if (width(t->cell[r][c]) > w[c])
                w[c] = width(t->cell[r][c]);
    int rc = 0;
    for (int r = 0; r < t->nrows && !rc; r++) {
        rc = buf_puts(out, indent);
        for (int c = 0; c < t->ncols && !rc; c++) {
            const char *s = t->cell[r][c];
            size_t pad = w[c] - width(s);
            bool last = c == t->ncols - 1;
            if (t->right[c] && r > 0)
                rc = buf_printf(out, "%*s%s%s", (int)pad, "", s, last ? "" : "  ");
            else
                rc = buf_printf(out, "%s%*s", s, last ? 0 : (int)pad + 2, "");
        }
        if (!rc) {
            while (out->len && out->data[out->len - 1] == ' ')
                out->data[--out->len] = '\0';
            rc = buf_puts(out, "\n");
        }
    }
    return rc;
}

/* ---- numbers ---------------------------------------------------------------------------- */

void plugin_fmt_num(char *out, size_t len, double v)
{
    if (!isfinite(v))
        (void)snprintf(out, len, "-");
    else if (fabs(v) >= 1000 || (v == floor(v) && fabs(v) < 1e15))
        (void)snprintf(out, len, "%.0f", v);
    else if (fabs(v) >= 100)
        (void)snprintf(out, len, "%.1f", v);
    else if (fabs(v) >= 1)
        (void)snprintf(out, len, "%.2f", v);
    else if (v == 0)
        (void)snprintf(out, len, "0");
    else
        (void)snprintf(out, len, "%.3g", v);
}

static const char *num(char *b, size_t n, double v)
{
    plugin_fmt_num(b, n, v);
    return b;
}

static const cJSON *status_of(const cJSON *br)
{
    return cJSON_GetObjectItemCaseSensitive(br, "status");
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
    return v && cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *name_of(const cJSON *br)
{
    const char *n = jstr(cJSON_GetObjectItemCaseSensitive(br, "metadata"), "name");
    return n ? n : "?";
}

static double snum(const cJSON *st, enum bench_field_id id)
{
    const cJSON *v = bench_status_get(st, id);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* ---- the result of one run ------------------------------------------------------------- */

/* "benchmarkrun NAME: PHASE (target T)", then its message on a line of its own. */
static int result_head(struct buf *out, const cJSON *br, const cJSON *st)
{
    int rc =
        buf_printf(out, "benchmarkrun %s: %s", name_of(br), ctrl_phase_shown(jstr(st, "phase")));
    if (!rc && jstr(st, "target"))
        rc = buf_printf(out, " (target %s)", jstr(st, "target"));
    if (!rc && jstr(st, "message"))
        rc = buf_printf(out, "\n  %s", jstr(st, "message"));
    return rc ? rc : buf_puts(out, "\n");
}

/* One row per fio job. */
static int fio_table(struct buf *out, const cJSON *fio)
{
    struct table *t = table_new(8);
    static const char *const head[] = {
        "JOB",         "READ IOPS",        "WRITE IOPS",        "READ KiB/s",
        "WRITE KiB/s", "READ CLAT P99 µs", "WRITE CLAT P99 µs", "SYNC P99 µs"};
    static const enum bench_field_id ids[] = {
        BK_FIO_JOBS_READ_IOPS,      BK_FIO_JOBS_WRITE_IOPS,       BK_FIO_JOBS_READ_BW_KI_BS,
        BK_FIO_JOBS_WRITE_BW_KI_BS, BK_FIO_JOBS_READ_CLAT_US_P99, BK_FIO_JOBS_WRITE_CLAT_US_P99,
        BK_FIO_JOBS_SYNC_P99};
    for (int k = 0; k < 8; k++) {
        table_set(t, 0, k, "%s", head[k]);
        t->right[k] = k > 0;
    }
    int r = 1;
    char a[48];
    const cJSON *j;
    cJSON_ArrayForEach(j, fio)
    {
        const cJSON *nm = bench_status_get(j, BK_FIO_JOBS_NAME);
        table_set(t, r, 0, "%s", cJSON_IsString(nm) ? nm->valuestring : "?");
        for (int k = 0; k < 7; k++)
            table_set(t, r, k + 1, "%s", num(a, sizeof(a), snum(j, ids[k])));
        r++;
    }
    int rc = table_emit(out, t, "  ");
    free(t);
    return rc;
}

/* tps and latency, transactions, then the wait events and Little's law as status words them. */
static int pgbench_summary(struct buf *out, const cJSON *st)
{
    char a[48], b[48], c[48], d[48], e[48];
    int rc = buf_printf(out, "  tps %s   latency avg %s ms   p50 %s   p95 %s   p99 %s ms\n",
                        num(a, sizeof(a), snum(st, BK_SUMMARY_TPS)),
                        num(b, sizeof(b), snum(st, BK_SUMMARY_LATENCY_AVG_MS)),
                        num(c, sizeof(c), snum(st, BK_SUMMARY_LATENCY_P50_MS)),
                        num(d, sizeof(d), snum(st, BK_SUMMARY_LATENCY_P95_MS)),
                        num(e, sizeof(e), snum(st, BK_SUMMARY_LATENCY_P99_MS)));
    if (!rc)
        rc = buf_printf(out, "  transactions %.0f   failed %s   aborted clients %.0f\n",
                        snum(st, BK_SUMMARY_TRANSACTIONS_PROCESSED),
                        num(b, sizeof(b), snum(st, BK_SUMMARY_FAILED_TRANSACTIONS)),
                        isfinite(snum(st, BK_SUMMARY_ABORTED_CLIENTS))
                            ? snum(st, BK_SUMMARY_ABORTED_CLIENTS)
                            : 0);
    const cJSON *waits = bench_status_get(st, BK_STATUS_DIAGNOSTICS_WAIT_EVENTS);
    if (!rc && cJSON_IsString(waits))
        rc = buf_printf(out, "  wait events: %s\n", waits->valuestring);
    const cJSON *verdict = bench_status_get(st, BK_STATUS_DIAGNOSTICS_VERDICT);
    if (!rc && cJSON_IsString(verdict))
        rc = buf_printf(out, "  verdict: %s\n", verdict->valuestring);
    return rc;
}

/* status.workers: the operator's line per worker ("0 pod: ok, 406.3 tps, ..."). */
static int workers_lines(struct buf *out, const cJSON *workers)
{
    int rc = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, workers)
    {
        if (!rc && cJSON_IsString(w))
            rc = buf_printf(out, "  worker %s\n", w->valuestring);
    }
    return rc;
}

static bool nonempty_array(const cJSON *a)
{
    return cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0;
}

int plugin_result_table(struct buf *out, const cJSON *br)
{
    const cJSON *st = status_of(br);
    int rc = result_head(out, br, st);
    if (rc)
        return rc;
    const cJSON *fio = bench_status_get(st, BK_FIO_JOBS);
    if (nonempty_array(fio))
        return fio_table(out, fio);
    if (!bench_status_get(st, BK_SUMMARY_TPS))
        return 0;
    rc = pgbench_summary(out, st);
    const cJSON *workers = bench_status_get(st, BK_STATUS_WORKERS);
    if (!rc && nonempty_array(workers))
        rc = workers_lines(out, workers);
    return rc;
}

int plugin_progress_line(struct buf *out, const cJSON *br, double now)
{
    const cJSON *st = status_of(br);
    const char *phase = ctrl_phase_shown(jstr(st, "phase"));
    int rc = buf_printf(out, "%s %s", name_of(br), phase);
    double start = util_rfc3339_parse(jstr(st, "startTime"));
    if (!rc && isfinite(start) && start > 0 && now >= start)
        rc = buf_printf(out, "  %.0fs", now - start);
    cJSON *tl = bench_series_timeline(st);
    int n = cJSON_GetArraySize(tl);
    char a[48], b[48];
    if (!rc && n > 0) {
        const cJSON *last = cJSON_GetArrayItem(tl, n - 1);
        rc = buf_printf(out, "  tps %s  latency %s ms",
                        num(a, sizeof(a), bench_num(last, BK_TIMELINE_TPS)),
                        num(b, sizeof(b), bench_num(last, BK_TIMELINE_LATENCY_MS)));
    }
    cJSON_Delete(tl);
    if (!rc && bench_status_get(st, BK_SUMMARY_TPS))
        rc = buf_printf(out, "  tps %s  p99 %s ms", num(a, sizeof(a), snum(st, BK_SUMMARY_TPS)),
                        num(b, sizeof(b), snum(st, BK_SUMMARY_LATENCY_P99_MS)));
    return rc;
}

/* ---- compare ---------------------------------------------------------------------------- */

static void ratio_cell(struct table *t, int r, int c, double v, double base, const char *unit)
{
    char a[48];
    plugin_fmt_num(a, sizeof(a), v);
    if (c > 1 && isfinite(v) && isfinite(base) && base != 0)
        table_set(t, r, c, "%s%s (%.2fx)", a, unit, v / base);
    else
        table_set(t, r, c, "%s%s", a, unit);
}

/* The header row (the runs' names) and their phases. Returns the next row. */
static int compare_head(struct table *t, const cJSON *const *brs, size_t n)
{
    table_set(t, 0, 0, "%s", "");
    table_set(t, 1, 0, "phase");
    for (size_t i = 0; i < n; i++) {
        const char *ph = jstr(status_of(brs[i]), "phase");
        table_set(t, 0, (int)i + 1, "%s", name_of(brs[i]));
        t->right[i + 1] = true;
        table_set(t, 1, (int)i + 1, "%s", ctrl_phase_shown(ph));
    }
    return 2;
}

/* A compared number of a run: its status field, or for Little's law the deviation computed from
 * status as the result's checks.littlesLaw is (status words it in a sentence). */
static double metric(const cJSON *br, enum bench_field_id id)
{
    return id == BK_CHECKS_LITTLES_LAW_DEVIATION_PCT ? ctrl_status_littles_law_pct(status_of(br))
                                                     : snum(status_of(br), id);
}

/* The summary's numbers, a row each with ratios to the first run, from row r. Returns the next. */
static int compare_metrics(struct table *t, int r, const cJSON *const *brs, size_t n)
{
    static const struct {
        const char *label, *unit;
        enum bench_field_id id;
    } rows[] = {
        {"TPS", "", BK_SUMMARY_TPS},
        {"latency avg", " ms", BK_SUMMARY_LATENCY_AVG_MS},
        {"latency p50", " ms", BK_SUMMARY_LATENCY_P50_MS},
        {"latency p95", " ms", BK_SUMMARY_LATENCY_P95_MS},
        {"latency p99", " ms", BK_SUMMARY_LATENCY_P99_MS},
        {"transactions", "", BK_SUMMARY_TRANSACTIONS_PROCESSED},
        {"failed", "", BK_SUMMARY_FAILED_TRANSACTIONS},
        {"aborted clients", "", BK_SUMMARY_ABORTED_CLIENTS},
        {"Little's law deviation", " %", BK_CHECKS_LITTLES_LAW_DEVIATION_PCT},
    };
    for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++, r++) {
        table_set(t, r, 0, "%s", rows[k].label);
        double base = metric(brs[0], rows[k].id);
        for (size_t i = 0; i < n; i++)
            ratio_cell(t, r, (int)i + 1, metric(brs[i], rows[k].id), base, rows[k].unit);
    }
    return r;
}

#define MAX_WAITS 32

/* A run's wait-event shares, read from status' sentence into w (BENCH_DIAG_MAX_WAITS of them);
 * -1 when status has none. */
static int run_waits(const cJSON *br, struct bench_wait_share *w)
{
    const cJSON *s = bench_status_get(status_of(br), BK_STATUS_DIAGNOSTICS_WAIT_EVENTS);
    return cJSON_IsString(s) ? bench_diag_wait_parse(s->valuestring, w, BENCH_DIAG_MAX_WAITS) : -1;
}

/* The union of every run's wait events, in the order first seen (the first run's first), into
 * seen. Returns their number. */
static int wait_union(const cJSON *const *brs, size_t n, char seen[MAX_WAITS][128])
{
    struct bench_wait_share w[BENCH_DIAG_MAX_WAITS];
    int nseen = 0;
    for (size_t i = 0; i < n; i++) {
        int nw = run_waits(brs[i], w);
        for (int k = 0; k < nw; k++) {
            bool dup = false;
            for (int s = 0; s < nseen && !dup; s++)
                dup = strcmp(seen[s], w[k].event) == 0;
            if (!dup && nseen < MAX_WAITS)
                memcpy(seen[nseen++], w[k].event, sizeof(seen[0])); /* both 128 bytes */
        }
    }
    return nseen;
}

/* A row per wait event of any run, its share in each (0 when the run sampled others), from row r.
 */
static void compare_waits(struct table *t, int r, const cJSON *const *brs, size_t n)
{
    char seen[MAX_WAITS][128];
    struct bench_wait_share w[BENCH_DIAG_MAX_WAITS];
    int nseen = wait_union(brs, n, seen);
    for (int s = 0; s < nseen; s++, r++) {
        table_set(t, r, 0, "wait %s", seen[s]);
        double base = NAN;
        for (size_t i = 0; i < n; i++) {
            int nw = run_waits(brs[i], w);
            double x = nw < 0 ? NAN : 0;
            for (int k = 0; k < nw; k++)
                if (strcmp(w[k].event, seen[s]) == 0)
                    x = w[k].pct;
            if (i == 0)
                base = x;
            ratio_cell(t, r, (int)i + 1, x, base, " %");
        }
    }
}

/* --fail-if-tps-drops and --fail-if-p99-grows against the first run: a line in verdict for each
 * run that crosses one, and *failed. */
static int compare_thresholds(const cJSON *const *brs, size_t n, const struct plugin_thresholds *th,
                              struct buf *verdict, bool *failed)
{
    double tps0 = snum(status_of(brs[0]), BK_SUMMARY_TPS);
    double p990 = snum(status_of(brs[0]), BK_SUMMARY_LATENCY_P99_MS);
    int rc = 0;
    for (size_t i = 1; i < n && !rc; i++) {
        double tps = snum(status_of(brs[i]), BK_SUMMARY_TPS);
        double p99 = snum(status_of(brs[i]), BK_SUMMARY_LATENCY_P99_MS);
        if (th->tps_drop_pct >= 0 && isfinite(tps0) && tps0 > 0) {
            double drop = (tps0 - tps) / tps0 * 100;
            if (!isfinite(tps) || drop > th->tps_drop_pct) {
                *failed = true;
                rc =
                    buf_printf(verdict,
                               "%s: TPS %.1f is %.1f %% below %s's %.1f "
                               "(--fail-if-tps-drops %g)\n",
                               name_of(brs[i]), tps, drop, name_of(brs[0]), tps0, th->tps_drop_pct);
            }
        }
        if (!rc && th->p99_grow_pct >= 0 && isfinite(p990) && p990 > 0) {
            double grow = (p99 - p990) / p990 * 100;
            if (!isfinite(p99) || grow > th->p99_grow_pct) {
                *failed = true;
                rc =
                    buf_printf(verdict,
                               "%s: p99 %.3f ms is %.1f %% above %s's %.3f ms "
                               "(--fail-if-p99-grows %g)\n",
                               name_of(brs[i]), p99, grow, name_of(brs[0]), p990, th->p99_grow_pct);
            }
        }
    }
    return rc;
}

/* The verdict's class of each run (status.diagnostics.verdictClass), in row r. */
static int compare_verdicts(struct table *t, int r, const cJSON *const *brs, size_t n)
{
    table_set(t, r, 0, "verdict");
    for (size_t i = 0; i < n; i++) {
        int c = bench_verdict_status_class(status_of(brs[i]));
        table_set(t, r, (int)i + 1, "%s", c >= 0 ? bench_verdict_classes[c].name : "-");
    }
    return r + 1;
}

/* A run's evidence: its result's (the ConfigMap), else what status holds of it (the wait-event
 * shares its sentence names, tps and latency). */
static void run_evidence(const cJSON *br, const cJSON *result, double ev[BENCH_EV__COUNT])
{
    if (result) {
        bench_verdict_evidence_of(result, ev);
        return;
    }
    cJSON *r = util_must(cJSON_CreateObject()), *shares = util_must(cJSON_CreateObject());
    struct bench_wait_share w[BENCH_DIAG_MAX_WAITS];
    int nw = run_waits(br, w);
    for (int k = 0; k < nw; k++)
        util_jset_num(shares, w[k].event, w[k].pct);
    (void)bench_put(r, BK_WAIT_EVENTS_SHARES_PCT, shares);
    (void)bench_put(r, BK_WAIT_EVENTS_BACKEND_SAMPLES, cJSON_CreateNumber(nw > 0 ? 1 : 0));
    (void)bench_put(r, BK_SUMMARY_TPS, cJSON_CreateNumber(snum(status_of(br), BK_SUMMARY_TPS)));
    (void)bench_put(r, BK_SUMMARY_LATENCY_AVG_MS,
                    cJSON_CreateNumber(snum(status_of(br), BK_SUMMARY_LATENCY_AVG_MS)));
    bench_verdict_evidence_of(r, ev);
    cJSON_Delete(r);
}

/* "why B against A: ..." for each run against the first (bench_verdict_explain). */
static int compare_why(struct buf *out, const cJSON *const *brs, const cJSON *const *results,
                       size_t n)
{
    double a[BENCH_EV__COUNT], b[BENCH_EV__COUNT];
    int rc = 0;
    run_evidence(brs[0], results ? results[0] : NULL, a);
    for (size_t i = 1; i < n && !rc; i++) {
        run_evidence(brs[i], results ? results[i] : NULL, b);
        rc = buf_printf(out, "%swhy %s against %s: ", i == 1 ? "\n" : "", name_of(brs[i]),
                        name_of(brs[0]));
        rc = rc ? rc : bench_verdict_explain(out, a, b, NULL);
        rc = rc ? rc : buf_puts(out, "\n");
    }
    return rc;
}

int plugin_compare_table(struct buf *out, const cJSON *const *brs, const cJSON *const *results,
                         size_t n, const struct plugin_thresholds *th, struct buf *verdict,
                         bool *failed)
{
    if (n > TCOLS - 1)
        n = TCOLS - 1;
    *failed = false;
    struct table *t = table_new((int)n + 1);
    int r = compare_head(t, brs, n);
    r = compare_metrics(t, r, brs, n);
    r = compare_verdicts(t, r, brs, n);
    compare_waits(t, r, brs, n);
    int rc = table_emit(out, t, "");
    free(t);
    rc = rc ? rc : compare_why(out, brs, results, n);
    return rc ? rc : compare_thresholds(brs, n, th, verdict, failed);
}

/* ---- export ----------------------------------------------------------------------------- */

static const struct {
    const char *name;
    enum bench_field_id list;
} tables[] = {
    {"timeline", BK_TIMELINE},
    {"statements", BK_STATEMENTS},
    {"workers", BK_WORKERS},
    {"fio", BK_FIO_JOBS},
};

/* A CSV field: quoted when it holds a comma, quote or line break. */
static int csv_field(struct buf *out, const cJSON *v)
{
    if (!v || cJSON_IsNull(v))
        return 0;
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        return d == floor(d) && fabs(d) < 1e15 ? buf_printf(out, "%.0f", d)
                                               : buf_printf(out, "%.17g", d);
    }
    if (cJSON_IsBool(v))
        return buf_puts(out, cJSON_IsTrue(v) ? "true" : "false");
    const char *s = cJSON_IsString(v) ? v->valuestring : "";
    if (!strpbrk(s, ",\"\r\n"))
        return buf_puts(out, s);
    int rc = buf_puts(out, "\"");
    for (const char *p = s; *p && !rc; p++)
        rc = *p == '"' ? buf_puts(out, "\"\"") : buf_append(out, p, 1);
    return rc ? rc : buf_puts(out, "\"");
}

/* The contract rows that are fields of a status list ("fio[].x"), in table order; the
 * timeline's are the result rows of status' timeline series; a list status keeps as lines
 * (workers, statements) has the result's rows ("workers[].x"). */
static int list_columns(enum bench_field_id list, enum bench_field_id *cols, int max)
{
    const char *lp = bench_fields[list].status;
    int n = 0;
    if (list == BK_TIMELINE) {
        for (size_t k = 0; k < bench_ntimeline_series && n < max; k++)
            cols[n++] = bench_timeline_series[k].result;
        return n;
    }
    if (!lp) {
        for (size_t i = 0; i < bench_nfields && n < max; i++) {
            const char *rest = bench_fields[i].path ? bench_field_under(bench_fields[i].path,
                                                                        bench_fields[list].path)
                                                    : NULL;
            if (rest && !strchr(rest, '.') && bench_fields[i].type != BF_SECTION)
                cols[n++] = (enum bench_field_id)i;
        }
        return n;
    }
    size_t ll = strlen(lp);
    for (size_t i = 0; i < bench_nfields && n < max; i++) {
        const char *sp = bench_fields[i].status;
        if (sp && strncmp(sp, lp, ll) == 0 && strncmp(sp + ll, "[].", 3) == 0 &&
            !strchr(sp + ll + 3, '.') && bench_fields[i].type != BF_SECTION) {
            bool dup = false; /* controller-written rows may repeat a result row's key */
            for (int k = 0; k < n && !dup; k++)
                dup = strcmp(bench_fields[cols[k]].status, sp) == 0;
            if (!dup)
                cols[n++] = (enum bench_field_id)i;
        }
    }
    return n;
}

/* A column's key in the export: its status key, for a timeline member the key of its status
 * series, for a row status has no field for its result key. */
static const char *column_key(enum bench_field_id col)
{
    for (size_t k = 0; k < bench_ntimeline_series; k++)
        if (bench_timeline_series[k].result == col)
            return bench_status_key(bench_timeline_series[k].status);
    return bench_fields[col].status ? bench_status_key(col) : bench_key(col);
}

/* The status row that holds a list as lines of text (status.workers for the result's workers),
 * or NULL. */
static const struct bench_field *status_lines(enum bench_field_id list)
{
    const struct bench_field *f = bench_field_find(bench_key(list), true);
    return f && f->type == BF_STRLIST ? f : NULL;
}

/* The items of an export table: the result's (its full timeline, the workers' and statements'
 * rows) when there is a result and status does not hold the list as it is, else status' (for
 * workers and statements its lines). *from_result says which form the items are in. */
static const cJSON *table_items(const cJSON *st, const cJSON *result, enum bench_field_id list,
                                bool *from_result)
{
    const cJSON *l = bench_fields[list].status ? NULL : bench_get(result, list);
    *from_result = l != NULL;
    if (l || bench_fields[list].status)
        return l ? l : bench_status_get(st, list);
    const struct bench_field *f = status_lines(list);
    return f ? bench_json_at(st, f->status) : NULL;
}

/* A table's columns are the status rows of the list; an item of the result is read at the same
 * row's result path. */
static int csv_table(struct buf *out, const cJSON *st, const cJSON *result,
                     enum bench_field_id list)
{
    bool res;
    const cJSON *items = table_items(st, result, list, &res);
    bool lines = !res && !bench_fields[list].status; /* status' lines: one column */
    enum bench_field_id cols[64];
    int nc = lines ? 1 : list_columns(list, cols, 64), rc = 0;
    for (int c = 0; c < nc && !rc; c++)
        rc = buf_printf(out, "%s%s", c ? "," : "", lines ? "line" : column_key(cols[c]));
    rc = rc ? rc : buf_puts(out, "\n");
    const cJSON *it;
    if (cJSON_IsArray(items))
        cJSON_ArrayForEach(it, items)
        {
            for (int c = 0; c < nc && !rc; c++) {
                if (c)
                    rc = buf_puts(out, ",");
                const cJSON *v = lines ? it
                                 : res ? bench_get(it, cols[c])
                                       : bench_status_get(it, cols[c]);
                rc = rc ? rc : csv_field(out, v);
            }
            rc = rc ? rc : buf_puts(out, "\n");
        }
    return rc;
}

/* A list for the JSON export, its items keyed as in status (a result's items are projected on
 * the status columns, so both sources export the same keys). */
static cJSON *export_list(const cJSON *items, bool from_result, enum bench_field_id list)
{
    if (!from_result)
        return util_must(cJSON_Duplicate(items, 1));
    enum bench_field_id cols[64];
    int nc = list_columns(list, cols, 64);
    cJSON *a = util_must(cJSON_CreateArray());
    const cJSON *it;
    cJSON_ArrayForEach(it, items)
    {
        cJSON *row = util_must(cJSON_CreateObject());
        for (int c = 0; c < nc; c++) {
            const cJSON *v = bench_get(it, cols[c]);
            if (v)
                cJSON_AddItemToObject(row, column_key(cols[c]), util_must(cJSON_Duplicate(v, 1)));
        }
        cJSON_AddItemToArray(a, row);
    }
    return a;
}

/* plugin_export with lists, the object the timeline is read from: the result, or status'
 * series in the result's shape. */
static int export_from(struct buf *out, const cJSON *br, const cJSON *result, const cJSON *lists,
                       const char *format, const char *table)
{
    const cJSON *st = status_of(br);
    size_t nt = sizeof(tables) / sizeof(tables[0]);
    if (table) {
        bool ok = false;
        for (size_t i = 0; i < nt; i++)
            ok = ok || strcmp(tables[i].name, table) == 0;
        if (!ok)
            return -EINVAL;
    }
    if (strcmp(format, "json") == 0) {
        cJSON *o = util_must(cJSON_CreateObject());
        cJSON_AddStringToObject(o, "name", name_of(br));
        const char *ph = jstr(st, "phase");
        cJSON_AddStringToObject(o, "phase", ctrl_phase_shown(ph));
        cJSON_AddStringToObject(o, "source", result ? "result" : "status");
        const cJSON *sum = bench_status_get(st, BK_SUMMARY);
        cJSON_AddItemToObject(o, bench_status_key(BK_SUMMARY),
                              util_must(sum ? cJSON_Duplicate(sum, 1) : cJSON_CreateNull()));
        for (size_t i = 0; i < nt; i++) {
            if (table && strcmp(table, tables[i].name) != 0)
                continue;
            bool res;
            const cJSON *l = table_items(st, lists, tables[i].list, &res);
            cJSON_AddItemToObject(o, tables[i].name,
                                  l ? export_list(l, res, tables[i].list)
                                    : util_must(cJSON_CreateArray()));
        }
        char *s = util_must(cJSON_Print(o));
        cJSON_Delete(o);
        int rc = buf_puts(out, s);
        free(s);
        return rc ? rc : buf_puts(out, "\n");
    }
    if (strcmp(format, "csv") != 0)
        return -EINVAL;
    int rc = 0, done = 0;
    for (size_t i = 0; i < nt && !rc; i++) {
        bool res;
        if (table ? strcmp(table, tables[i].name) != 0
                  : cJSON_GetArraySize(table_items(st, lists, tables[i].list, &res)) == 0)
            continue;
        if (done++)
            rc = buf_puts(out, "\n");
        rc = rc ? rc : csv_table(out, st, lists, tables[i].list);
    }
    return rc;
}

int plugin_export(struct buf *out, const cJSON *br, const cJSON *result, const char *format,
                  const char *table)
{
    /* the result's lists, with status' timeline series where it has no timeline */
    cJSON *lists = util_must(result ? cJSON_Duplicate(result, 1) : cJSON_CreateObject());
    cJSON *tl = bench_get(lists, BK_TIMELINE) ? NULL : bench_series_timeline(status_of(br));
    if (tl && bench_put(lists, BK_TIMELINE, tl) != 0)
        abort(); /* an assertion, not allocation: lists is an object and the row has one key */
    int rc = export_from(out, br, result, lists, format, table);
    cJSON_Delete(lists);
    return rc;
}

/* ---- the text table for the other presenters (present.h) --------------------------------- */

struct plugin_table {
    struct table t;
};

struct plugin_table *plugin_table_new(int ncols)
{
    return (struct plugin_table *)table_new(ncols);
}

void plugin_table_set(struct plugin_table *t, int row, int col, const char *s)
{
    table_set(&t->t, row, col, "%s", s);
}

void plugin_table_right(struct plugin_table *t, int col)
{
    if (col >= 0 && col < TCOLS)
        t->t.right[col] = true;
}

void plugin_table_ratio(struct plugin_table *t, int row, int col, double v, double base,
                        const char *unit)
{
    ratio_cell(&t->t, row, col, v, base, unit);
}

int plugin_table_emit(struct buf *out, const struct plugin_table *t, const char *indent)
{
    return table_emit(out, &t->t, indent);
}

void plugin_table_free(struct plugin_table *t)
{
    free(t);
}
