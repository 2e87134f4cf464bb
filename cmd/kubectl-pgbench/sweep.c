/* kubectl pgbench sweep: a BenchmarkSweep from run's flags and the varied field's values; print
 * it (--dry-run=client), have the API server check it (--dry-run=server), or create it and follow
 * its steps (--wait). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pkg/api/phase.h"
#include "pkg/api/manifest.h"
#include "pkg/util/json.h"
#include "pkg/plugin/present.h"
#include "pkg/plugin/report.h"
#include "pkg/plugin/report_sweep.h"
#include "pkg/plugin/sweep.h"
#include "pkg/util/clock.h"
#include "pkg/bench/fields.h"
#include "pkg/util/err.h"
#include "plugin.h"
#include "run.h"

#define OUT_CAP (16u << 20)

static const char sweep_usage[] =
    "usage: kubectl pgbench sweep TARGET [flags] --clients LIST -- [PGBENCH-ARGS] [DBNAME]\n"
    "\n"
    "A BenchmarkSweep: one BenchmarkRun per value, one at a time, then the analysis (peak, USL\n"
    "fit, latency knee, verdict) in its status. TARGET, PGBENCH-ARGS and the flags are run's\n"
    "(kubectl pgbench run --help); the runs are NAME-s<step>-r<repeat> (NAME: at most 49\n"
    "characters, default sweep-YYYYMMDD-HHMMSS).\n";

static const char sweep_footer[] = "exit: 0 Succeeded or Stopped, 3 Failed (or --wait-timeout "
                                   "passed)";

/* sweep's own flags, and run's that it changes (--workers). */
struct sweep_cli {
    struct plugin_sweep_opts so;
    struct run_cli *r;
};

/* --clients, --rate, --workers: the varied field's values (the row's tag is the field). A single
 * --workers number is every step's workers (run's --workers). */
static int vary(void *base, const struct util_opt *o, const char *flag, const char *v, char *err,
                size_t errlen)
{
    struct sweep_cli *s = base;
    enum api_sweep_field field = (enum api_sweep_field)o->tag;
    if (field == API_SWEEP_WORKERS && !plugin_vary_is_list(v)) {
        size_t set = 0;
        struct util_opt_set run[4];
        size_t n = flag_run_sets(s->r, run);
        const struct util_opt *w = util_opt_find(run, n, "workers", 7, &set);
        return util_opt_store(w, run[set].base, flag, v, err, errlen);
    }
    if (s->so.vary.set)
        return util_errf(err, errlen, "--%s and --%s: a sweep varies one field",
                         api_sweep_field_name(s->so.vary.field), o->name);
    char name[64];
    (void)snprintf(name, sizeof(name), "--%s", o->name);
    return plugin_vary_parse(v, field, name, &s->so.vary, err, errlen);
}

#define SF(f) offsetof(struct sweep_cli, so.f)
static const struct util_opt sweep_rows[] = {
    {.name = "clients",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = vary,
     .tag = API_SWEEP_CLIENTS,
     .metavar = "LIST",
     .group = "the varied field (one of)",
     .help = "pgbench -c at each step, e.g. 1,2,4,8,16, or a range 1..64 (doubling) or 1..64x1.5 "
             "(factor 1.5)"},
    {.name = "rate",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = vary,
     .tag = API_SWEEP_RATE,
     .metavar = "LIST",
     .group = "the varied field (one of)",
     .help = "pgbench -R (total over workers) at each step, e.g. 500,1000,2000"},
    {.name = "workers",
     .type = UTIL_OPT_CALL,
     .flags = UTIL_OPT_VALUE,
     .cb = vary,
     .tag = API_SWEEP_WORKERS,
     .metavar = "LIST",
     .group = "the varied field (one of)",
     .help = "worker pods at each step, e.g. 1,2,4 (one number: every step's workers)"},
    {.name = "repeats",
     .type = UTIL_OPT_INT,
     .off = SF(repeats),
     .min = 1,
     .max = API_SWEEP_MAX_REPEATS,
     .metavar = "N",
     .group = "the sweep",
     .help = "runs per step (the step's numbers are their mean)"},
    {.name = "stop-when-failures-pct",
     .type = UTIL_OPT_DOUBLE,
     .off = SF(stop_failed_pct),
     .min = 0,
     .max = 100,
     .def = -1,
     .metavar = "X",
     .group = "the sweep",
     .help = "stop after a run whose failed transactions exceed X %"},
    {.name = "stop-when-p99-ms",
     .type = UTIL_OPT_DOUBLE,
     .off = SF(stop_p99_ms),
     .min = 0,
     .max = 1e9,
     .def = -1,
     .metavar = "Y",
     .group = "the sweep",
     .help = "stop after a run whose p99 latency exceeds Y ms"},
    {.name = "stop-when-aborted",
     .type = UTIL_OPT_LONG,
     .flags = UTIL_OPT_OPTIONAL,
     .off = SF(stop_aborted),
     .min = 1,
     .max = 1e6,
     .implied = "1",
     .metavar = "N",
     .group = "the sweep",
     .help = "stop after a run with N (bare: 1) aborted clients"},
};

/* ---- --wait ----------------------------------------------------------------------------- */

static int get_sweep(struct kc *k, const char *name, cJSON **out)
{
    return get_object(k, &API_BENCHMARKSWEEPS, name, out);
}

static bool terminal(const char *phase)
{
    return phase && api_phase_done(api_phase_parse(phase));
}

/* Prints the steps that finished since the last call (*printed of them so far). */
static void print_steps(const cJSON *sw, int *printed, bool tty)
{
    const cJSON *steps = bench_sweep_get(util_jget(sw, "status"), BSW_STEPS);
    for (int i = *printed; i < cJSON_GetArraySize(steps); i++) {
        const cJSON *step = cJSON_GetArrayItem(steps, i);
        const char *ph = bench_sweep_str(step, BSW_STEPS_PHASE);
        enum api_phase p = api_phase_parse(ph);
        if (!ph || (p != API_PHASE_SUCCEEDED && p != API_PHASE_FAILED))
            break;
        struct buf line = BUF_INIT(4096);
        (void)plugin_sweep_step_line(&line, sw, step);
        (void)printf("%s%s\n", tty ? "\r\033[K" : "", line.data ? line.data : "");
        buf_free(&line);
        *printed = i + 1;
    }
}

/* The line of the step that runs: its run's progress. */
static void progress(struct kc *k, const cJSON *sw, char *last, size_t len, bool tty)
{
    const cJSON *st = util_jget(sw, "status");
    const char *run = bench_sweep_str(st, BSW_CURRENT_RUN);
    if (!run)
        return;
    cJSON *br = NULL;
    struct kc_reply r;
    if (kc_call(k, KC_GET, &API_BENCHMARKRUNS, run, NULL, NULL, &r) == 0 && kube_ok(&r.st)) {
        br = r.body;
        r.body = NULL;
    }
    kc_reply_free(&r);
    const char *field = bench_sweep_str(st, BSW_FIELD);
    const cJSON *v = cJSON_GetArrayItem(bench_sweep_get(st, BSW_VALUES),
                                        (int)bench_sweep_num(st, BSW_CURRENT_STEP, 0));
    char val[48];
    plugin_fmt_num(val, sizeof(val), cJSON_IsNumber(v) ? v->valuedouble : NAN);
    struct buf line = BUF_INIT(4096);
    (void)buf_printf(&line, "step %s %s=%s: ", bench_sweep_str(st, BSW_STEP_TEXT),
                     field ? field : "value", val);
    if (br)
        (void)plugin_progress_line(&line, br, util_wall_s());
    else
        (void)buf_printf(&line, "%s %s", run, api_phase_name(API_PHASE_PENDING));
    if (line.data && strcmp(line.data, last) != 0) {
        (void)printf(tty ? "\r\033[K%s" : "%s\n", line.data);
        (void)fflush(stdout);
        (void)snprintf(last, len, "%s", line.data);
    }
    buf_free(&line);
    cJSON_Delete(br);
}

static int follow_sweep(struct act *x, struct kc *k, const char *name)
{
    bool tty = isatty(STDOUT_FILENO);
    double start = util_wall_s();
    char last[512] = "";
    int printed = 0, rc;
    cJSON *sw = NULL;
    for (;;) {
        cJSON_Delete(sw);
        if ((rc = get_sweep(k, name, &sw)) != 0)
            return rc;
        print_steps(sw, &printed, tty);
        if (terminal(bench_sweep_str(util_jget(sw, "status"), BSW_PHASE)))
            break;
        progress(k, sw, last, sizeof(last), tty);
        if (x->wait_timeout_s > 0 && util_wall_s() - start > (double)x->wait_timeout_s) {
            (void)fprintf(stderr,
                          "%skubectl pgbench: benchmarksweep %s not finished after "
                          "--wait-timeout %lds\n",
                          tty ? "\n" : "", name, x->wait_timeout_s);
            cJSON_Delete(sw);
            return EXIT_RUN_FAILED;
        }
        kc_sleep(k, x->poll_ms);
    }
    if (tty)
        (void)printf("\r\033[K");
    struct buf out = BUF_INIT(OUT_CAP);
    (void)plugin_sweep_summary(&out, sw);
    emit(out.data, out.len);
    buf_free(&out);
    rc = api_phase_parse(bench_sweep_str(util_jget(sw, "status"), BSW_PHASE)) == API_PHASE_FAILED
             ? EXIT_RUN_FAILED
             : 0;
    cJSON_Delete(sw);
    return rc;
}

/* ---- the command ------------------------------------------------------------------------ */

static int sweep_act(struct act *x, struct kc *k, const cJSON *sw)
{
    cJSON *objs = cJSON_CreateArray(), *created = NULL;
    int rc = 0;
    if (x->dry == DRY_CLIENT) {
        cJSON_AddItemToArray(objs, cJSON_Duplicate(sw, 1));
        act_print(x, objs);
        goto out;
    }
    rc = act_create(k, sw, x->dry == DRY_SERVER, &created);
    if (rc)
        goto out;
    cJSON_AddItemToArray(objs, created);
    const char *name = util_jstr(created, "metadata.name");
    if (x->dry == DRY_SERVER || (x->output && strcmp(x->output, "name") != 0))
        act_print(x, objs);
    else
        (void)printf("benchmarksweep.pgbench.dev/%s created\n", name);
    (void)fflush(stdout);
    if (x->wait && x->dry == DRY_NONE)
        rc = follow_sweep(x, k, name);
out:
    cJSON_Delete(objs);
    return rc;
}

int cmd_sweep(int argc, char **argv)
{
    struct args a = {argc, argv, "sweep"};
    struct act x;
    struct run_cli r;
    run_cli_init(&r, &x, &a);
    r.ro.template = true;
    struct sweep_cli sc = {.r = &r};
    struct plugin_sweep_opts *o = &sc.so;
    struct util_opt_set sets[5] = {{sweep_rows, UTIL_OPT_N(sweep_rows), &sc}};
    struct cmd_flags f = {.usage = sweep_usage,
                          .footer = sweep_footer,
                          .sets = sets,
                          .nsets = 1 + flag_run_sets(&r, sets + 1),
                          .word = run_cli_word,
                          .after_dashes = true};
    run_cli_pgbench_args(&r, flags_parse(&f, &a));
    if (!o->vary.set)
        die_usage(&a, "the varied field is required: --clients, --rate or --workers with a list "
                      "(1,2,4,8) or a range (1..64)");
    cJSON *br = NULL, *sw = NULL;
    int rc = run_cli_build(&r, "sweep", &br);
    if (!rc) {
        char err[1024];
        sw = plugin_build_sweep(br, o, err, sizeof(err));
        if (!sw) {
            (void)fprintf(stderr, "kubectl pgbench sweep: %s\n", err);
            rc = EXIT_USAGE;
        }
    }
    if (!rc)
        rc = sweep_act(&x, r.open ? &r.k : NULL, sw);
    cJSON_Delete(sw);
    cJSON_Delete(br);
    run_cli_free(&r);
    return rc;
}

/* ---- report and compare of sweeps ------------------------------------------------------- */

bool sweep_ref(struct kc *k, const char **name)
{
    static const char *const prefixes[] = {
        "sweep/",          "sweeps/",          "bsw/",
        "benchmarksweep/", "benchmarksweeps/", "benchmarksweep.pgbench.dev/"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(*name, prefixes[i], strlen(prefixes[i])) == 0) {
            *name += strlen(prefixes[i]);
            return true;
        }
    /* a plain NAME: a BenchmarkSweep when no BenchmarkRun has it and a sweep does */
    struct kc_reply r;
    bool sweep = false;
    if (kc_call(k, KC_GET, &API_BENCHMARKRUNS, *name, NULL, NULL, &r) == 0 && r.st.http == 404) {
        struct kc_reply s;
        sweep =
            kc_call(k, KC_GET, &API_BENCHMARKSWEEPS, *name, NULL, NULL, &s) == 0 && kube_ok(&s.st);
        kc_reply_free(&s);
    }
    kc_reply_free(&r);
    return sweep;
}

int sweep_report(struct kc *k, const char *name, struct buf *out)
{
    cJSON *sw = NULL;
    int rc = get_sweep(k, name, &sw);
    if (!rc && plugin_sweep_report_html(out, sw) != 0) {
        (void)fprintf(stderr, "kubectl pgbench report: output too large\n");
        rc = EXIT_CLUSTER;
    }
    cJSON_Delete(sw);
    return rc;
}

int sweep_compare(struct kc *k, const char *const *names, size_t n, bool html, struct buf *out)
{
    cJSON *sws[PLUGIN_MAX_RUNS] = {0};
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const char *name = names[i];
        (void)sweep_ref(k, &name);
        rc = get_sweep(k, name, &sws[i]);
    }
    char err[600] = "output too large";
    if (!rc &&
        (html ? plugin_sweep_compare_html(out, (const cJSON *const *)sws, n, err, sizeof(err))
              : plugin_sweep_compare(out, (const cJSON *const *)sws, n, err, sizeof(err))) != 0) {
        (void)fprintf(stderr, "kubectl pgbench compare: %s\n", err);
        rc = EXIT_USAGE;
    }
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(sws[i]);
    return rc;
}
