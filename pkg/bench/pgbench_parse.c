/* Parser of pgbench's console output (pgbench 12 to 19), fed line by line.
 *
 * The final report is a sequence of "key: value" / "key = value" lines; per-script blocks start
 * with "SQL script N: name" and continue with " - " lines; statement blocks start with a
 * "statement latencies in milliseconds[ and failures| , failures and retries]:" header and run
 * while lines begin with whitespace and a number. Everything else is an error line (collected;
 * the tab-indented lines libpq continues a message with join it), a progress line (timeline) or
 * ignored (counted in lines_unknown). */
#include "pkg/bench/pgbench.h"
#include "pkg/bench/text.h"
#include "pkg/util/mem.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ABORTED_IDS 100000

struct linebuf {
    char *data;
    size_t len;
    int truncated;
};

struct bench_pgbench_parse_state {
    struct linebuf streams[2];
    int cur_script;       /* -1 outside a per-script block */
    int in_statements;    /* inside a statement-latency block */
    int stmt_columns;     /* 0, 1 (failures) or 2 (failures and retries) */
    int stmt_script;      /* script index statements belong to */
    int64_t *aborted_ids; /* sorted distinct client ids of abort lines */
    size_t naborted_ids;
    /* per stream: the error the last line became (index into errors), ERR_NONE when the last
     * line was no error, ERR_DROPPED when it was one beyond the cap; tab-indented lines after
     * an error continue it (libpq's multi-line messages) */
    long err_cont[2];
};

#define ERR_NONE (-1)
#define ERR_DROPPED (-2)

struct bench_pgbench_result *bench_pgbench_result_new(void)
{
    struct bench_pgbench_result *r = util_xcalloc(1, sizeof(*r));
    r->priv = util_xcalloc(1, sizeof(*r->priv));
    r->priv->cur_script = -1;
    r->priv->err_cont[0] = r->priv->err_cont[1] = ERR_NONE;
    r->scale_factor = -1;
    r->clients = r->threads = -1;
    r->max_tries = -1;
    r->duration_s = -1;
    r->transactions_per_client = -1;
    r->transactions = r->transactions_target = -1;
    r->failed = -1;
    r->failed_pct = NAN;
    r->serialization_failures = r->deadlock_failures = r->other_failures = -1;
    r->partitions = -1;
    r->retried = r->retries = -1;
    r->skipped = -1;
    r->above_latency_limit = -1;
    r->latency_limit_ms = NAN;
    r->tps = r->tps_including_connect = NAN;
    r->latency_avg_ms = r->latency_stddev_ms = NAN;
    r->initial_connection_ms = NAN;
    r->average_connection_ms = NAN;
    r->rate_lag_avg_ms = r->rate_lag_stddev_ms = r->rate_lag_max_ms = NAN;
    return r;
}

void bench_pgbench_result_free(struct bench_pgbench_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nstatements; i++)
        free(r->statements[i].command);
    free(r->statements);
    for (size_t i = 0; i < r->nscripts; i++)
        free(r->scripts[i].name);
    free(r->scripts);
    for (size_t i = 0; i < r->nerrors; i++)
        free(r->errors[i]);
    free(r->errors);
    free(r->timeline);
    if (r->priv) {
        free(r->priv->streams[0].data);
        free(r->priv->streams[1].data);
        free(r->priv->aborted_ids);
        free(r->priv);
    }
    free(r);
}

/* ---- progress lines ---- */

int bench_pgbench_parse_progress(const char *line, size_t len, struct bench_timeline_point *out)
{
    char buf[512];
    if (len >= sizeof(buf))
        return -EINVAL;
    memcpy(buf, line, len);
    buf[len] = '\0';
    const char *p = buf;
    bench__take(&p, "pgbench: ");
    if (!bench__take(&p, "progress: "))
        return -EINVAL;
    struct bench_timeline_point pt = {0};
    pt.failed = pt.skipped = pt.retried = pt.retries = -1;
    pt.lag_ms = NAN;
    if (bench__double(&p, &pt.t) || !bench__take(&p, " s, ") || bench__double(&p, &pt.tps) ||
        !bench__take(&p, " tps, lat ") || bench__double(&p, &pt.latency_ms) ||
        !bench__take(&p, " ms stddev ") || bench__double(&p, &pt.stddev_ms))
        return -EINVAL;
    while (*p) {
        if (!bench__take(&p, ", "))
            return -EINVAL;
        if (bench__take(&p, "lag ")) {
            if (bench__double(&p, &pt.lag_ms) || !bench__take(&p, " ms"))
                return -EINVAL;
            continue;
        }
        int64_t n;
        if (bench__int64(&p, &n) || n < 0)
            return -EINVAL;
        if (bench__take(&p, " failed"))
            pt.failed = n;
        else if (bench__take(&p, " skipped"))
            pt.skipped = n;
        else if (bench__take(&p, " retried"))
            pt.retried = n;
        else if (bench__take(&p, " retries"))
            pt.retries = n;
        else
            return -EINVAL;
    }
    if (!isfinite(pt.t) || !(pt.tps >= 0))
        return -EINVAL;
    *out = pt;
    return 0;
}

/* ---- list helpers ---- */

static void add_error(struct bench_pgbench_result *r, const char *line, size_t len)
{
    if (r->nerrors >= BENCH_PGBENCH_MAX_ERRORS) {
        r->errors_dropped++;
        return;
    }
    if (r->nerrors % 16 == 0)
        r->errors = util_xrealloc(r->errors, (r->nerrors + 16) * sizeof(*r->errors));
    r->errors[r->nerrors++] = bench__strndup_message(line, len, BENCH_PGBENCH_MAX_ERROR_LEN);
}

/* Appends a continuation line ("\tThis probably means the server terminated abnormally") to
 * errors[idx] after one space, within the cap of BENCH_PGBENCH_MAX_ERROR_LEN. */
static void continue_error(struct bench_pgbench_result *r, size_t idx, const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    size_t olen = strlen(r->errors[idx]);
    if (!*p || olen + 2 >= BENCH_PGBENCH_MAX_ERROR_LEN)
        return;
    char *s = util_xrealloc(r->errors[idx], BENCH_PGBENCH_MAX_ERROR_LEN);
    r->errors[idx] = s;
    s[olen] = ' ';
    bench__copy_message(s + olen + 1, BENCH_PGBENCH_MAX_ERROR_LEN - olen - 1, p, strlen(p));
    if (!s[olen + 1])
        s[olen] = '\0';
}

static void add_timeline(struct bench_pgbench_result *r, const struct bench_timeline_point *pt)
{
    if (r->ntimeline >= BENCH_PGBENCH_MAX_TIMELINE) {
        r->timeline_dropped++;
        return;
    }
    if (r->ntimeline % 64 == 0)
        r->timeline = util_xrealloc(r->timeline, (r->ntimeline + 64) * sizeof(*r->timeline));
    r->timeline[r->ntimeline++] = *pt;
}

static struct bench_pgbench_script_stats *script_at(struct bench_pgbench_result *r, int idx)
{
    for (size_t i = 0; i < r->nscripts; i++)
        if (r->scripts[i].script == idx)
            return &r->scripts[i];
    return NULL;
}

static void add_script(struct bench_pgbench_result *r, int idx, const char *name, size_t n)
{
    if (script_at(r, idx) || r->nscripts >= 128)
        return;
    r->scripts = util_xrealloc(r->scripts, (r->nscripts + 1) * sizeof(*r->scripts));
    struct bench_pgbench_script_stats *st = &r->scripts[r->nscripts];
    memset(st, 0, sizeof(*st));
    st->script = idx;
    st->weight = -1;
    st->transactions = -1;
    st->failed = -1;
    st->tps = st->latency_avg_ms = st->latency_stddev_ms = NAN;
    st->name = bench__strndup_clean(name, n, 1024);
    r->nscripts++;
}

/* Records a distinct aborted client id; returns 1 when new. */
static int note_aborted(struct bench_pgbench_parse_state *st, int64_t id)
{
    size_t lo = 0, hi = st->naborted_ids;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (st->aborted_ids[mid] == id)
            return 0;
        if (st->aborted_ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (st->naborted_ids >= MAX_ABORTED_IDS)
        return 1;
    if (st->naborted_ids % 32 == 0)
        st->aborted_ids =
            util_xrealloc(st->aborted_ids, (st->naborted_ids + 32) * sizeof(*st->aborted_ids));
    memmove(st->aborted_ids + lo + 1, st->aborted_ids + lo,
            (st->naborted_ids - lo) * sizeof(int64_t));
    st->aborted_ids[lo] = id;
    st->naborted_ids++;
    return 1;
}

/* "client N ... aborted ..." (all versions) -> client id, else -1. */
static int64_t aborted_client(const char *p)
{
    int64_t id;
    if (!bench__take(&p, "client ") || bench__int64(&p, &id) || id < 0)
        return -1;
    if (!strstr(p, " aborted"))
        return -1;
    return id;
}

/* ---- statement lines ---- */

static int parse_statement(struct bench_pgbench_result *r, const char *p)
{
    struct bench_pgbench_parse_state *st = r->priv;
    struct bench_pgbench_statement s = {0};
    s.failures = s.retries = -1;
    s.script = st->stmt_script;
    bench__skip_spaces(&p);
    if (bench__double(&p, &s.latency_ms))
        return -EINVAL;
    if (st->stmt_columns >= 1) {
        bench__skip_spaces(&p);
        if (bench__int64(&p, &s.failures))
            return -EINVAL;
    }
    if (st->stmt_columns >= 2) {
        bench__skip_spaces(&p);
        if (bench__int64(&p, &s.retries))
            return -EINVAL;
    }
    if (*p != ' ' && *p != '\t')
        return -EINVAL;
    bench__skip_spaces(&p);
    if (r->nstatements >= BENCH_PGBENCH_MAX_STATEMENTS) {
        r->statements_dropped++;
        return 0;
    }
    if (r->nstatements % 16 == 0)
        r->statements =
            util_xrealloc(r->statements, (r->nstatements + 16) * sizeof(*r->statements));
    s.command = bench__strndup_clean(p, strlen(p), 4096);
    r->statements[r->nstatements++] = s;
    return 0;
}

static int stmt_header(struct bench_pgbench_parse_state *st, const char *p)
{
    if (!bench__take(&p, "statement latencies in milliseconds"))
        return 0;
    if (!strcmp(p, ":"))
        st->stmt_columns = 0;
    else if (!strcmp(p, " and failures:"))
        st->stmt_columns = 1;
    else if (!strcmp(p, ", failures and retries:"))
        st->stmt_columns = 2;
    else
        return 0;
    st->in_statements = 1;
    st->stmt_script = st->cur_script < 0 ? 0 : st->cur_script;
    return 1;
}

/* "N (x%)" */
static int count_pct(const char *p, int64_t *n, double *pct)
{
    if (bench__int64(&p, n))
        return -EINVAL;
    if (pct && bench__take(&p, " (")) {
        double v;
        if (!bench__double(&p, &v))
            *pct = v;
    }
    return 0;
}

/* Lines of a per-script block (after " - "). */
static int script_line(struct bench_pgbench_result *r, const char *p)
{
    struct bench_pgbench_script_stats *s = script_at(r, r->priv->cur_script);
    int64_t n;
    double d;
    if (stmt_header(r->priv, p))
        return 0;
    if (!s)
        return -EINVAL;
    if (bench__take(&p, "weight: "))
        return bench__count(&p, &s->weight);
    if (bench__take(&p, "latency average = ")) {
        return bench__double(&p, &s->latency_avg_ms);
    }
    if (bench__take(&p, "latency stddev = "))
        return bench__double(&p, &s->latency_stddev_ms);
    if (bench__take(&p, "number of failed transactions: "))
        return count_pct(p, &s->failed, NULL);
    if (bench__take(&p, "number of transactions actually processed: ")) {
        /* pgbench > 17: successful transactions and tps on their own line */
        if (bench__int64(&p, &s->transactions))
            return -EINVAL;
        s->processed_line = 1;
        const char *t = strstr(p, "tps = ");
        if (t) {
            t += 6;
            if (!bench__double(&t, &d))
                s->tps = d;
        }
        return 0;
    }
    if (bench__take(&p, "number of ") || bench__take(&p, "total number of "))
        return 0; /* per-script serialization/deadlock/retried/skipped: totals carry them */
    if (!bench__int64(&p, &n) && bench__take(&p, " transactions (")) {
        if (!s->processed_line)
            s->transactions = n;
        const char *t = strstr(p, "tps = ");
        if (t) {
            t += 6;
            if (!bench__double(&t, &d))
                s->tps = d;
        }
        return 0;
    }
    return -EINVAL;
}

/* ---- the final report: one row per line prefix ---- */

static int type_line(struct bench_pgbench_result *r, const char *p)
{
    bench__copy_clean(r->transaction_type, sizeof(r->transaction_type), p, strlen(p));
    r->summary_seen = true;
    return 0;
}

/* "N" or "N/M" (-t) */
static int processed_line(struct bench_pgbench_result *r, const char *p)
{
    if (bench__int64(&p, &r->transactions))
        return -EINVAL;
    if (bench__take(&p, "/"))
        return bench__int64(&p, &r->transactions_target);
    return 0;
}

static int failed_line(struct bench_pgbench_result *r, const char *p)
{
    return count_pct(p, &r->failed, &r->failed_pct);
}

/* "X ms latency limit: N" */
static int above_limit_line(struct bench_pgbench_result *r, const char *p)
{
    if (bench__double(&p, &r->latency_limit_ms) || !bench__take(&p, " ms latency limit: "))
        return -EINVAL;
    return bench__int64(&p, &r->above_latency_limit);
}

static int latency_avg_line(struct bench_pgbench_result *r, const char *p)
{
    if (bench__double(&p, &r->latency_avg_ms))
        return -EINVAL;
    if (strstr(p, "(including failures)"))
        r->latency_includes_failures = true;
    return 0;
}

/* "X (max Y) ms" */
static int rate_lag_line(struct bench_pgbench_result *r, const char *p)
{
    double d;
    if (bench__double(&p, &r->rate_lag_avg_ms))
        return -EINVAL;
    if (bench__take(&p, " (max ") && !bench__double(&p, &d))
        r->rate_lag_max_ms = d;
    return 0;
}

/* "X (without initial connection time)" and its older and -C forms */
static int tps_line(struct bench_pgbench_result *r, const char *p)
{
    double d;
    if (bench__double(&p, &d))
        return -EINVAL;
    if (!strcmp(p, " (without initial connection time)") ||
        !strcmp(p, " (excluding connections establishing)")) {
        r->tps = d;
    } else if (!strcmp(p, " (including connections establishing)")) {
        r->tps_including_connect = d;
    } else if (!strcmp(p, " (including reconnection times)")) {
        r->tps = d;
        r->tps_including_connect = d;
    } else {
        return -EINVAL;
    }
    return 0;
}

/* How a summary row's value is read: into the field at off, or by fn. */
enum sum_kind { SK_TEXT, SK_INT64, SK_COUNT, SK_DOUBLE, SK_COUNT_PCT, SK_FN };

struct sum_row {
    const char *prefix;
    enum sum_kind kind;
    size_t off, cap; /* the field; cap for text */
    int (*fn)(struct bench_pgbench_result *r, const char *p);
};

#define SUM_FIELD(prefix, kind, f)                                                                 \
    {                                                                                              \
        prefix, kind, offsetof(struct bench_pgbench_result, f),                                    \
            sizeof(((struct bench_pgbench_result *)0)->f), NULL                                    \
    }
#define SUM_FN(prefix, fn)                                                                         \
    {                                                                                              \
        prefix, SK_FN, 0, 0, fn                                                                    \
    }

static const struct sum_row sum_rows[] = {
    SUM_FN("transaction type: ", type_line),
    SUM_FIELD("scaling factor: ", SK_INT64, scale_factor),
    SUM_FIELD("partition method: ", SK_TEXT, partition_method),
    SUM_FIELD("partitions: ", SK_INT64, partitions),
    SUM_FIELD("query mode: ", SK_TEXT, query_mode),
    SUM_FIELD("number of clients: ", SK_COUNT, clients),
    SUM_FIELD("number of threads: ", SK_COUNT, threads),
    SUM_FIELD("maximum number of tries: ", SK_INT64, max_tries),
    SUM_FIELD("duration: ", SK_COUNT, duration_s),
    SUM_FIELD("number of transactions per client: ", SK_INT64, transactions_per_client),
    SUM_FN("number of transactions actually processed: ", processed_line),
    SUM_FN("number of failed transactions: ", failed_line),
    SUM_FIELD("number of serialization failures: ", SK_COUNT_PCT, serialization_failures),
    SUM_FIELD("number of deadlock failures: ", SK_COUNT_PCT, deadlock_failures),
    SUM_FIELD("number of other failures: ", SK_COUNT_PCT, other_failures),
    SUM_FIELD("number of transactions retried: ", SK_COUNT_PCT, retried),
    SUM_FIELD("total number of retries: ", SK_INT64, retries),
    SUM_FIELD("number of transactions skipped: ", SK_COUNT_PCT, skipped),
    SUM_FN("number of transactions above the ", above_limit_line),
    SUM_FN("latency average = ", latency_avg_line),
    SUM_FN("latency average: ", latency_avg_line),
    SUM_FIELD("latency stddev = ", SK_DOUBLE, latency_stddev_ms),
    SUM_FN("rate limit schedule lag: avg ", rate_lag_line),
    SUM_FIELD("initial connection time = ", SK_DOUBLE, initial_connection_ms),
    SUM_FIELD("average connection time = ", SK_DOUBLE, average_connection_ms),
    SUM_FN("tps = ", tps_line),
};

/* One line of the final report, by the first row whose prefix it starts with. */
static int summary_line(struct bench_pgbench_result *r, const char *line)
{
    for (size_t i = 0; i < sizeof(sum_rows) / sizeof(sum_rows[0]); i++) {
        const struct sum_row *row = &sum_rows[i];
        const char *p = line;
        if (!bench__take(&p, row->prefix))
            continue;
        void *f = (char *)r + row->off;
        switch (row->kind) {
        case SK_TEXT:
            bench__copy_clean(f, row->cap, p, strlen(p));
            return 0;
        case SK_INT64:
            return bench__int64(&p, f);
        case SK_COUNT:
            return bench__count(&p, f);
        case SK_DOUBLE:
            return bench__double(&p, f);
        case SK_COUNT_PCT:
            return count_pct(p, f, NULL);
        case SK_FN:
            return row->fn(r, p);
        }
    }
    return -EINVAL;
}

static int parse_version(struct bench_pgbench_result *r, const char *p)
{
    /* "pgbench (15.18 (Debian ...))" or "pgbench (14.20 (Debian ...), server 17.6)" */
    if (!bench__take(&p, "pgbench ("))
        return -EINVAL;
    size_t n = strcspn(p, " ),");
    if (n == 0 || p[0] < '0' || p[0] > '9')
        return -EINVAL;
    bench__copy_clean(r->version, sizeof(r->version), p, n);
    const char *s = strstr(p, ", server ");
    if (s) {
        s += 9;
        bench__copy_clean(r->server_version, sizeof(r->server_version), s, strcspn(s, " )"));
    }
    return 0;
}

/* A row of the per-statement block while it lasts (lines that start with whitespace and parse);
 * true when p was one, false when the block has ended. */
static bool statement_row(struct bench_pgbench_result *r, struct bench_pgbench_parse_state *st,
                          const char *p)
{
    if (!st->in_statements)
        return false;
    if ((p[0] == ' ' || p[0] == '\t') && parse_statement(r, p) == 0)
        return true;
    st->in_statements = 0;
    return false;
}

/* Error, fatal, warning and abort lines, with or without the "pgbench: " prefix (kept in
 * errors), and pgbench's informational lines (dropped); true when p was one. */
static bool error_line(struct bench_pgbench_result *r, struct bench_pgbench_parse_state *st,
                       const char *p)
{
    const char *q = p;
    int prefixed = bench__take(&q, "pgbench: ");
    int level = bench__take(&q, "error: ") || bench__take(&q, "fatal: ") ||
                bench__take(&q, "FATAL: ") || bench__take(&q, "ERROR: ");
    bool keep = false;
    if (prefixed && !level &&
        (bench__take(&q, "warning: ") || bench__take(&q, "detail: ") || bench__take(&q, "hint: ")))
        keep = true;
    int64_t id = keep ? -1 : aborted_client(q);
    if (id >= 0) {
        if (note_aborted(st, id))
            r->aborted_clients++;
        keep = true;
    } else if (!keep && strstr(q, "Run was aborted")) {
        r->run_aborted = true;
        keep = true;
    } else if (!keep && prefixed && !level) { /* e.g. "pgbench: setting random seed to 42" */
        return true;
    }
    if (keep || level || !strncmp(p, "FATAL:", 6) || !strncmp(p, "ERROR:", 6) ||
        !strncmp(p, "server closed the connection", 28) ||
        !strncmp(p, "connection to server", 20)) {
        add_error(r, p, strlen(p));
        return true;
    }
    return false;
}

/* "SQL script N: name" and its " - " lines (or, before any script, a statement header); true
 * when p was one. */
static bool script_lines(struct bench_pgbench_result *r, struct bench_pgbench_parse_state *st,
                         const char *p)
{
    const char *q = p;
    int64_t n;
    if (bench__take(&q, "SQL script ")) {
        if (!bench__int64(&q, &n) && n >= 1 && n <= 1000000 && bench__take(&q, ": ")) {
            st->cur_script = (int)(n - 1);
            add_script(r, st->cur_script, q, strlen(q));
        } else {
            r->lines_unknown++;
        }
        return true;
    }
    q = p;
    if (!bench__take(&q, " - "))
        return false;
    if (st->cur_script >= 0 ? script_line(r, q) : !stmt_header(st, q))
        r->lines_unknown++;
    return true;
}

/* One line, NUL-terminated and without its line end, by what it is. */
static void feed_text(struct bench_pgbench_result *r, struct bench_pgbench_parse_state *st,
                      const char *p)
{
    struct bench_timeline_point pt;
    if (statement_row(r, st, p) || !*p)
        return;
    if (!bench_pgbench_parse_progress(p, strlen(p), &pt)) {
        add_timeline(r, &pt);
        return;
    }
    if (!strncmp(p, "pgbench (", 9)) {
        if (parse_version(r, p))
            r->lines_unknown++;
        return;
    }
    if (!strncmp(p, "starting vacuum", 15) || error_line(r, st, p) || script_lines(r, st, p) ||
        stmt_header(st, p))
        return;
    if (summary_line(r, p))
        r->lines_unknown++;
}

static void feed_line(struct bench_pgbench_result *r, enum bench_stream stream, const char *line,
                      size_t len)
{
    struct bench_pgbench_parse_state *st = r->priv;
    char stackbuf[1024];
    char *buf = stackbuf;
    long *cont = &st->err_cont[stream];
    size_t nerrors = r->nerrors, dropped = r->errors_dropped;
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len > BENCH_PGBENCH_MAX_LINE)
        len = BENCH_PGBENCH_MAX_LINE;
    if (len >= sizeof(stackbuf))
        buf = util_xmalloc(len + 1);
    memcpy(buf, line, len);
    buf[len] = '\0';
    /* NUL bytes inside a line end it */
    r->lines++;
    /* libpq's messages go on in tab-indented lines ("server closed the connection unexpectedly"
     * "\tThis probably means the server terminated abnormally" "\tbefore or while processing
     * the request."): one error, joined with single spaces */
    if (buf[0] == '\t' && *cont != ERR_NONE) {
        if (*cont >= 0)
            continue_error(r, (size_t)*cont, buf);
    } else {
        feed_text(r, st, buf);
        *cont = r->nerrors > nerrors          ? (long)r->nerrors - 1
                : r->errors_dropped > dropped ? ERR_DROPPED
                                              : ERR_NONE;
    }
    if (buf != stackbuf)
        free(buf);
}

static void feed_stream(struct bench_pgbench_result *r, enum bench_stream stream, const char *data,
                        size_t len)
{
    struct linebuf *lb = &r->priv->streams[stream];
    while (len) {
        const char *nl = memchr(data, '\n', len);
        size_t n = nl ? (size_t)(nl - data) : len;
        size_t room = BENCH_PGBENCH_MAX_LINE - lb->len;
        size_t take = n < room ? n : room;
        if (take) {
            lb->data = util_xrealloc(lb->data, lb->len + take + 1);
            memcpy(lb->data + lb->len, data, take);
            lb->len += take;
        }
        if (take < n)
            lb->truncated = 1;
        if (nl) {
            feed_line(r, stream, lb->data ? lb->data : "", lb->len);
            lb->len = 0;
            lb->truncated = 0;
            n++;
        }
        data += n;
        len -= n;
    }
}

int bench_pgbench_feed(struct bench_pgbench_result *r, enum bench_stream stream, const char *data,
                       size_t len)
{
    if (stream != BENCH_STREAM_STDOUT && stream != BENCH_STREAM_STDERR)
        return -EINVAL;
    feed_stream(r, stream, data, len);
    return 0;
}

void bench_pgbench_finish(struct bench_pgbench_result *r)
{
    for (int i = 0; i < 2; i++) {
        struct linebuf *lb = &r->priv->streams[i];
        if (lb->len) {
            feed_line(r, (enum bench_stream)i, lb->data, lb->len);
            lb->len = 0;
        }
    }
    r->priv->in_statements = 0;
}

struct bench_pgbench_result *bench_pgbench_parse(const char *text, size_t len)
{
    struct bench_pgbench_result *r = bench_pgbench_result_new();
    feed_stream(r, BENCH_STREAM_STDOUT, text, len);
    bench_pgbench_finish(r);
    return r;
}
