/* Result tables, comparisons and exports of BenchmarkRuns, read through the result contract. */
#include "pkg/plugin/present.h"
#include "pkg/bench/diag.h"
#include "pkg/bench/fields.h"
#include "pkg/bench/stats.h"
#include "pkg/bench/verdict.h"
#include "pkg/api/phase.h"
#include "pkg/api/spec.h"
#include "pkg/api/status.h"
#include "pkg/plugin/yaml.h"
#include "pkg/util/clock.h"
#include "pkg/util/json.h"
#include "pkg/util/mem.h"

#include <ctype.h>
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

/* What a row is: a plain row, a section's title (its label alone), or a row whose values differ
 * between the runs (marked "*" in text, class "differs" in HTML). */
enum row_kind { ROW_PLAIN, ROW_SECTION, ROW_MARKED };

struct table {
    char cell[TROWS][TCOLS][TCELL];
    int nrows, ncols;
    bool right[TCOLS];         /* right-aligned (numbers), their header too */
    unsigned char kind[TROWS]; /* enum row_kind */
    bool marks;                /* text: a "* " or "  " before every row's label but the header */
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

/* The mark before row r's label ("" without marks, for the header and section titles). */
static const char *row_mark(const struct table *t, int r)
{
    if (!t->marks || r == 0 || t->kind[r] == ROW_SECTION)
        return "";
    return t->kind[r] == ROW_MARKED ? "* " : "  ";
}

static int table_emit(struct buf *out, const struct table *t, const char *indent)
{
    size_t w[TCOLS] = {0};
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++) {
            size_t cw = width(t->cell[r][c]) + (c ? 0 : strlen(row_mark(t, r)));
            if (t->kind[r] != ROW_SECTION && cw > w[c])
                w[c] = cw;
        }
    for (int r = 0; r < t->nrows && !out->err; r++) {
        buf_puts(out, indent);
        for (int c = 0; c < t->ncols; c++) {
            const char *s = t->cell[r][c], *mark = c ? "" : row_mark(t, r);
            size_t sw = width(s) + strlen(mark);
            size_t pad = w[c] > sw ? w[c] - sw : 0;
            bool last = c == t->ncols - 1;
            if (t->right[c])
                buf_printf(out, "%*s%s%s%s", (int)pad, "", mark, s, last ? "" : "  ");
            else
                buf_printf(out, "%s%s%*s", mark, s, last ? 0 : (int)pad + 2, "");
        }
        while (!out->err && out->len && out->data[out->len - 1] == ' ')
            out->data[--out->len] = '\0';
        buf_puts(out, "\n");
    }
    return out->err;
}

/* The same table as HTML: a header row, numbers right-aligned (class "n"), section titles
 * across the table, rows that differ with class "differs". */
static int table_emit_html(struct buf *out, const struct table *t, const char *id)
{
    buf_printf(out, "<table class=\"cmp\" id=\"%s\">\n", id);
    for (int r = 0; r < t->nrows && !out->err; r++) {
        if (t->kind[r] == ROW_SECTION) {
            buf_printf(out, "<tr class=\"sec\"><th colspan=\"%d\">", t->ncols);
            buf_put_html(out, t->cell[r][0]);
            buf_puts(out, "</th></tr>\n");
            continue;
        }
        buf_puts(out, r == 0                     ? "<tr>"
                      : t->kind[r] == ROW_MARKED ? "<tr class=\"differs\">"
                                                 : "<tr>");
        for (int c = 0; c < t->ncols; c++) {
            const char *tag = r == 0 || c == 0 ? "th" : "td";
            buf_printf(out, "<%s%s>", tag, t->right[c] ? " class=\"n\"" : "");
            buf_puts(out, c == 0 && t->kind[r] == ROW_MARKED ? "* " : "");
            buf_put_html(out, t->cell[r][c]);
            buf_printf(out, "</%s>", tag);
        }
        buf_puts(out, "</tr>\n");
    }
    return buf_puts(out, "</table>\n");
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

static bool nonempty_array(const cJSON *a)
{
    return cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0;
}

/* "benchmarkrun NAME: PHASE (target T)", then its message on a line of its own, unless it is the
 * pgbench summary in a sentence that pgbench_summary() follows with the numbers: one summary. */
static int result_head(struct buf *out, const cJSON *br, const cJSON *st)
{
    const char *phase = bench_status_str(st, BK_STATUS_PHASE);
    buf_printf(out, "benchmarkrun %s: %s", name_of(br), api_phase_shown(phase));
    if (bench_status_str(st, BK_STATUS_TARGET))
        buf_printf(out, " (target %s)", bench_status_str(st, BK_STATUS_TARGET));
    bool summed = api_phase_parse(phase) == API_PHASE_SUCCEEDED &&
                  bench_status_get(st, BK_SUMMARY_TPS) &&
                  !nonempty_array(bench_status_get(st, BK_FIO_JOBS));
    if (bench_status_str(st, BK_STATUS_MESSAGE) && !summed)
        buf_printf(out, "\n  %s", bench_status_str(st, BK_STATUS_MESSAGE));
    return buf_puts(out, "\n");
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
    buf_printf(out, "  tps %s   latency avg %s ms   p50 %s   p95 %s   p99 %s ms\n",
               num(a, sizeof(a), snum(st, BK_SUMMARY_TPS)),
               num(b, sizeof(b), snum(st, BK_SUMMARY_LATENCY_AVG_MS)),
               num(c, sizeof(c), snum(st, BK_SUMMARY_LATENCY_P50_MS)),
               num(d, sizeof(d), snum(st, BK_SUMMARY_LATENCY_P95_MS)),
               num(e, sizeof(e), snum(st, BK_SUMMARY_LATENCY_P99_MS)));
    buf_printf(out, "  transactions %.0f   failed %s   aborted clients %.0f\n",
               snum(st, BK_SUMMARY_TRANSACTIONS_PROCESSED),
               num(b, sizeof(b), snum(st, BK_SUMMARY_FAILED_TRANSACTIONS)),
               isfinite(snum(st, BK_SUMMARY_ABORTED_CLIENTS)) ? snum(st, BK_SUMMARY_ABORTED_CLIENTS)
                                                              : 0);
    const cJSON *waits = bench_status_get(st, BK_STATUS_DIAGNOSTICS_WAIT_EVENTS);
    if (cJSON_IsString(waits))
        buf_printf(out, "  wait events: %s\n", waits->valuestring);
    const cJSON *verdict = bench_status_get(st, BK_STATUS_DIAGNOSTICS_VERDICT);
    if (cJSON_IsString(verdict))
        buf_printf(out, "  verdict: %s\n", verdict->valuestring);
    return out->err;
}

/* status.workers: the operator's line per worker ("0 pod: ok, 406.3 tps, ..."). */
static int workers_lines(struct buf *out, const cJSON *workers)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, workers)
    {
        if (cJSON_IsString(w))
            buf_printf(out, "  worker %s\n", w->valuestring);
    }
    return out->err;
}

int plugin_result_table(struct buf *out, const cJSON *br)
{
    const cJSON *st = status_of(br);
    if (result_head(out, br, st))
        return out->err;
    const cJSON *fio = bench_status_get(st, BK_FIO_JOBS);
    if (nonempty_array(fio))
        return fio_table(out, fio);
    if (!bench_status_get(st, BK_SUMMARY_TPS))
        return 0;
    pgbench_summary(out, st);
    const cJSON *workers = bench_status_get(st, BK_STATUS_WORKERS);
    if (nonempty_array(workers))
        workers_lines(out, workers);
    return out->err;
}

/* a and b alike but for their numbers ("retrying, 12 s of 30 s" is no news after "6 s of 30 s") */
static bool same_words(const char *a, const char *b)
{
    for (;;) {
        bool da = isdigit((unsigned char)*a), db = isdigit((unsigned char)*b);
        if (da != db)
            return false;
        if (da) {
            while (isdigit((unsigned char)*a))
                a++;
            while (isdigit((unsigned char)*b))
                b++;
            continue;
        }
        if (*a != *b)
            return false;
        if (!*a)
            return true;
        a++;
        b++;
    }
}

int plugin_condition_news(struct buf *out, const cJSON *br, const char *name,
                          struct plugin_conds_seen *seen)
{
    int n = 0;
    for (size_t i = 0; i < sizeof(seen->c) / sizeof(seen->c[0]); i++)
        seen->c[i].on = false;
    const cJSON *c;
    cJSON_ArrayForEach(c, bench_status_get(status_of(br), BK_STATUS_CONDITIONS))
    {
        const char *type = util_jstr(c, "type"), *cs = util_jstr(c, "status");
        const char *m = util_jstr(c, "message");
        if (!(api_cond_is_waiting(type) || api_cond_is_caveat(type)) || !cs ||
            strcmp(cs, "True") != 0)
            continue;
        size_t k = 0, nk = sizeof(seen->c) / sizeof(seen->c[0]);
        while (k < nk && seen->c[k].type[0] && strcmp(seen->c[k].type, type) != 0)
            k++;
        if (k == nk)
            continue;
        seen->c[k].on = true;
        if (seen->c[k].type[0] && seen->c[k].msg[0] && same_words(seen->c[k].msg, m ? m : ""))
            continue;
        (void)snprintf(seen->c[k].type, sizeof(seen->c[k].type), "%s", type);
        (void)snprintf(seen->c[k].msg, sizeof(seen->c[k].msg), "%s", m ? m : "");
        (void)buf_printf(out, "%s: %s: %s\n", name, type, m ? m : "");
        n++;
    }
    for (size_t i = 0; i < sizeof(seen->c) / sizeof(seen->c[0]); i++)
        if (!seen->c[i].on)
            seen->c[i].msg[0] = '\0'; /* printed again when it comes back */
    return n;
}

int plugin_progress_line(struct buf *out, const cJSON *br, double now)
{
    const cJSON *st = status_of(br);
    const char *phase = api_phase_shown(bench_status_str(st, BK_STATUS_PHASE));
    buf_printf(out, "%s %s", name_of(br), phase);
    double start = util_rfc3339_parse(bench_status_str(st, BK_STATUS_START_TIME));
    if (isfinite(start) && start > 0 && now >= start)
        buf_printf(out, "  %.0fs", now - start);
    /* an init's status.progress: pgbench -i's step and rows */
    char init[256];
    if (api_status_init_progress(st, "  ", init, sizeof(init)))
        buf_printf(out, "  %s", init);
    /* status.progress: what the workers' last -P lines said, summed (live while they run) */
    double tps = snum(st, BK_STATUS_PROGRESS_TPS), lat = snum(st, BK_STATUS_PROGRESS_LATENCY_MS);
    double el = snum(st, BK_STATUS_PROGRESS_ELAPSED_SECONDS);
    double rem = snum(st, BK_STATUS_PROGRESS_REMAINING_SECONDS);
    double failed = snum(st, BK_STATUS_PROGRESS_FAILED);
    char a[48], b[48];
    if (isfinite(tps)) {
        api_status_fmt_tps(a, sizeof(a), tps);
        buf_printf(out, "  %s tps now", a);
    }
    if (isfinite(lat))
        buf_printf(out, "  latency %s ms", num(b, sizeof(b), lat));
    if (isfinite(el) && isfinite(rem))
        buf_printf(out, "  %.0f s of %.0f s", el, el + rem);
    else if (isfinite(el))
        buf_printf(out, "  %.0f s", el);
    if (isfinite(failed) && failed > 0)
        buf_printf(out, "  %.0f failed", failed);
    return out->err;
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

/* A side: runs [first, first + n) of the comparison. */
struct side {
    size_t first, n;
};

static void sides_of(const struct plugin_compare *c, struct side *sd)
{
    size_t at = 0;
    for (size_t s = 0; s < c->nsides; s++) {
        sd[s] = (struct side){at, c->side_n[s]};
        at += c->side_n[s];
    }
}

/* "a", or "a…c (3 runs)" for a side of several runs. */
static void side_name(const struct plugin_compare *c, const struct side *sd, char *out, size_t len)
{
    if (sd->n == 1)
        (void)snprintf(out, len, "%s", name_of(c->brs[sd->first]));
    else
        (void)snprintf(out, len, "%s…%s (%zu runs)", name_of(c->brs[sd->first]),
                       name_of(c->brs[sd->first + sd->n - 1]), sd->n);
}

/* The header row (the sides' names) and their phases (distinct phases joined by "/"). */
static int compare_head(struct table *t, const struct plugin_compare *c, const struct side *sd)
{
    table_set(t, 0, 0, "%s", "");
    table_set(t, 1, 0, "phase");
    for (size_t s = 0; s < c->nsides; s++) {
        char name[TCELL], ph[TCELL] = "";
        side_name(c, &sd[s], name, sizeof(name));
        table_set(t, 0, (int)s + 1, "%s", name);
        t->right[s + 1] = true;
        for (size_t i = sd[s].first; i < sd[s].first + sd[s].n; i++) {
            const char *p =
                api_phase_shown(bench_status_str(status_of(c->brs[i]), BK_STATUS_PHASE));
            if (!strstr(ph, p))
                (void)snprintf(ph + strlen(ph), sizeof(ph) - strlen(ph), "%s%s", ph[0] ? "/" : "",
                               p);
        }
        table_set(t, 1, (int)s + 1, "%s", ph);
    }
    return 2;
}

/* ---- the settings block: what each run ran, rows that differ marked */

/* One setting of run i into out ("" when the run does not say). */
typedef void (*setting_fn)(const struct plugin_compare *c, size_t i, const struct api_spec *sp,
                           char *out, size_t len);

static void set_clients(const struct plugin_compare *c, size_t i, const struct api_spec *sp,
                        char *out, size_t len)
{
    (void)c, (void)i;
    (void)snprintf(out, len, "%d", sp->clients);
}

static void set_threads(const struct plugin_compare *c, size_t i, const struct api_spec *sp,
                        char *out, size_t len)
{
    (void)c, (void)i;
    (void)snprintf(out, len, "%d", sp->threads);
}

static void set_workers(const struct plugin_compare *c, size_t i, const struct api_spec *sp,
                        char *out, size_t len)
{
    (void)c, (void)i;
    (void)snprintf(out, len, "%d", sp->workers);
}

static void set_protocol(const struct plugin_compare *c, size_t i, const struct api_spec *sp,
                         char *out, size_t len)
{
    (void)c, (void)i;
    (void)snprintf(out, len, "%s", sp->protocol ? sp->protocol : "");
}

/* The scale pgbench reported ("scaling factor"), else the one the run initialised. */
static void set_scale(const struct plugin_compare *c, size_t i, const struct api_spec *sp,
                      char *out, size_t len)
{
    const cJSON *v = bench_get(c->results[i], BK_PGBENCH_SCALE_FACTOR);
    if (!cJSON_IsNumber(v))
        v = bench_status_get(status_of(c->brs[i]), BK_PGBENCH_SCALE_FACTOR);
    if (cJSON_IsNumber(v))
        (void)snprintf(out, len, "%.0f", v->valuedouble);
    else if (sp->init)
        (void)snprintf(out, len, "%d", sp->scale);
}

static void set_duration(const struct plugin_compare *c, size_t i, const struct api_spec *sp,
                         char *out, size_t len)
{
    (void)c, (void)i;
    if (sp->duration_s > 0)
        (void)snprintf(out, len, "%ld s", sp->duration_s);
    else
        (void)snprintf(out, len, "%ld tx/client", sp->transactions);
}

/* builtin NAME and CONFIGMAP:KEY scripts, as pgbench's -b and -f name them; @W when there are
 * several (one script's weight changes nothing). */
static void set_script(const struct plugin_compare *c, size_t i, const struct api_spec *sp,
                       char *out, size_t len)
{
    (void)c, (void)i;
    size_t l = 0;
    bool weights = sp->n_scripts + (sp->builtin != NULL) > 1;
    out[0] = '\0';
    if (sp->builtin)
        l += (size_t)snprintf(out, len, "builtin %s", sp->builtin);
    if (sp->builtin && weights && sp->builtin_weight >= 0 && l < len)
        l += (size_t)snprintf(out + l, len - l, "@%d", sp->builtin_weight);
    for (int k = 0; k < sp->n_scripts && l < len; k++) {
        l += (size_t)snprintf(out + l, len - l, "%sscript %s:%s", l ? ", " : "",
                              sp->scripts[k].configmap, sp->scripts[k].key);
        if (weights && sp->scripts[k].weight >= 0 && l < len)
            l += (size_t)snprintf(out + l, len - l, "@%d", sp->scripts[k].weight);
    }
}

static void set_rate(const struct plugin_compare *c, size_t i, const struct api_spec *sp, char *out,
                     size_t len)
{
    (void)c, (void)i;
    if (sp->rate > 0) {
        util_fmt_double(out, len, sp->rate);
        (void)snprintf(out + strlen(out), len - strlen(out), " tps");
    } else {
        (void)snprintf(out, len, "unthrottled");
    }
}

static void set_target(const struct plugin_compare *c, size_t i, const struct api_spec *sp,
                       char *out, size_t len)
{
    const char *t = bench_status_str(status_of(c->brs[i]), BK_STATUS_TARGET);
    if (t)
        (void)snprintf(out, len, "%s", t);
    else
        (void)snprintf(out, len, "%s:%d/%s", sp->host, sp->port, sp->database);
}

static void set_server(const struct plugin_compare *c, size_t i, const struct api_spec *sp,
                       char *out, size_t len)
{
    (void)sp;
    const cJSON *v = bench_get(c->results[i], BK_SERVER_VERSION);
    (void)snprintf(out, len, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

static const struct {
    const char *label;
    setting_fn fn;
} settings[] = {
    {"target", set_target},         {"clients", set_clients},   {"threads", set_threads},
    {"workers", set_workers},       {"protocol", set_protocol}, {"scale", set_scale},
    {"duration", set_duration},     {"script", set_script},     {"rate", set_rate},
    {"server version", set_server},
};

/* A server setting the result carries (server.<name>: the SHOW values beside the contract's own
 * rows, version, database, ...) of run i, into out. */
static void server_setting(const struct plugin_compare *c, size_t i, const char *name, char *out,
                           size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(bench_get(c->results[i], BK_SERVER), name);
    (void)snprintf(out, len, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

/* The server settings of every run's result that the contract has no row for, in the order
 * first seen, into names (borrowed from the results). Returns their number. */
static int server_settings(const struct plugin_compare *c, const char **names, int max)
{
    int n = 0;
    for (size_t i = 0; i < c->n; i++) {
        const cJSON *it;
        cJSON_ArrayForEach(it, bench_get(c->results[i], BK_SERVER))
        {
            char path[200];
            (void)snprintf(path, sizeof(path), "%s.%s", bench_fields[BK_SERVER].path, it->string);
            bool dup = !cJSON_IsString(it) || bench_field_find(path, false);
            for (int k = 0; k < n && !dup; k++)
                dup = strcmp(names[k], it->string) == 0;
            if (!dup && n < max)
                names[n++] = it->string;
        }
    }
    return n;
}

/* One settings row: each side's value (its runs' distinct values joined by "/"), marked when
 * the runs do not all agree. vals[i] is run i's value. */
static void settings_row(struct table *t, int r, const char *label, const struct plugin_compare *c,
                         const struct side *sd, char (*vals)[TCELL])
{
    bool differs = false;
    for (size_t i = 1; i < c->n; i++)
        differs = differs || strcmp(vals[i], vals[0]) != 0;
    table_set(t, r, 0, "%s", label);
    t->kind[r] = differs ? ROW_MARKED : ROW_PLAIN;
    for (size_t s = 0; s < c->nsides; s++) {
        char cell[TCELL] = "";
        for (size_t i = sd[s].first; i < sd[s].first + sd[s].n; i++) {
            bool seen = false;
            for (size_t k = sd[s].first; k < i && !seen; k++)
                seen = strcmp(vals[k], vals[i]) == 0;
            if (!seen)
                (void)snprintf(cell + strlen(cell), sizeof(cell) - strlen(cell), "%s%s",
                               cell[0] ? "/" : "", vals[i][0] ? vals[i] : "-");
        }
        table_set(t, r, (int)s + 1, "%s", cell);
    }
}

#define MAX_SETTINGS 48

/* The settings block from row r: a section row, then the run settings and the server's.
 * Returns the next row. */
static int compare_settings(struct table *t, int r, const struct plugin_compare *c,
                            const struct side *sd)
{
    struct api_spec *sp = util_xcalloc(c->n, sizeof(*sp));
    bool *ok = util_xcalloc(c->n, sizeof(*ok));
    char(*vals)[TCELL] = util_xcalloc(c->n, sizeof(*vals));
    bool all = true;
    for (size_t i = 0; i < c->n; i++) {
        char err[300];
        ok[i] = api_spec_parse(cJSON_GetObjectItemCaseSensitive(c->brs[i], "spec"), &sp[i], err,
                               sizeof(err)) == 0 &&
                sp[i].workload == API_WL_PGBENCH;
        all = all && ok[i];
    }
    table_set(t, r, 0, "settings");
    t->kind[r++] = ROW_SECTION;
    for (size_t k = 0; k < sizeof(settings) / sizeof(settings[0]) && all; k++, r++) {
        for (size_t i = 0; i < c->n; i++) {
            vals[i][0] = '\0';
            settings[k].fn(c, i, &sp[i], vals[i], TCELL);
        }
        settings_row(t, r, settings[k].label, c, sd, vals);
    }
    const char *names[MAX_SETTINGS];
    int ns = server_settings(c, names, MAX_SETTINGS);
    for (int k = 0; k < ns; k++, r++) {
        for (size_t i = 0; i < c->n; i++)
            server_setting(c, i, names[k], vals[i], TCELL);
        settings_row(t, r, names[k], c, sd, vals);
    }
    for (size_t i = 0; i < c->n; i++)
        if (ok[i])
            api_spec_free(&sp[i]);
    free(sp);
    free(ok);
    free(vals);
    return r;
}

/* ---- the results block: each side's mean (± its runs' spread), deltas against the first */

/* A compared number of a run: its status field, or for Little's law the deviation computed from
 * status as the result's checks.littlesLaw is (status words it in a sentence). */
static double metric(const cJSON *br, enum bench_field_id id)
{
    return id == BK_CHECKS_LITTLES_LAW_DEVIATION_PCT ? api_status_littles_law_pct(status_of(br))
                                                     : snum(status_of(br), id);
}

/* How a side's number reads against the first side's: a ratio ("(0.93x)"), or for shares and
 * other percentages the difference in percentage points ("(+8.80 pp)"). */
enum delta { DELTA_RATIO, DELTA_PP };

/* The finite values among x[0..n) moved to the front; returns their number. */
static int finite_only(double *x, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(x[i]))
            x[m++] = x[i];
    return m;
}

/* A side's cell: its value (one run) or mean ± stddev (several), with unit, and from the second
 * side on its delta against base (the first side's mean). */
static void side_cell(struct table *t, int r, int col, const double *x, int n, double base,
                      const char *unit, enum delta d)
{
    double m, sd;
    char a[48], b[64], dl[48] = "";
    bench_mean_sd(x, n, &m, &sd);
    plugin_fmt_num(a, sizeof(a), n ? m : NAN);
    if (n > 1)
        (void)snprintf(b, sizeof(b), " ± %s", num(dl, sizeof(dl), sd));
    else
        b[0] = '\0';
    dl[0] = '\0';
    if (col > 1 && n && isfinite(base) && d == DELTA_PP)
        (void)snprintf(dl, sizeof(dl), " (%+.2f pp)", m - base);
    else if (col > 1 && n && isfinite(base) && base != 0)
        (void)snprintf(dl, sizeof(dl), " (%.2fx)", m / base);
    table_set(t, r, col, "%s%s%s%s", a, b, unit, dl);
}

/* One results row from the values of every run (vals[i] for run i). */
static void results_row(struct table *t, int r, const char *label, const struct side *sd,
                        size_t nsides, const double *vals, const char *unit, enum delta d)
{
    double x[PLUGIN_MAX_RUNS], base = NAN;
    table_set(t, r, 0, "%s", label);
    for (size_t s = 0; s < nsides; s++) {
        memcpy(x, vals + sd[s].first, sd[s].n * sizeof(*x));
        int n = finite_only(x, (int)sd[s].n);
        double m, dev;
        bench_mean_sd(x, n, &m, &dev);
        if (s == 0)
            base = n ? m : NAN;
        side_cell(t, r, (int)s + 1, x, n, base, unit, d);
    }
}

static const struct {
    const char *label, *unit;
    enum bench_field_id id;
    enum delta d;
} result_rows[] = {
    {"TPS", "", BK_SUMMARY_TPS, DELTA_RATIO},
    {"latency avg", " ms", BK_SUMMARY_LATENCY_AVG_MS, DELTA_RATIO},
    {"latency p50", " ms", BK_SUMMARY_LATENCY_P50_MS, DELTA_RATIO},
    {"latency p95", " ms", BK_SUMMARY_LATENCY_P95_MS, DELTA_RATIO},
    {"latency p99", " ms", BK_SUMMARY_LATENCY_P99_MS, DELTA_RATIO},
    {"transactions", "", BK_SUMMARY_TRANSACTIONS_PROCESSED, DELTA_RATIO},
    {"failed", "", BK_SUMMARY_FAILED_TRANSACTIONS, DELTA_RATIO},
    {"aborted clients", "", BK_SUMMARY_ABORTED_CLIENTS, DELTA_RATIO},
    {"Little's law deviation", " %", BK_CHECKS_LITTLES_LAW_DEVIATION_PCT, DELTA_PP},
};

/* The summary's numbers from row r (a section row first). Returns the next row. */
static int compare_metrics(struct table *t, int r, const struct plugin_compare *c,
                           const struct side *sd)
{
    double vals[PLUGIN_MAX_RUNS];
    table_set(t, r, 0, "results");
    t->kind[r++] = ROW_SECTION;
    for (size_t k = 0; k < sizeof(result_rows) / sizeof(result_rows[0]); k++, r++) {
        for (size_t i = 0; i < c->n; i++)
            vals[i] = metric(c->brs[i], result_rows[k].id);
        results_row(t, r, result_rows[k].label, sd, c->nsides, vals, result_rows[k].unit,
                    result_rows[k].d);
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

/* A row per wait event of any run, its share in each (0 when the run sampled others; shares
 * differ in percentage points), from row r. */
static void compare_waits(struct table *t, int r, const struct plugin_compare *c,
                          const struct side *sd)
{
    char seen[MAX_WAITS][128], label[160];
    struct bench_wait_share w[BENCH_DIAG_MAX_WAITS];
    double vals[PLUGIN_MAX_RUNS];
    int nseen = wait_union(c->brs, c->n, seen);
    for (int s = 0; s < nseen; s++, r++) {
        for (size_t i = 0; i < c->n; i++) {
            int nw = run_waits(c->brs[i], w);
            vals[i] = nw < 0 ? NAN : 0;
            for (int k = 0; k < nw; k++)
                if (strcmp(w[k].event, seen[s]) == 0)
                    vals[i] = w[k].pct;
        }
        (void)snprintf(label, sizeof(label), "wait %s", seen[s]);
        results_row(t, r, label, sd, c->nsides, vals, " %", DELTA_PP);
    }
}

/* ---- gates: against the first side, judged against the runs' own spread when there is one */

/* A side whose runs' standard deviation is more than this share of their mean (%) is too noisy
 * for "within noise" to mean the sides agree: the noise line says so. */
#define PLUGIN_NOISY_PCT 10

/* Side s's values of a summary field (finite ones) into x; returns their number. */
static int side_values(const struct plugin_compare *c, const struct side *sd,
                       enum bench_field_id id, double *x)
{
    for (size_t i = 0; i < sd->n; i++)
        x[i] = metric(c->brs[sd->first + i], id);
    return finite_only(x, (int)sd->n);
}

/* Whether side b's difference from side a in id is beyond the runs' spread: with two runs or more
 * on each side a Welch t-test (two-sided, p < 0.05), written to `notes` either way; true
 * (significant) without repeats, where there is no measure of noise. */
static bool beyond_noise(const struct plugin_compare *c, const struct side *a, const struct side *b,
                         enum bench_field_id id, const char *what, struct buf *notes)
{
    double xa[PLUGIN_MAX_RUNS], xb[PLUGIN_MAX_RUNS];
    int na = side_values(c, a, id, xa), nb = side_values(c, b, id, xb);
    struct bench_welch w;
    if (bench_welch(xa, na, xb, nb, &w) != 0)
        return true;
    char an[TCELL], bn[TCELL], ma[48], sa[48], mb[48], sb[48];
    side_name(c, a, an, sizeof(an));
    side_name(c, b, bn, sizeof(bn));
    double pct = w.mean_a != 0 ? (w.mean_b - w.mean_a) / fabs(w.mean_a) * 100 : NAN;
    bool sig = w.p < 0.05;
    buf_printf(notes,
               "%s: %s %s ± %s against %s %s ± %s (%+.1f %%): %s (Welch t %.2f, df %.1f, p "
               "%.3f)\n",
               what, bn, num(mb, sizeof(mb), w.mean_b), num(sb, sizeof(sb), w.sd_b), an,
               num(ma, sizeof(ma), w.mean_a), num(sa, sizeof(sa), w.sd_a), pct,
               sig ? "beyond noise" : "within noise", -w.t, w.df, w.p);
    /* within noise because a side is all noise: say so, a large drop must not look judged */
    double cv = fmax(w.sd_a / fabs(w.mean_a), w.sd_b / fabs(w.mean_b)) * 100;
    if (!sig && isfinite(cv) && cv > PLUGIN_NOISY_PCT)
        buf_printf(notes,
                   "%s: the runs spread by up to %.0f %% of their mean (sd/mean): too noisy to "
                   "judge; give more or longer runs, or a fixed rate (-R)\n",
                   what, cv);
    return sig;
}

/* --fail-if-tps-drops and --fail-if-p99-grows, each side against the first (means with
 * repeats): a line in verdict for each side that crosses one beyond noise, and *failed. With
 * repeats every side's TPS and p99 difference is judged against the noise in notes. */
static int compare_thresholds(const struct plugin_compare *c, const struct side *sd,
                              struct buf *notes, struct buf *verdict, bool *failed)
{
    const struct plugin_thresholds *th = &c->th;
    double x[PLUGIN_MAX_RUNS], m, dev;
    bench_mean_sd(x, side_values(c, &sd[0], BK_SUMMARY_TPS, x), &m, &dev);
    double tps0 = m;
    bench_mean_sd(x, side_values(c, &sd[0], BK_SUMMARY_LATENCY_P99_MS, x), &m, &dev);
    double p990 = m;
    char n0[TCELL], ni[TCELL];
    side_name(c, &sd[0], n0, sizeof(n0));
    for (size_t s = 1; s < c->nsides && !notes->err && !verdict->err; s++) {
        side_name(c, &sd[s], ni, sizeof(ni));
        int nt = side_values(c, &sd[s], BK_SUMMARY_TPS, x);
        bench_mean_sd(x, nt, &m, &dev);
        double tps = nt ? m : NAN;
        int np = side_values(c, &sd[s], BK_SUMMARY_LATENCY_P99_MS, x);
        bench_mean_sd(x, np, &m, &dev);
        double p99 = np ? m : NAN;
        bool tps_sig = beyond_noise(c, &sd[0], &sd[s], BK_SUMMARY_TPS, "TPS", notes);
        bool p99_sig = beyond_noise(c, &sd[0], &sd[s], BK_SUMMARY_LATENCY_P99_MS, "p99", notes);
        if (th->tps_drop_pct >= 0 && isfinite(tps0) && tps0 > 0) {
            double drop = (tps0 - tps) / tps0 * 100;
            if (!isfinite(tps) || (drop > th->tps_drop_pct && tps_sig)) {
                *failed = true;
                buf_printf(verdict,
                           "%s: TPS %.1f is %.1f %% below %s's %.1f (--fail-if-tps-drops %g)\n", ni,
                           tps, drop, n0, tps0, th->tps_drop_pct);
            } else if (drop > th->tps_drop_pct) {
                buf_printf(notes,
                           "%s: TPS %.1f is %.1f %% below %s's %.1f, within noise: "
                           "--fail-if-tps-drops %g not applied\n",
                           ni, tps, drop, n0, tps0, th->tps_drop_pct);
            }
        }
        if (th->p99_grow_pct >= 0 && isfinite(p990) && p990 > 0) {
            double grow = (p99 - p990) / p990 * 100;
            if (!isfinite(p99) || (grow > th->p99_grow_pct && p99_sig)) {
                *failed = true;
                buf_printf(verdict,
                           "%s: p99 %.3f ms is %.1f %% above %s's %.3f ms (--fail-if-p99-grows "
                           "%g)\n",
                           ni, p99, grow, n0, p990, th->p99_grow_pct);
            } else if (grow > th->p99_grow_pct) {
                buf_printf(notes,
                           "%s: p99 %.3f ms is %.1f %% above %s's %.3f ms, within noise: "
                           "--fail-if-p99-grows %g not applied\n",
                           ni, p99, grow, n0, p990, th->p99_grow_pct);
            }
        }
    }
    return notes->err ? notes->err : verdict->err;
}

/* The verdict's class of each side's runs (status.diagnostics.verdictClass; distinct ones joined
 * by "/"), in row r. */
static int compare_verdicts(struct table *t, int r, const struct plugin_compare *c,
                            const struct side *sd)
{
    table_set(t, r, 0, "verdict");
    for (size_t s = 0; s < c->nsides; s++) {
        char cell[TCELL] = "";
        for (size_t i = sd[s].first; i < sd[s].first + sd[s].n; i++) {
            int k = bench_verdict_status_class(status_of(c->brs[i]));
            const char *name = k >= 0 ? bench_verdict_classes[k].name : "-";
            if (!strstr(cell, name))
                (void)snprintf(cell + strlen(cell), sizeof(cell) - strlen(cell), "%s%s",
                               cell[0] ? "/" : "", name);
        }
        table_set(t, r, (int)s + 1, "%s", cell);
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
    cJSON *r = cJSON_CreateObject(), *shares = cJSON_CreateObject();
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

/* "why B against A: ..." for each side against the first (bench_verdict_explain), from the
 * first run of each side. */
static int compare_why(struct buf *out, const struct plugin_compare *c, const struct side *sd)
{
    double a[BENCH_EV__COUNT], b[BENCH_EV__COUNT];
    char an[TCELL], bn[TCELL];
    size_t f0 = sd[0].first;
    run_evidence(c->brs[f0], c->results ? c->results[f0] : NULL, a);
    side_name(c, &sd[0], an, sizeof(an));
    for (size_t s = 1; s < c->nsides && !out->err; s++) {
        size_t f = sd[s].first;
        run_evidence(c->brs[f], c->results ? c->results[f] : NULL, b);
        side_name(c, &sd[s], bn, sizeof(bn));
        buf_printf(out, "why %s against %s: ", bn, an);
        bench_verdict_explain(out, a, b, NULL);
        buf_puts(out, "\n");
    }
    return out->err;
}

/* Lines under the table: text as it is, HTML in a wrapping <pre> with id. */
static int table_notes(struct buf *out, const struct buf *notes, bool html, const char *id)
{
    if (!notes->len)
        return 0;
    if (!html)
        return buf_printf(out, "\n%s", notes->data);
    buf_printf(out, "<pre class=\"wrap\" id=\"%s\">", id);
    buf_put_html(out, notes->data);
    return buf_puts(out, "</pre>\n");
}

int plugin_compare_table(struct buf *out, const struct plugin_compare *c, bool html,
                         struct buf *verdict, bool *failed)
{
    *failed = false;
    size_t total = 0;
    for (size_t s = 0; s < c->nsides; s++)
        total += c->side_n[s];
    if (c->nsides < 2 || c->nsides > TCOLS - 1 || total != c->n || c->n > PLUGIN_MAX_RUNS)
        return -EINVAL;
    struct side sd[TCOLS];
    sides_of(c, sd);
    struct table *t = table_new((int)c->nsides + 1);
    t->marks = true;
    int r = compare_head(t, c, sd);
    r = compare_settings(t, r, c, sd);
    r = compare_metrics(t, r, c, sd);
    r = compare_verdicts(t, r, c, sd);
    compare_waits(t, r, c, sd);
    struct buf why = BUF_INIT(1 << 20), notes = BUF_INIT(1 << 20);
    /* the lines under the table first: when they fail, nothing is written */
    int rc = compare_why(&why, c, sd);
    if (!rc)
        rc = compare_thresholds(c, sd, &notes, verdict, failed);
    if (!rc) {
        if (html)
            table_emit_html(out, t, "compare");
        else
            table_emit(out, t, "");
        bool marked = false;
        for (int k = 0; k < t->nrows; k++)
            marked = marked || t->kind[k] == ROW_MARKED;
        if (!html && marked)
            buf_puts(out, "* the runs differ in this setting\n");
        table_notes(out, &why, html, "why");
        table_notes(out, &notes, html, "noise");
        rc = out->err;
    }
    buf_free(&why);
    buf_free(&notes);
    free(t);
    return rc;
}

/* ---- export ----------------------------------------------------------------------------- */

double plugin_warmup_s(const cJSON *br, const cJSON *result)
{
    double w = bench_num(result, BK_WARMUP_SECONDS);
    if (isfinite(w))
        return w;
    const cJSON *v = bench_json_at(cJSON_GetObjectItemCaseSensitive(br, "spec"),
                                   "workload.pgbench.run.warmupSeconds");
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

void plugin_statements_cover(char *out, size_t len, const cJSON *br, const cJSON *result)
{
    double w = plugin_warmup_s(br, result);
    if (w > 0)
        (void)snprintf(out, len,
                       "the whole run, its first %g s of warm-up included (pgbench -r averages "
                       "over the whole run; the summary and percentiles cover the steady window "
                       "only)",
                       w);
    else
        (void)snprintf(out, len, "the whole run (pgbench -r)");
}

static const struct {
    const char *name;
    enum bench_field_id list;
} tables[] = {
    {"timeline", BK_TIMELINE},
    {"statements", BK_STATEMENTS},
    {"workers", BK_WORKERS},
    {"fio", BK_FIO_JOBS},
};

/* Exported numbers: what a double holds of a decimal (util_jround). */
#define EXPORT_DIGITS 15

/* A CSV field (numbers rounded to EXPORT_DIGITS): quoted when it holds a comma, quote or line
 * break. */
static int csv_field(struct buf *out, const cJSON *v)
{
    if (!v || cJSON_IsNull(v))
        return 0;
    if (cJSON_IsNumber(v)) {
        char b[40];
        util_fmt_double(b, sizeof(b), util_round_digits(v->valuedouble, EXPORT_DIGITS));
        return buf_puts(out, b);
    }
    if (cJSON_IsBool(v))
        return buf_puts(out, cJSON_IsTrue(v) ? "true" : "false");
    const char *s = cJSON_IsString(v) ? v->valuestring : "";
    if (!strpbrk(s, ",\"\r\n"))
        return buf_puts(out, s);
    buf_puts(out, "\"");
    for (const char *p = s; *p && !out->err; p++) {
        if (*p == '"')
            buf_puts(out, "\"\"");
        else
            buf_append(out, p, 1);
    }
    return buf_puts(out, "\"");
}

/* The contract rows that are fields of a status list ("fio[].x"), in table order; the
 * timeline's are the result rows of status' timeline series; a list status keeps as lines
 * (workers, statements) has the result's rows ("workers[].x"). */
static int list_columns(enum bench_field_id list, enum bench_field_id *cols, int max)
{
    const char *lp = bench_fields[list].status;
    int n = 0;
    if (list == BK_TIMELINE) /* status' series first, then every other member of a point */
        for (size_t k = 0; k < bench_ntimeline_series && n < max; k++)
            cols[n++] = bench_timeline_series[k].result;
    if (!lp) {
        for (size_t i = 0; i < bench_nfields && n < max; i++) {
            const char *rest = bench_fields[i].path ? bench_field_under(bench_fields[i].path,
                                                                        bench_fields[list].path)
                                                    : NULL;
            bool dup = false;
            for (int k = 0; k < n && !dup; k++)
                dup = cols[k] == (enum bench_field_id)i;
            if (rest && !strchr(rest, '.') && bench_fields[i].type != BF_SECTION && !dup)
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

/* A field the table adds to a row (the run's name, what the rows cover), then sep; without the
 * field, only a row's end. */
static void csv_extra(struct buf *out, const cJSON *v, const char *sep)
{
    if (v)
        csv_field(out, v);
    if (v || strcmp(sep, "\n") == 0)
        buf_puts(out, sep);
}

/* A table's columns are the status rows of the list; an item of the result is read at the same
 * row's result path. run: the run's name in a first column "run" (several runs), or NULL. */
static int csv_table(struct buf *out, const cJSON *st, const cJSON *result,
                     enum bench_field_id list, const char *run, bool header, const char *covers)
{
    bool res;
    const cJSON *items = table_items(st, result, list, &res);
    bool lines = !res && !bench_fields[list].status; /* status' lines: one column */
    enum bench_field_id cols[64];
    int nc = lines ? 1 : list_columns(list, cols, 64);
    if (header) {
        if (run)
            buf_puts(out, "run,");
        for (int c = 0; c < nc; c++)
            buf_printf(out, "%s%s", c ? "," : "", lines ? "line" : column_key(cols[c]));
        buf_puts(out, covers ? ",covers\n" : "\n");
    }
    cJSON *name = run ? util_must(cJSON_CreateString(run)) : NULL;
    cJSON *cov = covers ? util_must(cJSON_CreateString(covers)) : NULL;
    const cJSON *it;
    if (cJSON_IsArray(items))
        cJSON_ArrayForEach(it, items)
        {
            csv_extra(out, name, ",");
            for (int c = 0; c < nc; c++) {
                if (c)
                    buf_puts(out, ",");
                const cJSON *v = lines ? it
                                 : res ? bench_get(it, cols[c])
                                       : bench_status_get(it, cols[c]);
                csv_field(out, v);
            }
            if (cov)
                buf_puts(out, ",");
            csv_extra(out, cov, "\n");
        }
    cJSON_Delete(name);
    cJSON_Delete(cov);
    return out->err;
}

/* A list for the JSON export, its items keyed as in status (a result's items are projected on
 * the status columns, so both sources export the same keys). */
static cJSON *export_list(const cJSON *items, bool from_result, enum bench_field_id list)
{
    if (!from_result)
        return util_must(cJSON_Duplicate(items, 1));
    enum bench_field_id cols[64];
    int nc = list_columns(list, cols, 64);
    cJSON *a = cJSON_CreateArray();
    const cJSON *it;
    cJSON_ArrayForEach(it, items)
    {
        cJSON *row = cJSON_CreateObject();
        for (int c = 0; c < nc; c++) {
            const cJSON *v = bench_get(it, cols[c]);
            if (v)
                cJSON_AddItemToObject(row, column_key(cols[c]), util_must(cJSON_Duplicate(v, 1)));
        }
        cJSON_AddItemToArray(a, row);
    }
    return a;
}

/* One run's export object: name, phase, source, summary, and the tables (only `table` when
 * set). lists: the result, or status' series in the result's shape. */
static cJSON *export_object(const cJSON *br, const cJSON *result, const cJSON *lists,
                            const char *table)
{
    const cJSON *st = status_of(br);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name_of(br));
    cJSON_AddStringToObject(o, "phase", api_phase_shown(bench_status_str(st, BK_STATUS_PHASE)));
    cJSON_AddStringToObject(o, "source", result ? "result" : "status");
    const cJSON *sum = bench_status_get(st, BK_SUMMARY);
    cJSON_AddItemToObject(o, bench_status_key(BK_SUMMARY),
                          sum ? cJSON_Duplicate(sum, 1) : cJSON_CreateNull());
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
        if (table && strcmp(table, tables[i].name) != 0)
            continue;
        bool res;
        const cJSON *l = table_items(st, lists, tables[i].list, &res);
        cJSON_AddItemToObject(o, tables[i].name,
                              l ? export_list(l, res, tables[i].list) : cJSON_CreateArray());
        if (tables[i].list == BK_STATEMENTS && cJSON_GetArraySize(l) > 0) {
            char cover[256];
            plugin_statements_cover(cover, sizeof(cover), br, result);
            cJSON_AddStringToObject(o, "statementsCover", cover);
        }
    }
    return o;
}

/* The result's lists, with status' timeline series where it has no timeline (owned). */
static cJSON *lists_of(const cJSON *br, const cJSON *result)
{
    cJSON *lists = result ? cJSON_Duplicate(result, 1) : cJSON_CreateObject();
    cJSON *tl = bench_get(lists, BK_TIMELINE) ? NULL : bench_series_timeline(status_of(br));
    if (tl && bench_put(lists, BK_TIMELINE, tl) != 0)
        abort(); /* an assertion, not allocation: lists is an object and the row has one key */
    return lists;
}

/* ---- the summary table: one row per run */

/* The summary columns: the contract's summary rows, TPS and the latency percentiles first. */
static int summary_columns(enum bench_field_id *cols, int max)
{
    static const enum bench_field_id first[] = {
        BK_SUMMARY_TPS, BK_SUMMARY_LATENCY_AVG_MS, BK_SUMMARY_LATENCY_P50_MS,
        BK_SUMMARY_LATENCY_P95_MS, BK_SUMMARY_LATENCY_P99_MS};
    int n = 0;
    for (size_t k = 0; k < sizeof(first) / sizeof(first[0]) && n < max; k++)
        cols[n++] = first[k];
    for (size_t i = 0; i < bench_nfields && n < max; i++) {
        const char *p = bench_fields[i].path;
        const char *rest = p && strncmp(p, "summary.", 8) == 0 ? p + 8 : NULL;
        bool dup = false;
        for (int k = 0; k < n && !dup; k++)
            dup = cols[k] == (enum bench_field_id)i;
        if (rest && !strchr(rest, '.') && !dup &&
            (bench_fields[i].type == BF_NUM || bench_fields[i].type == BF_INT))
            cols[n++] = (enum bench_field_id)i;
    }
    return n;
}

/* "server version" -> "serverVersion" */
static void camel(const char *label, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = label; *p && o + 1 < len; p++) {
        if (*p == ' ' && p[1]) {
            p++;
            out[o++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        } else {
            out[o++] = *p;
        }
    }
    out[o] = '\0';
}

/* One row per run: name, phase, the settings compare shows, then the summary's numbers (from
 * the result when there is one, else status). A setting that is a whole number is a number. */
static cJSON *summary_rows(const cJSON *const *brs, const cJSON *const *results, size_t n)
{
    struct plugin_compare c = {.brs = brs, .results = results, .n = n};
    enum bench_field_id cols[64];
    int nc = summary_columns(cols, 64);
    cJSON *rows = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *row = cJSON_CreateObject();
        const cJSON *st = status_of(brs[i]);
        cJSON_AddStringToObject(row, "run", name_of(brs[i]));
        cJSON_AddStringToObject(row, "phase",
                                api_phase_shown(bench_status_str(st, BK_STATUS_PHASE)));
        struct api_spec sp;
        char err[300], key[64], v[TCELL];
        bool ok = api_spec_parse(cJSON_GetObjectItemCaseSensitive(brs[i], "spec"), &sp, err,
                                 sizeof(err)) == 0;
        for (size_t k = 0; k < sizeof(settings) / sizeof(settings[0]); k++) {
            camel(settings[k].label, key, sizeof(key));
            v[0] = '\0';
            if (ok && sp.workload == API_WL_PGBENCH)
                settings[k].fn(&c, i, &sp, v, sizeof(v));
            char *end;
            double d = strtod(v, &end);
            cJSON_AddItemToObject(row, key,
                                  util_must(!v[0]          ? cJSON_CreateNull()
                                            : *end == '\0' ? cJSON_CreateNumber(d)
                                                           : cJSON_CreateString(v)));
        }
        if (ok)
            api_spec_free(&sp);
        for (int k = 0; k < nc; k++) {
            const cJSON *x = results[i] ? bench_get(results[i], cols[k]) : NULL;
            if (!x && bench_fields[cols[k]].status)
                x = bench_status_get(st, cols[k]);
            cJSON_AddItemToObject(row, bench_key(cols[k]),
                                  cJSON_IsNumber(x) ? cJSON_Duplicate(x, 0) : cJSON_CreateNull());
        }
        cJSON_AddItemToArray(rows, row);
    }
    return rows;
}

/* rows (an array of objects with the same keys) as CSV with a header row. */
static int csv_rows(struct buf *out, const cJSON *rows)
{
    const cJSON *first = cJSON_GetArrayItem(rows, 0), *it, *v;
    bool comma = false;
    cJSON_ArrayForEach(v, first)
    {
        buf_printf(out, "%s%s", comma ? "," : "", v->string);
        comma = true;
    }
    buf_puts(out, "\n");
    cJSON_ArrayForEach(it, rows)
    {
        comma = false;
        cJSON_ArrayForEach(v, it)
        {
            if (comma)
                buf_puts(out, ",");
            csv_field(out, v);
            comma = true;
        }
        buf_puts(out, "\n");
    }
    return out->err;
}

/* JSON (two-space indent) or YAML of a tree, its numbers rounded to EXPORT_DIGITS. */
static int tree_out(struct buf *out, cJSON *o, const char *format)
{
    util_jround(o, EXPORT_DIGITS);
    return strcmp(format, "yaml") == 0 ? plugin_yaml_append(out, o, 0) : util_json_print(out, o);
}

/* format is csv, json or yaml, and table NULL, "summary" or one of tables[]. */
static bool export_valid(const char *format, const char *table)
{
    bool known = !table || strcmp(table, "summary") == 0;
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && !known; i++)
        known = strcmp(tables[i].name, table) == 0;
    return known && (strcmp(format, "csv") == 0 || strcmp(format, "json") == 0 ||
                     strcmp(format, "yaml") == 0);
}

/* JSON or YAML: one run's object, or with several an array of them. */
static int export_trees(struct buf *out, const cJSON *const *brs, const cJSON *const *results,
                        cJSON *const *lists, size_t n, const char *format, const char *table)
{
    cJSON *all = n > 1 ? cJSON_CreateArray() : NULL, *one = NULL;
    for (size_t i = 0; i < n; i++) {
        one = export_object(brs[i], results[i], lists[i], table);
        if (all)
            cJSON_AddItemToArray(all, one);
    }
    int rc = tree_out(out, all ? all : one, format);
    cJSON_Delete(all ? all : one);
    return rc;
}

/* CSV: the table asked for, else every table some run has rows in, separated by a blank line;
 * with several runs a first column "run". */
static int export_csv(struct buf *out, const cJSON *const *brs, cJSON *const *lists, size_t n,
                      const char *table)
{
    int done = 0;
    for (size_t k = 0; k < sizeof(tables) / sizeof(tables[0]) && !out->err; k++) {
        bool res, any = false;
        for (size_t i = 0; i < n; i++)
            any = any || cJSON_GetArraySize(
                             table_items(status_of(brs[i]), lists[i], tables[k].list, &res)) > 0;
        if (table ? strcmp(table, tables[k].name) != 0 : !any)
            continue;
        if (done++)
            buf_puts(out, "\n");
        for (size_t i = 0; i < n; i++) {
            char cover[256];
            plugin_statements_cover(cover, sizeof(cover), brs[i], lists[i]);
            csv_table(out, status_of(brs[i]), lists[i], tables[k].list,
                      n > 1 ? name_of(brs[i]) : NULL, i == 0,
                      tables[k].list == BK_STATEMENTS ? cover : NULL);
        }
    }
    return out->err;
}

int plugin_export(struct buf *out, const cJSON *const *brs, const cJSON *const *results, size_t n,
                  const char *format, const char *table)
{
    if (!export_valid(format, table) || n == 0)
        return -EINVAL;
    bool csv = strcmp(format, "csv") == 0;
    int rc = 0;
    if (table && strcmp(table, "summary") == 0) {
        cJSON *rows = summary_rows(brs, results, n);
        rc = csv ? csv_rows(out, rows) : tree_out(out, rows, format);
        cJSON_Delete(rows);
        return rc;
    }
    cJSON *lists[PLUGIN_MAX_RUNS] = {0};
    if (n > PLUGIN_MAX_RUNS)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        lists[i] = lists_of(brs[i], results[i]);
    rc = csv ? export_csv(out, brs, lists, n, table)
             : export_trees(out, brs, results, lists, n, format, table);
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(lists[i]);
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
