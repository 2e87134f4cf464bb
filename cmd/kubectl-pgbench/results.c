/* kubectl pgbench compare / export / logs / report: read finished BenchmarkRuns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg/util/err.h"
#include "pkg/util/mem.h"
#include "pkg/bench/fields.h"
#include "pkg/api/manifest.h"
#include "pkg/api/phase.h"
#include "pkg/util/json.h"
#include "pkg/plugin/present.h"
#include "pkg/plugin/report.h"
#include "plugin.h"

#define OUT_CAP (64u << 20)
#define MAX_RUNS PLUGIN_MAX_RUNS
#define RESULT_KEY "result.json" /* the data key when status.resultRef names none */

static int open_or_fail(struct kc *k, const struct kc_flags *f, const char *cmd)
{
    char err[1024];
    if (kc_open(k, f, err, sizeof(err))) {
        (void)fprintf(stderr, "kubectl pgbench %s: %s\n", cmd, err);
        return EXIT_CLUSTER;
    }
    return 0;
}

/* A word: the one NAME (a second is a usage error). */
static int one_name(void *ctx, const char *word, char *err, size_t errlen)
{
    const char **name = ctx;
    if (*name)
        return util_errf(err, errlen, "one NAME (\"%s\" is a second)", word);
    *name = word;
    return 0;
}

/* The run's full result from the ConfigMap status.resultRef names, parsed into *out (owned), or
 * NULL with why in note: no resultRef (an operator that writes none, or the run has not ended),
 * the ConfigMap is gone, not readable, not the run's own (ownerReferences), or its key is missing
 * or not JSON. Never fails the command: the pages and export then use status. */
static void get_result(struct kc *k, const cJSON *br, cJSON **out, char *note, size_t len)
{
    const char *key = NULL, *cm = plugin_result_ref(br, &key);
    const char *uid = util_jstr(br, "metadata.uid");
    *out = NULL;
    if (!cm) {
        (void)snprintf(note, len, "status.resultRef is not set");
        return;
    }
    struct kc_reply r;
    if (kc_call(k, KC_GET, &KUBE_CONFIGMAPS, cm, NULL, NULL, &r) != 0 || !kube_ok(&r.st)) {
        char msg[600];
        kc_describe(&r.st, msg, sizeof(msg));
        (void)snprintf(note, len, "ConfigMap %s: %s", cm, msg);
        kc_reply_free(&r);
        return;
    }
    bool owned = false;
    const cJSON *ref;
    cJSON_ArrayForEach(ref, util_jget(r.body, "metadata.ownerReferences"))
    {
        const char *u = util_jstr(ref, "uid");
        owned = owned || (u && uid && strcmp(u, uid) == 0);
    }
    const char *text = util_jkey(util_jget(r.body, "data"), key ? key : RESULT_KEY);
    if (!owned)
        (void)snprintf(note, len, "ConfigMap %s is not owned by this run", cm);
    else if (!text)
        (void)snprintf(note, len, "ConfigMap %s has no key %s", cm, key ? key : RESULT_KEY);
    else if (!cJSON_IsObject(*out = cJSON_Parse(text))) {
        cJSON_Delete(*out);
        *out = NULL;
        (void)snprintf(note, len, "ConfigMap %s: key %s is not a JSON object", cm,
                       key ? key : RESULT_KEY);
    }
    kc_reply_free(&r);
}

/* Writes the page to file, or to stdout when file is NULL. Returns 0 or an exit code. */
static int write_page(const char *cmd, const struct buf *page, const char *file)
{
    if (!file) {
        emit(page->data, page->len);
        return 0;
    }
    FILE *f = fopen(file, "w");
    if (!f || fwrite(page->data, 1, page->len, f) != page->len || fclose(f) != 0) {
        (void)fprintf(stderr, "kubectl pgbench %s: cannot write %s\n", cmd, file);
        return EXIT_CLUSTER;
    }
    (void)fprintf(stderr, "wrote %s\n", file);
    return 0;
}

/* compare's output: the text table, or with -o html one page (to FILE, else stdout). Reads every
 * run's result (server settings, and the page's curves). */
static int compare_out(const struct plugin_compare *sides, cJSON **brs, struct kc *k,
                       const char *html_file, bool html)
{
    struct plugin_compare cmp = *sides, *c = &cmp;
    struct buf out = BUF_INIT(OUT_CAP), verdict = BUF_INIT(1 << 20);
    bool failed = false;
    cJSON *res[MAX_RUNS] = {0};
    int rc = 0;
    for (size_t i = 0; i < c->n;
         i++) { /* settings, and the evidence that explains the difference */
        char note[700];
        get_result(k, brs[i], &res[i], note, sizeof(note));
    }
    c->brs = (const cJSON *const *)brs;
    c->results = (const cJSON *const *)res;
    if (html) {
        if (plugin_compare_html(&out, c, &verdict, &failed) != 0) {
            (void)fprintf(stderr, "kubectl pgbench compare: output too large\n");
            rc = EXIT_CLUSTER;
        }
        rc = rc ? rc : write_page("compare", &out, html_file);
    } else if (plugin_compare_table(&out, c, false, &verdict, &failed) != 0) {
        (void)fprintf(stderr, "kubectl pgbench compare: output too large\n");
        rc = EXIT_CLUSTER;
    } else {
        emit(out.data, out.len);
    }
    if (failed && !rc) {
        (void)fflush(stdout);
        (void)fprintf(stderr, "%s", verdict.data);
        rc = EXIT_RUN_FAILED;
    }
    for (size_t i = 0; i < c->n; i++)
        cJSON_Delete(res[i]);
    buf_free(&out);
    buf_free(&verdict);
    return rc;
}

/* FILE after "-o html": a path ending in .html or .htm, or holding a '/' (a run's name can hold
 * dots but neither). */
static bool html_file_arg(const char *s)
{
    size_t l = strlen(s);
    return s[0] != '-' && (strchr(s, '/') || (l > 5 && strcmp(s + l - 5, ".html") == 0) ||
                           (l > 4 && strcmp(s + l - 4, ".htm") == 0));
}

/* The runs of compare's arguments, in sides: "a,b,c" is a side of three runs; with --repeats N
 * every N consecutive names are one. names[] gets every run, c->side_n each side's count. */
static size_t compare_sides(struct args *a, char **args, size_t nargs, long repeats,
                            const char **names, struct plugin_compare *c)
{
    size_t n = 0;
    bool lists = false;
    for (size_t k = 0; k < nargs; k++) {
        size_t before = n;
        for (char *p = args[k], *comma; p; p = comma ? comma + 1 : NULL) {
            if ((comma = strchr(p, ',')) != NULL) {
                *comma = '\0';
                lists = true;
            }
            if (!*p)
                die_usage(a, "an empty name in \"%s\"", args[k]);
            if (n >= MAX_RUNS)
                die_usage(a, "at most %d runs", MAX_RUNS);
            names[n++] = p;
        }
        if (c->nsides < sizeof(c->side_n) / sizeof(c->side_n[0]))
            c->side_n[c->nsides] = n - before;
        c->nsides++;
    }
    if (lists && repeats > 0)
        die_usage(a, "--repeats and comma-separated sides: give one of them");
    if (repeats > 0) {
        if (n % (size_t)repeats || n / (size_t)repeats < 2)
            die_usage(a,
                      "--repeats %ld: give %ld runs per side, at least two sides (%zu runs "
                      "given)",
                      repeats, repeats, n);
        c->nsides = n / (size_t)repeats;
        for (size_t s = 0; s < c->nsides && s < sizeof(c->side_n) / sizeof(c->side_n[0]); s++)
            c->side_n[s] = (size_t)repeats;
    }
    if (c->nsides > sizeof(c->side_n) / sizeof(c->side_n[0]) - 1)
        die_usage(a, "at most %zu sides", sizeof(c->side_n) / sizeof(c->side_n[0]) - 1);
    c->n = n;
    return n;
}

static const char compare_usage[] =
    "usage: kubectl pgbench compare A B [C...] [flags]\n"
    "\n"
    "A settings block (rows that differ marked *), then the results; deltas are against the\n"
    "first: ratios, percentage points (pp) for shares. A1,A2,A3 B1,B2,B3 (or --repeats N): N\n"
    "runs per side; each side's mean ± stddev, and the gates judge a difference against the\n"
    "runs' spread (Welch t-test): \"within noise\" does not fail. A crossed threshold exits 3.\n"
    "Sweeps (sweep/A sweep/B, or names no BenchmarkRun has): a row per varied value, ratios to\n"
    "the first sweep; -o html: their curves.\n";

/* compare's command line: the flags, and the run names as given (sides not yet split). */
struct compare_cli {
    struct kc_flags kf;
    struct plugin_compare cmp; /* the thresholds */
    const char *format, *html_file;
    bool html_next; /* the word after -o html may be its FILE */
    long repeats;
    char *args[MAX_RUNS];
    size_t nargs;
};

/* -o html [FILE.html]: the next word is the page's file when it looks like one. */
static int compare_output(void *base, const struct util_opt *o, const char *flag, const char *v,
                          char *err, size_t errlen)
{
    struct compare_cli *c = base;
    if (strcmp(v, "html") != 0)
        return util_opt_bad(o, flag, v, err, errlen);
    c->format = v;
    c->html_next = true;
    return 0;
}

/* Any flag: the word after -o html is no longer its FILE. */
static int compare_before(void *ctx, const struct util_opt *o, void **base, char *err,
                          size_t errlen)
{
    (void)o, (void)base, (void)err, (void)errlen;
    ((struct compare_cli *)ctx)->html_next = false;
    return 0;
}

/* A word: -o html's FILE, or a run (a side "a,b,c"). */
static int compare_word(void *ctx, const char *word, char *err, size_t errlen)
{
    struct compare_cli *c = ctx;
    if (c->html_next && html_file_arg(word)) {
        c->html_file = word;
        c->html_next = false;
        return 0;
    }
    c->html_next = false;
    if (c->nargs >= MAX_RUNS)
        return util_errf(err, errlen, "at most %d runs", MAX_RUNS);
    c->args[c->nargs++] = (char *)word;
    return 0;
}

#define CMPF(f) offsetof(struct compare_cli, f)
enum { MAX_REPEATS = MAX_RUNS / 2 }; /* two sides at least */
static const struct util_opt compare_rows[] = {
    {.name = "repeats",
     .type = UTIL_OPT_LONG,
     .off = CMPF(repeats),
     .min = 1,
     .max = MAX_REPEATS,
     .metavar = "N",
     .help = "N consecutive runs per side (instead of A1,A2 B1,B2)"},
    {.name = "fail-if-tps-drops",
     .type = UTIL_OPT_DOUBLE,
     .off = CMPF(cmp.th.tps_drop_pct),
     .min = 0,
     .max = 1e6,
     .def = -1,
     .metavar = "PCT",
     .expect = "a percentage (0 or more)",
     .help = "exit 3 when a run's TPS is this many % below the first's"},
    {.name = "fail-if-p99-grows",
     .type = UTIL_OPT_DOUBLE,
     .off = CMPF(cmp.th.p99_grow_pct),
     .min = 0,
     .max = 1e6,
     .def = -1,
     .metavar = "PCT",
     .expect = "a percentage (0 or more)",
     .help = "exit 3 when a run's p99 latency is this many % above the first's"},
    {.name = "output",
     .shrt = 'o',
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = compare_output,
     .metavar = "html [FILE.html]",
     .expect = "html (the table alone is the default)",
     .help = "one self-contained page (the table, TPS, latency and percentile curves "
             "overlaid); stdout without FILE"},
};

/* BenchmarkSweeps compared: one row per varied value, the table or (-o html) a page. */
static int compare_sweeps(struct args *a, struct kc *k, const struct compare_cli *o,
                          const char **names, size_t n)
{
    struct buf out = BUF_INIT(OUT_CAP);
    if (o->cmp.nsides != n)
        die_usage(a, "sweeps are compared one against another: no --repeats or lists");
    int rc = sweep_compare(k, names, n, o->format != NULL, &out);
    if (!rc && o->format)
        rc = write_page("compare", &out, o->html_file);
    else if (!rc)
        emit(out.data, out.len);
    buf_free(&out);
    return rc;
}

/* BenchmarkRuns compared: each run read, then compare_out. */
static int compare_runs(struct kc *k, const struct compare_cli *o, const char **names, size_t n)
{
    cJSON *brs[MAX_RUNS] = {0};
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = get_run(k, names[i], &brs[i]);
    if (!rc)
        rc = compare_out(&o->cmp, brs, k, o->html_file, o->format != NULL);
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(brs[i]);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    struct args a = {argc, argv, 1, "compare"};
    struct compare_cli o = {0};
    const char *names[MAX_RUNS];
    struct util_opt_set sets[] = {{compare_rows, UTIL_OPT_N(compare_rows), &o},
                                  flag_kube_set(&o.kf)};
    struct cmd_flags f = {.usage = compare_usage,
                          .sets = sets,
                          .nsets = UTIL_OPT_N(sets),
                          .word = compare_word,
                          .before = compare_before,
                          .ctx = &o};
    (void)flags_parse(&f, &a);
    size_t n = compare_sides(&a, o.args, o.nargs, o.repeats, names, &o.cmp);
    if (n < 2 || o.cmp.nsides < 2)
        die_usage(&a, "give at least two BenchmarkRuns: kubectl pgbench compare A B");
    struct kc k;
    int rc = open_or_fail(&k, &o.kf, "compare");
    if (rc)
        return rc;
    const char *first = names[0];
    if (sweep_ref(&k, &first)) /* BenchmarkSweeps: one row per varied value */
        rc = compare_sweeps(&a, &k, &o, names, n);
    else
        rc = compare_runs(&k, &o, names, n);
    kc_close(&k);
    return rc;
}

static const char export_usage[] =
    "usage: kubectl pgbench export NAME [NAME...] -o json|yaml|csv [flags]\n"
    "\n"
    "csv without --table: every non-empty table, separated by a blank line; several runs: a\n"
    "first column \"run\".\n";

struct export_cli {
    struct kc_flags kf;
    const char *format, *table;
    const char *names[MAX_RUNS];
    size_t n;
};

static const char *const export_formats[] = {"json", "yaml", "csv", NULL};
static const char *const export_tables[] = {"summary", "timeline", "statements",
                                            "workers", "fio",      NULL};

#define EXF(f) offsetof(struct export_cli, f)
static const struct util_opt export_rows[] = {
    {.name = "output",
     .shrt = 'o',
     .type = UTIL_OPT_CHOICE,
     .flags = UTIL_OPT_REQUIRED,
     .off = EXF(format),
     .choices = export_formats,
     .metavar = "json|yaml|csv",
     .help = "the format"},
    {.name = "table",
     .type = UTIL_OPT_CHOICE,
     .off = EXF(table),
     .choices = export_tables,
     .metavar = "summary|timeline|statements|workers|fio",
     .help = "one table (summary: one row per run: settings, TPS, latency percentiles, failures)"},
};

static int export_word(void *ctx, const char *word, char *err, size_t errlen)
{
    struct export_cli *e = ctx;
    if (e->n >= MAX_RUNS)
        return util_errf(err, errlen, "at most %d runs", MAX_RUNS);
    e->names[e->n++] = word;
    return 0;
}

/* The runs and their results exported to stdout. Returns 0 or an exit code. */
static int export_write(cJSON *const *brs, cJSON *const *res, size_t n, const char *format,
                        const char *table)
{
    struct buf out = BUF_INIT(OUT_CAP);
    int rc = 0, erc = plugin_export(&out, (const cJSON *const *)brs, (const cJSON *const *)res, n,
                                    format, table);
    if (erc != 0) {
        (void)fprintf(stderr, "kubectl pgbench export: %s\n",
                      erc == -E2BIG ? "output too large" : "a string is not UTF-8");
        rc = EXIT_CLUSTER;
    } else {
        emit(out.data, out.len);
    }
    buf_free(&out);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    struct args a = {argc, argv, 1, "export"};
    struct export_cli e = {0};
    struct util_opt_set sets[] = {{export_rows, UTIL_OPT_N(export_rows), &e}, flag_kube_set(&e.kf)};
    struct cmd_flags f = {.usage = export_usage,
                          .sets = sets,
                          .nsets = UTIL_OPT_N(sets),
                          .word = export_word,
                          .ctx = &e};
    (void)flags_parse(&f, &a);
    const char *const *names = e.names, *format = e.format, *table = e.table;
    struct kc_flags kf = e.kf;
    size_t n = e.n;
    if (!n)
        die_usage(&a, "a NAME is required");
    struct kc k;
    int rc = open_or_fail(&k, &kf, "export");
    if (rc)
        return rc;
    cJSON *brs[MAX_RUNS] = {0}, *res[MAX_RUNS] = {0};
    for (size_t i = 0; i < n && !rc; i++) {
        char note[700];
        rc = get_run(&k, names[i], &brs[i]);
        if (!rc)
            get_result(&k, brs[i], &res[i], note, sizeof(note));
    }
    if (!rc)
        rc = export_write(brs, res, n, format, table);
    for (size_t i = 0; i < n; i++) {
        cJSON_Delete(res[i]);
        cJSON_Delete(brs[i]);
    }
    kc_close(&k);
    return rc;
}

/* ---- logs ------------------------------------------------------------------------------- */

struct pod_ref {
    const char *name, *role;
    long index; /* -1 for the init pod */
    const char *created;
};

static int pod_cmp(const void *x, const void *y)
{
    const struct pod_ref *a = x, *b = y;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    int c = strcmp(a->created ? a->created : "", b->created ? b->created : "");
    return c ? c : strcmp(a->name, b->name);
}

/* The run's pods, the init pod first, then by worker index and creation (owned by the caller), in
 * *out; their strings point into list. Returns their number, or -1 having printed why. */
static int run_pods(const cJSON *list, struct pod_ref **out)
{
    const cJSON *items = util_jget(list, "items");
    int n = cJSON_GetArraySize(items);
    struct pod_ref *pods = util_xcalloc((size_t)n + 1, sizeof(*pods));
    for (int i = 0; i < n; i++) {
        const cJSON *p = cJSON_GetArrayItem(items, i);
        const cJSON *labels = util_jget(p, "metadata.labels");
        const cJSON *ann = util_jget(p, "metadata.annotations");
        pods[i].name = util_jstr(p, "metadata.name");
        pods[i].role = util_jkey(labels, API_LABEL_ROLE);
        pods[i].created = util_jstr(p, "metadata.creationTimestamp");
        const char *idx = util_jkey(ann, "batch.kubernetes.io/job-completion-index");
        if (!idx)
            idx = util_jkey(labels, "batch.kubernetes.io/job-completion-index");
        pods[i].index = pods[i].role && strcmp(pods[i].role, "init") == 0 ? -1
                        : idx                                             ? atol(idx)
                                                                          : 0;
    }
    qsort(pods, (size_t)n, sizeof(*pods), pod_cmp);
    *out = pods;
    return n;
}

/* One line of a pod's log (len bytes, no newline) with its prefix; raw: only pgbench's own
 * output, the msg of the runner's "output" records. */
static void log_line(const char *prefix, const char *line, size_t len, bool raw)
{
    if (!raw) {
        (void)printf("%s%.*s\n", prefix, (int)len, line);
        return;
    }
    if (!len || line[0] != '{')
        return;
    cJSON *rec = cJSON_ParseWithLength(line, len);
    const char *msg = util_jstr(rec, "msg");
    if (cJSON_IsString(bench_get(rec, BK_OUTPUT)) && msg)
        (void)printf("%s%s\n", prefix, strcmp(msg, " ") == 0 ? "" : msg);
    cJSON_Delete(rec);
}

static void pod_prefix(const struct pod_ref *pod, char *out, size_t len)
{
    if (pod->index < 0)
        (void)snprintf(out, len, "[init] ");
    else
        (void)snprintf(out, len, "[%ld] ", pod->index);
}

/* One pod's log, each line prefixed "[init] " or "[INDEX] ". Returns 0 or an exit code. */
static int print_pod_log(struct kc *k, const struct pod_ref *pod, bool raw)
{
    struct kube_opts o = {.subresource = "log", .query = "container=" API_CONTAINER};
    struct kc_reply r;
    char prefix[32];
    pod_prefix(pod, prefix, sizeof(prefix));
    int rc = 0;
    if (kc_call(k, KC_GET, &KUBE_PODS, pod->name, NULL, &o, &r) != 0 || !kube_ok(&r.st)) {
        char msg[600];
        kc_describe(&r.st, msg, sizeof(msg));
        (void)fprintf(stderr, "%spod %s: %s\n", prefix, pod->name, msg);
        rc = EXIT_CLUSTER;
    } else {
        const char *t = r.text ? r.text : "";
        while (*t) {
            const char *nl = strchr(t, '\n');
            size_t len = nl ? (size_t)(nl - t) : strlen(t);
            log_line(prefix, t, len, raw);
            t += len + (nl ? 1 : 0);
        }
    }
    kc_reply_free(&r);
    return rc;
}

/* The logs of the pods in list (the run's), in order. Returns 0 or an exit code. */
static int print_logs(struct kc *k, const char *name, const struct kc_reply *list, bool raw)
{
    struct pod_ref *pods;
    int n = run_pods(list->body, &pods), rc = 0;
    if (n == 0) {
        (void)fprintf(stderr,
                      "kubectl pgbench logs: no pods of benchmarkrun %s in namespace %s "
                      "(gone after ttlSecondsAfterFinished, or not started)\n",
                      name, k->ns);
        rc = EXIT_CLUSTER;
    }
    for (int i = 0; i < n; i++)
        if (print_pod_log(k, &pods[i], raw))
            rc = EXIT_CLUSTER;
    free(pods);
    return rc;
}

/* ---- logs -f: every pod's log streamed (follow=true) as it grows, new pods as they come */

#define MAX_FOLLOW 300
#define LINE_CAP (64u << 10)

struct follow {
    char name[254], prefix[32];
    bool raw;
    int state;       /* 0 not started (container waiting), 1 streaming, 2 ended */
    struct buf line; /* the unfinished line */
};

static void follow_data(const char *data, size_t len, void *ud)
{
    struct follow *f = ud;
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\n') {
            if (buf_append(&f->line, data + i, 1) == 0)
                continue;
        } /* a line beyond the cap is cut there */
        log_line(f->prefix, f->line.data ? f->line.data : "", f->line.len, f->raw);
        buf_reset(&f->line);
    }
    (void)fflush(stdout);
}

static void follow_done(struct kube_result *res, void *ud)
{
    struct follow *f = ud;
    if (f->line.len)
        log_line(f->prefix, f->line.data, f->line.len, f->raw);
    buf_reset(&f->line);
    /* 400: the container has not started yet (kube-apiserver's "is waiting to start"): again
     * on the next round */
    f->state = kube_ok(&res->status) || res->status.http != 400 ? 2 : 0;
    (void)fflush(stdout);
}

/* Starts following the run's pods that are not followed yet (list: the run's pods). */
static void follow_new(struct kc *k, const struct kc_reply *list, struct follow *fs, int *nf,
                       bool raw)
{
    struct pod_ref *pods;
    int n = run_pods(list->body, &pods);
    for (int i = 0; i < n; i++) {
        struct follow *f = NULL;
        for (int j = 0; j < *nf && !f; j++)
            if (strcmp(fs[j].name, pods[i].name) == 0)
                f = &fs[j];
        if (!f && *nf < MAX_FOLLOW) {
            f = &fs[(*nf)++];
            (void)snprintf(f->name, sizeof(f->name), "%s", pods[i].name);
            pod_prefix(&pods[i], f->prefix, sizeof(f->prefix));
            f->raw = raw;
            f->line = (struct buf)BUF_INIT(LINE_CAP);
        }
        if (!f || f->state != 0)
            continue;
        struct kube_opts o = {.subresource = "log",
                              .query = "container=" API_CONTAINER "&follow=true",
                              .timeout_ms = 7L * 24 * 3600 * 1000};
        if (kube_get_stream(k->client, &KUBE_PODS, k->ns, f->name, &o, follow_data, follow_done,
                            f) == 0)
            f->state = 1;
    }
    free(pods);
}

/* Follows until the run has ended and every stream with it. Returns 0 or an exit code. */
static int follow_logs(struct kc *k, const char *name, const char *sel, bool raw)
{
    struct follow *fs = util_xcalloc(MAX_FOLLOW, sizeof(*fs));
    int nf = 0, rc = 0;
    const char *env = getenv("KUBECTL_PGBENCH_POLL_MS");
    long poll = env && atol(env) > 0 ? atol(env) : 1000;
    for (;;) {
        cJSON *br = NULL;
        if ((rc = get_run(k, name, &br)) != 0)
            break;
        bool ended = api_phase_done(api_phase_parse(util_jstr(br, "status.phase")));
        cJSON_Delete(br);
        struct kube_opts lo = {.label_selector = sel};
        struct kc_reply list;
        if (kc_call(k, KC_LIST, &KUBE_PODS, NULL, NULL, &lo, &list) == 0 && kube_ok(&list.st))
            follow_new(k, &list, fs, &nf, raw);
        kc_reply_free(&list);
        bool streaming = false;
        for (int i = 0; i < nf; i++)
            streaming = streaming || fs[i].state == 1;
        if (ended && !streaming)
            break;
        kc_sleep(k, poll);
    }
    if (!rc && nf == 0) {
        (void)fprintf(stderr,
                      "kubectl pgbench logs: no pods of benchmarkrun %s in namespace %s "
                      "(gone after ttlSecondsAfterFinished)\n",
                      name, k->ns);
        rc = EXIT_CLUSTER;
    }
    for (int i = 0; i < nf; i++)
        buf_free(&fs[i].line);
    free(fs);
    return rc;
}

struct logs_cli {
    struct kc_flags kf;
    bool follow, raw;
};

static const struct util_opt logs_rows[] = {
    {.name = "follow",
     .shrt = 'f',
     .type = UTIL_OPT_BOOL,
     .off = offsetof(struct logs_cli, follow),
     .help = "stream the logs as they grow, new pods as they start, until the run ends"},
    {.name = "raw",
     .type = UTIL_OPT_BOOL,
     .off = offsetof(struct logs_cli, raw),
     .help = "pgbench's own output only (its report, init's lines), not the runner's records"},
};

int cmd_logs(int argc, char **argv)
{
    struct args a = {argc, argv, 1, "logs"};
    struct logs_cli l = {0};
    const char *name = NULL;
    struct util_opt_set sets[] = {{logs_rows, UTIL_OPT_N(logs_rows), &l}, flag_kube_set(&l.kf)};
    struct cmd_flags f = {.usage = "usage: kubectl pgbench logs NAME [flags]\n\n"
                                   "The init pod's log prefixed [init], each worker's with "
                                   "[INDEX].\n",
                          .sets = sets,
                          .nsets = UTIL_OPT_N(sets),
                          .word = one_name,
                          .ctx = &name};
    (void)flags_parse(&f, &a);
    struct kc_flags kf = l.kf;
    bool follow = l.follow, raw = l.raw;
    if (!name)
        die_usage(&a, "a NAME is required");
    struct kc k;
    int rc = open_or_fail(&k, &kf, "logs");
    if (rc)
        return rc;
    char sel[400];
    (void)snprintf(sel, sizeof(sel), API_LABEL_RUN "=%s", name);
    if (follow) {
        rc = follow_logs(&k, name, sel, raw);
        kc_close(&k);
        return rc;
    }
    struct kube_opts lo = {.label_selector = sel};
    struct kc_reply list;
    if (kc_call(&k, KC_LIST, &KUBE_PODS, NULL, NULL, &lo, &list) != 0 || !kube_ok(&list.st)) {
        char msg[600];
        kc_describe(&list.st, msg, sizeof(msg));
        (void)fprintf(stderr, "kubectl pgbench logs: listing pods: %s\n", msg);
        rc = EXIT_CLUSTER;
    } else {
        rc = print_logs(&k, name, &list, raw);
    }
    kc_reply_free(&list);
    kc_close(&k);
    return rc;
}

/* ---- report ----------------------------------------------------------------------------- */

struct report_cli {
    struct kc_flags kf;
    const char *file;
};

static const struct util_opt report_rows[] = {
    {.name = "output",
     .shrt = 'o',
     .type = UTIL_OPT_STR,
     .off = offsetof(struct report_cli, file),
     .metavar = "FILE.html",
     .help = "the page's file (default: stdout)"},
};

int cmd_report(int argc, char **argv)
{
    struct args a = {argc, argv, 1, "report"};
    struct report_cli rc_ = {0};
    const char *name = NULL;
    struct util_opt_set sets[] = {{report_rows, UTIL_OPT_N(report_rows), &rc_},
                                  flag_kube_set(&rc_.kf)};
    struct cmd_flags f = {.usage = "usage: kubectl pgbench report NAME|sweep/NAME [flags]\n\n"
                                   "One self-contained HTML page (inline SVG, no scripts). "
                                   "sweep/NAME (or a NAME no\nBenchmarkRun has): a "
                                   "BenchmarkSweep's TPS and p99 against the varied value, with "
                                   "the\nUSL fit, knee and N*.\n",
                          .sets = sets,
                          .nsets = UTIL_OPT_N(sets),
                          .word = one_name,
                          .ctx = &name};
    (void)flags_parse(&f, &a);
    struct kc_flags kf = rc_.kf;
    const char *file = rc_.file;
    if (!name)
        die_usage(&a, "a NAME is required");
    struct kc k;
    int rc = open_or_fail(&k, &kf, "report");
    if (rc)
        return rc;
    if (sweep_ref(&k, &name)) { /* a BenchmarkSweep's page (report_sweep.c) */
        struct buf out = BUF_INIT(OUT_CAP);
        rc = sweep_report(&k, name, &out);
        rc = rc ? rc : write_page("report", &out, file);
        buf_free(&out);
        kc_close(&k);
        return rc;
    }
    cJSON *br = NULL;
    rc = get_run(&k, name, &br);
    cJSON *res = NULL;
    char note[700];
    if (!rc) {
        struct buf out = BUF_INIT(OUT_CAP);
        get_result(&k, br, &res, note, sizeof(note));
        if (plugin_report_html(&out, br, res, note) != 0) {
            (void)fprintf(stderr, "kubectl pgbench report: output too large\n");
            rc = EXIT_CLUSTER;
        } else {
            rc = write_page("report", &out, file);
        }
        buf_free(&out);
    }
    cJSON_Delete(res);
    cJSON_Delete(br);
    kc_close(&k);
    return rc;
}
